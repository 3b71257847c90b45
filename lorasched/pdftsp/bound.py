"""pdFTSP's LP bound: the schedule-selection LP (P1, eq. 5) by column generation, priced by
Algorithm 2's DP under additive duals (:func:`solve_lp`, :func:`offline_upper_bound`). Why it
bounds OPT: :doc:`/baselines`; the pricing problem: :doc:`/reference/offline`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import xarray as xr

from ..lp import Column, ColumnGeneration, MasterLP, column_generation
from . import cg_kernels, kernels
from .candidate_index import node_groups
from .scenario import ScenarioArrays, to_arrays


@dataclass
class PricingInput:
    """What the pricing DP needs to know about the tasks (per task: its vendor options),
    and the same packed into plain arrays for :func:`lorasched.pdftsp.cg_kernels.price_batch`
    (:meth:`packed`)."""

    arrays: ScenarioArrays
    starts: list[np.ndarray]  # per task: first usable slot of each vendor option
    fixed: list[np.ndarray]  # per task: vendor price of each option
    vendors: list[np.ndarray]  # per task: vendor index of each option (-1: none)
    units: list[tuple[np.ndarray, int]]  # per task: (speed units, W)

    def packed(self, tasks: np.ndarray) -> dict:
        """The arguments of :func:`~lorasched.pdftsp.cg_kernels.price_batch` that do not
        change between rounds, for ``tasks`` (the tasks this input was built for)."""
        a = self.arrays
        n = len(tasks)
        K = a.n_nodes
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum([s.size for s in self.starts], out=ptr[1:])
        return {
            "arrival": np.asarray(a.arrival[tasks], dtype=np.int64),
            "deadline": np.asarray(a.deadline[tasks], dtype=np.int64),
            "W": np.array([w for _, w in self.units], dtype=np.int64),
            "units": (np.stack([u for u, _ in self.units]) if n
                      else np.zeros((0, K), dtype=np.int64)),
            "speed": (np.stack([a.speed[int(i)] for i in tasks]) if n
                      else np.zeros((0, K), dtype=np.asarray(a.speed[0:0]).dtype)),
            "memory": np.asarray(a.memory[tasks], dtype=np.float64),
            "bid": np.asarray(a.bid[tasks], dtype=np.float64),
            "opt_ptr": ptr,
            "starts": (np.concatenate(self.starts).astype(np.int64) if n
                       else np.zeros(0, dtype=np.int64)),
            "fixed": (np.concatenate(self.fixed).astype(np.float64) if n
                      else np.zeros(0)),
        }


def pricing_input(arrays: ScenarioArrays, tasks, work_resolution: int, relaxed: bool,
                  vendor_of: np.ndarray | None = None) -> PricingInput:
    """Vendor options and work grid of each task. ``vendor_of[i]`` >= 0 fixes the vendor
    (Titan's random choice); otherwise every vendor is an option (offline bound)."""
    starts, fixed, vendors, units = [], [], [], []
    for i in tasks:
        a = int(arrays.arrival[i])
        if arrays.needs_preprocessing[i]:
            if vendor_of is not None and vendor_of[i] >= 0:
                opts = np.array([vendor_of[i]])
            else:
                opts = np.arange(arrays.n_vendors)
            starts.append(a + arrays.vendor_delay[i, opts])  # (4c): a_i + h_in
            fixed.append(arrays.vendor_price[i, opts].astype(float))
            vendors.append(opts.astype(np.int64))
        else:
            starts.append(np.array([a], dtype=np.int64))
            fixed.append(np.zeros(1))
            vendors.append(np.array([-1], dtype=np.int64))
        units.append(kernels.work_units(arrays.speed[i], int(arrays.work[i]), work_resolution,
                                        relaxed))
    return PricingInput(arrays, starts, fixed, vendors, units)


def price(inp: PricingInput, j: int, i: int, pi, sigma, compute_left, memory_left):
    """Best schedule of task ``i`` (``j``-th of the input) at duals pi, sigma.

    Returns (value = b_i - q - priced cost, vendor, nodes, slots) or None if infeasible.
    """
    arrays = inp.arrays
    units, W = inp.units[j]
    if W == 0 or inp.starts[j].size == 0:
        return None
    costs, best, nodes, slots = cg_kernels.price_schedules(
        int(arrays.arrival[i]), int(arrays.deadline[i]), W, units, arrays.speed[i],
        float(arrays.memory[i]), arrays.op_cost_rate, pi, sigma, compute_left, memory_left,
        inp.starts[j], inp.fixed[j])
    if best < 0:
        return None
    value = float(arrays.bid[i] - inp.fixed[j][best] - costs[best])
    return value, int(inp.vendors[j][best]), nodes, slots


def column_value(arrays: ScenarioArrays, i: int, q: float, nodes, slots) -> float:
    """b_il = b_i - q_in - sum e_ikt over the schedule's cells (objective of P1, eq. 5)."""
    e = float(arrays.op_cost(i, nodes, slots).sum())
    return float(arrays.bid[i]) - q - e


def solve_lp(arrays: ScenarioArrays, tasks, compute_cap, memory_cap, *, fit_compute=None,
             fit_memory=None, work_resolution=8, relaxed=True, vendor_of=None,
             max_iterations=200, time_limit=np.inf, gap_tol=0.0, tol=1e-9, progress=False,
             desc="column generation", highs_options=None, stall_iterations=None
             ) -> tuple[ColumnGeneration, np.ndarray]:
    """Column generation for the LP of P1 over ``tasks`` with the given cell capacities
    (full ones for the offline bound; residual ones for one Titan slot).

    Master (:class:`lorasched.lp.MasterLP`): group ``j`` is task ``tasks[j]`` (5a), the
    resources are compute (5b, ``compute_cap``) and memory (5c, ``memory_cap``) per cell
    (k, t); a column's label is its vendor (-1: none). A task may use cell (k, t) if it fits
    in ``fit_compute``/``fit_memory`` (default: the capacities themselves; the aggregated
    bound passes one node's capacity there). Stops when no column prices out (LP optimal),
    after ``max_iterations`` or ``time_limit`` seconds, or once (bound - LP) <= gap_tol *
    bound. ``highs_options``: further HiGHS options of the master LP; ``stall_iterations``:
    its stalled-solve guard (:meth:`lorasched.lp.MasterLP.solve_lp`). Returns the outcome
    and, per task of ``tasks``, whether it has any schedule.
    """
    fit_compute = compute_cap if fit_compute is None else fit_compute
    fit_memory = memory_cap if fit_memory is None else fit_memory
    start = time.perf_counter()
    tasks = np.asarray(tasks, dtype=np.int64)
    master = MasterLP(len(tasks), (compute_cap, memory_cap), highs_options,
                      stall_iterations=stall_iterations)
    inp = pricing_input(arrays, tasks, work_resolution, relaxed, vendor_of)
    packed = inp.packed(tasks)
    feasible = np.zeros(len(tasks), dtype=bool)

    def price_all(mu, duals):
        """Every task's pricing problem at the duals in one kernel call (what :func:`price`
        does task by task), then a column for each task whose reduced cost is positive."""
        pi, sigma = duals
        best, _, improving, mu_feasible, ptr, nodes, slots = cg_kernels.price_batch(
            packed["arrival"], packed["deadline"], packed["W"], packed["units"],
            packed["speed"], packed["memory"], packed["bid"], arrays.op_cost_rate, pi, sigma,
            fit_compute, fit_memory, packed["opt_ptr"], packed["starts"], packed["fixed"],
            np.asarray(mu, dtype=np.float64), float(tol))
        feasible[best >= 0] = True
        columns = []
        for j in np.flatnonzero(improving):
            i = int(tasks[j])
            vendor = int(inp.vendors[j][best[j]])
            q = 0.0 if vendor < 0 else float(arrays.vendor_price[i, vendor])
            cells = (nodes[ptr[j]:ptr[j + 1]].copy(), slots[ptr[j]:ptr[j + 1]].copy())
            b_il = column_value(arrays, i, q, *cells)
            columns.append(Column(int(j), b_il, cells,
                                  (arrays.speed[i][cells[0]], float(arrays.memory[i])),
                                  vendor))
        return columns, mu_feasible

    cg = column_generation(master, price_all, max_iterations=max_iterations,
                           time_limit=time_limit, gap_tol=gap_tol, progress=progress,
                           desc=desc, start=start)
    return cg, feasible


#: HiGHS options of the bound's master LP. Without scaling, the re-solves after each round of
#: columns take 2.3-2.8x less time (K = 100, high load: 175-221 s against 494-517 s on a
#: 2-core machine, ``lorasched bench scale --rows bound``); the LP optimum does not depend on
#: scaling, and the bound stays valid whatever the solver's path (module docstring).
BOUND_HIGHS_OPTIONS = {"simplex_scale_strategy": 0}


@dataclass(frozen=True)
class UpperBound:
    """An upper bound on the offline optimum of problem (4) (the module docstring).

    Parameters
    ----------
    bound : float
        A valid upper bound on OPT, money.
    lp_value : float
        The value of the last restricted master LP (a lower bound on the LP optimum).
    converged : bool
        True when the LP optimum of P1 was reached (within ``gap_tol``).
    iterations : int
        Column-generation iterations run.
    columns : int
        Columns in the final master LP.
    seconds : float
        Wall time.
    history : tuple
        Per iteration: (iteration, restricted LP value, best bound, columns).
    """

    bound: float  # valid upper bound on OPT (money)
    lp_value: float  # value of the last restricted master LP (a lower bound on LP*)
    converged: bool  # True: LP optimum of P1 reached (within gap_tol)
    iterations: int
    columns: int
    seconds: float
    history: tuple  # (iteration, restricted LP value, best bound, columns)


def aggregate_identical_nodes(arrays: ScenarioArrays) -> tuple[ScenarioArrays, np.ndarray]:
    """Merge nodes that are identical for the LP: same capacities, the same speed for every
    task and the same operating cost in every slot. Returns the scenario restricted to one
    representative per class, and the class sizes ``m_c``.

    The LP relaxation of P1 is unchanged when a class of m identical nodes is replaced by one
    node of m-fold capacity (per slot) on which a task may still only use what fits on ONE
    node: an aggregated fractional schedule of weight x splits into m copies of weight x/m,
    one per real node, using (1/m) of the aggregate load on each, so it is feasible for the
    original LP with the same objective; conversely summing a solution of the original LP
    over the class gives one of the aggregated LP. (The INTEGER problems differ, which is
    why only the bound aggregates.)
    """
    group = node_groups(arrays)  # numbered by first appearance: reps in node order
    _, rep, count = np.unique(group, return_index=True, return_counts=True)
    agg = arrays._replace(compute_capacity=arrays.compute_capacity[rep],
                          memory_capacity=arrays.memory_capacity[rep],
                          op_cost_rate=np.ascontiguousarray(arrays.op_cost_rate[rep]),
                          speed=np.ascontiguousarray(arrays.speed[:, rep]))
    return agg, np.array(count, dtype=float)


def offline_upper_bound(scenario: xr.Dataset, *, work_resolution: int = 8,
                        max_iterations: int = 200, time_limit: float = 600.0,
                        gap_tol: float = 1e-3, progress: bool = False) -> UpperBound:
    """An upper bound on the offline optimum of problem (4), at paper scale.

    The LP relaxation of P1 (eq. 5) by column generation, with Algorithm 2's DP (additive
    prices) as pricing. Identical nodes are aggregated first
    (``aggregate_identical_nodes``), which leaves the LP optimum unchanged. The loop stops
    when no column prices out, or when the bound is within ``gap_tol`` of the restricted
    LP, or at ``max_iterations`` / ``time_limit``; whichever comes first, the bound is
    valid (the module docstring says why).

    Parameters
    ----------
    scenario : xarray.Dataset
        A pdFTSP scenario.
    work_resolution : int, optional
        The relaxed work grid (default 8; a finer grid gives a tighter, never an invalid,
        bound).
    max_iterations : int, optional
        Column-generation iterations at most (default 200).
    time_limit : float, optional
        Seconds at most (default 600).
    gap_tol : float, optional
        Relative gap between the bound and the restricted LP at which to stop (default
        1e-3).
    progress : bool, optional
        Show a progress bar (default False).

    Returns
    -------
    UpperBound
        Valid at any iteration; its ``converged`` says whether it is the LP optimum
        itself.

    Raises
    ------
    InputError
        If the scenario breaks its schema
        (:func:`~lorasched.pdftsp.scenario.validate`).
    """
    arrays = to_arrays(scenario)
    agg, count = aggregate_identical_nodes(arrays)
    one_compute, one_memory = agg.residual()  # one node's C_kp and C_km - r_b per slot
    cg, _ = solve_lp(agg, np.arange(agg.n_tasks), one_compute * count[:, None],
                     one_memory * count[:, None], fit_compute=one_compute,
                     fit_memory=one_memory, work_resolution=work_resolution, relaxed=True,
                     max_iterations=max_iterations, time_limit=time_limit, gap_tol=gap_tol,
                     progress=progress, desc="offline LP bound",
                     highs_options=BOUND_HIGHS_OPTIONS)
    return UpperBound(bound=float(cg.bound), lp_value=float(cg.lp_value),
                      converged=cg.converged, iterations=cg.iterations,
                      columns=cg.master.n_columns, seconds=cg.seconds,
                      history=tuple(cg.history))
