"""lorasched.gym.titan: TITAN's allocation as a Gymnasium environment. Gymnasium's own
check passes, a seed fixes the episode, and TITAN's plans replayed through the environment
give the ``titan`` policy's result exactly."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from lorasched.gym.titan import AllocationEnv  # noqa: E402
from lorasched.model.errors import InputError  # noqa: E402
from lorasched.titan.cluster import TitanCluster  # noqa: E402
from lorasched.titan.system import SYSTEM, measure, simulate  # noqa: E402
from lorasched.titan.workload import titan_scenario  # noqa: E402


@pytest.fixture(scope="module")
def scenario():
    """32 jobs on 4 GPUs: queues, merged jobs, up to 7 candidates per event."""
    return titan_scenario(jobs=16, nodes=1, oversize="cap", density=2, seed=0)


def test_gymnasiums_check_passes_with_no_warning_but_the_infinite_bounds(scenario,
                                                                        gymnasium_check):
    gymnasium_check(AllocationEnv(scenario))
    gymnasium_check(AllocationEnv(scenario, scale=True))  # no warning at all


def _episode(env, seed, actions=None):
    """(observations, rewards, info at the end) of one episode from ``reset(seed)``: the
    given actions, or the problem's random ones."""
    obs, _ = env.reset(seed=seed)
    seen, rewards, k = [obs], [], 0
    while True:
        act = env.problem.random_action() if actions is None else actions[k]
        obs, reward, terminated, truncated, info = env.step(act)
        seen.append(obs)
        rewards.append(reward)
        k += 1
        assert not truncated
        if terminated:
            return seen, rewards, info


def test_a_seed_fixes_the_episode(scenario):
    one, two = AllocationEnv(scenario), AllocationEnv(scenario)
    a, b, c = _episode(one, 7), _episode(two, 7), _episode(two, 8)
    assert a[1] == b[1] and len(a[0]) == len(b[0])
    for x, y in zip(a[0], b[0], strict=True):
        assert all(np.array_equal(x[k], y[k]) for k in x)
    assert a[1] != c[1]
    assert a[2]["result"].attrs["seed"] == 7


def _recorded_plans(scenario):
    """The built-in ``titan`` policy's run (default options, setup "paper"), with its
    plan at each event recorded as an action of the environment: slots = units, jobs, merge
    candidates in the offer's order; index = position in the set A + 1."""
    actions, allocations = [], scenario["allocation"].values

    def plan(self, offer):
        gpus, group_gpus = original(self, offer)
        g = np.r_[np.asarray(gpus, dtype=np.int64), np.asarray(group_gpus, dtype=np.int64)]
        actions.append(np.where(g > 0, np.searchsorted(allocations, g) + 1, 0))
        return gpus, group_gpus

    original = TitanCluster.plan
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(TitanCluster, "plan", plan)
        result = simulate(scenario, "titan")
    return result, actions


def _replay(env, actions):
    padded = [np.r_[a, np.zeros(env.problem.max_units - a.size, dtype=np.int64)]
              for a in actions]
    return _episode(env, 0, padded)


def test_titans_plans_replayed_through_the_environment_give_its_result(scenario):
    want, actions = _recorded_plans(scenario)
    assert len(actions) == want.sizes["decision"] == 25
    assert want.attrs["n_merged_jobs"] > 0
    env = AllocationEnv(scenario, infeasible="raise")
    _, rewards, info = _replay(env, actions)
    got = info["result"]
    for name in want.data_vars:
        if name != "solve_s":  # the solver's wall time
            assert np.array_equal(got[name].values, want[name].values), name
    metrics = {k: v for k, v in measure(scenario, got).items() if k not in SYSTEM.timings}
    expected = {k: v for k, v in measure(scenario, want).items() if k not in SYSTEM.timings}
    assert metrics == expected and len(metrics) == 12
    assert sum(rewards) == pytest.approx(-got.attrs["n_jobs"] * got.attrs["avg_jct_h"],
                                         rel=1e-12)


def test_one_action_changed_changes_the_result(scenario):
    """The replay's check can fail: a plan with one allocation halved gives another run."""
    want, actions = _recorded_plans(scenario)
    changed = [a.copy() for a in actions]
    slot = int(np.flatnonzero(changed[0])[0])
    changed[0][slot] -= 1
    got = _replay(AllocationEnv(scenario), changed)[2]["result"]
    assert not np.array_equal(got["finish_s"].values, want["finish_s"].values)


def test_an_infeasible_action_is_clipped_or_refused(scenario):
    env = AllocationEnv(scenario)
    env.reset(seed=0)
    too_much = np.full(env.problem.max_units, 3)
    info = env.step(too_much)[4]
    assert info["action"].sum() == 3 and info["action"][0] == 3  # 4 GPUs to the first job
    strict = AllocationEnv(scenario, infeasible="raise")
    strict.reset(seed=0)
    with pytest.raises(InputError, match="holds no candidate"):
        strict.step(too_much)


@pytest.mark.parametrize("kwargs, match", [
    ({"infeasible": "ignore"}, "infeasible"),
    ({"preemptive": "yes"}, "preemptive"),
    ({"max_units": -1}, "max_units"),
    ({"switch": "fast"}, "switch"),
])
def test_the_environment_validates_its_configuration(scenario, kwargs, match):
    with pytest.raises(InputError, match=match):
        AllocationEnv(scenario, **kwargs)
    with pytest.raises(InputError, match="TITAN scenario"):
        AllocationEnv(scenario.assign_attrs(system="allpass"))


# ------------------------------------------------------------ the fixed-size observation


def test_the_fixed_observation_space_is_the_same_for_every_scenario(scenario):
    others = [titan_scenario(jobs=12, nodes=4, oversize="cap", seed=3),   # 16 GPUs: A = 6
              titan_scenario(jobs=30, nodes=1, oversize="cap", seed=1)]   # 4 GPUs: A = 3
    made = [AllocationEnv(observation="fixed")] + [
        AllocationEnv(s, observation="fixed") for s in (scenario, *others)]
    assert all(env.observation_space == made[0].observation_space for env in made)
    assert all(env.action_space == made[0].action_space for env in made)
    assert made[0].observation_space["conflicts"].shape == (64, 64)
    assert made[0].observation_space["throughput"].shape == (64, 24)
    natives = [AllocationEnv(env.scenario).observation_space for env in made]
    assert len({space["throughput"].shape for space in natives}) == len(natives)


def test_the_fixed_observation_is_the_native_one_padded_with_masks(scenario):
    native, fixed = AllocationEnv(scenario, max_units=64), AllocationEnv(
        scenario, observation="fixed")
    allocations = scenario["allocation"].values
    A = allocations.size
    a, _ = native.reset(seed=3)
    b, _ = fixed.reset(seed=3)
    done, events = False, 0
    while not done:
        assert b in fixed.observation_space
        assert b["allocations"].tolist() == allocations.tolist() + [0] * (24 - A)
        assert b["allocation_mask"].tolist() == [1] * A + [0] * (24 - A)
        for key in a:
            want = a[key]
            got = b[key][:, :want.shape[1]] if key in ("throughput", "action_mask") else b[key]
            np.testing.assert_array_equal(got, want, err_msg=key)
        assert not b["throughput"][:, A:].any() and not b["action_mask"][:, A + 1:].any()
        events += b["mask"].any()
        action = native.problem.random_action()
        a, _, done, _, _ = native.step(action)
        b, *_ = fixed.step(action)
    assert events > 10


def test_the_fixed_episode_replays_titans_plans(scenario):
    want, actions = _recorded_plans(scenario)
    env = AllocationEnv(scenario, observation="fixed", infeasible="raise")
    got = _replay(env, actions)[2]["result"]
    assert np.array_equal(got["finish_s"].values, want["finish_s"].values)
    assert env.action_space.nvec.tolist() == [25] * 64


def test_an_index_past_the_scenarios_allocations_is_clipped_or_refused(scenario):
    env = AllocationEnv(scenario, observation="fixed")
    obs, _ = env.reset(seed=0)
    action = np.zeros(64, dtype=np.int64)
    action[0] = 24                              # the padding: no such allocation here
    info = env.step(action)[4]
    assert 0 < info["action"][0] <= scenario.sizes["allocation"]
    strict = AllocationEnv(scenario, observation="fixed", infeasible="raise")
    strict.reset(seed=0)
    with pytest.raises(InputError, match=r"an index must be in 0\.\.3"):
        strict.step(action)


def test_an_event_beyond_max_units_shows_its_first_candidates_and_the_run_ends(scenario):
    """The documented truncation: max_units slots, the rest get no GPUs at that event."""
    env = AllocationEnv(scenario, observation="fixed", max_units=3)
    full = AllocationEnv(scenario, observation="fixed")
    assert env.observation_space["conflicts"].shape == (3, 3)
    obs, _ = env.reset(seed=1)
    wide, done = 0, False
    while not done:
        assert obs in env.observation_space
        wide += int(obs["mask"].sum()) == 3
        obs, _, done, _, info = env.step(env.action_space.sample())
    assert wide > 0 and info["result"].attrs["n_jobs"] == scenario.sizes["job"]
    assert full.problem.max_units == 64


def test_a_scenario_beyond_max_allocations_is_refused_naming_the_size():
    big = titan_scenario(jobs=4, nodes=16, seed=0)            # 64 GPUs: 18 allocations
    with pytest.raises(InputError, match="has 18 allocations in its set A, more than "
                                         "max_allocations = 10 .* max_allocations=18"):
        AllocationEnv(big, observation="fixed", max_allocations=10)
    assert AllocationEnv(big, observation="fixed").observation_space["allocations"].shape \
        == (24,)
    with pytest.raises(InputError, match="max_allocations sizes the fixed observation"):
        AllocationEnv(big, max_allocations=18)
    with pytest.raises(InputError, match="max_allocations must be a positive integer"):
        AllocationEnv(big, observation="fixed", max_allocations=0)


@pytest.mark.parametrize("preemptive", [False, True])
def test_free_gpus_are_those_no_running_unit_holds(scenario, preemptive):
    """Non-preemptive: exactly the decision problem's GPUs to allocate; preemptive (where
    an action may give all M): the GPUs minus those the slots' units hold, which move from
    event to event."""
    options = {"preemptive": True, "tick_s": 600.0} if preemptive else {}
    env = AllocationEnv(scenario, **options)
    obs, _ = env.reset(seed=1)
    M, seen, done = int(env.arrays.gpus), set(), False
    while not done:
        free = int(obs["free_gpus"][0])
        own = int(env.problem.observe()["free_gpus"][0])
        if preemptive:
            assert own == M                       # the problem's budget is every GPU
            assert free == M - int(obs["gpus"].sum())
        else:
            assert free == own
        seen.add(free)
        obs, _, done, _, _ = env.step(env.problem.random_action())
    assert len(seen) > 1
