"""Fig. 5: impact of the number of labelling vendors."""

from __future__ import annotations

from ..base import gain, paragraphs
from .common import (
    _WITH,
    BASELINES,
    CALIBRATED,
    LEMMA2,
    VARIANTS,
    SweepFigure,
    _and,
    _change,
    _mean,
    _rank_rows,
    by_method,
    fit_trend,
    trend_text,
    trend_verdict,
)


class Fig05(SweepFigure):
    key, number, title = "fig05", "Fig. 5", "Impact of the number of labelling vendors"
    axis = "vendors"
    every = "at every vendor count"

    def axes(self, size):
        return {"vendors": [1, 3, 5, 10]}

    def where(self, xs):
        return f"with {_and(xs)} vendor{'' if list(xs) == [1] else 's'}"

    def from_on(self, x):
        return f"from {x} vendors on"

    def claim_rows(self, ds):
        m = _mean(ds)
        rows = []
        for variant in (LEMMA2, CALIBRATED):
            w = m.sel(algorithm=variant).values
            g = gain(w[-1], w[0])
            fit = fit_trend(by_method(ds).sel(algorithm=variant), "vendors")
            rows.append({"claim": "welfare rises slightly with more vendors",
                         "variant": VARIANTS[variant], "paper": "slight rise",
                         "ours": f"{g:+.1f} % from {m['vendors'].values[0]} to "
                                 f"{m['vendors'].values[-1]} vendors "
                                 f"({trend_text(fit, 'per vendor')})",
                         "verdict": trend_verdict(fit)})
        return rows + _rank_rows(m, "vendors", "pdFTSP best for every vendor count", "yes")

    def findings(self, ds):
        vs = list(ds["vendors"].values)
        at0, at1 = {"vendors": vs[0]}, {"vendors": vs[-1]}
        ch = {a: _change(ds, a, at0, at1) for a in (LEMMA2, CALIBRATED, *BASELINES)}
        pdftsp = (f"From {vs[0]} to {vs[-1]} vendors pdFTSP's welfare {ch[LEMMA2][0]} with "
                  f"the Lemma-2 constants and {ch[CALIBRATED][0]} with the calibrated constants.")
        rise = [v for v in (LEMMA2, CALIBRATED) if ch[v][1] > 0]
        if rise:
            which = ("for both settings" if len(rise) == 2 else
                     f"{_WITH[rise[0]].lower()} only")
            real = all(ch[v][2] for v in rise)
            pdftsp += (f" {'The paper' if real else 'The direction of the paper'}'s finding "
                       f"holds {which}"
                       + ("" if real else ", though not beyond the spread over seeds")
                       + ": pdFTSP picks, for each task, the vendor that leaves the largest "
                       "surplus F(il), so more vendors give it more choice.")
        else:
            pdftsp += " The paper's finding does not hold for either setting."
        random = [b for b in ("Titan", "NTM") if ch[b][1] > 0 and ch[b][2]]
        baselines = (f"Titan picks its vendor at random, as in the paper, and its welfare "
                     f"{ch['Titan'][0]}; NTM, which picks at random too, {ch['NTM'][0]}; EFT, "
                     "which takes the vendor with the lowest delay whatever its price, "
                     f"{ch['EFT'][0]}.")
        if random:
            baselines += (f" Why {_and(random)} gain{'s' if len(random) == 1 else ''} from "
                          "more vendors with a random pick we have not traced.")
        return paragraphs(" ".join([pdftsp, self.standing(ds, CALIBRATED),
                                    self.standing(ds, LEMMA2)]), baselines)
