"""Allpass's Fig. 9: cost by scheduler, the paper's numbers beside ours."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...allpass.clouds import PROVIDERS
from ...allpass.workload import PAPER_WORK_H
from ..base import Prose, paragraphs
from ..centres import centre, fmt, seeds_estimate
from ..inventory import cite
from ..numbers import interval, num, pct, seconds, usd
from ..verdicts import DEPENDENT, RATIO, SAVING, SHARE, judge
from .common import (
    CLOUD_NAMES,
    NAMES,
    PAPER_FIG9,
    PAPER_FIG12,
    AllpassData,
    AllpassFigure,
    claim,
    row_of,
    row_says,
    share,
)
from .fig07 import ratio
from .fig12 import per_gpu_h


def _busy_share(run) -> float:
    """The share of the serverful workers' open ticks in which they were busy."""
    open_ = run["workers"].values.sum()
    return float(run["busy"].values.sum() / open_) if open_ > 0 else float("nan")


class Fig09(AllpassFigure):
    key, number, title = "fig09", "Fig. 9", "Cost by scheduler"
    page = "allpass_fig09"
    ORDER = [("allpass", "limited"), ("tl_np", "limited"), ("tl_p", "limited"),
             ("sjf_np", "limited"), ("sjf_p", "limited"), ("allpass", "unlimited"),
             ("hpa", "unlimited"), ("modal", "unlimited")]

    def cost(self, data: AllpassData, a: str, st: str) -> np.ndarray:
        return data.values("cost_usd", st, a)

    def table(self, data: AllpassData) -> pd.DataFrame:
        rows = []
        for a, st in self.ORDER:
            rows.append({"policy": NAMES[a], "setup": st,
                         "total": fmt(data.values("cost_usd", st, a), usd),
                         **{CLOUD_NAMES[p]: fmt(data.values(f"cost_{p}_usd", st, a), usd)
                            for p in PROVIDERS},
                         "work (A100-h)": fmt(data.values("work_h", st, a))})
        return pd.DataFrame(rows)

    #: the bills scale with the jobs' work, sized to the paper's Modal-only bill, and with
    #: the offer prices, fitted to Fig. 12's average
    _SIZED = (DEPENDENT, "Not independent, so counted apart: every bill scales with the "
                         "jobs' work, which lorasched sized to the paper's Modal-only bill, "
                         "and with the offer prices, whose spread it fitted to the paper's "
                         "average marketplace price (Fig. 12).")
    fitted = {"Allpass's total": _SIZED, "Allpass's serverless part": _SIZED,
              "HPA's cost over": _SIZED, "Modal's cost over": _SIZED}
    sentences = {"Allpass's total": cite("5.4a", "Allpass"),
                 "Allpass's saving against Tiresias-L": cite("5.4a", "Tiresias-L"),
                 "Allpass's saving against SJF": cite("5.4a", "SJF"),
                 "Allpass's serverless part": cite("5.4b"),
                 "HPA's cost over": cite("5.4c"), "Modal's cost over": cite("5.4d")}

    def first_rows(self, data: AllpassData):
        al = self.cost(data, "allpass", "limited")
        au = self.cost(data, "allpass", "unlimited")
        total = seeds_estimate(al, RATIO)
        rows = [claim("Allpass's total", "limited", usd(PAPER_FIG9["allpass"]), total,
                      judge(total, PAPER_FIG9["allpass"]), self._total_why(data), usd,
                      paper_value=PAPER_FIG9["allpass"])]
        sl = seeds_estimate(100 * data.values("cost_modal_usd", "limited", "allpass") / al,
                            SHARE)
        paper_sl = 100 * PAPER_FIG9["allpass_serverless"] / PAPER_FIG9["allpass"]
        rows.append(claim("Allpass's serverless part of its total", "limited",
                          f"{pct(paper_sl, sign=False)} ({usd(PAPER_FIG9['allpass_serverless'])}"
                          f" of {usd(PAPER_FIG9['allpass'])})", sl, judge(sl, paper_sl),
                          self._serverless_why(data), lambda x: pct(x, sign=False),
                          paper_value=paper_sl))
        # the paper prints one bill for each of Tiresias-L and SJF, which it ran as two
        # variants each (preemptive and not): the saving is against the pair's mean bill
        for a, label, paper in (("tl", "Tiresias-L", PAPER_FIG9["tl"]),
                                ("sjf", "SJF", PAPER_FIG9["sjf"])):
            paper_saving = 100 * (1 - PAPER_FIG9["allpass"] / paper)
            pair = (f"{a}_np", f"{a}_p")
            bill = np.mean([self.cost(data, v, "limited") for v in pair], axis=0)
            saving = seeds_estimate(100 * (1 - al / bill), SAVING)
            rows.append(claim(f"Allpass's saving against {label}"
                              + (" (shortest job first)" if a == "sjf" else "")
                              + ", the mean bill of its preemptive and non-preemptive "
                              "variants", "limited",
                              f"{pct(paper_saving)} ({label}: {usd(paper)})", saving,
                              judge(saving, paper_saving),
                              " ".join(self._saving_why(data, v) for v in pair), pct,
                              paper_value=paper_saving))
        for a, key in (("hpa", "hpa_ratio"), ("modal", "modal_ratio")):
            bill = self.cost(data, a, "unlimited")
            r = seeds_estimate(bill / au, RATIO)
            rows.append(claim(f"{NAMES[a]}'s cost over Allpass's", "unlimited",
                              ratio(PAPER_FIG9[key]), r,
                              judge(r, PAPER_FIG9[key], threshold=1.0),
                              self._ratio_why(data, a), ratio, threshold=1.0,
                              ours=f"{interval(r, ratio)}; bills {usd(centre(bill))} against "
                                   f"{usd(centre(au))}",
                                   paper_value=PAPER_FIG9[key]))
        return rows

    def _total_why(self, data: AllpassData) -> str:
        work = data.values("work_h", "limited", "allpass")
        price = data.m("vast_price_mean", "limited", "allpass")
        bills = {p: data.m(f"cost_{p}_usd", "limited", "allpass") for p in PROVIDERS}
        return (f"The runs carry {num(centre(work))} A100-hours of work "
                f"({num(work.min())} to {num(work.max())} by seed) against the "
                f"{num(PAPER_WORK_H)} the paper's bills imply, and Allpass's marketplace "
                f"workers cost {per_gpu_h(price)} against the paper's "
                f"{per_gpu_h(PAPER_FIG12['price'])} (Fig. 12); its bill splits into "
                + ", ".join(f"{CLOUD_NAMES[p]} {usd(v)}" for p, v in bills.items()) + ".")

    def _serverless_why(self, data: AllpassData) -> str:
        served = 1 - data.m("demoted_share", "limited", "allpass")
        F = data.per_seed("limited", "allpass", lambda r: np.nanmean(r["F_s"].values))
        return (f"{share(served)} of Allpass's jobs finish on the serverless tier and every "
                f"demoted job ran there first, up to the threshold F ({seconds(centre(F))} on "
                "average over the ticks); serverless time costs "
                f"{per_gpu_h(PROVIDERS['modal'].price_per_gpu_h)}.")

    def _saving_why(self, data: AllpassData, variant: str) -> str:
        def vast(a):
            return data.m("cost_vast_usd", "limited", a)

        def peak(a):
            return data.m("max_workers", "limited", a)

        modal = data.m("cost_modal_usd", "limited", "allpass")
        served = 1 - data.m("demoted_share", "limited", "allpass")
        return (f"{NAMES[variant]} runs every job on rented machines: {usd(vast(variant))} "
                f"of marketplace time with up to {num(peak(variant))} workers, against "
                f"Allpass's {usd(vast('allpass'))} with up to {num(peak('allpass'))} plus "
                f"{usd(modal)} of serverless time for the {share(served)} of jobs that never "
                "leave it.")

    def _ratio_why(self, data: AllpassData, a: str) -> str:
        price = data.m("vast_price_mean", "unlimited", "allpass")
        if a == "modal":
            bill = data.m("cost_usd", "unlimited", "modal")
            return (f"Modal bills {per_gpu_h(PROVIDERS['modal'].price_per_gpu_h)} for all "
                    f"the work, {usd(bill)} per run on average; Allpass's marketplace workers "
                    f"cost {per_gpu_h(price)} on "
                    f"average against the paper's {per_gpu_h(PAPER_FIG12['price'])} "
                    "(Fig. 12), so Modal's bill is a larger multiple of Allpass's here.")
        peak = data.m("max_workers", "unlimited", "hpa")
        busy = data.per_seed("unlimited", "hpa", _busy_share)
        return (f"HPA rents up to {num(peak)} serverful workers on average per seed, busy "
                f"{share(np.nanmean(busy))} of their open time; its bill over Allpass's "
                "follows that idle time.")

    def findings(self, data: AllpassData) -> Prose:
        c = {(a, st): data.m("cost_usd", st, a) for a, st in self.ORDER}
        w = data.m("work_h", "limited", "allpass")
        modal = c["modal", "unlimited"]
        # each claim said from its own claims row's verdict
        rows = self.claim_rows(data)
        ratios = [row_says(row_of(rows, f"{NAMES[a]}'s cost over"),
                           f"{NAMES[a]}'s bill over Allpass's (per seed, the ratio)")
                  for a in ("modal", "hpa")]
        savings = [row_says(row_of(rows, f"Allpass's saving against {b}"),
                            f"Allpass's saving against {b}")
                   for b in ("Tiresias-L", "SJF")]
        return paragraphs(
            "Bills (geometric means over seeds): " + ", ".join(
                f"{NAMES[a]} ({st}) {usd(c[a, st])}" for a, st in self.ORDER) + ".",
            f"The runs carry {num(w)} A100-hours of work on average (the paper's Modal bill "
            f"implies about {num(PAPER_WORK_H)}); Modal alone therefore costs "
            f"{usd(modal)} on average.",
            "Without a cap: " + "; ".join(ratios) + ". Under the cap: " + "; ".join(savings)
            + ".")
