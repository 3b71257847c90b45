"""One cell, run: the cell runner every cell's key hashes beside its system's code.

:func:`run_cell` builds the scenario, runs the policy or the bound and measures it;
:func:`guarded` is what a worker calls (the error travels back as data, with the cell's
wall and CPU seconds). Nothing else belongs here: whatever this module's code does can
change a cell's numbers, so editing it recomputes every system's cells.
"""

from __future__ import annotations

import time
import traceback

import numpy as np

from .. import systems


def run_cell(params: dict) -> dict:
    """Run one cell and return its metrics (plain floats); raises what the run raises.

    A policy cell builds the scenario, runs the policy, checks the result with the
    system's checker and measures it; a bound cell (``algorithm`` None) returns
    ``bound``, ``bound_converged`` and ``bound_seconds``. A policy cell with ``repeats``
    = r > 1 runs the policy r times back to back: the measured times (the system's
    ``timings``) are the median over the runs, every other metric must be the same in
    each (else ``RuntimeError``: the policy is not deterministic)."""
    system = systems.get(params["system"])
    scenario = system.build_scenario(**params["scenario"], seed=params["seed"])
    if params["algorithm"] is None:
        start = time.perf_counter()
        bound, converged = system.bounds[params["bound"]].compute(scenario,
                                                                  **params["options"])
        return {"bound": float(bound), "bound_converged": float(converged),
                "bound_seconds": time.perf_counter() - start}
    runs = []
    for _ in range(int(params.get("repeats", 1))):
        result = system.simulate(scenario, params["algorithm"], seed=params["seed"],
                                 **params["options"])
        system.check_result(result)
        runs.append(system.measure(scenario, result))
    metrics = dict(runs[0])
    for other in runs[1:]:
        differ = sorted(m for m in metrics if m not in system.timings
                        and not (metrics[m] == other[m] or (np.isnan(metrics[m])
                                                             and np.isnan(other[m]))))
        if differ:
            raise RuntimeError(f"repeated runs differ in {differ}: the policy is not "
                               "deterministic")
    for m in system.timings:
        if m in metrics:
            metrics[m] = float(np.median([r[m] for r in runs]))
    return metrics


def guarded(params: dict) -> dict:
    """Run a cell on a worker: never raises, the error travels back as data; ``seconds``
    is the cell's wall time on the worker, ``cpu_seconds`` the CPU time of the worker's
    process over it (a cell runs single-threaded)."""
    start, cpu = time.perf_counter(), time.process_time()

    def took() -> dict:
        return {"seconds": time.perf_counter() - start,
                "cpu_seconds": time.process_time() - cpu}

    try:
        return {"ok": True, "metrics": run_cell(params), **took()}
    except Exception as exc:  # noqa: BLE001 - any failure of a cell is recorded, not fatal
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(), **took()}
