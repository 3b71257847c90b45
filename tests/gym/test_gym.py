"""lorasched.gym's face: one environment per system, picked by the scenario, and each
registered with Gymnasium under its id."""

from __future__ import annotations

import inspect

import gymnasium
import pytest

import lorasched
from lorasched import gym
from lorasched.gym import bench

SCENARIOS = {
    "pdftsp": lambda: lorasched.synthetic_scenario(nodes=2, slots=8, load=2.0, seed=1),
    "titan": lambda: lorasched.titan_scenario(jobs=6, seed=1),
    "allpass": lambda: lorasched.allpass_scenario(jobs=6, seed=1),
}


@pytest.mark.parametrize("system", sorted(SCENARIOS))
def test_make_picks_the_systems_environment_and_gymnasium_knows_its_id(system,
                                                                     gymnasium_check):
    scenario = SCENARIOS[system]()
    env = gym.make(scenario)
    assert type(env) is gym.ENVIRONMENTS[system]
    registered = gymnasium.make(gym.IDS[system], scenario=scenario)
    gymnasium_check(registered)
    obs, info = registered.reset(seed=3)
    registered.action_space.seed(3)
    assert registered.observation_space.contains(obs)
    done, total = False, 0.0
    while not done:  # a random agent: an episode ends, with the system's result
        obs, reward, terminated, truncated, info = registered.step(
            registered.action_space.sample())
        total += reward
        done = terminated or truncated
    lorasched.check_result(info["result"])
    assert info["result"].attrs["system"] == system


def test_make_refuses_what_is_not_a_scenario_and_an_unknown_option():
    with pytest.raises(lorasched.InputError, match="xarray.Dataset"):
        gym.make({"system": "titan"})
    with pytest.raises(lorasched.InputError, match=r"unknown option\(s\) \['rewards'\]"):
        gym.make(SCENARIOS["pdftsp"](), rewards="welfare")
    scenario = SCENARIOS["titan"]().assign_attrs(system="nosuch")
    with pytest.raises(lorasched.InputError, match="no environment"):
        gym.make(scenario)


# ----------------------------------------------------------- made by id, with no argument


@pytest.mark.parametrize("system", sorted(gym.IDS))
@pytest.mark.parametrize("observation", gym.OBSERVATIONS)
@pytest.mark.parametrize("scale", [False, True])
def test_each_id_is_made_without_arguments_and_passes_gymnasiums_check(
        system, observation, scale, gymnasium_check):
    config = {} if observation == "native" else {"observation": observation}
    if scale:
        config["scale"] = True
    env = gymnasium.make(gym.IDS[system], **config)
    assert type(env.unwrapped) is gym.ENVIRONMENTS[system]
    assert env.unwrapped.observation == observation and env.unwrapped.scale == scale
    gymnasium_check(env)  # the infinite bounds only with scale=False
    episode = bench.random_episode(env, seed=1)
    assert episode["ended"] and 10 <= episode["steps"] <= 500
    assert episode["seconds"] < 5  # a small default scenario: a quick episode


@pytest.mark.parametrize("system", sorted(gym.IDS))
def test_the_default_scenario_is_the_documented_one_and_its_seed_can_change(system):
    env_class = gym.ENVIRONMENTS[system]
    module = inspect.getmodule(env_class)
    assert gym.DEFAULT_SCENARIOS[system] is module.DEFAULT_SCENARIO
    default = gymnasium.make(gym.IDS[system]).unwrapped.scenario
    assert default.identical(module.default_scenario())
    assert module.DEFAULT_SCENARIO["seed"] == 0
    other = gymnasium.make(gym.IDS[system], scenario_seed=1).unwrapped.scenario
    assert other.identical(module.default_scenario(1)) and not other.identical(default)
    assert all(f"{key}=" in env_class.__doc__ for key in module.DEFAULT_SCENARIO)
    with pytest.raises(lorasched.InputError, match="scenario_seed seeds the default"):
        env_class(default, scenario_seed=1)
    with pytest.raises(lorasched.InputError, match="scenario_seed must be"):
        env_class(scenario_seed=-1)


@pytest.mark.parametrize("system", sorted(gym.IDS))
def test_a_scenario_still_overrides_the_default(system):
    scenario = SCENARIOS[system]()
    env = gymnasium.make(gym.IDS[system], scenario=scenario, observation="fixed")
    assert env.unwrapped.scenario is scenario
    assert gym.make(scenario, observation="fixed").observation_space == env.observation_space


@pytest.mark.parametrize("system", sorted(gym.IDS))
def test_make_vec_steps_the_default_environments(system):
    envs = gymnasium.make_vec(gym.IDS[system], num_envs=2, vectorization_mode="sync")
    steps = bench.rollout(envs, 250, seed=0)
    assert steps.shape == (250, 4) and list(steps.index[[0, -1]]) == [1, 250]
    assert (steps[["episodes 0", "episodes 1"]].iloc[-1] >= 1).all()  # episodes end
    envs.close()


@pytest.mark.parametrize("system", sorted(gym.IDS))
@pytest.mark.parametrize("observation", ["Fixed", "padded", None, 1])
def test_an_unknown_observation_is_refused_by_name(system, observation):
    with pytest.raises(lorasched.InputError, match=r"observation must be one of \('native', "):
        gymnasium.make(gym.IDS[system], observation=observation)


# ----------------------------------------------------------------- the bench helpers


def test_describe_lists_each_part_of_the_spaces():
    env = gymnasium.make(gym.IDS["titan"], observation="fixed")
    table = bench.describe(env)
    assert list(table.index) == [*env.observation_space.spaces, "action"]
    assert table.loc["conflicts", "shape"] == (64, 64)
    assert table.loc["action", "space"] == "MultiDiscrete"
    with pytest.raises(lorasched.InputError, match="Dict observation space"):
        bench.describe(gymnasium.make("CartPole-v1"))


def test_a_random_episode_is_seeded_and_sums_its_rewards():
    env = gymnasium.make(gym.IDS["allpass"])
    one, two = bench.random_episode(env, seed=4), bench.random_episode(env, seed=4)
    assert one["reward"] == two["reward"] and one["steps"] == two["steps"]
    assert one["reward"] < 0  # the provisioning costs dollars
    cut = bench.random_episode(env, seed=4, max_steps=3)
    assert cut["steps"] == 3 and not cut["ended"]


def test_steps_per_second_times_each_id_and_observation():
    ids = [gym.IDS["pdftsp"], gym.IDS["titan"]]
    table = bench.steps_per_second(ids, target_duration=0.05)
    assert list(table.index) == [(i, o) for i in ids for o in ("native", "fixed")]
    assert (table["steps per second"] > 0).all()
    with pytest.raises(lorasched.InputError, match="target_duration"):
        bench.steps_per_second(ids, target_duration=0)
    with pytest.raises(lorasched.InputError, match="steps must be"):
        bench.rollout(gymnasium.make_vec(ids[0], num_envs=1), 0)


def test_defaults_lists_each_ids_default_scenario_and_a_quick_episode():
    table = bench.defaults(gym.IDS, gym.DEFAULT_SCENARIOS)
    assert list(table.index) == list(gym.IDS) and list(table["id"]) == list(gym.IDS.values())
    assert table.loc["titan", "default scenario"] == ("jobs=24, nodes=2, oversize='cap', "
                                                      "setup='authors_code', seed=0")
    assert (table["steps per episode"] >= 10).all()
    assert (table["seconds per episode"] < 5).all()


def test_a_vector_over_scenarios_of_other_sizes_needs_the_fixed_observation():
    scenarios = [lorasched.pdftsp.synthetic_scenario(nodes=n, slots=s, load=3.0, seed=n)
                 for n, s in ((2, 12), (5, 30))]
    table = bench.shapes(gym.IDS["pdftsp"], scenarios, ["lam", "speed"])
    assert table[("native", "lam")].tolist() == [(2, 12), (5, 30)]
    assert table[("fixed", "lam")].tolist() == [(32, 48)] * 2
    with pytest.raises(RuntimeError, match="observation spaces are not equivalent"):
        bench.vector(gym.IDS["pdftsp"], scenarios)
    envs = bench.vector(gym.IDS["pdftsp"], scenarios, observation="fixed")
    assert [e.unwrapped.scenario for e in envs.envs] == scenarios  # one each, in order
    steps = bench.rollout(envs, 150, seed=1)
    assert steps.shape == (150, 4) and (steps.iloc[-1, 2:] >= 1).all()
    summed = bench.totals(steps, ["small", "large"])
    assert list(summed.index) == ["small", "large"] and (summed["steps"] == 150).all()
    assert summed.loc["large", "reward"] == pytest.approx(steps["reward 1"].sum())
    assert summed["episodes ended"].tolist() == steps.iloc[-1, 2:].tolist()
    with pytest.raises(lorasched.InputError, match="labels must name the 2"):
        bench.totals(steps, ["one"])
