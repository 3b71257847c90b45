"""TITAN as a :class:`~lorasched.model.system.System`: what the experiment engine sees.

Scenarios come from :func:`.workload.titan_scenario`; the policies are TITAN, its two
ablations, the paper's baselines and a FIFO reference (:mod:`.policies`); results are judged
by average JCT and makespan (:mod:`.result`). TITAN has no bound on an offline optimum.
"""

from __future__ import annotations

import inspect

import numpy as np
import xarray as xr

from ..model.system import System, timed_run
from . import policies
from .cluster import SHOW_PROGRESS
from .diagnostics import mean_gpus, starts_per_job, utilisation
from .result import assemble, check_result
from .scenario import to_arrays, validate
from .workload import titan_scenario

#: per-cell results, with units
METRICS = {
    "avg_jct_h": "average job completion time, h (Table 3)",
    "makespan_h": "last completion minus first submission, h (Table 3)",
    "switch_h": "GPU-hours spent in context switches",
    "n_jobs": "jobs",
    "n_merged_jobs": "jobs that finished inside a merged job",
    "faster_than_srtf": "share of jobs whose JCT is >= 10 % shorter than under SRTF on the "
                        "same scenario (Table 4)",
    "slower_than_srtf": "share of jobs whose JCT is >= 10 % longer than under SRTF on the "
                        "same scenario (Table 4)",
    "mean_gpus": "GPUs a job runs on, averaged over its run time, then over jobs",
    "starts_per_job": "starts and restarts per job (a merged job's count for each member)",
    "utilisation": "share of the cluster's GPU time (M x makespan) in runs and switches",
    "decisions": "scheduling events at which a solver ran",
    "candidates_mean": "mean units and merge candidates offered to the MILP per event",
    "solve_time_mean": "mean MILP solve time per event, s",
    "solve_time_max": "largest MILP solve time of the run, s",
    "wall_seconds": "wall time of the policy on the whole scenario, s",
}
TIMINGS = ("solve_time_mean", "solve_time_max", "wall_seconds")


def policy_name(name: str) -> str:
    """``titan-nomerge`` -> ``titan_nomerge`` (the paper's hyphenated names are accepted)."""
    return name.replace("-", "_") if isinstance(name, str) else name


def simulate(scenario: xr.Dataset, algorithm: str = "titan", seed: int | None = 0,
             progress: bool = False, **options) -> xr.Dataset:
    """Run policy ``algorithm`` on a TITAN scenario; the result Dataset of :mod:`.result`.
    ``seed`` seeds the Generator handed to the policy (the shipped ones draw none);
    ``progress`` shows a bar of finished jobs while TITAN's own loop runs (the baselines
    take a second or less and show none). It is not an option of the policy: the result
    does not record it."""
    token = SHOW_PROGRESS.set(bool(progress))
    try:
        schedule, elapsed = timed_run(SYSTEM.policy(policy_name(algorithm)), algorithm,
                                      to_arrays(scenario), seed, options)
    finally:
        SHOW_PROGRESS.reset(token)
    result = assemble(scenario, schedule, algorithm=policy_name(algorithm), seed=seed,
                      options=options)
    result.attrs["wall_seconds"] = elapsed
    return result


#: a job's JCT differs "significantly" from SRTF's beyond this ratio (Table 4: 10 %)
SIGNIFICANT = 0.10


def against_srtf(scenario: xr.Dataset, result: xr.Dataset) -> tuple[float, float]:
    """Table 4's two shares: jobs whose JCT is at least 10 % shorter (longer) than under
    SRTF (default options) on the same scenario. SRTF is run here; it takes a fraction of
    a second."""
    if result.attrs.get("algorithm") == "srtf" and result.attrs.get("options") == "{}":
        reference = result
    else:
        reference = simulate(scenario, "srtf")
    ratio = result["jct_s"].values / reference["jct_s"].values
    return (float(np.mean(ratio <= 1 - SIGNIFICANT)), float(np.mean(ratio >= 1 + SIGNIFICANT)))


def measure(scenario: xr.Dataset, result: xr.Dataset) -> dict[str, float]:
    """:data:`METRICS` of one checked result, as plain floats."""
    a = result.attrs
    solve = result["solve_s"].values
    faster, slower = against_srtf(scenario, result)
    cand = result["decision_candidates"].values
    return {
        "faster_than_srtf": faster, "slower_than_srtf": slower,
        "mean_gpus": mean_gpus(result), "utilisation": utilisation(result),
        "starts_per_job": starts_per_job(result),
        "candidates_mean": float(cand.mean()) if cand.size else 0.0,
        "avg_jct_h": float(a["avg_jct_h"]), "makespan_h": float(a["makespan_h"]),
        "switch_h": float(a["switch_h"]), "n_jobs": float(a["n_jobs"]),
        "n_merged_jobs": float(a["n_merged_jobs"]), "decisions": float(solve.size),
        "solve_time_mean": float(solve.mean()) if solve.size else 0.0,
        "solve_time_max": float(solve.max()) if solve.size else 0.0,
        "wall_seconds": float(a["wall_seconds"]),
    }


def cost(params: dict) -> tuple:
    """Submission order: TITAN's MILP runs first, dense workloads first."""
    weight = 1 if str(params["algorithm"]).startswith("titan") else 0
    return (-weight, -float(params["scenario"].get("density", 1.0)))


#: a cell's CPU seconds on one core, per policy, on the authors' FM workload at density 1
#: and on the Helios-derived one, measured on the developers' 2-core machine (a sample of
#: the book's cells; :func:`expected_seconds`)
BASE_SECONDS = {"authors": {"srtf": 0.12, "tiresias": 0.12, "milp": 1.0},
                "helios": {"srtf": 0.12, "tiresias": 0.12, "milp": 2.3}}


def expected_seconds(params: dict) -> float:
    """A cell's expected CPU seconds: :data:`BASE_SECONDS` of its workload and policy
    (every TITAN variant solves a MILP per event, ``"milp"``), in proportion to the
    density."""
    s = params["scenario"]
    base = BASE_SECONDS.get(str(s.get("workload", "authors")), BASE_SECONDS["authors"])
    policy = str(params["algorithm"])
    return base.get(policy, base["milp"]) * float(s.get("density", 1.0))


SYSTEM = System(
    name="titan",
    title="TITAN (SoCC'22): a scheduler for foundation-model fine-tuning",
    build_scenario=titan_scenario,
    scenario_parameters=frozenset(inspect.signature(titan_scenario).parameters) - {"seed"},
    policies=policies.REGISTRY,
    simulate=simulate,
    check_result=check_result,
    metrics=METRICS,
    measure=measure,
    timings=TIMINGS,
    cost=cost,
    expected_seconds=expected_seconds,
    validate=validate,
)
