"""Truthfulness and individual rationality, one task at a time (lorasched.pdftsp.mechanism)."""

from __future__ import annotations

import numpy as np
import pytest

import lorasched
from lorasched.pdftsp import mechanism


@pytest.fixture(scope="module")
def scenario():
    return lorasched.synthetic_scenario(nodes=6, load=5.0, slots=36, seed=3)


@pytest.fixture(scope="module")
def result(scenario):
    return lorasched.simulate(scenario, "pdftsp", seed=3)


def test_auction_before_the_last_task_then_offering_it_is_the_online_run(scenario, result):
    n = scenario.sizes["task"]
    auction = mechanism.auction_before(scenario, n - 1)
    auction.offer(n - 1)
    np.testing.assert_array_equal(auction.lam, result["lambda"].values)
    np.testing.assert_array_equal(auction.phi, result["phi"].values)


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
    ({"task": -1}, "task must be an integer in 0.."),
    ({"task": 10**6}, "task must be an integer in 0.."),
    ({"task": 1.5}, "task must be an integer"),
    ({"task": 0, "bids": [1.0, -2.0]}, "bids must be finite and >= 0, got -2.0"),
    ({"task": 0, "bids": []}, "bids must be a non-empty"),
    ({"task": 0, "payment": "vickrey"}, "payment must be one of"),
])
def test_bad_input_names_the_field(scenario, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        mechanism.utility_curve(scenario, **kwargs)
