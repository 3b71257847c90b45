"""Column generation for the schedule-selection LP (P1, eq. 5), in HiGHS.

The LP relaxation of P1 has one column per (task, schedule) and is solved by column
generation: a restricted master LP over the columns found so far gives duals ``mu_i``
(5a), ``pi_kt`` (5b) and ``sigma_kt`` (5c); the pricing problem of task ``i`` is

    max_l  b_il - sum_(k,t) in l (s_ik pi_kt + r_i sigma_kt)
         = b_i - min_n [ q_in + min_l sum_(k,t) in l (s_ik (rate_kt + pi_kt) + r_i sigma_kt) ],

Algorithm 2's per-task problem with ADDITIVE cell prices (the duals), which the DP
:func:`lorasched.kernels.price_schedules` solves exactly on the work grid. A column whose
reduced cost ``max_l(...) - mu_i`` is positive enters the master.

Why :func:`offline_upper_bound` bounds OPT from above
------------------------------------------------------
At every iteration, ``(mu'_i = max(0, best pricing value of i), pi, sigma)`` satisfies every
constraint (6a) of the dual D1 -- the pricing DP minimises over all schedules of task i on a
grid that RELAXES the work constraint (speeds rounded up, work rounded down, see
:func:`lorasched.kernels.work_units` with ``relaxed``), so no real schedule is missed --
and (6b). By weak duality its objective
``sum mu'_i + sum C_kp pi_kt + sum (C_km - r_b) sigma_kt`` is at least the LP optimum
of P1, which is at least the integer optimum of P1 = the optimum of problem (4) (the
paper's equivalence of P and P1). The bound reported is the smallest such dual objective
over the iterations, so it is valid even if the loop stops early; when no
column prices out it equals the LP optimum.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import highspy
import numpy as np
import xarray as xr
from tqdm import tqdm

from . import kernels
from .scenario import ScenarioArrays, to_arrays

INF = highspy.kHighsInf


class MasterLP:
    """Restricted master of P1's LP relaxation: rows are added lazily, per touched cell.

    Row layout: one convexity row ``sum_l x_il <= 1`` per task (5a), then, for each cell
    (k, t) that some column uses, a compute row (5b) and a memory row (5c) whose right-hand
    sides are the capacities given (full capacities, or residual ones for Titan). Rows of
    new cells are numbered in the order the columns first use them.

    Columns are added in batches (:meth:`add_columns`, one ``addRows`` and one ``addCols``
    per batch): HiGHS keeps the basis of the last solve, so the next solve starts from it
    (new columns nonbasic at 0, new rows' slacks basic). The model, and hence every solve,
    is the same as when the columns are added one by one.
    """

    def __init__(self, n_tasks: int, compute_cap: np.ndarray, memory_cap: np.ndarray):
        self.h = highspy.Highs()
        self.h.setOptionValue("output_flag", False)
        self.h.setOptionValue("threads", 1)
        # re-solves after adding columns must start from the last basis: presolve would
        # discard it (measured: 10x slower re-solves)
        self.h.setOptionValue("presolve", "off")
        self.h.setOptionValue("solver", "simplex")
        self.h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self.n_tasks = n_tasks
        self.compute_cap = compute_cap
        self.memory_cap = memory_cap
        self.row_of = np.full(compute_cap.shape, -1, dtype=np.int64)  # compute row of (k, t)
        self._cell_k: list[np.ndarray] = []  # cells with rows, in row order
        self._cell_t: list[np.ndarray] = []
        self.n_cells = 0
        self.col_task: list[int] = []
        self.col_cells: list[tuple[np.ndarray, np.ndarray]] = []
        self.col_vendor: list[int] = []
        self.col_value: list[float] = []
        self.seen: set = set()
        self._add_rows(np.full(n_tasks, 1.0))

    def _add_rows(self, upper: np.ndarray) -> None:
        n = upper.shape[0]
        self.h.addRows(n, np.full(n, -INF), upper.astype(float), 0,
                       np.zeros(n, dtype=np.int32), np.empty(0, dtype=np.int32),
                       np.empty(0))

    @property
    def n_rows(self) -> int:
        return self.n_tasks + 2 * self.n_cells

    @property
    def n_columns(self) -> int:
        return len(self.col_task)

    def add_column(self, task: int, value: float, vendor: int, nodes: np.ndarray,
                   slots: np.ndarray, speed: np.ndarray, r_i: float) -> bool:
        """Add schedule (nodes, slots) of ``task`` with objective ``value`` = b_il.

        Returns False (and adds nothing) if the same schedule is already a column.
        """
        return self.add_columns([(task, value, vendor, nodes, slots, speed, r_i)]) == 1

    def add_columns(self, columns) -> int:
        """Add columns ``(task, value, vendor, nodes, slots, speed, r_i)`` (as for
        :meth:`add_column`) in this order, skipping schedules already in the master.
        Returns the number added."""
        fresh = []
        for column in columns:
            task, _, vendor, nodes, slots = column[:5]
            key = (task, vendor, nodes.tobytes(), slots.tobytes())
            if key not in self.seen:
                self.seen.add(key)
                fresh.append(column)
        if not fresh:
            return 0
        row_of = self.row_of
        next_row = self.n_rows
        new_k, new_t = [], []
        for _, _, _, nodes, slots, _, _ in fresh:
            # a schedule uses each cell once (one node per slot), so its new cells are
            # distinct; rows follow the order of first use, as if added one by one
            miss = row_of[nodes, slots] < 0
            if miss.any():
                k, t = nodes[miss], slots[miss]
                row_of[k, t] = next_row + 2 * np.arange(k.size)
                next_row += 2 * k.size
                new_k.append(k)
                new_t.append(t)
        if new_k:
            k = np.concatenate(new_k)
            t = np.concatenate(new_t)
            upper = np.empty(2 * k.size)
            upper[0::2] = self.compute_cap[k, t]
            upper[1::2] = self.memory_cap[k, t]
            self._add_rows(upper)
            self.n_cells += k.size
            self._cell_k.append(k)
            self._cell_t.append(t)
        n = len(fresh)
        sizes = np.array([1 + 2 * c[3].size for c in fresh], dtype=np.int64)
        col_start = np.zeros(n, dtype=np.int32)
        np.cumsum(sizes[:-1], out=col_start[1:])
        index = np.empty(int(sizes.sum()), dtype=np.int32)
        value = np.empty(index.size)
        for m, (task, _, _, nodes, slots, speed, r_i) in enumerate(fresh):
            p = int(col_start[m])
            rows = row_of[nodes, slots]
            index[p] = task
            value[p] = 1.0
            index[p + 1: p + sizes[m]: 2] = rows
            index[p + 2: p + sizes[m]: 2] = rows + 1
            value[p + 1: p + sizes[m]: 2] = speed[nodes]
            value[p + 2: p + sizes[m]: 2] = r_i
        cost = np.array([c[1] for c in fresh], dtype=float)
        self.h.addCols(n, cost, np.zeros(n), np.ones(n), index.size, col_start, index, value)
        for task, val, vendor, nodes, slots, _, _ in fresh:
            self.col_task.append(task)
            self.col_cells.append((nodes, slots))
            self.col_vendor.append(vendor)
            self.col_value.append(val)
        return n

    def solve_lp(self, shape: tuple[int, int]):
        """Solve the LP; return (objective, mu[n_tasks], pi[K, T], sigma[K, T])."""
        self.h.run()
        status = self.h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"master LP: {self.h.modelStatusToString(status)}")
        dual = np.asarray(self.h.getSolution().row_dual)
        mu = np.maximum(dual[: self.n_tasks], 0.0)
        pi = np.zeros(shape)
        sigma = np.zeros(shape)
        if self.n_cells:
            if len(self._cell_k) > 1:
                self._cell_k = [np.concatenate(self._cell_k)]
                self._cell_t = [np.concatenate(self._cell_t)]
            k, t = self._cell_k[0], self._cell_t[0]
            rows = self.row_of[k, t]
            pi[k, t] = np.maximum(dual[rows], 0.0)
            sigma[k, t] = np.maximum(dual[rows + 1], 0.0)
        return self.h.getInfo().objective_function_value, mu, pi, sigma

    def solve_integer(self, time_limit: float, mip_rel_gap: float, max_nodes: int = 2**31 - 1):
        """Make every column binary and solve the MILP over the columns generated.

        ``max_nodes`` (branch-and-bound nodes) limits the work deterministically;
        ``time_limit`` (seconds) makes the outcome depend on the machine's speed. Returns
        (selected column indices, objective, HiGHS dual bound, HiGHS MIP gap, hit_limit).
        """
        n = self.n_columns
        if n == 0:
            return np.empty(0, dtype=np.int64), 0.0, 0.0, 0.0, False
        self.h.changeColsIntegrality(
            n, np.arange(n, dtype=np.int32),
            np.array([highspy.HighsVarType.kInteger] * n))
        self.h.setOptionValue("time_limit", float(time_limit))
        self.h.setOptionValue("mip_rel_gap", float(mip_rel_gap))
        self.h.setOptionValue("mip_max_nodes", int(max_nodes))
        self.h.setOptionValue("presolve", "on")
        self.h.run()
        status = self.h.getModelStatus()
        hit = status != highspy.HighsModelStatus.kOptimal
        info = self.h.getInfo()
        if info.primal_solution_status == 0:  # no incumbent
            return np.empty(0, dtype=np.int64), 0.0, float(info.mip_dual_bound), np.inf, hit
        x = np.asarray(self.h.getSolution().col_value)
        chosen = np.flatnonzero(x > 0.5)
        return (chosen, float(info.objective_function_value), float(info.mip_dual_bound),
                float(info.mip_gap), hit)


@dataclass
class PricingInput:
    """What the pricing DP needs to know about the tasks (per task: its vendor options)."""

    arrays: ScenarioArrays
    starts: list[np.ndarray]  # per task: first usable slot of each vendor option
    fixed: list[np.ndarray]  # per task: vendor price of each option
    vendors: list[np.ndarray]  # per task: vendor index of each option (-1: none)
    units: list[tuple[np.ndarray, int]]  # per task: (speed units, W)


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
            starts.append(a + arrays.vendor_delay[i, opts])
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
    costs, best, nodes, slots = kernels.price_schedules(
        int(arrays.arrival[i]), int(arrays.deadline[i]), W, units, arrays.speed[i],
        float(arrays.memory[i]), arrays.op_cost_rate, pi, sigma, compute_left, memory_left,
        inp.starts[j], inp.fixed[j])
    if best < 0:
        return None
    value = float(arrays.bid[i] - inp.fixed[j][best] - costs[best])
    return value, int(inp.vendors[j][best]), nodes, slots


def column_value(arrays: ScenarioArrays, i: int, q: float, nodes, slots) -> float:
    """b_il = b_i - q_in - sum e_ikt over the schedule's cells."""
    e = float((arrays.speed[i, nodes] * arrays.op_cost_rate[nodes, slots]).sum())
    return float(arrays.bid[i]) - q - e


@dataclass
class ColumnGeneration:
    """Outcome of :func:`solve_lp`."""

    master: MasterLP
    lp_value: float
    bound: float  # smallest valid dual objective seen (>= LP optimum >= integer optimum)
    iterations: int
    converged: bool  # no column priced out, or the bound met the LP within gap_tol
    seconds: float
    history: list = field(default_factory=list)  # (iteration, lp value, dual bound, columns)
    feasible: np.ndarray | None = None  # per task in the input: some schedule exists


def solve_lp(arrays: ScenarioArrays, tasks, compute_cap, memory_cap, *, fit_compute=None,
             fit_memory=None, work_resolution=8, relaxed=True, vendor_of=None,
             max_iterations=200, time_limit=np.inf, gap_tol=0.0, tol=1e-9, progress=False,
             desc="column generation") -> ColumnGeneration:
    """Column generation for the LP of P1 over ``tasks`` with the given cell capacities
    (full ones for the offline bound; residual ones for one Titan slot).

    A task may use cell (k, t) if it fits in ``fit_compute``/``fit_memory`` (default: the
    capacities themselves; the aggregated bound passes one node's capacity there). Stops
    when no column prices out (LP optimal), after ``max_iterations`` or ``time_limit``
    seconds, or once (bound - LP) <= gap_tol * bound.
    """
    fit_compute = compute_cap if fit_compute is None else fit_compute
    fit_memory = memory_cap if fit_memory is None else fit_memory
    start = time.perf_counter()
    tasks = np.asarray(tasks, dtype=np.int64)
    K, T = arrays.n_nodes, arrays.n_slots
    master = MasterLP(len(tasks), compute_cap, memory_cap)
    inp = pricing_input(arrays, tasks, work_resolution, relaxed, vendor_of)
    pi = np.zeros((K, T))
    sigma = np.zeros((K, T))
    mu = np.zeros(len(tasks))
    lp_value = 0.0
    best_bound = np.inf
    feasible = np.zeros(len(tasks), dtype=bool)
    history = []
    converged = False
    it = 0
    bar = tqdm(total=max_iterations, desc=desc, unit="it", disable=not progress)
    while it < max_iterations:
        it += 1
        columns = []
        mu_feasible = 0.0
        for j, i in enumerate(tasks):
            found = price(inp, j, int(i), pi, sigma, fit_compute, fit_memory)
            if found is None:
                continue
            feasible[j] = True
            value, vendor, nodes, slots = found
            mu_feasible += max(0.0, value)
            if value - mu[j] > tol * max(1.0, abs(float(arrays.bid[i]))):
                q = 0.0 if vendor < 0 else float(arrays.vendor_price[i, vendor])
                b_il = column_value(arrays, int(i), q, nodes, slots)
                columns.append((j, b_il, vendor, nodes, slots, arrays.speed[i],
                                float(arrays.memory[i])))
        added = master.add_columns(columns)
        dual_obj = (mu_feasible + float((compute_cap * pi).sum())
                    + float((memory_cap * sigma).sum()))
        best_bound = min(best_bound, dual_obj)
        if added == 0:
            converged = True
            history.append((it, lp_value, best_bound, master.n_columns))
            break
        lp_value, mu, pi, sigma = master.solve_lp((K, T))
        history.append((it, lp_value, best_bound, master.n_columns))
        bar.update(1)
        bar.set_postfix(lp=f"{lp_value:.4g}", bound=f"{best_bound:.4g}",
                        cols=master.n_columns)
        if best_bound - lp_value <= gap_tol * abs(best_bound):
            converged = True  # proven within gap_tol (also catches round-off at gap_tol=0)
            break
        if time.perf_counter() - start > time_limit:
            break
    bar.close()
    if converged:
        best_bound = min(best_bound, lp_value) if master.n_columns else 0.0
    return ColumnGeneration(master, lp_value, best_bound, it, converged,
                            time.perf_counter() - start, history, feasible)


@dataclass(frozen=True)
class UpperBound:
    """An upper bound on the offline optimum of problem (4); see the module docstring."""

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
    keys = {}
    rep, count = [], []
    for k in range(arrays.n_nodes):
        key = (int(arrays.compute_capacity[k]), float(arrays.memory_capacity[k]),
               arrays.speed[:, k].tobytes(), arrays.op_cost_rate[k].tobytes())
        if key in keys:
            count[keys[key]] += 1
        else:
            keys[key] = len(rep)
            rep.append(k)
            count.append(1)
    rep = np.array(rep)
    agg = arrays._replace(compute_capacity=arrays.compute_capacity[rep],
                          memory_capacity=arrays.memory_capacity[rep],
                          op_cost_rate=np.ascontiguousarray(arrays.op_cost_rate[rep]),
                          speed=np.ascontiguousarray(arrays.speed[:, rep]))
    return agg, np.array(count, dtype=float)


def offline_upper_bound(scenario: xr.Dataset, *, work_resolution: int = 8,
                        max_iterations: int = 200, time_limit: float = 600.0,
                        gap_tol: float = 1e-3, progress: bool = False) -> UpperBound:
    """Upper bound on the offline optimum (eq. 4) at paper scale: the LP relaxation of
    P1 (eq. 5) by column generation, with Algorithm 2's DP (additive prices) as pricing.

    Valid at any iteration (see the module docstring); ``converged`` says whether it is
    the LP optimum itself. Identical nodes are aggregated first
    (:func:`aggregate_identical_nodes`), which leaves the LP optimum unchanged. The loop
    stops when no column prices out, or when the bound is within ``gap_tol`` (relative) of
    the restricted LP, or at ``max_iterations`` / ``time_limit`` (seconds); whichever
    comes first, ``bound`` is valid. ``work_resolution`` sets the relaxed work grid (a
    finer grid gives a tighter, never an invalid, bound).
    """
    arrays = to_arrays(scenario)
    agg, count = aggregate_identical_nodes(arrays)
    T = arrays.n_slots
    one_compute = np.repeat(agg.compute_capacity[:, None].astype(float), T, axis=1)
    usable = agg.memory_capacity - agg.base_model_memory
    one_memory = np.repeat(usable[:, None], T, axis=1)
    cg = solve_lp(agg, np.arange(agg.n_tasks), one_compute * count[:, None],
                  one_memory * count[:, None], fit_compute=one_compute,
                  fit_memory=one_memory, work_resolution=work_resolution, relaxed=True,
                  max_iterations=max_iterations, time_limit=time_limit, gap_tol=gap_tol,
                  progress=progress, desc="offline LP bound")
    return UpperBound(bound=float(cg.bound), lp_value=float(cg.lp_value),
                      converged=cg.converged, iterations=cg.iterations,
                      columns=cg.master.n_columns, seconds=cg.seconds,
                      history=tuple(cg.history))
