"""pdFTSP as a :class:`~lorasched.model.system.System`, and :func:`simulate`: scenarios from
:func:`.workload.synthetic_scenario`, the auction, the paper's three baselines, Titan with
the welfare objective and lorasched's cost-plus rule (:mod:`.policies`), the welfare
accounting of eqs. (1)-(3) (:mod:`.result`), and the bounds ``"lp"`` (:mod:`.bound`) and
``"opt"`` (:mod:`.offline`).
"""

from __future__ import annotations

import inspect

import numpy as np
import xarray as xr

from ..model.system import Bound, System, timed_run
from . import policies
from .bound import offline_upper_bound
from .offline import offline_opt
from .result import assemble, check_result
from .scenario import to_arrays, validate
from .workload import LOADS, synthetic_scenario


def simulate(scenario: xr.Dataset, algorithm: str = "pdftsp", seed: int | None = 0,
             **options) -> xr.Dataset:
    """Run ``algorithm`` on ``scenario`` and return scenario + decisions + accounting.

    ``seed`` seeds the ``numpy.random.Generator`` handed to the algorithm (pdFTSP draws
    none; baselines that pick vendors at random do); the same seed gives the same result.
    ``options`` go to the algorithm (for pdFTSP: ``alpha``, ``beta``, ``payment``,
    ``solver``, ``work_resolution``, ``progress``); an unknown option is a ``TypeError``
    naming it. The returned dataset is described in :mod:`lorasched.pdftsp.result`.
    """
    decisions, elapsed = timed_run(policies.get(algorithm), algorithm, to_arrays(scenario),
                                   seed, options)
    result = assemble(scenario, decisions, algorithm=algorithm, seed=seed, options=options)
    result.attrs["wall_seconds"] = elapsed
    return result


#: per-cell results, with units
METRICS = {
    "welfare": "social welfare, eq. (3), USD",
    "user_utility": "users' utility, eq. (1), USD",
    "provider_utility": "provider's utility, eq. (2), USD",
    "revenue": "payments collected, USD",
    "value": "bids of admitted tasks, USD",
    "operating_cost": "operating cost of the schedule, USD",
    "vendor_cost": "pre-processing vendors' cost, USD",
    "n_admitted": "admitted tasks",
    "n_tasks": "tasks that arrived",
    "load_factor": "offered work / what the cluster can process in the horizon",
    "decision_time_mean": "mean decision time per task, s",
    "decision_time_median": "median decision time per task, s",
    "wall_seconds": "wall time of the algorithm on the whole scenario, s",
    "max_gap": "Titan per slot: the largest certified relative gap of a slot's MILP",
    "slots_hit_limit": "Titan per slot: slots whose solve a node or round count stopped",
    "slot_elasticity": "Titan per slot: the least-squares slope of log(solve seconds per "
                       "task) on log(tasks in the slot) over the day's solved slots",
}
TIMINGS = ("decision_time_mean", "decision_time_median", "wall_seconds", "slot_elasticity")


def measure(scenario: xr.Dataset, result: xr.Dataset) -> dict[str, float]:
    """:data:`METRICS` of one checked result, as plain floats."""
    a = result.attrs
    times = result["decision_time"].values
    out = {m: float(a[m]) for m in METRICS if m in a}
    out["load_factor"] = float(scenario.attrs["load_factor"])
    out["decision_time_mean"] = float(times.mean()) if times.size else 0.0
    out["decision_time_median"] = float(np.median(times)) if times.size else 0.0
    out["wall_seconds"] = float(a["wall_seconds"])
    for name in ("titan", "titan_oracle"):  # Titan per slot's certified gaps
        if f"{name}_max_gap" in a:
            out["max_gap"] = float(a[f"{name}_max_gap"])
            out["slots_hit_limit"] = float(a[f"{name}_slots_hit_limit"])
        if f"{name}_seconds" in result and f"{name}_batch" in result:
            out["slot_elasticity"] = slot_elasticity(result[f"{name}_seconds"].values,
                                                     result[f"{name}_batch"].values)
    return out


def slot_elasticity(seconds, tasks) -> float:
    """How a slot's solve time per task grows with the tasks it brings, within one day: the
    least-squares slope of log(``seconds`` / ``tasks``) on log(``tasks``) over the slots
    that solved (``tasks`` > 0, ``seconds`` finite and positive). A slot's arrivals do not
    depend on the cluster's state, so the slope is not confounded by it. NaN with fewer than
    three such slots or a single batch size."""
    seconds = np.asarray(seconds, dtype=float)
    tasks = np.asarray(tasks, dtype=float)
    ok = (tasks > 0) & np.isfinite(seconds) & (seconds > 0)
    if ok.sum() < 3 or np.ptp(tasks[ok]) == 0:
        return float("nan")
    x = np.log(tasks[ok])
    y = np.log(seconds[ok] / tasks[ok])
    xc = x - x.mean()
    return float((xc * (y - y.mean())).sum() / (xc ** 2).sum())


def _lp_bound(scenario: xr.Dataset, **options) -> tuple[float, bool]:
    ub = offline_upper_bound(scenario, **options)
    return float(ub.bound), bool(ub.converged)


def _opt_bound(scenario: xr.Dataset, **options) -> tuple[float, bool]:
    opt = offline_opt(scenario, **options)
    converged = opt.attrs["opt_status"] == "Optimal"
    return float(opt.attrs["opt_objective"] if converged else opt.attrs["opt_bound"]), converged


def _options(fn) -> frozenset[str]:
    return frozenset(p for p in inspect.signature(fn).parameters
                     if p not in ("scenario", "progress"))


def cost(params: dict) -> tuple:
    """Submission order: Titan's per-slot MILPs, then bounds, then the rest; big scenarios
    first (better balance on a pool of workers)."""
    s = params["scenario"]
    weight = {"titan": 3, "titan_oracle": 3, None: 2}.get(params["algorithm"], 0)
    load = s.get("load", "high")
    load = LOADS.get(load, load) if isinstance(load, str) else load
    return (-weight, -float(s.get("nodes", 100)), -float(load or 0))


#: a cell's CPU seconds on one core at the base scenario (K = 100 nodes, the medium load,
#: 144 slots), per policy, measured on the developers' 2-core machine (a fresh clone's
#: `make book`: the figures' cells, :func:`expected_seconds` within 4 % of their 5,626
#: CPU-s in all); Titan per slot by its solve
BASE_SECONDS = {"titan": 26.0, "titan_columns": 16.0, "pdftsp": 0.45, "eft": 0.08,
                "ntm": 0.07, "cost_plus": 0.19, "bound": 28.0}
#: Titan per slot's compact MILP on a trace day or with long deadline windows, as a
#: multiple of the synthetic day's (the figures' runs, CPU-s a day: Philly 238-493,
#: Helios 44-85, MLaaS 19-110, fixed deadlines 33-49, end-of-day deadlines 43-56)
TITAN_FACTORS = {"philly": 16.0, "helios": 2.4, "mlaas": 2.0, "fixed": 1.7,
                 "end_of_day": 1.9}


def expected_seconds(params: dict) -> float:
    """A cell's expected CPU seconds (:data:`BASE_SECONDS` scaled to its scenario): Titan
    per slot's compact MILP grows about as (K/100)^1.6 (load/50)^2 (the figures' days at K =
    50 to 200 and the three loads), times :data:`TITAN_FACTORS` of its trace and deadline
    policy; the other policies about linearly in the tasks; a bound's cell is
    :data:`BASE_SECONDS`' ``"bound"`` whatever its size (Fig. 12's tiny instances)."""
    s = params["scenario"]
    algorithm = params["algorithm"]
    if algorithm is None:
        return BASE_SECONDS["bound"]
    load = s.get("load", "medium")
    k = float(s.get("nodes", 100)) / 100.0
    x = (LOADS.get(load, 50.0) if isinstance(load, str) else float(load)) / 50.0
    slots = float(s.get("slots", 144)) / 144.0
    if str(algorithm).startswith("titan"):
        if params.get("options", {}).get("solver", "milp") == "milp":
            factor = (TITAN_FACTORS.get(str(s.get("trace")), 1.0)
                      * TITAN_FACTORS.get(str(s.get("deadline_policy")), 1.0))
            return BASE_SECONDS["titan"] * k ** 1.6 * x ** 2.0 * slots * factor
        return BASE_SECONDS["titan_columns"] * k ** 0.5 * x * slots
    return BASE_SECONDS.get(str(algorithm), 1.0) * x * slots


SYSTEM = System(
    name="pdftsp",
    title="pdFTSP (ICPP'24): online auction for multi-LoRA fine-tuning",
    build_scenario=synthetic_scenario,
    scenario_parameters=frozenset(inspect.signature(synthetic_scenario).parameters)
    - {"seed", "model"},
    policies=policies.REGISTRY,
    simulate=simulate,
    check_result=check_result,
    metrics=METRICS,
    measure=measure,
    timings=TIMINGS,
    bounds={
        "lp": Bound(_lp_bound, _options(offline_upper_bound),
                    "column-generation LP bound on the offline optimum's welfare, USD"),
        "opt": Bound(_opt_bound, _options(offline_opt),
                     "exact offline optimum of problem (4) (or HiGHS's dual bound), USD"),
    },
    bound_metric="welfare",
    ratio_name="competitive_ratio",
    cost=cost,
    expected_seconds=expected_seconds,
    validate=validate,
)
