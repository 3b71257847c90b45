"""Truthfulness and individual rationality, one task at a time (lorasched.pdftsp.mechanism),
and the replay / what-if model behind them."""

from __future__ import annotations

import numpy as np
import pytest

import lorasched
from lorasched.pdftsp import mechanism
from lorasched.pdftsp.auction import payment_paper


@pytest.fixture(scope="module")
def scenario():
    return lorasched.synthetic_scenario(nodes=6, load=5.0, slots=36, seed=3)


@pytest.fixture(scope="module")
def result(scenario):
    return lorasched.simulate(scenario, "pdftsp", seed=3)


def test_replay_after_the_last_task_is_the_online_run(scenario, result):
    n = scenario.sizes["task"]
    for every in (None, 5, n):
        replay = mechanism.AuctionReplay(scenario, snapshot_every=every)
        replay.what_if(n - 1)  # replays tasks 0..n-2 only
        state = replay.state_after(n)
        np.testing.assert_array_equal(state["lam"], result["lambda"].values)
        np.testing.assert_array_equal(state["phi"], result["phi"].values)
        np.testing.assert_array_equal([d.admitted for d in replay.decisions],
                                      result["admitted"].values)
        prices = replay.prices_after(n)
        np.testing.assert_array_equal(prices["lambda"].values, result["lambda"].values)
        assert prices.attrs["arrivals"] == prices.attrs["n_tasks"] == n


def test_one_model_whatever_the_order_of_the_questions(scenario):
    """The one-pass function, a replay with snapshots and a replay asked in a scrambled
    order give identical curves (the replay is deterministic)."""
    n = scenario.sizes["task"]
    tasks = [n - 1, 3, n // 2, 0, n // 2 + 1]
    expected = {t: mechanism.utility_curve(scenario, t, n=21) for t in tasks}
    for every in (1, 4):
        replay = mechanism.AuctionReplay(scenario, snapshot_every=every)
        for t in tasks:
            replay.what_if(t, 10 * float(scenario["bid"].values[t]))  # admitted: moves it
            got = replay.utility_curve(t, n=21)
            assert got.identical(expected[t]), (every, t)
        np.testing.assert_array_equal(replay.state_after(n // 2)["phi"],
                                      mechanism.AuctionReplay(scenario).state_after(n // 2)["phi"])


def test_critical_payment_truthful_bid_maximises_utility(scenario, result):
    admitted = np.flatnonzero(result["admitted"].values)
    rejected = np.flatnonzero(~result["admitted"].values)
    for task in [*admitted[:4], *rejected[:2]]:
        value = float(scenario["bid"].values[task])
        bids = np.unique(np.append(np.linspace(0, 3 * value, 61), value))
        c = mechanism.utility_curve(scenario, int(task), bids)
        u = c["utility"].values
        at_truth = float(c["utility"].sel(bid=value))
        assert at_truth >= u.max() - 1e-12, task
        wins = c["admitted"].values
        assert np.array_equal(wins, bids > c.attrs["critical_bid"]), task
        assert np.allclose(c["payment"].values[wins], c.attrs["critical_bid"])
        assert np.all(u[~wins] == 0)
        assert bool(result["admitted"].values[task]) == bool(at_truth > 0 or
                                                             value > c.attrs["critical_bid"])


def test_untruthful_tasks_gain_by_overbidding_under_eq_14_only():
    scenario = lorasched.synthetic_scenario(nodes=10, load=5.0, slots=48, seed=1)
    found = mechanism.untruthful_tasks(scenario)
    assert found.size >= 1
    replay = mechanism.AuctionReplay(scenario, payment="paper", snapshot_every=16)
    for i in found:  # rejected at its value, though its value exceeds the payment (14)
        w = replay.what_if(int(i))
        p14 = payment_paper(replay.decision(int(i)).schedule, float(scenario["memory"][i]))
        assert not w.admitted and p14 < w.value <= w.critical_bid
    task = int(found[0])
    value = float(scenario["bid"].values[task])
    bids = np.unique(np.append(np.linspace(0, 2 * value, 81), value))
    paper = mechanism.utility_curve(scenario, task, bids, payment="paper")
    critical = mechanism.utility_curve(scenario, task, bids, payment="critical")
    assert float(paper["utility"].sel(bid=value)) == 0  # truthful: rejected
    assert float(paper["utility"].max()) > 0  # an overbid wins with positive utility
    assert float(critical["utility"].max()) <= 0  # the critical payment removes the gain
    np.testing.assert_array_equal(paper["admitted"].values, critical["admitted"].values)


@pytest.mark.parametrize("kwargs, message", [
    ({"task": -1}, "task -1 out of range 0.."),
    ({"task": 10**6}, "task 1000000 out of range 0.."),
    ({"task": 1.5}, "task must be an integer"),
    ({"task": 0, "bids": [1.0, -2.0]}, "bids must be finite and >= 0, got -2.0"),
    ({"task": 0, "bids": []}, "bids must be a non-empty"),
    ({"task": 0, "payment": "vickrey"}, "payment must be one of"),
])
def test_bad_input_names_the_field(scenario, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        mechanism.utility_curve(scenario, **kwargs)


def test_misreport_gains_probe_every_task_as_offering_it_would():
    scenario = lorasched.synthetic_scenario(nodes=10, load=5.0, slots=48, seed=1)
    probe = mechanism.misreport_gains(scenario)
    n = scenario.sizes["task"]
    assert probe.sizes["task"] == n and probe.attrs["bids"] == mechanism.CURVE_POINTS
    # the critical payment: nobody gains; eq. (14): exactly the untruthful tasks do
    assert float(probe["gain"].sel(payment_rule="critical").max()) == 0.0
    paper = probe["gain"].sel(payment_rule="paper").values
    bad = mechanism.untruthful_tasks(scenario)
    assert bad.size and np.array_equal(np.flatnonzero(paper > 0), bad)
    # each probed outcome is what offering the task at that bid gives
    value = probe["value"].values
    for task in (0, int(bad[0]), n // 2, n - 1):
        bids = value[task] * mechanism.PROBE_GRID
        for rule in ("critical", "paper"):
            curve = mechanism.utility_curve(scenario, task, bids, payment=rule)
            truth = mechanism.utility_curve(scenario, task, [value[task]], payment=rule)
            gain = max(float(curve["utility"].max() - truth["utility"][0]), 0.0)
            assert float(probe["gain"].sel(payment_rule=rule, task=task)) == \
                pytest.approx(gain, abs=1e-12)
    # the gain under eq. (14) is the value less the eq. (14) payment, at a bid above the
    # critical bid
    i = int(bad[0])
    assert paper[i] == pytest.approx(value[i] - float(probe["payment14"][i]))
    assert float(probe["best_bid"].sel(payment_rule="paper", task=i)) > \
        float(probe["critical_bid"][i])
    with pytest.raises(ValueError, match="bids must be"):
        mechanism.misreport_gains(scenario, bids=[-1.0])
