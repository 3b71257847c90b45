"""The exact offline optimum of problem (4): every task known in advance, solved as a MILP.

:func:`build_model` writes the MILP, exact in real samples, with tightened rows and a cut;
:func:`offline_opt` solves it with HiGHS and returns a result Dataset. The formulation, row
by row: :doc:`/reference/offline`.
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass, field

import highspy
import numpy as np
import xarray as xr

from ..lp import highs, objective
from ..model.errors import InputError
from . import kernels
from .decisions import Decisions
from .offline_rows import (
    _add_compute_rows,
    _add_memory_rows,
    _add_rounded_work_rows,
    _add_vendor_choice_rows,
    _add_window_rows,
    _add_work_rows,
    _columns,
    _objective,
    _Rows,
)
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
            "paper-scale instances use lorasched.pdftsp.offline_upper_bound (a bound, not a "
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
    return max(starts, key=lambda v: objective(model.col_cost, v))


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
