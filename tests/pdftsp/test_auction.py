"""Algorithm 1 by hand: dual updates (7)-(8), admission (11), payments (14) and critical."""

from __future__ import annotations

import numpy as np
import pytest

import lorasched
from lorasched.pdftsp.auction import (
    OnlineAuction,
    declared_bounds,
    default_alpha_beta,
    payment_paper,
)
from lorasched.pdftsp.scenario import ScenarioArrays, to_arrays
from lorasched.pdftsp.workload import synthetic_scenario


def two_node_arrays(bid=10.0, rate=0.01, needs=False):
    """Two nodes, four slots, two identical tasks arriving at slot 0."""
    return ScenarioArrays(
        compute_capacity=np.array([4, 4]), memory_capacity=np.array([10.0, 10.0]),
        base_model_memory=2.0, op_cost_rate=np.full((2, 4), rate),
        arrival=np.array([0, 0]), deadline=np.array([3, 3]), memory=np.array([2.0, 2.0]),
        work=np.array([4, 4]), needs_preprocessing=np.array([needs, needs]),
        bid=np.array([bid, bid]), speed=np.array([[2, 2], [2, 2]]),
        vendor_price=np.array([[1.0, 0.5], [1.0, 0.5]]),
        vendor_delay=np.array([[0, 2], [0, 2]]))


def test_dual_updates_follow_eqs_7_and_8():
    arrays = two_node_arrays()
    auc = OnlineAuction(arrays, alpha=3.0, beta=5.0)
    d = auc.offer(0)
    assert d.admitted and d.reason == "admitted"
    s = d.schedule
    assert s.n_cells == 2 and s.samples == 4  # 2 cells of 2 samples meet M = 4
    e = 2 * 0.01 * 2
    assert s.op_cost == pytest.approx(e)
    b_il = 10.0 - e
    b_bar = b_il / (4 + 2 * 2.0)  # samples + memory over the cells
    assert d.b_bar == pytest.approx(b_bar)
    for k, t in zip(s.nodes, s.slots, strict=True):
        # from zero prices: lambda = alpha * b_bar * s / C, phi = beta * b_bar * r / (C - r_b)
        assert auc.lam[k, t] == pytest.approx(3.0 * b_bar * 2 / 4)
        assert auc.phi[k, t] == pytest.approx(5.0 * b_bar * 2.0 / 8.0)
        assert auc.compute_left[k, t] == 2 and auc.memory_left[k, t] == pytest.approx(6.0)
    untouched = np.ones((2, 4), dtype=bool)
    untouched[s.nodes, s.slots] = False
    assert (auc.lam[untouched] == 0).all() and (auc.phi[untouched] == 0).all()

    # second task: prices on used cells now positive; multiplicative term of (7) applies
    lam0, phi0 = auc.lam.copy(), auc.phi.copy()
    d2 = auc.offer(1)
    assert d2.admitted
    for k, t in zip(d2.schedule.nodes, d2.schedule.slots, strict=True):
        expect = lam0[k, t] * (1 + 2 / 4) + 3.0 * d2.b_bar * 2 / 4
        assert auc.lam[k, t] == pytest.approx(expect)
        expect_phi = phi0[k, t] * (1 + 2.0 / 8.0) + 5.0 * d2.b_bar * 2.0 / 8.0
        assert auc.phi[k, t] == pytest.approx(expect_phi)


def test_payments_paper_and_critical():
    arrays = two_node_arrays(needs=True, rate=0.05)
    auc = OnlineAuction(arrays, alpha=3.0, beta=5.0)
    auc.offer(0)
    s = auc.quote(1)
    assert s.feasible and s.vendor in (0, 1)
    p14 = s.vendor_price + s.lam_hat * s.samples + s.phi_hat * s.n_cells * 2.0
    assert payment_paper(s, 2.0) == pytest.approx(p14)
    assert s.critical_bid == pytest.approx(p14 + s.op_cost)
    assert s.critical_bid == pytest.approx(arrays.bid[1] - s.surplus)
    assert s.op_cost > 0
    critical = OnlineAuction(arrays, alpha=3.0, beta=5.0)
    paper = OnlineAuction(arrays, alpha=3.0, beta=5.0, payment="paper")
    assert critical.price(s, 1) == s.critical_bid and paper.price(s, 1) == payment_paper(s, 2.0)


def test_admission_is_strictly_positive_surplus():
    arrays = two_node_arrays(rate=0.0)
    auc = OnlineAuction(arrays, alpha=1.0, beta=1.0)
    s = auc.quote(0)
    critical = s.critical_bid
    assert critical == 0.0  # empty cluster, no cost
    # F = 0 exactly: rejected (eq. 11 and line 6 use F > 0)
    d = auc.offer(0, bid=0.0)
    assert not d.admitted and d.reason == "negative_surplus" and d.payment == 0
    assert (auc.lam == 0).all(), "a rejected task must not move prices"
    d = auc.offer(0, bid=1e-6)
    assert d.admitted


def test_vendor_choice_maximises_surplus():
    arrays = two_node_arrays(needs=True, rate=0.0)
    auc = OnlineAuction(arrays, alpha=1.0, beta=1.0)
    s = auc.quote(0)
    # vendor 1 is cheaper (0.5) and its delay of 2 still leaves slots 2-3 for the work
    assert s.vendor == 1 and s.vendor_price == 0.5
    assert (s.slots >= 2).all()


def test_no_feasible_schedule_when_window_too_short():
    arrays = two_node_arrays()._replace(deadline=np.array([0, 3]))
    auc = OnlineAuction(arrays, alpha=1.0, beta=1.0)
    d = auc.offer(0)  # one slot of 2 samples cannot deliver 4
    assert not d.admitted and d.reason == "no_feasible_schedule"


def declare(arrays, v_min, v_max, r_min, s_per_r=None):
    return arrays._replace(value_density_min=v_min, value_density_max=v_max,
                           task_memory_min=r_min, speed_per_memory_max=s_per_r)


def test_alpha_beta_from_declared_bounds():
    arrays = two_node_arrays()
    alpha, beta = default_alpha_beta(declare(arrays, 0.5, 2.0, 4.0))
    assert alpha == pytest.approx(4.0)
    assert beta == pytest.approx(4.0 * 4 / 4.0)  # alpha * max C_kp / r_min
    with pytest.raises(ValueError, match="value_density_max"):
        default_alpha_beta(declare(arrays, 2.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="task_memory_min"):
        default_alpha_beta(declare(arrays, 1.0, 2.0, 0.0))
    # a scenario without declared bounds falls back to hindsight, loudly
    with pytest.warns(UserWarning, match="hindsight"):
        v_min, v_max, s_per_r = declared_bounds(arrays)
    assert v_min == v_max == pytest.approx(10.0 / 4) and s_per_r == pytest.approx(2 / 2.0)
    # ... only for the bounds it does not declare
    with pytest.warns(UserWarning, match="hindsight"):
        assert declared_bounds(declare(arrays, 0.5, None, 4.0)) == (0.5, 2.5, 1.0)


def test_alpha_beta_rules_from_the_declared_speed_per_memory():
    """Lemma 2 tightened: beta = (v_max / v_min) * max s/r; in v_max units alpha = 1 and
    beta = max s/r; an unknown rule is refused by name."""
    arrays = declare(two_node_arrays(), 0.5, 2.0, 4.0, s_per_r=3.0)
    assert default_alpha_beta(arrays) == pytest.approx((4.0, 12.0))
    assert default_alpha_beta(arrays, "vmax") == pytest.approx((1.0, 3.0))
    with pytest.raises(ValueError, match="constants"):
        default_alpha_beta(arrays, "lemma3")
    with pytest.raises(ValueError, match="speed_per_memory_max"):
        default_alpha_beta(declare(two_node_arrays(), 0.5, 2.0, 4.0, s_per_r=0.0))
    auc = OnlineAuction(arrays, constants="vmax")
    assert (auc.alpha, auc.beta, auc.constants) == (1.0, 3.0, "vmax")
    assert OnlineAuction(arrays, alpha=2.0).constants == "explicit"


def test_synthetic_scenarios_declare_the_largest_speed_per_memory():
    scenario = synthetic_scenario(nodes=4, slots=12, load=20.0, seed=2)
    ratio = scenario["speed"].values.max(axis=1) / scenario["memory"].values
    assert scenario.attrs["speed_per_memory_max"] >= ratio.max() * (1 - 1e-12)
    assert to_arrays(scenario).speed_per_memory_max == scenario.attrs["speed_per_memory_max"]


def test_auction_defaults_alpha_beta_from_the_declared_bounds():
    arrays = declare(two_node_arrays(), 0.5, 2.0, 4.0)
    auc = OnlineAuction(arrays)
    assert (auc.alpha, auc.beta) == default_alpha_beta(arrays)
    auc = OnlineAuction(arrays, beta=7.0)  # an override wins, the other stays default
    assert (auc.alpha, auc.beta) == (default_alpha_beta(arrays)[0], 7.0)


def test_invalid_options_are_clear_errors():
    arrays = two_node_arrays()
    with pytest.raises(ValueError, match="payment"):
        OnlineAuction(arrays, alpha=1.0, beta=1.0, payment="vickrey")
    with pytest.raises(ValueError, match="alpha"):
        OnlineAuction(arrays, alpha=float("nan"), beta=1.0)
    sc = lorasched.synthetic_scenario(nodes=2, slots=6, load=1.0, seed=0)
    with pytest.raises(ValueError, match="alpah"):
        lorasched.simulate(sc, alpah=1.0)
    with pytest.raises(ValueError, match="unknown algorithm"):
        lorasched.simulate(sc, algorithm="magic")


def test_snapshot_restore_round_trip():
    arrays = two_node_arrays()
    auc = OnlineAuction(arrays, alpha=3.0, beta=5.0)
    state = auc.snapshot()
    auc.offer(0)
    assert auc.lam.any()
    auc.restore(state)
    assert not auc.lam.any() and (auc.compute_left == 4).all()


def test_dual_update_compounds_on_reused_cells():
    """One node, two slots, each task needs both cells: the second update of (7)-(8)
    multiplies the first price by (1 + s/C) and (1 + r/(C_m - r_b))."""
    arrays = ScenarioArrays(
        compute_capacity=np.array([4]), memory_capacity=np.array([10.0]),
        base_model_memory=2.0, op_cost_rate=np.zeros((1, 2)), arrival=np.array([0, 0]),
        deadline=np.array([1, 1]), memory=np.array([2.0, 2.0]), work=np.array([4, 4]),
        needs_preprocessing=np.array([False, False]), bid=np.array([100.0, 100.0]),
        speed=np.array([[2], [2]]), vendor_price=np.zeros((2, 0)),
        vendor_delay=np.zeros((2, 0), dtype=np.int64))
    auc = OnlineAuction(arrays, alpha=0.01, beta=0.01)
    first = auc.offer(0)
    lam1, phi1 = auc.lam.copy(), auc.phi.copy()
    assert (lam1 > 0).all()
    second = auc.offer(1)
    assert first.admitted and second.admitted
    np.testing.assert_allclose(auc.lam, lam1 * (1 + 2 / 4) + 0.01 * second.b_bar * 2 / 4)
    np.testing.assert_allclose(auc.phi, phi1 * (1 + 2 / 8) + 0.01 * second.b_bar * 2 / 8)
    # both tasks priced at the max over their cells, eq. (10)
    assert second.schedule.lam_hat == pytest.approx(lam1.max())


@pytest.mark.parametrize("name, value, rule", [
    ("alpha", "x", "alpha must be a real number, got 'x'"),
    ("beta", True, "beta must be a real number, got True"),
    ("alpha", float("nan"), "alpha must be finite"),
    ("beta", -1.0, "beta must be >= 0"),
    ("work_resolution", 1.5, "work_resolution must be a whole number, got 1.5"),
    ("work_resolution", 0, "work_resolution must be >= 1"),
])
def test_auction_options_of_the_wrong_type_are_refused_by_name(name, value, rule):
    """An option of the wrong type or range is an InputError naming it, before any work
    (before, alpha="x" raised numpy's TypeError from np.isfinite, 1.5 was truncated)."""
    arrays = declare(two_node_arrays(), 0.5, 2.0, 4.0)
    with pytest.raises(lorasched.InputError, match=rule.replace("(", r"\(")):
        OnlineAuction(arrays, **{name: value})
