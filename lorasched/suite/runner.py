"""Running the suite: every selected policy's cells of every system as one resumable batch
(one pool of Dask workers for the three systems, or serially), then the report folder.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ..experiments import Sweep, run_sweep, run_sweeps
from ..model.errors import InputError
from . import scenarios
from .report import header, write_report
from .selection import parse_policies

#: the store's folder inside the report folder, by default
CELLS = "cells"


@dataclass
class SuiteRun:
    """What :func:`~lorasched.suite.runner.run_suite` did.

    Parameters
    ----------
    out : pathlib.Path
        The report folder.
    header : dict
        The report's header (empty if interrupted).
    files : dict
        File kind -> path of each file written (empty if interrupted).
    datasets : dict
        System -> its suite sweep dataset.
    computed : int
        Cells run.
    skipped : int
        Cells found done in the store.
    failed : list
        ``(cell description, error)`` of each failed cell.
    interrupted : bool, optional
        Whether a ``KeyboardInterrupt`` stopped the run (then no report is written).
    cell_seconds : dict, optional
        System -> ``computed`` (its cells run now) and ``seconds`` (their wall seconds on
        the workers, summed).
    """

    out: Path
    header: dict
    files: dict
    datasets: dict
    computed: int
    skipped: int
    failed: list
    interrupted: bool = False
    cell_seconds: dict = field(default_factory=dict)


def suite_sweeps(size: str = "small", policies=None) -> dict[str, Sweep]:
    """The suite's sweeps at ``size`` for the selected policies.

    Parameters
    ----------
    size : str, optional
        One of :data:`~lorasched.suite.scenarios.SIZES` (default ``"small"``).
    policies : sequence of str or dict, optional
        A selection (:func:`~lorasched.suite.selection.parse_policies`), or system ->
        policy names; default every policy of every system.

    Returns
    -------
    dict
        System -> its :class:`~lorasched.experiments.declaration.Sweep`.

    Raises
    ------
    InputError
        For an unknown size, system or policy.
    """
    scenarios.check_size(size)
    if isinstance(policies, dict):
        policies = [f"{s}:{','.join(names)}" for s, names in policies.items()]
    chosen = parse_policies(policies)
    return {s: scenarios.sweep(s, size, names) for s, names in chosen.items()}


def run_suite(size: str = "small", policies=None, out=None, *, store=None,
              serial: bool = False, scheduler: str | None = None,
              workers: int | None = None, progress: bool = True) -> SuiteRun:
    """Run the suite, resumably, and write its report.

    Parameters
    ----------
    size : str, optional
        One of :data:`~lorasched.suite.scenarios.SIZES` (default ``"small"``).
    policies : sequence of str or dict, optional
        Which policies (:func:`suite_sweeps`); default every policy in each system's
        registry now, plug-ins included.
    out : str or os.PathLike, optional
        The report folder (default ``suite-<size>``).
    store : str or os.PathLike, optional
        The folder of finished cells, so that a rerun computes none of them again
        (default ``<out>/cells``).
    serial : bool, optional
        Run in this process, no Dask (default False).
    scheduler : str, optional
        The address of a Dask scheduler; default an embedded ``LocalCluster``.
    workers : int, optional
        The ``LocalCluster``'s worker processes (default one per CPU).
    progress : bool, optional
        Show a progress bar (default True).

    Returns
    -------
    SuiteRun

    Raises
    ------
    InputError
        For an unknown size, system or policy.
    """
    sweeps = suite_sweeps(size, policies)
    out = Path(f"suite-{size}" if out is None else out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out}: a file, not a folder")
    store = out / CELLS if store is None else Path(store)
    order = {s: i for i, s in enumerate(sweeps)}
    seconds = dict.fromkeys(sweeps, 0.0)
    counted = dict.fromkeys(sweeps, 0)

    def on_cell(cell, outcome):
        if outcome["ok"]:
            seconds[cell.params["system"]] += outcome.get("seconds", 0.0)
            counted[cell.params["system"]] += 1

    clock = time.perf_counter()
    batch = run_sweeps(list(sweeps.values()), store, scheduler=scheduler, workers=workers,
                       serial=serial, progress=progress,
                       name=f"suite {scenarios.SUITE_VERSION} ({size})", on_cell=on_cell,
                       rank=lambda params: order[params["system"]])
    cell_seconds = {s: {"computed": counted[s], "seconds": seconds[s]} for s in sweeps}
    if batch.interrupted:
        return SuiteRun(out, {}, {}, {}, batch.computed, batch.skipped, batch.failed,
                        interrupted=True, cell_seconds=cell_seconds)
    datasets = {s: run_sweep(sw, store=store, serial=True, progress=False).dataset
                for s, sw in sweeps.items()}
    run = {"computed": batch.computed, "skipped": batch.skipped,
           "failed": [{"cell": d, "error": e} for d, e in batch.failed],
           "wall_seconds": time.perf_counter() - clock, "cell_seconds": cell_seconds,
           "store": str(store)}
    head = header(size, {s: sw.algorithms for s, sw in sweeps.items()}, datasets, run)
    files = write_report(out, head, datasets)
    return SuiteRun(out, head, files, datasets, batch.computed, batch.skipped,
                    batch.failed, cell_seconds=cell_seconds)
