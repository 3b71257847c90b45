"""Allpass's Fig. 7: JCT CDF under unlimited serverful capacity, the paper's numbers beside ours."""

from __future__ import annotations

import pandas as pd

from ..base import Prose, paragraphs, verdict
from .common import (
    PAPER_HPA_JCT_RATIO,
    AllpassData,
    AllpassFigure,
    paper_table,
)


class Fig07(AllpassFigure):
    key, number, title = "fig07", "Fig. 7", "JCT CDF under unlimited serverful capacity"
    ORDER = ["allpass", "modal", "hpa"]

    def table(self, data: AllpassData) -> pd.DataFrame:
        return paper_table(data, [("average JCT (min)", "unlimited", a, "avg_jct_min", 1, "")
                                  for a in self.ORDER]
                           + [("median JCT (min)", "unlimited", a, "median_jct_min", 2, "")
                              for a in self.ORDER])

    def claim_rows(self, data: AllpassData):
        a, mo, h = (data.m("avg_jct_min", "unlimited", x)[0] for x in self.ORDER)
        return [
            {"claim": "Allpass's average JCT close to Modal's (within 10 %)",
             "variant": "unlimited", "paper": "nearly identical",
             "ours": f"{a:.1f} vs {mo:.1f} min", "verdict": verdict(a <= 1.1 * mo)},
            {"claim": "HPA's average JCT over Allpass's", "variant": "unlimited",
             "paper": f"{PAPER_HPA_JCT_RATIO:.2f}x", "ours": f"{h / a:.2f}x",
             "verdict": verdict(h > a)},
            {"claim": "Allpass never reaches the serverful cap", "variant": "limited",
             "paper": "yes", "ours": f"peak {data.m('max_workers', 'limited', 'allpass')[0]:.1f}"
             " workers (mean over seeds)",
             "verdict": verdict(data.metrics['max_workers'].sel(
                 setup='limited', algorithm='allpass').max() < 30)},
        ]

    def findings(self, data: AllpassData) -> Prose:
        a, mo, h = (data.m("avg_jct_min", "unlimited", x)[0] for x in self.ORDER)
        qa = data.m("queue_min", "unlimited", "allpass")[0]
        qh = data.m("queue_min", "unlimited", "hpa")[0]
        return paragraphs(
            f"Without a cap, Allpass's average JCT is {a:.1f} min, Modal's {mo:.1f} min and "
            f"HPA's {h:.1f} min ({h / a:.2f} times Allpass's; the paper: "
            f"{PAPER_HPA_JCT_RATIO:.2f}).",
            f"The gap between Allpass and Modal is queueing: Allpass's jobs spend {qa:.1f} min "
            f"on average in the serverful queue, HPA's {qh:.1f} min; Modal's jobs never queue.")
