"""Running cells: many cells serially or on dask.distributed, each by :mod:`.runner`, with
progress.

A cell's outcome depends only on its parameters, so serial and parallel runs give the
same numbers, bit for bit, except measured times. A failing cell never stops the others:
its error travels back as data and is recorded in the store. A kept cell's result
(a sweep with ``keep``) travels back as netCDF bytes (:mod:`.kept`) and the client writes it
into the store, so that workers need no disk shared with it.
"""

from __future__ import annotations

import logging
import os
import time
import traceback

import dask
from tqdm import tqdm

from .. import systems
from ..model.errors import InputError
from . import kept
from .grid import Cell
from .runner import run, run_cell  # noqa: F401 - run_cell: one cell, where it was
from .store import Store

#: how long a sweep waits for the Dask scheduler it was given before giving up
SCHEDULER_TIMEOUT_S = 10.0


def guarded(params: dict) -> dict:
    """Run a cell on a worker: never raises, the error travels back as data; ``seconds``
    is the cell's wall time on the worker, ``cpu_seconds`` the CPU time of the worker's
    process over it (a cell runs single-threaded). A kept cell (``params["keep"]``) also
    returns its checked result as netCDF bytes (:func:`.kept.encode`), ``result``."""
    start, cpu = time.perf_counter(), time.process_time()

    def took() -> dict:
        return {"seconds": time.perf_counter() - start,
                "cpu_seconds": time.process_time() - cpu}

    try:
        metrics, result = run(params)
        outcome = {"ok": True, "metrics": metrics}
        if params.get("keep") and result is not None:
            outcome["result"] = kept.encode(result)
        return {**outcome, **took()}
    except Exception as exc:  # noqa: BLE001 - any failure of a cell is recorded, not fatal
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(), **took()}


def expected_seconds(cell: Cell) -> float:
    """The CPU seconds ``cell`` is expected to take: its system's ``expected_seconds``
    model, or one second where the system has none (the progress bar's weight)."""
    system = systems.get(cell.params["system"])
    if system.expected_seconds is None:
        return 1.0
    return max(float(system.expected_seconds(cell.params)), 1e-3)


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
    # the bar counts expected CPU seconds, not cells, so that its rate and its estimate of
    # the time left hold from the first cell on (slow cells run first)
    weight = {c.key: expected_seconds(c) for c in cells}
    done_weight = sum(weight[c.key] for c in cells if c.key in finished)
    bar = tqdm(total=round(sum(weight.values()), 1), initial=round(done_weight, 1), desc=name,
               unit=" expected CPU-s", disable=not progress, dynamic_ncols=True,
               bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f}{unit} "
                          "[{elapsed}<{remaining}{postfix}]")
    done = skipped
    bar.set_postfix(cells=f"{done}/{len(cells)}", failed=0)

    def record(cell: Cell, outcome: dict) -> None:
        nonlocal computed, done
        store.put(cell, outcome)
        if outcome["ok"]:
            finished[cell.key] = {"metrics": outcome["metrics"]}
            computed += 1
        else:
            failed[cell.key] = (cell.describe(), outcome["error"])
            bar.write(f"cell failed: {cell.describe()}: {outcome['error']}")
        done += 1
        bar.update(weight[cell.key])
        bar.set_postfix(cells=f"{done}/{len(cells)}", failed=len(failed))
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
    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler:
        try:  # a bounded wait: distributed would retry for its own connect timeout
            client = Client(scheduler, timeout=SCHEDULER_TIMEOUT_S)
        except (OSError, TimeoutError) as err:
            raise InputError(f"--scheduler {scheduler}: no Dask scheduler answered within "
                             f"{SCHEDULER_TIMEOUT_S:g} s ({type(err).__name__})") from None
    else:
        n = workers or os.cpu_count() or 1
        logging.getLogger("distributed").setLevel(logging.ERROR)
        # without the workers' statistical profiler: it samples the running cell's stack
        # every 10 ms: a batch of 735 short cells took 311 CPU-s with it, 231 without
        with dask.config.set({"distributed.worker.profile.enabled": False}):
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=logging.ERROR)
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
