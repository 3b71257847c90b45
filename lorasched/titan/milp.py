"""TITAN's allocation MILP (sec. 3, eqs. 1-4) and task merger (sec. 4.2, eqs. 5-11, both
readings of constraints 9-10), solved exactly with HiGHS (:func:`solve_allocation`,
:func:`solve_with_merging`). Conventions and solver settings:
:doc:`/reference/titan_scheduler`.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Sequence
from dataclasses import dataclass

import highspy
import numpy as np

from ..lp import highs
from ..model.errors import InputError

#: readings of the merger's constraints (9)-(10), see the module docstring
CONSTRAINTS = ("pairwise", "literal")

#: HiGHS's ``presolve_rule_off`` bit mask that switches off presolve rule 15, probing (the
#: rule's number in HiGHS 1.15, as ``presolve_rule_logging`` lists them); see the module
#: docstring for why
NO_PROBING = 1 << 15


@dataclass(frozen=True)
class Allocation:
    """Solution of eqs. (1)-(4): ``gpus[i]`` GPUs for job ``i`` (0 = not scheduled), the
    ``objective`` (1) of that solution, HiGHS's model ``status`` string, the solve's wall
    ``seconds`` (HiGHS run only) and HiGHS's relative ``mip_gap``."""

    gpus: tuple[int, ...]
    objective: float
    status: str
    seconds: float
    mip_gap: float

    @property
    def gpus_used(self) -> int:
        """Total GPUs allocated (the left side of eq. 4)."""
        return sum(self.gpus)


@dataclass(frozen=True)
class MergedAllocation:
    """Solution of eqs. (5)-(11): ``gpus[i]`` GPUs for job ``i`` running alone (0 = not
    alone: unscheduled or in a merged job), ``group_gpus[k]`` GPUs for candidate
    ``groups[k]`` running merged (0 = not run), the ``objective`` (5) of that solution, the
    ``constraints`` reading used, HiGHS's model ``status``, the solve's wall ``seconds``
    (HiGHS run only) and HiGHS's relative ``mip_gap``."""

    gpus: tuple[int, ...]
    groups: tuple[tuple[int, ...], ...]
    group_gpus: tuple[int, ...]
    objective: float
    constraints: str
    status: str
    seconds: float
    mip_gap: float

    @property
    def merged(self) -> tuple[tuple[tuple[int, ...], int], ...]:
        """The merged jobs that run: ``(group, gpus)`` pairs, in the order of ``groups``."""
        return tuple((g, a) for g, a in zip(self.groups, self.group_gpus, strict=True) if a > 0)

    @property
    def gpus_used(self) -> int:
        """Total GPUs allocated (the left side of eq. 11)."""
        return sum(self.gpus) + sum(self.group_gpus)


def allocation_set(max_gpus: int) -> tuple[int, ...]:
    """The paper's ``A = {1, 2, 4m | m in N+}`` up to ``max_gpus``, ascending
    (``allocation_set(16) == (1, 2, 4, 8, 12, 16)``; empty for 0)."""
    _check_count(max_gpus, "max_gpus")
    return tuple(a for a in (1, 2) if a <= max_gpus) + tuple(range(4, max_gpus + 1, 4))


def solve_allocation(T, gpus_available: int, allocations: Sequence[int] | None = None, *,
                     mip_rel_gap: float = 0.0, time_limit: float = math.inf) -> Allocation:
    """Solve eqs. (1)-(4) for progress ``T`` (``[jobs, len(allocations)]``, module
    docstring) and ``gpus_available`` = M; ``allocations`` defaults to
    ``allocation_set(M)``. ``time_limit`` (seconds, default none) makes the outcome depend
    on the machine's speed; then ``status`` says so and the solution may not be optimal.

    Raises ``ValueError`` for M < 0, bad allocations, a ``T`` of the wrong shape, or a
    negative or ``+inf`` entry (naming the job and the allocation)."""
    _check_count(gpus_available, "gpus_available")
    allocs = _check_allocations(allocations, gpus_available)
    T = _check_progress(T, allocs, "T", "job")
    _check_solver_options(mip_rel_gap, time_limit)
    n = T.shape[0]
    cols = [(i, c) for i in range(n) for c in range(len(allocs)) if np.isfinite(T[i, c])]
    cost = np.array([T[i, c] for i, c in cols])                                   # (1)
    rows: list[tuple[list[int], list[float], float]] = []
    per_job: list[list[int]] = [[] for _ in range(n)]
    for j, (i, _) in enumerate(cols):
        per_job[i].append(j)
    for members in per_job:                                 # (3) sum_a x[i, a] <= 1
        if len(members) > 1:
            rows.append((members, [1.0] * len(members), 1.0))
    rows.append((list(range(len(cols))),                    # (4) sum_i sum_a a x <= M
                 [float(allocs[c]) for _, c in cols], float(gpus_available)))
    values, status, seconds, gap = _solve_binary(cost, rows, mip_rel_gap, time_limit)
    gpus = [0] * n
    objective = 0.0
    for j, (i, c) in enumerate(cols):
        if values[j]:
            gpus[i] = allocs[c]
            objective += float(T[i, c])
    return Allocation(tuple(gpus), objective, status, seconds, gap)


def each_at_its_best(T, gpus_available: int, allocations: Sequence[int]) -> Allocation | None:
    """The optimum of eqs. (1)-(4) without a solver when it is trivial: if every job can
    have the allocation of its largest ``T`` (the smallest such allocation on ties) within
    ``gpus_available``, that assignment reaches the upper bound ``sum_i max_a T[i, a]``
    and is optimal; else ``None``. (With ``T >= 0``, as :func:`solve_allocation` asks.)"""
    T = np.asarray(T, dtype=float)
    if T.size == 0:
        return None
    allocs = np.asarray(allocations, dtype=np.int64)
    filled = np.where(np.isfinite(T), T, -np.inf)
    best = np.argmax(filled, axis=1)  # the first maximum: the smallest allocation
    value = filled[np.arange(T.shape[0]), best]
    if np.any(~np.isfinite(value)) or np.any(value <= 0):
        return None
    gpus = allocs[best]
    if int(gpus.sum()) > gpus_available:
        return None
    return Allocation(tuple(int(g) for g in gpus), float(value.sum()), "Optimal (bound)",
                      0.0, 0.0)


def solve_with_merging(T, merged_T, groups: Sequence[Sequence[int]], gpus_available: int,
                       allocations: Sequence[int] | None = None,
                       constraints: str = "pairwise", *, mip_rel_gap: float = 0.0,
                       time_limit: float = math.inf) -> MergedAllocation:
    """Solve the task merger, eqs. (5)-(11): progress ``T`` of the ``N`` jobs and
    ``merged_T`` of the ``K`` candidate merged jobs ``groups`` (each a sequence of >= 2
    distinct job indices; ``merged_T[k]`` is the paper's ``T[N+k]``), ``gpus_available`` =
    M, ``allocations`` (default ``allocation_set(M)``) and the reading ``constraints`` of
    (9)-(10), ``"pairwise"`` or ``"literal"`` (module docstring). ``time_limit`` as in
    :func:`solve_allocation`.

    Raises ``ValueError`` as :func:`solve_allocation` does, and for a ``merged_T`` of the
    wrong shape or with a bad entry (naming the group and the allocation), a group with
    fewer than 2 jobs, a repeated or out-of-range job, a group repeating another one, or an
    unknown ``constraints``."""
    _check_count(gpus_available, "gpus_available")
    allocs = _check_allocations(allocations, gpus_available)
    T = _check_progress(T, allocs, "T", "job")
    n = T.shape[0]
    members, sets = _check_groups(groups, n)
    merged_T = _check_progress(merged_T, allocs, "merged_T", "group")
    if merged_T.shape[0] != len(sets):
        raise InputError(f"merged_T has {merged_T.shape[0]} rows but there are "
                         f"{len(sets)} groups; need one row per group")
    if constraints not in CONSTRAINTS:
        raise InputError(f"constraints must be one of {CONSTRAINTS}, got {constraints!r}")
    _check_solver_options(mip_rel_gap, time_limit)
    n_a = len(allocs)
    x_cols = [(i, c) for i in range(n) for c in range(n_a) if np.isfinite(T[i, c])]
    y_cols = [(k, c) for k in range(len(sets)) for c in range(n_a)
              if np.isfinite(merged_T[k, c])]
    weight = [(1 + len(s)) / 2 for s in sets]
    cost = np.array([T[i, c] for i, c in x_cols]                                  # (5)
                    + [merged_T[k, c] * weight[k] for k, c in y_cols])
    x_of: list[list[int]] = [[] for _ in range(n)]     # columns of x[i, .]
    y_of: list[list[int]] = [[] for _ in sets]         # columns of y[k, .]
    for j, (i, _) in enumerate(x_cols):
        x_of[i].append(j)
    for j, (k, _) in enumerate(y_cols):
        y_of[k].append(len(x_cols) + j)
    rows: list[tuple[list[int], list[float], float]] = []

    def at_most_one(columns: list[int]) -> None:
        if len(columns) > 1:
            rows.append((columns, [1.0] * len(columns), 1.0))

    if constraints == "pairwise":
        for i in range(n):           # (8)-(10), pairwise: x[i, .] + y[k, .] (i in mj_k) <= 1
            at_most_one(x_of[i] + [j for k, s in enumerate(sets) if i in s for j in y_of[k]])
    else:
        for i in range(n):                                  # (8) sum_a x[i, a] <= 1
            at_most_one(x_of[i])
        for k, s in enumerate(sets):  # (9) sum_a (y[k, a] + sum_{i in mj_k} x[i, a]) <= 1
            at_most_one(y_of[k] + [j for i in sorted(s) for j in x_of[i]])
        for k, s in enumerate(sets):  # (10) sum_a (y[k, a] + sum_{k1 ~ k} y[k1, a]) <= 1
            at_most_one(y_of[k] + [j for k1, s1 in enumerate(sets)
                                   if k1 != k and s1 & s for j in y_of[k1]])
    rows.append((list(range(len(x_cols) + len(y_cols))),    # (11) GPUs <= M
                 [float(allocs[c]) for _, c in x_cols] + [float(allocs[c]) for _, c in y_cols],
                 float(gpus_available)))
    values, status, seconds, gap = _solve_binary(cost, rows, mip_rel_gap, time_limit)
    gpus = [0] * n
    group_gpus = [0] * len(sets)
    objective = 0.0
    for j, (i, c) in enumerate(x_cols):
        if values[j]:
            gpus[i] = allocs[c]
            objective += float(T[i, c])
    for j, (k, c) in enumerate(y_cols):
        if values[len(x_cols) + j]:
            group_gpus[k] = allocs[c]
            objective += float(merged_T[k, c]) * weight[k]
    return MergedAllocation(tuple(gpus), members, tuple(group_gpus), objective, constraints,
                            status, seconds, gap)


# --------------------------------------------------------------------------- validation


def _check_count(value, name: str) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name} must be an integer, got {value!r}")
    if value < 0:
        raise InputError(f"{name} must be >= 0, got {value}")


def _check_allocations(allocations, gpus_available: int) -> tuple[int, ...]:
    if allocations is None:
        return allocation_set(gpus_available)
    allocs = tuple(allocations)
    for c, a in enumerate(allocs):
        if isinstance(a, bool) or not isinstance(a, numbers.Integral) or a < 1:
            raise InputError(f"allocations[{c}] must be a positive integer, got {a!r}")
    if len(set(allocs)) != len(allocs):
        raise InputError(f"allocations must be distinct, got {allocs}")
    return tuple(int(a) for a in allocs)


def _check_progress(values, allocs: tuple[int, ...], name: str, item: str) -> np.ndarray:
    try:
        arr = np.array(values, dtype=float)
    except (TypeError, ValueError) as err:
        raise InputError(f"{name} must be a 2-D array of numbers: {err}") from None
    if arr.ndim != 2 or arr.shape[1] != len(allocs):
        raise InputError(f"{name} must have shape ({item}s, {len(allocs)}) for allocations "
                         f"{allocs}, got shape {arr.shape}")
    bad = np.argwhere(np.isposinf(arr) | ((arr < 0) & np.isfinite(arr)))
    if len(bad):
        r, c = bad[0]
        raise InputError(f"{name}[{r}, {c}] ({item} {r}, allocation {allocs[c]} GPUs) must be "
                         f">= 0 and finite (NaN or -inf = not allowed), got {arr[r, c]}")
    arr[np.isneginf(arr)] = np.nan
    return arr


def _check_groups(groups, n: int) -> tuple[tuple[tuple[int, ...], ...], list[frozenset[int]]]:
    """The groups as tuples of ints (in the caller's order) and as sets."""
    tuples: list[tuple[int, ...]] = []
    sets: list[frozenset[int]] = []
    for k, group in enumerate(groups):
        try:
            members = tuple(group)
        except TypeError:
            raise InputError(f"groups[{k}] must be a sequence of job indices, "
                            f"got {group!r}") from None
        for i in members:
            if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 0 <= i < n:
                raise InputError(f"groups[{k}] holds {i!r}, not a job index in [0, {n})")
        if len(members) < 2:
            raise InputError(f"groups[{k}] must merge at least 2 jobs, got {members}")
        if len(set(members)) != len(members):
            raise InputError(f"groups[{k}] repeats a job: {members}")
        s = frozenset(int(i) for i in members)
        if s in sets:
            raise InputError(f"groups[{k}] {members} repeats groups[{sets.index(s)}]")
        sets.append(s)
        tuples.append(tuple(int(i) for i in members))
    return tuple(tuples), sets


def _check_solver_options(mip_rel_gap: float, time_limit: float) -> None:
    if not 0 <= mip_rel_gap < 1:
        raise InputError(f"mip_rel_gap must be in [0, 1), got {mip_rel_gap}")
    if not time_limit > 0:
        raise InputError(f"time_limit must be > 0 seconds, got {time_limit}")


# --------------------------------------------------------------------------- HiGHS


def _solve_binary(cost: np.ndarray, rows, mip_rel_gap: float, time_limit: float):
    """Maximise ``cost @ z`` over binary ``z`` subject to ``rows`` (each ``(columns,
    coefficients, upper)``: ``sum coef * z[col] <= upper``). Returns (``z`` as a bool
    array, HiGHS status string, seconds of the run, mip gap)."""
    n_col = len(cost)
    if n_col == 0:
        return np.zeros(0, dtype=bool), "Optimal", 0.0, 0.0
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", 0)
    h.setOptionValue("mip_rel_gap", float(mip_rel_gap))
    h.setOptionValue("mip_abs_gap", 0.0)
    h.setOptionValue("presolve_rule_off", NO_PROBING)
    if math.isfinite(time_limit):
        h.setOptionValue("time_limit", float(time_limit))
    lp = highspy.HighsLp()
    lp.num_col_ = n_col
    lp.num_row_ = len(rows)
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.col_cost_ = np.asarray(cost, dtype=float)
    lp.col_lower_ = np.zeros(n_col)
    lp.col_upper_ = np.ones(n_col)
    lp.row_lower_ = np.full(len(rows), -highspy.kHighsInf)
    lp.row_upper_ = np.array([upper for _, _, upper in rows], dtype=float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_ = n_col
    lp.a_matrix_.num_row_ = len(rows)
    lp.a_matrix_.start_ = np.cumsum([0] + [len(cols) for cols, _, _ in rows]).astype(np.int32)
    lp.a_matrix_.index_ = np.array([j for cols, _, _ in rows for j in cols], dtype=np.int32)
    lp.a_matrix_.value_ = np.array([v for _, coef, _ in rows for v in coef], dtype=float)
    lp.integrality_ = [highspy.HighsVarType.kInteger] * n_col
    if h.passModel(lp) == highspy.HighsStatus.kError:
        raise RuntimeError("HiGHS rejected the allocation MILP (passModel returned an error)")
    t0 = time.perf_counter()
    status, model_status = highs.run(h)
    seconds = time.perf_counter() - t0
    name = h.modelStatusToString(model_status)
    info = h.getInfo()
    if status == highspy.HighsStatus.kError or info.primal_solution_status != 2:
        raise RuntimeError(f"HiGHS found no solution of the allocation MILP "
                           f"(model status {name!r})")
    values = np.asarray(h.getSolution().col_value, dtype=float) > 0.5
    return values, name, seconds, float(info.mip_gap)
