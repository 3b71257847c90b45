"""The exact offline optimum of problem (4): every task known in advance, solved as a MILP.

:func:`build_model` writes the MILP, exact in real samples, with tightened rows and a cut;
:func:`offline_opt` solves it with HiGHS and returns a result Dataset. The formulation, row
by row: :doc:`/reference/offline`.
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import highspy
import numpy as np
import xarray as xr

from ..lp import highs
from ..model.errors import InputError
from . import kernels
from .decisions import Decisions
from .result import ResultError, assemble, check_result
from .scenario import MEMORY_TOLERANCE, ScenarioArrays, to_arrays

#: above this many x_ikt variables, :func:`build_model` refuses (memory and solve time)
MAX_X_VARIABLES = 2_000_000


@dataclass
class OfflineModel:
    """Problem (4) as a sparse MILP in HiGHS's column-wise form, plus the variable map.

    Columns are ordered u, z, x. ``u_task[j]`` is the task of the j-th u column; ``z_task``
    / ``z_vendor`` and ``x_task`` / ``x_node`` / ``x_slot`` likewise for z and x.
    ``alone_feasible[i]``: task i has a schedule on an empty cluster (and so variables).
    ``rows`` counts the rows of each constraint family.
    """

    n_tasks: int
    u_task: np.ndarray
    z_task: np.ndarray
    z_vendor: np.ndarray
    x_task: np.ndarray
    x_node: np.ndarray
    x_slot: np.ndarray
    alone_feasible: np.ndarray
    col_cost: np.ndarray
    a_start: np.ndarray
    a_index: np.ndarray
    a_value: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    rows: dict = field(default_factory=dict)

    @property
    def n_u(self) -> int:
        return int(self.u_task.shape[0])

    @property
    def n_z(self) -> int:
        return int(self.z_task.shape[0])

    @property
    def n_x(self) -> int:
        return int(self.x_task.shape[0])

    @property
    def n_variables(self) -> int:
        return self.n_u + self.n_z + self.n_x

    @property
    def n_constraints(self) -> int:
        return int(self.row_lower.shape[0])

    @property
    def n_nonzeros(self) -> int:
        return int(self.a_value.shape[0])


def _eligible(arrays: ScenarioArrays) -> np.ndarray:
    """bool[I, K]: node k could ever run task i (speed, compute and memory on their own)."""
    usable = arrays.usable_memory  # C_km - r_b
    speed = np.asarray(arrays.speed)  # the whole (task, node) matrix: small instances only
    return ((speed > 0) & (speed <= arrays.compute_capacity[None, :])
            & (arrays.memory[:, None] <= usable[None, :] + MEMORY_TOLERANCE))


def _windows(arrays: ScenarioArrays, eligible: np.ndarray):
    """Usable vendors bool[I, N], window start int[I] and alone-feasibility bool[I]."""
    rate = np.where(eligible, arrays.speed, 0).max(axis=1, initial=0)
    a, d, work = arrays.arrival, arrays.deadline, arrays.work
    need = arrays.needs_preprocessing
    h, q = arrays.vendor_delay, arrays.vendor_price
    N = arrays.n_vendors
    usable = (need[:, None] & (a[:, None] + h <= d[:, None])
              & (rate[:, None] * (d[:, None] - a[:, None] - h + 1) >= work[:, None]))
    if N > 1:
        # m dominates n: usable, no later, no dearer, and better somewhere or a lower index
        hm, hn = h[:, :, None], h[:, None, :]
        qm, qn = q[:, :, None], q[:, None, :]
        lower = (np.arange(N)[:, None] < np.arange(N)[None, :])[None]
        dominates = (usable[:, :, None] & (hm <= hn) & (qm <= qn)
                     & ((hm < hn) | (qm < qn) | lower))
        usable &= ~dominates.any(axis=1)
    big = np.iinfo(np.int64).max // 4
    min_delay = np.where(usable, h, big).min(axis=1, initial=big)
    start = np.where(need, a + np.minimum(min_delay, big), a)
    feasible = (rate > 0) & (start <= d) & (rate * (d - start + 1) >= work)
    feasible &= ~need | usable.any(axis=1)
    return usable, start, feasible


def count_x_variables(arrays: ScenarioArrays) -> int:
    """How many x_ikt variables :func:`build_model` would create (cheap, nothing built)."""
    eligible = _eligible(arrays)
    _, start, feasible = _windows(arrays, eligible)
    length = np.where(feasible, arrays.deadline - start + 1, 0)
    return int((eligible.sum(axis=1) * length).sum())


class _Columns(NamedTuple):
    """The variables (4h): columns u, then z, then x; each x cell's row in (4b)-(4c)."""

    tasks: np.ndarray  # the alone-feasible tasks, one u_i column each
    u_col: np.ndarray  # task -> its u column (-1: none)
    z_task: np.ndarray
    z_vendor: np.ndarray
    z_col: np.ndarray
    x_task: np.ndarray
    x_node: np.ndarray
    x_slot: np.ndarray
    x_col: np.ndarray
    x_bc_row: np.ndarray  # x cell -> its (task, slot) row, counted within (4b)-(4c)
    row_base: np.ndarray  # task -> its first row within (4b)-(4c)
    n_bc: int  # rows of (4b)-(4c)


class _Rows:
    """The constraint rows as they are written: the bounds of each family of rows, and the
    coefficients as (row, column, value) triplets, turned into HiGHS's column-wise matrix by
    :meth:`matrix`."""

    def __init__(self):
        self.r, self.c, self.v, self.lower, self.upper = [], [], [], [], []
        self.n = 0

    def family(self, n, lo, hi) -> int:
        """Add ``n`` rows ``lo <= . <= hi``; the index of the first."""
        self.lower.append(np.full(n, lo, dtype=float))
        self.upper.append(np.full(n, hi, dtype=float) if np.isscalar(hi) else hi)
        first = self.n
        self.n += n
        return first

    def coef(self, r, c, v) -> None:
        """Coefficients ``v`` (a value or one per entry) at rows ``r``, columns ``c``."""
        self.r.append(np.asarray(r, dtype=np.int64))
        self.c.append(np.asarray(c, dtype=np.int64))
        self.v.append(np.broadcast_to(np.asarray(v, dtype=float), np.shape(r)))

    def matrix(self, n_col: int):
        """(a_start, a_index, a_value, row_lower, row_upper), zero coefficients dropped."""
        empty = np.empty(0, dtype=np.int64)
        r_all = np.concatenate(self.r) if self.r else empty
        c_all = np.concatenate(self.c) if self.c else empty
        v_all = np.concatenate(self.v) if self.v else np.empty(0)
        keep = v_all != 0  # zero memory (r_i = 0) gives zero coefficients in (4g)
        r_all, c_all, v_all = r_all[keep], c_all[keep], v_all[keep]
        order = np.lexsort((r_all, c_all))
        a_start = np.zeros(n_col + 1, dtype=np.int64)
        np.cumsum(np.bincount(c_all, minlength=n_col), out=a_start[1:])
        return (a_start, r_all[order], v_all[order],
                np.concatenate(self.lower) if self.lower else np.empty(0),
                np.concatenate(self.upper) if self.upper else np.empty(0))


def _x_cells(arrays: ScenarioArrays, tasks, eligible, start):
    """x cells, task-major then slot then node, each with its (task, slot) row of (4b)-(4c):
    (x_task, x_node, x_slot, x_bc_row, row_base, n_bc)."""
    xt, xk, xs, xrow = [], [], [], []
    row_base = np.zeros(arrays.n_tasks, dtype=np.int64)
    n_bc = 0
    for i in tasks:
        nodes = np.flatnonzero(eligible[i])
        slots = np.arange(start[i], arrays.deadline[i] + 1)
        row_base[i] = n_bc
        xt.append(np.full(nodes.shape[0] * slots.shape[0], i, dtype=np.int64))
        xs.append(np.repeat(slots, nodes.shape[0]))
        xk.append(np.tile(nodes, slots.shape[0]))
        xrow.append(n_bc + np.repeat(np.arange(slots.shape[0]), nodes.shape[0]))
        n_bc += slots.shape[0]
    empty = np.empty(0, dtype=np.int64)
    x_task = np.concatenate(xt) if xt else empty
    x_node = np.concatenate(xk) if xk else empty
    x_slot = np.concatenate(xs) if xs else empty
    x_bc_row = np.concatenate(xrow) if xrow else empty
    return x_task, x_node, x_slot, x_bc_row, row_base, n_bc


def _columns(arrays: ScenarioArrays, eligible, usable, start, feasible) -> _Columns:
    """(4h): u_i per alone-feasible task, z_in per usable vendor of one, then the x cells."""
    tasks = np.flatnonzero(feasible)
    u_col = np.full(arrays.n_tasks, -1, dtype=np.int64)
    u_col[tasks] = np.arange(tasks.shape[0])
    z_task, z_vendor = np.nonzero(usable & feasible[:, None])
    z_col = tasks.shape[0] + np.arange(z_task.shape[0])
    x0 = tasks.shape[0] + z_task.shape[0]
    x_task, x_node, x_slot, x_bc_row, row_base, n_bc = _x_cells(arrays, tasks, eligible, start)
    x_col = x0 + np.arange(x_task.shape[0])
    return _Columns(tasks, u_col, z_task, z_vendor, z_col, x_task, x_node, x_slot, x_col,
                    x_bc_row, row_base, n_bc)


def _add_vendor_choice_rows(rows: _Rows, arrays: ScenarioArrays, cols: _Columns) -> int:
    """(4a): sum_n z_in - u_i = 0 for f_i = 1; the number of rows."""
    tasks = cols.tasks
    a_tasks = tasks[arrays.needs_preprocessing[tasks]]
    first = rows.family(a_tasks.shape[0], 0.0, 0.0)
    a_row = np.full(arrays.n_tasks, -1, dtype=np.int64)
    a_row[a_tasks] = first + np.arange(a_tasks.shape[0])
    rows.coef(a_row[a_tasks], cols.u_col[a_tasks], -1.0)
    rows.coef(a_row[cols.z_task], cols.z_col, 1.0)
    return int(a_tasks.shape[0])


def _add_window_rows(rows: _Rows, arrays: ScenarioArrays, cols: _Columns, start) -> int:
    """(4b)+(4c)+(x <= u): sum_k x_ikt - [u_i | sum_{n ready by t} z_in] <= 0, one row per
    task and slot of its window; the number of rows."""
    first = rows.family(cols.n_bc, -np.inf, 0.0)
    rows.coef(first + cols.x_bc_row, cols.x_col, 1.0)
    tasks, z_task, z_vendor = cols.tasks, cols.z_task, cols.z_vendor
    plain = tasks[~arrays.needs_preprocessing[tasks]]
    if plain.shape[0]:
        length = arrays.deadline[plain] - start[plain] + 1
        rep = np.repeat(plain, length)
        offset = np.arange(rep.shape[0]) - np.repeat(np.cumsum(length) - length, length)
        rows.coef(first + cols.row_base[rep] + offset, cols.u_col[rep], -1.0)
    if z_task.shape[0]:
        ready = arrays.arrival[z_task] + arrays.vendor_delay[z_task, z_vendor]
        length = arrays.deadline[z_task] - ready + 1
        rep = np.repeat(np.arange(z_task.shape[0]), length)
        offset = np.arange(rep.shape[0]) - np.repeat(np.cumsum(length) - length, length)
        slot = ready[rep] + offset
        rows.coef(first + cols.row_base[z_task[rep]] + slot - start[z_task[rep]],
                  cols.z_col[rep], -1.0)
    return int(cols.n_bc)


def _add_work_rows(rows: _Rows, arrays: ScenarioArrays, cols: _Columns) -> int:
    """(4e): sum min(s_ik, M_i) x_ikt - M_i u_i >= 0; the number of rows."""
    tasks, x_task = cols.tasks, cols.x_task
    first = rows.family(tasks.shape[0], 0.0, np.inf)
    e_row = np.full(arrays.n_tasks, -1, dtype=np.int64)
    e_row[tasks] = first + np.arange(tasks.shape[0])
    work = arrays.work.astype(float)
    rows.coef(e_row[tasks], cols.u_col[tasks], -work[tasks])
    rows.coef(e_row[x_task], cols.x_col,
              np.minimum(arrays.speed[x_task, cols.x_node], arrays.work[x_task]).astype(float))
    return int(tasks.shape[0])


def _add_rounded_work_rows(rows: _Rows, arrays: ScenarioArrays, cols: _Columns, eligible,
                           feasible) -> int:
    """(4e'), the rounded (4e): a task gets at most S_i = max_k s_ik samples per slot, so
    it needs ceil(M_i / S_i) slots; the mixed-integer rounding (MIR) of
    sum (s_ik / S_i) x_ikt >= (M_i / S_i) u_i with rho_i = M_i mod S_i > 0 is
    sum min(s_ik, rho_i) x_ikt >= rho_i ceil(M_i / S_i) u_i (tasks with rho_i = 0 or
    M_i < S_i gain nothing over (4e)); the number of rows."""
    tasks, x_task, x_node = cols.tasks, cols.x_task, cols.x_node
    rate = np.where(eligible, arrays.speed, 0).max(axis=1, initial=0)
    rho = np.where(feasible, arrays.work % np.maximum(rate, 1), 0)
    mir = tasks[(rho[tasks] > 0) & (arrays.work[tasks] > rate[tasks])]
    first = rows.family(mir.shape[0], 0.0, np.inf)
    m_row = np.full(arrays.n_tasks, -1, dtype=np.int64)
    m_row[mir] = first + np.arange(mir.shape[0])
    slots_needed = -(-arrays.work[mir] // rate[mir])
    rows.coef(m_row[mir], cols.u_col[mir], -(rho[mir] * slots_needed).astype(float))
    hit = m_row[x_task] >= 0
    rows.coef(m_row[x_task[hit]], cols.x_col[hit],
              np.minimum(arrays.speed[x_task[hit], x_node[hit]], rho[x_task[hit]]).astype(float))
    return int(mir.shape[0])


def _add_cell_rows(rows: _Rows, cols: _Columns, kt, use, cap) -> int:
    """``sum use x <= cap`` per (k, t) cell ``kt``, only where the candidate cells could
    exceed the capacity even all together; the number of rows."""
    total = np.bincount(kt, weights=use, minlength=cap.shape[0])
    binding = np.flatnonzero(total > cap)
    row_of = np.full(cap.shape[0], -1, dtype=np.int64)
    first = rows.family(binding.shape[0], -np.inf, cap[binding])
    row_of[binding] = first + np.arange(binding.shape[0])
    hit = row_of[kt] >= 0
    rows.coef(row_of[kt[hit]], cols.x_col[hit], use[hit])
    return int(binding.shape[0])


def _add_compute_rows(rows: _Rows, arrays: ScenarioArrays, cols: _Columns) -> int:
    """(4f): sum_i s_ik x_ikt <= C_kp for each (k, t) that could be exceeded."""
    T = arrays.n_slots
    s = arrays.speed[cols.x_task, cols.x_node].astype(float)
    cap_p = np.repeat(arrays.compute_capacity.astype(float), T)
    return _add_cell_rows(rows, cols, cols.x_node * T + cols.x_slot, s, cap_p)


def _add_memory_rows(rows: _Rows, arrays: ScenarioArrays, cols: _Columns) -> int:
    """(4g): sum_i r_i x_ikt <= C_km - r_b + MEMORY_TOLERANCE for each (k, t) that could
    be exceeded."""
    T = arrays.n_slots
    r = arrays.memory[cols.x_task]
    cap_m = np.repeat(arrays.usable_memory + MEMORY_TOLERANCE, T)
    return _add_cell_rows(rows, cols, cols.x_node * T + cols.x_slot, r, cap_m)


def _objective(arrays: ScenarioArrays, cols: _Columns) -> np.ndarray:
    """(4): the cost of each column, b_i for u_i, -q_in for z_in, -e_ikt for x_ikt."""
    n_u, n_z = cols.tasks.shape[0], cols.z_task.shape[0]
    cost = np.empty(n_u + n_z + cols.x_task.shape[0])
    cost[:n_u] = arrays.bid[cols.tasks]
    cost[n_u:n_u + n_z] = -arrays.vendor_price[cols.z_task, cols.z_vendor]
    cost[n_u + n_z:] = -arrays.op_cost(cols.x_task, cols.x_node, cols.x_slot)  # -e_ikt
    return cost


def build_model(scenario: xr.Dataset | ScenarioArrays, *,
                max_x_variables: int = MAX_X_VARIABLES) -> OfflineModel:
    """Write problem (4) for ``scenario`` (see the module docstring) as a sparse MILP.

    Raises ``ValueError`` when it would need more than ``max_x_variables`` x variables.
    """
    arrays = scenario if isinstance(scenario, ScenarioArrays) else to_arrays(scenario)
    n_x = count_x_variables(arrays)
    if n_x > max_x_variables:
        raise InputError(
            f"the offline MILP would need {n_x:,} x_ikt variables, more than the limit of "
            f"{max_x_variables:,}; exact offline optima are for small instances -- for "
            "paper-scale instances use lorasched.offline_upper_bound (a bound, not a "
            "schedule) or raise max_x_variables")
    eligible = _eligible(arrays)
    usable, start, feasible = _windows(arrays, eligible)
    cols = _columns(arrays, eligible, usable, start, feasible)  # (4h)
    assert cols.x_task.shape[0] == n_x
    rows = _Rows()
    # the families in this order: HiGHS's answer can depend on the order of the rows
    counts = {"4a": _add_vendor_choice_rows(rows, arrays, cols),
              "4bc": _add_window_rows(rows, arrays, cols, start),
              "4e": _add_work_rows(rows, arrays, cols),
              "4e_mir": _add_rounded_work_rows(rows, arrays, cols, eligible, feasible),
              "4f": _add_compute_rows(rows, arrays, cols),
              "4g": _add_memory_rows(rows, arrays, cols)}
    cost = _objective(arrays, cols)  # (4)
    a_start, a_index, a_value, row_lower, row_upper = rows.matrix(cost.shape[0])
    return OfflineModel(
        n_tasks=arrays.n_tasks, u_task=cols.tasks, z_task=cols.z_task, z_vendor=cols.z_vendor,
        x_task=cols.x_task, x_node=cols.x_node, x_slot=cols.x_slot, alone_feasible=feasible,
        col_cost=cost, a_start=a_start, a_index=a_index, a_value=a_value,
        row_lower=row_lower, row_upper=row_upper, rows=counts)


def _greedy(arrays: ScenarioArrays, model: OfflineModel, order: np.ndarray) -> np.ndarray:
    """A feasible start for HiGHS: offer tasks in ``order``, each on its earliest-finish
    schedule (:func:`lorasched.pdftsp.kernels.earliest_finish`, as EFT) with the vendor
    that leaves it the most welfare, if that welfare is positive. Returns the column vector
    of the model (u, z, x)."""
    K, T = arrays.n_nodes, arrays.n_slots
    compute_left, memory_left = arrays.residual()
    nu, nz = model.n_u, model.n_z
    values = np.zeros(model.n_variables)
    u_col = np.full(arrays.n_tasks, -1, dtype=np.int64)
    u_col[model.u_task] = np.arange(nu)
    x_key = (model.x_task * K + model.x_node) * T + model.x_slot
    x_order = np.argsort(x_key, kind="stable")
    vendors = {}
    for j, (i, n) in enumerate(zip(model.z_task, model.z_vendor, strict=True)):
        vendors.setdefault(int(i), []).append((int(n), nu + j))
    for i in order:
        if u_col[i] < 0:
            continue
        options = vendors.get(int(i), []) if arrays.needs_preprocessing[i] else [(-1, -1)]
        best = None
        for n, col in options:
            delay = arrays.vendor_delay[i, n] if n >= 0 else 0
            price = arrays.vendor_price[i, n] if n >= 0 else 0.0
            finish, nodes, slots = kernels.earliest_finish(
                arrays.arrival[i] + delay, arrays.deadline[i], arrays.work[i], arrays.speed[i],
                arrays.memory[i], compute_left, memory_left, arrays.compute_capacity, False)
            if finish < 0:
                continue
            gain = arrays.bid[i] - price - float(arrays.op_cost(i, nodes, slots).sum())
            if gain > 0 and (best is None or gain > best[0]):
                best = (gain, col, nodes, slots)
        if best is None:
            continue
        _, col, nodes, slots = best
        compute_left[nodes, slots] -= arrays.speed[i, nodes]
        memory_left[nodes, slots] -= arrays.memory[i]
        values[u_col[i]] = 1.0
        if col >= 0:
            values[col] = 1.0
        keys = (i * K + nodes) * T + slots
        values[nu + nz + x_order[np.searchsorted(x_key, keys, sorter=x_order)]] = 1.0
    return values


def _warm_start(arrays: ScenarioArrays, model: OfflineModel) -> np.ndarray:
    """The best of a few greedy orders (value density, bid, arrival, deadline)."""
    net = arrays.bid - np.where(arrays.needs_preprocessing,
                                arrays.vendor_price.min(axis=1, initial=0.0), 0.0)
    orders = [np.argsort(-net / arrays.work, kind="stable"),
              np.argsort(-net, kind="stable"),
              np.arange(arrays.n_tasks),
              np.argsort(arrays.deadline, kind="stable")]
    starts = [_greedy(arrays, model, order) for order in orders]
    return max(starts, key=lambda v: float(model.col_cost @ v))


def _solve(model: OfflineModel, time_limit: float, mip_rel_gap: float,
           start: np.ndarray | None = None, max_nodes: int | None = None):
    """Run HiGHS; return (column values or None, objective, bound, status string, hit)."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    if np.isfinite(time_limit):
        h.setOptionValue("time_limit", float(time_limit))
    if max_nodes is not None:
        h.setOptionValue("mip_max_nodes", int(max_nodes))
    h.setOptionValue("mip_rel_gap", float(mip_rel_gap))
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", 0)
    n_col = model.n_variables
    lp = highspy.HighsLp()
    lp.num_col_ = n_col
    lp.num_row_ = model.n_constraints
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.col_cost_ = model.col_cost
    lp.col_lower_ = np.zeros(n_col)
    lp.col_upper_ = np.ones(n_col)
    lp.row_lower_ = model.row_lower
    lp.row_upper_ = model.row_upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_ = n_col
    lp.a_matrix_.num_row_ = model.n_constraints
    lp.a_matrix_.start_ = model.a_start.astype(np.int32)
    lp.a_matrix_.index_ = model.a_index.astype(np.int32)
    lp.a_matrix_.value_ = model.a_value
    lp.integrality_ = [highspy.HighsVarType.kInteger] * n_col
    status = h.passModel(lp)
    if status == highspy.HighsStatus.kError:
        raise RuntimeError("HiGHS rejected the offline MILP (passModel returned an error)")
    def give_start():
        if start is not None:
            solution = highspy.HighsSolution()
            solution.col_value = start
            solution.value_valid = True
            h.setSolution(solution)

    status, model_status = highs.run(h, before=give_start)
    name = h.modelStatusToString(model_status)
    if status == highspy.HighsStatus.kError:
        raise RuntimeError(f"HiGHS failed on the offline MILP (model status {name!r})")
    info = h.getInfo()
    hit = model_status in (highspy.HighsModelStatus.kTimeLimit,
                           highspy.HighsModelStatus.kSolutionLimit)
    bound = float(info.mip_dual_bound)
    if info.primal_solution_status != 2:  # kSolutionStatusFeasible
        return None, float("nan"), bound, name, hit
    values = np.asarray(h.getSolution().col_value, dtype=float)
    return values, float(info.objective_function_value), bound, name, hit


def _checked_options(time_limit, mip_rel_gap, mip_max_nodes) -> float:
    """The time limit in seconds (inf for None), after checking the solver's options."""
    if time_limit is None:
        time_limit = np.inf
    if not time_limit > 0:
        raise InputError(f"time_limit must be > 0 seconds, got {time_limit}")
    if not mip_rel_gap >= 0:
        raise InputError(f"mip_rel_gap must be >= 0, got {mip_rel_gap}")
    if mip_max_nodes is not None and (isinstance(mip_max_nodes, bool) or not isinstance(
            mip_max_nodes, numbers.Integral) or mip_max_nodes < 1):
        raise InputError(f"mip_max_nodes must be a positive integer, got {mip_max_nodes!r}")
    return time_limit


def _optimum(arrays: ScenarioArrays, model: OfflineModel, time_limit, mip_rel_gap,
             mip_max_nodes, warm_start):
    """(column values or None, objective, bound, status, hit) of :func:`_solve`, from the
    greedy warm start if asked; nothing to solve for a model without variables."""
    if model.n_variables == 0:
        return np.empty(0), 0.0, 0.0, "Empty", False
    start = _warm_start(arrays, model) if warm_start else None
    return _solve(model, time_limit, mip_rel_gap, start, mip_max_nodes)


def _decisions(arrays: ScenarioArrays, model: OfflineModel, values, seconds) -> Decisions:
    """The rounded solution as decisions: u_i, the z_in set, the x_ikt cells, the reasons."""
    n_tasks = arrays.n_tasks
    on = values > 0.5
    nu, nz = model.n_u, model.n_z
    out = Decisions.empty(n_tasks, arrays.n_nodes, arrays.n_slots)
    out.admitted[model.u_task[on[:nu]]] = True
    zon = on[nu:nu + nz]
    out.chosen_vendor[model.z_task[zon]] = model.z_vendor[zon]
    xon = on[nu + nz:]
    out.cell_task = model.x_task[xon]
    out.cell_node = model.x_node[xon]
    out.cell_slot = model.x_slot[xon]
    out.reason[:] = np.where(out.admitted, "admitted",
                             np.where(model.alone_feasible, "not_selected",
                                      "no_feasible_schedule"))
    out.decision_time[:] = seconds / n_tasks if n_tasks else 0.0
    return out


def _check_rounded(result: xr.Dataset, objective: float) -> None:
    """``RuntimeError`` if the rounded solution breaks the model or its welfare is not
    HiGHS's objective."""
    try:
        check_result(result)
    except ResultError as err:
        raise RuntimeError(f"the rounded HiGHS solution violates the model: {err}") from err
    welfare = float(result.attrs["welfare"])
    if not np.isclose(welfare, objective, rtol=1e-6, atol=1e-6):
        raise RuntimeError(f"the rounded HiGHS solution has welfare {welfare} but HiGHS "
                           f"reports the objective {objective} (numerical trouble)")


def offline_opt(scenario: xr.Dataset, *, time_limit: float | None = 60.0,
                mip_rel_gap: float = 1e-6, mip_max_nodes: int | None = None,
                max_x_variables: int = MAX_X_VARIABLES, warm_start: bool = True) -> xr.Dataset:
    """The offline (hindsight) optimum of problem (4) as a result Dataset.

    Solves the MILP of the module docstring with HiGHS (one thread, fixed seed: the same
    scenario gives the same answer).

    Parameters
    ----------
    scenario : xarray.Dataset
        A pdFTSP scenario.
    time_limit : float or None, optional
        Seconds of HiGHS's search (default 60; ``None``: none). Building the model and the
        warm start come on top; both take well under a second at the sizes an exact solve
        can handle. It makes an unfinished search depend on the machine's speed.
    mip_rel_gap : float, optional
        HiGHS's relative MIP gap (default 1e-6).
    mip_max_nodes : int, optional
        Stop the search after that many branch-and-bound nodes instead (default: no
        limit): a count, so the answer is the same on every machine (the book's Fig. 12
        uses it).
    max_x_variables : int, optional
        The most x variables the model may have (default ``MAX_X_VARIABLES``).
    warm_start : bool, optional
        Hand HiGHS a feasible start, the best of a few greedy schedules (earliest finish,
        tasks by value density, bid, arrival or deadline), default True. It never changes
        the optimum, but a search stopped by the time limit then returns at least that.

    Returns
    -------
    xarray.Dataset
        Every field of :func:`lorasched.systems.simulate`'s results (payments 0,
        ``lambda``/``phi`` 0, ``surplus`` NaN, ``decision_time`` = ``opt_seconds /
        n_tasks``) and the attributes

        * ``opt_objective``: the incumbent's objective (= ``welfare``, checked to 1e-6);
        * ``opt_bound``: an upper bound on the optimum: HiGHS's dual bound, or the sum of
          the bids of the alone-feasible tasks where that is lower (HiGHS stopped before
          it had one);
        * ``opt_gap``: ``(opt_bound - opt_objective) / max(|opt_objective|, 1e-9)``, >= 0;
        * ``opt_status``: HiGHS's model status (``"Optimal"``, ``"Time limit reached"``,
          ...; ``"Empty"`` when no task has any schedule and nothing was solved);
        * ``opt_hit_time_limit``: 1 if ``time_limit`` or ``mip_max_nodes`` stopped the
          search -- then the schedule is the best one found and
          ``opt_objective <= optimum <= opt_bound``, *not* the optimum;
        * ``opt_seconds`` (model build, warm start and solve, wall),
          ``opt_build_seconds``, ``opt_variables``, ``opt_constraints``,
          ``opt_nonzeros``.

    Raises
    ------
    InputError
        If an option is out of range, the scenario breaks its schema, or the model would
        need more than ``max_x_variables`` x variables (a ``ValueError``).
    RuntimeError
        If HiGHS stops (time limit) without any feasible solution (possible only with
        ``warm_start=False``) or its rounded solution violates the model.
    """
    time_limit = _checked_options(time_limit, mip_rel_gap, mip_max_nodes)
    arrays = to_arrays(scenario)
    t0 = time.perf_counter()
    model = build_model(arrays, max_x_variables=max_x_variables)
    built = time.perf_counter()
    values, objective, bound, status, hit = _optimum(arrays, model, time_limit, mip_rel_gap,
                                                     mip_max_nodes, warm_start)
    seconds = time.perf_counter() - t0
    if values is None:
        raise RuntimeError(
            f"HiGHS found no feasible solution of the offline MILP within time_limit="
            f"{time_limit} s (status {status!r}, {model.n_variables:,} variables); increase "
            "time_limit or keep warm_start=True")
    # sum of the bids of the tasks that have variables: valid since q, e >= 0
    bound = min(bound, float(model.col_cost[:model.n_u].sum()))
    out = _decisions(arrays, model, values, seconds)
    options = {"time_limit": float(time_limit), "mip_rel_gap": float(mip_rel_gap),
               "mip_max_nodes": -1 if mip_max_nodes is None else int(mip_max_nodes),
               "max_x_variables": int(max_x_variables), "threads": 1,
               "solver": f"highs {highspy.Highs().version()}"}
    result = assemble(scenario, out, algorithm="offline_opt", seed=None, options=options)
    gap = max(bound - objective, 0.0) / max(abs(objective), 1e-9)
    result.attrs.update({
        "opt_objective": objective, "opt_bound": bound, "opt_gap": gap,
        "opt_status": status, "opt_hit_time_limit": int(hit), "opt_seconds": seconds,
        "opt_build_seconds": built - t0, "opt_variables": model.n_variables,
        "opt_constraints": model.n_constraints, "opt_nonzeros": model.n_nonzeros,
        "wall_seconds": seconds,
    })
    _check_rounded(result, objective)
    return result
