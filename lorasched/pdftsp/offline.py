"""The exact offline optimum of problem (4): every task known in advance, solved as a MILP.

pdFTSP decides online; this module solves the paper's problem P (section 2.2, eq. 4) in
hindsight with HiGHS, exactly in real samples (no work discretisation), as the welfare
benchmark the online algorithms are measured against. :func:`build_model` writes the MILP,
:func:`offline_opt` solves it and returns a result Dataset with the same fields as every
algorithm's (:func:`lorasched.pdftsp.result.assemble`).

Formulation
-----------
Sets. Task i, node k, slot t, vendor n. A node is *eligible* for task i when
``s_ik > 0``, ``s_ik <= C_kp`` (a cell with more samples than the node's capacity violates
(4f) on its own) and ``r_i <= C_km - r_b + MEMORY_TOLERANCE`` (4g on its own). For a task
with ``f_i = 1`` a vendor n is *usable* when, alone on the cluster, the task could still
finish with it: ``a_i + h_in <= d_i`` and ``S_i * (d_i - a_i - h_in + 1) >= M_i`` with
``S_i = max_{k eligible} s_ik``; a usable vendor that another usable vendor weakly
dominates (no later, no dearer; ties to the lower index) is dropped as well, since swapping
it for the dominating one keeps every schedule feasible ((4c) only gets looser) and never
costs more. A task is *alone-feasible* when it has an eligible node and (for ``f_i = 1``)
a usable vendor, and ``S_i * (d_i - start_i + 1) >= M_i`` with ``start_i = a_i`` for
``f_i = 0`` and ``a_i + min_{n usable} h_in`` for ``f_i = 1``. Tasks that are not
alone-feasible get no variables at all (their ``u_i = 0`` is forced by (4a)-(4e)).

Variables (4h), all binary, only where they could ever be 1:

* ``u_i`` for each alone-feasible task;
* ``z_in`` for each alone-feasible task with ``f_i = 1`` and each usable vendor n (for
  ``f_i = 0`` (4a) would allow a vendor, but it only costs ``q_in >= 0`` and delays the
  task, so it is never useful and is not modelled);
* ``x_ikt`` for k eligible and ``start_i <= t <= d_i`` -- (4d) and the arrival part of
  (4c) hold by construction.

Objective (4), maximised:
``sum_i b_i u_i - sum_{i,n} q_in z_in - sum_{i,k,t} e_ikt x_ikt``,
``e_ikt = s_ik * op_cost_rate[k, t]``.

Constraints:

* (4a) ``f_i u_i <= sum_n z_in <= 1`` is written, for ``f_i = 1``, as
  ``sum_n z_in = u_i``. Equivalent at the optimum: a solution of (4a) with ``u_i = 0`` and
  some ``z_in = 1`` stays feasible after setting ``z_in = 0`` (then (4c) would forbid every
  ``x_ikt`` of the task, but those cells may be set to 0 too, since (4e) asks for nothing
  when ``u_i = 0``) and does not lose welfare because ``q_in, e_ikt >= 0``. So the optimal
  value is unchanged, and the equality is tighter in the LP relaxation.
* (4b), (4c) and the tightening ``x_ikt <= u_i``, merged into one row per task and slot of
  its window: ``sum_k x_ikt <= u_i`` for ``f_i = 0`` and
  ``sum_k x_ikt <= sum_{n usable: a_i + h_in <= t} z_in`` for ``f_i = 1``. The right-hand
  side is at most 1, so the row implies (4b). For binaries and ``sum_n z_in = u_i <= 1``
  it holds exactly when the chosen vendor is done by slot t, which is (4c)
  ``(a_i + f_i sum_n h_in z_in) x_ikt <= t x_ikt`` linearised. ``x_ikt <= u_i`` (implied,
  since the right-hand side is at most ``u_i``) is not in the paper: it never changes the
  optimal value, because a cell of a rejected task only adds cost ``e_ikt >= 0`` and uses
  capacity, so some optimum of (4) already has it.
* (4e) ``sum_{k,t} min(s_ik, M_i) x_ikt >= M_i u_i``. Capping the coefficient at ``M_i``
  is the standard coefficient tightening: for binary x the row holds exactly when
  ``sum s_ik x_ikt >= M_i`` does.
* (4e') the rounded (4e), a valid inequality (cut) added up front: task i gets at most
  ``S_i`` samples per slot, so it needs ``ceil(M_i / S_i)`` slots; the mixed-integer
  rounding of ``sum (s_ik / S_i) x_ikt >= (M_i / S_i) u_i`` with ``rho_i = M_i mod S_i``
  is ``sum_{k,t} min(s_ik, rho_i) x_ikt >= rho_i ceil(M_i / S_i) u_i`` (only where
  ``rho_i > 0`` and ``M_i > S_i``; elsewhere it adds nothing to (4e)). It cuts off
  fractional points only, never an integer one, and speeds HiGHS up by about a fifth on
  small synthetic instances.
* (4f) ``sum_i s_ik x_ikt <= C_kp`` for each (k, t), and
* (4g) ``sum_i r_i x_ikt <= C_km - r_b + MEMORY_TOLERANCE`` for each (k, t); rows whose
  cells cannot exceed the capacity even all together are left out (redundant).

Size and difficulty. The model has one x per usable (task, node, slot) cell, so it grows
as tasks x nodes x window; :func:`build_model` refuses more than :data:`MAX_X_VARIABLES`.
Far below that, proving optimality is the hard part: the LP relaxation packs fractions of
tasks into each (node, slot), and with 2-4 nodes and a few dozen tasks the gap HiGHS must
close is often 10 % or more. Expect proven optima for up to a few dozen tasks on a few
nodes; beyond that :func:`offline_opt` stops at ``time_limit`` and returns its incumbent
(at least the greedy warm start) with HiGHS's bound, labelled as such.

Outcome. The offline optimum is a welfare benchmark, not a mechanism: payments are 0 for
every task (welfare, eq. 3, does not depend on them), ``lambda``/``phi`` are zeros and
``surplus`` is NaN. ``reason`` is ``"admitted"``, ``"not_selected"`` (alone-feasible, left
out by the optimum) or ``"no_feasible_schedule"`` (not alone-feasible: no schedule exists
even on an empty cluster).
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass, field

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
    n_tasks, K = arrays.n_tasks, arrays.n_nodes
    eligible = _eligible(arrays)
    usable, start, feasible = _windows(arrays, eligible)
    need = arrays.needs_preprocessing

    tasks = np.flatnonzero(feasible)
    u_task = tasks
    u_col = np.full(n_tasks, -1, dtype=np.int64)
    u_col[tasks] = np.arange(tasks.shape[0])
    z_task, z_vendor = np.nonzero(usable & feasible[:, None])
    z_col = u_task.shape[0] + np.arange(z_task.shape[0])
    x0 = u_task.shape[0] + z_task.shape[0]

    # x cells, task-major then slot then node; the (4bc) row of a cell is its (task, slot)
    xt, xk, xs, xrow = [], [], [], []
    row_base = np.zeros(n_tasks, dtype=np.int64)
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
    x_col = x0 + np.arange(x_task.shape[0])
    assert x_task.shape[0] == n_x

    rows_r, rows_c, rows_v, lower, upper = [], [], [], [], []
    n_rows = 0

    def family(n, lo, hi):
        nonlocal n_rows
        lower.append(np.full(n, lo, dtype=float))
        upper.append(np.full(n, hi, dtype=float) if np.isscalar(hi) else hi)
        first = n_rows
        n_rows += n
        return first

    def coef(r, c, v):
        rows_r.append(np.asarray(r, dtype=np.int64))
        rows_c.append(np.asarray(c, dtype=np.int64))
        rows_v.append(np.broadcast_to(np.asarray(v, dtype=float), np.shape(r)))

    # (4a): sum_n z_in - u_i = 0 for f_i = 1
    a_tasks = tasks[need[tasks]]
    first = family(a_tasks.shape[0], 0.0, 0.0)
    a_row = np.full(n_tasks, -1, dtype=np.int64)
    a_row[a_tasks] = first + np.arange(a_tasks.shape[0])
    coef(a_row[a_tasks], u_col[a_tasks], -1.0)
    coef(a_row[z_task], z_col, 1.0)

    # (4b)+(4c)+(x <= u): sum_k x_ikt - [u_i | sum_{n ready by t} z_in] <= 0
    first = family(n_bc, -np.inf, 0.0)
    coef(first + x_bc_row, x_col, 1.0)
    plain = tasks[~need[tasks]]
    if plain.shape[0]:
        length = arrays.deadline[plain] - start[plain] + 1
        rep = np.repeat(plain, length)
        offset = np.arange(rep.shape[0]) - np.repeat(np.cumsum(length) - length, length)
        coef(first + row_base[rep] + offset, u_col[rep], -1.0)
    if z_task.shape[0]:
        ready = arrays.arrival[z_task] + arrays.vendor_delay[z_task, z_vendor]
        length = arrays.deadline[z_task] - ready + 1
        rep = np.repeat(np.arange(z_task.shape[0]), length)
        offset = np.arange(rep.shape[0]) - np.repeat(np.cumsum(length) - length, length)
        slot = ready[rep] + offset
        coef(first + row_base[z_task[rep]] + slot - start[z_task[rep]], z_col[rep], -1.0)

    # (4e): sum min(s_ik, M_i) x_ikt - M_i u_i >= 0
    first = family(tasks.shape[0], 0.0, np.inf)
    e_row = np.full(n_tasks, -1, dtype=np.int64)
    e_row[tasks] = first + np.arange(tasks.shape[0])
    work = arrays.work.astype(float)
    coef(e_row[tasks], u_col[tasks], -work[tasks])
    coef(e_row[x_task], x_col,
         np.minimum(arrays.speed[x_task, x_node], arrays.work[x_task]).astype(float))

    # (4e'), the rounded (4e): a task gets at most S_i = max_k s_ik samples per slot, so
    # it needs ceil(M_i / S_i) slots; the mixed-integer rounding (MIR) of
    # sum (s_ik / S_i) x_ikt >= (M_i / S_i) u_i with rho_i = M_i mod S_i > 0 is
    # sum min(s_ik, rho_i) x_ikt >= rho_i ceil(M_i / S_i) u_i (tasks with rho_i = 0 or
    # M_i < S_i gain nothing over (4e))
    rate = np.where(eligible, arrays.speed, 0).max(axis=1, initial=0)
    rho = np.where(feasible, arrays.work % np.maximum(rate, 1), 0)
    mir = tasks[(rho[tasks] > 0) & (arrays.work[tasks] > rate[tasks])]
    first = family(mir.shape[0], 0.0, np.inf)
    m_row = np.full(n_tasks, -1, dtype=np.int64)
    m_row[mir] = first + np.arange(mir.shape[0])
    slots_needed = -(-arrays.work[mir] // rate[mir])
    coef(m_row[mir], u_col[mir], -(rho[mir] * slots_needed).astype(float))
    hit = m_row[x_task] >= 0
    coef(m_row[x_task[hit]], x_col[hit],
         np.minimum(arrays.speed[x_task[hit], x_node[hit]], rho[x_task[hit]]).astype(float))

    # (4f), (4g): per (k, t), only where the candidate cells could exceed the capacity
    T = arrays.n_slots
    kt = x_node * T + x_slot
    s = arrays.speed[x_task, x_node].astype(float)
    r = arrays.memory[x_task]
    cap_p = np.repeat(arrays.compute_capacity.astype(float), T)
    cap_m = np.repeat(arrays.usable_memory + MEMORY_TOLERANCE, T)
    counts = {}
    for name, use, cap in (("4f", s, cap_p), ("4g", r, cap_m)):
        total = np.bincount(kt, weights=use, minlength=K * T)
        binding = np.flatnonzero(total > cap)
        row_of = np.full(K * T, -1, dtype=np.int64)
        first = family(binding.shape[0], -np.inf, cap[binding])
        row_of[binding] = first + np.arange(binding.shape[0])
        hit = row_of[kt] >= 0
        coef(row_of[kt[hit]], x_col[hit], use[hit])
        counts[name] = int(binding.shape[0])

    # objective (4)
    n_col = x0 + n_x
    cost = np.empty(n_col)
    cost[:u_task.shape[0]] = arrays.bid[u_task]
    cost[u_task.shape[0]:x0] = -arrays.vendor_price[z_task, z_vendor]
    cost[x0:] = -arrays.op_cost(x_task, x_node, x_slot)  # -e_ikt

    # column-wise sparse matrix
    r_all = np.concatenate(rows_r) if rows_r else empty
    c_all = np.concatenate(rows_c) if rows_c else empty
    v_all = np.concatenate(rows_v) if rows_v else np.empty(0)
    keep = v_all != 0  # zero memory (r_i = 0) gives zero coefficients in (4g)
    r_all, c_all, v_all = r_all[keep], c_all[keep], v_all[keep]
    order = np.lexsort((r_all, c_all))
    a_start = np.zeros(n_col + 1, dtype=np.int64)
    np.cumsum(np.bincount(c_all, minlength=n_col), out=a_start[1:])
    return OfflineModel(
        n_tasks=n_tasks, u_task=u_task, z_task=z_task, z_vendor=z_vendor, x_task=x_task,
        x_node=x_node, x_slot=x_slot, alone_feasible=feasible, col_cost=cost,
        a_start=a_start, a_index=r_all[order], a_value=v_all[order],
        row_lower=np.concatenate(lower) if lower else np.empty(0),
        row_upper=np.concatenate(upper) if upper else np.empty(0),
        rows={"4a": int(a_tasks.shape[0]), "4bc": int(n_bc), "4e": int(tasks.shape[0]),
              "4e_mir": int(mir.shape[0]),
              **counts},
    )


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
    if time_limit is None:
        time_limit = np.inf
    if not time_limit > 0:
        raise InputError(f"time_limit must be > 0 seconds, got {time_limit}")
    if not mip_rel_gap >= 0:
        raise InputError(f"mip_rel_gap must be >= 0, got {mip_rel_gap}")
    if mip_max_nodes is not None and (isinstance(mip_max_nodes, bool) or not isinstance(
            mip_max_nodes, numbers.Integral) or mip_max_nodes < 1):
        raise InputError(f"mip_max_nodes must be a positive integer, got {mip_max_nodes!r}")
    arrays = to_arrays(scenario)
    t0 = time.perf_counter()
    model = build_model(arrays, max_x_variables=max_x_variables)
    built = time.perf_counter()
    if model.n_variables == 0:
        values, objective, bound, status, hit = np.empty(0), 0.0, 0.0, "Empty", False
    else:
        start = _warm_start(arrays, model) if warm_start else None
        values, objective, bound, status, hit = _solve(model, time_limit, mip_rel_gap, start,
                                                       mip_max_nodes)
    seconds = time.perf_counter() - t0
    if values is None:
        raise RuntimeError(
            f"HiGHS found no feasible solution of the offline MILP within time_limit="
            f"{time_limit} s (status {status!r}, {model.n_variables:,} variables); increase "
            "time_limit or keep warm_start=True")
    # sum of the bids of the tasks that have variables: valid since q, e >= 0
    bound = min(bound, float(model.col_cost[:model.n_u].sum()))

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
    try:
        check_result(result)
    except ResultError as err:
        raise RuntimeError(f"the rounded HiGHS solution violates the model: {err}") from err
    welfare = float(result.attrs["welfare"])
    if not np.isclose(welfare, objective, rtol=1e-6, atol=1e-6):
        raise RuntimeError(f"the rounded HiGHS solution has welfare {welfare} but HiGHS "
                           f"reports the objective {objective} (numerical trouble)")
    return result
