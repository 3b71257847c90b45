"""Table 3: average JCT and makespan of TITAN, its ablations and the baselines (density 1),
TITAN under each other reading, and the switch cost swept."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from ...experiments import Sweep
from ..base import check_size, paragraphs
from ..causes import Intervention, line
from ..centres import centre
from ..inventory import cite
from ..numbers import num, pct, quote
from ..runs import one_run
from ..verdicts import (
    COMPARED,
    CONSISTENT,
    CONTRADICTED,
    GAIN,
    INCONCLUSIVE,
    LINEAR,
    MAGNITUDE_OFF,
    RATIO,
    REPRODUCED,
    estimate,
)
from .common import (
    NAMES,
    PAPER_TABLE3,
    READINGS,
    WORKLOADS,
    TitanFigure,
    base,
    by_claim,
    cell,
    centre_of,
    change,
    fixed_trace,
    fmt,
    judged,
    ours,
    paper_change,
    readings_declaration,
    said,
    switch_declaration,
    switch_free_declaration,
)


class Table3(TitanFigure):
    key, number, title = "table3", "Table 3", "Average JCT and makespan at density 1"
    quotes = True
    #: the claims against the paper's Table 3: key -> (claim, variable, policy, against,
    #: the paper's column)
    CLAIMS = {
        "jct": ("TITAN's average JCT against SRTF", "avg_jct_h", "titan", "srtf", 0),
        "makespan": ("TITAN's makespan against SRTF", "makespan_h", "titan", "srtf", 1),
        # "compared to baseline schedulers": Tiresias as well as SRTF
        "jct_tiresias": ("TITAN's average JCT against Tiresias", "avg_jct_h", "titan",
                         "tiresias", 0),
        "makespan_tiresias": ("TITAN's makespan against Tiresias", "makespan_h", "titan",
                              "tiresias", 1),
        "merger": ("the task merger's share of the JCT reduction", "avg_jct_h", "titan",
                   "titan_nomerge", 0),
        "switch": ("the pipeline switch's share of the JCT reduction", "avg_jct_h", "titan",
                   "titan_noswitch", 0)}
    TIRESIAS = "Tiresias about as good as SRTF (average JCT, % of SRTF's)"
    #: the part of the paper's sentence each claim answers (the claims inventory)
    SENTENCES = {"jct": cite("5d", "JCT, SRTF"), "makespan": cite("5d", "makespan, SRTF"),
                 "jct_tiresias": cite("5d", "JCT, Tiresias"),
                 "makespan_tiresias": cite("5d", "makespan, Tiresias"),
                 "merger": cite("5e", "merger"), "switch": cite("5e", "switch"),
                 "tiresias": cite("5c")}

    def runs(self, size: str = "small") -> dict[str, Sweep]:
        """TITAN's schedule of the authors' workload, seed 1: the page's Gantt chart."""
        return {"gantt": one_run("titan", {"workload": "authors", **base(size)}, "titan",
                                 seed=1, label="Gantt chart",
                                 what="TITAN's schedule of the authors' workload")}

    def sweeps(self, size: str = "small", seeds: int | None = None) -> dict[str, Sweep]:
        """The shared sweep, plus TITAN at density 1 under each other reading, with the
        switch costs scaled, and SRTF and Tiresias without switch costs (the
        counterfactual of :meth:`switch_effect`)."""
        check_size(size)
        out = super().sweeps(size, seeds)
        for reading in READINGS:
            out[reading] = Sweep.from_dict(readings_declaration(size, reading, seeds))
        out["switch"] = Sweep.from_dict(switch_declaration(size, seeds))
        out["switch_free"] = Sweep.from_dict(switch_free_declaration(size, seeds))
        return out

    def switch_table(self, data) -> pd.DataFrame:
        """Average JCT of TITAN with the pipelined and with the naive switch, the switch
        costs scaled (0: free switches; 1: the measured ones), and the pipeline switch's
        share of TITAN's JCT, by workload."""
        sw = data["switch"]
        rows = []
        for wl in sw["workload"].values:
            for scale in sw["switch_scale"].values:
                at = dict(workload=str(wl), switch_scale=float(scale))
                pipe = cell(sw, "avg_jct_h", algorithm="titan", **at)
                naive = cell(sw, "avg_jct_h", algorithm="titan_noswitch", **at)
                rows.append({"workload": WORKLOADS[str(wl)], "switch cost x": float(scale),
                             "TITAN (h)": fmt(pipe), "TITAN w/o pipeline switch (h)": fmt(naive),
                             "pipeline switch's share":
                                 f"{100 * (1 - pipe.mean / naive.mean):.1f} %"})
        return pd.DataFrame(rows)

    def describe(self, data) -> str:
        return super().describe(data["titan"])

    def readings(self, data) -> pd.DataFrame:
        """TITAN at density 1 under lorasched's reading and under each other one: average
        JCT, makespan, utilisation and mean GPUs per job (the geometric mean over seeds and its
        95 % interval)."""
        ds = data["titan"]
        rows = []
        for wl in ds["workload"].values:
            wl = str(wl)
            parts = [("lorasched's (default)", ds.sel(algorithm="titan", density=1.0,
                                                       workload=wl))]
            parts += [(READINGS[r][2], data[r].sel(algorithm="titan", workload=wl))
                      for r in READINGS]
            for label, d in parts:
                rows.append({"workload": WORKLOADS[wl], "reading": label,
                             "avg JCT (h)": fmt(cell(d, "avg_jct_h")),
                             "makespan (h)": fmt(cell(d, "makespan_h")),
                             "GPU utilisation": fmt(cell(d, "utilisation")),
                             "GPUs per job": fmt(cell(d, "mean_gpus")),
                             "jobs merged": f"{cell(d, 'n_merged_jobs', LINEAR).mean:.0f}"})
        return pd.DataFrame(rows)

    page = "titan_table3"

    def _why(self, data, wl: str, claim: str) -> str:
        """The measured reason a Table 3 row differs from the paper, on workload ``wl``."""
        ds = data["titan"]
        at = dict(workload=wl, density=1.0)
        if claim in ("jct_tiresias", "makespan_tiresias"):
            var = "avg_jct_h" if claim == "jct_tiresias" else "makespan_h"
            what = "average JCT" if claim == "jct_tiresias" else "makespan"
            vs_srtf = estimate(change(ds, var, "titan", "srtf", **at), GAIN).mean
            tir = estimate(change(ds, var, "tiresias", "srtf", **at), GAIN).mean
            return (f"Against Tiresias the change compounds two of this table's rows: "
                    f"TITAN's {what} changes by {pct(vs_srtf)} against SRTF's, and "
                    f"Tiresias' {what} by {pct(tir)} against SRTF's (geometric means over "
                    "seeds); each of those rows gives its measured reason.")
        if claim == "makespan":
            util = {a: cell(ds, "utilisation", algorithm=a, **at).mean for a in ("titan", "srtf")}
            pre = data["preemptive"].sel(algorithm="titan", workload=wl)
            pre_mk = 100 * (centre_of(pre["makespan_h"]).mean
                            / cell(ds, "makespan_h", algorithm="srtf", **at).mean - 1)
            return (f"The GPUs are busy {pct(100 * util['titan'], sign=False)} of TITAN's "
                    f"makespan against {pct(100 * util['srtf'], sign=False)} of SRTF's: a "
                    "non-preemptive job keeps the allocation it started on, and the last jobs "
                    "finish on few GPUs of an emptying cluster; re-allocating running jobs "
                    f"(the preemptive reading) gives a makespan {pct(pre_mk)} against SRTF.")
        if claim == "merger":
            merged = cell(ds, "n_merged_jobs", LINEAR, algorithm="titan", **at).mean
            jobs = cell(ds, "n_jobs", LINEAR, algorithm="titan", **at).mean
            return (f"TITAN merges {num(merged)} of {num(jobs)} jobs per run "
                    f"({pct(100 * merged / jobs, sign=False)}): "
                    + ("most jobs run alone under lorasched's merged length (the authors' "
                       "log law), so the merger can move the average JCT little."
                       if merged < jobs / 2 else "most jobs run merged."))
        sw = data["switch"].sel(workload=wl)
        naive = cell(sw, "switch_h", algorithm="titan_noswitch", switch_scale=1.0).mean
        share = {float(x): 100 * (cell(sw, "avg_jct_h", algorithm="titan", switch_scale=x).mean
                                  / cell(sw, "avg_jct_h", algorithm="titan_noswitch",
                                         switch_scale=x).mean - 1)
                 for x in sw["switch_scale"].values if x > 0}
        top = max(share)
        return (f"Without the pipeline, TITAN spends {num(naive)} GPU-hours switching per "
                f"run; the pipeline's effect grows with the switch cost: {pct(share[1.0])} at "
                f"the measured costs, {pct(share[top])} at {num(top)} times them.")

    def claim_rows(self, data):
        ds = data["titan"]
        rows = []
        for wl in ds["workload"].values:
            wl = str(wl)
            name = WORKLOADS[wl]
            at = dict(workload=wl, density=1.0)
            one = fixed_trace(ds, wl, 1.0)  # the authors' file: one run, repeated
            for key, (claim, var, better, worse, col) in self.CLAIMS.items():
                row = judged(claim, name, change(ds, var, better, worse, **at),
                             paper_change(better, worse, col), scale=GAIN, one=one)
                row["sentence"] = self.SENTENCES[key]
                if row["verdict"] not in (REPRODUCED, INCONCLUSIVE):
                    row["why"] = self._why(data, wl, key)
                elif row["verdict"] == INCONCLUSIVE and key != "jct":
                    row["why"] += " " + self._why(data, wl, key)
                rows.append(row)
            ratio = 100 + change(ds, "avg_jct_h", "tiresias", "srtf", **at)
            paper = 100 * PAPER_TABLE3["tiresias"][0] / PAPER_TABLE3["srtf"][0]
            row = judged(self.TIRESIAS, name, ratio, paper, fmt=lambda x: pct(x, sign=False),
                         scale=RATIO, threshold=0.0, side=1, one=one)
            row["sentence"] = self.SENTENCES["tiresias"]
            if row["verdict"] not in (REPRODUCED, INCONCLUSIVE):
                row["why"] = self._tiresias_why(data, wl)
            elif row["verdict"] == INCONCLUSIVE:
                row["why"] += " " + self._tiresias_why(data, wl)
            rows.append(row)
        return rows

    def _tiresias_why(self, data, wl: str) -> str:
        """Why Tiresias trails SRTF on workload ``wl``, measured: the GPU-hours its
        preemptions spend switching, and both policies' average JCT re-run without any
        switch cost, which splits the gap into the switches' part and the order's."""
        ds = data["titan"]
        at = dict(workload=wl, density=1.0)
        sw = {a: cell(ds, "switch_h", algorithm=a, **at).mean for a in ("tiresias", "srtf")}
        gap = estimate(change(ds, "avg_jct_h", "tiresias", "srtf", **at), GAIN).mean  # as judged
        e = self.switch_effect(data)
        e = e[e["workload"] == WORKLOADS[wl]]
        none = {a: e[f"{NAMES[a]}, none switch (h)"].to_numpy() for a in ("tiresias", "srtf")}
        free = {a: centre(v) for a, v in none.items()}
        order = estimate(100 * (none["tiresias"] / none["srtf"] - 1), GAIN).mean  # per seed
        per_seed = 100 + change(ds, "avg_jct_h", "tiresias", "srtf", **at)
        jct = {a: cell(ds, "avg_jct_h", algorithm=a, **at).mean for a in ("tiresias", "srtf")}
        if gap <= 0.05:  # no excess to split: what is wide is the seeds' spread
            return (f"Tiresias is not behind SRTF here: its average JCT is {num(jct['tiresias'])} "
                    f"h against SRTF's {num(jct['srtf'])} h (geometric means), and per seed it is "
                    f"{pct(float(per_seed.min()), sign=False)} to "
                    f"{pct(float(per_seed.max()), sign=False)} of SRTF's: the seeds' spread, "
                    "not a gap, keeps the interval wider than the band.")
        return (f"Tiresias preempts: it spends {num(sw['tiresias'])} GPU-hours switching "
                f"against SRTF's {num(sw['srtf'])}. Re-run with no switch cost, Tiresias' "
                f"average JCT is {num(free['tiresias'])} h and SRTF's {num(free['srtf'])} h, "
                f"so of Tiresias' {pct(gap, sign=False)} excess over SRTF, "
                f"{pct(order, sign=False)} remains without switches: it comes from the "
                "order itself (SRTF knows every job's remaining time exactly, Tiresias only "
                "the service a job has had), the rest from the switches.")

    #: the counterfactual each row's why implies: claim key -> what it runs
    COUNTERFACTUALS = {
        "makespan": Intervention(
            "running jobs re-allocated", "TITAN re-allocates running jobs at each event (the "
            "preemptive reading), so the last jobs need not finish on the few GPUs they "
            "started on; the paper's TITAN does not preempt", changes_algorithm=True),
        "makespan_tiresias": Intervention("running jobs re-allocated",
                                          "as above, against Tiresias",
                                          changes_algorithm=True),
        "switch": Intervention(
            "switch costs at the sweep's largest scale", "the switch costs scaled up to the "
            "sweep's largest (SWITCH_SCALES), where a pipelined switch saves most"),
        "tiresias": Intervention("no switch cost", "Tiresias and SRTF re-run with free "
                                 "context switches (the preemptions' cost removed)"),
        # against Tiresias the why compounds two rows; Tiresias' excess is the one a run
        # can take away
        "jct_tiresias": Intervention("Tiresias with no switch cost", "TITAN against "
                                     "Tiresias re-run with free context switches"),
    }

    def _counterfactual_values(self, data, wl: str, key: str) -> np.ndarray:
        """Per seed, the quantity of claim ``key`` on workload ``wl`` in its
        counterfactual (:attr:`COUNTERFACTUALS`), as the claim's test takes it."""
        ds = data["titan"]
        at = dict(workload=wl, density=1.0)
        if key in ("makespan", "makespan_tiresias"):
            worse = "srtf" if key == "makespan" else "tiresias"
            pre = data["preemptive"].sel(algorithm="titan", workload=wl)["makespan_h"]
            base = ds["makespan_h"].sel(algorithm=worse, **at)
            return 100.0 * (pre.values / base.sel(seed=pre["seed"]).values - 1.0)
        if key == "switch":
            sw = data["switch"].sel(workload=wl)
            top = float(sw["switch_scale"].max())
            return change(sw, "avg_jct_h", "titan", "titan_noswitch", switch_scale=top)
        e = self.switch_effect(data)
        e = e[e["workload"] == WORKLOADS[wl]]
        free = e[f"{NAMES['tiresias']}, none switch (h)"].to_numpy()
        if key == "jct_tiresias":
            titan = ds["avg_jct_h"].sel(algorithm="titan", **at).sel(seed=e["seed"].to_numpy())
            return 100.0 * (titan.values / free - 1.0)
        return 100.0 * free / e[f"{NAMES['srtf']}, none switch (h)"].to_numpy()

    def causes(self, data) -> pd.DataFrame:
        """Each row of this table in the paper's setting that is not reproduced (and has a
        number to compare), judged again on the counterfactual its why implies
        (:attr:`COUNTERFACTUALS`) with the same test, and the effect
        (:func:`~..causes.effect`); "none run here" where this page has no run for it."""
        claims = {c[0]: k for k, c in self.CLAIMS.items()} | {self.TIRESIAS: "tiresias"}
        out = []
        for r in self.claim_rows(data):
            if (r["variant"] != WORKLOADS["helios"] or r["verdict"] not in COMPARED
                    or r["verdict"] == REPRODUCED):
                continue
            key = claims[r["claim"]]
            if key not in self.COUNTERFACTUALS:
                out.append(line(r))
                continue
            values = self._counterfactual_values(data, "helios", key)
            if key == "tiresias":
                after = judged(r["claim"], r["variant"], values, r["paper_value"],
                               fmt=r["fmt"], scale=RATIO, threshold=0.0, side=1)
            else:
                after = judged(r["claim"], r["variant"], values, r["paper_value"],
                               scale=GAIN)
            what = self.COUNTERFACTUALS[key]
            if key == "switch":
                what = replace(what, label=f"switch costs "
                               f"{num(float(data['switch']['switch_scale'].max()))} times "
                               "the measured")
            out.append(line(r, what, after))
        return pd.DataFrame(out)

    def switch_effect(self, data) -> pd.DataFrame:
        """Tiresias and SRTF at density 1 with the naive switch (the shared sweep's runs)
        and with none (the counterfactual's, ``data["switch_free"]``), per workload and
        seed: how much of Tiresias' gap to SRTF its preemptions' switches explain."""
        ds, free = data["titan"], data["switch_free"]
        rows = []
        for wl in ds["workload"].values:
            for seed in ds["seed"].values:
                row = {"workload": WORKLOADS[str(wl)], "seed": int(seed)}
                at = dict(workload=str(wl), seed=int(seed))
                for alg in ("srtf", "tiresias"):
                    for switch, runs in (("naive", ds.sel(density=1.0)), ("none", free)):
                        row[f"{NAMES[alg]}, {switch} switch (h)"] = float(
                            runs["avg_jct_h"].sel(algorithm=alg, **at))
                rows.append(row)
        return pd.DataFrame(rows)

    @staticmethod
    def _change_said(row: dict, what: str, against: str) -> str:
        """``what`` (a quantity of TITAN) against ``against``, its paired change per seed
        said from its claims row's test."""
        o, p = ours(row), row["paper"]
        return said(row, "", {
            REPRODUCED: f"{what} changes by {o} against {against}, inside the band of the "
                        f"paper's {p}, as the paper reports",
            CONSISTENT: f"{what} changes by {o} against {against}, consistent with the "
                        f"paper's {p} but not yet decided: the seeds' interval is wider "
                        "than the band",
            MAGNITUDE_OFF: f"{what} changes by {o} against {against}: the magnitude differs "
                           f"from the paper's {p}",
            CONTRADICTED: f"unlike the paper's {p}, {what} changes by {o} against "
                          f"{against}",
            INCONCLUSIVE: f"{what} changes by {o} against {against} on average; against "
                          f"the paper's {p} the seeds cannot tell"})

    def findings(self, data):
        ds = data["titan"]
        rows = by_claim(self.claim_rows(data))
        effect = (self.switch_effect(data).drop(columns="seed")
                  .groupby("workload", sort=False).agg(centre))
        out = []
        for wl in ds["workload"].values:
            wl = str(wl)
            name = WORKLOADS[wl]
            row = {k: rows[(c[0], name)] for k, c in self.CLAIMS.items()}
            at = dict(workload=wl, density=1.0)
            jct = {a: cell(ds, "avg_jct_h", algorithm=a, **at).mean for a in NAMES}
            order = sorted(jct, key=jct.get)
            util = {a: cell(ds, "utilisation", algorithm=a, **at).mean for a in ("titan", "srtf")}
            sw = {a: cell(ds, "switch_h", algorithm=a, **at).mean for a in ("tiresias", "srtf")}
            pre = data["preemptive"].sel(algorithm="titan", workload=wl)
            e = effect.loc[name]
            text = (f"On the {name}, the average JCT ranks "
                    + ", ".join(f"{NAMES[a]} {jct[a]:.2f} h" for a in order)
                    + " (geometric means over seeds). Paired on the seed, "
                    + self._change_said(row["jct"], "TITAN's average JCT", "SRTF's")
                    + "; " + self._change_said(row["makespan"], "its makespan", "SRTF's")
                    + f". The GPUs are busy {100 * util['titan']:.0f} % of the makespan "
                    f"under TITAN and {100 * util['srtf']:.0f} % under SRTF.")
            if row["makespan"]["estimate"].mean > 0:
                text += (" Re-allocating running jobs (the authors' later code) gives a "
                         f"makespan of {centre_of(pre['makespan_h']).mean:.2f} h with "
                         f"{100 * centre_of(pre['utilisation']).mean:.0f} % busy GPUs and "
                         f"{centre_of(pre['mean_gpus']).mean:.1f} GPUs per job against "
                         f"{cell(ds, 'mean_gpus', algorithm='titan', **at).mean:.1f}: without "
                         "it a job keeps the allocation it started on, however many GPUs "
                         "free up later, and the last jobs finish on few GPUs of an "
                         "emptying cluster.")
            text += (" Against the ablations, paired on the seed, "
                     + self._change_said(row["merger"], "TITAN's average JCT",
                                         "TITAN's without the task merger")
                     + "; "
                     + self._change_said(row["switch"], "it", "TITAN's without the pipeline "
                                         "switch")
                     + ".")
            tiresias = rows[(self.TIRESIAS, name)]
            t = ours(tiresias)
            text += " " + said(tiresias, "", {
                REPRODUCED: f"Tiresias' average JCT is {t} of SRTF's, about as good, as the "
                            "paper reports",
                CONSISTENT: f"Tiresias' average JCT is {t} of SRTF's, consistent with the "
                            f"paper's {tiresias['paper']} but not yet decided",
                MAGNITUDE_OFF: f"Tiresias' average JCT is {t} of SRTF's: the magnitude "
                               f"differs from the paper's {tiresias['paper']}",
                CONTRADICTED: f"Unlike the paper's {tiresias['paper']}, Tiresias' average "
                              f"JCT is {t} of SRTF's",
                INCONCLUSIVE: f"Tiresias' average JCT is {t} of SRTF's on average; against "
                              f"the paper's {tiresias['paper']} the seeds cannot tell"}) + "."
            text += (f" Tiresias spends {sw['tiresias']:.1f} GPU-hours switching against "
                     f"SRTF's {sw['srtf']:.1f} (it preempts); without any switch cost "
                     f"Tiresias' average JCT would be "
                     + quote(f"Tiresias' average JCT without switch cost, {wl}, h",
                             e['Tiresias, none switch (h)'], lambda x: f"{x:.2f}")
                     + " h and SRTF's "
                     + quote(f"SRTF's average JCT without switch cost, {wl}, h",
                             e['SRTF, none switch (h)'], lambda x: f"{x:.2f}")
                     + " h (geometric means over seeds)"
                     + (", so the rest of its gap comes from the order itself: SRTF knows "
                        "every job's remaining time exactly, Tiresias only the service a "
                        "job has had." if tiresias["verdict"] in (MAGNITUDE_OFF, CONTRADICTED)
                        and tiresias["estimate"].mean > tiresias["paper_value"] else "."))
            sw = data["switch"].sel(workload=wl)
            share = {float(x): 100 * (1 - cell(sw, "avg_jct_h", algorithm="titan",
                                               switch_scale=x).mean
                                      / cell(sw, "avg_jct_h", algorithm="titan_noswitch",
                                             switch_scale=x).mean)
                     for x in sw["switch_scale"].values if x > 0}
            values = list(share.values())
            trend = ("grows with the switch cost" if all(np.diff(values) > 0) else
                     "does not grow steadily with the switch cost")
            text += (" With the switch costs scaled, the pipeline switch's share of TITAN's "
                     f"average JCT {trend}: "
                     + ", ".join(f"{v:.1f} % at {k:g} times" for k, v in share.items())
                     + " the measured costs (geometric means over seeds).")
            out.append(text)
        return paragraphs(*out)
