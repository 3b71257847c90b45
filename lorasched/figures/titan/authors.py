"""TITAN as the authors' code runs it: the setup of their simulator (gaow0007/TitanSched,
f71cf44; :data:`lorasched.titan.scenario.SETUPS`) on all twelve of their workloads, the
checkpoint cost swept, and the distance to the paper's setup taken apart one difference at
a time.

Sweeps (``setup="authors_code"`` unless said):

* ``authors``: every workload ``FM-{density}-{model}`` (4 models x densities 1, 1.5, 2),
  SRTF, Tiresias, TITAN without and with the task merger (lorasched's merger: the paper's
  eq. (1) objective, restarts weighed);
* ``fair``: TITAN without the merger under the objective of the authors' code
  (``objective="authors_fair"``), the configuration their main experiment runs;
* ``ckpt``: FM-1-vit with the checkpoint cost ``add_ckpt`` at 0, 30, 60 and 90 s (the
  authors' ``fast_batch_run_ckpt.sh`` sweep);
* ``step1`` ... ``step5``: FM-1-vit-large, from the authors' setup towards the paper's one
  change at a time (:data:`LADDER`); the paper's setup itself is the shared TITAN sweep's
  density-1 cell (:func:`.common.declaration`), the Table 3 page's numbers;
* ``merge_authors``: FM-1-vit, TITAN with the authors' code's merge candidates and merged
  length (``candidates="cross_dataset"``, ``merge_length="first"``), and ``merge_cross``
  with their candidates but lorasched's length law (which of the two moves the JCT);
* ``no_restart_cost``: FM-1-vit, TITAN's preemptive re-solve without weighing restarts.

The authors' workloads are fixed files, so at ``"full"`` one run per cell says it all
(the policies draw no random numbers); ``"small"`` draws 40 x density jobs of each file
with 2 seeds.
"""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pandas as pd

from ...experiments import Sweep
from ...systems import simulate
from ...titan.lut import MODELS
from ...titan.scenario import AUTHORS_CKPT_S, titan_scenario
from ..base import check_size, paragraphs
from .common import PAPER_TABLE3, TitanFigure, declaration, mean_sd

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


def _seeds(size: str, seeds: int | None) -> int:
    return ({"full": 1, "small": 2}[size]) if seeds is None else int(seeds)


def _base(size: str, **extra) -> dict:
    check_size(size)
    return ({"setup": "authors_code", "workload": "authors"}
            | ({"jobs": 40} if size == "small" else {}) | extra)


def _sweep(name: str, size: str, seeds, description: str, base: dict, axes: dict,
           algorithms: list[str], options: dict | None = None) -> Sweep:
    decl = {"name": f"titan_authors_{name}_{size}", "system": "titan",
            "description": description, "base": base, "axes": axes,
            "algorithms": algorithms, "seeds": _seeds(size, seeds)}
    if options:
        decl["options"] = options
    return Sweep.from_dict(decl)


def _ladder_step(k: int) -> tuple[dict, dict]:
    """The cumulative base and options of ladder step ``k`` (1..5)."""
    base, options = {}, {}
    for _, b, o in LADDER[1:k + 1]:
        base |= b
        for alg, opts in o.items():
            options[alg] = options.get(alg, {}) | opts
    return base, options


class AuthorsSetup(TitanFigure):
    key, number = "authors", "Authors' setup"
    title = "TITAN as the authors' code runs it"
    variant_column = "workload"

    def sweeps(self, size: str = "small", seeds: int | None = None) -> dict[str, Sweep]:
        check_size(size)
        every = {"model": list(MODELS), "density": list(DENSITIES)}
        out = {
            "authors": _sweep("grid", size, seeds, "TITAN and its baselines as the authors' "
                              "code runs them, every workload", _base(size), every, _ALGS),
            "fair": _sweep("fair", size, seeds, "TITAN without the merger under the "
                           "authors' objective", _base(size), every, ["titan_nomerge"],
                           {"titan_nomerge": {"objective": "authors_fair"}}),
            "ckpt": _sweep("ckpt", size, seeds, "the checkpoint cost swept on FM-1-vit",
                           _base(size, model=_VIT, density=1.0), {"ckpt_s": list(CKPT_S)},
                           _ALGS),
            "merge_authors": _sweep(
                "merge", size, seeds, "TITAN with the authors' code's merge candidates and "
                "merged length, FM-1-vit", _base(size, model=_VIT, density=1.0), {},
                ["titan"], {"titan": {"candidates": "cross_dataset",
                                      "merge_length": "first"}}),
            "merge_cross": _sweep(
                "mergecross", size, seeds, "TITAN with the authors' code's merge candidates "
                "and lorasched's merged length, FM-1-vit",
                _base(size, model=_VIT, density=1.0), {}, ["titan"],
                {"titan": {"candidates": "cross_dataset"}}),
            "no_restart_cost": _sweep(
                "norestart", size, seeds, "TITAN's preemptive re-solve without weighing "
                "restarts, FM-1-vit", _base(size, model=_VIT, density=1.0), {},
                list(_TITANS), {a: {"restart_cost": False} for a in _TITANS}),
            # the paper's setup: the shared sweep (Table 3's cells)
            "paper": Sweep.from_dict(declaration(size)),
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
    def _cell(self, data, policy: str, var: str, **at) -> tuple[float, float]:
        if policy == "fair":
            return mean_sd(data["fair"][var].sel(algorithm="titan_nomerge", **at))
        return mean_sd(data["authors"][var].sel(algorithm=policy, **at))

    def grid(self, data, var: str = "avg_jct_h") -> pd.DataFrame:
        """``var`` (mean over seeds) per workload (rows) and policy (columns)."""
        ds = data["authors"]
        rows = []
        for m in ds["model"].values:
            for d in ds["density"].values:
                at = dict(model=str(m), density=float(d))
                row = {"workload": f"FM-{float(d):g}-{m}",
                       "jobs": int(ds["n_jobs"].sel(algorithm="srtf", **at).mean())}
                for p in POLICIES:
                    row[LABELS[p]] = round(self._cell(data, p, var, **at)[0], 3)
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
                round(float(b["avg_jct_h"].mean()), 3),
                "paper's setup: makespan (h)": None if b is None else
                round(float(b["makespan_h"].mean()), 2),
                "authors' setup: avg JCT (h)": round(float(a["avg_jct_h"].mean()), 3),
                "authors' setup: makespan (h)": round(float(a["makespan_h"].mean()), 2),
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
                row[LABELS[alg]] = round(float(ds["avg_jct_h"].sel(algorithm=alg).mean()), 3)
            row["TITAN vs SRTF"] = (f"{-100 * (1 - row['TITAN'] / row['SRTF']):+.1f} %")
            rows.append(row)
        return pd.DataFrame(rows)

    def ckpt_table(self, data, var: str = "avg_jct_h") -> pd.DataFrame:
        """FM-1-vit, ``var`` (default average JCT, h) by checkpoint cost and policy."""
        ds = data["ckpt"]
        rows = []
        for c in ds["ckpt_s"].values:
            row = {"checkpoint (s)": float(c)}
            for alg in _ALGS:
                row[LABELS[alg]] = round(float(ds[var].sel(algorithm=alg,
                                                           ckpt_s=c).mean()), 3)
            rows.append(row)
        return pd.DataFrame(rows)

    def order_table(self, data) -> pd.DataFrame:
        """SRTF, Tiresias and FIFO (arrival order, non-preemptive, the setup's ticks and
        restarts) on each workload of the grid, average JCT (h, mean over seeds): how much
        of Tiresias' gap to SRTF is the order it serves a queue in. FIFO is computed here
        (the job engine runs it in well under a second)."""
        ds = data["authors"]
        base = json.loads(ds.attrs["sweep"])["base"]
        rows = []
        for m in ds["model"].values:
            for d in ds["density"].values:
                fifo = [simulate(titan_scenario(**(base | {"model": str(m),
                                                           "density": float(d),
                                                           "seed": int(seed)})),
                                 "fifo").attrs["avg_jct_h"]
                        for seed in ds["seed"].values]
                at = dict(model=str(m), density=float(d))
                rows.append({"workload": f"FM-{float(d):g}-{m}",
                             "SRTF": round(self._cell(data, "srtf", "avg_jct_h", **at)[0], 3),
                             "Tiresias": round(self._cell(data, "tiresias", "avg_jct_h",
                                                          **at)[0], 3),
                             "FIFO": round(float(np.mean(fifo)), 3)})
        return pd.DataFrame(rows)

    def merge_table(self, data) -> pd.DataFrame:
        """FM-1-vit: TITAN with lorasched's merger (the paper's candidates: jobs of one
        application), with the authors' code's reading, and without merging; and TITAN
        without weighing restarts."""
        base = data["authors"].sel(model=_VIT, density=1.0)
        rows = []
        for label, ds, alg in (
                ("TITAN, lorasched's merger (jobs of one application)", base, "titan"),
                ("TITAN, the authors' code's merger (pairs of different datasets, the first "
                 "member's length)", data["merge_authors"], "titan"),
                ("TITAN, the authors' code's candidates, lorasched's merged length",
                 data["merge_cross"], "titan"),
                ("TITAN w/o merger", base, "titan_nomerge"),
                ("TITAN, restarts not weighed", data["no_restart_cost"], "titan"),
                ("TITAN w/o merger, restarts not weighed", data["no_restart_cost"],
                 "titan_nomerge")):
            d = ds.sel(algorithm=alg)
            rows.append({"TITAN": label,
                         "avg JCT (h)": round(float(d["avg_jct_h"].mean()), 3),
                         "makespan (h)": round(float(d["makespan_h"].mean()), 2),
                         "jobs merged": int(d["n_merged_jobs"].mean()),
                         "starts per job": round(float(d["starts_per_job"].mean()), 2),
                         "GPU-h switching": round(float(d["switch_h"].mean()), 1)})
        return pd.DataFrame(rows)

    # ------------------------------------------------------------------ claims, prose
    def claim_rows(self, data):
        rows = []
        paper_jct = 100 * (1 - PAPER_TABLE3["titan"][0] / PAPER_TABLE3["srtf"][0])
        paper_merge = 100 * (1 - PAPER_TABLE3["titan"][0] / PAPER_TABLE3["titan_nomerge"][0])
        ds = data["authors"]
        for m in ds["model"].values:
            for d in ds["density"].values:
                at = dict(model=str(m), density=float(d))
                name = f"FM-{float(d):g}-{m}"
                jct = {p: self._cell(data, p, "avg_jct_h", **at)[0] for p in _ALGS}
                for claim, better, worse, paper in (
                        ("TITAN's average JCT against SRTF", "titan", "srtf", paper_jct),
                        ("the task merger's share of the JCT reduction", "titan",
                         "titan_nomerge", paper_merge)):
                    ours = 100 * (1 - jct[better] / jct[worse])
                    rows.append({"claim": claim, "variant": name, "paper": f"-{paper:.0f} %",
                                 "ours": f"{-ours:+.1f} %",
                                 "verdict": "agrees" if ours > 0 else "disagrees"})
                gap = 100 * (jct["tiresias"] / jct["srtf"] - 1)
                rows.append({"claim": "Tiresias about as good as SRTF (average JCT)",
                             "variant": name, "paper": "1.67 h vs 1.68 h",
                             "ours": f"{gap:+.1f} %",
                             "verdict": "agrees" if abs(gap) <= 10 else "disagrees"})
        return rows

    def findings(self, data):
        grid = self.grid(data)
        t, s, r, nm = (LABELS[p] for p in ("titan", "srtf", "tiresias", "titan_nomerge"))
        gain = 100 * (1 - grid[t] / grid[s])
        merge = 100 * (1 - grid[t] / grid[nm])
        tir = 100 * (grid[r] / grid[s] - 1)
        out = [f"Over the {len(grid)} workloads, TITAN's average JCT is "
               f"{gain.min():.0f} to {gain.max():.0f} % below SRTF's (median "
               f"{gain.median():.0f} %; the paper's Table 3: "
               f"{100 * (1 - PAPER_TABLE3['titan'][0] / PAPER_TABLE3['srtf'][0]):.0f} %), "
               f"and the task merger takes {merge.min():.0f} to {merge.max():.0f} % off "
               f"TITAN without it. Tiresias' average JCT is {tir.min():+.0f} to "
               f"{tir.max():+.0f} % from SRTF's (median {tir.median():+.0f} %)."]
        lad = self.ladder(data)
        gap = 100 * (lad[r] / lad[s] - 1)
        hi, lo = int(tir.idxmax()), int(tir.idxmin())

        order = self.order_table(data)
        fifo = 100 * (order["FIFO"] / order["SRTF"] - 1)
        out.append(f"Tiresias' gap to SRTF follows the load: it is largest on "
                   f"{grid['workload'][hi]} ({grid['jobs'][hi]} jobs, {tir[hi]:+.0f} %) and "
                   f"smallest on {grid['workload'][lo]} ({grid['jobs'][lo]} jobs, "
                   f"{tir[lo]:+.0f} %); on FM-1-{_LADDER_MODEL} it is {gap.iloc[0]:+.1f} % "
                   f"in the authors' setup and {gap.iloc[-2]:+.1f} % once the cluster has "
                   f"64 GPUs (the steps below). It is the order a queue is served in: FIFO "
                   f"(arrival order, never preempting) is {fifo.min():+.0f} to "
                   f"{fifo.max():+.0f} % from SRTF on the same workloads (on "
                   f"{grid['workload'][hi]} {fifo[hi]:+.0f} %), and Tiresias, which serves "
                   f"each of its queues in arrival order, starts a job about once (the "
                   f"checkpoint paragraph below).")
        jct = lad[t].to_numpy()
        srtf = lad[s].to_numpy()
        steps = [f"{row.change}: TITAN {100 * (jct[k] / jct[k - 1] - 1):+.0f} %, SRTF "
                 f"{100 * (srtf[k] / srtf[k - 1] - 1):+.0f} %"
                 for k, row in enumerate(lad.itertuples()) if k > 0]
        out.append(f"From the authors' setup to the paper's on FM-1-{_LADDER_MODEL}, one "
                   f"change at a time, each step's effect on the average JCT: "
                   + "; ".join(steps) + f". TITAN's lead over SRTF goes from "
                   f"{lad['TITAN vs SRTF'].iloc[0]} to {lad['TITAN vs SRTF'].iloc[-1]}.")
        ck = self.ckpt_table(data)
        starts = self.ckpt_table(data, "starts_per_job")
        mid = starts["checkpoint (s)"].searchsorted(AUTHORS_CKPT_S)
        per = {alg: np.polyfit(ck["checkpoint (s)"], ck[LABELS[alg]], 1)[0] * 3600
               for alg in _ALGS}
        out.append("On FM-1-vit each second of checkpoint per start adds "
                   + ", ".join(f"{v:.1f} s to {LABELS[a]}'s" for a, v in per.items())
                   + " average JCT (slope of a line through the four costs); at the "
                   f"default {AUTHORS_CKPT_S:.0f} s the policies start each job "
                   + ", ".join(f"{starts[LABELS[a]].iloc[mid]:.2f} ({LABELS[a]})"
                               for a in _ALGS) + " times.")
        mt = self.merge_table(data).set_index("TITAN")
        rows = mt.index.tolist()
        own, theirs, cross, nomerge, plain = rows[0], rows[1], rows[2], rows[3], rows[4]
        jct = mt["avg JCT (h)"]
        by_candidates, by_length = jct[cross] - jct[own], jct[theirs] - jct[cross]
        out.append(f"With the authors' code's merger, TITAN merges "
                   f"{mt.loc[theirs, 'jobs merged']} jobs (lorasched's: "
                   f"{mt.loc[own, 'jobs merged']}) and its average JCT is "
                   f"{mt.loc[theirs, 'avg JCT (h)']:.3f} h against "
                   f"{mt.loc[own, 'avg JCT (h)']:.3f} h ("
                   f"{mt.loc[nomerge, 'avg JCT (h)']:.3f} h without merging); with their "
                   f"candidates but lorasched's merged length it is "
                   f"{mt.loc[cross, 'avg JCT (h)']:.3f} h, so the difference between the "
                   f"two candidate rules is {by_candidates:+.3f} h "
                   f"and the length rule (there a merged job lasts as long as its first "
                   f"member alone) {by_length:+.3f} h. "
                   f"Not weighing restarts, TITAN starts each job "
                   f"{mt.loc[plain, 'starts per job']:.2f} times instead of "
                   f"{mt.loc[own, 'starts per job']:.2f}, with an average JCT of "
                   f"{mt.loc[plain, 'avg JCT (h)']:.3f} h.")
        return paragraphs(*out)
