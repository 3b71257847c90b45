"""Running many cells, serially or on dask.distributed, with a progress bar.

A cell's outcome depends only on its parameters (:mod:`.runner` runs one), so serial and
parallel runs give the same numbers, bit for bit, except measured times. A failing cell
never stops the others: its error travels back as data and is recorded in the store.
"""

from __future__ import annotations

import logging
import os
import traceback

from .. import systems
from ..model.errors import InputError
from .grid import Cell
from .progress import Bar
from .runner import guarded
from .store import Store

#: how long a sweep waits for the Dask scheduler it was given before giving up
SCHEDULER_TIMEOUT_S = 10.0
#: the embedded cluster's workers start without distributed's MALLOC_TRIM_THRESHOLD_
#: (65536), which turns off glibc's adaptive mmap threshold: every large array is then
#: mapped and unmapped afresh, and a cell that allocates many (an auction's day) takes 2-2.5
#: times the CPU it takes in a plain process (the BLAS threads stay at one, as distributed
#: sets them)
WORKER_ENVIRON = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}


def _order(cell: Cell, rank=None) -> tuple:
    """Submission order: ``rank(params)`` if given, then the system's cost hint (slow
    cells first), then the key."""
    system = systems.get(cell.params["system"])
    hint = system.cost(cell.params) if system.cost is not None else ()
    first = (rank(cell.params),) if rank is not None else ()
    return (*first, *hint, cell.key)


def execute(cells: list[Cell], finished: dict, store: Store, *, name: str, serial: bool,
            scheduler: str | None, workers: int | None, progress: bool,
            on_cell=None, rank=None) -> tuple[dict, int, int, bool]:
    """Run the cells not in ``finished`` (updated in place), persisting each in ``store``.

    Returns ``(failed, computed, skipped, interrupted)``; ``failed`` maps a cell's key to
    ``(description, error)``. ``rank(params)`` (optional) orders cells before their
    systems' cost hints."""
    pending = sorted([c for c in cells if c.key not in finished],
                     key=lambda c: _order(c, rank))
    skipped = len(cells) - len(pending)
    failed: dict[str, tuple] = {}
    computed = 0
    bar = Bar(pending, found=skipped, name=name, progress=progress)

    def record(cell: Cell, outcome: dict) -> None:
        nonlocal computed
        store.put(cell, outcome)
        if outcome["ok"]:
            finished[cell.key] = {"metrics": outcome["metrics"]}
            computed += 1
        else:
            failed[cell.key] = (cell.describe(), outcome["error"])
            bar.write(f"cell failed: {cell.describe()}: {outcome['error']}")
        bar.update(cell, outcome.get("cpu_seconds", 0.0), outcome["ok"])
        if on_cell is not None:
            on_cell(cell, outcome)

    interrupted = False
    try:
        if pending and serial:
            for cell in pending:
                record(cell, guarded(cell.params))
        elif pending:
            _run_dask(pending, record, scheduler=scheduler, workers=workers)
    except KeyboardInterrupt:
        interrupted = True
        bar.write(f"interrupted: {len(finished)} of {len(cells)} cells are in {store.folder}; "
                  "run the same command again to resume")
    finally:
        bar.close()
    return failed, computed, skipped, interrupted


def _run_dask(pending: list[Cell], record, *, scheduler: str | None,
              workers: int | None) -> None:
    """Submit every pending cell to a Dask cluster: the scheduler at ``scheduler``, or an
    embedded ``LocalCluster`` of ``workers`` single-threaded processes (default: one per
    CPU); record each as it completes."""
    # imported here, not at the top: dask.distributed takes a second to import, and
    # serial runs, notebooks and the command line's other verbs never need it
    from distributed import Client, as_completed

    cluster = None
    if scheduler:
        try:  # a bounded wait: distributed would retry for its own connect timeout
            client = Client(scheduler, timeout=SCHEDULER_TIMEOUT_S)
        except (OSError, TimeoutError) as err:
            raise InputError(f"--scheduler {scheduler}: no Dask scheduler answered within "
                             f"{SCHEDULER_TIMEOUT_S:g} s ({type(err).__name__})") from None
    else:
        cluster = local_cluster(workers)
        client = Client(cluster)
    try:
        by_future = {}
        for cell in pending:
            future = client.submit(guarded, cell.params, key=f"cell-{cell.key}", pure=False)
            by_future[future] = cell
        for future in as_completed(list(by_future)):
            cell = by_future.pop(future)
            try:
                outcome = future.result()
            except Exception as exc:  # noqa: BLE001 - e.g. a worker died (KilledWorker)
                outcome = {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                           "traceback": traceback.format_exc()}
            record(cell, outcome)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def local_cluster(workers: int | None = None):
    """An embedded ``distributed.LocalCluster`` of ``workers`` single-threaded worker
    processes (default: one per CPU), started with :data:`WORKER_ENVIRON`."""
    import dask  # imported here for the reason given in _run_dask
    from distributed import LocalCluster

    logging.getLogger("distributed").setLevel(logging.ERROR)
    with dask.config.set(WORKER_ENVIRON):
        return LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                            processes=True, dashboard_address=None,
                            silence_logs=logging.ERROR)
