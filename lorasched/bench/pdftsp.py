"""Benchmarks printed by ``lorasched bench ...``; figures, never assertions: ``decision``,
``solvers``, ``runtime``, ``compare`` and ``index`` (:doc:`/reference/tools`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import xarray as xr

from ..pdftsp.auction import OnlineAuction
from ..pdftsp.auction import run as run_auction
from ..pdftsp.bound import offline_upper_bound
from ..pdftsp.policies import REGISTRY
from ..pdftsp.result import check_result
from ..pdftsp.scenario import to_arrays
from ..pdftsp.system import simulate
from ..pdftsp.workload import synthetic_scenario


def _auction(scenario: xr.Dataset, **options) -> OnlineAuction:
    return OnlineAuction(to_arrays(scenario), **options)


def _time_decisions(scenario: xr.Dataset, tasks, states, repeat: int) -> np.ndarray:
    """Best-of-``repeat`` wall time of ``offer(i)`` from each saved state."""
    auction = _auction(scenario)
    out = np.empty(len(tasks))
    for j, (i, state) in enumerate(zip(tasks, states, strict=True)):
        best = np.inf
        for _ in range(repeat):
            auction.restore(state)
            t = time.perf_counter()
            auction.offer(int(i))
            best = min(best, time.perf_counter() - t)
        out[j] = best
    return out


def _python_reference_main(path: str) -> None:
    """Entry of the pure-Python subprocess: time the saved decisions, print JSON."""
    scenario = xr.open_dataset(path + ".nc").load()
    saved = np.load(path + ".npz")
    tasks = saved["tasks"]
    states = [{name: saved[f"{name}_{j}"] for name in OnlineAuction.STATE}
              for j in range(len(tasks))]
    times = _time_decisions(scenario, tasks, states, repeat=1)
    print(json.dumps(times.tolist()))


def decision(nodes=100, slots=144, vendors=5, load="high", seed=1, python_tasks=40,
             out=None) -> dict:
    """Median / p99 time per task decision and the numba speed-up; prints and returns."""
    out = out or sys.stdout
    scenario = synthetic_scenario(nodes=nodes, slots=slots, vendors=vendors, load=load,
                                  seed=seed)
    warm = synthetic_scenario(nodes=2, slots=12, vendors=vendors, load=2.0, seed=0)
    _auction(warm).offer(0)  # compile (or load the cache) before timing

    auction = _auction(scenario)
    n = scenario.sizes["task"]
    sample = set(np.linspace(0, n - 1, min(python_tasks, n)).astype(int).tolist())
    tasks, states, times = [], [], np.empty(n)
    start = time.perf_counter()
    for i in range(n):
        if i in sample:
            tasks.append(i)
            states.append(auction.snapshot())
        times[i] = auction.offer(i).seconds
    total = time.perf_counter() - start
    jit_sample = _time_decisions(scenario, tasks, states, repeat=3)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench")
        scenario.to_netcdf(path + ".nc")
        np.savez(path + ".npz", tasks=np.array(tasks),
                 **{f"{name}_{j}": st[name] for j, st in enumerate(states)
                    for name in OnlineAuction.STATE})
        env = dict(os.environ, NUMBA_DISABLE_JIT="1")
        proc = subprocess.run([sys.executable, "-c",
                               "import sys; from lorasched.bench.pdftsp import "
                               "_python_reference_main as m; m(sys.argv[1])", path],
                              env=env, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"pure-Python reference failed:\n{proc.stderr[-2000:]}")
        py_sample = np.array(json.loads(proc.stdout.strip().splitlines()[-1]))

    figures = {
        "tasks": n, "nodes": nodes, "slots": slots, "vendors": vendors, "load": load,
        "median_us": float(np.median(times) * 1e6),
        "p99_us": float(np.percentile(times, 99) * 1e6),
        "mean_us": float(times.mean() * 1e6),
        "day_seconds": total,
        "sample_tasks": len(tasks),
        "sample_median_jit_us": float(np.median(jit_sample) * 1e6),
        "sample_median_python_us": float(np.median(py_sample) * 1e6),
        "speedup_median": float(np.median(py_sample) / np.median(jit_sample)),
        "speedup_total": float(py_sample.sum() / jit_sample.sum()),
    }
    print(f"pdFTSP decision time (Algorithm 1 + 2), K={nodes}, T={slots}, N={vendors}, "
          f"load={load}, {n} tasks, seed={seed}", file=out)
    print(f"  per task: median {figures['median_us']:.1f} us, p99 {figures['p99_us']:.1f} us, "
          f"mean {figures['mean_us']:.1f} us; whole day {total:.2f} s", file=out)
    print(f"  numba vs pure Python on the same {len(tasks)} decisions (same states): "
          f"median {figures['sample_median_jit_us']:.1f} us vs "
          f"{figures['sample_median_python_us'] / 1e3:.1f} ms -> speed-up "
          f"{figures['speedup_median']:.0f}x (median), {figures['speedup_total']:.0f}x (total)",
          file=out)
    target = figures["median_us"] <= 200 and figures["speedup_median"] >= 100
    print(f"  target (median <= 200 us, speed-up >= 100x): {'met' if target else 'NOT met'}",
          file=out)
    return figures


def solvers(nodes=100, slots=144, vendors=5, load="high", seed=1, max_tasks=3000,
            out=None) -> dict:
    """Quote tasks of a real run with the paper DP and the exact solver from the same
    state; count how often the paper DP's cost equals the optimum of (12)."""
    out = out or sys.stdout
    scenario = synthetic_scenario(nodes=nodes, slots=slots, vendors=vendors, load=load,
                                  seed=seed)
    auction = _auction(scenario)
    exact = _auction(scenario, solver="exact")
    n = min(scenario.sizes["task"], max_tasks)
    same = worse = infeasible = 0
    gaps = []
    start = time.perf_counter()
    for i in range(n):
        exact.restore(auction.snapshot())
        pa, ex = auction.quote(i), exact.quote(i)
        if not ex.feasible:
            infeasible += 1
        elif np.isclose(pa.surplus, ex.surplus, rtol=1e-12, atol=1e-12):
            same += 1
        else:
            worse += 1
            gaps.append((ex.surplus - pa.surplus) / max(abs(ex.cost) + ex.vendor_price, 1e-12))
        auction.offer(i)
    compared = same + worse
    figures = {"tasks": n, "compared": compared, "paper_optimal": same,
               "paper_suboptimal": worse, "infeasible": infeasible,
               "optimal_share": same / compared if compared else float("nan"),
               "median_relative_gap": float(np.median(gaps)) if gaps else 0.0,
               "max_relative_gap": float(np.max(gaps)) if gaps else 0.0,
               "seconds": time.perf_counter() - start}
    print(f"paper DP vs exact solver of (12) on the first {n} tasks of a run "
          f"(K={nodes}, load={load}, seed={seed})", file=out)
    print(f"  optimal in {same} of {compared} feasible quotes "
          f"({100 * figures['optimal_share']:.1f} %); when not, the cost is higher by "
          f"median {100 * figures['median_relative_gap']:.2f} %, max "
          f"{100 * figures['max_relative_gap']:.2f} % ({infeasible} tasks had no schedule)",
          file=out)
    return figures


def runtime(nodes=(25, 50, 100), slots=144, vendors=5, load="high", seed=1,
            out=None) -> list[dict]:
    """Time per task of pdFTSP and of Titan at several cluster sizes, side by side in one
    run (data for Fig. 13). Titan's per-slot time is spread over the slot's tasks, as in
    the paper."""
    out = out or sys.stdout
    rows = []
    warm = synthetic_scenario(nodes=2, slots=12, vendors=vendors, load=2.0, seed=0)
    for algorithm in ("pdftsp", "titan"):
        simulate(warm, algorithm=algorithm, seed=0)  # compile / load caches
    print(f"time per task decision, load={load}, T={slots}, N={vendors}, seed={seed} "
          "(Titan: MILP per slot, default limits: 10 CG rounds, 1000 B&B nodes)", file=out)
    print(f"  {'K':>5} {'tasks':>7} {'pdFTSP mean':>13} {'Titan mean':>12} {'Titan/pdFTSP':>13} "
          f"{'Titan slots at limit':>21}", file=out)
    for k in nodes:
        scenario = synthetic_scenario(nodes=k, slots=slots, vendors=vendors, load=load,
                                      seed=seed)
        pd_res = simulate(scenario, algorithm="pdftsp", seed=seed)
        ti_res = simulate(scenario, algorithm="titan", seed=seed)
        n = scenario.sizes["task"]
        pd_t = float(pd_res["decision_time"].mean())
        ti_t = float(ti_res["decision_time"].mean())
        row = {"nodes": k, "tasks": n, "pdftsp_mean_s": pd_t, "titan_mean_s": ti_t,
               "ratio": ti_t / pd_t,
               "titan_slots_hit_limit": ti_res.attrs["titan_slots_hit_limit"],
               "pdftsp_welfare": pd_res.attrs["welfare"],
               "titan_welfare": ti_res.attrs["welfare"]}
        rows.append(row)
        print(f"  {k:>5} {n:>7} {pd_t * 1e6:>10.1f} us {ti_t * 1e3:>9.2f} ms "
              f"{row['ratio']:>12.0f}x {row['titan_slots_hit_limit']:>21}", file=out)
    return rows


#: the paper's high-load welfare improvements of pdFTSP (section 5.2)
PAPER_HIGH_LOAD = {"titan": 48.99, "eft": 151.57, "ntm": 184.94}


def compare(nodes=100, slots=144, vendors=5, load="high", seed=1, bound=True,
            bound_time_limit=600.0, out=None) -> dict:
    """Welfare of every algorithm on one scenario, the offline bound, and the paper's
    high-load improvements beside ours."""
    out = out or sys.stdout
    scenario = synthetic_scenario(nodes=nodes, slots=slots, vendors=vendors, load=load,
                                  seed=seed)
    print(f"welfare on K={nodes}, load={load} (load factor "
          f"{scenario.attrs['load_factor']:.2f}), {scenario.sizes['task']} tasks, seed={seed}",
          file=out)
    figures = {}
    for name in ("pdftsp", "titan", "eft", "ntm"):
        if name not in REGISTRY:
            continue
        start = time.perf_counter()
        res = simulate(scenario, algorithm=name, seed=seed)
        check_result(res)
        figures[name] = {"welfare": res.attrs["welfare"], "admitted": res.attrs["n_admitted"],
                         "revenue": res.attrs["revenue"],
                         "seconds": time.perf_counter() - start}
    if bound:
        ub = offline_upper_bound(scenario, time_limit=bound_time_limit)
        figures["bound"] = {"welfare": ub.bound, "converged": ub.converged,
                            "iterations": ub.iterations, "seconds": ub.seconds}
    pd = figures["pdftsp"]["welfare"]
    print(f"  {'algorithm':<10} {'welfare':>10} {'admitted':>9} {'seconds':>8} "
          f"{'pdFTSP vs it':>13} {'paper':>8}", file=out)
    for name, f in figures.items():
        if name == "bound":
            continue
        gain = 100 * (pd / f["welfare"] - 1) if f["welfare"] > 0 else float("nan")
        paper = PAPER_HIGH_LOAD.get(name)
        print(f"  {name:<10} {f['welfare']:>10.1f} {f['admitted']:>9} {f['seconds']:>8.1f} "
              f"{'' if name == 'pdftsp' else f'{gain:+.1f} %':>13} "
              f"{'' if paper is None else f'+{paper:.2f} %':>8}", file=out)
    if bound:
        b = figures["bound"]
        print(f"  offline LP bound (>= OPT): {b['welfare']:.1f} "
              f"({'converged' if b['converged'] else 'stopped early, still valid'}, "
              f"{b['iterations']} iterations, {b['seconds']:.0f} s); empirical competitive "
              f"ratio of pdFTSP <= {b['welfare'] / pd:.2f}", file=out)
    return figures


#: what ``bench index`` compares between the scan and the index (every decision of a run)
_DECISION_FIELDS = ("admitted", "chosen_vendor", "payment", "cell_task", "cell_node",
                    "cell_slot", "lam", "phi")


def index(nodes=(100, 200, 2000), seeds=(1, 2, 3), solvers=("paper", "exact"),
          payments=("critical", "paper"), slots=144, out=None) -> list[dict]:
    """pdFTSP with its candidates from the scan and from the exact index
    (:mod:`lorasched.pdftsp.candidate_index`) on the same days: seconds of each, the median
    decision, and whether every admitted task, cell, vendor, payment and final price is the same.
    The days: K = 100 and 200 at high load, 2,000 at the 10x day's 800 arrivals a slot
    (``slots`` long). Prints one line per run; returns the rows."""
    out = out or sys.stdout
    rows = []
    for k in nodes:
        load = 800.0 if k >= 2000 else "high"
        for seed in seeds:
            arrays = to_arrays(synthetic_scenario(nodes=k, load=load, slots=slots, seed=seed))
            for solver in solvers:
                for payment in payments:
                    got, seconds = {}, {}
                    for method in ("scan", "index"):
                        start = time.perf_counter()
                        got[method] = run_auction(arrays, None, solver=solver, payment=payment,
                                                  candidates=method)
                        seconds[method] = time.perf_counter() - start
                    same = all(np.array_equal(getattr(got["scan"], f), getattr(got["index"], f))
                               for f in _DECISION_FIELDS)
                    row = {"nodes": k, "seed": seed, "slots": slots, "tasks": arrays.n_tasks,
                           "solver": solver, "payment": payment,
                           "admitted": int(got["index"].admitted.sum()),
                           "scan_seconds": seconds["scan"], "index_seconds": seconds["index"],
                           "scan_median_us": float(np.median(got["scan"].decision_time) * 1e6),
                           "index_median_us": float(np.median(got["index"].decision_time)
                                                    * 1e6),
                           "identical": bool(same)}
                    rows.append(row)
                    print(f"K={k:>5} seed {seed} {solver:>5} DP, {payment:>8} payment: "
                          f"{row['tasks']:,} tasks, {row['admitted']:,} admitted; scan "
                          f"{row['scan_seconds']:.1f} s (median {row['scan_median_us']:.0f} us)"
                          f", index {row['index_seconds']:.1f} s (median "
                          f"{row['index_median_us']:.0f} us); decisions "
                          f"{'identical' if same else 'DIFFER'}", file=out, flush=True)
    return rows
