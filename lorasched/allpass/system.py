"""Allpass as a :class:`~lorasched.model.system.System`: what the experiment engine sees.

Scenarios come from :func:`.workload.allpass_scenario`; the policies are Allpass, its fixed-F
variants, sec. 5.1's baselines and a queue-all oracle (:mod:`.policies`); results are judged
by job completion time, waiting time and dollars (:mod:`.result`). Allpass has no bound on an
offline optimum.
"""

from __future__ import annotations

import inspect
import json

import numpy as np
import xarray as xr

from ..model.system import System, timed_run
from . import policies
from .result import assemble, check_result
from .scenario import to_arrays, validate
from .workload import allpass_scenario

#: per-cell results, with units
METRICS = {
    "avg_jct_min": "average job completion time, min (Fig. 7's ratio)",
    "median_jct_min": "median job completion time, min (Fig. 11)",
    "p90_jct_min": "90th percentile of JCT, min",
    "share_10min": "share of jobs with JCT <= 10 min (Fig. 6)",
    "wait_min": "average waiting time (JCT - work), min (Fig. 8)",
    "queue_min": "average time in the serverful queue, min (Fig. 8)",
    "overhead_min": "average checkpoint + restore time per job, min (Fig. 8)",
    "demoted_share": "share of jobs demoted from the serverless tier (sec. 5.3: ~30 %)",
    "deadline_miss_share": "share of jobs finishing after their soft deadline",
    "cost_usd": "total bill, USD (Fig. 9)",
    "cost_modal_usd": "bill of the serverless tier (Modal), USD (Fig. 9)",
    "cost_vast_usd": "bill of the marketplace (Vast.ai), USD (Fig. 9)",
    "cost_lambda_usd": "bill of the conventional cloud (Lambda), USD (Fig. 9)",
    "vast_price_mean": "average $/GPU-h of the marketplace leases, weighted by billed "
                       "time (Fig. 12: $0.74)",
    "max_workers": "most serverful workers open at a tick (Fig. 10)",
    "work_h": "A100-hours of work in the scenario",
    "makespan_h": "last finish - first submission, h",
    "wall_seconds": "wall time of the policy on the whole scenario, s",
}
TIMINGS = ("wall_seconds",)


def policy_name(name: str) -> str:
    """``tl-p`` -> ``tl_p`` (the paper's hyphenated names are accepted)."""
    return name.replace("-", "_") if isinstance(name, str) else name


def simulate(scenario: xr.Dataset, algorithm: str = "allpass", seed: int | None = 0,
             **options) -> xr.Dataset:
    """Run policy ``algorithm`` on an Allpass scenario; the result Dataset of
    :mod:`.result`. ``seed`` seeds the Generator that draws every start-up delay."""
    name = policy_name(algorithm)
    out, elapsed = timed_run(SYSTEM.policy(name), algorithm, to_arrays(scenario), seed,
                             options)
    F0 = {"allpass": options.get("F0", 300.0), "allpass_fixed60": 60.0,
          "allpass_fixed600": 600.0,
          "queue_all_oracle": options.get("F", 300.0), "random": 300.0}.get(name, float("nan"))
    result = assemble(scenario, out, algorithm=name, seed=seed, options=options, F0=F0)
    result.attrs["wall_seconds"] = elapsed
    return result


def vast_price_mean(result: xr.Dataset) -> float:
    """$/GPU-h paid on the marketplace, averaged over leases weighted by their length
    (NaN without marketplace leases)."""
    vast = result["lease_provider"].values.astype(str) == "vast"
    if not vast.any():
        return float("nan")
    length = (result["lease_end_s"] - result["lease_start_s"]).values[vast]
    price = result["lease_price_per_h"].values[vast]
    return float(np.sum(price * length) / np.sum(length)) if length.sum() > 0 \
        else float(price.mean())


def measure(scenario: xr.Dataset, result: xr.Dataset) -> dict[str, float]:
    """:data:`METRICS` of one checked result, as plain floats."""
    jct = result["jct_s"].values / 60
    a = result.attrs
    workers = result["workers"].values
    return {
        "avg_jct_min": float(jct.mean()), "median_jct_min": float(np.median(jct)),
        "p90_jct_min": float(np.percentile(jct, 90)),
        "share_10min": float(np.mean(jct <= 10 + 1e-9)),
        "wait_min": float(result["wait_s"].mean() / 60),
        "queue_min": float(result["queue_s"].mean() / 60),
        "overhead_min": float(result["overhead_s"].mean() / 60),
        "demoted_share": float(np.mean(result["demotions"].values > 0)),
        "deadline_miss_share": float(np.mean(result["finish_s"].values
                                             > result["deadline_s"].values + 1e-9)),
        "cost_usd": float(a["cost_usd"]), "cost_modal_usd": float(a["cost_modal_usd"]),
        "cost_vast_usd": float(a["cost_vast_usd"]),
        "cost_lambda_usd": float(a["cost_lambda_usd"]),
        "vast_price_mean": vast_price_mean(result),
        "max_workers": float(workers.max()) if workers.size else 0.0,
        "work_h": float(result["work_s"].sum() / 3600),
        "makespan_h": float((result["finish_s"].max() - result["submit_s"].min()) / 3600),
        "wall_seconds": float(a["wall_seconds"]),
    }


#: a cell's CPU seconds on one core (scenario, run, check and measure), measured on the
#: developers' 2-core machine: the control loop's ticks over the day set it, about the same
#: for 40 jobs as for 200; the policies that provision by the DBF (a demand bound each tick)
#: take more than the others (:func:`expected_seconds`)
BASE_SECONDS = {"dbf": 0.33, "other": 0.2}
#: the policies of :data:`BASE_SECONDS`'s ``"dbf"``
DBF_POLICIES = ("allpass", "allpass_fixed60", "allpass_fixed600")
#: what writing a kept result (``keep``) adds to a cell, CPU seconds
KEEP_SECONDS = 0.07


def expected_seconds(params: dict) -> float:
    """A cell's expected CPU seconds: :data:`BASE_SECONDS` of its policy, and
    :data:`KEEP_SECONDS` if its result is kept."""
    kind = "dbf" if policy_name(params["algorithm"]) in DBF_POLICIES else "other"
    return BASE_SECONDS[kind] + (KEEP_SECONDS if params.get("keep") else 0.0)


def cost(params: dict) -> tuple:
    """Submission order: the slower cells (:func:`expected_seconds`) first."""
    return (-expected_seconds(params),)


def options_of(result: xr.Dataset) -> dict:
    """The policy options a result was run with."""
    return json.loads(result.attrs.get("options", "{}"))


SYSTEM = System(
    name="allpass",
    title="Allpass (2025): serverless, marketplace and conventional GPU clouds",
    build_scenario=allpass_scenario,
    scenario_parameters=frozenset(inspect.signature(allpass_scenario).parameters) - {"seed"},
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
