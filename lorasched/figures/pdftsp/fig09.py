"""Fig. 9: impact of task deadlines."""

from __future__ import annotations

from ...pdftsp.workload import DEADLINE_POLICIES
from ..base import paragraphs
from ..numbers import pct
from ..verdicts import REPRODUCED
from .common import (
    CALIBRATED,
    LEMMA2,
    _and,
    _change,
    _mean,
    _num,
    _rank_rows,
    _sentences,
    _val,
    _who,
)
from .sweep_figure import SweepFigure
from .titan_words import _declaration


class Fig09(SweepFigure):
    key, number, title = "fig09", "Fig. 9", "Impact of task deadlines"
    axis = "deadline_policy"
    page = "fig09_deadlines"
    costly_full = 10  # the converged Titan on the ten seeds of the cheap cells
    every = "under every deadline policy"

    def axes(self, size):
        return {"deadline_policy": list(DEADLINE_POLICIES)}

    def where(self, xs):
        names = [str(x).replace("_", "-") for x in xs]
        return f"under the {_and(names)} polic{'ies' if len(xs) > 1 else 'y'}"

    rank_claim = "pdFTSP best for every deadline policy"

    def base_at(self, ds):
        """The slack policy, the base scenario's cell: Fig. 6 counts it."""
        return _declaration(ds).get("base", {}).get("deadline_policy")

    def claim_rows(self, ds):
        rows = _rank_rows(ds, "deadline_policy", self.rank_claim, self.where,
                          base_at=self.base_at(ds), sentence="5.2i")
        for row in rows:
            if row["verdict"] != REPRODUCED:
                row["why"] += " " + self.windows(ds)
        return rows

    @staticmethod
    def windows(ds) -> str:
        """The admitted share of tasks of pdFTSP (Lemma 2) and EFT under each deadline
        policy, measured."""
        share = _mean(ds, "n_admitted") / ds["n_tasks"].mean(
            [d for d in ds["n_tasks"].dims if d != "deadline_policy"])
        def share_of(x, a):
            return pct(100 * float(share.sel(deadline_policy=x, algorithm=a)), sign=False)

        return ("Admitted share by deadline policy (pdFTSP with the Lemma-2 constants, EFT): "
                + "; ".join(f"{str(x).replace('_', '-')} {share_of(x, LEMMA2)}, "
                            f"{share_of(x, 'EFT')}" for x in share["deadline_policy"].values)
                + ".")

    def findings(self, ds):
        m = _mean(ds)
        labels = [str(a) for a in m["algorithm"].values]
        spread = {a: float(m.sel(algorithm=a).max() - m.sel(algorithm=a).min())
                  / float(m.sel(algorithm=a).mean()) for a in labels}

        def span(a):
            w = m.sel(algorithm=a)
            return f"{_num(float(w.min()))} to {_num(float(w.max()))}"

        least, most = min(spread, key=spread.get), max(spread, key=spread.get)
        first = _sentences(
            self.standing(ds, CALIBRATED), self.standing(ds, LEMMA2),
            f"The least sensitive to the policy is {_who([least])} ({span(least)}), the most "
            f"{_who([most])} ({span(most)}).")
        if not {"slack", "end_of_day"} <= {str(x) for x in m["deadline_policy"].values}:
            return paragraphs(first)
        return paragraphs(first, self._end_of_day(ds))

    def _end_of_day(self, ds) -> str:
        """Which algorithms earn less with every deadline at the end of the day than with
        the slack policy, and whether they admit fewer tasks."""
        m, adm = _mean(ds), _mean(ds, "n_admitted")
        labels = [str(a) for a in m["algorithm"].values]
        slack, eod = {"deadline_policy": "slack"}, {"deadline_policy": "end_of_day"}
        change = {a: _change(ds, a, slack, eod) for a in labels}
        less = [a for a in labels if change[a][1].mean < 0]
        if not less:
            return ("Longer windows help every algorithm: with every deadline at the end of "
                    "the day, each earns at least as much as with the slack policy.")
        real = any(change[a][1].high < 0 for a in less)
        pairs = "; ".join(
            f"{a} {_num(_val(m, a, **eod))} against {_num(_val(m, a, **slack))}"
            + (", within the interval over seeds" if real and change[a][1].high >= 0 else "")
            for a in less)
        text = (("Longer windows do not help every algorithm: with" if real else "With")
                + f" every deadline at the end of the day, {_who(less)} "
                f"earn{'s' if len(less) == 1 else ''} less than with the slack policy"
                + ("" if real else ", though within the interval over seeds") + f" ({pairs})")
        fewer = [a for a in less if _val(adm, a, **eod) < _val(adm, a, **slack)]
        if fewer:
            text += (f", and {_who(fewer)} admit{'s' if len(fewer) == 1 else ''} fewer tasks ("
                     + "; ".join(f"{a} {_num(_val(adm, a, **eod))} against "
                                 f"{_num(_val(adm, a, **slack))}" for a in fewer) + ")")
        return text + "." + (" This page does not trace why." if real else "")
