"""The columns and rows of the offline MILP of problem (4), family by family: the variables
(4h), each constraint family (4a)-(4g) and the rounded work rows (4e') in its own builder,
and the objective (4). ``lorasched.pdftsp.offline`` assembles and solves them; the
formulation, row by row, is in the book's offline reference page."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .scenario import MEMORY_TOLERANCE, ScenarioArrays


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
