"""Fig. 6: impact of per-node capacity."""

from __future__ import annotations

from ...model import profiles
from ..base import paragraphs
from ..centres import over_seeds
from ..inventory import cite
from ..numbers import num, pct, quote
from ..verdicts import INCONCLUSIVE, REPRODUCED, inconclusive_why, judge
from .common import (
    CALIBRATED,
    LEMMA2,
    RIVALS,
    VARIANTS,
    _and,
    _cap,
    _leader,
    _mean,
    _num,
    _rank_rows,
    _sentences,
    _val,
    _who,
    by_method,
    cost_plus_rows,
    estimate_of,
    ours_pct,
)
from .sweep_figure import SweepFigure


class Fig06(SweepFigure):
    key, number, title, axis = "fig06", "Fig. 6", "Impact of per-node capacity", "gpu"
    page = "fig06_capacity"
    costly_full = 10  # the converged Titan on the ten seeds of the cheap cells
    every = "on every cluster"
    _names = {"A100": "all-A100", "A40": "all-A40", "mix": "mixed"}

    def axes(self, size):
        return {"gpu": ["A100", "A40", "mix"]}

    def where(self, xs):
        return (f"on the {_and(self._names.get(str(x), x) for x in xs)} "
                f"cluster{'s' if len(xs) > 1 else ''}")

    @staticmethod
    def node_ratio() -> tuple[float, float, float]:
        """An A100 node's samples per slot over an A40's in lorasched's profiles, and the two
        GPUs' memory (GB)."""
        a100, a40 = (profiles.GPUS[profiles.GPU_ALIASES[g]] for g in ("A100", "A40"))
        return (profiles.node_capacity(a100) / profiles.node_capacity(a40),
                a100.memory_gb, a40.memory_gb)

    def claim_rows(self, ds):
        flat = by_method(ds)
        rows = []
        for variant in (LEMMA2, CALIBRATED):
            one = flat.sel(algorithm=variant)
            est = estimate_of(100.0 * (one.sel(gpu="A100") / one.sel(gpu="A40") - 1.0))
            row = {"claim": "A100 nodes give more welfare than A40",
                   "variant": VARIANTS[variant], "paper": "more",
                   "ours": f"A100 over A40: {ours_pct(est)}",
                   "verdict": judge(est, None, side=1), "estimate": est, "fmt": pct,
                   "sentence": cite("5.2d")}
            if row["verdict"] != REPRODUCED:
                speed, m100, m40 = self.node_ratio()
                adm = over_seeds(by_method(ds, "n_admitted").sel(algorithm=variant))
                row["why"] = ((inconclusive_why(est, 0.0, pct) + " "
                               if row["verdict"] == INCONCLUSIVE else "")
                              + f"An A100 node processes {num(speed)} times an A40's samples "
                              f"per slot ({num(m100)} GB against {num(m40)} GB), and "
                              f"{_who([variant])} admits {num(float(adm.sel(gpu='A100')))} "
                              f"tasks on the all-A100 cluster and "
                              f"{num(float(adm.sel(gpu='A40')))} on the all-A40 one.")
            rows.append(row)
        return (rows + _rank_rows(ds.sel(gpu=["mix"]), "gpu", "pdFTSP best on mixed GPUs",
                                  self.where, sentence="5.2e")
                + cost_plus_rows(ds, {"gpu": "mix"}))

    def findings(self, ds):
        m = _mean(ds)
        gpus = {str(g) for g in m["gpu"].values}
        parts = []
        if {"A100", "A40"} <= gpus:
            labels = [str(a) for a in m["algorithm"].values]
            ratio = {a: _val(m, a, gpu="A100") / _val(m, a, gpu="A40") for a in labels}
            more = [a for a in labels if ratio[a] > 1]
            lo, hi = min(ratio.values()), max(ratio.values())
            lo = quote("the smallest ratio of an algorithm's welfare on all-A100 to all-A40",
                       lo)
            hi = quote("the largest ratio of an algorithm's welfare on all-A100 to all-A40",
                       hi)
            speed, m100, m40 = self.node_ratio()
            why = (f"in lorasched's profiles an A100 node processes "
                   f"{quote('samples per slot, A100 node over A40 node', speed)} times the "
                   f"samples per slot of an A40 and has "
                   f"{quote('A100 memory, GB', m100)} GB of memory against "
                   f"{quote('A40 memory, GB', m40)} GB, room for more adapters next to the "
                   "shared base model")
            if len(more) == len(labels):
                parts.append(f"Every algorithm earns {lo} to {hi} times as much on the "
                             f"all-A100 cluster as on the all-A40 one (means over seeds): "
                             f"{why}.")
            else:
                fewer = [a for a in labels if a not in more]
                parts.append(f"{_cap(_who(more)) or 'No algorithm'} earn"
                             f"{'s' if len(more) == 1 else ''} more on the all-A100 cluster "
                             f"than on the all-A40 one, {_who(fewer)} not ({lo} to "
                             f"{hi} times as much), although {why}.")
        parts += [self.standing(ds, CALIBRATED), self.standing(ds, LEMMA2)]
        if "mix" in gpus:
            col = m.sel(gpu="mix")
            lead, tuned = _leader(col), _leader(col, RIVALS[CALIBRATED])
            parts.append(f"On the mixed cluster the paper singles out, pdFTSP earns "
                         f"{_num(_val(col, LEMMA2))} with the Lemma-2 constants, the best of "
                         f"the paper's baselines, {lead}, {_num(_val(col, lead))}; with the "
                         f"calibrated constants it earns {_num(_val(col, CALIBRATED))}, the "
                         f"best baseline tuned alike, {tuned}, {_num(_val(col, tuned))}.")
        return paragraphs(_sentences(*parts))
