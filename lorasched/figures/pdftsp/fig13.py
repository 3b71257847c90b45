"""Fig. 13: running time per task."""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..base import paragraphs, verdict
from .common import (
    LEMMA2,
    TUNED,
    SweepFigure,
    _and,
    _load_name,
    _mean,
    _titan_budget,
    _titan_limits,
    _trend,
)
from .fig04 import Fig04


class Fig13(SweepFigure):
    key, number, title, axis = "fig13", "Fig. 13", "Running time per task", "nodes"

    def axes(self, size):
        return Fig04().axes(size)

    def claim_rows(self, ds):
        m = _mean(ds, "decision_time_mean")
        ks = m["nodes"].values
        pd_t = m.sel(algorithm=LEMMA2).values
        ti = m.sel(algorithm="Titan").values
        return [
            {"claim": "pdFTSP decides faster per task than Titan", "paper": "yes",
             "ours": f"{(ti / pd_t).min():.0f}×–{(ti / pd_t).max():.0f}× faster",
             "verdict": verdict(bool(np.all(ti > pd_t)))},
            {"claim": "Titan's time per task grows with the problem", "paper": "yes",
             "ours": " → ".join(f"{x * 1e3:.1f} ms" for x in ti)
             + f" (K = {ks[0]}..{ks[-1]})", "verdict": verdict(ti[-1] > ti[0])}]

    def findings(self, ds, load: xr.Dataset | None = None):
        """The page's prose from the scale runs ``ds`` (and, if given, Fig. 8's runs
        ``load``, in which the problem grows with the load). Times vary between runs."""
        ms = _mean(ds, "decision_time_mean") * 1e3
        pd_ms = ms.sel(algorithm=[LEMMA2, TUNED])
        ti = ms.sel(algorithm="Titan").values
        text = (f"pdFTSP decides a task in {float(pd_ms.min()):.2g} to {float(pd_ms.max()):.2g} "
                "ms (a numba-compiled dynamic programme over the task's window); Titan needs "
                f"{ti.min():.2g} to {ti.max():.2g} ms per task, its slot's column generation and "
                "MILP spread over the slot's tasks.")

        def growth(t, what, first, last):
            if _trend(t) == "grows":
                return f"grows with {what}"
            return (f"is larger at {last} than at {first}, though not at every step"
                    if t[-1] > t[0] else f"does not grow with {what}")

        ks = list(ms["nodes"].values)
        grows = [f"{growth(ti, 'the number of nodes', f'K = {ks[0]}', f'K = {ks[-1]}')} "
                 f"({' → '.join(f'{x:.2g}' for x in ti)} ms)"]
        if load is not None:
            lm = (_mean(load, "decision_time_mean") * 1e3).sel(algorithm="Titan")
            ends = [f"the {_load_name(x)} load" for x in lm["load"].values[[0, -1]]]
            grows.append(f"{growth(lm.values, 'the load', *ends)} "
                         f"({' → '.join(f'{x:.2g}' for x in lm.values)} ms)")
        text += f" Titan's time per task {_and(grows)}."
        ratio = ti / ms.sel(algorithm=LEMMA2).values
        rows = self.claim_rows(ds)
        agree = [r for r in rows if r["verdict"] == "agrees"]
        text += (f" With the Lemma-2 constants pdFTSP decides {ratio.min():.0f} to "
                 f"{ratio.max():.0f} times faster than Titan. "
                 + ("Both findings of the paper hold" if len(agree) == len(rows) else
                    f"{len(agree)} of the paper's {len(rows)} findings hold")
                 + " with Titan's budget as in the figures: "
                 + _titan_limits(ds).replace("each slot's MILP", "Titan's per-slot MILP") + ".")
        if _titan_budget(ds)[1] == 0:
            text += (" With branching, Titan's time per task is larger still (see deviation (i) "
                     "in the chapter on the algorithm).")
        return paragraphs(text)
