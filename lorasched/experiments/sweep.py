"""Running a declared sweep: :func:`run_sweep` (one sweep into a dataset and netCDF file)
and :func:`run_sweeps` (the cells of several sweeps as one batch into one store).

Execution is serial or on dask.distributed (an embedded ``LocalCluster`` sized to the
machine by default, or an existing scheduler); every finished cell is persisted at once,
and a rerun skips the cells already in the store (see :mod:`lorasched.experiments.store`,
:mod:`lorasched.experiments.grid`).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import dask.config
import xarray as xr

from ..model.errors import InputError
from . import grid
from .assembly import assemble_results, write_netcdf
from .declaration import Sweep
from .executor import execute
from .progress import Bar
from .store import Store, default_store

#: the embedded cluster's workers start without distributed's MALLOC_TRIM_THRESHOLD_
#: (65536): set, it turns off glibc's adaptive mmap threshold, every array of a few hundred
#: kilobytes is then mapped and unmapped afresh, and a cell that allocates many (an
#: auction's day) takes 2-2.5 times the CPU it takes in a plain process (the BLAS threads
#: stay at one, as distributed sets them)
WORKER_ENVIRON = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}


@dataclass
class SweepReport:
    """What a sweep run did: the dataset and which cells ran, were skipped, failed.

    Parameters
    ----------
    dataset : xarray.Dataset
        The sweep's results (empty for :func:`run_sweeps`).
    computed : int
        Cells run.
    skipped : int
        Cells found done in the store.
    failed : list
        ``(cell description, error)`` of each failed cell.
    interrupted : bool, optional
        Whether a ``KeyboardInterrupt`` stopped the run.
    cells : list, optional
        Every cell of the batch (:func:`run_sweeps`).
    """

    dataset: xr.Dataset
    computed: int
    skipped: int
    failed: list  # [(cell description, error)]
    interrupted: bool = False
    cells: list = field(default_factory=list)  # every cell of the batch (run_sweeps)


def run_sweep(sweep: Sweep | dict | str | os.PathLike, out=None, *, store=None,
              scheduler: str | None = None, workers: int | None = None,
              serial: bool = False, progress: bool = True,
              on_cell=None) -> SweepReport:
    """Run a sweep, resumably, and assemble its dataset.

    A ``KeyboardInterrupt`` stops the sweep; finished cells stay in the store.

    Parameters
    ----------
    sweep : Sweep, dict, str or os.PathLike
        The sweep, a declaration or a declaration file (:meth:`Sweep.load
        <lorasched.experiments.declaration.Sweep.load>`).
    out : str or os.PathLike, optional
        Write the dataset there as netCDF (unless interrupted).
    store : str or os.PathLike, optional
        The folder that keeps finished cells, so that a second call skips them (default
        ``<out>.cells``; required without ``out``).
    scheduler : str, optional
        The address of a dask.distributed scheduler (``"tcp://host:port"``).
    workers : int, optional
        Without ``scheduler``: the embedded ``LocalCluster``'s single-threaded processes
        (default: one per CPU).
    serial : bool, optional
        Run in this process instead of on Dask (default False).
    progress : bool, optional
        Show a progress bar (default True).
    on_cell : callable, optional
        ``on_cell(cell, outcome)`` is called after each cell is persisted.

    Returns
    -------
    SweepReport

    Raises
    ------
    InputError
        If the declaration is invalid, neither ``out`` nor ``store`` is given, or the
        folder of ``out`` does not exist.
    FileNotFoundError
        If ``sweep`` names a file that does not exist.
    """
    sweep = Sweep.load(sweep)
    if out is None and store is None:
        raise InputError("run_sweep needs out= (a .nc path) or store= (a folder)")
    if out is not None:
        folder = Path(out).resolve().parent
        if not folder.is_dir():
            raise InputError(f"out: folder {folder} does not exist")
    store = Store(store if store is not None else default_store(out))
    store.open(sweep)
    cells = grid.cells(sweep)
    finished = store.done(c.key for c in cells)
    failed, computed, skipped, interrupted = _execute(
        cells, finished, store, name=sweep.name, serial=serial, scheduler=scheduler,
        workers=workers, progress=progress, on_cell=on_cell)
    dataset = assemble_results(sweep, cells, finished, failed)
    if out is not None and not interrupted:
        write_netcdf(dataset, Path(out))
    return SweepReport(dataset, computed=computed, skipped=skipped,
                       failed=list(failed.values()), interrupted=interrupted)


def run_sweeps(sweeps, store, *, scheduler: str | None = None, workers: int | None = None,
               serial: bool = False, progress: bool = True, name: str = "sweeps",
               on_cell=None, rank=None) -> SweepReport:
    """Run the cells of several sweeps as ONE batch into one store folder.

    Cells shared by several sweeps (the same scenario, algorithm, options and seed) run
    once, and one pool of workers stays busy across all of them, so this is faster than
    calling :func:`run_sweep` for each. Afterwards ``run_sweep(s, store=store)`` finds every
    cell of ``s`` done and only assembles its dataset.

    Parameters
    ----------
    sweeps : iterable
        Sweeps, declarations or declaration files.
    store : str or os.PathLike
        The folder that keeps the finished cells.
    scheduler, workers, serial, progress, on_cell
        As for :func:`run_sweep`.
    name : str, optional
        The batch's name, for the progress bar (default ``"sweeps"``).
    rank : callable, optional
        ``rank(params)`` orders the cells before their systems' cost hints (e.g. one
        system's cells before another's).

    Returns
    -------
    SweepReport
        Its ``dataset`` is empty; its ``cells`` lists the batch's cells.

    Raises
    ------
    InputError
        If a declaration is invalid.
    """
    sweeps = [Sweep.load(s) for s in sweeps]
    store = Store(store)
    union: dict[str, grid.Cell] = {}
    for sweep in sweeps:
        store.open(sweep)
        for cell in grid.cells(sweep):
            union.setdefault(cell.key, cell)
    finished = store.done(union)
    failed, computed, skipped, interrupted = _execute(
        list(union.values()), finished, store, name=name, serial=serial,
        scheduler=scheduler, workers=workers, progress=progress, on_cell=on_cell, rank=rank)
    return SweepReport(xr.Dataset(), computed=computed, skipped=skipped,
                       failed=list(failed.values()), interrupted=interrupted,
                       cells=list(union.values()))


def _execute(cells: list, finished: dict, store: Store, *, name: str, progress: bool,
             on_cell=None, **where) -> tuple[dict, int, int, bool]:
    """:func:`.executor.execute` with the batch's progress bar (:class:`.progress.Bar`)
    and, for an embedded cluster, :data:`WORKER_ENVIRON`; ``where``: ``serial``,
    ``scheduler``, ``workers`` and ``rank``."""
    pending = [c for c in cells if c.key not in finished]
    bar = Bar(pending, found=len(cells) - len(pending), name=name, progress=progress)

    def counted(cell, outcome: dict) -> None:
        bar.update(cell, outcome.get("cpu_seconds", 0.0), outcome["ok"])
        if on_cell is not None:
            on_cell(cell, outcome)

    try:
        with _worker_environ(where):
            return execute(cells, finished, store, name=name, progress=False,
                           on_cell=counted, **where)
    finally:
        bar.close()


def _worker_environ(where: dict):
    """:data:`WORKER_ENVIRON` as a context where the executor will start an embedded
    cluster, else nothing. distributed is imported first: setting one of its keys before
    its defaults are loaded would leave the others out (its ``LocalCluster`` then fails)."""
    if where.get("serial") or where.get("scheduler"):
        return contextlib.nullcontext()
    # imported here, not at the top: it takes a second, and serial runs never need it
    import distributed  # noqa: F401

    return dask.config.set(WORKER_ENVIRON)
