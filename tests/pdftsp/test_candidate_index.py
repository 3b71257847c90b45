"""The exact candidate index (:mod:`lorasched.pdftsp.candidate_index`): the scan's candidates
on random
states and at every task of whole days, and the same decisions, for both DPs and both
payment rules."""

from __future__ import annotations

import numpy as np
import pytest

from lorasched.pdftsp import kernels
from lorasched.pdftsp.auction import OnlineAuction
from lorasched.pdftsp.auction import run as run_auction
from lorasched.pdftsp.candidate_index import CandidateIndex, node_groups
from lorasched.pdftsp.scenario import ScenarioArrays, to_arrays
from lorasched.pdftsp.workload import synthetic_scenario


def scan(arrays, i, t0, t1, lam, phi, compute_left, memory_left):
    return kernels.candidates(arrays.speed[i], float(arrays.memory[i]), t0, t1, lam, phi,
                              arrays.op_cost_rate, compute_left, memory_left, True)


def grouped_arrays(rng, K=14, T=6, groups=3, tasks=40, same_speed=False):
    """K nodes in ``groups`` groups (the last group's nodes interleaved with the others'),
    per-group capacity, memory, rates and speeds; tasks of random memory."""
    group = rng.integers(0, groups, size=K)
    group[:groups] = np.arange(groups)
    cap = rng.integers(6, 12, size=groups)
    mem = rng.choice([8.0, 10.0, 12.0], size=groups)
    rate = rng.choice([0.01, 0.02], size=(groups, T))
    speed_g = rng.integers(1, 5, size=(tasks, groups))
    if same_speed:  # equal speeds across groups: the pruning rule compares their rates
        speed_g[:] = speed_g[:, :1]
    speed_g[rng.random((tasks, groups)) < 0.15] = 0
    speed_g[speed_g.max(axis=1) == 0, 0] = 1
    return ScenarioArrays(
        compute_capacity=cap[group].astype(np.int64), memory_capacity=mem[group],
        base_model_memory=2.0, op_cost_rate=rate[group], arrival=np.zeros(tasks, np.int64),
        deadline=np.full(tasks, T - 1, np.int64), memory=rng.choice([0.5, 1.0, 2.5], tasks),
        work=np.ones(tasks, np.int64), needs_preprocessing=np.zeros(tasks, bool),
        bid=np.ones(tasks), speed=np.ascontiguousarray(speed_g[:, group], dtype=np.int32),
        vendor_price=np.zeros((tasks, 0)), vendor_delay=np.zeros((tasks, 0), np.int64))


def random_state(rng, arrays, used=0.6, ties=True):
    """A state as a run leaves it: unused cells at full room and zero prices, used cells
    with less room and prices drawn from few values (so that ties are common)."""
    K, T = arrays.n_nodes, arrays.n_slots
    compute_left, memory_left = arrays.residual()
    lam = np.zeros((K, T))
    phi = np.zeros((K, T))
    touched = rng.random((K, T)) < used
    cap = np.repeat(arrays.compute_capacity[:, None], T, axis=1)
    compute_left[touched] = rng.integers(0, cap[touched])
    usable = np.repeat(arrays.usable_memory[:, None], T, axis=1)
    memory_left[touched] = np.round(rng.uniform(0, 1, touched.sum()) * usable[touched] * 2) / 2
    values = np.array([0.0, 0.5, 1.0, 2.0]) if ties else None
    for price in (lam, phi):
        price[touched] = (rng.choice(values, touched.sum()) if ties
                          else rng.uniform(0, 3, touched.sum()))
    return lam, phi, compute_left, memory_left


@pytest.mark.parametrize("seed", range(40))
def test_random_states_give_the_scans_candidates(seed):
    rng = np.random.default_rng(seed)
    arrays = grouped_arrays(rng, same_speed=seed % 4 == 0)
    state = random_state(rng, arrays, used=rng.uniform(0.2, 1.0), ties=seed % 2 == 0)
    index = CandidateIndex(arrays, *state, method="index")
    assert index.method == "index" and index.n_groups == 3
    T = arrays.n_slots
    for i in range(arrays.n_tasks):
        t0 = int(rng.integers(0, T))
        t1 = int(rng.integers(t0, T))
        want = scan(arrays, i, t0, t1, *state)
        got = index.candidates(arrays.speed[i], arrays.memory[i], t0, t1, arrays.op_cost_rate)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


def _offer_all_comparing(arrays, **options):
    """Run an auction with the index, checking before every task that its candidates are
    the scan's over the task's window; returns the auction."""
    auction = OnlineAuction(arrays, candidates="index", **options)
    assert auction.index.method == "index"
    state = (auction.lam, auction.phi, auction.compute_left, auction.memory_left)
    for i in range(arrays.n_tasks):
        a, d = int(arrays.arrival[i]), int(arrays.deadline[i])
        want = scan(arrays, i, a, d, *state)
        got = auction.index.candidates(arrays.speed[i], arrays.memory[i], a, d,
                                       arrays.op_cost_rate)
        np.testing.assert_array_equal(got[1], want[1], err_msg=f"task {i}")
        np.testing.assert_array_equal(got[0], want[0], err_msg=f"task {i}")
        auction.offer(i)
    return auction


@pytest.mark.parametrize("options", [{}, {"alpha": 0.0, "beta": 0.0}, {"alpha": 0.0},
                                     {"constants": "vmax"}])
def test_candidates_equal_the_scan_at_every_task_of_a_day(options):
    arrays = to_arrays(synthetic_scenario(nodes=24, gpu="mix", load=30.0, slots=24, seed=3))
    auction = _offer_all_comparing(arrays, **options)
    assert auction.index.repaired > 0  # the repair path ran


def test_continuous_task_memory_is_exact_too():
    """A user's trace with continuous memory: no task classes, longer skylines, still the
    scan's candidates."""
    ds = synthetic_scenario(nodes=16, gpu="mix", load=25.0, slots=24, seed=5)
    rng = np.random.default_rng(5)
    ds["memory"] = ds["memory"] * rng.uniform(0.6, 1.0, ds.sizes["task"])
    _offer_all_comparing(to_arrays(ds))


def _same_decisions(a, b):
    for name in ("admitted", "chosen_vendor", "reason", "cell_task", "cell_node",
                 "cell_slot"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(a.payment, b.payment)
    np.testing.assert_array_equal(a.surplus, b.surplus)
    np.testing.assert_array_equal(a.lam, b.lam)
    np.testing.assert_array_equal(a.phi, b.phi)


@pytest.mark.slow
@pytest.mark.parametrize("nodes, slots, load, solvers", [
    (100, 144, "high", ("paper",)), (200, 144, "high", ("paper",)),
    (2000, 10, 800.0, ("paper",)), (100, 30, "high", ("exact",)),
    (200, 20, "high", ("exact",)), (2000, 4, 800.0, ("exact",))])
@pytest.mark.parametrize("seed", [1, 2])
def test_whole_days_decide_the_same(nodes, slots, load, solvers, seed):
    """Seeds 1-3 at K = 100, 200 (high load, a day) and 2,000 (the 10x day's arrival rate,
    its first 10 slots) with the paper DP, under both payment rules; the exact DP (slow on
    busy clusters) on the first 30 slots at K = 100, 20 at K = 200 and 4 at K = 2,000.
    ``lorasched bench index`` compares whole days of both DPs at every K."""
    arrays = to_arrays(synthetic_scenario(nodes=nodes, load=load, slots=slots, seed=seed))
    runs = [(solver, payment) for solver in solvers for payment in ("critical", "paper")]
    for solver, payment in runs:
        got = {c: run_auction(arrays, None, solver=solver, payment=payment, candidates=c)
               for c in ("scan", "index")}
        assert got["index"].attrs["candidates"] == "index"
        assert got["scan"].attrs["candidates"] == "scan"
        assert got["index"].admitted.sum() > 0
        _same_decisions(got["scan"], got["index"])


def test_the_scan_is_used_when_nodes_are_not_alike():
    ds = synthetic_scenario(nodes=12, load=10.0, slots=12, seed=2)
    ds["op_cost_rate"] = ds["op_cost_rate"] * np.linspace(1.0, 2.0, 12)[:, None]
    arrays = to_arrays(ds)
    auction = OnlineAuction(arrays)
    assert auction.index.method == "scan" and "too few alike" in auction.index.reason
    indexed = run_auction(arrays, None, candidates="index")
    _same_decisions(run_auction(arrays, None), indexed)
    assert indexed.attrs["candidates"] == "index"


def test_node_groups_split_on_any_difference():
    rng = np.random.default_rng(0)
    arrays = grouped_arrays(rng, K=10, groups=2)
    group = node_groups(arrays)
    assert len(set(group.tolist())) == 2
    speed = arrays.speed.copy()
    speed[7, 4] += 1  # one task, one node
    split = node_groups(arrays._replace(speed=speed))
    assert len(set(split.tolist())) == 3
    assert (split == split[4]).sum() == 1


def test_restore_without_the_index_arrays_rebuilds_it():
    arrays = to_arrays(synthetic_scenario(nodes=12, load=12.0, slots=12, seed=4))
    auction = OnlineAuction(arrays, candidates="index")
    for i in range(arrays.n_tasks // 2):
        auction.offer(i)
    state = {k: v for k, v in auction.snapshot().items() if not k.startswith("index_")}
    fresh = OnlineAuction(arrays, candidates="index")
    fresh.restore(state)
    rest = range(arrays.n_tasks // 2, arrays.n_tasks)
    assert [fresh.offer(i).admitted for i in rest] == [auction.offer(i).admitted for i in rest]


def test_unknown_method_is_refused_by_name():
    arrays = to_arrays(synthetic_scenario(nodes=4, load=2.0, slots=6, seed=0))
    with pytest.raises(ValueError, match="candidates must be one of"):
        OnlineAuction(arrays, candidates="fast")
