"""A MILP from sparse triplets (lorasched.lp.milp): the optimum of a knapsack against brute
force, the certified gap, its limits and its errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from lorasched.lp import objective, solve_milp
from lorasched.model.errors import InputError


def knapsack(n=10, seed=0):
    rng = np.random.default_rng(seed)
    value, weight = rng.integers(1, 20, n).astype(float), rng.integers(1, 20, n).astype(float)
    return value, weight, float(weight.sum() // 2)


def test_a_knapsack_is_solved_to_the_brute_forces_optimum():
    value, weight, cap = knapsack()
    sol = solve_milp(value, np.zeros(value.size), np.arange(value.size), weight, [-np.inf],
                     [cap], mip_rel_gap=0.0)
    best = max(value @ np.array(x) for x in itertools.product([0, 1], repeat=value.size)
               if weight @ np.array(x) <= cap)
    assert sol.value == pytest.approx(best) and value @ sol.x == pytest.approx(best)
    assert weight @ sol.x <= cap and sol.gap == pytest.approx(0.0) and not sol.hit_limit
    assert sol.dual_bound >= sol.value - 1e-9


def test_duplicate_triplets_are_summed():
    sol = solve_milp([1.0], [0, 0], [0, 0], [1.0, 1.0], [-np.inf], [1.5])
    assert sol.value == 0.0  # 2 x <= 1.5 leaves x = 0


def test_a_node_limit_stops_the_solve_and_says_so():
    value, weight, cap = knapsack(60, seed=3)
    rows = np.zeros(value.size)
    sol = solve_milp(value, rows, np.arange(value.size), weight, [-np.inf], [cap],
                     mip_rel_gap=0.0, max_nodes=1,
                     options={"presolve": "off", "mip_heuristic_effort": 0.0})
    full = solve_milp(value, rows, np.arange(value.size), weight, [-np.inf], [cap],
                      mip_rel_gap=0.0)
    assert full.gap == pytest.approx(0.0)
    assert sol.hit_limit or sol.value == pytest.approx(full.value)
    assert sol.dual_bound >= full.value - 1e-6  # a bound, limit or not


def test_a_refused_option_is_named():
    with pytest.raises(InputError, match="no_such_option"):
        solve_milp([1.0], [0], [0], [1.0], [-np.inf], [1.0], options={"no_such_option": 1})


def test_an_empty_model_is_solved_trivially():
    sol = solve_milp([], [], [], [], [], [])
    assert sol.value == 0.0 and sol.gap == 0.0 and sol.x.size == 0


def test_a_start_is_the_first_incumbent_and_a_broken_one_is_refused():
    value, weight, cap = knapsack(30, seed=2)
    rows, cols = np.zeros(value.size), np.arange(value.size)
    start = np.zeros(value.size)
    start[np.argsort(-value / weight)[:3]] = 1.0  # three items fit: 3 * 19 < half of 30
    assert weight @ start <= cap
    sol = solve_milp(value, rows, cols, weight, [-np.inf], [cap], max_nodes=0,
                     options={"presolve": "off", "mip_heuristic_effort": 0.0}, start=start)
    assert sol.value >= value @ start - 1e-9 and weight @ sol.x <= cap
    with pytest.raises(InputError, match="breaks a row"):
        solve_milp(value, rows, cols, weight, [-np.inf], [cap], start=np.ones(value.size))
    with pytest.raises(InputError, match="shape"):
        solve_milp(value, rows, cols, weight, [-np.inf], [cap], start=np.ones(3))


def test_the_objective_is_summed_exactly_so_that_no_order_or_thread_count_moves_it():
    """A schedule's value, on which the slot solves choose between schedules, is the exact
    sum: the same in any order of the terms (a BLAS dot product splits a long sum between
    threads, and its last bits then depend on their count; summed in another order, as
    ``cost @ x`` would be, the value differs here)."""
    rng = np.random.default_rng(3)
    cost = rng.normal(size=30_000) * 10.0 ** rng.integers(-4, 3, 30_000)
    x = (rng.random(30_000) < 0.5).astype(float)
    perm = rng.permutation(cost.size)
    assert objective(cost, x) == objective(cost[perm], x[perm])
    assert objective(cost, x) == objective(cost[::-1], x[::-1])
    # the check fails on a dot product: in another order, its value moves
    assert cost @ x != cost[perm] @ x[perm]
    assert objective([0.1] * 10, [1.0] * 10) == 1.0
