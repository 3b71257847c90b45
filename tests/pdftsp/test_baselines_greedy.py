"""EFT and NTM (section 5.1 baselines): earliest-finish kernel, vendors, posted prices, FCFS."""

from __future__ import annotations

import inspect
import itertools

import numpy as np
import pytest
import xarray as xr

import lorasched
from lorasched.pdftsp import kernels
from lorasched.pdftsp.baselines import eft, ntm
from lorasched.pdftsp.baselines import titan_per_slot as titan
from lorasched.pdftsp.baselines.vendors import lowest_delay_vendor, random_vendor
from lorasched.pdftsp.policies import REGISTRY
from lorasched.pdftsp.scenario import to_arrays

SMALL = [  # nodes, slots, load, vendors, gpu, deadline policy, seed
    (3, 24, 2, 0, "A100", "slack", 0),
    (4, 36, 4, 3, "A40", "tight", 1),
    (5, 48, 6, 2, "mix", "loose", 2),
    (6, 24, 3, 1, "mix", "fixed", 3),
    (8, 48, 5, 3, "A100", "end_of_day", 4),
    (7, 30, 6, 2, "A40", "slack", 5),
]


def small(nodes, slots, load, vendors, gpu, policy, seed):
    return lorasched.synthetic_scenario(
        nodes=nodes, slots=slots, load=load, vendors=vendors, gpu=gpu, deadline_policy=policy,
        seed=seed, preprocessing_share=0.5 if vendors else 0.0)


def make_scenario(*, capacity, speed, work, arrival, deadline, slots, memory=None, bid=None,
                  memory_capacity=None, base=1.0, needs=None, vendor_price=None,
                  vendor_delay=None, rate=0.01):
    """A hand-built scenario (validated by simulate); one row of ``speed`` per task."""
    speed = np.atleast_2d(np.asarray(speed, dtype=np.int64))
    n, K = speed.shape
    memory = np.full(n, 1.0) if memory is None else np.asarray(memory, dtype=float)
    memory_capacity = (np.full(K, 10.0) if memory_capacity is None
                       else np.asarray(memory_capacity, dtype=float))
    needs = np.zeros(n, dtype=bool) if needs is None else np.asarray(needs, dtype=bool)
    vendor_price = np.zeros((n, 0)) if vendor_price is None else np.asarray(vendor_price, float)
    vendor_delay = (np.zeros((n, 0), dtype=np.int64) if vendor_delay is None
                    else np.asarray(vendor_delay, dtype=np.int64))
    work = np.asarray(work, dtype=np.int64)
    bid = np.asarray(work, dtype=float) if bid is None else np.asarray(bid, dtype=float)
    return xr.Dataset(
        {
            "compute_capacity": ("node", np.asarray(capacity, dtype=np.int64)),
            "memory_capacity": ("node", memory_capacity),
            "gpu_type": ("node", np.array(["X"] * K)),
            "op_cost_rate": (("node", "slot"), np.full((K, slots), rate)),
            "arrival": ("task", np.asarray(arrival, dtype=np.int64)),
            "deadline": ("task", np.asarray(deadline, dtype=np.int64)),
            "memory": ("task", memory),
            "work": ("task", work),
            "needs_preprocessing": ("task", needs),
            "bid": ("task", bid),
            "speed": (("task", "node"), speed),
            "vendor_price": (("task", "vendor"), vendor_price),
            "vendor_delay": (("task", "vendor"), vendor_delay),
        },
        attrs={"base_model_memory": base, "value_density_min": 0.5},
    )


def shared_cells(result) -> int:
    """Number of (node, slot) cells used by more than one task."""
    key = result["cell_node"].values * result.sizes["slot"] + result["cell_slot"].values
    _, counts = np.unique(key, return_counts=True)
    return int((counts > 1).sum())


# --------------------------------------------------------------------------- validity


@pytest.mark.parametrize("params", SMALL)
@pytest.mark.parametrize("algorithm", ["eft", "ntm"])
def test_results_pass_the_checker(algorithm, params):
    scenario = small(*params)
    result = lorasched.simulate(scenario, algorithm=algorithm, seed=params[-1])
    lorasched.check_result(result)
    assert result.attrs["n_admitted"] > 0
    assert np.isnan(result["surplus"].values).all()
    assert (result["lambda"].values == 0).all() and (result["phi"].values == 0).all()
    assert (result["decision_time"].values > 0).all()
    assert result.attrs[f"{algorithm}_vendor_rule"] == (
        "lowest_delay" if algorithm == "eft" else "random")
    assert result.attrs[f"{algorithm}_price_per_sample"] == scenario.attrs["value_density_min"]
    reasons = set(result["reason"].values.tolist())
    assert reasons <= {"admitted", "no_feasible_schedule", "price_above_bid"}
    if algorithm == "ntm":
        assert shared_cells(result) == 0  # no task merging


def test_direct_run_matches_simulate_and_progress_bar_runs():
    scenario = small(*SMALL[1])
    arrays = to_arrays(scenario)
    for name, mod in (("eft", eft), ("ntm", ntm)):
        d = mod.run(arrays, np.random.default_rng(7), progress=True)
        r = lorasched.simulate(scenario, algorithm=name, seed=7)
        np.testing.assert_array_equal(d.admitted, r["admitted"].values)
        np.testing.assert_array_equal(d.chosen_vendor, r["chosen_vendor"].values)
        np.testing.assert_array_equal(d.cell_slot, r["cell_slot"].values)


def test_no_policy_takes_the_scenario_attributes():
    """Every policy runs on (arrays, rng, **options) alone: the declared bounds it may use
    (posted price, alpha and beta) are fields of the arrays."""
    for name, run in REGISTRY.items():
        assert "attrs" not in inspect.signature(run).parameters, name


# --------------------------------------------------------------------------- merging


def test_eft_merges_tasks_on_a_node_and_ntm_does_not():
    # one node of capacity 4; two tasks of speed 2 that must both run in slot 0
    scenario = make_scenario(capacity=[4], speed=[[2], [2]], work=[2, 2], arrival=[0, 0],
                             deadline=[0, 0], slots=2, memory=[3.0, 3.0])
    r = lorasched.simulate(scenario, algorithm="eft", price_per_sample=0.0)
    lorasched.check_result(r)
    assert r["admitted"].values.tolist() == [True, True]
    assert shared_cells(r) == 1  # both on node 0 in slot 0
    r = lorasched.simulate(scenario, algorithm="ntm", price_per_sample=0.0)
    lorasched.check_result(r)
    assert r["admitted"].values.tolist() == [True, False]
    assert r["reason"].values[1] == "no_feasible_schedule"


def test_eft_shares_nodes_on_a_busy_cluster():
    result = lorasched.simulate(small(*SMALL[2]), algorithm="eft")
    assert shared_cells(result) > 0


def test_merging_respects_memory():
    # compute would allow both (2 + 2 <= 4) but memory does not (3 + 3 > 9 - 4)
    scenario = make_scenario(capacity=[4], speed=[[2], [2]], work=[2, 2], arrival=[0, 0],
                             deadline=[0, 0], slots=1, memory=[3.0, 3.0],
                             memory_capacity=[9.0], base=4.0)
    r = lorasched.simulate(scenario, algorithm="eft", price_per_sample=0.0)
    lorasched.check_result(r)
    assert r["admitted"].values.tolist() == [True, False]


# --------------------------------------------------------------------------- vendors


def test_eft_lowest_delay_vendor_ties_by_price_then_index():
    delay = [[5, 1, 1, 3], [2, 2, 2, 2], [0, 4, 0, 9]]
    price = [[0.1, 3.0, 2.0, 0.5], [1.0, 1.0, 1.0, 1.0], [7.0, 1.0, 7.0, 1.0]]
    scenario = make_scenario(capacity=[4], speed=[[4]] * 3, work=[4, 4, 4], arrival=[0, 0, 0],
                             deadline=[9, 9, 9], slots=10, needs=[True] * 3,
                             vendor_price=price, vendor_delay=delay, bid=[100.0] * 3)
    arrays = to_arrays(scenario)
    assert lowest_delay_vendor(arrays).tolist() == [2, 0, 0]
    r = lorasched.simulate(scenario, algorithm="eft", price_per_sample=0.0)
    lorasched.check_result(r)
    assert r["chosen_vendor"].values.tolist() == [2, 0, 0]
    # the window starts after the vendor's delay: task 0 may run from slot 1 on only
    slots = r["cell_slot"].values[r["cell_task"].values == 0]
    assert slots.tolist() == [1]


def test_eft_uses_lowest_delay_vendor_on_synthetic_scenario():
    scenario = small(*SMALL[1])
    r = lorasched.simulate(scenario, algorithm="eft")
    arrays = to_arrays(scenario)
    idx = np.flatnonzero(r["admitted"].values & arrays.needs_preprocessing)
    assert idx.size > 0
    chosen = r["chosen_vendor"].values[idx]
    np.testing.assert_array_equal(arrays.vendor_delay[idx, chosen],
                                  arrays.vendor_delay[idx].min(axis=1))
    # tasks without pre-processing use no vendor
    assert (r["chosen_vendor"].values[~arrays.needs_preprocessing] == -1).all()


def test_ntm_vendor_is_random_but_seeded():
    scenario = lorasched.synthetic_scenario(nodes=8, slots=48, load=6, vendors=3, seed=11,
                                            deadline_policy="end_of_day")
    a = lorasched.simulate(scenario, algorithm="ntm", seed=1)
    b = lorasched.simulate(scenario, algorithm="ntm", seed=1)
    c = lorasched.simulate(scenario, algorithm="ntm", seed=2)
    for name in ("admitted", "chosen_vendor", "payment", "reason", "cell_task", "cell_node",
                 "cell_slot"):
        np.testing.assert_array_equal(a[name].values, b[name].values)
    assert not np.array_equal(a["chosen_vendor"].values, c["chosen_vendor"].values)
    need = to_arrays(scenario).needs_preprocessing
    arrays = to_arrays(scenario)
    drawn = random_vendor(arrays, np.random.default_rng(1))
    assert (drawn[~need] == -1).all()
    counts = np.bincount(drawn[need], minlength=3)
    assert (counts > need.sum() / 6).all()  # roughly uniform over the 3 vendors
    # not simply the lowest-delay vendor
    assert (drawn[need] != lowest_delay_vendor(arrays)[need]).any()
    # Titan draws its vendors with the same function: same seed, same vendors as NTM
    t = lorasched.simulate(scenario, algorithm="titan", seed=1)
    chose = t["admitted"].values & need
    np.testing.assert_array_equal(t["chosen_vendor"].values[chose], drawn[chose])
    assert titan.random_vendor is ntm.random_vendor is random_vendor


def test_task_needing_a_vendor_without_any_is_rejected():
    scenario = make_scenario(capacity=[4], speed=[[4], [4]], work=[4, 4], arrival=[0, 0],
                             deadline=[3, 3], slots=4, needs=[True, False])
    for algorithm in ("eft", "ntm"):
        r = lorasched.simulate(scenario, algorithm=algorithm, price_per_sample=0.0)
        lorasched.check_result(r)
        assert r["admitted"].values.tolist() == [False, True]
        assert r["reason"].values[0] == "no_feasible_schedule"


# --------------------------------------------------------------------------- kernel


def test_kernel_hand_built_fast_node_busy_in_slot_0():
    speed = np.array([4, 1], dtype=np.int64)  # node 0 fast, node 1 slow
    capacity = np.array([4, 4], dtype=np.int64)
    compute_left = np.repeat(capacity[:, None], 6, axis=1)
    compute_left[0, 0] = 0  # the fast node is busy in slot 0
    memory_left = np.full((2, 6), 5.0)
    f, nodes, slots = kernels.earliest_finish(0, 5, 5, speed, 1.0, compute_left, memory_left,
                                              capacity, False)
    # slow node in slot 0 (1 sample), fast node in slot 1 (4 more): done in slot 1;
    # waiting for the fast node would finish in slot 2
    assert f == 1 and nodes.tolist() == [1, 0] and slots.tolist() == [0, 1]

    # NTM: the slow node is partly used in slot 0, so not idle -> skip slot 0
    compute_left[1, 0] = 3
    f, nodes, slots = kernels.earliest_finish(0, 5, 5, speed, 1.0, compute_left, memory_left,
                                              capacity, True)
    assert f == 2 and nodes.tolist() == [0, 0] and slots.tolist() == [1, 2]
    # EFT may still merge onto it
    f, nodes, _ = kernels.earliest_finish(0, 5, 5, speed, 1.0, compute_left, memory_left,
                                          capacity, False)
    assert f == 1 and nodes.tolist() == [1, 0]

    # memory: the fast node lacks memory in slot 1 -> slow node there
    memory_left[0, 1] = 0.5
    f, nodes, slots = kernels.earliest_finish(0, 5, 5, speed, 1.0, compute_left, memory_left,
                                              capacity, False)
    assert f == 2 and nodes.tolist() == [1, 1, 0] and slots.tolist() == [0, 1, 2]

    # infeasible by the deadline
    f, nodes, slots = kernels.earliest_finish(0, 1, 9, speed, 1.0, compute_left, memory_left,
                                              capacity, False)
    assert f == -1 and nodes.size == 0 and slots.size == 0


def test_kernel_ties_go_to_the_lowest_index():
    speed = np.array([0, 3, 3], dtype=np.int64)
    capacity = np.array([8, 8, 8], dtype=np.int64)
    left = np.repeat(capacity[:, None], 3, axis=1)
    f, nodes, slots = kernels.earliest_finish(0, 2, 6, speed, 1.0, left, np.full((3, 3), 9.0),
                                              capacity, False)
    assert f == 1 and nodes.tolist() == [1, 1] and slots.tolist() == [0, 1]


def brute_force_finish(t0, d, work, speed, r, compute_left, memory_left, capacity,
                       exclusive):
    """Earliest finish slot over every schedule with at most one node per slot (-1: none)."""
    K = speed.shape[0]
    options = []
    for t in range(t0, d + 1):
        ok = [-1]
        for k in range(K):
            if (0 < speed[k] <= compute_left[k, t]
                    and r <= memory_left[k, t] + kernels.MEMORY_TOLERANCE
                    and (not exclusive or compute_left[k, t] == capacity[k])):
                ok.append(k)
        options.append(ok)
    best = -1
    for choice in itertools.product(*options):
        done = 0
        for j, k in enumerate(choice):
            if k >= 0:
                done += speed[k]
            if done >= work:
                if best < 0 or t0 + j < best:
                    best = t0 + j
                break
    return best


def test_kernel_finish_is_never_later_than_brute_force():
    rng = np.random.default_rng(2024)
    found = 0
    for _ in range(400):
        K = int(rng.integers(1, 4))
        T = int(rng.integers(1, 6))
        capacity = rng.integers(2, 7, size=K)
        speed = rng.integers(0, 5, size=K)
        if speed.max() == 0:
            speed[0] = 1
        busy = rng.random((K, T)) < 0.5  # half the cells partly used
        compute_left = np.where(busy, rng.integers(0, capacity[:, None] + 1, size=(K, T)),
                                capacity[:, None])
        memory_left = rng.uniform(0.0, 4.0, size=(K, T))
        r = float(rng.uniform(0.5, 2.0))
        t0 = int(rng.integers(0, T))
        d = int(rng.integers(t0, T))
        work = int(rng.integers(1, speed.max() * (d - t0 + 1) + 1))
        exclusive = bool(rng.integers(0, 2))
        f, nodes, slots = kernels.earliest_finish(t0, d, work, speed, r, compute_left,
                                                  memory_left, capacity, exclusive)
        brute = brute_force_finish(t0, d, work, speed, r, compute_left, memory_left, capacity,
                                   exclusive)
        assert (f < 0) == (brute < 0)
        if brute >= 0:
            found += 1
            assert f <= brute  # never later (and brute force covers the greedy schedule)
            # the kernel's schedule is valid: eligible cells, one per slot, work met
            assert len(set(slots.tolist())) == slots.size and slots.max() == f
            assert t0 <= slots.min()
            for k, t in zip(nodes, slots, strict=True):
                assert 0 < speed[k] <= compute_left[k, t] and r <= memory_left[k, t] + 1e-9
                assert not exclusive or compute_left[k, t] == capacity[k]
            assert speed[nodes].sum() >= work > speed[nodes[:-1]].sum()
    assert found > 150


def test_last_cell_consumes_the_full_speed():
    # task 0 needs 5 samples at speed 4: slots 0 and 1, the second fully used although only
    # 1 sample is needed there; task 1 then cannot use slot 1 and misses its deadline
    scenario = make_scenario(capacity=[4], speed=[[4], [4]], work=[5, 4], arrival=[0, 1],
                             deadline=[3, 1], slots=4)
    for algorithm in ("eft", "ntm"):
        r = lorasched.simulate(scenario, algorithm=algorithm, price_per_sample=0.0)
        lorasched.check_result(r)
        assert r["admitted"].values.tolist() == [True, False]
        assert r["compute_used"].values[0].tolist() == [4, 4, 0, 0]


# --------------------------------------------------------------------------- prices, FCFS


@pytest.mark.parametrize("algorithm", ["eft", "ntm"])
def test_posted_price(algorithm):
    scenario = small(*SMALL[4])
    arrays = to_arrays(scenario)
    pps = float(np.median(arrays.bid / arrays.work))
    r = lorasched.simulate(scenario, algorithm=algorithm, price_per_sample=pps)
    lorasched.check_result(r)
    price = pps * arrays.work
    low = arrays.bid < price
    assert low.any() and r.attrs["n_admitted"] > 0
    assert (r["reason"].values[low] == "price_above_bid").all()
    assert (r["payment"].values[low] == 0).all() and not r["admitted"].values[low].any()
    assert (r["chosen_vendor"].values[low] == -1).all()
    adm = r["admitted"].values
    np.testing.assert_array_equal(r["payment"].values[adm], price[adm])
    assert (r["payment"].values[adm] <= arrays.bid[adm]).all()
    assert r.attrs[f"{algorithm}_price_per_sample"] == pps


def test_price_below_bid_by_a_hair_and_welfare_ignored():
    # task 0: bid just below its price -> rejected; task 1: bid equals the price -> buys,
    # although its vendor costs more than its bid (negative welfare contribution)
    scenario = make_scenario(capacity=[4], speed=[[4], [4]], work=[4, 4], arrival=[0, 0],
                             deadline=[3, 3], slots=4, bid=[2.0 - 1e-9, 2.0],
                             needs=[False, True], vendor_price=[[0.0], [5.0]],
                             vendor_delay=[[0], [1]])
    for algorithm in ("eft", "ntm"):
        r = lorasched.simulate(scenario, algorithm=algorithm, price_per_sample=0.5)
        lorasched.check_result(r)
        assert r["reason"].values.tolist() == ["price_above_bid", "admitted"]
        assert r["payment"].values.tolist() == [0.0, 2.0]
        assert r.attrs["welfare"] < 0


@pytest.mark.parametrize("algorithm", ["eft", "ntm"])
def test_first_come_first_served(algorithm):
    # capacity for one of two identical tasks: the earlier one wins
    scenario = make_scenario(capacity=[4], speed=[[4], [4]], work=[8, 8], arrival=[0, 0],
                             deadline=[1, 1], slots=2)
    r = lorasched.simulate(scenario, algorithm=algorithm, price_per_sample=0.0)
    lorasched.check_result(r)
    assert r["admitted"].values.tolist() == [True, False]
    # a later, far more valuable task does not displace an earlier one (irrevocable)
    scenario = make_scenario(capacity=[4], speed=[[4], [4]], work=[8, 8], arrival=[0, 1],
                             deadline=[2, 2], slots=3, bid=[8.0, 800.0])
    r = lorasched.simulate(scenario, algorithm=algorithm, price_per_sample=1.0)
    lorasched.check_result(r)
    assert r["admitted"].values.tolist() == [True, False]
    assert r["reason"].values[1] == "no_feasible_schedule"
