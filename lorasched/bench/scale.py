"""``lorasched bench scale``: time and memory of the library at every scale, each measurement
in a fresh process (:func:`measure`), against the speed goals (:data:`GOALS`), printed as a
table (:func:`report`). The speed page shows the JSON it writes
(:mod:`lorasched.bench.scale_page`); the rows: :doc:`/reference/tools`.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ..experiments.grid import code_fingerprint
from ..model.errors import InputError
from ..pdftsp.bound import offline_upper_bound
from ..pdftsp.system import simulate
from ..pdftsp.workload import synthetic_scenario

ROWS = ("bound", "day10x", "decision", "titan", "series", "provider", "book")
DEFAULT_ROWS = ("bound", "day10x", "decision", "titan", "series", "provider")
SERIES_NODES = (100, 200, 500, 1000, 2000)
#: the ``provider`` row: pdFTSP alone at the series' arrival density beyond K = 2,000, up
#: to a 20,000-GPU provider's day (about 1.15 M tasks)
PROVIDER_NODES = (5000, 10000, 20000)
SERIES_ALGORITHMS = ("pdftsp", "eft", "ntm")
#: what each row measures (``decision`` adds the 10x day's decisions as K = 2,000)
SPECS = {
    "bound": {"kind": "bound", "nodes": 100, "load": "high"},
    "day10x": {"kind": "day", "nodes": 2000, "load": 800.0, "algorithm": "pdftsp"},
    "decision": {"100": {"kind": "day", "nodes": 100, "load": "high", "algorithm": "pdftsp"},
                 "200": {"kind": "day", "nodes": 200, "load": "high", "algorithm": "pdftsp"}},
    "titan": {"kind": "day", "nodes": 100, "load": "high", "algorithm": "titan"},
}
SERIES_LOAD = 0.4  # arrivals per slot per node in the series
#: the speed goals (seconds, GB, microseconds); ``make book`` in 30 minutes
GOALS = {"book_seconds": 30 * 60, "bound_seconds": 120,
         # the 10x day in 30 s and 1 GB, the slope of log decision time on log K
         # (K = 100 -> 2,000, the series) at most 0.3, a 20,000-GPU provider's day in
         # 10 minutes and 8 GB
         "day10x_seconds": 30, "day10x_peak_gb": 1.0, "decision_median_us_2000": 100,
         "decision_slope": 0.3, "provider_seconds": 600, "provider_peak_gb": 8.0,
         "titan_seconds": 300,
         # TITAN's figures (lorasched reproduce --system titan) in 8 minutes, the
         # book again after a change to presentation in 3
         "titan_cells_seconds": 8 * 60, "rebuild_presentation_seconds": 3 * 60}


# --------------------------------------------------------------------------- one process


def _peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9  # KiB on Linux


def _warm() -> None:
    """Load (or compile) numba's cached kernels and HiGHS on a tiny scenario."""
    tiny = synthetic_scenario(nodes=2, slots=12, vendors=5, load=2.0, seed=0)
    for algorithm in ("pdftsp", "eft", "ntm", "titan"):
        simulate(tiny, algorithm=algorithm, seed=0)


def _child(spec: dict) -> dict:
    """One measurement (run in its own process): ``spec["kind"]`` is ``"day"`` or
    ``"bound"``."""
    _warm()
    start = time.perf_counter()
    cpu = time.process_time()
    scenario = synthetic_scenario(nodes=spec["nodes"], slots=spec.get("slots", 144), vendors=5,
                                  load=spec["load"], seed=spec.get("seed", 1))
    built = time.perf_counter()
    out = {"tasks": int(scenario.sizes["task"]), "nodes": spec["nodes"],
           "load": spec["load"], "scenario_seconds": built - start}
    if spec["kind"] == "bound":
        ub = offline_upper_bound(scenario, time_limit=np.inf)
        out.update(seconds=ub.seconds, bound=ub.bound, converged=bool(ub.converged),
                   iterations=ub.iterations, columns=ub.columns)
    else:
        result = simulate(scenario, algorithm=spec["algorithm"], seed=spec.get("seed", 1),
                          **spec.get("options", {}))
        done = time.perf_counter()
        times = result["decision_time"].values
        out.update(algorithm=spec["algorithm"], run_seconds=done - built,
                   cpu_seconds=time.process_time() - cpu,
                   seconds=done - start, welfare=float(result.attrs["welfare"]),
                   admitted=int(result.attrs["n_admitted"]),
                   decision_median_us=float(np.nanmedian(times) * 1e6),
                   decision_mean_us=float(np.nanmean(times) * 1e6))
        if "titan_slots_hit_limit" in result.attrs:
            out["slots_hit_limit"] = int(result.attrs["titan_slots_hit_limit"])
            gap = result["titan_gap"].values  # certified per-slot gap (LP bound vs MILP)
            mip_gap = result["titan_mip_gap"].values  # HiGHS's, over the generated columns
            seconds = result["titan_seconds"].values
            out.update(gap_max=float(np.nanmax(gap)), gap_mean=float(np.nanmean(gap)),
                       gap_median=float(np.nanmedian(gap)),
                       gap_p90=float(np.nanquantile(gap, 0.9)),
                       solver=str(result.attrs.get("titan_solver", "")),
                       mip_gap_finite_max=float(np.nanmax(np.where(np.isfinite(mip_gap),
                                                                   mip_gap, np.nan)))
                       if np.isfinite(mip_gap).any() else float("inf"),
                       slot_seconds_max=float(np.nanmax(seconds)),
                       slots_over_gap=int((gap[np.isfinite(gap)]
                                           > result.attrs["titan_mip_rel_gap"] + 1e-12).sum()),
                       mip=str(result.attrs.get("titan_mip", "")))
            stage = result["titan_stage"].values if "titan_stage" in result else []
            if np.isfinite(stage).any():  # the compact MILP's stages (slot_milp.STAGES)
                out["stages"] = np.bincount(stage[np.isfinite(stage)].astype(int),
                                            minlength=3).tolist()
    out["peak_gb"] = _peak_gb()
    return out


def _child_main(text: str) -> None:
    print(json.dumps(_child(json.loads(text))))


def measure(spec: dict) -> dict:
    """Run one measurement in a fresh process; its JSON result."""
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from lorasched.bench.scale import "
         "_child_main as m; m(sys.argv[1])", json.dumps(spec)],
        capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark {spec} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


#: ``lorasched reproduce``'s line for one system, as ``make book`` prints it: alone, its
#: seconds; in a batch with others, its cells' summed seconds on the workers
_REPRODUCED = re.compile(r"^(\w+) \(full\): (\d+) cells computed, (\d+) already done, "
                         r"(\d+) failed(?: in (\d+) s|; its cells ran (\d+) s in all)",
                         re.MULTILINE)
#: ... and the line of a batch of several systems' cells
_BATCH = re.compile(r"^([\w +]+?) \(full\): one batch of (\d+) cells in (\d+) s",
                    re.MULTILINE)
#: what the two rebuilds append: a function, to a module of Allpass's package (its cells
#: only must be recomputed) and to a presentation module (no cell at all)
REBUILDS = {"allpass": "lorasched/allpass/scalers.py", "presentation": "lorasched/figures/base.py"}


def _make_book(clone: Path) -> dict:
    """``make book`` in ``clone``: its wall seconds and, per system, what ``lorasched
    reproduce`` printed (cells computed, already done, failed, seconds)."""
    start = time.perf_counter()
    proc = subprocess.run(["make", "book"], cwd=clone, capture_output=True, text=True,
                          check=False)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"make book failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    systems = {}
    for m in _REPRODUCED.finditer(proc.stdout):
        got = {"computed": int(m[2]), "done": int(m[3]), "failed": int(m[4])}
        if m[5] is not None:
            got["seconds"] = float(m[5])
        else:
            got["cell_seconds"] = float(m[6])
        systems[m[1]] = got
    batches = [{"systems": m[1].split(" + "), "cells": int(m[2]), "seconds": float(m[3])}
               for m in _BATCH.finditer(proc.stdout)]
    cells = (sum(v.get("seconds", 0.0) for v in systems.values())
             + sum(b["seconds"] for b in batches))
    return {"seconds": seconds, "systems": systems, "batches": batches,
            "other_seconds": seconds - cells}


def _book_seconds(repo: Path, keep_store=None) -> dict:
    """``make book`` in a fresh clone of ``repo`` (its committed state): the venv's
    install (``make .venv``) and the rest timed apart, each system's cells as ``lorasched
    reproduce`` reports them, the notebooks and the build (``other_seconds``); then the
    book made again after appending a function to a module of Allpass's package and,
    after that, to a presentation module (:data:`REBUILDS`). ``keep_store``: copy the
    first make's store of cells (``build/sweeps/full``) there, to read after."""
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
        start = time.perf_counter()
        subprocess.run(["make", ".venv"], cwd=clone, capture_output=True, check=True)
        venv = time.perf_counter() - start
        first = _make_book(clone)
        if keep_store is not None:
            shutil.copytree(clone / "build" / "sweeps" / "full", keep_store)
        # the whole first make: the venv's install and make book
        out = {**first, "seconds": venv + first["seconds"], "venv_seconds": venv,
               "rebuilds": {}}
        for name, module in REBUILDS.items():
            with open(clone / module, "a") as fh:
                fh.write(f"\n\ndef _bench_rebuild_{name}():\n    return None\n")
            out["rebuilds"][name] = {"module": module, **_make_book(clone)}
    return out


# --------------------------------------------------------------------------- the table


def machine() -> dict:
    """Where the figures were measured."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    except (ValueError, OSError):
        mem = float("nan")
    return {"cpu": cpu, "cores": len(os.sched_getaffinity(0)), "memory_gb": round(mem, 1),
            "python": platform.python_version(), "platform": platform.platform()}


def run(rows=DEFAULT_ROWS, *, repo: str | os.PathLike = ".", series_nodes=SERIES_NODES,
        provider_nodes=PROVIDER_NODES, specs: dict | None = None, keep_store=None,
        progress=print, candidates: str = "auto") -> dict:
    """Measure ``rows`` (names in :data:`ROWS`) as :data:`SPECS` (or ``specs``) say; returns
    the JSON-ready figures. ``keep_store``: where the book row keeps its store of cells;
    ``candidates``: pdFTSP's option of that name in every pdFTSP day (``"scan"``: every
    cell of the window read, without the index)."""
    bad = [r for r in rows if r not in ROWS]
    if bad:
        raise InputError(f"unknown benchmark row {bad[0]!r}; choose from {ROWS}")
    specs = SPECS if specs is None else specs
    out: dict = {"machine": machine(), "version": importlib.metadata.version("lorasched"),
                 "code": code_fingerprint(), "date": time.strftime("%Y-%m-%d %H:%M"),
                 "rows": {}}
    got = out["rows"]

    def step(spec):
        progress(f"  measuring {spec.get('algorithm', 'the LP bound')}, K={spec['nodes']}, "
                 f"load {spec['load']} ...")
        if spec.get("algorithm") == "pdftsp" and candidates != "auto":
            spec = {**spec, "options": {**spec.get("options", {}), "candidates": candidates}}
        return measure(spec)

    if candidates != "auto":
        out["candidates"] = candidates

    if "bound" in rows:
        got["bound"] = step(specs["bound"])
    ten = None
    if "day10x" in rows or "decision" in rows:
        ten = got["day10x"] = step(specs["day10x"])
    if "decision" in rows:
        got["decision"] = {k: step(spec) for k, spec in specs["decision"].items()}
        got["decision"][str(specs["day10x"]["nodes"])] = ten
    if "titan" in rows:
        got["titan"] = step(specs["titan"])
    if "series" in rows:
        series = []
        for k in series_nodes:
            for algorithm in SERIES_ALGORITHMS:
                spec = {"kind": "day", "nodes": int(k), "load": SERIES_LOAD * k,
                        "algorithm": algorithm,
                        **({"slots": specs["day10x"]["slots"]}
                           if "slots" in specs["day10x"] else {})}
                same = ten is not None and all(ten.get(f) == spec[f] for f in
                                               ("nodes", "load", "algorithm"))
                series.append(ten if same else step(spec))  # the 10x day is a point
        got["series"] = series
    if "provider" in rows:
        got["provider"] = [step({"kind": "day", "nodes": int(k), "load": SERIES_LOAD * k,
                                 "algorithm": "pdftsp",
                                 **({"slots": specs["day10x"]["slots"]}
                                    if "slots" in specs["day10x"] else {})})
                           for k in provider_nodes]
    if "book" in rows:
        progress("  measuring make book in a fresh clone (most of an hour) ...")
        got["book"] = _book_seconds(Path(repo), keep_store)
    return out


def decision_points(figures: dict) -> list[tuple[int, float]]:
    """(K, median pdFTSP decision in microseconds) of the series and provider rows, by K:
    the same arrival density (0.4 K a slot) at every K."""
    r = figures["rows"]
    pts = [p for p in r.get("series", []) if p.get("algorithm") == "pdftsp"]
    pts += list(r.get("provider", []))
    return sorted((int(p["nodes"]), float(p["decision_median_us"])) for p in pts)


def decision_slope(figures: dict, lo: int = 100, hi: int = 2000) -> float | None:
    """The least-squares slope of log(median decision time) on log K over the points with
    ``lo <= K <= hi`` (:func:`decision_points`); None with fewer than two."""
    pts = [(k, us) for k, us in decision_points(figures) if lo <= k <= hi]
    if len(pts) < 2:
        return None
    x, y = np.log([k for k, _ in pts]), np.log([us for _, us in pts])
    return float(np.polyfit(x, y, 1)[0])


def summary(figures: dict) -> list[tuple[str, float | None, str, float | None]]:
    """(what, value, unit, goal) per line of the table."""
    r = figures["rows"]
    lines = []
    if "book" in r:
        b = r["book"]
        lines.append(("make book, fresh clone", b["seconds"], "s", GOALS["book_seconds"]))
        if "venv_seconds" in b:
            lines.append(("  the venv (make .venv)", b["venv_seconds"], "s", None))
        for batch in b.get("batches", []):
            lines.append((f"  {' + '.join(batch['systems'])}'s cells, one batch",
                          batch["seconds"], "s", None))
        for name, got in b.get("systems", {}).items():
            if "seconds" in got:
                lines.append((f"  {name}'s cells ({got['computed']} computed)", got["seconds"],
                              "s", GOALS.get(f"{name}_cells_seconds")))
            else:  # in a batch: the cells' own seconds, summed (one worker would take that)
                lines.append((f"  {name}'s cells ({got['computed']} computed), summed",
                              got["cell_seconds"], "cell-s", GOALS.get(f"{name}_cells_seconds")))
        if "other_seconds" in b:
            lines.append(("  notebooks and build", b["other_seconds"], "s", None))
        for name, again in b.get("rebuilds", {}).items():
            lines.append((f"make book again after a change to {name}", again["seconds"], "s",
                          GOALS.get(f"rebuild_{name}_seconds")))
            for system, got in again["systems"].items():
                lines.append((f"  {system}'s cells recomputed", got["computed"], "cells",
                              None))
    if "bound" in r:
        b = r["bound"]
        lines.append((f"offline_upper_bound, K={b['nodes']} {b['load']}", b["seconds"], "s",
                      GOALS["bound_seconds"]))
        lines.append(("  its bound", r["bound"]["bound"], "USD", None))
    if "day10x" in r:
        d = r["day10x"]
        lines.append((f"10x day, pdFTSP ({d['tasks']} tasks)", d["seconds"], "s",
                      GOALS["day10x_seconds"]))
        lines.append(("  peak memory", d["peak_gb"], "GB", GOALS["day10x_peak_gb"]))
    if "decision" in r:
        for k in sorted(r["decision"], key=int):
            goal = GOALS["decision_median_us_2000"] if k == "2000" else None
            lines.append((f"pdFTSP decision median, K={k}",
                          r["decision"][k]["decision_median_us"], "us", goal))
    slope = decision_slope(figures)
    if slope is not None:
        lines.append(("slope of log decision time on log K", slope, "", GOALS["decision_slope"]))
    largest = max((p["nodes"] for p in r.get("provider", [])), default=None)
    for p in r.get("provider", []):
        goal = p["nodes"] == largest == max(PROVIDER_NODES)
        lines.append((f"pdFTSP day, K={p['nodes']:,} ({p['tasks']:,} tasks)", p["seconds"], "s",
                      GOALS["provider_seconds"] if goal else None))
        lines.append((f"  peak memory, K={p['nodes']:,}", p["peak_gb"], "GB",
                      GOALS["provider_peak_gb"] if goal else None))
        lines.append((f"  decision median, K={p['nodes']:,}", p["decision_median_us"], "us",
                      None))
    if "titan" in r:
        t = r["titan"]
        lines.append((f"Titan day, K={t['nodes']} {t['load']}, default limits", t["seconds"],
                      "s", GOALS["titan_seconds"]))
        lines.append(("  slots stopped at a limit", t.get("slots_hit_limit"), "of 144", None))
        lines.append(("  welfare", t["welfare"], "USD", None))
    return lines


def baseline_value(baseline: dict | None, what: str):
    """The value of the line ``what`` of :func:`summary` in ``baseline`` (None: no such
    line, or no baseline)."""
    if not baseline:
        return None
    for name, value, _, _ in summary(baseline):
        if name == what:
            return value
    return None


def report(figures: dict, baseline: dict | None = None, out=None) -> None:
    """Print the table (with the ratio to ``baseline`` where it has the same line)."""
    out = out or sys.stdout
    m = figures["machine"]
    print(f"lorasched bench scale, {figures['date']}, code {figures['code']}, on "
          f"{m['cpu']} ({m['cores']} cores, {m['memory_gb']} GB), Python {m['python']}",
          file=out)
    head = f"  {'what':<42} {'now':>12} {'unit':<7} {'goal':>8} {'met':>4}"
    if baseline:
        head += f" {'before':>12} {'now/before':>10}"
    print(head, file=out)
    for what, value, unit, goal in summary(figures):
        met = "" if goal is None or value is None else ("yes" if value <= goal else "no")
        line = (f"  {what:<42} {fmt(value):>12} {unit:<7} "
                f"{'' if goal is None else fmt(goal):>8} {met:>4}")
        before = baseline_value(baseline, what)
        if baseline:
            ratio = (f"{value / before:.2f}" if before not in (None, 0) and value is not None
                     else "")
            line += f" {fmt(before):>12} {ratio:>10}"
        print(line, file=out)


def fmt(value) -> str:
    """A value of the table as :func:`report` prints it ("-" for None)."""
    if value is None:
        return "-"
    if isinstance(value, int) or float(value).is_integer() and abs(value) < 1e6:
        return f"{value:.0f}" if abs(value) >= 100 else f"{value:g}"
    return f"{value:,.1f}" if abs(value) >= 100 else f"{value:.3g}"


def scale(rows=DEFAULT_ROWS, *, out_path=None, baseline_path=None, repo=".",
          out=None, keep_store=None, candidates: str = "auto", **sizes) -> dict:
    """Measure, print, and write the JSON (``out_path``); ``baseline_path``: a previous
    JSON to compare with; ``keep_store``: as in :func:`run`; ``sizes``: ``specs`` /
    ``series_nodes`` of :func:`run`."""
    out = out or sys.stdout
    baseline = None
    if baseline_path is not None:
        baseline = json.loads(Path(baseline_path).read_text())
    figures = run(rows, repo=repo, keep_store=keep_store,
                  progress=lambda s: print(s, file=out, flush=True), candidates=candidates,
                  **sizes)
    report(figures, baseline, out=out)
    if out_path is not None:
        Path(out_path).parent.mkdir(parents=True, exist_ok=True)
        Path(out_path).write_text(json.dumps(figures, indent=1) + "\n")
        print(f"wrote {out_path}", file=out)
    return figures
