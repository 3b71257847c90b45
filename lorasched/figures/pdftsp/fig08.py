"""Fig. 8: impact of task dynamics (synthetic load)."""

from __future__ import annotations

import numpy as np

from ..base import gain, paragraphs, verdict
from .common import (
    BASELINES,
    LEMMA2,
    TUNED,
    VARIANTS,
    SweepFigure,
    _and,
    _gain_rows,
    _load_name,
    _loads,
    _mean,
    _num,
    _pct,
    _sentences,
    _trend,
    _val,
)


class Fig08(SweepFigure):
    key, number, title = "fig08", "Fig. 8", "Impact of task dynamics (synthetic load)"
    axis = "load"
    every = "at every load"
    paper_gains = {"Titan": 48.99, "EFT": 151.57, "NTM": 184.94}  # at the high load

    def axes(self, size):
        return {"load": _loads(size)}

    def where(self, xs):
        return f"at the {_and(_load_name(x) for x in xs)} load{'s' if len(xs) > 1 else ''}"

    def from_on(self, x):
        return f"from the {_load_name(x)} load on"

    def claim_rows(self, ds):
        m = _mean(ds)
        high = m["load"].values[-1]
        rows = _gain_rows(m, {"load": high}, self.paper_gains, f"load {high}")
        for variant in (LEMMA2, TUNED):
            g = [gain(float(m.sel(algorithm=variant, load=x)),
                      float(m.sel(algorithm="Titan", load=x))) for x in m["load"].values]
            rows.append({"claim": "gain over Titan grows with load",
                         "variant": VARIANTS[variant], "paper": "yes",
                         "ours": " → ".join(f"{x:+.0f} %" for x in g),
                         "verdict": verdict(bool(np.all(np.diff(g) > 0)))})
        return rows

    def findings(self, ds):
        m = _mean(ds)
        xs = list(m["load"].values)
        lo, hi = xs[0], xs[-1]

        def gains(b):
            return [gain(_val(m, TUNED, load=x), _val(m, b, load=x)) for x in xs]

        def listed(bs):
            return "; ".join(f"over {b} " + ", ".join(_pct(g) for g in gains(b)) for b in bs)

        def growth(a):
            return gain(_val(m, a, load=hi), _val(m, a, load=lo))

        trends = {b: _trend(gains(b)) for b in BASELINES}
        grow = [b for b in BASELINES if trends[b] == "grows"]
        other = [b for b in BASELINES if b not in grow]
        tuned = [self.standing(ds, TUNED)]
        if grow:
            tuned.append(f"Its gain{'s' if len(grow) > 1 else ''} over {_and(grow)} "
                         f"grow{'' if len(grow) > 1 else 's'} with the load, as the paper "
                         f"reports ({listed(grow)})" + ("," if other else "."))
        for i, b in enumerate(other):
            tuned.append(("but its" if grow and i == 0 else "Its") + f" gain over {b} "
                         f"{trends[b]} ({listed([b])}).")
        if "Titan" in other and growth("Titan") > growth(TUNED):
            tuned.append(
                "Titan's per-slot MILP gains more from a busier slot: from the "
                f"{_load_name(lo)} to the {_load_name(hi)} load its welfare grows by "
                f"{growth('Titan'):.0f} % "
                f"({_num(_val(m, 'Titan', load=lo))} to {_num(_val(m, 'Titan', load=hi))}), "
                f"pdFTSP's by {growth(TUNED):.0f} %, because it chooses among all of a slot's "
                "arrivals at once.")
        g2, gt = growth(LEMMA2), growth("Titan")
        lemma2 = _sentences(
            self.standing(ds, LEMMA2), self.prices_out(ds, hi),
            f"From the {_load_name(lo)} to the {_load_name(hi)} load its welfare "
            f"{'grows' if g2 > 0 else 'falls'} by "
            f"{'only ' if 0 < g2 < gt else ''}{abs(g2):.0f} %, Titan's by {gt:.0f} %.")
        return paragraphs(_sentences(*tuned), lemma2, self.magnitudes(ds, hi))
