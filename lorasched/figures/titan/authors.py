"""TITAN as the authors' code runs it: their simulator's setup on all twelve of their
workloads, the checkpoint cost swept, and the distance to the paper's setup taken apart one
difference at a time (:data:`LADDER`). The sweeps: :doc:`/reference/figures`.
"""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pandas as pd

from ...experiments import Sweep
from ...titan.lut import MODELS
from ...titan.workload import AUTHORS_CKPT_S
from ..base import check_size, paragraphs
from ..centres import centre
from ..numbers import num, pct, quote, seconds
from ..runs import one_run
from ..verdicts import BEYOND, GAIN, INCONCLUSIVE, RATIO, REPRODUCED, Estimate
from . import authors_join
from .common import (
    PAPER_TABLE3,
    TitanFigure,
    centre_of,
    change,
    declaration,
    judged,
    paper_change,
)

#: the policies of the page, in the order of the tables
POLICIES = ["srtf", "tiresias", "titan_nomerge", "fair", "titan"]
LABELS = {"srtf": "SRTF", "tiresias": "Tiresias", "titan_nomerge": "TITAN w/o merger",
          "fair": "TITAN w/o merger, authors' objective", "titan": "TITAN"}
#: the workloads' densities (the authors published these three)
DENSITIES = [1.0, 1.5, 2.0]
#: the checkpoint costs swept (s), as in the authors' fast_batch_run_ckpt.sh
CKPT_S = [0.0, 30.0, 60.0, 90.0]
_ALGS = ["srtf", "tiresias", "titan_nomerge", "titan"]
_TITANS = ("titan", "titan_nomerge")
#: from the authors' setup to the paper's, one change per step, cumulative: (label, the
#: scenario's base changes, per-policy option changes)
LADDER = [
    ("the authors' code's setup", {}, {}),
    ("the behaviours of their simulator the paper does not describe, as lorasched reads "
     "the paper: one pool of GPUs, SRTF and TITAN on the exact remaining time, Tiresias "
     "counting the work done, micro-batches rounded up, targets read exactly",
     {"micro_batch": "ceil", "target": "exact"},
     {"srtf": {"placement": "pooled", "estimate": "exact"},
      "tiresias": {"placement": "pooled", "attained": "work"},
      "titan": {"estimate": "exact", "placement": "pooled"},
      "titan_nomerge": {"estimate": "exact", "placement": "pooled"}}),
    ("decisions at events, not on ticks", {},
     {a: {"tick_s": 0.0} for a in _ALGS}),
    ("no checkpoint cost", {"ckpt_s": 0.0}, {}),
    ("the paper's switch costs (ViT-L's Fig. 3: pipelined for TITAN, naive for the "
     "baselines) instead of the model's measured restart", {},
     {"srtf": {"switch": "naive"}, "tiresias": {"switch": "naive"},
      "titan": {"switch": "pipelined"}, "titan_nomerge": {"switch": "pipelined"}}),
    ("TITAN non-preemptive, every job offered to the MILP", {},
     {a: {"preemptive": False, "keep": "all"} for a in _TITANS}),
    ("64 GPUs (16 nodes)", {"nodes": 16}, {}),
    ("the paper's setup: allocations {1, 2, 4m} up to 16 GPUs, no job cap", None, None),
]
_LADDER_MODEL, _VIT = "vit-large", "vit"
#: the third reading of their merger: the authors' candidates and merged length under
#: their objective (what their simulator ran for the checkpoint sweep's result files)
MERGE_AS_RUN = {"candidates": "cross_dataset", "merge_length": "authors",
                "objective": "authors_fair"}
#: the authors' result files (gaow0007/TitanSched at f71cf44, ``result/``), FM-1-vit:
#: average JCT (h, the mean of completion_time - submission_time, their
#: plot/draw_ckpt.py's cal_jct), makespan (h, last completion), jobs, jobs that finished
#: inside a merged ("mtask_") job by titan_logs.json, and the merged units of other kinds
#: (transfer_, temporal_transfer_) in that log
THEIR_RESULTS = {
    "merger": {"file": "result/ckpt/FM-1-vit/30/titan.csv", "avg_jct_h": 0.22646,
               "makespan_h": 8.5768, "jobs": 320, "merged_jobs": 134, "other_units": 0},
    "no merger": {"file": "result/main/titan/FM-1-vit-False-True/titan.csv",
                  "avg_jct_h": 0.38136, "makespan_h": 8.7537, "jobs": 320,
                  "merged_jobs": 0, "other_units": 0},
}


def _seeds(size: str, seeds: int | None) -> int:
    """One seed at either size: at the full size the authors' files are fixed, and the
    small size's 40 jobs only exercise the page."""
    return 1 if seeds is None else int(seeds)


def _base(size: str, **extra) -> dict:
    check_size(size)
    return ({"setup": "authors_code", "workload": "authors"}
            | ({"jobs": 40} if size == "small" else {}) | extra)


def _sweep(name: str, size: str, seeds, description: str, base: dict, axes: dict,
           algorithms: list[str], options: dict | None = None, label: str = "") -> Sweep:
    decl = {"name": f"titan_authors_{name}_{size}", "system": "titan",
            "description": description, "base": base, "axes": axes,
            "algorithms": algorithms, "seeds": _seeds(size, seeds)}
    if options:
        decl["options"] = options
    if label:  # how lorasched reproduce's report names its cells beside the policy
        decl["label"] = label
    return Sweep.from_dict(decl)


def _paper_slice(size: str, seeds) -> dict:
    """The shared sweep's (:func:`declaration`) cells of the authors' workload at density
    1, the only ones the page reads: the same cells as Table 3's, so computed once."""
    decl = declaration(size, seeds)
    return decl | {"name": f"titan_authors_paper_{size}",
                   "axes": {"workload": ["authors"], "density": [1.0]}}


def _ladder_step(k: int) -> tuple[dict, dict]:
    """The cumulative base and options of ladder step ``k`` (1..6)."""
    base, options = {}, {}
    for _, b, o in LADDER[1:k + 1]:
        base |= b
        for alg, opts in o.items():
            options[alg] = options.get(alg, {}) | opts
    return base, options


class AuthorsSetup(TitanFigure):
    key, number = "authors", "Authors' setup"
    quotes = True
    title = "TITAN as the authors' code runs it"
    variant_column = "workload"
    page = "titan_authors"
    #: its claims are about JCTs: the runs' measured times stay out of its data file
    unpublished = ("solve_time_mean", "solve_time_max", "wall_seconds")

    @staticmethod
    def merger_parts() -> pd.DataFrame:
        """Each part of the task merger and the switch: in the paper, in the authors'
        simulator as their checkpoint sweep ran it (``run/exp_cluster/
        fast_batch_run_ckpt.sh``: ``--schedule=titan --multi_task_adaptivity=True
        --temporal_transferability=True --transferability=True --add_ckpt=30``), and in
        lorasched's readings, with the evidence (file and function at f71cf44)."""
        rows = [
            ("merge candidates", "jobs whose datasets share semantics (dataset cards, "
             "sec. 4.2)",
             "pairs of never-started jobs of different datasets among the 32 the MILP sees, "
             "kept when reweight = (L_A + L_B + min) / (2 L_A) >= 1.1, then >= log10(rows) "
             "+ 0.1 (alg/scheduler/titan_mtask.py, mtask_builder)",
             "pairs of one application, neighbours by length",
             "as the authors' simulator", "as the authors' simulator"),
            ("merged job's length", "measured (Table 2)",
             "the samples of model A alone, the job of the dataset earlier in their list "
             "of datasets: max_progress is copied from model A, the line setting it is "
             "commented out; it runs at the two batches summed (target_batch_size) "
             "(client/job/foundation_model.py, MtaskFoundationModelJob)",
             "the authors' log law of dataset scale",
             "as the authors' simulator", "as the authors' simulator"),
            ("merged job's value in the MILP", "progress rate times (1 + |mj|) / 2, eq. (5)",
             "FAIR cost (METHOD = \"FAIR\", power = -1, minimised) divided by reweight, "
             "the remaining time that of the last pending job the loop left in `job`; "
             "left out it costs 2 x 10^4 (base_weight_scale 0.5) (titan_mtask.py, "
             "titan_solver.py)", "eq. (5) on eq. (1)'s rates", "eq. (5) on eq. (1)'s rates",
             "the authors' FAIR cost, as in their code"),
            ("transfer (a job started from a finished one's weights)", "not in the paper",
             "off: main.py does not pass --transferability to TitanScheduler "
             "(kwargs.get('transferability', False))", "none", "none", "none"),
            ("temporal transfer (two jobs one after the other)", "not in the paper",
             "built every tick, never run: no temporal_transfer_ job in titan_logs.json "
             "(its step() reads an unassigned placement, so a run would have failed)",
             "none", "none", "none"),
            ("pipeline switch", "sec. 4.3, Fig. 3",
             "off: reallocate() sets kwargs['pipeline'] = False; every start pays the "
             "model's context switch plus add_ckpt = 30 s (client/job/foundation_model.py)",
             "off (the setup's restart)", "off", "off"),
        ]
        return pd.DataFrame(rows, columns=["part", "in the paper",
                                           "in the authors' simulator as run",
                                           "lorasched's TITAN", "lorasched, the authors' "
                                           "merge rules", "lorasched, the merger as run"])

    def against_their_results(self, data) -> pd.DataFrame:
        """FM-1-vit: TITAN's average JCT and makespan in the authors' result files beside
        lorasched's readings of their merger (geometric mean over seeds, job counts the
        mean; the files hold the whole workload, so only the ``"full"`` size compares like
        with like)."""
        base = data["authors"].sel(model=_VIT, density=1.0)
        fair = data["fair"].sel(model=_VIT, density=1.0, algorithm="titan_nomerge")
        theirs = THEIR_RESULTS
        rows = []
        for label, ds, ref in (
                ("lorasched's TITAN (its merger, eq. (1))", base.sel(algorithm="titan"),
                 "merger"),
                ("lorasched, the authors' merge rules (eq. (1))",
                 data["merge_authors"].sel(algorithm="titan"), "merger"),
                ("lorasched, the merger as run (the authors' merge rules and objective)",
                 data["merge_fair"].sel(algorithm="titan"), "merger"),
                ("lorasched, no merger, the authors' objective", fair, "no merger")):
            jct = centre_of(ds["avg_jct_h"]).mean
            mk = centre_of(ds["makespan_h"]).mean
            rows.append({"TITAN": label, "jobs": num(float(ds["n_jobs"].mean())),
                         "avg JCT (h)": num(jct), "makespan (h)": num(mk),
                         "jobs merged": num(float(ds["n_merged_jobs"].mean())),
                         "their file": theirs[ref]["file"],
                         "their avg JCT (h)": num(theirs[ref]["avg_jct_h"]),
                         "their jobs merged": num(theirs[ref]["merged_jobs"]),
                         "JCT against theirs": pct(100 * (jct / theirs[ref]["avg_jct_h"]
                                                          - 1)),
                         "makespan against theirs": pct(100 * (mk / theirs[ref]["makespan_h"]
                                                               - 1))})
        return pd.DataFrame(rows)

    # ------------------------------------------------------------------ job by job
    #: the job-by-job join (:mod:`.authors_join`), as the page's methods
    differential_workloads = staticmethod(authors_join.workloads)
    differential = staticmethod(authors_join.table)
    behaviours = staticmethod(authors_join.behaviours)
    gap_shares = staticmethod(authors_join.gap_shares)
    differential_findings = staticmethod(authors_join.findings)
    ratios = staticmethod(authors_join.ratios)
    def runs(self, size: str = "small") -> dict[str, Sweep]:
        """TITAN's schedule on ViT jobs in the authors'-code setup, seed 1: the page's
        Gantt chart."""
        check_size(size)
        base = {"model": _VIT, "setup": "authors_code"} | ({"jobs": 40} if size == "small"
                                                           else {})
        return {"gantt": one_run("titan", base, "titan", seed=1, label="Gantt chart",
                                 what="TITAN's schedule of ViT jobs, authors'-code setup")}

    def sweeps(self, size: str = "small", seeds: int | None = None) -> dict[str, Sweep]:
        check_size(size)
        every = {"model": list(MODELS), "density": list(DENSITIES)}
        out = {
            "authors": _sweep("grid", size, seeds, "TITAN and its baselines as the authors' "
                              "code runs them, every workload", _base(size), every, _ALGS),
            "fair": _sweep("fair", size, seeds, "TITAN without the merger under the "
                           "authors' objective", _base(size), every, ["titan_nomerge"],
                           {"titan_nomerge": {"objective": "authors_fair"}}),
            "order": _sweep("order", size, seeds, "FIFO, arrival order, every workload (the "
                            "order a queue is served in)", _base(size), every, ["fifo"],
                            label="reference: arrival order"),
            "ckpt": _sweep("ckpt", size, seeds, "the checkpoint cost swept on FM-1-vit",
                           _base(size, model=_VIT, density=1.0), {"ckpt_s": list(CKPT_S)},
                           _ALGS),
            "merge_authors": _sweep(
                "merge", size, seeds, "TITAN with the authors' code's merge candidates and "
                "merged length, FM-1-vit", _base(size, model=_VIT, density=1.0), {},
                ["titan"], {"titan": {"candidates": "cross_dataset",
                                      "merge_length": "authors"}}),
            "merge_cross": _sweep(
                "mergecross", size, seeds, "TITAN with the authors' code's merge candidates "
                "and lorasched's merged length, FM-1-vit",
                _base(size, model=_VIT, density=1.0), {}, ["titan"],
                {"titan": {"candidates": "cross_dataset"}}),
            "merge_fair": _sweep(
                "mergefair", size, seeds, "TITAN with the authors' code's merger under "
                "their objective, FM-1-vit", _base(size, model=_VIT, density=1.0), {},
                ["titan"], {"titan": dict(MERGE_AS_RUN)}),
            "no_restart_cost": _sweep(
                "norestart", size, seeds, "TITAN's preemptive re-solve without weighing "
                "restarts, FM-1-vit", _base(size, model=_VIT, density=1.0), {},
                list(_TITANS), {a: {"restart_cost": False} for a in _TITANS}),
            # the paper's setup on the authors' workload at density 1: Table 3's cells
            "paper": Sweep.from_dict(_paper_slice(size, seeds)),
        }
        for k in range(1, len(LADDER) - 1):
            b, o = _ladder_step(k)
            out[f"step{k}"] = _sweep(f"step{k}", size, seeds, f"FM-1-{_LADDER_MODEL}, "
                                     f"step {k} towards the paper's setup",
                                     _base(size, model=_LADDER_MODEL, density=1.0) | b, {},
                                     _ALGS, o or None)
        return out

    def describe(self, data) -> str:
        ds = data["authors"]
        jobs = ds["n_jobs"].sel(algorithm="srtf").mean("seed")
        counts = ", ".join(f"FM-{d:g}-{m} {float(jobs.sel(model=m, density=d)):.0f}"
                           for m in ds["model"].values for d in ds["density"].values)
        decl = json.loads(ds.attrs["sweep"])
        gpus = 4 * decl["base"].get("nodes", 8)
        return textwrap.fill(
            f"The TITAN authors' simulator setup (lorasched's setup 'authors_code'): "
            f"{gpus} V100 GPUs, each model on its own LUT, TITAN re-solving every 120 s, "
            f"SRTF and Tiresias every 300 s, every start paying the model's measured "
            f"context switch plus a {AUTHORS_CKPT_S:.0f} s checkpoint. Jobs per workload: "
            f"{counts}. Seeds {', '.join(map(str, ds['seed'].values))}.", width=76)

    # ------------------------------------------------------------------ tables
    def _cell(self, data, policy: str, var: str, **at) -> Estimate:
        if policy == "fair":
            return centre_of(data["fair"][var].sel(algorithm="titan_nomerge", **at))
        return centre_of(data["authors"][var].sel(algorithm=policy, **at))

    def grid(self, data, var: str = "avg_jct_h") -> pd.DataFrame:
        """``var`` (geometric mean over seeds) per workload (rows) and policy (columns)."""
        ds = data["authors"]
        rows = []
        for m in ds["model"].values:
            for d in ds["density"].values:
                at = dict(model=str(m), density=float(d))
                row = {"workload": f"FM-{float(d):g}-{m}",
                       "jobs": int(ds["n_jobs"].sel(algorithm="srtf", **at).mean())}
                for p in POLICIES:
                    row[LABELS[p]] = self._cell(data, p, var, **at).mean
                rows.append(row)
        return pd.DataFrame(rows)

    def side_by_side(self, data) -> pd.DataFrame:
        """FM-1-vit-large (Table 3's workload) in the paper's setup and in the authors',
        with the paper's Table 3 (FMTrace, other jobs)."""
        paper = data["paper"].sel(workload="authors", density=1.0)
        ours = data["authors"].sel(model=_LADDER_MODEL, density=1.0)
        fair = data["fair"].sel(model=_LADDER_MODEL, density=1.0)
        rows = []
        for p in POLICIES:
            if p == "fair":
                a = fair.sel(algorithm="titan_nomerge")
                b = None
            else:
                a = ours.sel(algorithm=p)
                b = paper.sel(algorithm=p)
            rows.append({
                "policy": LABELS[p],
                "paper's setup: avg JCT (h)": None if b is None else
                centre_of(b["avg_jct_h"]).mean,
                "paper's setup: makespan (h)": None if b is None else
                centre_of(b["makespan_h"]).mean,
                "authors' setup: avg JCT (h)": centre_of(a["avg_jct_h"]).mean,
                "authors' setup: makespan (h)": centre_of(a["makespan_h"]).mean,
                "paper's Table 3: avg JCT (h)": PAPER_TABLE3[p][0] if p in PAPER_TABLE3
                else None})
        return pd.DataFrame(rows)

    def ladder(self, data) -> pd.DataFrame:
        """FM-1-vit-large, average JCT (h) of each policy at each step from the authors'
        setup to the paper's (:data:`LADDER`)."""
        parts = ([data["authors"].sel(model=_LADDER_MODEL, density=1.0)]
                 + [data[f"step{k}"] for k in range(1, len(LADDER) - 1)]
                 + [data["paper"].sel(workload="authors", density=1.0)])
        rows = []
        for k, ((label, _, _), ds) in enumerate(zip(LADDER, parts, strict=True)):
            row = {"step": k, "change": label}
            for alg in _ALGS:
                row[LABELS[alg]] = centre_of(ds["avg_jct_h"].sel(algorithm=alg)).mean
            row["TITAN vs SRTF"] = pct(100 * (row["TITAN"] / row["SRTF"] - 1))
            rows.append(row)
        return pd.DataFrame(rows)

    def ckpt_table(self, data, var: str = "avg_jct_h") -> pd.DataFrame:
        """FM-1-vit, ``var`` (default average JCT, h) by checkpoint cost and policy."""
        ds = data["ckpt"]
        rows = []
        for c in ds["ckpt_s"].values:
            row = {"checkpoint (s)": float(c)}
            for alg in _ALGS:
                row[LABELS[alg]] = centre_of(ds[var].sel(algorithm=alg, ckpt_s=c)).mean
            rows.append(row)
        return pd.DataFrame(rows)

    def order_table(self, data) -> pd.DataFrame:
        """SRTF, Tiresias and FIFO (arrival order, non-preemptive, the setup's ticks and
        restarts; ``data["order"]``) on each workload of the grid, average JCT (h, geometric
        mean over seeds): how much of Tiresias' gap to SRTF is the order it serves a queue
        in."""
        ds, fifo = data["authors"], data["order"]
        rows = []
        for m in ds["model"].values:
            for d in ds["density"].values:
                at = dict(model=str(m), density=float(d))
                rows.append({"workload": f"FM-{float(d):g}-{m}",
                             "SRTF": self._cell(data, "srtf", "avg_jct_h", **at).mean,
                             "Tiresias": self._cell(data, "tiresias", "avg_jct_h", **at).mean,
                             "FIFO": centre(fifo["avg_jct_h"].sel(algorithm="fifo",
                                                                  **at).values)})
        return pd.DataFrame(rows)

    def merge_table(self, data) -> pd.DataFrame:
        """FM-1-vit: TITAN with lorasched's merger (the paper's candidates: jobs of one
        application), with the authors' code's reading, and without merging; and TITAN
        without weighing restarts."""
        base = data["authors"].sel(model=_VIT, density=1.0)
        rows = []
        for label, ds, alg in (
                ("TITAN, lorasched's merger (jobs of one application)", base, "titan"),
                ("TITAN, the authors' code's merger (pairs of different datasets, the "
                 "earlier dataset's job's samples at the two batches summed)",
                 data["merge_authors"], "titan"),
                ("TITAN, the authors' code's candidates, lorasched's merged length",
                 data["merge_cross"], "titan"),
                ("TITAN, the merger as the authors' simulator ran it (their candidates, "
                 "length and objective)", data["merge_fair"], "titan"),
                ("TITAN w/o merger", base, "titan_nomerge"),
                ("TITAN, restarts not weighed", data["no_restart_cost"], "titan"),
                ("TITAN w/o merger, restarts not weighed", data["no_restart_cost"],
                 "titan_nomerge")):
            d = ds.sel(algorithm=alg)
            rows.append({"TITAN": label,
                         "avg JCT (h)": centre_of(d["avg_jct_h"]).mean,
                         "makespan (h)": centre_of(d["makespan_h"]).mean,
                         "jobs merged": float(d["n_merged_jobs"].mean()),
                         "starts per job": centre_of(d["starts_per_job"]).mean,
                         "GPU-h switching": centre_of(d["switch_h"]).mean})
        return pd.DataFrame(rows)

    # ------------------------------------------------------------------ claims, prose
    def claim_rows(self, data):
        rows = []
        ds = data["authors"]
        order = self.order_table(data).set_index("workload")
        for m in ds["model"].values:
            for d in ds["density"].values:
                at = dict(model=str(m), density=float(d))
                name = f"FM-{float(d):g}-{m}"
                gpus = {p: centre_of(ds["mean_gpus"].sel(algorithm=p, **at)).mean
                        for p in ("titan", "srtf")}
                merged = float(ds["n_merged_jobs"].sel(algorithm="titan", **at).mean())
                jobs = float(ds["n_jobs"].sel(algorithm="titan", **at).mean())
                fifo = 100 * (order.loc[name, "FIFO"] / order.loc[name, "SRTF"] - 1)
                why = {
                    "jct": f"TITAN runs a job on {num(gpus['titan'])} GPUs on average where "
                           f"SRTF runs it on the {num(gpus['srtf'])} it requested, on a "
                           "cluster of 32 GPUs that every start pays a checkpoint on.",
                    "merger": f"TITAN merges {num(merged)} of {num(jobs)} jobs per run "
                              f"({pct(100 * merged / jobs, sign=False)}): "
                              + ("most jobs run alone, so the merger can move the average "
                                 "JCT little." if merged < jobs / 2 else
                                 "most jobs run merged."),
                    "tiresias": f"FIFO (arrival order, never preempting) is {pct(fifo)} from "
                                "SRTF on this workload: the gap is the order a queue is "
                                "served in, which Tiresias keeps within each queue."}
                for claim, key, values, paper, fmt in (
                        ("TITAN's average JCT against SRTF", "jct",
                         change(ds, "avg_jct_h", "titan", "srtf", **at),
                         paper_change("titan", "srtf"), pct),
                        ("the task merger's share of the JCT reduction", "merger",
                         change(ds, "avg_jct_h", "titan", "titan_nomerge", **at),
                         paper_change("titan", "titan_nomerge"), pct),
                        ("Tiresias about as good as SRTF (average JCT, % of SRTF's)",
                         "tiresias", 100 + change(ds, "avg_jct_h", "tiresias", "srtf", **at),
                         100 + paper_change("tiresias", "srtf"),
                         lambda x: pct(x, sign=False))):
                    row = judged(claim, name, values, paper, fmt=fmt,
                                 scale=RATIO if key == "tiresias" else GAIN,
                                 **({"side": 1} if key == "tiresias" else {}))
                    row["scope"] = BEYOND  # the authors' code's setup: not the paper's
                    if row["verdict"] not in (REPRODUCED, INCONCLUSIVE):
                        row["why"] = why[key]
                    elif row["verdict"] == INCONCLUSIVE:
                        row["why"] += " " + why[key]
                    rows.append(row)
        return rows

    def why(self, data):
        """The bullets, then what the authors' simulator ran of the merger against
        lorasched's readings (FM-1-vit)."""
        t = self.against_their_results(data).set_index("TITAN")
        own, rules, run, nomerge = t.index.tolist()
        return paragraphs(
            self.why_bullets(self.claims(data)),
            f"Beside the authors' own result files (FM-1-vit, a 30 s checkpoint: "
            f"{THEIR_RESULTS['merger']['file']}), lorasched's TITAN's average JCT is "
            f"{t.loc[own, 'JCT against theirs']} from their TITAN's and lorasched's run "
            f"of their merge rules {t.loc[rules, 'JCT against theirs']}; both keep eq. (1) as "
            "the objective. Their simulator ran their merge rules under their own objective "
            "(the table of the merger's parts below); lorasched with the same is "
            f"{t.loc[run, 'JCT against theirs']} from their JCT, and without the merger "
            f"{t.loc[nomerge, 'JCT against theirs']} from their run without it "
            f"({THEIR_RESULTS['no merger']['file']}). This page runs at its own size: the "
            "files hold the whole workload, so only the book's full size compares like "
            "with like.")

    def findings(self, data):
        grid = self.grid(data)
        t, s, r, nm = (LABELS[p] for p in ("titan", "srtf", "tiresias", "titan_nomerge"))
        gain = 100 * (grid[t] / grid[s] - 1)
        merge = 100 * (grid[t] / grid[nm] - 1)
        tir = 100 * (grid[r] / grid[s] - 1)
        vs_srtf = "average JCT against SRTF's over the workloads, %"
        out = [f"Over the {len(grid)} workloads, TITAN's average JCT is "
               f"{quote(f'TITAN: {vs_srtf}, largest', gain.max(), pct)} to "
               f"{quote(f'TITAN: {vs_srtf}, smallest', gain.min(), pct)} against SRTF's (median "
               f"{quote(f'TITAN: {vs_srtf}, median', gain.median(), pct)}; the paper's Table 3: "
               f"{pct(paper_change('titan', 'srtf'))}), and the task merger changes it by "
               + quote("the task merger's change of TITAN's average JCT, %, largest",
                       merge.max(), pct) + " to "
               + quote("the task merger's change of TITAN's average JCT, %, smallest",
                       merge.min(), pct) + " against TITAN without it. "
               f"Tiresias' average JCT is {quote(f'Tiresias: {vs_srtf}, smallest', tir.min(), pct)}"
               f" to {quote(f'Tiresias: {vs_srtf}, largest', tir.max(), pct)} from SRTF's "
               f"(median {quote(f'Tiresias: {vs_srtf}, median', tir.median(), pct)})."]
        lad = self.ladder(data)
        gap = 100 * (lad[r] / lad[s] - 1)
        hi, lo = int(tir.idxmax()), int(tir.abs().idxmin())
        order = self.order_table(data)
        fifo = 100 * (order["FIFO"] / order["SRTF"] - 1)
        gap_name = f"Tiresias' average JCT against SRTF's on FM-1-{_LADDER_MODEL}, %"
        fifo_name = "FIFO's average JCT against SRTF's, %"
        in_theirs, at_64 = gap_name + ", the authors' setup", gap_name + ", 64 GPUs"
        out.append(f"Tiresias' gap to SRTF is largest on {grid['workload'][hi]} "
                   f"({grid['jobs'][hi]} jobs, {pct(tir[hi])}) and smallest on "
                   f"{grid['workload'][lo]} ({grid['jobs'][lo]} jobs, {pct(tir[lo])}); on "
                   f"FM-1-{_LADDER_MODEL} it is "
                   f"{quote(in_theirs, gap.iloc[0], pct)} in the authors' "
                   f"setup and {quote(at_64, gap.iloc[-2], pct)} once the "
                   f"cluster has 64 GPUs (the steps below). FIFO "
                   f"(first in, first out: arrival order, never preempting) is "
                   f"{quote(fifo_name + ', smallest', fifo.min(), pct)} to "
                   f"{quote(fifo_name + ', largest', fifo.max(), pct)} from SRTF on the same "
                   f"workloads (on {grid['workload'][hi]} "
                   + quote(fifo_name + ", " + str(grid["workload"][hi]), fifo[hi], pct)
                   + "): the order "
                   "a queue is served in, which Tiresias keeps within each of its queues.")
        jct = lad[t].to_numpy()
        srtf = lad[s].to_numpy()
        steps = [f"{row.change}: TITAN "
                 + quote(f"{row.change}: TITAN's average JCT change, %",
                         100 * (jct[k] / jct[k - 1] - 1), pct) + ", SRTF "
                 + quote(f"{row.change}: SRTF's average JCT change, %",
                         100 * (srtf[k] / srtf[k - 1] - 1), pct)
                 for k, row in enumerate(lad.itertuples()) if k > 0]
        out.append(f"From the authors' setup to the paper's on FM-1-{_LADDER_MODEL}, one "
                   f"change at a time, each step's effect on the average JCT: "
                   + "; ".join(steps) + f". TITAN against SRTF goes from "
                   f"{lad['TITAN vs SRTF'].iloc[0]} to {lad['TITAN vs SRTF'].iloc[-1]}.")
        ck = self.ckpt_table(data)
        starts = self.ckpt_table(data, "starts_per_job")
        mid = starts["checkpoint (s)"].searchsorted(AUTHORS_CKPT_S)
        per = {alg: np.polyfit(ck["checkpoint (s)"], ck[LABELS[alg]], 1)[0] * 3600
               for alg in _ALGS}
        out.append("On FM-1-vit each second of checkpoint per start adds "
                   + ", ".join(quote(f"{LABELS[a]}'s average JCT per second of checkpoint, "
                                     "s (a fitted slope)", v, seconds) + f" to {LABELS[a]}'s"
                               for a, v in per.items())
                   + " average JCT (slope of a line through the four costs); at the "
                   f"default {seconds(AUTHORS_CKPT_S)} the policies start each job "
                   + ", ".join(f"{num(starts[LABELS[a]].iloc[mid])} ({LABELS[a]})"
                               for a in _ALGS) + " times.")
        mt = self.merge_table(data).set_index("TITAN")
        rows = mt.index.tolist()
        own, theirs, cross, run, nomerge, plain = rows[:6]
        jct = mt["avg JCT (h)"]
        by_candidates, by_length = jct[cross] - jct[own], jct[theirs] - jct[cross]
        out.append(f"With the authors' code's merge rules, TITAN merges "
                   f"{num(mt.loc[theirs, 'jobs merged'])} jobs (lorasched's merger: "
                   f"{num(mt.loc[own, 'jobs merged'])}) and its average JCT is "
                   f"{num(jct[theirs])} h against {num(jct[own])} h ({num(jct[nomerge])} h "
                   f"without merging); with their candidates but lorasched's merged length "
                   f"it is {num(jct[cross])} h, so the candidate rule moves it by "
                   + quote("the authors' candidate rule's change of TITAN's average JCT, h",
                           by_candidates, lambda v: num(v, sign=True))
                   + " h and the length rule (a merged job runs the samples of "
                   "its member of the dataset earlier in their list, at the two batches "
                   "summed) by "
                   + quote("the authors' length rule's change of TITAN's average JCT, h",
                           by_length, lambda v: num(v, sign=True)) + " h. Under "
                   f"the authors' objective as well (the merger as their simulator ran it) it "
                   f"is {num(jct[run])} h with {num(mt.loc[run, 'jobs merged'])} jobs merged. "
                   f"Not weighing restarts, TITAN starts each job "
                   f"{num(mt.loc[plain, 'starts per job'])} times instead of "
                   f"{num(mt.loc[own, 'starts per job'])}, with an average JCT of "
                   f"{num(jct[plain])} h.")
        return paragraphs(*out)
