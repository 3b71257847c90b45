"""A system's figure pages as one catalogue (:class:`Catalogue`): a page by its key, the sweeps
behind its pages and the one call that computes them, as ``lorasched reproduce`` makes it for
each system. Each system's figures package builds one; a system whose pages compute in memory
(Allpass) refuses the arguments that say where cells run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..experiments import grid
from ..model.errors import InputError
from .base import Figure, check_size, figure_sweeps, pick
from .base import reproduce as run_figures

#: the arguments that say where a batch of cells runs, with their defaults
EXECUTOR_DEFAULTS = {"workers": None, "scheduler": None, "serial": False}


@dataclass
class Report:
    """What an in-memory system's :meth:`Catalogue.reproduce` did, in the shape of a sweep
    report (:class:`~lorasched.experiments.SweepReport`)."""

    computed: int
    skipped: int = 0
    failed: list = field(default_factory=list)
    interrupted: bool = False
    seconds: float = 0.0


@dataclass(frozen=True, eq=False)
class Catalogue:
    """A system's figure pages and how they are computed.

    Parameters
    ----------
    figures : dict of str to Figure
        The pages, by key, in the order of the paper.
    name : str
        What a batch of the pages' cells is called while it runs (``"section 5"``).
    extra : tuple of Figure
        Pages outside ``figures`` whose sweeps join the batch of all pages (the
        sensitivity page): in :meth:`sweeps` without a choice of pages, never in
        :meth:`reproduce`.
    compute : callable, optional
        For a system whose pages are computed in memory rather than as cells of sweeps:
        ``compute(size, store, seeds=..., figures=..., progress=...)`` (``figures``: the
        chosen pages) computes what they draw from and returns a :class:`Report`. Such a
        catalogue has no :meth:`sweeps`, and its :meth:`reproduce` refuses the arguments
        that say where cells run.
    ships : callable, optional
        ``ships(figure, params)``: whether a cell (its parameters) of a page is among those
        shipped with the repository at the full size (:meth:`shipped_keys`); none where not
        given.
    """

    figures: dict[str, Figure]
    name: str
    extra: tuple[Figure, ...] = ()
    compute: Callable | None = None
    ships: Callable | None = None

    def __repr__(self) -> str:
        return f"<Catalogue {self.name}: {', '.join(self.figures)}>"

    def figure(self, key: str) -> Figure:
        """The page called ``key``.

        Parameters
        ----------
        key : str
            A key of :attr:`figures` (``"fig04"``).

        Returns
        -------
        Figure
            The page; an :class:`~lorasched.model.errors.InputError` naming the keys if
            there is none.
        """
        return pick(self.figures, key)

    def chosen(self, figures=None) -> list[Figure]:
        """The pages called ``figures``, in that order.

        Parameters
        ----------
        figures : list of str, optional
            Keys of :attr:`figures`; None or empty: every page.

        Returns
        -------
        list of Figure
            The pages; an :class:`~lorasched.model.errors.InputError` naming the keys if
            one is not a key.
        """
        if figures:
            return [pick(self.figures, key) for key in figures]
        return list(self.figures.values())

    def sweeps(self, size: str = "full", seeds: int | None = None, figures=None) -> list:
        """The sweeps of the pages called ``figures`` (of every page and the
        :attr:`extra` ones when None), for a batch shared with other systems
        (:func:`lorasched.figures.base.reproduce_together`).

        Parameters
        ----------
        size : str
            ``"small"`` or ``"full"``.
        seeds : int, optional
            Seeds per cell (default: each page's own).
        figures : list of str, optional
            Keys of :attr:`figures`.

        Returns
        -------
        list of Sweep
            Every sweep of those pages at ``size``. An in-memory catalogue has none: an
            :class:`~lorasched.model.errors.InputError`.
        """
        if self.compute is not None:
            raise InputError(f"{self.name}: its pages are computed in memory, not as "
                             "sweeps of cells (use reproduce)")
        if figures:
            return figure_sweeps(self.chosen(figures), size, seeds)
        return figure_sweeps([*self.figures.values(), *self.extra], size, seeds)

    def shipped_keys(self, size: str = "full") -> list[str]:
        """The keys of the cells of :meth:`sweeps` (every page's, at their own seeds) that
        :attr:`ships` selects: those ``lorasched ship-cells`` writes and a test holds
        current. Sorted; empty where nothing is shipped or at the small size.

        Parameters
        ----------
        size : str
            ``"small"`` or ``"full"``.

        Returns
        -------
        list of str
        """
        check_size(size)
        if self.ships is None or self.compute is not None or size != "full":
            return []
        return sorted({c.key for fig in [*self.figures.values(), *self.extra]
                       for s in fig.sweeps(size).values() for c in grid.cells(s)
                       if self.ships(fig, c.params)})

    def reproduce(self, size: str = "full", store=None, *, seeds: int | None = None,
                  figures=None, workers: int | None = None, scheduler: str | None = None,
                  serial: bool = False, progress: bool = True):
        """Compute what the pages called ``figures`` (every page when None) draw from, into
        ``store``.

        Parameters
        ----------
        size : str
            ``"small"`` or ``"full"``.
        store : path, optional
            The folder of finished cells (default
            :func:`~lorasched.figures.base.default_store` of ``size``).
        seeds : int, optional
            Seeds per cell (default: each page's own).
        figures : list of str, optional
            Keys of :attr:`figures`; each is checked.
        workers, scheduler, serial
            Where the cells run (as :func:`lorasched.experiments.run_sweeps` takes them).
            An in-memory catalogue runs no cells: any of them given other than its
            default (None, None, False) is an :class:`~lorasched.model.errors.InputError`
            naming it.
        progress : bool
            Show a progress bar.

        Returns
        -------
        SweepReport or Report
            The batch's :class:`~lorasched.experiments.SweepReport` (cells computed, found
            done, failed), or an in-memory system's :class:`Report`.
        """
        check_size(size)
        chosen = self.chosen(figures)
        given = {"workers": workers, "scheduler": scheduler, "serial": serial}
        if self.compute is None:
            return run_figures(chosen, size, store, seeds=seeds, progress=progress,
                               name=f"{self.name} ({size})", **given)
        for arg, value in given.items():
            if value != EXECUTOR_DEFAULTS[arg]:
                raise InputError(f"{arg}={value!r}: {self.name}'s pages are computed in "
                                 f"memory, not as cells on workers; leave {arg} at its "
                                 f"default ({EXECUTOR_DEFAULTS[arg]!r})")
        return self.compute(size, store, seeds=seeds, figures=chosen, progress=progress)

