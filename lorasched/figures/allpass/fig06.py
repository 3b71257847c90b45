"""Allpass's Fig. 6: JCT CDF under limited serverful capacity, the paper's numbers beside ours."""

from __future__ import annotations

import pandas as pd

from ...allpass.diagnose import queue_mechanism
from ..base import Prose, paragraphs, verdict
from .common import (
    NAMES,
    PAPER_FIG6,
    AllpassData,
    AllpassFigure,
    paper_table,
    pct,
)


class Fig06(AllpassFigure):
    key, number, title = "fig06", "Fig. 6", "JCT CDF under limited serverful capacity"
    ORDER = ["allpass", "tl_np", "tl_p", "sjf_np", "sjf_p"]

    def table(self, data: AllpassData) -> pd.DataFrame:
        return paper_table(data, [("jobs <= 10 min (share)", "limited", a, "share_10min", 3,
                                   PAPER_FIG6[a] / 100) for a in self.ORDER]
                           + [("average JCT (min)", "limited", a, "avg_jct_min", 1, "")
                              for a in self.ORDER])

    def claim_rows(self, data: AllpassData):
        ours = {a: data.m("share_10min", "limited", a)[0] for a in self.ORDER}
        rows = [{"claim": f"{NAMES[a]}: jobs with JCT <= 10 min", "variant": "limited",
                 "paper": f"{PAPER_FIG6[a]:.1f} %", "ours": pct(ours[a]),
                 "verdict": "not shown"} for a in self.ORDER]
        best = max(self.ORDER, key=ours.get)
        rows.append({"claim": "Allpass has the most jobs within 10 min", "variant": "limited",
                     "paper": "yes", "ours": f"best: {NAMES[best]}",
                     "verdict": verdict(ours["allpass"] >= max(ours.values()) - 1e-12)})
        rows.append({"claim": "TL-NP has the fewest jobs within 10 min", "variant": "limited",
                     "paper": "yes", "ours": f"worst: {NAMES[min(self.ORDER, key=ours.get)]}",
                     "verdict": verdict(ours["tl_np"] <= min(ours.values()) + 1e-12)})
        rows.append({"claim": "SJF-P below SJF-NP", "variant": "limited", "paper": "yes",
                     "ours": f"{pct(ours['sjf_p'])} vs {pct(ours['sjf_np'])}",
                     "verdict": verdict(ours["sjf_p"] < ours["sjf_np"])})
        return rows

    def findings(self, data: AllpassData) -> Prose:
        s = {a: data.m("share_10min", "limited", a)[0] for a in self.ORDER}
        avg = {a: data.m("avg_jct_min", "limited", a)[0] for a in self.ORDER}
        q = data.m("queue_min", "limited", "allpass")[0]
        mech = pd.DataFrame([queue_mechanism(data.run("limited", "allpass", s))
                             for s in data.seeds])
        ahead = [NAMES[a] for a in self.ORDER if a != "allpass" and s[a] > s["allpass"]]
        return paragraphs(
            "Jobs finished within ten minutes under the cap of thirty serverful workers: "
            + ", ".join(f"{NAMES[a]} {pct(s[a])}" for a in self.ORDER) + ".",
            "Average JCT: " + ", ".join(f"{NAMES[a]} {avg[a]:.1f} min" for a in self.ORDER)
            + f". Allpass's jobs wait {q:.1f} min on average in the serverful queue (over all "
            f"jobs). At {100 * mech['calm_when_waiting'].mean():.1f} % of the ticks when jobs "
            "waited the pressure of eq. (2) was at most 1, so Algorithm 2 added no worker, and "
            f"{100 * mech['far_queue_share'].mean():.1f} % of the queueing was done by jobs "
            "demoted with their soft deadline beyond the largest window (the readings page "
            "measures this mechanism and runs the other readings).",
            ("Policies ahead of Allpass within ten minutes: " + ", ".join(ahead) + "."
             if ahead else "No baseline finishes more jobs within ten minutes than Allpass."))
