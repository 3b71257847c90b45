"""Allpass's Fig. 11: adaptive against fixed serverless thresholds, the paper's numbers beside
ours."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..base import Prose, paragraphs
from ..centres import centre, centre_share, seeds_estimate
from ..inventory import cite
from ..numbers import minutes, num, pct, seconds, usd
from ..verdicts import SAVING, judge
from .common import (
    NAMES,
    PAPER_FIG11,
    AllpassData,
    AllpassFigure,
    claim,
    paper_table,
    row_of,
    row_says,
    share,
)


class Fig11(AllpassFigure):
    key, number, title = "fig11", "Fig. 11", "Adaptive against fixed serverless thresholds"
    page = "allpass_fig11"
    ORDER = ["allpass", "allpass_fixed60", "allpass_fixed600"]

    def table(self, data: AllpassData) -> pd.DataFrame:
        return paper_table(data, [("median JCT (min)", "limited", a, "median_jct_min", 1, num,
                                   minutes(PAPER_FIG11["median"]) if a == "allpass" else "")
                                  for a in self.ORDER]
                           + [("cost", "limited", a, "cost_usd", 1, usd, "")
                              for a in self.ORDER])

    def reductions(self, data: AllpassData) -> tuple[np.ndarray, np.ndarray]:
        """Per seed, Allpass's median JCT below Fixed-60s's and Fixed-600s's, percent."""
        m = {a: data.values("median_jct_min", "limited", a) for a in self.ORDER}
        return (100 * (1 - m["allpass"] / m["allpass_fixed60"]),
                100 * (1 - m["allpass"] / m["allpass_fixed600"]))

    sentences = {"Allpass's median JCT": cite("A.1a", "median"),
                 "median JCT reduction against Fixed-60s": cite("A.1a", "Fixed-60s"),
                 "median JCT reduction against Fixed-600s": cite("A.1a", "Fixed-600s")}

    def first_rows(self, data: AllpassData):
        med = data.est("median_jct_min", "limited", "allpass")
        r60, r600 = (seeds_estimate(r, SAVING) for r in self.reductions(data))
        work = data.per_seed("limited", "allpass", lambda r: np.median(r["work_s"].values) / 60)
        return [
            claim("Allpass's median JCT", "limited", minutes(PAPER_FIG11["median"]), med,
                  judge(med, PAPER_FIG11["median"]),
                  f"The median job carries {minutes(centre(work))} of work here "
                  f"({minutes(work.min())} to {minutes(work.max())} by seed), and Allpass's "
                  "median job finishes on the serverless tier in about that time.", minutes,
                  paper_value=PAPER_FIG11["median"]),
            claim("median JCT reduction against Fixed-60s", "limited",
                  pct(PAPER_FIG11["vs60"]), r60, judge(r60, PAPER_FIG11["vs60"]),
                  self._why(data, "allpass_fixed60", 60), pct,
                  paper_value=PAPER_FIG11["vs60"]),
            claim("median JCT reduction against Fixed-600s", "limited",
                  pct(PAPER_FIG11["vs600"]), r600, judge(r600, PAPER_FIG11["vs600"]),
                  self._why(data, "allpass_fixed600", 600), pct,
                  paper_value=PAPER_FIG11["vs600"]),
        ]

    def _why(self, data: AllpassData, fixed: str, threshold_s: float) -> str:
        short = data.per_seed("limited", "allpass",
                              lambda r: np.mean(r["work_s"].values <= threshold_s))
        med = data.m("median_jct_min", "limited", fixed)
        return (f"{share(centre_share(short))} of the jobs carry at most {seconds(threshold_s)} of "
                f"work and finish on the serverless tier under both thresholds; "
                f"{NAMES[fixed]}'s median JCT is {minutes(med)}: the median separates the "
                "two only where the fixed threshold falls below the median job.")

    def findings(self, data: AllpassData) -> Prose:
        m = {a: data.m("median_jct_min", "limited", a) for a in self.ORDER}
        # each claim said from its own claims row's verdict
        rows = self.claim_rows(data)
        said = [row_says(row_of(rows, "Allpass's median JCT"), "Allpass's median JCT")]
        said += [row_says(row_of(rows, f"median JCT reduction against {NAMES[f]}"),
                          f"its reduction of the median JCT against {NAMES[f]} (per seed)")
                 for f in ("allpass_fixed60", "allpass_fixed600")]
        return paragraphs(
            "Median JCT under the cap (geometric means over seeds): "
            f"Allpass {minutes(m['allpass'])}, "
            f"Fixed-60s {minutes(m['allpass_fixed60'])}, Fixed-600s "
            f"{minutes(m['allpass_fixed600'])}.",
            "On this page's claims: " + "; ".join(said) + ".",
            "The median job is short and finishes on the serverless tier under every "
            "threshold above its length, so the median separates the policies only where "
            "the threshold falls below it.")
