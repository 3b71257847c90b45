"""pdFTSP's admission as a Gymnasium environment (lorasched.gym.pdftsp): gymnasium's own
checker, seeded episodes, and the replay of the built-in auction through it."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import lorasched  # noqa: E402
from lorasched.gym.pdftsp import AdmissionEnv  # noqa: E402
from lorasched.model.errors import InputError  # noqa: E402
from lorasched.pdftsp.system import TIMINGS, measure  # noqa: E402

SMALL = {"nodes": 3, "slots": 10, "load": 8.0, "vendors": 2, "seed": 3}
#: the auction's defaults, and explicit constants (as the calibrated figures pass them)
#: with eq. (14)'s payment
OPTIONS = [{}, {"alpha": 1.0, "beta": 30.0, "payment": "paper"}]
#: every decision of a result, and what is derived from them
DECISIONS = ("admitted", "chosen_vendor", "payment", "reason", "surplus", "finish_slot",
             "cell_task", "cell_node", "cell_slot", "lambda", "phi", "compute_used",
             "memory_used")


@pytest.fixture(scope="module")
def scenario():
    return lorasched.synthetic_scenario(**SMALL)


def run_episode(env, actions, seed=0):
    obs, info = env.reset(seed=seed)
    trace, total = [obs], 0.0
    for a in actions:
        obs, reward, terminated, truncated, info = env.step(a)
        assert not truncated and not info["refused"]
        trace.append(obs)
        total += reward
    assert terminated
    return info["result"], total, trace


def differences(result, reference, scenario) -> list[str]:
    """What the two results decide or measure differently (timings aside)."""
    bad = [v for v in DECISIONS if not np.array_equal(result[v].values, reference[v].values,
                                                      equal_nan=v == "surplus")]
    ours, theirs = measure(scenario, result), measure(scenario, reference)
    return bad + [m for m in theirs if m not in TIMINGS and ours[m] != theirs[m]]


def test_check_env_passes(scenario, gymnasium_check):
    gymnasium_check(AdmissionEnv(scenario))
    gymnasium_check(AdmissionEnv(scenario, scale=True))  # no warning at all


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("reward", ["provider", "welfare"])
def test_replaying_the_auction_reproduces_its_result(scenario, options, reward):
    reference = lorasched.simulate(scenario, algorithm="pdftsp", **options)
    actions = reference["admitted"].values.astype(int)  # the auction's admit/reject
    result, total, _ = run_episode(AdmissionEnv(scenario, reward=reward, **options), actions)
    assert differences(result, reference, scenario) == []
    key = "provider_utility" if reward == "provider" else "welfare"
    assert total == pytest.approx(reference.attrs[key], rel=1e-12, abs=1e-12)
    assert result.attrs["gym_alpha"] == reference.attrs["pdftsp_alpha"]


def test_the_replay_fails_when_one_action_changes(scenario):
    reference = lorasched.simulate(scenario, algorithm="pdftsp")
    actions = reference["admitted"].values.astype(int)
    actions[np.flatnonzero(actions)[-1]] = 0
    result, _, _ = run_episode(AdmissionEnv(scenario), actions)
    assert {"admitted", "reason", "welfare", "n_admitted"} <= set(
        differences(result, reference, scenario))


def test_a_seeded_reset_gives_the_same_episode(scenario):
    def episode():
        env = AdmissionEnv(scenario)
        env.action_space.seed(9)
        obs, _ = env.reset(seed=9)
        trace, done = [obs], False
        while not done:
            obs, reward, done, _, info = env.step(env.action_space.sample())
            trace.append((obs, reward, info["action"]))
        return trace, info["result"]

    (a, ra), (b, rb) = episode(), episode()
    assert gymnasium.utils.env_checker.data_equivalence(a, b, exact=True)
    assert differences(ra, rb, scenario) == []
    assert ra.attrs["seed"] == 9


def test_a_refused_action_is_a_rejection_or_an_error(scenario):
    env = AdmissionEnv(scenario)
    obs, info = env.reset(seed=0)
    while info["action_mask"][1]:
        obs, _, _, _, info = env.step(0)
    task = info["task"]
    obs, reward, _, _, info = env.step(1)
    assert (info["decided"], info["action"], info["refused"], reward) == (task, 0, True, 0.0)
    strict = AdmissionEnv(scenario, invalid_action="raise")
    obs, info = strict.reset(seed=0)
    while info["action_mask"][1]:
        obs, _, _, _, info = strict.step(0)
    with pytest.raises(InputError, match=r"action 1 \(admit\) is not valid"):
        strict.step(1)
    with pytest.raises(InputError, match="action must be"):
        env.step(7)


@pytest.mark.parametrize("config, match", [
    ({"reward": "user"}, "reward must be one of"),
    ({"invalid_action": "ignore"}, "invalid_action must be one of"),
    ({"constants": "hindsight"}, "constants must be one of"),
    ({"work_resolution": 0}, "work_resolution"),
])
def test_the_configuration_is_checked(scenario, config, match):
    with pytest.raises(InputError, match=match):
        AdmissionEnv(scenario, **config)


def test_the_scenario_is_checked(scenario):
    with pytest.raises(InputError, match="xarray.Dataset"):
        AdmissionEnv(scenario.to_dict())
    with pytest.raises(InputError):
        AdmissionEnv(scenario.drop_vars("bid"))


# ------------------------------------------------------------ the fixed-size observation

#: two scenarios of other shapes than the default's (nodes, slots and vendors)
OTHERS = ({"nodes": 2, "slots": 8, "load": 2.0, "vendors": 5, "seed": 1},
          {"nodes": 7, "slots": 40, "load": 3.0, "vendors": 1, "seed": 2})


def fixed_episode(scenario, seed=0):
    """Native and fixed observations of one random episode, side by side."""
    native, fixed = AdmissionEnv(scenario), AdmissionEnv(scenario, observation="fixed")
    pairs = [(native.reset(seed=seed)[0], fixed.reset(seed=seed)[0])]
    rng = np.random.default_rng(seed)
    done = False
    while not done:
        action = int(rng.integers(3))
        a, _, done, _, _ = native.step(action)
        b, *_ = fixed.step(action)
        pairs.append((a, b))
    return fixed, pairs


def test_the_fixed_observation_space_is_the_same_for_every_scenario(scenario):
    made = [AdmissionEnv(observation="fixed"), AdmissionEnv(scenario, observation="fixed")]
    made += [AdmissionEnv(lorasched.synthetic_scenario(**s), observation="fixed")
             for s in OTHERS]
    assert all(env.observation_space == made[0].observation_space for env in made)
    assert made[0].observation_space["lam"].shape == (32, 48)
    natives = [AdmissionEnv(env.scenario).observation_space for env in made]
    assert len({space["lam"].shape for space in natives}) == len(natives)


@pytest.mark.parametrize("other", OTHERS)
def test_the_fixed_observation_is_the_native_one_padded_with_masks(other):
    scenario = lorasched.synthetic_scenario(**other)
    env, pairs = fixed_episode(scenario)
    K, N = other["nodes"], other["vendors"]
    for native, fixed in pairs:
        assert fixed in env.observation_space
        assert fixed["node_mask"].tolist() == [1] * K + [0] * (32 - K)
        assert fixed["vendor_mask"].tolist() == [1] * N + [0] * (8 - N)
        for name in ("task", "quote", "action_mask"):
            np.testing.assert_array_equal(fixed[name], native[name])
        width = int(native["window"].sum())
        assert fixed["window"].sum() == width
        np.testing.assert_array_equal(fixed["speed"][:K], native["speed"])
        np.testing.assert_array_equal(fixed["vendor_price"][:N], native["vendor_price"])
        for name in ("lam", "phi", "compute_left", "memory_left"):
            np.testing.assert_array_equal(fixed[name][:K, :width], native[name][:, :width])
            assert not fixed[name][K:].any() and not fixed[name][:, width:].any()


def test_the_fixed_episode_decides_as_the_native_one(scenario):
    reference = lorasched.simulate(scenario, algorithm="pdftsp")
    actions = reference["admitted"].values.astype(int)
    result, _, trace = run_episode(AdmissionEnv(scenario, observation="fixed"), actions)
    assert differences(result, reference, scenario) == []
    assert all(obs["lam"].shape == (32, 48) for obs in trace)


@pytest.mark.parametrize("name, what", [("max_nodes", "nodes"), ("max_vendors", "vendors"),
                                        ("max_window", "slots in a task's window")])
def test_a_scenario_beyond_the_fixed_size_is_refused_naming_the_size(scenario, name, what):
    needed = {"max_nodes": scenario.sizes["node"], "max_vendors": scenario.sizes["vendor"],
              "max_window": int((scenario["deadline"] - scenario["arrival"]).max()) + 1}[name]
    with pytest.raises(InputError, match=f"has {needed} {what}, more than {name} = "
                                         f"{needed - 1} .* pass {name}={needed} or more"):
        AdmissionEnv(scenario, observation="fixed", **{name: needed - 1})
    env = AdmissionEnv(scenario, observation="fixed", **{name: needed})  # just enough
    obs, _ = env.reset(seed=0)
    assert obs in env.observation_space


@pytest.mark.parametrize("config, match", [
    ({"max_nodes": 8}, "max_nodes sizes the fixed observation"),
    ({"observation": "fixed", "max_window": 0}, "max_window must be a positive integer"),
    ({"observation": "fixed", "max_vendors": 2.5}, "max_vendors must be a positive"),
    ({"observation": "padded"}, "observation must be one of"),
])
def test_the_fixed_sizes_are_checked(scenario, config, match):
    with pytest.raises(InputError, match=match):
        AdmissionEnv(scenario, **config)
