"""lorasched.gym's face: one environment per system, picked by the scenario, and each
registered with Gymnasium under its id."""

from __future__ import annotations

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import lorasched
from lorasched import gym

SCENARIOS = {
    "pdftsp": lambda: lorasched.synthetic_scenario(nodes=2, slots=8, load=2.0, seed=1),
    "titan": lambda: lorasched.titan_scenario(jobs=6, seed=1),
    "allpass": lambda: lorasched.allpass_scenario(jobs=6, seed=1),
}


@pytest.mark.parametrize("system", sorted(SCENARIOS))
def test_make_picks_the_systems_environment_and_gymnasium_knows_its_id(system):
    scenario = SCENARIOS[system]()
    env = gym.make(scenario)
    assert type(env) is gym.ENVIRONMENTS[system]
    registered = gymnasium.make(gym.IDS[system], scenario=scenario)
    check_env(registered.unwrapped, skip_render_check=True)
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
