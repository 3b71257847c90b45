"""pdFTSP's causes tested: every headline row of the paper's setting that is not
reproduced, judged again with the mechanism its why names taken away -- pdFTSP's prices
from the constants calibrated on the held-out day, against the same untuned baselines
(Figs. 4-9), and the critical payment in place of eq. (14) (Fig. 10) -- with the effect
on it (:mod:`..causes`)."""

from __future__ import annotations

import pandas as pd
import xarray as xr

from ..causes import Intervention, line, open_rows
from .catalog import FIGURES

#: the counterfactuals the rows' whys imply: key -> what it changes
INTERVENTIONS = {
    "calibrated": Intervention(
        "prices lowered", "pdFTSP's prices from the constants calibrated on the held-out "
        "day in place of Lemma 2's (whose price floor prices tasks out), the baselines as "
        "the paper ran them", changes_algorithm=True),
    "critical": Intervention(
        "critical payment", "each admitted task pays its critical bid, which counts the "
        "schedule's operating cost that eq. (14) leaves out", changes_algorithm=True),
}
#: the constants' labels in a figure's data (``constants`` coordinate)
_LEMMA2, _CALIBRATED = "Lemma 2", "calibrated"
#: the figures whose claims are on welfare, where pdFTSP's prices decide what it admits
WELFARE_FIGURES = ("fig04", "fig05", "fig06", "fig07", "fig08", "fig09")
#: Fig. 10's rows: the paper's payment, and the same claim under the critical payment
_EQ14 = "no task gains by misreporting (eq. (14) payment)"
_CRITICAL = "no task gains by misreporting (critical payment)"


def counterfactual(ds: xr.Dataset) -> xr.Dataset:
    """``ds`` (a sweep figure's data) with pdFTSP's runs under Lemma 2's constants
    replaced, cell by cell and seed by seed, by its runs under the calibrated constants;
    every baseline's run unchanged."""
    out = ds.copy()
    at = {"constants": _LEMMA2, "algorithm": "pdftsp"}
    for name, da in ds.data_vars.items():
        if {"constants", "algorithm"} <= set(da.dims):
            swapped = da.copy()
            swapped.loc[at] = da.sel(constants=_CALIBRATED, algorithm="pdftsp")
            out[name] = swapped
    return out


def causes(size: str = "small", *, seeds: int | None = None, store=None) -> pd.DataFrame:
    """Every pdFTSP headline row that is not reproduced, with the counterfactual its why
    implies (:data:`INTERVENTIONS`) and its effect (:func:`~..causes.line`): on Figs. 4-9,
    the row judged again on :func:`counterfactual`'s data (the margin or gain of pdFTSP
    with calibrated prices over the same baselines); on Fig. 10, the claim under the
    critical payment; any other row "none run here"."""
    out = []
    for fig in FIGURES.values():
        data = fig.data(size, seeds=seeds, store=store)
        rows = open_rows(fig, fig.claim_rows(data))
        if not rows:
            continue
        if fig.key in WELFARE_FIGURES:
            again = fig.claim_rows(counterfactual(data))
            for r in rows:
                after = next(a for a in again if a["claim"] == r["claim"]
                             and a.get("variant") == r.get("variant"))
                out.append({"figure": fig.number} | line(
                    r, INTERVENTIONS["calibrated"], after))
        elif fig.key == "fig10":
            critical = next(a for a in fig.claim_rows(data) if a["claim"] == _CRITICAL)
            for r in rows:
                out.append({"figure": fig.number} | line(
                    r, INTERVENTIONS["critical"], critical if r["claim"] == _EQ14
                    else None))
        else:
            out += [{"figure": fig.number} | line(r) for r in rows]
    return pd.DataFrame(out, columns=["figure", "claim", "variant", "verdict", "ours",
                                      "counterfactual", "judged there", "ours there",
                                      "effect"])


__all__ = ["INTERVENTIONS", "WELFARE_FIGURES", "causes", "counterfactual"]
