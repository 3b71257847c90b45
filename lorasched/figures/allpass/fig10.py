"""Allpass's Fig. 10: Queue, workers and the threshold F over time,
the paper's numbers beside ours."""

from __future__ import annotations

import numpy as np

from ..base import Prose, paragraphs, verdict
from .common import (
    NAMES,
    PAPER_FIG10,
    AllpassData,
    AllpassFigure,
)


class Fig10(AllpassFigure):
    key, number, title = "fig10", "Fig. 10", "Queue, workers and the threshold F over time"
    PANELS = [("tl_np", "limited"), ("hpa", "unlimited"), ("allpass", "limited")]

    def claim_rows(self, data: AllpassData):
        peak = {(a, st): data.m("max_workers", st, a)[0] for a, st in self.PANELS}
        seed = data.seeds[0]
        run = data.run("limited", "allpass", seed)
        F = run["F_s"].values
        tl = data.run("limited", "tl_np", seed)["queue"].values
        al = run["queue"].values
        return [
            {"claim": "HPA scales out to over 60 serverful workers", "variant": "unlimited",
             "paper": f"> {PAPER_FIG10['hpa_peak']}",
             "ours": f"{peak['hpa', 'unlimited']:.1f} (mean peak)",
             "verdict": verdict(peak["hpa", "unlimited"] > PAPER_FIG10["hpa_peak"])},
            {"claim": "Allpass's peak serverful workers under the cap of 30",
             "variant": "limited", "paper": f"{PAPER_FIG10['allpass_peak']}",
             "ours": f"{peak['allpass', 'limited']:.1f} (mean peak)",
             "verdict": verdict(peak["allpass", "limited"] < 30)},
            {"claim": "F rises above F0 = 300 s under pressure", "variant": f"seed {seed}",
             "paper": "yes", "ours": f"max {np.nanmax(F):.0f} s",
             "verdict": verdict(np.nanmax(F) > 300)},
            {"claim": "Tiresias-L's queue longer than Allpass's", "variant": f"seed {seed}",
             "paper": "yes", "ours": f"peak {tl.max()} vs {al.max()} jobs",
             "verdict": verdict(tl.max() > al.max())},
        ]

    def findings(self, data: AllpassData) -> Prose:
        seed = data.seeds[0]
        run = data.run("limited", "allpass", seed)
        F = run["F_s"].values
        t = run["tick_s"].values / 3600
        top = int(np.nanargmax(F))
        return paragraphs(
            f"In seed {seed}, Allpass's threshold F starts at 300 s, peaks at "
            f"{F[top]:.0f} s after {t[top]:.2f} h and ends at {F[-1]:.0f} s; the pressure "
            f"exceeds 1 at {int(np.sum(run['p'].values > 1))} of {F.size} ticks.",
            "Peak serverful workers (mean over seeds): " + ", ".join(
                f"{NAMES[a]} ({st}) {data.m('max_workers', st, a)[0]:.1f}"
                for a, st in self.PANELS) + ".")
