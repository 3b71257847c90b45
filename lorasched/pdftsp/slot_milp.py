"""One slot's scheduling problem as a compact MILP (:func:`solve_slot`): the tasks of the
slot, binaries per task and per usable cell, solved to a stated gap, by default first from
its LP relaxation's bound and cheap schedules, with branch and bound only where those do not
certify the gap. Titan per slot solves it each slot
(:mod:`lorasched.pdftsp.baselines.titan_per_slot`); the formulation is in :doc:`/baselines`."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..lp import objective, solve_milp
from ..model.errors import InputError
from . import kernels
from .scenario import MEMORY_TOLERANCE, ScenarioArrays


class SlotSolution(NamedTuple):
    """A slot's solve: per task of the batch whether it has any schedule (``feasible``) and
    whether it is admitted; each admitted task's cells (``cells[j]`` = (nodes, slots), in
    slot order); the objective ``value``, the solver's ``bound`` on the optimum, the
    certified ``gap`` = (bound - value) / bound, whether a node limit stopped the solve,
    the branch-and-bound nodes, the model's size, and the ``stage`` whose schedule met the
    gap (``STAGES``; with ``warm="lp_rens"``, else 2)."""

    feasible: np.ndarray
    admitted: np.ndarray
    cells: list
    value: float
    bound: float
    gap: float
    hit_limit: bool
    nodes: int
    variables: int
    stage: int = 2


class _Model(NamedTuple):
    """The compact model's variables: tasks ``x_j`` first, then a ``y`` per usable cell."""

    tasks: np.ndarray  # batch positions j with a variable x_j
    y_task: np.ndarray  # per y: its batch position j
    y_node: np.ndarray
    y_slot: np.ndarray
    y_units: np.ndarray  # work units delivered in the cell
    work: np.ndarray  # per j of ``tasks``: W_j


def _usable(arrays: ScenarioArrays, i: int, start: int, compute_left, memory_left):
    """Task ``i``'s usable cells (nodes, slots) from ``start`` to its deadline: it runs
    there (s_ik > 0) and fits in what is left of compute (4f) and memory (4g)."""
    d = int(arrays.deadline[i])
    if start > d:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    speed = np.asarray(arrays.speed[i])
    window = slice(start, d + 1)
    fits = ((speed[:, None] > 0) & (speed[:, None] <= compute_left[:, window])
            & (float(arrays.memory[i]) <= memory_left[:, window] + MEMORY_TOLERANCE))
    nodes, slots = np.nonzero(fits)
    return nodes, slots + start


def _ranks(arrays: ScenarioArrays, batch, compute_left, memory_left, first: int,
           last: int) -> np.ndarray:
    """rank[k, t] for slots ``first..last``: node k's place (0, 1, ...) among the nodes that
    are interchangeable with it in slot t -- the same speed for every task of ``batch``,
    the same residual compute and memory and the same operating-cost rate in t."""
    K = arrays.n_nodes
    speed = np.asarray(arrays.speed)[np.asarray(batch)]
    _, kind = np.unique(speed.T, axis=0, return_inverse=True)  # nodes alike for the batch
    kind = kind.ravel()
    rank = np.zeros((K, arrays.n_slots), dtype=np.int64)
    index = np.arange(K)
    for t in range(first, last + 1):
        keys = np.stack([kind, compute_left[:, t], memory_left[:, t],
                         arrays.op_cost_rate[:, t]])
        _, group = np.unique(keys, axis=1, return_inverse=True)
        group = group.ravel()
        order = np.lexsort((index, group))
        start = np.searchsorted(group[order], group[order])  # first place of each group
        rank[order, t] = np.arange(K) - start
    return rank


def _model(arrays: ScenarioArrays, batch, starts, compute_left, memory_left,
           work_resolution: int) -> tuple[_Model, np.ndarray]:
    """The usable cells of each task of ``batch`` and its work W_j on the grid of
    :func:`lorasched.pdftsp.kernels.work_units`; a task is feasible when one node per slot
    at its best usable node can deliver W_j (eq. 4b, 4d).

    Nodes interchangeable in a slot (:func:`_ranks`) are identical bins there, so the q-th
    task of the model may use only the first q + 1 of them: any solution maps onto one that
    does (order each slot's bins by the first task they hold), so the optimum is kept and
    the symmetric copies of every solution are gone."""
    feasible = np.zeros(len(batch), dtype=bool)
    parts, work = [], []
    batch = np.asarray(batch)
    if batch.size:
        first = int(np.min(starts))
        last = min(int(np.max(arrays.deadline[batch])), arrays.n_slots - 1)
        rank = (_ranks(arrays, batch, compute_left, memory_left, max(first, 0), last)
                if first <= last else np.zeros((arrays.n_nodes, arrays.n_slots), np.int64))
    for j, i in enumerate(batch):
        units, W = kernels.work_units(arrays.speed[i], int(arrays.work[i]), work_resolution,
                                      False)
        nodes, slots = _usable(arrays, int(i), int(starts[j]), compute_left, memory_left)
        if W == 0 or nodes.size == 0:
            continue
        got = units[nodes]
        best = np.zeros(arrays.n_slots, dtype=np.int64)
        np.maximum.at(best, slots, got)
        if best.sum() < W:
            continue
        keep = rank[nodes, slots] <= len(parts)  # symmetry: the q-th task, q + 1 bins
        nodes, slots, got = nodes[keep], slots[keep], got[keep]
        feasible[j] = True
        parts.append((np.full(nodes.size, j), nodes, slots, got))
        work.append(W)
    tasks = np.flatnonzero(feasible)
    if not parts:
        empty = np.empty(0, dtype=np.int64)
        return _Model(tasks, empty, empty, empty, empty, np.empty(0, dtype=np.int64)), feasible
    y = [np.concatenate(p) for p in zip(*parts, strict=True)]
    return _Model(tasks, *y, np.array(work, dtype=np.int64)), feasible


def _rows(arrays: ScenarioArrays, batch, m: _Model, compute_left, memory_left):
    """The constraints as triplets over variables (x of ``m.tasks``, then the y's)."""
    n = m.tasks.size
    pos = np.full(len(batch), -1, dtype=np.int64)
    pos[m.tasks] = np.arange(n)
    x_of = pos[m.y_task]  # the column of each y's x
    y_col = n + np.arange(m.y_task.size)
    task = np.asarray(batch)[m.y_task]
    rows, cols, coef, lower, upper = [], [], [], [], []
    r = 0
    # work: sum of y's units >= W_j x_j (eq. 4d on the work grid)
    rows += [x_of, np.arange(n)]
    cols += [y_col, np.arange(n)]
    coef += [m.y_units.astype(float), -m.work.astype(float)]
    lower.append(np.zeros(n))
    upper.append(np.full(n, np.inf))
    r += n
    # one node per slot, and only for an admitted task: sum_k y_jkt <= x_j (eq. 4b)
    _, js, inv = np.unique(x_of * arrays.n_slots + m.y_slot, return_index=True,
                           return_inverse=True)
    rows += [r + inv, r + np.arange(js.size)]
    cols += [y_col, x_of[js]]
    coef += [np.ones(y_col.size), -np.ones(js.size)]
    lower.append(np.full(js.size, -np.inf))
    upper.append(np.zeros(js.size))
    r += js.size
    # capacities of each used cell: compute (4f) and memory (4g)
    _, first, inv = np.unique(m.y_node * arrays.n_slots + m.y_slot, return_index=True,
                              return_inverse=True)
    k, t = m.y_node[first], m.y_slot[first]
    rows += [r + 2 * inv, r + 2 * inv + 1]
    cols += [y_col, y_col]
    coef += [np.asarray(arrays.speed[task, m.y_node], dtype=float),
             np.asarray(arrays.memory[task], dtype=float)]
    cap = np.empty(2 * first.size)
    cap[0::2] = compute_left[k, t]
    cap[1::2] = memory_left[k, t] + MEMORY_TOLERANCE
    lower.append(np.full(2 * first.size, -np.inf))
    upper.append(cap)
    return (np.concatenate(rows), np.concatenate(cols), np.concatenate(coef),
            np.concatenate(lower), np.concatenate(upper))


def _trim(m: _Model, y: np.ndarray, j: int):
    """Task j's chosen cells in slot order, cut after the first prefix that delivers W_j:
    a cell beyond it adds no value and would only hold capacity (feasibility is kept)."""
    mine = np.flatnonzero((m.y_task == j) & (y > 0.5))
    mine = mine[np.argsort(m.y_slot[mine], kind="stable")]
    w = int(m.work[np.searchsorted(m.tasks, j)])
    keep = np.searchsorted(np.cumsum(m.y_units[mine]), w) + 1
    mine = mine[:keep]
    return m.y_node[mine].copy(), m.y_slot[mine].copy()


def _residuals(arrays: ScenarioArrays, batch, m: _Model, compute_left, memory_left,
               used: np.ndarray):
    """Per y of the model its compute s_ik, memory and cell index, and the compute and
    memory each cell has left once the y's ``used`` take theirs (indexed by cell)."""
    task = np.asarray(batch)[m.y_task]
    speed = np.asarray(arrays.speed[task, m.y_node], dtype=float)
    memory = np.asarray(arrays.memory[task], dtype=float)
    cell = m.y_node * arrays.n_slots + m.y_slot
    compute = compute_left.ravel().astype(float)
    room = memory_left.ravel().astype(float) + MEMORY_TOLERANCE
    np.subtract.at(compute, cell[used], speed[used])
    np.subtract.at(room, cell[used], memory[used])
    return speed, memory, cell, compute, room


def _greedy_start(arrays: ScenarioArrays, batch, m: _Model, value, compute_left,
                  memory_left, x: np.ndarray | None = None) -> np.ndarray:
    """A feasible start for the model: ``x`` (feasible, default none admitted) completed
    greedily by the tasks it leaves out, in order of value per unit of work (then the least
    work first), each given, slot by slot, its usable cell that delivers the most and still
    fits, until its work is met; a task whose work cannot be met takes nothing."""
    n = m.tasks.size
    x = np.zeros(n + m.y_task.size) if x is None else x.copy()
    speed, memory, cell, compute, room = _residuals(arrays, batch, m, compute_left,
                                                    memory_left, x[n:] > 0.5)
    worth = np.asarray(value, dtype=float)[m.tasks] / m.work
    for q in np.lexsort((m.work, -worth)):
        if x[q] > 0.5:
            continue
        mine = np.flatnonzero(m.y_task == m.tasks[q])
        c = cell[mine]
        ok = mine[(speed[mine] <= compute[c]) & (memory[mine] <= room[c])]
        if ok.size == 0:
            continue
        ok = ok[np.lexsort((-m.y_units[ok], m.y_slot[ok]))]  # by slot, the most units first
        first = np.r_[True, m.y_slot[ok][1:] != m.y_slot[ok][:-1]]
        ok = ok[first]
        reach = np.cumsum(m.y_units[ok])
        if reach[-1] < m.work[q]:
            continue
        ok = ok[:np.searchsorted(reach, m.work[q]) + 1]
        compute[cell[ok]] -= speed[ok]
        room[cell[ok]] -= memory[ok]
        x[q] = 1.0
        x[n + ok] = 1.0
    return x


def _rounded_start(m: _Model, lp_x: np.ndarray, tolerance: float = 1e-6) -> np.ndarray:
    """The integral part of the LP relaxation's solution ``lp_x``: each task the LP admits
    whole (x_j = 1) on cells it takes whole (every y_jkt 0 or 1), nothing else. Dropping
    the other tasks only frees capacity, so this is feasible."""
    n = m.tasks.size
    y = lp_x[n:]
    whole = (np.abs(y - np.round(y)) <= tolerance)
    broken = np.zeros(n, dtype=bool)
    pos = np.searchsorted(m.tasks, m.y_task)
    np.logical_or.at(broken, pos, ~whole)
    keep = (lp_x[:n] >= 1 - tolerance) & ~broken
    x = np.zeros_like(lp_x)
    x[:n] = keep
    x[n:] = keep[pos] & (y > 0.5)
    return x


def _repaired_start(arrays: ScenarioArrays, batch, m: _Model, compute_left, memory_left,
                    lp_x: np.ndarray, prefer_lp: bool = True,
                    tolerance: float = 1e-6) -> np.ndarray:
    """The LP relaxation's solution ``lp_x`` repaired into a schedule: each task the LP
    admits whole keeps the cells it takes whole; then, from the least work W_j, each
    completes its work slot by slot, earliest first, in each slot it does not use yet on
    the usable cell that still fits and that the LP gives it most (then the
    most-delivering; with ``prefer_lp`` false the most-delivering alone), as
    :func:`_greedy_start` does; a task that cannot be completed gives its cells back and
    is not admitted. Where the LP splits a task between two nodes of a slot,
    :func:`_rounded_start` drops the task; this keeps it whenever the capacity left
    allows."""
    n = m.tasks.size
    y = lp_x[n:]
    pos = np.searchsorted(m.tasks, m.y_task)  # each y's task, as a place in m.tasks
    whole = lp_x[:n] >= 1 - tolerance
    keep = whole[pos] & (y >= 1 - tolerance)  # within capacity: the LP's cells, fewer
    speed, memory, cell, compute, room = _residuals(arrays, batch, m, compute_left,
                                                    memory_left, keep)
    left = m.work - np.bincount(pos[keep], weights=m.y_units[keep], minlength=n)
    x = np.zeros_like(lp_x)
    order = np.flatnonzero(whole)
    for q in order[np.argsort(m.work[order], kind="stable")]:
        mine = np.flatnonzero(pos == q)
        have = mine[keep[mine]]
        if left[q] > 0:
            free = np.ones(arrays.n_slots, dtype=bool)
            free[m.y_slot[have]] = False
            c = cell[mine]
            ok = mine[~keep[mine] & free[m.y_slot[mine]] & (speed[mine] <= compute[c])
                      & (memory[mine] <= room[c])]
            lp = -y[ok] if prefer_lp else np.zeros(ok.size)
            ok = ok[np.lexsort((-m.y_units[ok], lp, m.y_slot[ok]))]  # by slot, the best
            ok = ok[np.r_[True, m.y_slot[ok][1:] != m.y_slot[ok][:-1]]] if ok.size else ok
            reach = np.cumsum(m.y_units[ok])
            if reach.size == 0 or reach[-1] < left[q]:
                compute[cell[have]] += speed[have]
                room[cell[have]] += memory[have]
                keep[have] = False
                continue
            ok = ok[:np.searchsorted(reach, left[q]) + 1]
            compute[cell[ok]] -= speed[ok]
            room[cell[ok]] -= memory[ok]
            keep[ok] = True
        x[q] = 1.0
    x[n:] = keep & (x[:n][pos] > 0.5)
    return x


def _count_bound(m: _Model, cost: np.ndarray, lp_value: float) -> float:
    """Where every task's value is an integer and no cell earns (``cost`` of the y's at
    most 0): the floor of a bound on the tasks' value alone, which bounds the optimum. The
    tasks' LP relaxation exceeds the whole LP's value ``lp_value`` by at most what its
    cells cost, and a task uses at most one node's worth of cells per slot (eq. 4b), so by
    at most the sum over tasks and slots of the dearest cell; else ``inf``."""
    n = m.tasks.size
    if not (np.all(cost[:n] == np.round(cost[:n])) and np.all(cost[n:] <= 0)):
        return np.inf
    key = m.y_task * (int(m.y_slot.max()) + 1) + m.y_slot
    _, inv = np.unique(key, return_inverse=True)
    dearest = np.zeros(int(inv.max()) + 1)
    np.maximum.at(dearest, inv.ravel(), -cost[n:])
    return float(np.floor(lp_value + dearest.sum() + 1e-6))


#: the stages of ``warm="lp_rens"``, in order; a slot stops at the first whose schedule is
#: within the gap of the bound: the LP relaxation's integral part completed greedily (0;
#: with ``warm="lp_rens_repair"`` the best of it and the LP's two repairs,
#: :func:`_repaired_start`, against the LP's bound or, with integral task values, the
#: count bound of :func:`_count_bound`); the best schedule of a sub-MILP over a
#: neighbourhood of the LP's solution (1); branch and bound on the whole model from the
#: best schedule so far (2). Where task values are integers and no cell earns (Titan's
#: progress objective), stages 1 and 2 are lexicographic: the sub-MILP and branch and
#: bound seek the tasks' value alone (an integral objective the solver closes at the next
#: integer; in stage 2 the floor of its bound bounds the slot), and a schedule with more
#: tasks then has each task placed again as early as it goes (:func:`_cells_again`)
STAGES = ("lp_rounding", "neighbourhood", "branch_and_bound")
#: HiGHS's options in stages 1 and 2 (the caller's options win in stage 2): no symmetry
#: detection, as the model already orders interchangeable nodes (:func:`_model`); the
#: detection took 4.5 of a slow sub-MILP's 6.4 s, and without it a K = 100 medium-load day
#: took 30 CPU-s instead of 36, the stage-2 slots of a K = 200 day 100 instead of 142 and
#: of a K = 100 high-load day 148 instead of 172, every schedule and gap the same
STAGE_OPTIONS = {"mip_detect_symmetry": False}
#: the neighbourhood sub-MILP of stage 1: solved to this relative gap within this many
#: nodes (counts), with a soft limit of one cut on HiGHS's cut pool (its cut rounds were
#: most of a sub-MILP's time)
NEIGHBOURHOOD_GAP = 0.005
NEIGHBOURHOOD_NODES = 50
NEIGHBOURHOOD_OPTIONS = {"mip_pool_soft_limit": 1, **STAGE_OPTIONS}
#: HiGHS's options in stage 2 besides ``STAGE_OPTIONS`` (the caller's options win): without
#: the sub-MIPs RINS and RENS, whose presolves took 77 of 137 s on the slowest stage-2 slot
#: seen (K = 100 high load, seed 1, slot 4: 17 s without them, one task fewer found)
BRANCH_OPTIONS = {"mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False}
#: stage 2's node count on a small model (a count, so the solve stays deterministic):
#: ``max(max_nodes, BRANCH_WORK // variables)``, so that a model of under 10,000 variables
#: has more than 200 nodes (a slot of 1,780 variables needed 298 to close a one-task gap)
BRANCH_WORK = 2_000_000
WARM = (None, "greedy", "lp", "lp_rens", "lp_rens_repair")


def _gap(bound: float, value: float) -> float:
    """The relative gap (bound - value) / |bound|, 0 when the bound is 0, never negative."""
    return max((bound - value) / abs(bound), 0.0) if bound != 0 else 0.0


def _neighbourhood(m: _Model, lp_x: np.ndarray, x: np.ndarray,
                   tolerance: float = 1e-6) -> np.ndarray:
    """Which variables stage 1 keeps: every task, the cells the LP's solution ``lp_x`` or
    the schedule ``x`` uses, and for each task the LP leaves fractional (a fractional x_j
    or y_jkt) its usable cells on every node the LP runs it on."""
    n = m.tasks.size
    pos = np.searchsorted(m.tasks, m.y_task)  # each y's task, as a place in m.tasks
    y = lp_x[n:]
    fractional = np.abs(lp_x[:n] - np.round(lp_x[:n])) > tolerance
    np.logical_or.at(fractional, pos, np.abs(y - np.round(y)) > tolerance)
    used = y > tolerance
    on_node = np.zeros((n, int(m.y_node.max()) + 1), dtype=bool)
    on_node[pos[used], m.y_node[used]] = True
    keep_y = used | (x[n:] > 0.5) | (fractional[pos] & on_node[pos, m.y_node])
    return np.concatenate([np.ones(n, dtype=bool), keep_y])


def _restricted(model: tuple, keep: np.ndarray, start: np.ndarray, options,
                cost: np.ndarray | None = None) -> np.ndarray:
    """The best schedule of the sub-MILP over the variables ``keep`` (the others at 0),
    from ``start`` (zero outside ``keep``), as a whole-model ``x``; ``cost`` replaces the
    model's objective if given."""
    model_cost, rows, cols, coef, lower, upper = model
    cost = model_cost if cost is None else cost
    idx = np.flatnonzero(keep)
    place = np.full(cost.size, -1, dtype=np.int64)
    place[idx] = np.arange(idx.size)
    inside = keep[cols]
    sub = solve_milp(cost[idx], rows[inside], place[cols[inside]], coef[inside], lower, upper,
                     mip_rel_gap=NEIGHBOURHOOD_GAP, max_nodes=NEIGHBOURHOOD_NODES,
                     options={**(options or {}), **NEIGHBOURHOOD_OPTIONS}, start=start[idx])
    x = np.zeros(cost.size)
    x[idx] = sub.x
    return x


def _cells_again(arrays: ScenarioArrays, batch, m: _Model, compute_left, memory_left,
                 x: np.ndarray) -> np.ndarray:
    """The tasks ``x`` admits, held admitted, each placed again as early as it can go (the
    second objective of the lexicographic stages, ``STAGES``): one task after another,
    from the least work W_j, gives its cells back and takes, slot by slot from its first,
    the usable cell that delivers the most and still fits, until its work is met, as
    :func:`_greedy_start` does. Its own cells fit again, so every task is placed again
    and none finishes later than it did (in each slot up to its old last it delivers at
    least what its old cell there did); the other tasks keep their cells meanwhile."""
    n = m.tasks.size
    x = x.copy()
    pos = np.searchsorted(m.tasks, m.y_task)  # each y's task, as a place in m.tasks
    speed, memory, cell, compute, room = _residuals(arrays, batch, m, compute_left,
                                                    memory_left, x[n:] > 0.5)
    chosen = np.flatnonzero(x[:n] > 0.5)
    for q in chosen[np.argsort(m.work[chosen], kind="stable")]:
        mine = np.flatnonzero(pos == q)
        have = mine[x[n + mine] > 0.5]
        compute[cell[have]] += speed[have]
        room[cell[have]] += memory[have]
        c = cell[mine]
        ok = mine[(speed[mine] <= compute[c]) & (memory[mine] <= room[c])]
        ok = ok[np.lexsort((-m.y_units[ok], m.y_slot[ok]))]  # by slot, the most units first
        ok = ok[np.r_[True, m.y_slot[ok][1:] != m.y_slot[ok][:-1]]]
        ok = ok[:np.searchsorted(np.cumsum(m.y_units[ok]), m.work[q]) + 1]
        compute[cell[ok]] -= speed[ok]
        room[cell[ok]] -= memory[ok]
        x[n + have] = 0.0
        x[n + ok] = 1.0
    return x


def _staged(arrays, batch, m: _Model, value, compute_left, memory_left, model: tuple,
            mip_rel_gap: float, max_nodes: int, options, repair: bool = False):
    """``warm="lp_rens"``: (x, value, bound, hit_limit, nodes, stage), the bound the LP
    relaxation's or, after branch and bound, the least of it and the solver's. With
    ``repair`` (``warm="lp_rens_repair"``), stage 0 also tries the LP's two repairs and
    bounds by the count (:func:`_count_bound`)."""
    cost, rows, cols, coef, lower, upper = model
    relaxed = solve_milp(cost, rows, cols, coef, lower, upper,
                         binary=np.zeros(cost.size, dtype=bool), options=options)
    bound = relaxed.value if not relaxed.hit_limit else np.inf
    starts = [_rounded_start(m, relaxed.x)]
    if repair:
        bound = min(bound, _count_bound(m, cost, bound))
        starts += [_repaired_start(arrays, batch, m, compute_left, memory_left, relaxed.x,
                                   lp) for lp in (True, False)]
    x = max((_greedy_start(arrays, batch, m, value, compute_left, memory_left, start)
             for start in starts), key=lambda v: objective(cost, v))  # stage 0
    if _gap(bound, objective(cost, x)) <= mip_rel_gap:
        return x, objective(cost, x), bound, False, 0, 0
    n = m.tasks.size
    counts = np.all(cost[:n] == np.round(cost[:n])) and np.all(cost[n:] <= 0)
    tasks_only = np.where(np.arange(cost.size) < n, cost, 0.0)
    near = _neighbourhood(m, relaxed.x, x)
    if counts:  # stage 1, lexicographic: the tasks' value, then their cells
        better = _restricted(model, near, x, options, cost=tasks_only)
        if objective(tasks_only, better) > objective(tasks_only, x) + 0.5:
            better = _cells_again(arrays, batch, m, compute_left, memory_left, better)
    else:
        better = _restricted(model, near, x, options)  # stage 1
    if objective(cost, better) > objective(cost, x):
        x = better
    if _gap(bound, objective(cost, x)) <= mip_rel_gap:
        return x, objective(cost, x), bound, False, 0, 1
    options = {**STAGE_OPTIONS, **BRANCH_OPTIONS, **(options or {})}
    max_nodes = max(max_nodes, BRANCH_WORK // cost.size)
    if not counts:
        sol = solve_milp(cost, rows, cols, coef, lower, upper, mip_rel_gap=mip_rel_gap,
                         max_nodes=max_nodes, options=options, start=x)  # stage 2
        return sol.x, sol.value, min(bound, sol.dual_bound), sol.hit_limit, sol.nodes, 2
    # integral task values and no cell that earns: stage 2 on the tasks' values alone (the
    # solver then knows the objective is integral); any schedule's value is at most its
    # tasks' value, so the floor of the solver's bound on that bounds the optimum
    sol = solve_milp(tasks_only, rows, cols, coef, lower, upper, mip_rel_gap=mip_rel_gap,
                     max_nodes=max_nodes, options=options, start=x)
    bound = min(bound, float(np.floor(sol.dual_bound + 1e-6)))
    # more value: its tasks held, their cells chosen again
    if objective(tasks_only, sol.x) > objective(tasks_only, x) + 0.5:
        x = max((sol.x, _cells_again(arrays, batch, m, compute_left, memory_left, sol.x)),
                key=lambda v: objective(cost, v))
    return x, objective(cost, x), bound, sol.hit_limit, sol.nodes, 2


def solve_slot(arrays: ScenarioArrays, batch, starts, value, compute_left, memory_left, *,
               work_resolution: int = 8, cell_penalty: float = 0.0,
               penalty_growth: float = 0.0,
               mip_rel_gap: float = 0.01, max_nodes: int = 100_000,
               options: dict | None = None, warm: str | None = None) -> SlotSolution:
    """Choose which tasks of ``batch`` to admit and their cells, maximising
    ``sum_j value[j] x_j - sum (e_ikt + cell_penalty) y_ikt`` (the per-slot problem P1 of
    eq. 5 in compact form: one binary per task and per usable cell rather than one per
    schedule; interchangeable nodes held in order, as the baselines chapter explains).

    ``starts[j]``: the first slot task ``batch[j]`` may use (its arrival, or with a vendor
    the arrival plus the vendor's delay, 4c). The solve stops at relative gap
    ``mip_rel_gap`` or after ``max_nodes`` branch-and-bound nodes (a count); the gap it
    reaches is certified by the solver's bound. ``warm`` gives the solver a first
    incumbent: ``"greedy"`` a greedy schedule, ``"lp"`` the integral part of the LP
    relaxation's solution (one LP solve more) completed greedily; a solve stopped by its
    node limit keeps at least its value. ``"lp_rens"`` solves in the stages of
    ``STAGES``: the LP relaxation's value bounds the optimum, and the first schedule
    within ``mip_rel_gap`` of it ends the solve, so that branch and bound runs only where
    the LP's rounding and its neighbourhood's sub-MILP fall short (the bound is then the
    least of the LP's and the solver's; on a small model stage 2 may take more than
    ``max_nodes``, up to ``BRANCH_WORK // variables``). ``"lp_rens_repair"`` is
    ``"lp_rens"`` whose stage 0 also repairs the LP's split tasks and bounds by the count
    (``STAGES``): cheaper; the
    repairs keep the LP's cells wherever in the window they lie, so that with a flat cell
    penalty the days they make admit fewer tasks, and with ``penalty_growth`` the LP
    itself prefers early cells (the baselines chapter).
    ``penalty_growth`` makes a cell's penalty grow with its slot t, to
    ``cell_penalty * (1 + penalty_growth * t / T)``: among equally many tasks, the
    schedule with earlier cells.
    An admitted task's cells are cut to the first that deliver its work, in slot order.
    """
    if warm not in WARM:
        raise InputError(f"warm must be one of {WARM}, got {warm!r}")
    batch = np.asarray(batch, dtype=np.int64)
    m, feasible = _model(arrays, batch, starts, compute_left, memory_left, work_resolution)
    if m.tasks.size == 0:
        return SlotSolution(feasible, np.zeros(len(batch), dtype=bool), [None] * len(batch),
                            0.0, 0.0, 0.0, False, 0, 0, 0)
    task = batch[m.y_task]
    e = np.asarray(arrays.op_cost(task, m.y_node, m.y_slot), dtype=float)  # e_ikt
    penalty = cell_penalty * (1.0 + penalty_growth * m.y_slot / arrays.n_slots)
    cost = np.concatenate([np.asarray(value, dtype=float)[m.tasks], -e - penalty])
    rows, cols, coef, lower, upper = _rows(arrays, batch, m, compute_left, memory_left)
    if warm in ("lp_rens", "lp_rens_repair"):
        x, got, bound, hit, nodes, stage = _staged(
            arrays, batch, m, value, compute_left, memory_left,
            (cost, rows, cols, coef, lower, upper), mip_rel_gap, max_nodes, options,
            repair=warm == "lp_rens_repair")
        return _solution(m, batch, feasible, x, got, bound, _gap(bound, got), hit, nodes,
                         int(cost.size), stage)
    start = None
    if warm == "greedy":
        start = _greedy_start(arrays, batch, m, value, compute_left, memory_left)
    elif warm == "lp":  # the relaxation, solved as an LP
        relaxed = solve_milp(cost, rows, cols, coef, lower, upper,
                             binary=np.zeros(cost.size, dtype=bool), options=options)
        start = _greedy_start(arrays, batch, m, value, compute_left, memory_left,
                              _rounded_start(m, relaxed.x))
    sol = solve_milp(cost, rows, cols, coef, lower, upper, mip_rel_gap=mip_rel_gap,
                     max_nodes=max_nodes, options=options, start=start)
    return _solution(m, batch, feasible, sol.x, sol.value, sol.dual_bound, sol.gap,
                     sol.hit_limit, sol.nodes, int(cost.size), 2)


def _solution(m: _Model, batch, feasible, x, value, bound, gap, hit, nodes, variables,
              stage) -> SlotSolution:
    """The :class:`SlotSolution` of the model's schedule ``x``."""
    n = m.tasks.size
    admitted = np.zeros(len(batch), dtype=bool)
    cells = [None] * len(batch)
    for j in m.tasks[x[:n] > 0.5]:
        admitted[j] = True
        cells[j] = _trim(m, x[n:], int(j))
    return SlotSolution(feasible, admitted, cells, float(value), float(bound), float(gap),
                        bool(hit), int(nodes), int(variables), int(stage))
