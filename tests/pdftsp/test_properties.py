"""Property tests of pdFTSP (paper sections 2-4) on random small scenarios.

Two scenario sources: :func:`lorasched.synthetic_scenario` with small random arguments, and
a hand-built strategy that writes the Dataset directly with small integers, tight
capacities and the edge cases the generator never makes (zero vendor delay, deadline ==
arrival, zero operating cost, speed 0 or above capacity on some nodes, a task that fits
only on one node, memory that is not a binary fraction). Every property is recomputed here
from the cells; :func:`lorasched.check_result` is tested separately (property 10).
"""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest
import xarray as xr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lorasched
from lorasched import ResultError, check_result, simulate, synthetic_scenario
from lorasched.pdftsp import OnlineAuction
from lorasched.pdftsp.auction import default_alpha_beta
from lorasched.pdftsp.scenario import node_speed
from lorasched.pdftsp.schedule import schedule
from lorasched.pdftsp.workload import DEADLINE_POLICIES

PAYMENTS = ("critical", "paper")
RTOL = 1e-9

# float memories on purpose: 0.1 + 0.2 != 0.3 in binary, so residual memory drifts
TASK_MEMORY = (0.0, 0.1, 0.2, 0.3, 0.5, 1.0, 1.5, 2.0, 3.0)
USABLE_MEMORY = (0.0, 0.3, 0.6, 1.0, 2.0, 3.0, 4.0)
OP_RATES = (0.0, 0.01, 0.05, 0.2, 0.5)
V_MIN, V_MAX = 0.2, 2.0

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ----------------------------------------------------------------------------------------
# strategies
# ----------------------------------------------------------------------------------------


@st.composite
def hand_scenarios(draw, max_nodes=3, max_slots=8, max_tasks=6, max_vendors=2, max_work=20):
    """A valid scenario built directly, with small integers and tight capacities."""
    K = draw(st.integers(1, max_nodes))
    T = draw(st.integers(1, max_slots))
    n_tasks = draw(st.integers(0, max_tasks))
    N = draw(st.integers(0, max_vendors))
    r_b = draw(st.sampled_from([0.0, 1.0, 2.5]))
    capacity = draw(st.lists(st.integers(1, 10), min_size=K, max_size=K))
    usable = draw(st.lists(st.sampled_from(USABLE_MEMORY), min_size=K, max_size=K))
    memory_capacity = np.array(usable, dtype=float) + r_b
    max_usable = float((memory_capacity - r_b).max())  # as the library computes it
    fitting = [m for m in TASK_MEMORY if m <= max_usable]
    if draw(st.booleans()):
        rates = np.zeros((K, T))  # zero operating cost
    else:
        rates = np.array(draw(st.lists(st.sampled_from(OP_RATES), min_size=K * T,
                                       max_size=K * T))).reshape(K, T)
    arrival = sorted(draw(st.lists(st.integers(0, T - 1), min_size=n_tasks,
                                   max_size=n_tasks)))
    deadline, memory, work, needs, bid, speed = [], [], [], [], [], []
    price, delay = [], []
    for a in arrival:
        deadline.append(a + draw(st.integers(0, T - 1 - a)))  # deadline == arrival allowed
        memory.append(draw(st.sampled_from(fitting)))
        w = draw(st.integers(1, max_work))
        work.append(w)
        needs.append(N > 0 and draw(st.booleans()))
        density = draw(st.floats(V_MIN, V_MAX))
        bid.append(density * w)
        row = draw(st.lists(st.integers(0, 5), min_size=K, max_size=K))
        if max(row) == 0:
            row[draw(st.integers(0, K - 1))] = draw(st.integers(1, 5))
        speed.append(row)
        price.append(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.5, 6.0]),
                                   min_size=N, max_size=N)))
        delay.append(draw(st.lists(st.integers(0, 3), min_size=N, max_size=N)))
    ds = xr.Dataset(
        {
            "compute_capacity": ("node", np.array(capacity, dtype=np.int64)),
            "memory_capacity": ("node", memory_capacity),
            "gpu_type": ("node", np.array(["toy"] * K)),
            "op_cost_rate": (("node", "slot"), rates),
            "arrival": ("task", np.array(arrival, dtype=np.int64)),
            "deadline": ("task", np.array(deadline, dtype=np.int64)),
            "memory": ("task", np.array(memory, dtype=float)),
            "work": ("task", np.array(work, dtype=np.int64)),
            "needs_preprocessing": ("task", np.array(needs, dtype=bool)),
            "bid": ("task", np.array(bid, dtype=float)),
            "speed": (("task", "node"), np.array(speed, dtype=np.int64).reshape(n_tasks, K)),
            "vendor_price": (("task", "vendor"), np.array(price, dtype=float).reshape(n_tasks, N)),
            "vendor_delay": (("task", "vendor"),
                             np.array(delay, dtype=np.int64).reshape(n_tasks, N)),
        },
        attrs={"base_model_memory": r_b, "value_density_min": V_MIN,
               "value_density_max": V_MAX, "task_memory_min": 0.1},
    )
    lorasched.pdftsp.validate(ds)
    return ds


@st.composite
def synthetic_scenarios(draw):
    """synthetic_scenario with small random arguments."""
    vendors = draw(st.integers(0, 3))
    share = 0.0 if vendors == 0 else draw(st.sampled_from([0.0, 0.5, 1.0]))
    return synthetic_scenario(
        nodes=draw(st.integers(1, 6)), slots=draw(st.integers(6, 24)),
        load=draw(st.sampled_from([0.3, 1.0, 2.0, 3.5])), vendors=vendors,
        gpu=draw(st.sampled_from(["mix", "A100", "A40"])),
        deadline_policy=draw(st.sampled_from(DEADLINE_POLICIES)),
        seed=draw(st.integers(0, 2**16)), preprocessing_share=share)


@st.composite
def results(draw, payment):
    """(scenario, result) of simulate(); the exact solver only on the tiny hand-built ones."""
    if draw(st.booleans()):
        scenario = draw(hand_scenarios())
        solver = draw(st.sampled_from(["paper", "exact"]))
    else:
        scenario = draw(synthetic_scenarios())
        solver = "paper"
    return scenario, simulate(scenario, payment=payment, solver=solver)


def _cells(result):
    return (result["cell_task"].values, result["cell_node"].values, result["cell_slot"].values)


def _start(result):
    """a_i + h_in* of each task (h = 0 without a vendor)."""
    vendor = result["chosen_vendor"].values
    delay = result["vendor_delay"].values
    idx = np.arange(vendor.shape[0])
    h = np.where(vendor >= 0, delay[idx, np.maximum(vendor, 0)] if delay.shape[1] else 0, 0)
    return result["arrival"].values + h


def _op_cost_per_task(result):
    ct, ck, cs = _cells(result)
    e = node_speed(result).values[ct, ck] * result["op_cost_rate"].values[ck, cs]
    out = np.zeros(result.sizes["task"])
    np.add.at(out, ct, e)
    return out


# ----------------------------------------------------------------------------------------
# 1-5: feasibility and individual rationality, recomputed from the cells
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("payment", PAYMENTS)
@SETTINGS
@given(data=st.data())
def test_capacity_never_exceeded(payment, data):
    """(4f), (4g): per (k, t) compute <= C_kp and LoRA memory <= C_km - r_b."""
    _, result = data.draw(results(payment))
    ct, ck, cs = _cells(result)
    K, T = result.sizes["node"], result.sizes["slot"]
    compute = np.zeros((K, T), dtype=np.int64)
    memory = np.zeros((K, T))
    np.add.at(compute, (ck, cs), node_speed(result).values[ct, ck])
    np.add.at(memory, (ck, cs), result["memory"].values[ct])
    cap = result["compute_capacity"].values
    usable = result["memory_capacity"].values - result.attrs["base_model_memory"]
    assert (compute <= cap[:, None]).all()
    assert (memory <= usable[:, None] * (1 + RTOL) + RTOL).all()
    # the stored usage is the usage of the cells
    np.testing.assert_array_equal(result["compute_used"].values, compute)
    np.testing.assert_allclose(result["memory_used"].values, memory, rtol=1e-12, atol=1e-12)
    # dual prices: non-negative, and zero on every cell nobody uses (eqs. 7-8 start at 0)
    lam, phi = result["lambda"].values, result["phi"].values
    assert (lam >= 0).all() and (phi >= 0).all()
    assert (lam[compute == 0] == 0).all() and (phi[compute == 0] == 0).all()


@pytest.mark.parametrize("payment", PAYMENTS)
@SETTINGS
@given(data=st.data())
def test_at_most_one_node_per_task_and_slot(payment, data):
    """(4b): sum_k x_ikt <= 1."""
    _, result = data.draw(results(payment))
    ct, _, cs = _cells(result)
    pairs = set()
    for i, t in zip(ct.tolist(), cs.tolist(), strict=True):
        assert (i, t) not in pairs, f"task {i} uses two nodes in slot {t}"
        pairs.add((i, t))


@pytest.mark.parametrize("payment", PAYMENTS)
@SETTINGS
@given(data=st.data())
def test_admitted_tasks_get_their_work_inside_the_window(payment, data):
    """(4a), (4c)-(4e): M_i samples, all in [a_i + h_in*, d_i], on nodes with speed > 0."""
    _, result = data.draw(results(payment))
    ct, ck, cs = _cells(result)
    admitted = result["admitted"].values
    vendor = result["chosen_vendor"].values
    needs = result["needs_preprocessing"].values
    speed = node_speed(result).values
    start = _start(result)
    deadline = result["deadline"].values
    inside = (cs >= start[ct]) & (cs <= deadline[ct])
    assert inside.all()
    assert (speed[ct, ck] > 0).all()
    got = np.zeros(result.sizes["task"], dtype=np.int64)
    np.add.at(got, ct[inside], speed[ct[inside], ck[inside]])
    assert (got[admitted] >= result["work"].values[admitted]).all()
    # a vendor exactly for the admitted tasks that need pre-processing
    assert (vendor[admitted & needs] >= 0).all()
    assert (vendor[admitted & needs] < result.sizes["vendor"]).all()
    assert (vendor[~needs] == -1).all()


@pytest.mark.parametrize("payment", PAYMENTS)
@SETTINGS
@given(data=st.data())
def test_rejected_tasks_pay_nothing_and_get_nothing(payment, data):
    """u_i = 0 -> p_i = 0, no cells, no vendor; the reason agrees with F(il)."""
    _, result = data.draw(results(payment))
    admitted = result["admitted"].values
    reason = result["reason"].values.astype(str)
    surplus = result["surplus"].values
    ct, _, _ = _cells(result)
    rejected = ~admitted
    assert (result["payment"].values[rejected] == 0).all()
    assert (result["chosen_vendor"].values[rejected] == -1).all()
    assert not np.isin(ct, np.flatnonzero(rejected)).any()
    assert (result["finish_slot"].values[rejected] == -1).all()
    assert ((reason == "admitted") == admitted).all()
    # eq. (11): admitted iff F(il) > 0
    assert (surplus[admitted] > 0).all()
    assert (surplus[reason == "negative_surplus"] <= 0).all()
    assert np.isnan(surplus[reason == "no_feasible_schedule"]).all()
    assert set(reason) <= {"admitted", "negative_surplus", "no_feasible_schedule"}


@pytest.mark.parametrize("payment", PAYMENTS)
@SETTINGS
@given(data=st.data())
def test_payment_at_most_bid(payment, data):
    """Individual rationality (Theorem 4), plus the payment formulas themselves."""
    _, result = data.draw(results(payment))
    admitted = result["admitted"].values
    bid = result["bid"].values
    pay = result["payment"].values
    surplus = result["surplus"].values
    assert (pay >= 0).all()
    assert (pay[admitted] <= bid[admitted] * (1 + RTOL) + RTOL).all()
    e = _op_cost_per_task(result)
    if payment == "critical":
        # p_i = b_i - F(il)
        np.testing.assert_allclose(pay[admitted], bid[admitted] - surplus[admitted],
                                   rtol=1e-9, atol=1e-9)
    else:
        # eq. (14) = b_i - F(il) - sum e_ikt: the operating cost is left out
        np.testing.assert_allclose(pay[admitted] + e[admitted],
                                   bid[admitted] - surplus[admitted], rtol=1e-9, atol=1e-9)


# ----------------------------------------------------------------------------------------
# 6, 7: truthfulness
# ----------------------------------------------------------------------------------------


def _replay(scenario, result, i):
    """A fresh auction with simulate()'s constants, after offering tasks 0..i-1 truthfully."""
    arrays = lorasched.pdftsp.to_arrays(scenario)
    auction = OnlineAuction(arrays, alpha=result.attrs["pdftsp_alpha"],
                            beta=result.attrs["pdftsp_beta"],
                            payment=result.attrs["pdftsp_payment_rule"],
                            solver=result.attrs["pdftsp_solver"],
                            work_resolution=result.attrs["pdftsp_work_resolution"])
    for j in range(i):
        d = auction.offer(j)
        assert d.admitted == bool(result["admitted"].values[j])  # the replay is faithful
    return auction


def _utility(auction, i, value, bid):
    d = copy.deepcopy(auction).offer(i, bid=bid)
    return (value - d.payment if d.admitted else 0.0), d


@SETTINGS
@given(data=st.data())
def test_critical_payment_is_truthful(data):
    """Theorem 3 with payment="critical": no bid beats the true value, everything else fixed.

    Also the threshold structure (Myerson): above the critical bid the task wins at a price
    that does not depend on the bid, below it the task loses.
    """
    scenario, result = data.draw(results("critical"))
    n_tasks = result.sizes["task"]
    if n_tasks == 0:
        return
    picks = sorted(set(data.draw(st.lists(st.integers(0, n_tasks - 1), min_size=1,
                                          max_size=3))))
    for i in picks:
        auction = _replay(scenario, result, i)
        v = float(scenario["bid"].values[i])
        truthful, d0 = _utility(auction, i, v, v)
        assert d0.admitted == bool(result["admitted"].values[i])
        assert d0.payment == pytest.approx(float(result["payment"].values[i]), rel=1e-12)
        assert truthful >= 0
        grid = [0.0] + [f * v for f in np.linspace(0.25, 3.0, 12)] + [v * (1 + 1e-9)]
        q = auction.quote(i)
        crit = q.critical_bid if q.feasible else None
        if crit is not None:
            step = 1e-7 * max(crit, 1e-12)
            grid += [crit - step, crit, crit + step, 2 * crit + 1, 10 * crit + 1]
        tol = 1e-9 * max(1.0, abs(v))
        for b in grid:
            u, d = _utility(auction, i, v, b)
            assert u <= truthful + tol, f"task {i}: bid {b} gains {u} > {truthful} (v = {v})"
            if crit is None:
                assert not d.admitted
            elif b > crit + step / 2:
                assert d.admitted and d.payment == pytest.approx(crit, rel=1e-12)
            elif b < crit - step / 2:
                assert not d.admitted


def _paper_flaw_scenario(value1):
    """One node, one slot; task 0 raises the prices, task 1 has true value ``value1``. The
    declared value densities are wide enough for every bid the test makes (a scenario's
    bids lie within them); its constants are those of [0.5, 2] (:func:`_flaw_constants`)."""
    return xr.Dataset(
        {
            "compute_capacity": ("node", np.array([10])),
            "memory_capacity": ("node", np.array([12.0])),
            "gpu_type": ("node", np.array(["toy"])),
            "op_cost_rate": (("node", "slot"), np.array([[0.2]])),  # e > 0
            "arrival": ("task", np.array([0, 0])),
            "deadline": ("task", np.array([0, 0])),
            "memory": ("task", np.array([1.0, 1.0])),
            "work": ("task", np.array([5, 5])),
            "needs_preprocessing": ("task", np.array([False, False])),
            "bid": ("task", np.array([8.0, value1])),
            "speed": (("task", "node"), np.array([[5], [5]])),
            "vendor_price": (("task", "vendor"), np.ones((2, 1))),  # unused: f_i = 0
            "vendor_delay": (("task", "vendor"), np.ones((2, 1), dtype=np.int64)),
        },
        attrs={"base_model_memory": 2.0, "value_density_min": 0.01,
               "value_density_max": 1000.0, "task_memory_min": 1.0},
    )


def _flaw_constants() -> dict:
    """alpha and beta (Lemma 2) of the flaw scenario's cluster, had it declared the value
    densities [0.5, 2]."""
    ds = _paper_flaw_scenario(8.0).assign_attrs(value_density_min=0.5, value_density_max=2.0)
    alpha, beta = lorasched.pdftsp.auction.default_alpha_beta(lorasched.pdftsp.to_arrays(ds))
    return {"alpha": alpha, "beta": beta}


def test_paper_payment_is_not_truthful():
    """Eq. (14) leaves out sum e: a value in (p14, critical] loses truthfully but wins with
    positive utility by overbidding. The same overbid under "critical" does not pay."""
    ab = _flaw_constants()
    probe = simulate(_paper_flaw_scenario(1.0), payment="paper", **ab)
    auction = _replay(_paper_flaw_scenario(1.0), probe, 1)
    q = auction.quote(1)
    p14 = lorasched.pdftsp.payment_paper(q, 1.0)
    crit = q.critical_bid
    assert q.op_cost == pytest.approx(1.0)  # 5 samples x 0.2
    assert 0 < p14 < crit
    v = (p14 + crit) / 2  # true value in (p14, crit]
    over = crit + 1.0

    truthful = simulate(_paper_flaw_scenario(v), payment="paper", **ab)
    overbid = simulate(_paper_flaw_scenario(over), payment="paper", **ab)
    check_result(truthful)
    check_result(overbid)
    assert not truthful["admitted"].values[1]  # utility 0
    assert overbid["admitted"].values[1]
    assert overbid["payment"].values[1] == pytest.approx(p14)
    gain = v - float(overbid["payment"].values[1])
    assert gain > 0  # overbidding strictly beats the truth: eq. (14) is not truthful
    assert gain == pytest.approx((crit - p14) / 2)

    # the critical payment closes the gap: the same overbid now costs more than v
    critical = simulate(_paper_flaw_scenario(over), payment="critical", **ab)
    assert critical["admitted"].values[1]
    assert v - float(critical["payment"].values[1]) < 0
    assert not simulate(_paper_flaw_scenario(v), payment="critical", **ab)["admitted"].values[1]


# ----------------------------------------------------------------------------------------
# 8: accounting, eqs. (1)-(3)
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("payment", PAYMENTS)
@SETTINGS
@given(data=st.data())
def test_welfare_accounting(payment, data):
    _, result = data.draw(results(payment))
    admitted = result["admitted"].values
    vendor = result["chosen_vendor"].values
    pay = result["payment"].values
    bid = result["bid"].values
    price = result["vendor_price"].values
    value = bid[admitted].sum()
    revenue = pay[admitted].sum()
    vendor_cost = sum(price[i, vendor[i]] for i in np.flatnonzero(admitted & (vendor >= 0)))
    op_cost = _op_cost_per_task(result).sum()
    a = result.attrs
    close = dict(rel=1e-9, abs=1e-9)
    assert a["user_utility"] == pytest.approx(value - revenue, **close)  # eq. (1)
    assert a["provider_utility"] == pytest.approx(revenue - vendor_cost - op_cost, **close)
    assert a["welfare"] == pytest.approx(value - vendor_cost - op_cost, **close)  # eq. (3)
    assert a["welfare"] == pytest.approx(a["user_utility"] + a["provider_utility"], **close)
    assert a["revenue"] == pytest.approx(revenue, **close)
    assert a["vendor_cost"] == pytest.approx(vendor_cost, **close)
    assert a["operating_cost"] == pytest.approx(op_cost, **close)
    assert a["n_admitted"] == int(admitted.sum())
    assert a["user_utility"] >= -1e-9  # IR, summed
    if payment == "critical":
        # the critical bid covers vendor and operating cost: the provider never loses
        assert a["provider_utility"] >= -1e-9 * max(1.0, revenue)


# ----------------------------------------------------------------------------------------
# 9: determinism
# ----------------------------------------------------------------------------------------


def _without_timing(result):
    out = result.drop_vars("decision_time")
    for key in ("wall_seconds", "median_decision_time"):
        out.attrs.pop(key)
    return out


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes=st.integers(1, 6), slots=st.integers(6, 24), load=st.sampled_from([0.5, 2.0]),
       vendors=st.integers(1, 3), policy=st.sampled_from(DEADLINE_POLICIES),
       seed=st.integers(0, 2**32 - 1), payment=st.sampled_from(PAYMENTS))
def test_same_seed_same_result(nodes, slots, load, vendors, policy, seed, payment):
    args = dict(nodes=nodes, slots=slots, load=load, vendors=vendors, deadline_policy=policy,
                seed=seed)
    a, b = synthetic_scenario(**args), synthetic_scenario(**args)
    assert a.identical(b)
    for name in a.data_vars:
        assert a[name].values.tobytes() == b[name].values.tobytes(), name
    ra = _without_timing(simulate(a, seed=3, payment=payment))
    rb = _without_timing(simulate(b, seed=3, payment=payment))
    assert ra.identical(rb)
    for name in ra.data_vars:
        assert ra[name].values.tobytes() == rb[name].values.tobytes(), name
    # and the seed matters
    assert not a.identical(synthetic_scenario(**{**args, "seed": seed + 1}))


@SETTINGS
@given(scenario=hand_scenarios(), payment=st.sampled_from(PAYMENTS))
def test_hand_built_results_are_deterministic(scenario, payment):
    ra = _without_timing(simulate(scenario, payment=payment))
    rb = _without_timing(simulate(scenario.copy(deep=True), payment=payment))
    assert ra.identical(rb)


# ----------------------------------------------------------------------------------------
# 10: check_result accepts every result and rejects corrupted ones
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("payment", PAYMENTS)
@SETTINGS
@given(data=st.data())
def test_check_result_passes(payment, data):
    _, result = data.draw(results(payment))
    check_result(result)


@SETTINGS
@given(data=st.data())
def test_check_result_catches_random_corruptions(data):
    """Corrupt a random result in one way; check_result must notice."""
    _, result = data.draw(results(data.draw(st.sampled_from(PAYMENTS))))
    admitted = np.flatnonzero(result["admitted"].values)
    if admitted.size == 0:
        return
    i = int(data.draw(st.sampled_from(admitted.tolist())))
    bad = result.copy(deep=True)
    kind = data.draw(st.sampled_from(["overpay", "drop_cells", "early"]))
    if kind == "overpay":
        bad["payment"].values[i] = bad["bid"].values[i] * 1.01 + 1e-6
        match = "IR"
    elif kind == "drop_cells":
        keep = bad["cell_task"].values != i
        bad = bad.isel(cell=np.flatnonzero(keep))
        match = r"\(4e\)"
    else:
        start = _start(bad)[i]
        if start == 0:
            return
        c = int(np.flatnonzero(bad["cell_task"].values == i)[0])
        bad["cell_slot"].values[c] = start - 1
        match = r"\(4c\)"
    with pytest.raises(ResultError, match=match):
        check_result(bad)


def _corruption_scenario():
    """One node (C_kp = 2, 1 GB usable), three slots; tasks 0, 1 fill slots 0, 1; task 2
    (bid 0) is rejected; task 3 needs a vendor."""
    return xr.Dataset(
        {
            "compute_capacity": ("node", np.array([2])),
            "memory_capacity": ("node", np.array([2.0])),
            "gpu_type": ("node", np.array(["toy"])),
            "op_cost_rate": (("node", "slot"), np.array([[0.01, 0.01, 0.01]])),
            "arrival": ("task", np.array([0, 0, 0, 0])),
            "deadline": ("task", np.array([1, 1, 1, 2])),
            "memory": ("task", np.array([0.5, 0.5, 0.5, 0.25])),
            "work": ("task", np.array([2, 2, 2, 1])),
            "needs_preprocessing": ("task", np.array([False, False, False, True])),
            "bid": ("task", np.array([10.0, 10.0, 0.0, 10.0])),
            "speed": (("task", "node"), np.array([[2], [2], [2], [1]])),
            "vendor_price": (("task", "vendor"), np.array([[0.0], [0.0], [0.0], [1.0]])),
            "vendor_delay": (("task", "vendor"), np.array([[0], [0], [0], [2]])),
        },
        attrs={"base_model_memory": 1.0, "value_density_min": 1.0, "value_density_max": 10.0,
               "task_memory_min": 0.25},
    )


@pytest.fixture(scope="module")
def small_result():
    result = simulate(_corruption_scenario())
    check_result(result)
    assert result["admitted"].values.tolist() == [True, True, False, True]
    assert result["chosen_vendor"].values.tolist() == [-1, -1, -1, 0]
    return result


def _cell_of(result, i):
    return int(np.flatnonzero(result["cell_task"].values == i)[0])


def _add_cell(result, i, k, t):
    cells = xr.Dataset({"cell_task": ("cell", [i]), "cell_node": ("cell", [k]),
                        "cell_slot": ("cell", [t])})
    rest = result.drop_vars(["cell_task", "cell_node", "cell_slot"])
    merged = xr.concat([result[["cell_task", "cell_node", "cell_slot"]], cells], dim="cell")
    return rest.merge(merged)


def _before_arrival(r):
    c = _cell_of(r, 3)  # task 3 starts at a + h = 2
    r["cell_slot"].values[c] = 1
    return r


def _after_deadline(r):
    c = _cell_of(r, 0)
    r["cell_slot"].values[c] = 2
    return r


def _duplicate_cell(r):
    return r.isel(cell=np.r_[np.arange(r.sizes["cell"]), 0])


def _over_capacity(r):
    # task 1 also in task 0's slot: 4 samples > C_kp = 2 (one cell per task and slot still)
    t0 = int(r["cell_slot"].values[_cell_of(r, 0)])
    t1 = int(r["cell_slot"].values[_cell_of(r, 1)])
    assert t0 != t1
    return _add_cell(r, 1, 0, t0)


def _over_memory(r):
    # as above, but with room for the compute: 0.5 + 0.75 GB > 1 GB usable
    r["compute_capacity"].values[0] = 4
    r["memory"].values[1] = 0.75
    return _add_cell(r, 1, 0, int(r["cell_slot"].values[_cell_of(r, 0)]))


def _rejected_pays(r):
    r["payment"].values[2] = 0.5
    return r


def _work_short(r):
    keep = np.flatnonzero(r["cell_task"].values != 0)
    return r.isel(cell=keep)


def _above_bid(r):
    r["payment"].values[0] = r["bid"].values[0] + 1.0
    return r


def _cell_of_rejected(r):
    return _add_cell(r, 2, 0, 0)


def _vendor_for_rejected(r):
    r["chosen_vendor"].values[2] = 0
    return r


def _missing_vendor(r):
    r["chosen_vendor"].values[3] = -1
    return r


def _welfare_attr(r):
    r.attrs["welfare"] = r.attrs["welfare"] + 1.0
    return r


def _compute_used(r):
    r["compute_used"].values[0, 0] += 1
    return r


def _reason(r):
    r["reason"].values[2] = "admitted"
    return r


CORRUPTIONS = {
    "cell before arrival + vendor delay": (_before_arrival, r"\(4c\)"),
    "cell after deadline": (_after_deadline, r"\(4d\)"),
    "duplicated cell": (_duplicate_cell, r"\(4b\)"),
    "over compute capacity": (_over_capacity, r"\(4f\)"),
    "over memory capacity": (_over_memory, r"\(4g\)"),
    "rejected task pays": (_rejected_pays, r"rejected but pays"),
    "admitted task short of work": (_work_short, r"\(4e\)"),
    "payment above bid": (_above_bid, r"IR"),
    "cell of a rejected task": (_cell_of_rejected, r"not admitted"),
    "vendor for a rejected task": (_vendor_for_rejected, r"rejected but has a vendor"),
    "admitted task without its vendor": (_missing_vendor, r"no vendor"),
    "welfare attribute": (_welfare_attr, r"welfare"),
    "stored compute usage": (_compute_used, r"compute_used"),
    "reason disagrees": (_reason, r"reason"),
}


def test_check_result_accepts_results_without_vendors():
    """A scenario with no vendor at all (vendor dim of size 0) is valid, and so is its
    result: check_result reads no ``vendor_delay[:, 0]``, which a scenario without a vendor
    column lacks (it would raise IndexError)."""
    scenario = synthetic_scenario(nodes=2, slots=6, load=2.0, vendors=0,
                                  preprocessing_share=0.0, seed=0)
    assert scenario.sizes["vendor"] == 0 and scenario.sizes["task"] > 0
    result = simulate(scenario)
    assert result["admitted"].values.any()
    check_result(result)


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_check_result_rejects_corruption(small_result, name):
    corrupt, match = CORRUPTIONS[name]
    bad = corrupt(small_result.copy(deep=True))
    with pytest.raises(ResultError, match=match) as err:
        check_result(bad)
    # the message names tasks, nodes and slots as plain numbers, never as numpy slices
    assert not re.search(r"\[\d|\(\[", str(err.value)), str(err.value)
    check_result(small_result)  # the original is untouched


# ----------------------------------------------------------------------------------------
# extras: Algorithm 2's solvers against each other along a run
# ----------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=hand_scenarios(max_nodes=2, max_slots=5, max_tasks=5, max_work=12))
def test_solvers_agree_with_brute_force(scenario):
    """Along one pdFTSP run: exact (with an exact work discretisation, R = lcm(1..5)) finds
    the same optimum of (12) as brute force, and the paper DP never beats it."""
    arrays = lorasched.pdftsp.to_arrays(scenario)
    alpha, beta = default_alpha_beta(arrays)
    auction = OnlineAuction(arrays, alpha=alpha, beta=beta)
    state = (auction.lam, auction.phi, auction.compute_left, auction.memory_left)
    for i in range(arrays.n_tasks):
        brute = schedule(arrays, i, *state, solver="brute")
        exact = schedule(arrays, i, *state, solver="exact", work_resolution=60)
        paper = schedule(arrays, i, *state, solver="paper", work_resolution=60)
        assert brute.feasible == exact.feasible == paper.feasible
        if brute.feasible:
            tol = 1e-9 * max(1.0, abs(brute.surplus))
            assert exact.surplus == pytest.approx(brute.surplus, rel=1e-9, abs=1e-9)
            assert paper.surplus <= exact.surplus + tol
            for s in (exact, paper):  # the reported terms are those of the cells
                assert s.samples == int(arrays.speed[i, s.nodes].sum())
                assert s.samples >= arrays.work[i]
                assert s.n_cells == s.nodes.shape[0] == s.slots.shape[0]
                assert s.cost == pytest.approx(
                    s.lam_hat * s.samples + s.phi_hat * s.n_cells * arrays.memory[i]
                    + s.op_cost, rel=1e-9, abs=1e-12)
        auction.offer(i)
