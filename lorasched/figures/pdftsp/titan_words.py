"""Titan's per-slot solve as the pages state it: the figures' solve and the gaps it certified
in a figure's runs (:func:`titan_solve_text`), the budget-limited reading's settings in
words (:data:`MIP_WORDS`, :func:`titan_options_text`, :func:`_titan_budget`) and a block
that runs the figures under that reading (:func:`titan_setting`)."""

from __future__ import annotations

import contextlib
import inspect
import json

import xarray as xr

from ...model.errors import InputError
from ...pdftsp.baselines import titan_per_slot as _titan
from ..numbers import num, pct, quote
from . import common
from .common import _and
from .strict import GAP_QUOTE, titan_gaps

#: each per-slot MILP setting in words, for a page that names it
#: (:data:`lorasched.pdftsp.baselines.titan_per_slot.MIP_SETTINGS`)
MIP_WORDS = {
    "root": "the slot's mixed-integer program over every generated column, the solver "
            "stopping after its root node",
    "nodes1000": "the slot's mixed-integer program over every generated column, at most "
                 "1,000 branch-and-bound nodes",
    "rounding": "the solver completing the slot's last linear program's solution, with no "
                "branching",
    **{name: "relaxation enforced neighbourhood search (RENS) over the fractional columns "
             "of the slot's column-generation linear program: the columns it sets to 1 "
             "kept, an integer program over the rest solved with at most 10,000 "
             "branch-and-bound nodes" + extra
       for name, extra in (("rens", ""), ("rens_pscost", ", pseudo-cost branching"),
                           ("rens_lean", ", pseudo-cost branching and a cut pool of one "
                                         "cut"))},
}


def titan_options_text(options: dict) -> str:
    """Titan's options as a page states them: ``mip = rens_lean (RENS over ...)``, each
    MILP setting explained in words (:data:`MIP_WORDS`); "defaults" if there are none."""
    if not options:
        return "defaults"
    return ", ".join(f"{k} = {v}" + (f" ({MIP_WORDS[v]})" if k == "mip" and v in MIP_WORDS
                                     else "") for k, v in options.items())


def titan_solve_text(ds: xr.Dataset) -> str:
    """The figures' Titan in words, with the gaps its slots certified in ``ds``'s runs (the
    largest per-slot gap over every run, and the slots a node count stopped) where ``ds``
    holds them."""
    options = _declaration(ds).get("options", {}).get("titan", common.TITAN_OPTIONS)
    if options.get("solver", "milp") != "milp":
        return f"Titan: budget-limited, {titan_options_text(options)}."
    nodes = options.get("mip_max_nodes", _titan.MILP_MAX_NODES)
    text = (f"Titan: each slot's mixed-integer linear program (MILP) in compact form solved "
            f"to a certified {num(100 * _titan.MILP_REL_GAP)} % gap (the solver's bound; the "
            f"paper names Gurobi, whose default is 0.01 %), within {num(nodes)} "
            "branch-and-bound nodes a slot")
    gaps = titan_gaps(ds)  # one source with the claims table's line (:mod:`.strict`)
    if not gaps["runs"]:
        return text + "."
    stopped = gaps["capped"]
    return (text + f"; over its {gaps['runs']} runs here the largest certified gap of any "
            "slot is " + quote(GAP_QUOTE, 100 * gaps["max_gap"],
                               lambda v: pct(v, sign=False))
            + (", and no slot stopped at the node count." if not stopped else
               f", and {stopped} slot{'' if stopped == 1 else 's'} stopped at the node count "
               "(each keeps the schedule and the bound it had)."))


@contextlib.contextmanager
def titan_setting(mip: str):
    """Within the block, the figures' sweeps run Titan (either objective) in its
    budget-limited reading (:data:`TITAN_BUDGET_OPTIONS`) with the per-slot MILP setting
    ``mip``, instead of :data:`TITAN_OPTIONS` (as a named option of their cells, so the
    settings' cells never mix in a store)."""
    if mip not in _titan.MIP_SETTINGS:
        raise InputError(f"mip must be one of {tuple(_titan.MIP_SETTINGS)}, got {mip!r}")
    saved = common.TITAN_OPTIONS
    common.TITAN_OPTIONS = {**common.TITAN_BUDGET_OPTIONS, "mip": mip}
    try:
        yield
    finally:
        common.TITAN_OPTIONS = saved


def _declaration(ds: xr.Dataset) -> dict:
    """The sweep declaration a dataset was made from (``{}`` if it does not say)."""
    return json.loads(ds.attrs["sweep"]) if "sweep" in ds.attrs else {}


def _titan_budget(ds: xr.Dataset | None = None) -> tuple[int, str, int]:
    """Titan's per-slot budget in the runs behind ``ds``: column-generation rounds, the
    MILP setting's name (:data:`lorasched.pdftsp.baselines.titan_per_slot.MIP_SETTINGS`) and its
    branch-and-bound node limit -- its defaults, overridden by the sweep's options
    (without ``ds``: by :data:`TITAN_BUDGET_OPTIONS`)."""
    params = inspect.signature(_titan.run).parameters
    budget = {k: params[k].default for k in ("max_cg_iterations", "mip", "mip_max_nodes")}
    options = {} if ds is None else _declaration(ds).get("options", {})
    budget.update(options.get("titan", common.TITAN_BUDGET_OPTIONS))
    budget["mip"] = budget["mip"] or "root"
    nodes = budget["mip_max_nodes"]
    if nodes is None:
        nodes = _titan.MIP_SETTINGS[budget["mip"]][1]
    return int(budget["max_cg_iterations"]), str(budget["mip"]), int(nodes)


#: the words for the HiGHS options of :data:`lorasched.pdftsp.baselines.titan_per_slot.MIP_SETTINGS`
#: that change how a sub-MILP is solved, each defining its term at first use
_MIP_OPTION_WORDS = {
    "mip_pscost_minreliable": lambda v: (
        "branching on pseudo-costs (it picks the variable to branch on from the objective "
        "changes seen in earlier branchings, instead of trial solves of candidate branches, "
        "strong branching)" if v == 0 else None),
    "mip_pool_soft_limit": lambda v: (
        f"a cut pool (the cutting planes the HiGHS solver keeps and re-applies) held to about "
        f"{num(v)} cut{'' if v == 1 else 's'}"),
}


def _titan_solve(mip: str, nodes: int) -> str:
    """How a per-slot MILP is solved under setting ``mip`` with ``nodes`` nodes, in words,
    from :data:`lorasched.pdftsp.baselines.titan_per_slot.MIP_SETTINGS` (every term defined)."""
    method, _, options = _titan.MIP_SETTINGS[mip]
    if method == "rens":
        extra = [w for k, f in _MIP_OPTION_WORDS.items() if k in options
                 and (w := f(options[k]))]
        return ("is solved by RENS (relaxation enforced neighbourhood search): the columns "
                "the column-generation linear program sets to 0 or 1 are fixed there and the "
                "MILP over its fractional columns alone is solved by branch and bound, with "
                "at most " + quote("Titan's branch-and-bound node limit per slot", nodes)
                + " nodes" + (", " + _and(extra) if extra else "")
                + ", with no branching over the fixed columns")
    if nodes == 0:
        return ("is not branched on (`mip_max_nodes = 0`): the HiGHS solver rounds the "
                "column-generation linear program's solution by fixing the columns it already "
                "sets to 0 or 1 and solving a small MILP over the rest, and keeps that solution")
    if nodes == 1:
        return ("is solved at the root node only (its linear relaxation, cuts and the HiGHS "
                "solver's cheap heuristics, no branching)")
    return ("is solved with at most "
            + quote("Titan's branch-and-bound node limit per slot", nodes)
            + " branch-and-bound nodes")


def _titan_branches(ds: xr.Dataset | None = None) -> bool:
    """Whether Titan's per-slot MILP branches over all its columns in ``ds``'s runs."""
    _, mip, nodes = _titan_budget(ds)
    return _titan.MIP_SETTINGS[mip][0] != "rens" and nodes > 0


def _titan_limits(ds: xr.Dataset) -> str:
    """"each slot's MILP chooses only among ... and is solved ..." for ``ds``'s runs."""
    rounds, mip, nodes = _titan_budget(ds)
    return (f"each slot's MILP chooses only among the schedules found in {rounds} rounds of "
            f"column generation and {_titan_solve(mip, nodes)}")
