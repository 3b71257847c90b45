"""Titan (SoCC'22) adapted online, as in pdFTSP's section 5.1: one MILP per slot over the
slot's arrivals, with Titan's progress objective or welfare (:func:`run`). By default each
slot's MILP is solved to a certified gap in compact form (:mod:`lorasched.pdftsp.slot_milp`);
the budget-limited reading (``solver="columns"``: column generation for a fixed number of
rounds, then the MILP over the columns, :data:`MIP_SETTINGS`) stays as an option. See
:doc:`/baselines` and :doc:`/reference/pdftsp_baselines`.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
from tqdm import tqdm

from ...model.errors import InputError
from .. import bound, slot_milp
from ..decisions import CellCollector, Decisions
from ..pricing import posted_prices
from ..scenario import MEMORY_TOLERANCE, ScenarioArrays
from .vendors import random_vendor

OBJECTIVES = ("progress", "welfare")
#: how each slot's MILP is solved: ``"milp"`` (default), the compact MILP to a certified
#: relative gap (:func:`lorasched.pdftsp.slot_milp.solve_slot`); ``"columns"``, the
#: budget-limited reading: ``max_cg_iterations`` rounds of column generation, then the MILP
#: over the generated columns as ``mip`` says (:data:`MIP_SETTINGS`)
SOLVERS = ("milp", "columns")
#: the relative gap each slot's compact MILP is solved to (``solver="milp"``), and its
#: branch-and-bound node limit (a count; more on a small model, up to
#: ``lorasched.pdftsp.slot_milp.BRANCH_WORK`` divided by its variables)
MILP_REL_GAP = 0.01
MILP_MAX_NODES = 200
#: HiGHS options of the compact MILP: without presolve (its probing took half of a large
#: slot's time; measured below in the baselines chapter)
MILP_OPTIONS = {"presolve": "off"}
#: how the compact MILP's solve starts (``milp_start``): ``"lp_rens_repair"`` (default: in
#: the stages of ``lorasched.pdftsp.slot_milp.STAGES``, branch and bound only where the LP
#: relaxation's rounding, its two repairs of the tasks the LP splits
#: (:func:`lorasched.pdftsp.slot_milp._repaired_start`) and a sub-MILP over its
#: neighbourhood are not within the gap of its bound), ``"lp_rens"`` (the same without the
#: repairs), ``"none"`` (HiGHS finds its own first incumbent), ``"lp"`` (the LP
#: relaxation's integral part completed greedily) or ``"greedy"`` (a greedy schedule
#: alone). Measured on seven days (five at K = 100, one at K = 200, one Philly), the
#: default with ``tie_break="early_cells"`` kept ``"lp_rens"``'s welfare within 0.5 % at a
#: third to a half of its CPU on the synthetic days (K = 100 high load, seed 1: 41 CPU-s
#: against 110), and the Philly day's burst slot at a 3.2 % gap instead of 30 % (in one
#: run; the figures' Philly days stop at 16-25 %, the baselines chapter). With
#: ``"fewest_cells"`` instead, the repairs keep the LP's cells wherever in a task's window
#: they lie, and with end-of-day deadlines the day admitted 2,319 tasks instead of 2,493.
#: Earlier, on two days (K = 50 medium load, seed 2; K = 100 high load, seed 1), ``"lp"``
#: took 58 s and 146 s against ``"none"``'s 168 s and 201 s yet admitted 884 and 1,783
#: tasks against 918 and 1,835: which of a slot's near-optimal schedules is kept moves
#: the day by 3-4 %.
MILP_STARTS = ("lp_rens", "none", "lp", "greedy", "lp_rens_repair")
#: with the progress objective (every task worth 1, no cell has a cost), the compact MILP
#: takes among the slot's optima one with the fewest cells: each cell costs this much, so
#: that no count of cells (at most a few thousand) outweighs one task
CELL_PENALTY = 1e-4
#: among a slot's schedules of equal value, which the cell penalty asks for
#: (``tie_break``): ``"early_cells"`` (default), where a cell's penalty grows with its slot
#: t to CELL_PENALTY * (1 + t / T) (at most twice it, so that still no count of cells
#: outweighs a task): Titan's JCT-minded preference for finishing early, which keeps the
#: repaired stage 0 from holding a day-long window's late cells; or ``"fewest_cells"``
#: (a flat penalty; the baselines chapter measures both)
TIE_BREAKS = ("fewest_cells", "early_cells")

#: How each slot's MILP over the generated columns is solved: named budgets, every limit a
#: count. Nothing in the pdFTSP paper says its Titan proved each slot optimal, and the
#: TITAN authors' code caps every solve (Gurobi, 30 s a round), so lorasched stops early.
#: Each entry is ``(method, mip_max_nodes, HiGHS options)``; ``method`` is ``"milp"`` (HiGHS
#: on the MILP over all the columns, :meth:`lorasched.lp.MasterLP.solve_integer`) or
#: ``"rens"`` (:meth:`lorasched.lp.MasterLP.solve_fixed`):
#:
#: * ``"root"`` (default): HiGHS processes the root node only (``mip_max_nodes = 1``: root
#:   LP, cuts, the cheap heuristics), with no restart and without the RINS and RENS
#:   sub-MIPs, which took most of the root's time on these set-packing models;
#: * ``"nodes1000"``: up to 1000 branch-and-bound nodes with HiGHS's defaults (a K = 100
#:   high-load day takes about 20 minutes on 2 cores, ``"root"`` about 4);
#: * ``"rounding"``: ``mip_max_nodes = 0``: HiGHS completes the last restricted LP's
#:   solution as a start (fixing the columns it sets to 0 or 1, a sub-MIP over the rest)
#:   and stops after presolve, with no root LP;
#: * ``"rens"``: the same idea done outside HiGHS's presolve: keep the
#:   columns the last LP sets to 1, drop those it sets to 0, and solve the MILP over the
#:   fractional ones alone (with what the kept ones leave of each row) to a relative gap of
#:   ``mip_rel_gap``, at most 10,000 nodes, with no restart, RINS or RENS inside it. On
#:   K = 100 medium load (seed 1) it took 24.7 s a day against rounding's 34.0 s, with
#:   2,645 tasks admitted against 2,608; the speed page measures all four at K = 100, high
#:   load;
#: * ``"rens_pscost"``: ``"rens"`` with pseudo-cost branching that trusts a variable's
#:   pseudo-costs from the first observation (``mip_pscost_minreliable = 0``: no strong
#:   branching). The sub-MILP is still
#:   solved to ``mip_rel_gap``, so each slot's objective is the same optimum (checked on all 420
#:   sub-MILPs of three K = 100 days: the same value in every one); only which of several optimal
#:   schedules is kept can differ. Its sub-MILPs took 39 % less time on a trace-driven day
#:   (MLaaS, seed 1), 22 % on a synthetic one, 14 % on the oracle's high-load day.
#: * ``"rens_lean"`` (the book's figures): ``"rens_pscost"``
#:   with a soft limit of one cut on HiGHS's cut pool (``mip_pool_soft_limit = 1``; HiGHS's
#:   default is 10,000, beyond which it ages cuts out of the pool faster). The root's
#:   separation rounds were most of a sub-MILP's time (about 3,000 cuts found for 100
#:   columns). Still solved to ``mip_rel_gap``: on the 559 sub-MILPs of four held-out days
#:   (seed 4: K = 100 medium and high load, the oracle's high load, MLaaS), captured and
#:   re-solved alone, the same optimum in every one in half the time (116.6 s -> 58.1 s;
#:   soft limits of 100, 30, 10 and 3 took 75.7, 71.6, 63.3 and 60.1 s); which of several
#:   optimal schedules a slot keeps can differ.
#:
#: The book's speed page (``lorasched bench titan``) measures them on seeds 1-3 at
#: K = 100, high load.
_QUIET_ROOT = {"mip_allow_restart": False, "mip_heuristic_run_rins": False,
               "mip_heuristic_run_rens": False}
MIP_SETTINGS = {
    "root": ("milp", 1, _QUIET_ROOT),
    "nodes1000": ("milp", 1000, {}),
    "rounding": ("milp", 0, {}),
    "rens": ("rens", 10_000, _QUIET_ROOT),
    "rens_pscost": ("rens", 10_000, {**_QUIET_ROOT, "mip_pscost_minreliable": 0}),
    "rens_lean": ("rens", 10_000, {**_QUIET_ROOT, "mip_pscost_minreliable": 0,
                                   "mip_pool_soft_limit": 1}),
}


#: simplex iterations after which a slot's column-generation LP solve is taken as stalled
#: and solved again from a fresh basis with the primal simplex
#: (:meth:`lorasched.lp.MasterLP.solve_lp`): a count, so results stay machine-independent.
#: The warm-started solves of K = 100 days take at most about 800 iterations; the one stall
#: seen (K = 100, high load, seed 1, slot 16, under ``"rens_lean"``) ran 6.3 million.
STALL_ITERATIONS = 100_000


def progress_view(arrays: ScenarioArrays) -> ScenarioArrays:
    """``arrays`` as the faithful Titan sees them: every bid replaced by 1 (the progress of a
    completed task), vendor prices and operating costs by 0, so that the per-slot P1's
    objective is titan-socc22 eq. (1) and nothing in it depends on a bid or a cost."""
    return arrays._replace(bid=np.ones(arrays.n_tasks),
                           vendor_price=np.zeros_like(arrays.vendor_price),
                           op_cost_rate=np.zeros_like(arrays.op_cost_rate))


class _Settings(NamedTuple):
    """How each slot's P1 is solved (:data:`SOLVERS`, :data:`MIP_SETTINGS`)."""

    solver: str  # "milp" or "columns"
    method: str  # with "columns": "milp" or "rens"
    mip_max_nodes: int
    mip_options: dict
    mip_rel_gap: float
    max_cg_iterations: int
    time_limit: float  # seconds per slot, inf: none
    work_resolution: int
    cell_penalty: float
    milp_start: str = "none"
    penalty_growth: float = 0.0


def _settings(objective, solver, mip, mip_max_nodes, mip_rel_gap, max_cg_iterations,
              time_limit, work_resolution, milp_start=None,
              tie_break=None) -> _Settings:
    """The checked solver settings, defaults resolved for the solver."""
    if objective not in OBJECTIVES:
        raise InputError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    if solver not in SOLVERS:
        raise InputError(f"solver must be one of {SOLVERS}, got {solver!r}")
    if solver == "milp" and (mip is not None or np.isfinite(time_limit or np.inf)):
        raise InputError("mip and time_limit apply to solver='columns' only; the compact MILP "
                         "(solver='milp') is solved to mip_rel_gap within mip_max_nodes")
    if solver != "milp" and milp_start is not None:
        raise InputError("milp_start applies to solver='milp' only")
    if solver != "milp" and tie_break is not None:
        raise InputError("tie_break applies to solver='milp' only")
    tie_break = ("early_cells" if solver == "milp" else "fewest_cells") if tie_break is None \
        else tie_break
    if tie_break not in TIE_BREAKS:
        raise InputError(f"tie_break must be one of {TIE_BREAKS}, got {tie_break!r}")
    milp_start = ("lp_rens_repair" if solver == "milp" else "none") if milp_start is None \
        else milp_start
    if milp_start not in MILP_STARTS:
        raise InputError(f"milp_start must be one of {MILP_STARTS}, got {milp_start!r}")
    mip = "root" if mip is None else mip
    if mip not in MIP_SETTINGS:
        raise InputError(f"mip must be one of {tuple(MIP_SETTINGS)}, got {mip!r}")
    if solver == "milp":
        method, options = "compact", dict(MILP_OPTIONS)
        mip_max_nodes = MILP_MAX_NODES if mip_max_nodes is None else mip_max_nodes
        mip_rel_gap = MILP_REL_GAP if mip_rel_gap is None else mip_rel_gap
    else:
        method, setting_nodes, options = MIP_SETTINGS[mip]
        mip_max_nodes = setting_nodes if mip_max_nodes is None else mip_max_nodes
        mip_rel_gap = 1e-4 if mip_rel_gap is None else mip_rel_gap
    if not 0 <= mip_rel_gap < 1:
        raise InputError(f"mip_rel_gap must be in [0, 1), got {mip_rel_gap!r}")
    time_limit = np.inf if time_limit is None else time_limit
    penalty = CELL_PENALTY if objective == "progress" else 0.0
    return _Settings(solver, method, int(mip_max_nodes), options, float(mip_rel_gap),
                     max_cg_iterations, time_limit, work_resolution, penalty, milp_start,
                     1.0 if tie_break == "early_cells" else 0.0)


def _settings_attributes(settings: _Settings, mip: str) -> dict:
    """The settings as the result's attributes record them."""
    return {"solver": settings.solver, "time_limit": float(settings.time_limit),
            "mip_rel_gap": float(settings.mip_rel_gap),
            "max_cg_iterations": (int(settings.max_cg_iterations)
                                  if settings.solver == "columns" else 0),
            "mip": (mip or "root") if settings.solver == "columns" else "compact",
            "mip_max_nodes": int(settings.mip_max_nodes),
            "cell_penalty": float(settings.cell_penalty),
            "milp_start": settings.milp_start,
            "tie_break": "early_cells" if settings.penalty_growth else "fewest_cells"}


def _empty_stats(T: int) -> dict[str, np.ndarray]:
    """The per-slot statistics before any slot is solved (NaN: no solve in the slot)."""
    stats = {name: np.full(T, np.nan) for name in
             ("seconds", "mip_gap", "gap", "lp_bound", "objective", "columns", "cg_iterations")}
    stats["nodes"] = np.full(T, np.nan)
    stats["stage"] = np.full(T, np.nan)
    stats["hit_limit"] = np.zeros(T)
    stats["lp_stalls"] = np.zeros(T)
    stats["batch"] = np.zeros(T)
    return stats


def _batch(arrays: ScenarioArrays, t, objective: str, price, out: Decisions) -> np.ndarray:
    """B_t: the tasks arriving in slot t (with the welfare objective, those whose bid
    covers the posted price; the others are rejected here)."""
    batch = np.flatnonzero(arrays.arrival == t)
    if objective == "welfare":  # the oracle's users buy at the posted price
        buys = arrays.bid[batch] >= price[batch]
        out.reason[batch[~buys]] = "price_above_bid"
        batch = batch[buys]
    return batch


def _solve_slot(seen: ScenarioArrays, batch, compute_left, memory_left, vendor_of,
                settings: _Settings, start: float):
    """P1 (eq. 5) of one slot: column generation on its LP relaxation, then the MILP over
    the generated columns. (cg, feasible, chosen columns, value, MIP gap, hit a limit)."""
    cg, feasible = bound.solve_lp(seen, batch, compute_left, memory_left,
                                  work_resolution=settings.work_resolution, relaxed=False,
                                  vendor_of=vendor_of, max_iterations=settings.max_cg_iterations,
                                  time_limit=settings.time_limit,
                                  stall_iterations=STALL_ITERATIONS)
    time_limit = settings.time_limit
    left = max(time_limit - (time.perf_counter() - start), 0.1 * time_limit)
    solve = cg.master.solve_fixed if settings.method == "rens" else cg.master.solve_integer
    chosen, value, _, mip_gap, hit = solve(left, settings.mip_rel_gap, settings.mip_max_nodes,
                                           settings.mip_options)
    return cg, feasible, chosen, value, mip_gap, hit or not cg.converged


def _commit(arrays: ScenarioArrays, batch, master, chosen, price, compute_left, memory_left,
            out: Decisions, cells: CellCollector) -> None:
    """Admit the tasks of the chosen columns: take their cells off the residual capacity
    (which stays within (5b)-(5c)), record vendor, payment and cells."""
    for c in chosen:
        i = int(batch[master.col_group[c]])  # group j is task batch[j]
        nodes, times = master.col_cells[c]
        compute_left[nodes, times] -= arrays.speed[i, nodes]
        memory_left[nodes, times] -= arrays.memory[i]
        out.admitted[i] = True
        out.reason[i] = "admitted"
        out.chosen_vendor[i] = master.col_label[c]  # the column's vendor
        out.payment[i] = price[i]
        cells.add(i, nodes, times)
    assert (compute_left >= 0).all() and (memory_left >= -MEMORY_TOLERANCE).all()


def _record(stats: dict, t, seconds: float, cg, value: float, mip_gap: float, hit) -> None:
    """Slot t's statistics; ``gap`` = (LP bound - MILP value) / LP bound."""
    lp_bound = cg.bound  # a valid dual bound at any CG iteration
    stats["seconds"][t] = seconds
    stats["mip_gap"][t] = mip_gap
    stats["lp_bound"][t] = lp_bound
    stats["objective"][t] = value
    stats["gap"][t] = (lp_bound - value) / abs(lp_bound) if lp_bound > 0 else 0.0
    stats["hit_limit"][t] = float(hit)
    stats["columns"][t] = cg.master.n_columns
    stats["cg_iterations"][t] = cg.iterations
    stats["lp_stalls"][t] = cg.master.stalls


def _starts_values(seen: ScenarioArrays, batch, vendor_of) -> tuple[np.ndarray, np.ndarray]:
    """Per task of ``batch``: its first usable slot (its arrival, plus its vendor's delay if
    it needs pre-processing, 4c) and its value b_i - q_in as ``seen`` prices it."""
    need = np.asarray(seen.needs_preprocessing[batch], dtype=bool)
    start = np.asarray(seen.arrival[batch], dtype=np.int64).copy()
    value = np.asarray(seen.bid[batch], dtype=float).copy()
    vendor = vendor_of[batch]
    with_vendor = need & (vendor >= 0)
    rows, cols = batch[with_vendor], vendor[with_vendor]
    start[with_vendor] += np.asarray(seen.vendor_delay[rows, cols], dtype=np.int64)
    value[with_vendor] -= seen.vendor_price[rows, cols]
    # needing a vendor where the marketplace has none: no usable slot
    start[need & (vendor < 0)] = np.asarray(seen.deadline[batch], dtype=np.int64)[
        need & (vendor < 0)] + 1
    return start, value


def _solve_compact(seen: ScenarioArrays, batch, compute_left, memory_left, vendor_of,
                   settings: _Settings) -> slot_milp.SlotSolution:
    """P1 of one slot as the compact MILP, to ``settings.mip_rel_gap``."""
    starts, value = _starts_values(seen, batch, vendor_of)
    return slot_milp.solve_slot(seen, batch, starts, value, compute_left, memory_left,
                                work_resolution=settings.work_resolution,
                                cell_penalty=settings.cell_penalty,
                                penalty_growth=settings.penalty_growth,
                                mip_rel_gap=settings.mip_rel_gap,
                                max_nodes=settings.mip_max_nodes,
                                options=settings.mip_options,
                                warm=None if settings.milp_start == "none"
                                else settings.milp_start)


def _commit_compact(arrays: ScenarioArrays, batch, sol: slot_milp.SlotSolution, vendor_of,
                    price, compute_left, memory_left, out: Decisions,
                    cells: CellCollector) -> None:
    """Admit the tasks the compact MILP admits, on its cells (as :func:`_commit`)."""
    for j in np.flatnonzero(sol.admitted):
        i = int(batch[j])
        nodes, times = sol.cells[j]
        compute_left[nodes, times] -= arrays.speed[i, nodes]
        memory_left[nodes, times] -= arrays.memory[i]
        out.admitted[i] = True
        out.reason[i] = "admitted"
        out.chosen_vendor[i] = vendor_of[i]
        out.payment[i] = price[i]
        cells.add(i, nodes, times)
    assert (compute_left >= 0).all() and (memory_left >= -MEMORY_TOLERANCE).all()


def _record_compact(stats: dict, t, seconds: float, sol: slot_milp.SlotSolution) -> None:
    """Slot t's statistics under the compact MILP: its bound is the solver's, so ``gap``
    and ``mip_gap`` are the same certified gap; ``columns`` counts the model's variables."""
    stats["seconds"][t] = seconds
    stats["mip_gap"][t] = sol.gap
    stats["gap"][t] = sol.gap
    stats["lp_bound"][t] = sol.bound
    stats["objective"][t] = sol.value
    stats["hit_limit"][t] = float(sol.hit_limit)
    stats["columns"][t] = sol.variables
    stats["nodes"][t] = sol.nodes
    stats["stage"][t] = sol.stage


def run(arrays: ScenarioArrays, rng: np.random.Generator, *, objective: str = "progress",
        price_per_sample: float | None = None, solver: str = "milp",
        mip_rel_gap: float | None = None, mip_max_nodes: int | None = None,
        max_cg_iterations: int = 10, mip: str | None = None, time_limit: float | None = None,
        work_resolution: int = 8, milp_start: str | None = None,
        tie_break: str | None = None, progress: bool = False) -> Decisions:
    """The baseline ``titan``: Titan as an online per-slot MILP (module docstring).

    Each slot's work is limited by counts, so the same seed gives the same result on any
    machine. With ``solver="milp"`` (default) each slot's MILP is solved in compact form
    to a relative gap of ``mip_rel_gap`` (default ``MILP_REL_GAP``, 1 %), certified by the
    solver's bound, within ``mip_max_nodes`` nodes (default ``MILP_MAX_NODES``); with
    ``solver="columns"``, at most ``max_cg_iterations`` rounds of column generation, then
    the MILP over the columns solved as ``mip`` says.

    Parameters
    ----------
    arrays : ScenarioArrays
        The scenario.
    rng : numpy.random.Generator
        Draws each task's vendor uniformly at random before the first slot, as NTM does.
    objective : {"progress", "welfare"}, optional
        ``"progress"`` (titan-socc22 eq. 1, default) or ``"welfare"`` (sees every bid).
    price_per_sample : float, optional
        The posted price per sample (default the scenario's ``value_density_min``).
    solver : {"milp", "columns"}, optional
        How each slot's MILP is solved (``SOLVERS``; default ``"milp"``).
    mip_rel_gap : float, optional
        The relative gap a slot's MILP is solved to (default 0.01 with ``"milp"``, 1e-4
        for the sub-MILPs of ``"columns"``).
    mip_max_nodes : int, optional
        Branch-and-bound nodes per slot at most (default ``MILP_MAX_NODES`` with
        ``"milp"``; with ``"columns"`` it replaces the ``mip`` setting's limit).
    max_cg_iterations : int, optional
        With ``"columns"``: rounds of column generation per slot at most (default 10).
    mip : {"root", "nodes1000", "rounding", "rens", "rens_pscost", "rens_lean"}, optional
        With ``"columns"``: how the MILP over the columns is solved (``MIP_SETTINGS``,
        default ``"root"``); an error with ``"milp"``.
    time_limit : float, optional
        With ``"columns"``: seconds per slot (default none), a wall-clock limit at the
        price of machine-dependent results.
    work_resolution : int, optional
        R of the work discretisation (default 8).
    milp_start : {"lp_rens", "none", "lp", "greedy", "lp_rens_repair"}, optional
        With ``"milp"``: how each slot's solve starts (``MILP_STARTS``, default
        ``"lp_rens_repair"``: the LP bound, its rounding and repairs, their
        neighbourhood, branch and bound only where they fall short of the gap).
    tie_break : {"fewest_cells", "early_cells"}, optional
        With ``"milp"`` and the progress objective: which of a slot's schedules of equal
        value the cell penalty asks for (``TIE_BREAKS``, default ``"early_cells"``).
    progress : bool, optional
        Show a progress bar (default False).

    Returns
    -------
    Decisions
        With Titan's solve time, certified gap and bound per slot in ``per_slot``.

    Raises
    ------
    InputError
        If ``objective``, ``solver``, ``mip``, ``milp_start`` or ``tie_break`` is not one
        of its choices.
    """
    settings = _settings(objective, solver, mip, mip_max_nodes, mip_rel_gap,
                         max_cg_iterations, time_limit, work_resolution, milp_start,
                         tie_break)
    seen = progress_view(arrays) if objective == "progress" else arrays
    out = Decisions.empty(arrays.n_tasks, arrays.n_nodes, arrays.n_slots)
    price, per_sample = posted_prices(arrays, price_per_sample)
    vendor_of = random_vendor(arrays, rng)
    compute_left, memory_left = arrays.residual()
    stats = _empty_stats(arrays.n_slots)
    cells = CellCollector()
    slots = np.unique(arrays.arrival)
    bar = tqdm(slots, desc="titan", unit="slot", disable=not progress)
    for t in bar:
        start = time.perf_counter()
        batch = _batch(arrays, t, objective, price, out)  # B_t
        stats["batch"][t] = batch.size
        if batch.size == 0:
            continue
        if settings.solver == "milp":
            sol = _solve_compact(seen, batch, compute_left, memory_left, vendor_of, settings)
            feasible = sol.feasible
            out.reason[batch[feasible]] = "not_selected"
            out.reason[batch[~feasible]] = "no_feasible_schedule"
            _commit_compact(arrays, batch, sol, vendor_of, price, compute_left, memory_left,
                            out, cells)
        else:
            cg, feasible, chosen, value, mip_gap, hit = _solve_slot(
                seen, batch, compute_left, memory_left, vendor_of, settings, start)
            out.reason[batch[feasible]] = "not_selected"
            out.reason[batch[~feasible]] = "no_feasible_schedule"
            _commit(arrays, batch, cg.master, chosen, price, compute_left, memory_left, out,
                    cells)
        seconds = time.perf_counter() - start
        out.decision_time[batch] = seconds / batch.size
        if settings.solver == "milp":
            _record_compact(stats, t, seconds, sol)
        else:
            _record(stats, t, seconds, cg, value, mip_gap, hit)
        if progress:  # the gap certified in this slot and the worst so far
            bar.set_postfix(gap=f"{stats['gap'][t]:.2%}",
                            worst=f"{np.nanmax(stats['gap'][:t + 1]):.2%}", refresh=False)
    cells.store(out)
    out.per_slot = stats
    finite = np.isfinite(stats["gap"])
    out.attrs = {**_settings_attributes(settings, mip),
                 "slots_hit_limit": int(stats["hit_limit"].sum()),
                 "max_gap": float(np.nanmax(stats["gap"])) if finite.any() else 0.0,
                 "vendor_rule": "random", "price_per_sample": per_sample,
                 "objective": objective}
    return out


def run_oracle(arrays: ScenarioArrays, rng: np.random.Generator, *,
               price_per_sample: float | None = None, solver: str = "milp",
               mip_rel_gap: float | None = None, mip_max_nodes: int | None = None,
               max_cg_iterations: int = 10, mip: str | None = None,
               time_limit: float | None = None, work_resolution: int = 8,
               milp_start: str | None = None, tie_break: str | None = None,
               progress: bool = False) -> Decisions:
    """The policy ``titan_oracle``: Titan with the welfare objective, which sees every bid.

    :func:`run` with ``objective="welfare"``; the parameters are :func:`run`'s.

    Returns
    -------
    Decisions
    """
    return run(arrays, rng, objective="welfare", price_per_sample=price_per_sample,
               solver=solver, mip_rel_gap=mip_rel_gap, mip_max_nodes=mip_max_nodes,
               max_cg_iterations=max_cg_iterations, mip=mip, time_limit=time_limit,
               work_resolution=work_resolution, milp_start=milp_start,
               tie_break=tie_break, progress=progress)
