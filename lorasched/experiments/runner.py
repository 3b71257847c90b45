"""One cell: the scenario built, the policy run, its result checked and measured, or a bound
computed (:func:`run`). This module's code is part of every system's code fingerprint
(:data:`.grid.RUNNER`): what it computes is what a cell's key stands for. The orchestration
around it (:mod:`.executor`: serial or Dask, the store, progress) is not, so changing that
recomputes no cell.
"""

from __future__ import annotations

import time

import numpy as np
import xarray as xr

from .. import systems


def run(params: dict) -> tuple[dict, xr.Dataset | None]:
    """Run one cell: its metrics (plain floats) and, for a policy cell, its checked result
    Dataset (the first run's, with ``repeats``); raises what the run raises.

    A policy cell builds the scenario, runs the policy, checks the result with the
    system's checker and measures it; a bound cell (``algorithm`` None) returns
    ``bound``, ``bound_converged`` and ``bound_seconds`` and no result. A policy cell with
    ``repeats`` = r > 1 runs the policy r times back to back: the measured times (the
    system's ``timings``) are the median over the runs, every other metric must be the
    same in each (else ``RuntimeError``: the policy is not deterministic).

    Parameters
    ----------
    params : dict
        A cell's parameters (:class:`.grid.Cell`).

    Returns
    -------
    tuple
        ``(metrics, result)``; ``result`` is None for a bound.
    """
    system = systems.get(params["system"])
    scenario = system.build_scenario(**params["scenario"], seed=params["seed"])
    if params["algorithm"] is None:
        start = time.perf_counter()
        bound, converged = system.bounds[params["bound"]].compute(scenario,
                                                                  **params["options"])
        return {"bound": float(bound), "bound_converged": float(converged),
                "bound_seconds": time.perf_counter() - start}, None
    runs, first = [], None
    for _ in range(int(params.get("repeats", 1))):
        result = system.simulate(scenario, params["algorithm"], seed=params["seed"],
                                 **params["options"])
        system.check_result(result)
        runs.append(system.measure(scenario, result))
        first = result if first is None else first
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
    return metrics, first


def run_cell(params: dict) -> dict:
    """Run one cell and return its metrics (plain floats): :func:`run` without the result.

    Parameters
    ----------
    params : dict
        A cell's parameters.

    Returns
    -------
    dict
        Metric name -> value.
    """
    return run(params)[0]
