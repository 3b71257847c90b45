"""lorasched.gym.titan: TITAN's allocation as a Gymnasium environment. Gymnasium's own
check passes, a seed fixes the episode, and TITAN's plans replayed through the environment
give the ``titan`` policy's result exactly."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from lorasched.gym.titan import AllocationEnv  # noqa: E402
from lorasched.model.errors import InputError  # noqa: E402
from lorasched.titan.cluster import TitanCluster  # noqa: E402
from lorasched.titan.scenario import titan_scenario  # noqa: E402
from lorasched.titan.system import SYSTEM, measure, simulate  # noqa: E402


@pytest.fixture(scope="module")
def scenario():
    """32 jobs on 4 GPUs: queues, merged jobs, up to 7 candidates per event."""
    return titan_scenario(jobs=16, nodes=1, oversize="cap", density=2, seed=0)


def test_gymnasiums_check_passes_with_warnings_as_errors(scenario):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(AllocationEnv(scenario), skip_render_check=True)  # it renders nothing


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
