"""One slot's compact MILP (lorasched.pdftsp.slot_milp): its optimum against a brute force
over every schedule of a tiny batch, the certified gap, and the trimmed cells."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import xarray as xr

import lorasched
from lorasched.pdftsp import kernels, slot_milp
from lorasched.pdftsp.scenario import to_arrays


def two_nodes(work, memory, deadline):
    """Two nodes (an A100 and an A40), no vendors; every task arrives in slot 0."""
    scenario = lorasched.synthetic_scenario(nodes=2, slots=4, load=0.0, vendors=0,
                                            preprocessing_share=0.0, gpu="mix", seed=1)
    n = len(work)
    tasks = xr.Dataset({
        "arrival": ("task", [0] * n), "deadline": ("task", list(deadline)),
        "memory": ("task", list(memory)), "work": ("task", list(work)),
        "needs_preprocessing": ("task", [False] * n), "bid": ("task", [1.0] * n),
        "speed": (("task", "node"), [[2000, 1000]] * n),
        "vendor_price": (("task", "vendor"), np.zeros((n, 0))),
        "vendor_delay": (("task", "vendor"), np.zeros((n, 0), dtype=np.int64))})
    out = scenario.drop_dims("task").assign(tasks)
    for bound in ("value_density_min", "value_density_max"):
        del out.attrs[bound]
    return to_arrays(out)


#: tiny batches on two nodes: work, memory, deadline per task and their values
BATCHES = [
    ([2000, 1500, 3000, 1000], [30.0, 30.0, 20.0, 40.0], [1, 1, 2, 0], [1, 1, 1, 1]),
    ([2500, 2500, 1000, 1000], [20.0, 20.0, 20.0, 20.0], [1, 1, 1, 0], [3, 2, 1, 1.5]),
    ([1000] * 4, [40.0] * 4, [0] * 4, [1, 1, 1, 1]),
]


def costless(work, memory, deadline):
    """:func:`two_nodes` with no operating cost: the arrays, the residual compute and
    memory, and the batch of every task."""
    a = two_nodes(work, memory, deadline)
    a = a._replace(op_cost_rate=np.zeros_like(a.op_cost_rate))
    compute, mem = a.residual()
    return a, compute, mem, np.arange(a.n_tasks)


def brute_force(a, value, compute, memory):
    """The best total value over every choice of at most one schedule per task (a node or
    none in each slot of its window, delivering W on the work grid), capacities checked
    cell by cell: shares no code with the MILP."""
    options = []
    for i in range(a.n_tasks):
        units, W = kernels.work_units(a.speed[i], int(a.work[i]), 8, False)
        window = range(int(a.arrival[i]), int(a.deadline[i]) + 1)
        mine = [None]
        for pick in itertools.product([-1, *range(a.n_nodes)], repeat=len(window)):
            cells = [(k, t) for k, t in zip(pick, window, strict=True) if k >= 0]
            if cells and sum(units[k] for k, _ in cells) >= W:
                mine.append(cells)
        options.append(mine)
    best = 0.0
    for combo in itertools.product(*options):
        c, m = compute.astype(float).copy(), memory.copy()
        for i, cells in enumerate(combo):
            for k, t in cells or ():
                c[k, t] -= a.speed[i, k]
                m[k, t] -= a.memory[i]
        if (c >= 0).all() and (m >= -1e-9).all():
            best = max(best, sum(value[i] for i, cells in enumerate(combo) if cells))
    return best


@pytest.mark.parametrize("work, memory, deadline, value", [
    ([2000, 1500, 3000, 1000], [30.0, 30.0, 20.0, 40.0], [1, 1, 2, 0], [1, 1, 1, 1]),
    ([2500, 2500, 1000, 1000], [20.0, 20.0, 20.0, 20.0], [1, 1, 1, 0], [3, 2, 1, 1.5]),
])
def test_the_slot_optimum_is_the_brute_forces(work, memory, deadline, value):
    a = two_nodes(work, memory, deadline)
    compute, mem = a.residual()
    batch = np.arange(a.n_tasks)
    sol = slot_milp.solve_slot(a._replace(op_cost_rate=np.zeros_like(a.op_cost_rate)), batch,
                               a.arrival[batch], np.asarray(value, float), compute, mem,
                               mip_rel_gap=0.0)
    want = brute_force(a, value, compute, mem)
    assert want > 0
    assert sol.value == pytest.approx(want)
    assert sol.gap == pytest.approx(0.0, abs=1e-9) and not sol.hit_limit
    used_c, used_m = np.zeros_like(compute, dtype=float), np.zeros_like(mem)
    for j in np.flatnonzero(sol.admitted):
        nodes, slots = sol.cells[j]
        np.add.at(used_c, (nodes, slots), a.speed[j, nodes])
        np.add.at(used_m, (nodes, slots), a.memory[j])
        assert np.unique(slots).size == slots.size  # one node per slot (4b)
        units, W = kernels.work_units(a.speed[j], int(a.work[j]), 8, False)
        got = np.cumsum(units[nodes])
        assert got[-1] >= W and (got.size == 1 or got[-2] < W)  # trimmed to the work
    assert (used_c <= compute).all() and (used_m <= mem + 1e-9).all()


def test_a_broken_model_is_caught_by_the_brute_force():
    """Without its capacity rows the MILP admits more than fits: the brute force (the check
    above) would fail it."""
    a = two_nodes([1000] * 4, [40.0] * 4, [0] * 4)
    a = a._replace(op_cost_rate=np.zeros_like(a.op_cost_rate))
    compute, mem = a.residual()
    batch = np.arange(a.n_tasks)
    tight = brute_force(a, [1] * 4, compute, mem)
    assert slot_milp.solve_slot(a, batch, a.arrival[batch], np.ones(4), compute, mem,
                                mip_rel_gap=0.0).value == pytest.approx(tight)
    loose = slot_milp.solve_slot(a, batch, a.arrival[batch], np.ones(4), compute * 100,
                                 mem * 100, mip_rel_gap=0.0)
    assert loose.value > tight


def test_a_task_without_a_schedule_is_infeasible_and_not_in_the_model():
    a = two_nodes([2000, 10**9], [20.0, 20.0], [1, 1])
    compute, mem = a.residual()
    sol = slot_milp.solve_slot(a, np.arange(2), a.arrival[:2], np.ones(2), compute, mem)
    assert sol.feasible.tolist() == [True, False]
    assert sol.admitted.tolist() == [True, False]


def alike(n_nodes, work, memory, deadline):
    """``n_nodes`` identical A40 nodes, no vendors; every task arrives in slot 0."""
    scenario = lorasched.synthetic_scenario(nodes=n_nodes, slots=4, load=0.0, vendors=0,
                                            preprocessing_share=0.0, gpu="A40", seed=1)
    n = len(work)
    tasks = xr.Dataset({
        "arrival": ("task", [0] * n), "deadline": ("task", list(deadline)),
        "memory": ("task", list(memory)), "work": ("task", list(work)),
        "needs_preprocessing": ("task", [False] * n), "bid": ("task", [1.0] * n),
        "speed": (("task", "node"), [[1500] * n_nodes] * n),
        "vendor_price": (("task", "vendor"), np.zeros((n, 0))),
        "vendor_delay": (("task", "vendor"), np.zeros((n, 0), dtype=np.int64))})
    out = scenario.drop_dims("task").assign(tasks)
    for bound in ("value_density_min", "value_density_max"):
        del out.attrs[bound]
    a = to_arrays(out)
    return a._replace(op_cost_rate=np.zeros_like(a.op_cost_rate))


def test_identical_nodes_rank_apart_and_keep_the_optimum():
    """Interchangeable nodes of a slot rank 0, 1, 2, ...; a node with less left is its own
    kind. With the q-th task held to the first q + 1 of them, the optimum is still the brute
    force's (the symmetry removed, not a schedule)."""
    a = alike(3, [1500, 2500, 1500, 3000], [20.0, 20.0, 30.0, 20.0], [1, 1, 0, 1])
    compute, mem = a.residual()
    batch = np.arange(a.n_tasks)
    rank = slot_milp._ranks(a, batch, compute, mem, 0, 1)
    assert rank[:, 0].tolist() == [0, 1, 2]
    fuller = mem.copy()
    fuller[1, 1] -= 5.0
    assert slot_milp._ranks(a, batch, compute, fuller, 0, 1)[:, 1].tolist() == [0, 0, 1]
    sol = slot_milp.solve_slot(a, batch, a.arrival[batch], np.array([1, 1, 1, 2.0]),
                               compute, mem, mip_rel_gap=0.0)
    assert sol.value == pytest.approx(brute_force(a, [1, 1, 1, 2.0], compute, mem))
    model, _ = slot_milp._model(a, batch, a.arrival[batch], compute, mem, 8)
    assert (model.y_node[model.y_task == 0] == 0).all()  # the first task: the first node


@pytest.mark.parametrize("work, memory, deadline, value", BATCHES)
def test_the_greedy_start_fits_and_a_warm_solve_keeps_the_optimum(work, memory, deadline,
                                                                   value):
    """The greedy start meets every row of the model (a start that breaks one is refused),
    admits only tasks it gives their work, and the warm solve still reaches the optimum."""
    a, compute, mem, batch = costless(work, memory, deadline)
    value = np.asarray(value, float)
    m, _ = slot_milp._model(a, batch, a.arrival[batch], compute, mem, 8)
    x = slot_milp._greedy_start(a, batch, m, value, compute, mem)
    n = m.tasks.size
    assert x[:n].sum() >= 1
    for q in range(n):  # a task's cells deliver its work exactly when it is admitted
        got = m.y_units[(m.y_task == m.tasks[q]) & (x[n:] > 0.5)].sum()
        assert (got >= m.work[q]) == bool(x[q]) and (got == 0 or x[q])
    warm = slot_milp.solve_slot(a, batch, a.arrival[batch], value, compute, mem,
                                mip_rel_gap=0.0, warm="greedy")
    assert warm.value == pytest.approx(brute_force(a, value, compute, mem))
    lp = slot_milp.solve_slot(a, batch, a.arrival[batch], value, compute, mem,
                              mip_rel_gap=0.0, warm="lp")
    assert lp.value == pytest.approx(warm.value)


def four_tasks():
    """Four tasks on two nodes whose LP relaxation is fractional: the staged solve's and the
    neighbourhood's batch."""
    return two_nodes([2000, 1500, 3000, 1000], [30.0, 30.0, 20.0, 40.0], [1, 1, 2, 0])


def four_tasks_model():
    """:func:`four_tasks`' compact model, its task count and an all-zero ``x`` for it."""
    a = four_tasks()
    compute, mem = a.residual()
    batch = np.arange(a.n_tasks)
    m, _ = slot_milp._model(a, batch, a.arrival[batch], compute, mem, 8)
    return m, m.tasks.size, np.zeros(m.tasks.size + m.y_task.size)


def test_the_rounded_start_keeps_only_tasks_the_lp_takes_whole():
    m, n, lp_x = four_tasks_model()
    lp_x[:n] = [1.0, 1.0, 0.5, 1.0][:n]
    lp_x[n:] = 1.0
    lp_x[n + np.flatnonzero(m.y_task == m.tasks[1])[0]] = 0.3  # task 1 split across cells
    x = slot_milp._rounded_start(m, lp_x)
    assert x[:n].tolist() == [1.0, 0.0, 0.0, 1.0][:n]
    kept = np.isin(m.y_task, m.tasks[[0, 3]])
    assert (x[n:][kept] == 1.0).all() and (x[n:][~kept] == 0.0).all()


def meets_rows(a, batch, m, compute, mem, x) -> bool:
    """Whether ``x`` meets every row of the compact model (:func:`slot_milp._rows`)."""
    rows, cols, coef, lower, upper = slot_milp._rows(a, batch, m, compute, mem)
    ax = np.bincount(rows, weights=coef * x[cols], minlength=lower.size)
    return bool(np.all(ax >= lower - 1e-9) and np.all(ax <= upper + 1e-9))


def relaxed(a, batch, m, compute, mem, cost):
    """The LP relaxation's solution of the compact model with objective ``cost``."""
    rows, cols, coef, lower, upper = slot_milp._rows(a, batch, m, compute, mem)
    return slot_milp.solve_milp(cost, rows, cols, coef, lower, upper,
                                binary=np.zeros(cost.size, dtype=bool))


@pytest.mark.parametrize("prefer_lp", [True, False])
@pytest.mark.parametrize("work, memory, deadline, value", BATCHES)
def test_the_repaired_start_fits_and_keeps_what_the_rounding_keeps(work, memory, deadline,
                                                                   value, prefer_lp):
    """From the LP relaxation's own solution: the repaired start meets every row, gives each
    task it admits its work, and admits every task the rounded start admits."""
    a, compute, mem, batch = costless(work, memory, deadline)
    m, _ = slot_milp._model(a, batch, a.arrival[batch], compute, mem, 8)
    n = m.tasks.size
    lp = relaxed(a, batch, m, compute, mem,
                 np.concatenate([np.asarray(value, float)[m.tasks], np.zeros(m.y_task.size)]))
    x = slot_milp._repaired_start(a, batch, m, compute, mem, lp.x, prefer_lp)
    assert meets_rows(a, batch, m, compute, mem, x)
    for q in range(n):
        got = m.y_units[(m.y_task == m.tasks[q]) & (x[n:] > 0.5)].sum()
        assert (got >= m.work[q]) == bool(x[q]) and (got == 0 or x[q])
    assert (x[:n] >= slot_milp._rounded_start(m, lp.x)[:n]).all()


def last_slot(m, x, q) -> int:
    """The slot in which task ``m.tasks[q]`` of the schedule ``x`` delivers its work (its
    cells in slot order, cut after the first that deliver W_j)."""
    n = m.tasks.size
    mine = np.flatnonzero((m.y_task == m.tasks[q]) & (x[n:] > 0.5))
    mine = mine[np.argsort(m.y_slot[mine], kind="stable")]
    return int(m.y_slot[mine][np.searchsorted(np.cumsum(m.y_units[mine]), m.work[q])])


@pytest.mark.parametrize("work, memory, deadline, value", BATCHES)
def test_cells_placed_again_keep_the_tasks_fit_and_finish_no_later(work, memory, deadline,
                                                                  value):
    """Stage 1's and 2's second objective: from a schedule holding every usable cell it can
    (the latest first), placing the cells again keeps the same tasks, meets every row,
    gives each its work, ends none later than it ended, and holds fewer cells where the
    windows have more than one slot."""
    a, compute, mem, batch = costless(work, memory, deadline)
    m, _ = slot_milp._model(a, batch, a.arrival[batch], compute, mem, 8)
    n = m.tasks.size
    rows, cols, coef, lower, upper = slot_milp._rows(a, batch, m, compute, mem)
    late = np.concatenate([np.asarray(value, float)[m.tasks], 1e-3 * (1 + m.y_slot)])
    x = slot_milp.solve_milp(late, rows, cols, coef, lower, upper, mip_rel_gap=0.0).x
    again = slot_milp._cells_again(a, batch, m, compute, mem, x)
    assert again[:n].tolist() == x[:n].tolist()
    assert meets_rows(a, batch, m, compute, mem, again)
    chosen = np.flatnonzero(x[:n] > 0.5)
    before = [last_slot(m, x, q) for q in chosen]
    after = [last_slot(m, again, q) for q in chosen]
    assert all(b >= c for b, c in zip(before, after, strict=True))
    fewer = int((again[n:] > 0.5).sum()) < int((x[n:] > 0.5).sum())
    assert fewer == (max(deadline) > 0)  # in a one-slot window, no cell to spare


def test_the_repaired_start_keeps_a_task_the_lp_splits_where_capacity_allows():
    """A task the LP admits whole but splits across cells: the rounded start drops it, the
    repaired start completes its work on cells that fit; a task the LP admits in part is
    not admitted."""
    a = four_tasks()
    compute, mem = a.residual()
    compute, mem = compute * 100, mem * 100  # room for every task
    batch = np.arange(a.n_tasks)
    m, _ = slot_milp._model(a, batch, a.arrival[batch], compute, mem, 8)
    n = m.tasks.size
    lp_x = np.zeros(n + m.y_task.size)
    lp_x[:n] = 1.0
    lp_x[2] = 0.5  # the third task in part
    for q in range(n):
        mine = np.flatnonzero(m.y_task == m.tasks[q])
        lp_x[n + mine[0]] = 0.4  # every task split, its first cell fractional
    assert slot_milp._rounded_start(m, lp_x)[:n].sum() == 0
    x = slot_milp._repaired_start(a, batch, m, compute, mem, lp_x)
    assert x[:n].tolist() == [1.0, 1.0, 0.0, 1.0][:n]
    assert meets_rows(a, batch, m, compute, mem, x)


def test_the_count_bound_bounds_where_the_lp_does_not_round_down():
    """Integral task values and cell penalties: the LP's value is the count less the
    penalties, its floor below the optimum; the count bound adds what the cells can cost
    and stays at or above the brute force's count. With a value that is not an integer, or
    a cell that earns, there is no count bound."""
    a, compute, mem, batch = costless([1000] * 4, [40.0] * 4, [0] * 4)
    compute, mem = compute * 100, mem * 100
    m, _ = slot_milp._model(a, batch, a.arrival[batch], compute, mem, 8)
    n = m.tasks.size
    cost = np.concatenate([np.ones(n), np.full(m.y_task.size, -1e-4)])
    lp = relaxed(a, batch, m, compute, mem, cost)
    best = brute_force(a, np.ones(4), compute, mem)
    assert np.floor(lp.value) < best <= lp.value + 1e-3
    bound = slot_milp._count_bound(m, cost, lp.value)
    assert bound == best
    assert slot_milp._count_bound(m, cost * 1.5, lp.value * 1.5) == np.inf
    earns = cost.copy()
    earns[n] = 1e-4
    assert slot_milp._count_bound(m, earns, lp.value) == np.inf


@pytest.mark.parametrize("warm", ["lp_rens", "lp_rens_repair"])
@pytest.mark.parametrize("work, memory, deadline, value", BATCHES)
def test_the_staged_solve_reaches_the_optimum_and_certifies_its_gap(work, memory, deadline,
                                                                    value, warm):
    """warm="lp_rens" (and its repairing variant) solved to a zero gap finds the brute
    force's optimum; its bound is a bound, its gap the certified one, and its stage one of
    STAGES."""
    a, compute, mem, batch = costless(work, memory, deadline)
    value = np.asarray(value, float)
    best = brute_force(a, value, compute, mem)
    sol = slot_milp.solve_slot(a, batch, a.arrival[batch], value, compute, mem,
                               mip_rel_gap=0.0, warm=warm)
    assert sol.value == pytest.approx(best)
    assert sol.bound >= best - 1e-9
    assert sol.gap == pytest.approx(max((sol.bound - sol.value) / sol.bound, 0.0))
    assert 0 <= sol.stage < len(slot_milp.STAGES)
    assert value[sol.admitted].sum() == pytest.approx(sol.value)


def test_branch_and_bound_on_integral_values_bounds_by_the_floor():
    """Stage 2 with integral task values and cell penalties: the bound (the least of the
    LP's and the floor of the solver's bound on the tasks' values) is at least the brute
    force's optimum, and the schedule loses no more than its penalty."""
    a = four_tasks()
    a = a._replace(op_cost_rate=np.zeros_like(a.op_cost_rate))
    compute, mem = a.residual()
    batch = np.arange(a.n_tasks)
    sol = slot_milp.solve_slot(a, batch, a.arrival[batch], np.ones(4), compute, mem,
                               mip_rel_gap=0.0, warm="lp_rens", cell_penalty=1e-4)
    best = brute_force(a, np.ones(4), compute, mem)
    assert sol.admitted.sum() == best
    assert sol.stage == 2 and sol.bound >= max(sol.value, best - 0.01) - 1e-9
    assert best - 0.01 < sol.value <= best


def costless_four_tasks():
    """:func:`four_tasks` with no operating cost: the arrays, the residual compute and
    memory, and the batch of every task."""
    a = four_tasks()
    a = a._replace(op_cost_rate=np.zeros_like(a.op_cost_rate))
    compute, mem = a.residual()
    return a, compute, mem, np.arange(a.n_tasks)


def spy_solves(monkeypatch) -> list:
    """Record every solve of :mod:`lorasched.pdftsp.slot_milp` as (kind, objective, keyword
    arguments), kind ``"lp"``, ``"sub"`` (stage 1's neighbourhood) or ``"b&b"``."""
    calls = []
    real = slot_milp.solve_milp

    def spy(cost, *args, **kwargs):
        kind = ("lp" if kwargs.get("binary") is not None else
                "sub" if kwargs.get("max_nodes") == slot_milp.NEIGHBOURHOOD_NODES else "b&b")
        calls.append((kind, np.asarray(cost).copy(), kwargs))
        return real(cost, *args, **kwargs)

    monkeypatch.setattr(slot_milp, "solve_milp", spy)
    return calls


def test_stages_1_and_2_run_without_symmetry_detection_unless_the_caller_says(monkeypatch):
    """The model orders interchangeable nodes itself: HiGHS's symmetry detection is off in
    the sub-MILPs and in branch and bound (the caller's options win in stage 2), never in
    the LP relaxation's solve."""
    a, compute, mem, batch = costless_four_tasks()
    calls = spy_solves(monkeypatch)
    for options, stage2 in ((None, False), ({"mip_detect_symmetry": True}, True)):
        calls.clear()
        sol = slot_milp.solve_slot(a, batch, a.arrival[batch], np.ones(4), compute, mem,
                                   mip_rel_gap=0.0, warm="lp_rens", cell_penalty=1e-4,
                                   options=options)
        seen = [(kind, (kw.get("options") or {}).get("mip_detect_symmetry"))
                for kind, _, kw in calls]
        assert sol.stage == 2
        assert seen[0] == ("lp", None if options is None else True)
        assert ("sub", False) in seen and ("b&b", stage2) in seen


def test_stage_1_and_2_seek_the_tasks_first_and_branch_without_the_sub_mips(monkeypatch):
    """With integral task values and penalised cells, stage 1's sub-MILP and stage 2 see the
    tasks' values alone (their cells are placed again afterwards); stage 2 runs without
    HiGHS's RINS and RENS, and on a small model within BRANCH_WORK // variables nodes.
    With values that are not integers, stage 1 sees the whole objective."""
    a, compute, mem, batch = costless_four_tasks()
    seen = spy_solves(monkeypatch)
    for value, whole in ((np.ones(4), False), (np.array([1.5, 1.0, 1.25, 1.0]), True)):
        seen.clear()
        sol = slot_milp.solve_slot(a, batch, a.arrival[batch], value, compute, mem,
                                   mip_rel_gap=0.0, warm="lp_rens", cell_penalty=1e-4,
                                   max_nodes=7)
        assert sol.stage == 2
        n = sol.admitted.size
        sub = [cost for kind, cost, _ in seen if kind == "sub"]
        assert sub and all((cost[n:] != 0).any() == whole for cost in sub)
        (cost, kwargs), = [(cost, kw) for kind, cost, kw in seen if kind == "b&b"]
        assert (cost[n:] != 0).any() == whole
        assert kwargs["options"]["mip_heuristic_run_rins"] is False
        assert kwargs["options"]["mip_heuristic_run_rens"] is False
        assert kwargs["max_nodes"] == slot_milp.BRANCH_WORK // cost.size > 7

def test_the_lp_bound_ends_the_staged_solve_before_branch_and_bound():
    """Where the LP's rounding is within the gap of the LP's bound, no node is explored
    (stage 0); with a zero gap on a batch whose LP is fractional, the later stages run."""
    a = two_nodes([1000] * 4, [40.0] * 4, [0] * 4)
    a = a._replace(op_cost_rate=np.zeros_like(a.op_cost_rate))
    compute, mem = a.residual()
    batch = np.arange(a.n_tasks)
    loose = slot_milp.solve_slot(a, batch, a.arrival[batch], np.ones(4), compute * 100,
                                 mem * 100, mip_rel_gap=0.01, warm="lp_rens")
    assert loose.stage == 0 and loose.nodes == 0 and loose.admitted.all()
    assert loose.gap <= 0.01


def test_the_neighbourhood_keeps_the_lp_support_and_the_fractional_tasks_nodes():
    """Stage 1's variables: every task, every cell the LP or the start uses, and a
    fractional task's cells on the nodes the LP runs it on; nothing else."""
    m, n, lp_x = four_tasks_model()
    lp_x[0] = 1.0
    mine = np.flatnonzero(m.y_task == m.tasks[0])
    lp_x[n + mine[0]] = 1.0  # task 0 whole on one cell
    other = np.flatnonzero(m.y_task == m.tasks[1])
    lp_x[1] = 0.5
    lp_x[n + other[0]] = 0.5  # task 1 fractional on one cell's node
    start = np.zeros_like(lp_x)
    last = np.flatnonzero(m.y_task == m.tasks[-1])
    start[n + last[-1]] = 1.0  # a cell of the start's
    keep = slot_milp._neighbourhood(m, lp_x, start)
    assert keep[:n].all()
    y = keep[n:]
    expect = np.zeros(m.y_task.size, dtype=bool)
    expect[mine[0]] = expect[last[-1]] = True
    expect[other[m.y_node[other] == m.y_node[other[0]]]] = True
    assert y.tolist() == expect.tolist()


@pytest.mark.parametrize("growth, slot", [(1.0, 0), (-0.5, 1)])
def test_a_penalty_growing_with_the_slot_picks_the_earlier_cell(growth, slot):
    """One task whose work fits in one cell of either slot: a cell penalty growing with the
    slot (the "early_cells" tie-break) takes the first slot's cell, one shrinking with it
    the second's; the value is the task's less its cell's penalty."""
    a, compute, mem, batch = costless([1000], [20.0], [1])
    sol = slot_milp.solve_slot(a, batch, a.arrival[batch], np.ones(1), compute, mem,
                               mip_rel_gap=0.0, cell_penalty=1e-3, penalty_growth=growth)
    nodes, slots = sol.cells[0]
    assert sol.admitted[0] and slots.tolist() == [slot]
    assert sol.value == pytest.approx(1 - 1e-3 * (1 + growth * slot / a.n_slots))
