"""Fig. 5: impact of the number of labelling vendors."""

from __future__ import annotations

import xarray as xr

from ..base import paragraphs
from ..numbers import num, usd
from ..verdicts import INCONCLUSIVE, REPRODUCED
from .common import (
    _WITH,
    BASELINES,
    CALIBRATED,
    LEMMA2,
    TITAN,
    VARIANTS,
    _and,
    _change,
    _rank_rows,
    by_method,
    fit_trend,
    fit_why,
    ours_pct,
    trend_text,
    trend_verdict,
)
from .sweep_figure import SweepFigure
from .titan_words import _declaration


class Fig05(SweepFigure):
    key, number, title = "fig05", "Fig. 5", "Impact of the number of labelling vendors"
    axis = "vendors"
    page = "fig05_vendors"
    every = "at every vendor count"

    def axes(self, size):
        return {"vendors": [1, 3, 5, 10]}

    def where(self, xs):
        return f"with {_and(xs)} vendor{'' if list(xs) == [1] else 's'}"

    def from_on(self, x):
        return f"from {x} vendors on"

    @staticmethod
    def vendor_cost(ds, variant: str) -> xr.DataArray:
        """What ``variant`` pays its labelling vendors per admitted task (USD, mean over
        seeds) by vendor count: the value of its admitted tasks less welfare and operating
        cost."""
        paid = by_method(ds, "value") - by_method(ds) - by_method(ds, "operating_cost")
        per = paid / by_method(ds, "n_admitted").where(by_method(ds, "n_admitted") > 0)
        return per.sel(algorithm=variant).mean("seed")

    def claim_rows(self, ds):
        vs = list(ds["vendors"].values)
        rows = []
        for variant in (LEMMA2, CALIBRATED):
            _, change = _change(ds, variant, {"vendors": vs[0]}, {"vendors": vs[-1]})
            fit = fit_trend(by_method(ds).sel(algorithm=variant), "vendors")
            row = {"claim": "welfare rises slightly with more vendors",
                   "variant": VARIANTS[variant], "paper": "rises",
                   "ours": f"{ours_pct(change)} from {vs[0]} to {vs[-1]} vendors; "
                           f"{trend_text(fit, 'USD per vendor')}",
                   "verdict": trend_verdict(fit)}
            if row["verdict"] != REPRODUCED:
                cost = self.vendor_cost(ds, variant)
                w = by_method(ds).sel(algorithm=variant).mean("seed")
                adm = by_method(ds, "n_admitted").sel(algorithm=variant).mean("seed")
                row["why"] = (
                    (fit_why(fit, "USD per vendor") + " " if row["verdict"] == INCONCLUSIVE
                     else "")
                    + f"More vendors lower only the labelling price pdFTSP pays (it takes the "
                    f"vendor of largest surplus F(il)): {usd(float(cost.sel(vendors=vs[0])))} "
                    f"per admitted task with {vs[0]} vendor, "
                    f"{usd(float(cost.sel(vendors=vs[-1])))} with {vs[-1]}, against "
                    f"{usd(float(w.sel(vendors=vs[-1]) / adm.sel(vendors=vs[-1])))} of welfare "
                    f"per task; its admissions go from {num(float(adm.sel(vendors=vs[0])))} "
                    f"to {num(float(adm.sel(vendors=vs[-1])))}.")
            rows.append(row)
        return rows + _rank_rows(ds, "vendors", self.rank_claim, self.where,
                                 base_at=self.base_at(ds))

    rank_claim = "pdFTSP best for every vendor count"

    def base_at(self, ds):
        """5 vendors, the base scenario's cell: Fig. 6 counts it."""
        return _declaration(ds).get("base", {}).get("vendors")

    def findings(self, ds):
        vs = list(ds["vendors"].values)
        at0, at1 = {"vendors": vs[0]}, {"vendors": vs[-1]}
        ch = {a: _change(ds, a, at0, at1) for a in (LEMMA2, CALIBRATED, *BASELINES)}
        pdftsp = (f"From {vs[0]} to {vs[-1]} vendors pdFTSP's welfare {ch[LEMMA2][0]} with "
                  f"the Lemma-2 constants and {ch[CALIBRATED][0]} with the calibrated constants.")
        rise = [v for v in (LEMMA2, CALIBRATED) if ch[v][1].mean > 0]
        if rise:
            which = ("for both settings" if len(rise) == 2 else
                     f"{_WITH[rise[0]].lower()} only")
            real = all(ch[v][1].low > 0 for v in rise)
            pdftsp += (f" {'The paper' if real else 'The direction of the paper'}'s finding "
                       f"holds {which}"
                       + ("" if real else ", though not beyond the interval over seeds")
                       + ": pdFTSP picks, for each task, the vendor that leaves the largest "
                       "surplus F(il), so more vendors give it more choice.")
        else:
            pdftsp += " The paper's finding does not hold for either setting."
        random = [b for b in (TITAN, "NTM") if ch[b][1].low > 0]
        baselines = (f"Titan picks its vendor at random (the paper's rule), and its welfare "
                     f"{ch[TITAN][0]}; NTM, which picks at random too, {ch['NTM'][0]}; EFT, "
                     "which takes the vendor with the lowest delay whatever its price, "
                     f"{ch['EFT'][0]}.")
        if random:
            baselines += (f" Why {_and(random)} gain{'s' if len(random) == 1 else ''} from "
                          "more vendors with a random pick we have not traced.")
        return paragraphs(" ".join([pdftsp, self.standing(ds, CALIBRATED),
                                    self.standing(ds, LEMMA2)]), baselines)
