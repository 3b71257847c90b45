"""Allpass's Fig. 11: Adaptive against fixed serverless thresholds,
the paper's numbers beside ours."""

from __future__ import annotations

import pandas as pd

from ..base import Prose, paragraphs, verdict
from .common import (
    PAPER_FIG11,
    AllpassData,
    AllpassFigure,
    paper_table,
)


class Fig11(AllpassFigure):
    key, number, title = "fig11", "Fig. 11", "Adaptive against fixed serverless thresholds"
    ORDER = ["allpass", "allpass_fixed60", "allpass_fixed600"]

    def table(self, data: AllpassData) -> pd.DataFrame:
        return paper_table(data, [("median JCT (min)", "limited", a, "median_jct_min", 2,
                                   PAPER_FIG11["median"] if a == "allpass" else "")
                                  for a in self.ORDER]
                           + [("cost ($)", "limited", a, "cost_usd", 2, "")
                              for a in self.ORDER])

    def reductions(self, data: AllpassData) -> tuple[float, float]:
        m = {a: data.m("median_jct_min", "limited", a)[0] for a in self.ORDER}
        return (100 * (1 - m["allpass"] / m["allpass_fixed60"]),
                100 * (1 - m["allpass"] / m["allpass_fixed600"]))

    def claim_rows(self, data: AllpassData):
        med = data.m("median_jct_min", "limited", "allpass")[0]
        r60, r600 = self.reductions(data)
        return [
            {"claim": "Allpass's median JCT", "variant": "limited",
             "paper": f"{PAPER_FIG11['median']} min", "ours": f"{med:.2f} min",
             "verdict": "not shown"},
            {"claim": "median JCT reduction against Fixed-60s", "variant": "limited",
             "paper": f"{PAPER_FIG11['vs60']:.2f} %", "ours": f"{r60:.2f} %",
             "verdict": verdict(r60 > 0)},
            {"claim": "median JCT reduction against Fixed-600s", "variant": "limited",
             "paper": f"{PAPER_FIG11['vs600']:.2f} %", "ours": f"{r600:.2f} %",
             "verdict": verdict(r600 > 0)},
        ]

    def findings(self, data: AllpassData) -> Prose:
        m = {a: data.m("median_jct_min", "limited", a)[0] for a in self.ORDER}
        r60, r600 = self.reductions(data)
        per_seed = {a: data.metrics["median_jct_min"].sel(setup="limited", algorithm=a).values
                    for a in self.ORDER}
        return paragraphs(
            f"Median JCT under the cap: Allpass {m['allpass']:.2f} min, Fixed-60s "
            f"{m['allpass_fixed60']:.2f} min, Fixed-600s {m['allpass_fixed600']:.2f} min; "
            f"Allpass's median is {r60:.1f} % below Fixed-60s's and {r600:.1f} % below "
            "Fixed-600s's.",
            "Per seed, Allpass / Fixed-600s: " + ", ".join(
                f"{x:.2f} / {y:.2f}" for x, y in zip(per_seed["allpass"],
                                                      per_seed["allpass_fixed600"], strict=True))
            + " min. The median job is short and finishes on the serverless tier under every "
            "threshold above its length, so the median separates the policies only where the "
            "threshold falls below it.")
