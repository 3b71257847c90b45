"""TITAN's authors'-code page, job by job: the authors' own runs joined with lorasched's
authors'-code setup (:mod:`lorasched.titan.differential`), each behaviour of their
simulator set back to the paper's one at a time, and TITAN over SRTF taken apart from
lorasched's reading to their code's."""

from __future__ import annotations

import pandas as pd

from ...systems import simulate
from ...titan import differential
from ...titan.workload import titan_scenario
from ..base import Prose, check_size
from ..numbers import num, pct
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


def workloads(size: str = "small") -> list[str]:
    """The authors' runs the page joins job by job: all twelve at the full size,
    FM-1-vit at the small one (each join runs its workload whole)."""
    check_size(size)
    every = sorted(set(differential.runs()["workload"]),
                   key=lambda w: (differential.parse_workload(w)[1],
                                  differential.parse_workload(w)[0]))
    return every if size == "full" else ["FM-1-vit"]


def joined(workload: str, policy: str, **options) -> pd.DataFrame:
    """The authors' run of ``policy`` on ``workload`` joined with lorasched's, as their code
    runs it with ``options`` changed (:func:`lorasched.titan.differential.compare`)."""
    density, model = differential.parse_workload(workload)
    sc = titan_scenario(workload="authors", density=density, model=model,
                        setup="authors_code")
    ours, as_run = differential.AS_RUN[policy]
    return differential.compare(differential.authors_run(workload, policy),
                                simulate(sc, ours, **(as_run | options)))


def table(size: str = "small") -> pd.DataFrame:
    """lorasched's authors'-code setup against the authors' own runs, job by job
    (:mod:`lorasched.titan.differential`): per workload and policy, the jobs within
    1 % and 10 % of their JCT there, both average JCTs, the first job that differs
    and the named cause of every job that does."""
    rows = []
    for workload in workloads(size):
        for policy in differential.AS_RUN:
            table = joined(workload, policy)
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


def behaviours() -> pd.DataFrame:
    """FM-1-vit, SRTF and Tiresias against the authors' runs with each behaviour of
    the authors' simulator (:data:`lorasched.titan.policies.BASELINE_OPTIONS`) set to
    the paper's reading one at a time, then all of them (the paper's baselines), beside
    the authors'-code setup: the jobs within 1 % and the average JCT."""
    paper = {"srtf": {"placement": "pooled", "estimate": "exact"},
             "tiresias": {"placement": "pooled", "attained": "work"}}
    rows = []
    for policy, changes in paper.items():
        runs = [("the authors'-code setup (every behaviour as their code)", {})]
        runs += [(f"{name}: {value} (the paper's)", {name: value})
                 for name, value in changes.items()]
        runs += [("all of them the paper's", changes)]
        for label, options in runs:
            found = differential.agreement(joined("FM-1-vit", policy, **options))
            rows.append({"policy": AUTHORS_RUN_LABELS[policy], "behaviour": label,
                         "within 1 %": f"{found['within 1 %']} of {found['jobs']}",
                         "avg JCT (h), ours": f"{found['avg JCT (h, ours)']:.4f}",
                         "avg JCT (h), theirs": f"{found['avg JCT (h, theirs)']:.4f}"})
    return pd.DataFrame(rows)


def gap_shares() -> pd.DataFrame:
    """FM-1-vit whole, TITAN's average JCT over SRTF's from lorasched's reading to the
    authors' code run here, one difference resolved per step: the baselines as their
    code runs them (nodes, SRTF's estimate), then TITAN's merger and objective as
    their code runs them; each step's share of the distance, and what remains."""
    def avg(policy, **options):
        t = joined("FM-1-vit", policy, **options)
        return float(t["jct_s (ours)"].mean()), float(t["jct_s (theirs)"].mean())

    paper_srtf = {"placement": "pooled", "estimate": "exact"}
    own_titan = {"candidates": "pairs", "merge_length": "log", "objective": "paper"}
    srtf_paper, srtf_theirs = avg("srtf", **paper_srtf)
    srtf_as_run = avg("srtf")[0]
    titan_own, titan_theirs = avg("titan_merge", **own_titan)
    titan_as_run = avg("titan_merge")[0]
    steps = [("lorasched's TITAN (its merger, eq. (1)) over SRTF as the paper "
              "describes it (one pool, the exact remaining time)", titan_own / srtf_paper),
             ("SRTF as the authors' code runs it (their placement and estimate)",
              titan_own / srtf_as_run),
             ("TITAN's merger and objective as the authors' code runs them",
              titan_as_run / srtf_as_run)]
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
    return pd.DataFrame(rows)


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
            "ties among equally good widths otherwise, and their clock drops a merged "
            "job's wait before the merge. ")
    b = behaviours
    back = b[b["behaviour"].str.endswith("(the paper's)")]
    parts.append(
        "Set back to the paper's reading one at a time on FM-1-vit, each behaviour "
        "breaks the match: " + "; ".join(
            f"{r['policy']} with {r['behaviour'].split(' (')[0]}, {r['within 1 %']}"
            for _, r in back.iterrows()) + ". ")
    first, last = gaps.iloc[0], gaps.iloc[-1]
    parts.append(
        f"TITAN over SRTF moves from {first['TITAN / SRTF']} (lorasched's reading) to "
        f"{gaps.iloc[-2]['TITAN / SRTF']} with both differences resolved, against "
        f"{last['TITAN / SRTF']} for the authors' code run here; the baselines' "
        f"placement and estimate close {gaps.iloc[1]['share of the distance']} of the "
        f"distance, TITAN's merger and objective as run "
        f"{gaps.iloc[2]['share of the distance']}, and "
        f"{last['share of the distance'].removeprefix('remains: ')} remains.")
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
