"""A system's figure pages as one catalogue (:class:`Catalogue`): a page by its key, the sweeps
behind its pages and the one call that computes them, as ``lorasched reproduce`` makes it for
each system. Each system's figures package builds one; a system whose pages read one common
set of kept runs (Allpass) names the sweeps of those runs (``runs``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..experiments import grid, run_sweeps
from .base import Figure, check_size, default_store, figure_sweeps, pick
from .base import reproduce as run_figures


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
    runs : callable, optional
        For a system whose pages read one common set of kept runs rather than a sweep each
        (Allpass): ``runs(size, seeds, figures)`` gives the sweeps of the runs the pages
        called ``figures`` read (a list of keys; None: every page's, the extra pages' and
        the system's other runs), for :meth:`sweeps` and :meth:`reproduce`.
    ships : callable, optional
        ``ships(figure, params)``: whether a cell (its parameters) of a page is among those
        shipped with the repository (:meth:`shipped_keys`), at either size; none where not
        given.
    """

    figures: dict[str, Figure]
    name: str
    extra: tuple[Figure, ...] = ()
    runs: Callable | None = None
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
            Every sweep of those pages at ``size`` (of a catalogue with :attr:`runs`, what
            it gives).
        """
        if self.runs is not None:
            check_size(size)
            return self.runs(size, seeds, [f.key for f in self.chosen(figures)] if figures
                             else None)
        if figures:
            return figure_sweeps(self.chosen(figures), size, seeds)
        return figure_sweeps([*self.figures.values(), *self.extra], size, seeds)

    def shipped_keys(self, size: str = "full") -> list[str]:
        """The keys of the cells of :meth:`sweeps` (every page's, at their own seeds) that
        :attr:`ships` selects: those ``lorasched ship-cells`` writes and a test holds
        current. Sorted; empty where nothing is shipped.

        Parameters
        ----------
        size : str
            ``"small"`` or ``"full"``.

        Returns
        -------
        list of str
        """
        check_size(size)
        if self.ships is None:
            return []
        return sorted({c.key for fig in [*self.figures.values(), *self.extra]
                       for s in fig.sweeps(size).values() for c in grid.cells(s)
                       if self.ships(fig, c.params)})

    def reproduce(self, size: str = "full", store=None, *, seeds: int | None = None,
                  figures=None, workers: int | None = None, scheduler: str | None = None,
                  serial: bool = False, progress: bool = True):
        """Compute what the pages called ``figures`` (every page when None; for a catalogue
        with :attr:`runs`, every run of the system) draw from, into ``store``.

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
        progress : bool
            Show a progress bar.

        Returns
        -------
        SweepReport
            The batch's :class:`~lorasched.experiments.SweepReport` (cells computed, found
            done, failed).
        """
        check_size(size)
        chosen = self.chosen(figures)
        given = {"workers": workers, "scheduler": scheduler, "serial": serial}
        if self.runs is None:
            return run_figures(chosen, size, store, seeds=seeds, progress=progress,
                               name=f"{self.name} ({size})", **given)
        return run_sweeps(self.sweeps(size, seeds, figures),
                          default_store(size) if store is None else store,
                          progress=progress, name=f"{self.name} ({size})", **given)
