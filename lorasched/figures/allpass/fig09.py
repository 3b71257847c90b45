"""Allpass's Fig. 9: Cost breakdown by scheduler, the paper's numbers beside ours."""

from __future__ import annotations

import pandas as pd

from ...allpass.clouds import PROVIDERS
from ..base import Prose, paragraphs, verdict
from .common import (
    NAMES,
    PAPER_FIG9,
    AllpassData,
    AllpassFigure,
    fmt,
    pct,
)


class Fig09(AllpassFigure):
    key, number, title = "fig09", "Fig. 9", "Cost breakdown by scheduler"
    ORDER = [("allpass", "limited"), ("tl_np", "limited"), ("tl_p", "limited"),
             ("sjf_np", "limited"), ("sjf_p", "limited"), ("allpass", "unlimited"),
             ("hpa", "unlimited"), ("modal", "unlimited")]

    def table(self, data: AllpassData) -> pd.DataFrame:
        rows = []
        for a, st in self.ORDER:
            rows.append({"policy": NAMES[a], "setup": st,
                         "total ($)": fmt(data.m("cost_usd", st, a)),
                         **{f"{PROVIDERS[p].name} ($)": fmt(data.m(f"cost_{p}_usd", st, a))
                            for p in PROVIDERS},
                         "work (A100-h)": f"{data.m('work_h', st, a)[0]:.0f}"})
        return pd.DataFrame(rows)

    def claim_rows(self, data: AllpassData):
        c = {(a, st): data.m("cost_usd", st, a)[0] for a, st in self.ORDER}
        al = c["allpass", "limited"]
        au = c["allpass", "unlimited"]
        sl = data.m("cost_modal_usd", "limited", "allpass")[0]
        rows = [{"claim": "Allpass's total", "variant": "limited",
                 "paper": f"${PAPER_FIG9['allpass']:.2f}", "ours": f"${al:.2f}",
                 "verdict": "not shown"},
                {"claim": "Allpass's serverless part of its total", "variant": "limited",
                 "paper": f"{100 * PAPER_FIG9['allpass_serverless'] / PAPER_FIG9['allpass']:.1f}"
                          " %", "ours": pct(sl / al),
                 "verdict": verdict(sl / al <= 0.2)}]
        for a, label, paper in (("tl", "Tiresias-L", PAPER_FIG9["tl"]),
                                ("sjf", "SJF", PAPER_FIG9["sjf"])):
            mine = [c[f"{a}_np", "limited"], c[f"{a}_p", "limited"]]
            rows.append({"claim": f"Allpass costs less than {label} (both variants)",
                         "variant": "limited", "paper": f"${paper:.2f}",
                         "ours": f"${mine[0]:.2f} (NP), ${mine[1]:.2f} (P)",
                         "verdict": verdict(al < min(mine))})
        for a, key in (("hpa", "hpa_ratio"), ("modal", "modal_ratio")):
            r = c[a, "unlimited"] / au
            rows.append({"claim": f"{NAMES[a]}'s cost over Allpass's", "variant": "unlimited",
                         "paper": f"{PAPER_FIG9[key]:.2f}x", "ours": f"{r:.2f}x",
                         "verdict": verdict(r > 1)})
        return rows

    def findings(self, data: AllpassData) -> Prose:
        c = {(a, st): data.m("cost_usd", st, a)[0] for a, st in self.ORDER}
        w = data.m("work_h", "limited", "allpass")[0]
        return paragraphs(
            "Bills (mean over seeds): " + ", ".join(
                f"{NAMES[a]} ({st}) ${c[a, st]:.2f}" for a, st in self.ORDER) + ".",
            f"The runs carry {w:.0f} A100-hours of work on average (the paper's Modal bill "
            f"implies about 332); Modal alone therefore costs ${c['modal', 'unlimited']:.0f}, "
            f"{c['modal', 'unlimited'] / c['allpass', 'unlimited']:.2f} times Allpass without "
            f"a cap and {c['modal', 'unlimited'] / c['allpass', 'limited']:.2f} times Allpass "
            "under the cap.")
