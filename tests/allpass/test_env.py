"""Allpass's provisioning as a decision problem (lorasched.allpass.env): the built-in
policy's decisions replayed give its run exactly, the rewards add up to the bill, actions
out of range are refused, and the random policy is seeded and finishes every job."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lorasched.allpass import scalers
from lorasched.allpass.clouds import bill
from lorasched.allpass.cluster import AllpassCluster
from lorasched.allpass.env import ProvisioningProblem
from lorasched.allpass.policies import allpass
from lorasched.allpass.result import assemble, check_result
from lorasched.allpass.scenario import to_arrays
from lorasched.allpass.system import measure, simulate
from lorasched.allpass.workload import allpass_scenario
from lorasched.model.errors import InputError

#: a small scenario; "slip" makes Algorithm 2 add and release many workers at a time
CASES = {"defaults": ({"jobs": 10, "seed": 2, "capacity": 2, "sizing": "trace",
                       "book_hours": 1}, {}),
         "slip": ({"jobs": 10, "seed": 1, "book_hours": 1}, {"units": "slip"})}


@pytest.fixture(scope="module")
def small():
    return allpass_scenario(**CASES["defaults"][0])


def record(monkeypatch, arrays, seed, options):
    """The built-in policy's run and its serverful decision at each tick (Algorithm 2's
    workers to add, or minus those to release), read as ``_decide`` (the cluster's
    unchecked call) returns them."""
    decide, actions = scalers.ServerfulScaler._decide, []

    def spy(self, *args, **kwargs):
        d = decide(self, *args, **kwargs)
        actions.append(d.add if d.add else -len(d.remove))
        return d

    monkeypatch.setattr(scalers.ServerfulScaler, "_decide", spy)
    run = allpass(arrays, np.random.default_rng(seed), **options)
    monkeypatch.setattr(scalers.ServerfulScaler, "_decide", decide)
    return run, actions


def replay(arrays, seed, actions, **config):
    problem = ProvisioningProblem(arrays, np.random.default_rng(seed),
                                  max_step=max(1, max(map(abs, actions))), **config)
    rewards = []
    for a in actions:
        assert not problem.done
        reward, done = problem.step(a)
        rewards.append(reward)
    assert done and problem.done
    return problem, rewards


@pytest.mark.parametrize("case", list(CASES))
def test_replaying_the_built_in_decisions_gives_its_run(monkeypatch, case):
    kwargs, options = CASES[case]
    arrays = to_arrays(allpass_scenario(**kwargs))
    built, actions = record(monkeypatch, arrays, 5, options)
    assert any(a > 0 for a in actions) and any(a < 0 for a in actions)
    problem, _ = replay(arrays, 5, actions, **options)
    again = problem.output()
    for field in built._fields:
        np.testing.assert_array_equal(getattr(again, field), getattr(built, field), field)


def test_one_changed_action_changes_the_run(monkeypatch, small):
    arrays = to_arrays(small)
    built, actions = record(monkeypatch, arrays, 5, {})
    k = next(i for i, a in enumerate(actions) if a > 0)
    actions[k] += 1
    problem = ProvisioningProblem(arrays, np.random.default_rng(5), max_step=4)
    for i in range(10 ** 5):                  # the episode's length may change too
        if problem.step(actions[i] if i < len(actions) else 0)[1]:
            break
    again = problem.output()
    assert not np.array_equal(again.lease_start, built.lease_start)


def test_each_reward_is_the_bill_accrued_in_its_minute(monkeypatch, small):
    arrays = to_arrays(small)
    _, actions = record(monkeypatch, arrays, 5, {})
    problem = ProvisioningProblem(arrays, np.random.default_rng(5), max_step=4)
    paid = 0.0
    for a in actions[:300]:
        paid -= problem.step(a)[0]
        c = problem.cluster
        owed = sum(bill(p, s, e if np.isfinite(e) else max(c.t, s), price)
                   for p, _, s, _, e, price, _ in c.leases)
        assert paid == pytest.approx(owed, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("weight", [0.0, 0.5])
def test_the_rewards_add_up_to_the_bill_and_the_weighted_jct(monkeypatch, small, weight):
    arrays = to_arrays(small)
    _, actions = record(monkeypatch, arrays, 5, {})
    result = simulate(small, "allpass", seed=5)
    _, rewards = replay(arrays, 5, actions, jct_weight=weight)
    jct_min = result["jct_s"].values.sum() / 60
    assert sum(rewards) == pytest.approx(-(result.attrs["cost_usd"] + weight * jct_min),
                                         rel=1e-9)
    assert all(r <= 0 for r in rewards)


def test_the_random_policy_is_seeded_checked_and_finishes(small):
    a, b = simulate(small, "random", seed=3), simulate(small, "random", seed=3)
    check_result(a)
    assert np.isfinite(a["finish_s"].values).all()
    for var in ("finish_s", "lease_start_s", "lease_ready_s", "lease_end_s", "seg_start_s"):
        np.testing.assert_array_equal(a[var].values, b[var].values)
    assert measure(small, a)["cost_usd"] == measure(small, b)["cost_usd"]
    other = simulate(small, "random", seed=4)
    assert not np.array_equal(other["lease_start_s"].values, a["lease_start_s"].values)
    # random: it rents and releases serverful workers, never more than the cap (2)
    serverful = a["lease_provider"].values != "modal"
    assert serverful.sum() > 2 and a["workers"].values.max() <= 2


def test_releasing_at_every_tick_still_finishes_every_job(small):
    problem = ProvisioningProblem(to_arrays(small), np.random.default_rng(0), max_step=4)
    for _ in range(5000):                       # the liveness rule rents the one worker
        if problem.step(-4)[1]:
            break
    assert problem.done
    result = assemble(small, problem.output(), algorithm="release", seed=0, options={})
    check_result(result)
    assert result["workers"].values.max() == 1


def test_actions_are_clipped_at_what_is_possible(small):
    problem = ProvisioningProblem(to_arrays(small), np.random.default_rng(0), max_step=3)
    np.testing.assert_array_equal(problem.actions(), [-3, -2, -1, 0, 1, 2, 3])
    np.testing.assert_array_equal(problem.valid_actions(),
                                  [False, False, False, True, True, True, False])
    problem.step(3)                                       # the cap is 2: two are rented
    assert len(problem.cluster.open) == 2
    assert not problem.valid_actions()[4:].any()          # no room left
    problem.step(3)
    assert len(problem.cluster.open) == 2                  # clipped: nothing more
    while problem.observe()["workers"][2] < 2:            # until both are idle and ready
        problem.step(0)
    np.testing.assert_array_equal(problem.valid_actions(),
                                  [False, True, True, True, False, False, False])
    problem.step(-3)                                       # both released, no more
    released = [L for L in problem.cluster.leases if L[0] != "modal" and np.isfinite(L[4])]
    assert len(released) == 2 and not problem.done
    obs = problem.observe()
    assert set(obs) >= {"time", "queue", "workers", "pressure", "F", "prices"}
    assert obs["queue"].shape == (8, 2) and obs["prices"].shape == (4,)


@pytest.mark.parametrize("action", [5, -5, 1.0, True, "1", None, np.array([1])])
def test_an_invalid_action_is_refused_by_name(small, action):
    problem = ProvisioningProblem(to_arrays(small), np.random.default_rng(0), max_step=4)
    with pytest.raises(InputError, match=r"action must be an integer in \[-4, 4\]"):
        problem.step(action)


def test_a_step_after_the_end_and_an_early_output_are_refused(monkeypatch, small):
    arrays = to_arrays(small)
    _, actions = record(monkeypatch, arrays, 5, {})
    problem = ProvisioningProblem(arrays, np.random.default_rng(5))
    with pytest.raises(InputError, match="finished episode"):
        problem.output()
    problem, _ = replay(arrays, 5, actions)
    with pytest.raises(InputError, match="episode is over"):
        problem.step(0)
    assert not problem.valid_actions().any()


@pytest.mark.parametrize("config, field", [
    ({"max_step": 0}, "max_step"), ({"max_step": 1.5}, "max_step"),
    ({"jct_weight": -1.0}, "jct_weight"), ({"jct_weight": math.nan}, "jct_weight"),
    ({"queue_k": 0}, "queue_k"), ({"prices_k": True}, "prices_k"),
    ({"demand": "soon"}, "demand"), ({"units": "hours"}, "units"),
    ({"overdue": 1}, "overdue"), ({"F0": -1.0}, "F0"), ({"G_up": -1.0}, "G_up"),
])
def test_a_bad_configuration_is_refused_by_name(small, config, field):
    with pytest.raises(InputError, match=field):
        ProvisioningProblem(to_arrays(small), np.random.default_rng(0), **config)


def test_bad_arrays_or_generator_are_refused(small):
    with pytest.raises(InputError, match="arrays"):
        ProvisioningProblem(small, np.random.default_rng(0))
    with pytest.raises(InputError, match="rng"):
        ProvisioningProblem(to_arrays(small), 0)


def test_the_cluster_refuses_a_decision_out_of_turn(small):
    a = to_arrays(small)
    c = AllpassCluster(a.submit, a.work, a.deadline, a.offers, a.capacity,
                       np.random.default_rng(0))
    with pytest.raises(InputError, match="pending decision"):
        c.provide(1, 0)
    c.next_decision()
    with pytest.raises(InputError, match="add"):
        c.provide(-1, 0)
    on_demand = AllpassCluster(a.submit, a.work, a.deadline, a.offers, a.capacity,
                               np.random.default_rng(0), provision="on-demand")
    with pytest.raises(InputError, match="provision='dbf'"):
        on_demand.next_decision()


#: the built-in policy's run from Algorithm 2's decision as an action: the replay cases and
#: a third scenario (another seed, the default units)
EXPERT_CASES = {**CASES, "seed 3": ({"jobs": 12, "seed": 3, "capacity": 3, "sizing": "trace",
                                      "book_hours": 1}, {})}


@pytest.mark.parametrize("case", list(EXPERT_CASES))
def test_following_the_expert_action_gives_the_built_in_run(monkeypatch, case):
    kwargs, options = EXPERT_CASES[case]
    arrays = to_arrays(allpass_scenario(**kwargs))
    built, actions = record(monkeypatch, arrays, 5, options)
    problem = ProvisioningProblem(arrays, np.random.default_rng(5), max_step=100, **options)
    followed = []
    while not problem.done:
        followed.append(problem.expert_action())
        problem.step(followed[-1])
    assert followed == actions
    again = problem.output()
    for field in built._fields:
        np.testing.assert_array_equal(getattr(again, field), getattr(built, field), field)
    with pytest.raises(InputError, match="episode is over"):
        problem.expert_action()


def test_the_expert_action_is_clipped_to_max_step(monkeypatch):
    kwargs, options = CASES["slip"]
    arrays = to_arrays(allpass_scenario(**kwargs))
    _, actions = record(monkeypatch, arrays, 5, options)
    assert max(actions) > 4 and min(actions) < -4          # Algorithm 2 moves more than K
    problem = ProvisioningProblem(arrays, np.random.default_rng(5), max_step=100, **options)
    for a in actions:
        problem.max_step = 4                               # the default K, same state
        assert problem.expert_action() == max(-4, min(4, a))
        problem.max_step = 100
        problem.step(a)
    assert problem.done
