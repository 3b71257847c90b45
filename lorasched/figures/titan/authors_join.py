"""TITAN's authors'-code page, job by job: the authors' own runs joined with lorasched's
authors'-code setup (:mod:`lorasched.titan.differential`), each behaviour of their
simulator set back to the paper's one at a time, and TITAN over SRTF taken apart from
lorasched's reading to their code's. lorasched's runs are kept cells of the engine
(:class:`AuthorsJoin`'s runs), read back whole from the store."""

from __future__ import annotations

import hashlib
import json

import pandas as pd

from ...experiments import Sweep
from ...titan import differential
from ..base import Prose, check_size, default_store
from ..numbers import num, pct
from ..runs import kept_result
from .common import centre_of, paper_change

#: the authors' main result files, FM-1-vit, average JCT (h): TITAN
#: (result/main/titan/FM-1-vit-True-True/titan.csv) and SRTF (result/main/srtf/FM-1-vit)
THEIR_MAIN = {"titan": 0.2642, "srtf": 1.0332}
#: the authors' runs' policies as the page names them
AUTHORS_RUN_LABELS = {"srtf": "SRTF", "tiresias": "Tiresias",
                      "titan_nomerge": "TITAN w/o merger (their objective)",
                      "titan_merge": "TITAN, their merger and objective"}
#: the workload the page's sweeps and the ratio are on
_VIT = "vit"
#: how the CPU report names the join's cells
LABEL = "authors' code, joined job by job"


def workloads(size: str = "small") -> list[str]:
    """The authors' runs the page joins job by job: all twelve at the full size,
    FM-1-vit at the small one (each join runs its workload whole)."""
    check_size(size)
    every = sorted(set(differential.runs()["workload"]),
                   key=lambda w: (differential.parse_workload(w)[1],
                                  differential.parse_workload(w)[0]))
    return every if size == "full" else ["FM-1-vit"]


def joined(workload: str, policy: str, scenario: dict | None = None,
           clock: str = "printed", *, store=None, size: str = "small",
           **options) -> pd.DataFrame:
    """The authors' run of ``policy`` on ``workload`` joined with lorasched's, as their code
    runs it with the scenario's ``scenario`` options (``titan_scenario``'s ``micro_batch``,
    ``target``) and the policy's ``options`` changed, their merged jobs read by ``clock``
    (:func:`lorasched.titan.differential.compare`); lorasched's run from ``store``'s kept
    cells (default: ``size``'s store), computed there first where it is missing."""
    result = ours(run_sweep_of(workload, policy, scenario, options), store=store, size=size)
    return differential.compare(differential.authors_run(workload, policy), result,
                                clock=clock)


def run_sweep_of(workload: str, policy: str, scenario: dict | None = None,
                 options: dict | None = None) -> Sweep:
    """lorasched's run the page joins with the authors' ``policy`` on ``workload`` as a
    kept sweep of one cell: the authors'-code setup with ``scenario``'s parameters, the
    policy that runs as theirs (:data:`lorasched.titan.differential.AS_RUN`) with
    ``options`` over its own, seed 0 (the authors' workloads are fixed files)."""
    density, model = differential.parse_workload(workload)
    base = {"workload": "authors", "density": density, "model": model,
            "setup": "authors_code", **(scenario or {})}
    algorithm, as_run = differential.AS_RUN[policy]
    chosen = as_run | (options or {})
    what = json.dumps([workload, policy, base, chosen], sort_keys=True)
    decl = {"name": f"titan_join_{hashlib.sha256(what.encode()).hexdigest()[:10]}",
            "system": "titan", "base": base, "algorithms": [algorithm], "seeds": [0],
            "keep": True, "label": LABEL,
            "description": f"lorasched's {algorithm} joined with the authors' {policy} "
                           f"run on {workload}"}
    if chosen:
        decl["options"] = {algorithm: chosen}
    return Sweep.from_dict(decl)


def ours(sweep: Sweep, *, store=None, size: str = "small"):
    """The one kept result of ``sweep`` (:func:`run_sweep_of`), read from ``store``
    (default ``size``'s; ``False``: a temporary folder), computed there first where it is
    missing (:func:`..runs.kept_result`)."""
    return kept_result(sweep, default_store(size) if store is None else store)


def table(size: str = "small", *, store=None) -> pd.DataFrame:
    """lorasched's authors'-code setup against the authors' own runs, job by job
    (:mod:`lorasched.titan.differential`): per workload and policy, the jobs within
    1 % and 10 % of their JCT there, both average JCTs, the first job that differs
    and the named cause of every job that does."""
    rows = []
    for workload in workloads(size):
        for policy in differential.AS_RUN:
            table = joined(workload, policy, store=store, size=size)
            found = differential.agreement(table)
            first = differential.first_divergence(table)
            causes = table.loc[table["cause"] != "", "cause"].value_counts()
            rows.append({
                "workload": workload, "policy": AUTHORS_RUN_LABELS[policy],
                "jobs": found["jobs"], "within 1 %": found["within 1 %"],
                "within 10 %": found["within 10 %"],
                "avg JCT (h), theirs": f"{found['avg JCT (h, theirs)']:.4f}",
                "avg JCT (h), ours": f"{found['avg JCT (h, ours)']:.4f}",
                "first job that differs": "" if first is None else
                f"{first['name']} ({pct(100 * first['rel'])}: {first['cause']})",
                "causes": "; ".join(f"{c}: {n}" for c, n in causes.items())})
    return pd.DataFrame(rows)


#: each behaviour of the authors' simulator that the authors'-code setup follows, set to
#: lorasched's reading on a workload where it acts: (workload, policy) -> [(option, value,
#: whose reading, what it sets: "scenario" (``titan_scenario``), "policy" or "clock", how
#: their merged jobs' completions are read, :data:`lorasched.titan.differential.CLOCKS`)]
BEHAVIOURS = {
    ("FM-1-vit", "srtf"): [("placement", "pooled", "the paper's", "policy"),
                           ("estimate", "exact", "the paper's", "policy")],
    ("FM-1-vit", "tiresias"): [("placement", "pooled", "the paper's", "policy"),
                               ("attained", "work", "the paper's", "policy")],
    ("FM-1-roberta-large", "srtf"): [("micro_batch", "ceil", "lorasched's", "scenario")],
    ("FM-1-roberta-large", "tiresias"): [("micro_batch", "ceil", "lorasched's", "scenario")],
    ("FM-1-roberta-base", "srtf"): [("target", "exact", "lorasched's", "scenario")],
    ("FM-1-vit", "titan_nomerge"): [("estimate", "exact", "lorasched's", "policy"),
                                    ("placement", "pooled", "the paper's", "policy")],
    ("FM-1-vit", "titan_merge"): [("estimate", "exact", "lorasched's", "policy"),
                                  ("merge_length", "log", "lorasched's", "policy"),
                                  ("clock", "merged_end", "lorasched's", "clock")],
}


def _behaviour_runs(changes: list) -> list[tuple[str, dict, dict]]:
    """The runs of one (workload, policy) of :data:`BEHAVIOURS`: ``(label, scenario,
    options)``, the authors'-code setup first, each behaviour alone, all together, then
    each clock reading (``options`` then holds ``clock``, a reading, not a run's option)."""
    runs = [("none (the authors'-code setup)", {}, {})]
    behaviour = [c for c in changes if c[3] != "clock"]
    for name, value, whose, kind in behaviour:
        one = {name: value}
        runs.append((f"{name}: {value} ({whose})", one if kind == "scenario" else {},
                     {} if kind == "scenario" else one))
    if len(behaviour) > 1:
        runs.append(("all of the above",
                     {n: v for n, v, _, k in behaviour if k == "scenario"},
                     {n: v for n, v, _, k in behaviour if k == "policy"}))
    runs += [(f"{name}: {value} ({whose})", {}, {name: value})
             for name, value, whose, kind in changes if kind == "clock"]
    return runs


def behaviours(size: str = "small", *, store=None) -> pd.DataFrame:
    """Each behaviour of the authors' simulator that the authors'-code setup follows
    (:data:`BEHAVIOURS`: the baselines' :data:`lorasched.titan.policies.BASELINE_OPTIONS`,
    TITAN's estimate, the scenario's micro-batch and targets) set to lorasched's reading
    alone, on a workload where it acts, then all of a run's together, beside the
    authors'-code setup: the jobs within 1 % of the authors' run and both averages; with
    the merger, last, their merged jobs read on lorasched's clock (``clock``: each from its
    own submission to the merged job's end). lorasched's runs from ``store``."""
    rows = []
    for (workload, policy), changes in BEHAVIOURS.items():
        for label, scenario, options in _behaviour_runs(changes):
            found = differential.agreement(joined(workload, policy, scenario, store=store,
                                                  size=size, **options))
            rows.append({"workload": workload, "policy": AUTHORS_RUN_LABELS[policy],
                         "set to lorasched's reading": label,
                         "within 1 %": f"{found['within 1 %']} of {found['jobs']}",
                         "avg JCT (h), ours": f"{found['avg JCT (h, ours)']:.4f}",
                         "avg JCT (h), theirs": f"{found['avg JCT (h, theirs)']:.4f}"})
    return pd.DataFrame(rows)


_CEIL = {"micro_batch": "ceil"}
_POOLED = {"placement": "pooled"}
_OWN_TITAN = {"candidates": "pairs", "merge_length": "log", "objective": "paper",
              "estimate": "exact"} | _POOLED
#: the runs of :func:`gap_shares` on FM-1-vit, by name: (policy, scenario, options)
GAP_RUNS = {
    "srtf, the paper's": ("srtf", _CEIL, {"placement": "pooled", "estimate": "exact"}),
    "titan, lorasched's": ("titan_merge", _CEIL, _OWN_TITAN),
    "srtf as run, ceil": ("srtf", _CEIL, {}),
    "srtf as run": ("srtf", {}, {}),
    "titan, lorasched's, floor": ("titan_merge", {}, _OWN_TITAN),
    "titan, their candidates": ("titan_merge", {}, {"estimate": "exact",
                                                    "merge_length": "first"} | _POOLED),
    "titan, their estimate": ("titan_merge", {}, {"merge_length": "first"} | _POOLED),
    "titan, their merged job": ("titan_merge", {}, _POOLED),
    "titan as run": ("titan_merge", {}, {}),
}


def gap_shares(size: str = "small", *, store=None) -> pd.DataFrame:
    """FM-1-vit whole, TITAN's average JCT over SRTF's from lorasched's reading to the
    authors' code run here, one difference resolved per step: the baselines as their
    code runs them (nodes, SRTF's estimate), the micro-batch as their code rounds it,
    TITAN's merge candidates and objective as their code runs them, their remaining-time
    estimate in TITAN's cut and objective, their merged job (the pair ordered by their
    dataset list, at the batches summed), then TITAN's starts on nodes (the authors'-code
    setup); each step's share of
    the distance, and what remains; last, their ratio with each merged job's JCT counted
    from its own submission to the merged job's end (:func:`differential.redated`), and
    the share that remains against it. The runs: :data:`GAP_RUNS`, from ``store``."""
    def avg(name):
        policy, scenario, options = GAP_RUNS[name]
        t = joined("FM-1-vit", policy, scenario, store=store, size=size, **options)
        return float(t["jct_s (ours)"].mean()), float(t["jct_s (theirs)"].mean())

    srtf_paper, srtf_theirs = avg("srtf, the paper's")
    titan_own, titan_theirs = avg("titan, lorasched's")
    srtf_run_ceil = avg("srtf as run, ceil")[0]
    srtf_as_run = avg("srtf as run")[0]
    steps = [("lorasched's TITAN (its merger, eq. (1)) over SRTF as the paper "
              "describes it (one pool, the exact remaining time)", titan_own / srtf_paper),
             ("SRTF as the authors' code runs it (their placement and estimate)",
              titan_own / srtf_run_ceil),
             ("the micro-batch as their code rounds it, in both",
              avg("titan, lorasched's, floor")[0] / srtf_as_run),
             ("TITAN's merge candidates and objective as the authors' code runs them",
              avg("titan, their candidates")[0] / srtf_as_run),
             ("TITAN's cut and objective on their remaining-time estimate",
              avg("titan, their estimate")[0] / srtf_as_run),
             ("their merged job: the pair ordered by their list of datasets, one "
              "member's samples at the two batches summed",
              avg("titan, their merged job")[0] / srtf_as_run),
             ("TITAN's starts placed on nodes as their code places them (the "
              "authors'-code setup)", avg("titan as run")[0] / srtf_as_run)]
    target = titan_theirs / srtf_theirs
    start = steps[0][1]
    rows, prev = [], start
    for label, r in steps:
        rows.append({"step": label, "TITAN / SRTF": f"{r:.3f}",
                     "share of the distance": "" if r is start else
                     pct(100 * (prev - r) / (start - target), sign=False)})
        prev = r
    rows.append({"step": "the authors' code run here (CBC for Gurobi)",
                 "TITAN / SRTF": f"{target:.3f}",
                 "share of the distance": "remains: " + pct(
                     100 * (prev - target) / (start - target), sign=False)})
    redated = float(differential.redated(differential.authors_run(
        "FM-1-vit", "titan_merge"))["jct_s"].mean()) / 3600
    clock = redated / (srtf_theirs / 3600)
    rows.append({"step": "the authors' code run here, each merged job's JCT from its own "
                         "submission to the merged job's end",
                 "TITAN / SRTF": f"{clock:.3f}",
                 "share of the distance": "remains on lorasched's clock: " + pct(
                     100 * (prev - clock) / (start - target), sign=False)})
    return pd.DataFrame(rows)


def join_sweeps(size: str = "small") -> list[Sweep]:
    """Every run of lorasched that the page joins at ``size`` (:func:`table`'s,
    :func:`behaviours`' and :func:`gap_shares`'), each a kept sweep of one cell
    (:func:`run_sweep_of`), each once."""
    runs = [(w, p, {}, {}) for w in workloads(size) for p in differential.AS_RUN]
    for (workload, policy), changes in BEHAVIOURS.items():
        runs += [(workload, policy, scenario,
                  {k: v for k, v in options.items() if k != "clock"})
                 for _, scenario, options in _behaviour_runs(changes)]
    runs += [("FM-1-vit", p, sc, opts) for p, sc, opts in GAP_RUNS.values()]
    out = {}
    for workload, policy, scenario, options in runs:
        sweep = run_sweep_of(workload, policy, scenario, options)
        out.setdefault(sweep.name, sweep)
    return list(out.values())


class AuthorsJoin:
    """The authors'-code page's job-by-job join as the catalogue's batch sees it: no page
    of its own, only the kept sweeps of lorasched's runs it joins (:func:`join_sweeps`),
    so that ``lorasched reproduce`` computes them with every other cell."""

    key, number, system = "authors_join", "the authors'-code join", "titan"

    def sweeps(self, size: str = "small", seeds: int | None = None) -> dict[str, Sweep]:
        """None: the join's runs are single runs (:meth:`runs`)."""
        return {}

    def runs(self, size: str = "small") -> dict[str, Sweep]:
        """The join's kept runs by name (the authors' workloads are fixed files, each run
        once)."""
        return {s.name: s for s in join_sweeps(size)}


def findings(table: pd.DataFrame, behaviours: pd.DataFrame,
                          gaps: pd.DataFrame) -> Prose:
    """What the job-by-job join finds (:func:`table`, :func:`behaviours`,
    :func:`gap_shares`), every number from those tables."""
    base = table[table["policy"].isin(["SRTF", "Tiresias"])]
    whole = base[base["within 1 %"] == base["jobs"]]
    titan = table[~table.index.isin(base.index)]
    parts = [
        f"SRTF and Tiresias in lorasched's authors'-code setup agree with the authors' "
        f"own runs within 1 % on {num(int(base['within 1 %'].sum()))} of "
        f"{num(int(base['jobs'].sum()))} jobs, and on every job in {len(whole)} of "
        f"{len(base)} runs"]
    rest = base[base["within 1 %"] < base["jobs"]]
    if len(rest):
        parts.append(
            f"; in the other {len(rest)} ({', '.join(sorted(set(rest['workload'])))}), "
            "each job that differs has its cause named (the table's last column)")
    parts.append(". ")
    if len(titan):
        parts.append(
            f"TITAN's runs agree on {num(int(titan['within 1 %'].sum()))} of "
            f"{num(int(titan['jobs'].sum()))} jobs within 1 % and "
            f"{num(int(titan['within 10 %'].sum()))} within 10 %: their MILP breaks "
            "ties among equally good widths otherwise, and their clock dates a merged "
            "job's completion from the other member's submission. ")
    b = behaviours.copy()
    b["agree"] = b["within 1 %"].str.split(" of ").str[0].astype(int)
    alone, lower = [], []
    for (workload, policy), group in b.groupby(["workload", "policy"], sort=False):
        base_agree = int(group["agree"].iloc[0])
        for _, r in group.iloc[1:].iterrows():
            if (r["set to lorasched's reading"] == "all of the above"
                    or r["set to lorasched's reading"].startswith("clock")):
                continue
            what = r["set to lorasched's reading"].split(" (")[0]
            alone.append(f"{policy} on {workload} with {what}, {r['within 1 %']}")
            lower.append(int(r["agree"]) < base_agree)
    parts.append(
        "Set to lorasched's reading one at a time, "
        + ("each behaviour lowers the agreement: " if all(lower) else
           "the behaviours change the agreement: ") + "; ".join(alone) + ". ")
    merged = b[b["policy"] == AUTHORS_RUN_LABELS["titan_merge"]]
    clocked = merged[merged["set to lorasched's reading"].str.startswith("clock")]
    if len(clocked):
        c = clocked.iloc[0]
        parts.append(
            "Read on lorasched's clock, each merged job from its own submission to the "
            f"merged job's end, their merged run agrees on {c['within 1 %']} jobs within "
            f"1 % (against {merged.iloc[0]['within 1 %']} as their files print it), and "
            f"its average is {c['avg JCT (h), theirs']} h. ")
    exact = merged[merged["set to lorasched's reading"].str.startswith("estimate")]
    if len(exact):
        run, exact = merged.iloc[0], exact.iloc[0]
        theirs_h = float(run["avg JCT (h), theirs"])
        nearer = (abs(float(run["avg JCT (h), ours"]) - theirs_h)
                  < abs(float(exact["avg JCT (h), ours"]) - theirs_h))
        parts.append(
            f"With the merger, their estimate brings lorasched's TITAN closer job by job "
            f"({exact['within 1 %']} within 1 % without it, {run['within 1 %']} with it) "
            f"and its average {'closer to' if nearer else 'further from'} theirs "
            f"({exact['avg JCT (h), ours']} h without it, {run['avg JCT (h), ours']} h with "
            f"it, theirs {run['avg JCT (h), theirs']} h). ")
    steps = gaps.iloc[1:-2]
    moves = [f"{r['step'].split(' (')[0]}, {r['share of the distance']}"
             for _, r in steps.iterrows()]
    last_ours = gaps.iloc[-3]
    theirs, clock = gaps.iloc[-2], gaps.iloc[-1]
    printed, redated = float(theirs["TITAN / SRTF"]), float(clock["TITAN / SRTF"])
    effect = ("lowers" if redated > printed else "raises" if redated < printed
              else "leaves at this precision")
    parts.append(
        f"TITAN over SRTF on FM-1-vit moves from {gaps.iloc[0]['TITAN / SRTF']} "
        f"(lorasched's reading) to {last_ours['TITAN / SRTF']} (the authors'-code setup), "
        f"against {theirs['TITAN / SRTF']} for the authors' code run here; the shares of "
        f"that distance: {'; '.join(moves)} (a negative share moves away); "
        f"{theirs['share of the distance'].removeprefix('remains: ')} of it remains. "
        f"Their clock {effect} their own ratio: with each merged job's JCT counted from "
        "its own submission to the merged job's end, as lorasched counts it, it is "
        f"{clock['TITAN / SRTF']}, and against that "
        f"{clock['share of the distance'].split(': ')[-1]} of the distance remains.")
    return Prose("".join(parts))


def ratios(data) -> pd.DataFrame:
    """FM-1-vit, TITAN's average JCT over SRTF's: the paper's Table 3, the authors'
    committed result files, the authors' code run here with CBC, and lorasched's
    authors'-code setup (this page's runs, geometric means over seeds; at the small
    size a draw of the jobs)."""
    runs = differential.runs().set_index(["workload", "policy"])
    cbc = runs.loc[("FM-1-vit", "titan_merge"), "avg_jct_h"] \
        / runs.loc[("FM-1-vit", "srtf"), "avg_jct_h"]
    base = data["authors"].sel(model=_VIT, density=1.0)
    fair = data["merge_fair"].sel(algorithm="titan")
    srtf = centre_of(base["avg_jct_h"].sel(algorithm="srtf")).mean
    rows = [("the paper (Table 3, FMTrace)",
             1 + paper_change("titan", "srtf") / 100),
            ("the authors' result files (TITAN: result/main/titan/FM-1-vit-True-True; "
             "SRTF: result/main/srtf/FM-1-vit)",
             THEIR_MAIN["titan"] / THEIR_MAIN["srtf"]),
            ("the authors' code run here (CBC for Gurobi)", cbc),
            ("lorasched, the authors'-code setup, the merger as their code runs it",
             centre_of(fair["avg_jct_h"]).mean / srtf),
            ("lorasched, the authors'-code setup, lorasched's TITAN",
             centre_of(base["avg_jct_h"].sel(algorithm="titan")).mean / srtf)]
    return pd.DataFrame([{"TITAN / SRTF, average JCT": label, "ratio": num(v)}
                         for label, v in rows])


__all__ = ["AUTHORS_RUN_LABELS", "THEIR_MAIN", "behaviours", "findings", "gap_shares",
           "joined", "ratios", "table", "workloads"]
