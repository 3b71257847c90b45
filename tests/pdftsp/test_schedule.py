"""Algorithm 2: the exact solver against brute force, the paper DP against both."""

from __future__ import annotations

import numpy as np
import pytest

from lorasched.pdftsp import kernels
from lorasched.pdftsp.scenario import ScenarioArrays
from lorasched.pdftsp.schedule import INFEASIBLE, brute_force_schedule, schedule

# speeds in 1..4 and R = 12 make the work discretisation exact (12 is a multiple of
# s_min / gcd for every s_min in 1..4), so exact and brute force must agree to the cent
EXACT_R = 12


def tiny_instance(rng: np.random.Generator, n_vendors: int | None = None):
    """One task on a tiny cluster with random prices, costs and residual capacities."""
    K = int(rng.integers(1, 4))
    T = int(rng.integers(2, 7))
    N = int(rng.integers(0, 3)) if n_vendors is None else n_vendors
    speed = rng.integers(0, 5, size=(1, K))
    speed[0, rng.integers(K)] = max(1, speed[0].max())  # at least one usable node
    a = int(rng.integers(0, 2))
    d = int(rng.integers(a, T))
    arrays = ScenarioArrays(
        compute_capacity=np.full(K, 6, dtype=np.int64),
        memory_capacity=np.full(K, 10.0),
        base_model_memory=2.0,
        op_cost_rate=rng.choice([0.0, 0.1, 0.3], size=(K, T)),
        arrival=np.array([a]), deadline=np.array([d]),
        memory=np.array([float(rng.integers(1, 4))]),
        work=np.array([int(rng.integers(1, 2 * (d - a + 1) + 1))]),
        needs_preprocessing=np.array([N > 0]),
        bid=np.array([float(rng.uniform(0, 40))]),
        speed=speed.astype(np.int64),
        vendor_price=rng.uniform(0, 5, size=(1, N)).round(2),
        vendor_delay=rng.integers(0, 3, size=(1, N)),
    )
    # prices drawn from a few levels so that ties and shared maxima happen
    lam = rng.choice([0.0, 0.5, 1.0, 2.0], size=(K, T))
    phi = rng.choice([0.0, 0.2, 1.0], size=(K, T))
    compute_left = rng.choice([0, 3, 6, 6], size=(K, T)).astype(np.int64)
    memory_left = rng.choice([0.0, 3.0, 8.0, 8.0], size=(K, T))
    return arrays, lam, phi, compute_left, memory_left


def true_cost(arrays, s, lam, phi):
    """Objective (12) recomputed from the cells, independently of the kernels."""
    if s.n_cells == 0:
        return 0.0
    i = 0
    lh = lam[s.nodes, s.slots].max()
    ph = phi[s.nodes, s.slots].max()
    samples = arrays.speed[i, s.nodes].sum()
    e = (arrays.speed[i, s.nodes] * arrays.op_cost_rate[s.nodes, s.slots]).sum()
    return lh * samples + ph * s.n_cells * arrays.memory[i] + e


def assert_feasible(arrays, s, compute_left, memory_left):
    i = 0
    assert s.feasible
    assert len(set(s.slots.tolist())) == s.n_cells, "one node per slot (12b)"
    start = arrays.arrival[i] + (arrays.vendor_delay[i, s.vendor] if s.vendor >= 0 else 0)
    assert (s.slots >= start).all() and (s.slots <= arrays.deadline[i]).all()
    assert arrays.speed[i, s.nodes].sum() >= arrays.work[i], "work (12a)"
    assert (arrays.speed[i, s.nodes] <= compute_left[s.nodes, s.slots]).all()
    assert (arrays.memory[i] <= memory_left[s.nodes, s.slots]).all()
    assert s.samples == arrays.speed[i, s.nodes].sum()
    if arrays.needs_preprocessing[i]:
        assert s.vendor >= 0
        assert s.vendor_price == arrays.vendor_price[i, s.vendor]
    else:
        assert s.vendor == -1 and s.vendor_price == 0


def solve_all(arrays, lam, phi, cl, ml):
    ex = schedule(arrays, 0, lam, phi, cl, ml, solver="exact", work_resolution=EXACT_R)
    pa = schedule(arrays, 0, lam, phi, cl, ml, solver="paper", work_resolution=EXACT_R)
    bf = brute_force_schedule(arrays, 0, lam, phi, cl, ml)
    return ex, pa, bf


def test_exact_equals_brute_force_on_many_tiny_instances():
    rng = np.random.default_rng(2024)
    feasible = 0
    for _ in range(400):
        arrays, lam, phi, cl, ml = tiny_instance(rng)
        ex, _, bf = solve_all(arrays, lam, phi, cl, ml)
        assert ex.feasible == bf.feasible
        if bf.feasible:
            feasible += 1
            assert ex.surplus == pytest.approx(bf.surplus, abs=1e-9)
            assert ex.cost == pytest.approx(true_cost(arrays, ex, lam, phi), abs=1e-9)
            assert_feasible(arrays, ex, cl, ml)
    assert feasible > 150, "the generator should mostly produce feasible instances"


def test_paper_dp_is_feasible_honest_and_never_below_the_optimum():
    rng = np.random.default_rng(7)
    optimal = compared = 0
    for _ in range(400):
        arrays, lam, phi, cl, ml = tiny_instance(rng)
        ex, pa, bf = solve_all(arrays, lam, phi, cl, ml)
        # the paper DP finds a schedule whenever one exists (skipping is always allowed)
        assert pa.feasible == bf.feasible
        if not pa.feasible:
            assert pa.vendor == INFEASIBLE and pa.n_cells == 0
            continue
        assert_feasible(arrays, pa, cl, ml)
        assert pa.cost == pytest.approx(true_cost(arrays, pa, lam, phi), abs=1e-9)
        assert pa.surplus == pytest.approx(arrays.bid[0] - pa.vendor_price - pa.cost)
        assert pa.surplus <= ex.surplus + 1e-9, "a heuristic cannot beat the optimum"
        compared += 1
        optimal += bool(np.isclose(pa.surplus, ex.surplus, atol=1e-9))
    # a heuristic that is never optimal would be a bug; one that is always optimal on these
    # price-tied instances would make the exact solver pointless to test
    assert 0.5 * compared < optimal < compared


def test_running_max_dp_is_suboptimal_on_a_known_instance():
    """A hand-made case where keeping one path per state loses: the cheap-looking first
    cell carries a high lambda that the later cells must then pay for."""
    arrays = ScenarioArrays(
        compute_capacity=np.array([10, 10]), memory_capacity=np.array([10.0, 10.0]),
        base_model_memory=0.0, op_cost_rate=np.array([[0.0, 0.0, 0.0], [5.0, 0.0, 0.0]]),
        arrival=np.array([0]), deadline=np.array([2]), memory=np.array([0.0]),
        work=np.array([2]), needs_preprocessing=np.array([False]), bid=np.array([100.0]),
        speed=np.array([[1, 1]]), vendor_price=np.zeros((1, 0)),
        vendor_delay=np.zeros((1, 0), dtype=np.int64))
    # slot 0: node 0 costs lambda 3 (total 3*1), node 1 costs e = 5; slots 1, 2: node 0 at
    # lambda 3 or node 1 at lambda 0. Best: node 1 in slots 1 and 2 at cost 0.
    lam = np.array([[3.0, 3.0, 3.0], [10.0, 0.0, 0.0]])
    phi = np.zeros((2, 3))
    cl = np.full((2, 3), 10, dtype=np.int64)
    ml = np.full((2, 3), 10.0)
    ex = schedule(arrays, 0, lam, phi, cl, ml, solver="exact", work_resolution=1)
    bf = brute_force_schedule(arrays, 0, lam, phi, cl, ml)
    pa = schedule(arrays, 0, lam, phi, cl, ml, solver="paper", work_resolution=1)
    assert ex.cost == bf.cost == 0.0
    assert pa.cost >= ex.cost


def test_discretisation_never_under_provisions():
    """With a coarse resolution the schedule may use more cells, never fewer samples."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        speed = rng.integers(1, 10_000, size=5).astype(np.int64)
        work = int(rng.integers(1, 100_000))
        for R in (1, 2, 3, 8):
            units, W = kernels.work_units(speed, work, R)
            s_min = speed.min()
            assert units[speed == s_min].min() == R  # the slowest node loses nothing
            assert (units * s_min <= speed * R).all()  # rounded down
            assert W * s_min >= work * R  # rounded up
            # any multiset of cells meeting W units meets the work in samples
            order = np.argsort(-units)
            got_units = got = 0
            for k in np.resize(order, 10_000):
                if got_units >= W:
                    break
                got_units += units[k]
                got += speed[k]
            assert got >= work


@pytest.mark.parametrize("solver", ["paper", "exact"])
def test_no_schedule_outside_residual_capacity(solver):
    """Full cells are never candidates, so Algorithm 1's capacity check cannot fail."""
    rng = np.random.default_rng(11)
    for _ in range(100):
        arrays, lam, phi, cl, ml = tiny_instance(rng)
        s = schedule(arrays, 0, lam, phi, cl, ml, solver=solver, work_resolution=EXACT_R)
        if s.feasible:
            assert (arrays.speed[0, s.nodes] <= cl[s.nodes, s.slots]).all()
            assert (arrays.memory[0] <= ml[s.nodes, s.slots]).all()


def test_unknown_solver_and_bad_resolution_are_clear_errors():
    rng = np.random.default_rng(0)
    arrays, lam, phi, cl, ml = tiny_instance(rng)
    with pytest.raises(ValueError, match="solver"):
        schedule(arrays, 0, lam, phi, cl, ml, solver="gurobi")
    with pytest.raises(ValueError, match="work_resolution"):
        schedule(arrays, 0, lam, phi, cl, ml, work_resolution=0)


def test_relaxed_grid_never_excludes_a_real_schedule():
    """The bound's grid rounds the other way: any multiset of cells meeting the work in
    samples meets W in relaxed units."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        speed = rng.integers(1, 10_000, size=4).astype(np.int64)
        work = int(rng.integers(1, 50_000))
        for R in (1, 3, 8):
            units, W = kernels.work_units(speed, work, R, True)
            s_min = speed.min()
            assert (units * s_min >= speed * R).all()  # rounded up
            assert W * s_min <= max(work * R, s_min)  # rounded down (at least 1)
            counts = rng.integers(0, 6, size=4)
            if (counts * speed).sum() >= work:
                assert (counts * units).sum() >= W
