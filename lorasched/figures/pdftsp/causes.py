"""pdFTSP's causes tested: every headline row of the paper's setting that is not
reproduced, with its root cause (declared here, :data:`ROOT_OF`) and judged again with the
mechanism its why names taken away -- pdFTSP's prices from the constants calibrated on the
held-out day, against the baselines tuned alike (the fair comparison, which counts) and
against the same untuned baselines (shown, not counted) (Figs. 4-9), and the critical
payment in place of eq. (14) (Fig. 10) -- with the effect on it (:mod:`..causes`)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import xarray as xr

from ...model.errors import InputError
from ..causes import Intervention, joined, line, open_rows
from .catalog import FIGURES
from .common import TUNED_ALGORITHMS

#: why a counterfactual with pdFTSP's calibrated constants against the baselines as the
#: paper ran them is not a fair comparison
_UNFAIR = "pdFTSP tuned, its baselines not"
#: the counterfactuals the rows' whys imply: key -> what it changes
INTERVENTIONS = {
    "calibrated": Intervention(
        "prices lowered, baselines untuned", "pdFTSP's prices from the constants calibrated "
        "on the held-out day in place of Lemma 2's (whose price floor prices tasks out), the "
        "baselines as the paper ran them", changes_algorithm=True, unfair=_UNFAIR),
    "calibrated_tuned": Intervention(
        "prices lowered, baselines tuned alike", "pdFTSP's prices from the constants "
        "calibrated on the held-out day in place of Lemma 2's, each baseline with a free "
        "option (EFT's and NTM's posted price, cost-plus's markup) tuned by the same scan on "
        "the same day (Titan has none)", changes_algorithm=True),
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


@dataclass(frozen=True)
class RootCause:
    """The mechanism behind a headline row that is not reproduced, as its why names it.

    Parameters
    ----------
    label, what : str
        Its name in the table of root causes, and the mechanism in a sentence.
    """

    label: str
    what: str


#: the root causes of pdFTSP's headline rows: key -> :class:`RootCause`
ROOT_CAUSES = {
    "prices": RootCause(
        "Lemma 2's constants price tasks out",
        "Lemma 2's α and β, with money in lorasched's unit, raise pdFTSP's compute price far "
        "above Lemma 2's floor, so it rejects tasks while nodes are partly free"),
    "vendors": RootCause(
        "more vendors lower only the labelling price",
        "a vendor changes only the labelling price pdFTSP pays, a small share of the "
        "welfare per task, so the rise with more vendors is small beside the seeds' spread"),
    "payment": RootCause(
        "eq. (14) leaves out the operating cost",
        "the payment of eq. (14) leaves out the schedule's operating cost that admission by "
        "eq. (11) counts"),
    "bound": RootCause(
        "the offline bound is a relaxation",
        "the ratio is taken to a bound on the offline optimum (its LP relaxation or the "
        "MILP's dual bound), which may lie above the optimum itself"),
    "titan_solve": RootCause(
        "Titan's per-slot MILP as lorasched solves it",
        "Titan's time is that of lorasched's solver on each slot's MILP, to a certified "
        "gap, on the slots this workload brings"),
}
#: each headline claim's root cause, were it not reproduced: (figure key, the start of the
#: claim's name) -> a key of :data:`ROOT_CAUSES`; "" matches every claim of the figure, and
#: of several starts that match a claim the longest decides
ROOT_OF = {
    **{(key, ""): "prices" for key in ("fig04", "fig06", "fig07", "fig08", "fig09")},
    ("fig05", ""): "vendors",
    ("fig10", ""): "payment",
    ("fig11", ""): "payment",
    ("fig12", ""): "bound",
    ("fig13", ""): "titan_solve",
}
#: the figure keys by the number a claims table names them with ("Fig. 4" -> "fig04")
_KEYS = {fig.number: key for key, fig in FIGURES.items()}


def root_cause(figure: str, claim: str) -> str:
    """The key of the root cause (:data:`ROOT_CAUSES`) :data:`ROOT_OF` declares for
    ``claim`` of ``figure`` (its key, "fig04", or number, "Fig. 4"). ``InputError`` where
    none is declared: every headline row that is not reproduced has one."""
    key = _KEYS.get(figure, figure)
    found = [start for (k, start) in ROOT_OF if k == key and claim.startswith(start)]
    if not found:
        raise InputError(f"{figure}, {claim!r}: no root cause is declared for it (ROOT_OF)")
    return ROOT_OF[(key, max(found, key=len))]


def counterfactual(ds: xr.Dataset, *, tuned: bool = False) -> xr.Dataset:
    """``ds`` (a sweep figure's data) with pdFTSP's runs under Lemma 2's constants
    replaced, cell by cell and seed by seed, by its runs under the calibrated constants;
    every baseline's run unchanged, or, with ``tuned``, each baseline with a free option
    (:data:`~.common.TUNED_ALGORITHMS`) replaced by its run tuned alike (``<algorithm>
    _tuned`` in ``ds``; Titan has nothing to tune). ``InputError`` where ``tuned`` asks for
    a tuned run ``ds`` does not hold."""
    out = ds.copy()
    at = {"constants": _LEMMA2, "algorithm": "pdftsp"}
    algorithms = [str(a) for a in ds["algorithm"].values]
    swaps = [(a, f"{a}_tuned") for a in TUNED_ALGORITHMS if a in algorithms] if tuned else []
    missing = [t for _, t in swaps if t not in algorithms]
    if missing:
        raise InputError(f"the baselines tuned alike ({', '.join(missing)}) are not in "
                         "these data: the figure's part \"tuned\" did not run")
    for name, da in ds.data_vars.items():
        if "algorithm" not in da.dims:
            continue
        swapped = da.copy()
        if "constants" in da.dims:
            swapped.loc[at] = da.sel(constants=_CALIBRATED, algorithm="pdftsp")
        for a, t in swaps:
            swapped.loc[{"algorithm": a}] = da.sel(algorithm=t)
        out[name] = swapped
    return out


#: the columns of :func:`causes`
COLUMNS = ["figure", "claim", "variant", "verdict", "ours", "counterfactual", "judged there",
           "ours there", "effect", "root cause"]


def causes(size: str = "small", *, seeds: int | None = None, store=None) -> pd.DataFrame:
    """Every pdFTSP headline row that is not reproduced, with its root cause
    (:func:`root_cause`, the key), the counterfactual its why implies
    (:data:`INTERVENTIONS`) and its effect (:func:`~..causes.line`): on Figs. 4-9, the row
    judged again on :func:`counterfactual`'s data, against the baselines tuned alike (the
    fair comparison, which the row's conclusion takes) and against the baselines as the
    paper ran them (shown, marked unfair, never counted), joined in one line
    (:func:`~..causes.joined`); on Fig. 10, the claim under the critical payment; any other
    row "none run here"."""
    out = []
    for fig in FIGURES.values():
        data = fig.data(size, seeds=seeds, store=store)
        rows = open_rows(fig, fig.claim_rows(data))
        if not rows:
            continue
        roots = [root_cause(fig.key, r["claim"]) for r in rows]
        if fig.key in WELFARE_FIGURES:
            again = {key: fig.claim_rows(counterfactual(data, tuned=key == "calibrated_tuned"))
                     for key in ("calibrated_tuned", "calibrated")}
            for r, root in zip(rows, roots, strict=True):
                out.append({"figure": fig.number, "root cause": root} | joined([
                    line(r, INTERVENTIONS[key], _same(rows_there, r))
                    for key, rows_there in again.items()]))
        elif fig.key == "fig10":
            critical = next(a for a in fig.claim_rows(data) if a["claim"] == _CRITICAL)
            for r, root in zip(rows, roots, strict=True):
                out.append({"figure": fig.number, "root cause": root} | line(
                    r, INTERVENTIONS["critical"], critical if r["claim"] == _EQ14
                    else None))
        else:
            out += [{"figure": fig.number, "root cause": root} | line(r)
                    for r, root in zip(rows, roots, strict=True)]
    return pd.DataFrame(out, columns=COLUMNS)


def _same(rows: list[dict], row: dict) -> dict:
    """The row of ``rows`` with ``row``'s claim and variant."""
    return next(a for a in rows if a["claim"] == row["claim"]
                and a.get("variant") == row.get("variant"))


__all__ = ["COLUMNS", "INTERVENTIONS", "ROOT_CAUSES", "ROOT_OF", "RootCause",
           "WELFARE_FIGURES", "causes", "counterfactual", "root_cause"]
