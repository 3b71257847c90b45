"""Allpass's provisioning as a Gymnasium environment (lorasched.gym.allpass): gymnasium's
own checker, seeded episodes, and the replay of the built-in policy's decisions through
``reset``/``step`` giving its result exactly."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from lorasched.allpass import scalers  # noqa: E402
from lorasched.allpass.system import TIMINGS, measure, simulate  # noqa: E402
from lorasched.allpass.workload import allpass_scenario  # noqa: E402
from lorasched.gym.allpass import ProvisioningEnv  # noqa: E402
from lorasched.model.errors import InputError  # noqa: E402

SEED = 5


@pytest.fixture(scope="module")
def small():
    # a Helios window whose jobs queue for the two workers
    return allpass_scenario(jobs=10, seed=2, capacity=2, sizing="trace", book_hours=1,
                            source="helios")


def recorded(monkeypatch, scenario, **options):
    """``simulate``'s result of the built-in policy ``allpass`` and its serverful decision
    at each tick (Algorithm 2's workers to add, or minus those to release)."""
    decide, actions = scalers.ServerfulScaler._decide, []

    def spy(self, *args, **kwargs):
        d = decide(self, *args, **kwargs)
        actions.append(d.add if d.add else -len(d.remove))
        return d

    monkeypatch.setattr(scalers.ServerfulScaler, "_decide", spy)
    result = simulate(scenario, "allpass", seed=SEED, **options)
    monkeypatch.setattr(scalers.ServerfulScaler, "_decide", decide)
    return result, actions


def play(env, changes, seed=SEED):
    """Steps the actions of ``changes`` (signed changes in serverful workers, the action
    ``change + K``; no change once they run out) from ``reset(seed)``; the observations,
    rewards and the final info."""
    obs, info = env.reset(seed=seed)
    observations, rewards = [obs], []
    K = env.max_step
    for i in range(10 ** 5):
        obs, reward, terminated, truncated, info = env.step(
            (changes[i] if i < len(changes) else 0) + K)
        assert not truncated
        observations.append(obs)
        rewards.append(reward)
        if terminated:
            return observations, rewards, info
    raise AssertionError("the episode did not end")


def same_result(a, b) -> bool:
    return all(np.array_equal(a[v].values, b[v].values, equal_nan=a[v].dtype.kind == "f")
               for v in b.data_vars) and set(a.data_vars) == set(b.data_vars)


def test_gymnasiums_checker_passes_with_no_warning_but_the_infinite_bounds(small,
                                                                           gymnasium_check):
    gymnasium_check(ProvisioningEnv(small))
    gymnasium_check(ProvisioningEnv(small, scale=True))  # no warning at all


def test_the_replay_of_the_built_in_decisions_gives_its_result(monkeypatch, small):
    built, actions = recorded(monkeypatch, small)
    assert any(a > 0 for a in actions) and any(a < 0 for a in actions)
    env = ProvisioningEnv(small, max_step=max(map(abs, actions)))
    _, rewards, info = play(env, actions)
    assert len(rewards) == len(actions)
    result = info["result"]
    assert same_result(result, built)           # every job, lease, segment and tick array
    assert result.attrs["events"] == built.attrs["events"]
    got, want = measure(small, result), measure(small, built)
    assert set(got) == set(want)
    for name in set(want) - set(TIMINGS):
        assert got[name] == want[name] or (math.isnan(got[name]) and math.isnan(want[name])), \
            name
    assert sum(rewards) == pytest.approx(-built.attrs["cost_usd"], rel=1e-9)


def test_one_changed_action_breaks_the_replay(monkeypatch, small):
    built, actions = recorded(monkeypatch, small)
    k = next(i for i, a in enumerate(actions) if a < 0)
    actions[k] = 0                                  # keep the worker the built-in released
    _, _, info = play(ProvisioningEnv(small), actions)
    assert not same_result(info["result"], built)
    assert measure(small, info["result"])["cost_usd"] != measure(small, built)["cost_usd"]


def test_a_seed_gives_one_episode(small):
    env = ProvisioningEnv(small, jct_weight=0.1)
    actions = np.random.default_rng(0).integers(-4, 5, size=4000).tolist()  # changes
    obs1, rew1, info1 = play(env, actions, seed=11)
    obs2, rew2, info2 = play(ProvisioningEnv(small, jct_weight=0.1), actions, seed=11)
    assert rew1 == rew2 and len(obs1) == len(obs2)
    for a, b in zip(obs1, obs2, strict=True):
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])
    assert same_result(info1["result"], info2["result"])
    _, _, info3 = play(env, actions, seed=12)
    assert not np.array_equal(info3["result"]["lease_ready_s"].values,
                              info1["result"]["lease_ready_s"].values)


def test_the_spaces_hold_what_the_episode_observes(small):
    env = ProvisioningEnv(small, max_step=2, queue_k=3, prices_k=5)
    assert env.action_space.n == 5 and env.action_space.start == 0
    obs, info = env.reset(seed=0)
    assert obs["queue"].shape == (3, 2) and obs["prices"].shape == (5,)
    assert info["action_mask"].shape == (5,)
    observations, _, _ = play(env, [2, 2, -2] * 400, seed=0)
    assert all(o in env.observation_space for o in observations)


@pytest.mark.parametrize("config, field", [({"max_step": 0}, "max_step"),
                                           ({"jct_weight": -1}, "jct_weight"),
                                           ({"units": "hours"}, "units"),
                                           ({"reading": "literal"}, "'reading'")])
def test_a_bad_configuration_is_refused_by_name(small, config, field):
    with pytest.raises(InputError, match=field):
        ProvisioningEnv(small, **config)


def test_misuse_is_refused(small):
    with pytest.raises(InputError, match="Allpass scenario"):
        ProvisioningEnv(small.assign_attrs(system="titan"))
    env = ProvisioningEnv(small)
    with pytest.raises(InputError, match="reset first"):
        env.step(0)
    with pytest.raises(InputError, match=r"unknown option\(s\) \['x'\]"):
        env.reset(seed=0, options={"x": 1})
    env.reset(seed=0)
    with pytest.raises(InputError, match=r"action must be an integer in 0\.\.8"):
        env.step(9)
    with pytest.raises(InputError, match=r"action must be an integer in 0\.\.8"):
        env.step(-1)  # a signed change is no action


# ------------------------------------------------------------ the fixed-size observation


@pytest.fixture(scope="module")
def queued():
    """A scenario whose queue for a serverful worker grows to several jobs."""
    # a Helios window whose queue outgrows the three workers
    return allpass_scenario(jobs=25, seed=4, capacity=3, sizing="trace", book_hours=2,
                            source="helios")


def test_the_fixed_observation_space_is_the_same_for_every_scenario(small, queued):
    other = queued
    fixed = [ProvisioningEnv(observation="fixed"), ProvisioningEnv(small, observation="fixed"),
             ProvisioningEnv(other, observation="fixed")]
    assert all(env.observation_space == fixed[0].observation_space for env in fixed)
    assert fixed[0].observation_space["jobs"].high.tolist() == [math.inf] * 4
    native = [ProvisioningEnv(small).observation_space, ProvisioningEnv(other).observation_space]
    assert native[0] != native[1]  # the job counts are bounded by the scenario's jobs
    assert native[0]["jobs"].high.tolist() == [10.0] * 4


def test_the_fixed_observation_holds_the_native_values_and_the_queue_mask(queued):
    actions = [2, -2] * 1000
    native, _, _ = play(ProvisioningEnv(queued, queue_k=2), actions)
    env = ProvisioningEnv(queued, queue_k=2, observation="fixed")
    fixed, _, _ = play(env, actions)
    assert len(native) == len(fixed)
    full = 0
    for a, b in zip(native, fixed, strict=True):
        assert b in env.observation_space and a.keys() == b.keys()
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])
        queued = int(b["queue_summary"][0])
        assert b["queue_mask"].tolist() == [1] * min(queued, 2) + [0] * max(2 - queued, 0)
        full += queued > 2  # a longer queue: its two most urgent jobs, the rest summarised
    assert full > 0


def test_the_observation_option_is_checked(small):
    with pytest.raises(InputError, match=r"observation must be one of \('native', 'fixed'\)"):
        ProvisioningEnv(small, observation="summary")
