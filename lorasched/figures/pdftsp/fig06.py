"""Fig. 6: impact of per-node capacity."""

from __future__ import annotations

from ...model import profiles
from ..base import paragraphs, verdict
from .common import (
    CALIBRATED,
    LEMMA2,
    VARIANTS,
    SweepFigure,
    _and,
    _cap,
    _leader,
    _mean,
    _num,
    _rank_rows,
    _sentences,
    _val,
    _who,
)


class Fig06(SweepFigure):
    key, number, title, axis = "fig06", "Fig. 6", "Impact of per-node capacity", "gpu"
    every = "on every cluster"
    _names = {"A100": "all-A100", "A40": "all-A40", "mix": "mixed"}

    def axes(self, size):
        return {"gpu": ["A100", "A40", "mix"]}

    def where(self, xs):
        return (f"on the {_and(self._names.get(str(x), x) for x in xs)} "
                f"cluster{'s' if len(xs) > 1 else ''}")

    def claim_rows(self, ds):
        m = _mean(ds)
        rows = []
        for variant in (LEMMA2, CALIBRATED):
            a100, a40 = (float(m.sel(algorithm=variant, gpu=g)) for g in ("A100", "A40"))
            rows.append({"claim": "A100 nodes give more welfare than A40",
                         "variant": VARIANTS[variant], "paper": "yes",
                         "ours": f"A100 {a100:.0f} vs A40 {a40:.0f}",
                         "verdict": verdict(a100 > a40)})
        return rows + _rank_rows(m.sel(gpu=["mix"]), "gpu", "pdFTSP best on mixed GPUs", "yes")

    def findings(self, ds):
        m = _mean(ds)
        gpus = {str(g) for g in m["gpu"].values}
        parts = []
        if {"A100", "A40"} <= gpus:
            labels = [str(a) for a in m["algorithm"].values]
            ratio = {a: _val(m, a, gpu="A100") / _val(m, a, gpu="A40") for a in labels}
            more = [a for a in labels if ratio[a] > 1]
            lo, hi = min(ratio.values()), max(ratio.values())
            a100, a40 = (profiles.GPUS[profiles.GPU_ALIASES[g]] for g in ("A100", "A40"))
            speed = profiles.node_capacity(a100) / profiles.node_capacity(a40)
            why = (f"in lorasched's profiles an A100 node processes {speed:.1f} times the "
                   f"samples per slot of an A40 and has {a100.memory_gb:.0f} GB of memory "
                   f"against {a40.memory_gb:.0f} GB, room for more adapters next to the shared "
                   "base model")
            if len(more) == len(labels):
                parts.append(f"Every algorithm earns {lo:.1f} to {hi:.1f} times as much on the "
                             f"all-A100 cluster as on the all-A40 one, as in the paper: {why}.")
            else:
                fewer = [a for a in labels if a not in more]
                parts.append(f"{_cap(_who(more)) or 'No algorithm'} earn"
                             f"{'s' if len(more) == 1 else ''} more on the all-A100 cluster "
                             f"than on the all-A40 one, {_who(fewer)} not ({lo:.1f} to "
                             f"{hi:.1f} times as much), although {why}.")
        parts += [self.standing(ds, CALIBRATED), self.standing(ds, LEMMA2)]
        if "mix" in gpus:
            col = m.sel(gpu="mix")
            lead = _leader(col)
            parts.append(f"On the mixed cluster the paper singles out, pdFTSP earns "
                         f"{_num(_val(col, CALIBRATED))} with the calibrated constants and "
                         f"{_num(_val(col, LEMMA2))} with the Lemma-2 constants, the best "
                         f"baseline, {lead}, {_num(_val(col, lead))}.")
        return paragraphs(_sentences(*parts))
