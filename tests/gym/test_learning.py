"""What a learning library needs of lorasched's environments, on all three: actions from
0, ``action_masks()`` reachable through Gymnasium's wrappers, invalid actions reported,
counted and optionally penalised, true bounds and a scaled observation, the Box keys,
seeded scenario families with held-out seeds, and defaults whose every observation part
moves under random play."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import lorasched  # noqa: E402
from lorasched import gym  # noqa: E402
from lorasched.allpass.env import P_CAP  # noqa: E402
from lorasched.gym import allpass, bench, common, pdftsp, titan  # noqa: E402
from lorasched.model.errors import InputError  # noqa: E402

MODULES = {"pdftsp": pdftsp, "titan": titan, "allpass": allpass}
SYSTEMS = sorted(gym.IDS)


def make(system, **config):
    return gymnasium.make(gym.IDS[system], **config)


def masked_play(env, seed=0, steps=None):
    """(observations, infos, rewards) of one episode of masked random play (``steps``:
    stop early)."""
    obs, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    observations, infos, rewards = [obs], [info], []
    done = False
    while not done and (steps is None or len(rewards) < steps):
        obs, reward, terminated, truncated, info = env.step(bench.masked_sample(env))
        observations.append(obs)
        infos.append(info)
        rewards.append(reward)
        done = terminated or truncated
    return observations, infos, rewards


# ------------------------------------------------------------------ 1. actions from 0


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_action_space_starts_at_0(system):
    space = make(system).action_space
    assert np.all(np.asarray(space.start) == 0)


def test_provisioning_action_i_asks_a_change_of_i_minus_k_and_info_gives_the_applied_one():
    env = make("allpass", max_step=3)
    assert env.action_space == gymnasium.spaces.Discrete(7)
    env.reset(seed=0)
    seen = set()
    for i in [6, 6, 0, 3, 5, 1] * 30:
        mask = env.unwrapped.action_masks()
        _, _, done, _, info = env.step(i)
        assert info["asked"] == i - 3
        assert info["clipped"] == (not mask[i]) == (info["change"] != info["asked"])
        possible = np.flatnonzero(mask) - 3
        assert info["change"] == min(max(i - 3, possible.min()), possible.max())
        seen.add((info["asked"], info["change"]))
        if done:
            break
    assert any(a != c for a, c in seen) and any(a == c != 0 for a, c in seen)


def test_provisioning_actions_replay_the_signed_changes_of_the_problem():
    """Action ``i`` of the environment is the problem's change ``i - K``: the same
    episode, step by step."""
    from lorasched.allpass.env import ProvisioningProblem

    env = allpass.ProvisioningEnv()
    obs, _ = env.reset(seed=3)
    problem = ProvisioningProblem(env._arrays, np.random.default_rng(3))
    rng = np.random.default_rng(0)
    done = False
    while not done:
        i = int(rng.integers(9))
        obs, reward, done, _, info = env.step(i)
        want, _ = problem.step(i - 4)
        assert reward == want
        for key, value in problem.observe().items():
            np.testing.assert_array_equal(obs[key], value)


# ----------------------------------------------------------------- 2. action_masks()


@pytest.mark.parametrize("system, shape", [("pdftsp", lambda e: 3),
                                           ("allpass", lambda e: 9),
                                           ("titan", lambda e: e.problem.max_units
                                            * (e.arrays.allocations.size + 1))])
def test_action_masks_is_a_flat_bool_array_reached_through_gymnasiums_wrappers(system,
                                                                              shape):
    env = make(system)
    assert isinstance(env, gymnasium.Wrapper)  # gymnasium.make's wrappers
    env.reset(seed=0)
    masks = env.get_wrapper_attr("action_masks")()  # what sb3-contrib calls
    assert masks.dtype == bool and masks.shape == (shape(env.unwrapped),)
    np.testing.assert_array_equal(masks, env.unwrapped.action_masks())
    envs = gymnasium.make_vec(gym.IDS[system], num_envs=2, vectorization_mode="sync")
    envs.reset(seed=0)
    assert [m.shape for m in envs.call("action_masks")] == [masks.shape] * 2
    envs.close()


def test_allocations_mask_is_each_slots_row_of_indices_row_by_row():
    for observation in gym.OBSERVATIONS:
        env = make("titan", observation=observation).unwrapped
        obs, _ = env.reset(seed=0)
        rows = obs["action_mask"]
        np.testing.assert_array_equal(env.action_masks(), rows.reshape(-1).astype(bool))
        nvec = env.action_space.nvec
        assert env.action_masks().size == nvec.sum() and rows.shape == (nvec.size,
                                                                        nvec[0])
        assert rows[:, 0].all()  # no GPUs: valid in every slot


@pytest.mark.parametrize("system", ["pdftsp", "allpass"])
def test_a_masked_agent_takes_no_invalid_action(system):
    env = make(system)
    _, infos, _ = masked_play(env, seed=2)
    flag = "refused" if system == "pdftsp" else "clipped"
    assert not any(info[flag] for info in infos[1:])
    assert infos[-1]["invalid_actions"] == 0
    assert not env.unwrapped.action_masks().any()  # the episode is over


@pytest.mark.parametrize("system, always", [("pdftsp", 0), ("allpass", 4)])
def test_reject_and_no_change_are_always_valid(system, always):
    env = make(system)
    env.reset(seed=0)
    env.action_space.seed(0)
    done, valid = False, []
    while not done:
        valid.append(env.unwrapped.action_masks()[always])
        *_, done, _, _ = env.step(bench.masked_sample(env))
    assert all(valid)


def test_provisioning_masks_need_an_episode():
    with pytest.raises(InputError, match="action_masks needs an episode: call reset"):
        allpass.ProvisioningEnv().action_masks()


def test_a_masked_allocation_is_clipped_only_for_its_joint_constraints():
    env = make("titan").unwrapped
    env.reset(seed=0)
    env.action_space.seed(0)
    clipped = 0
    while True:
        rows = env.action_masks().reshape(env.action_space.nvec.size, -1)
        action = bench.masked_sample(env)
        assert rows[np.arange(action.size), action].all()  # each slot's choice allowed
        _, _, done, _, info = env.step(action)
        applied = info["action"]
        assert info["clipped"] == (not np.array_equal(applied, action))
        if info["clipped"]:  # the GPUs together, or one job in two slots
            clipped += 1
            gpus = np.r_[0, env.arrays.allocations]
            members = env.problem._members
            assert gpus[action].sum() > env.arrays.gpus or any(
                set(members[a]) & set(members[b]) for a in np.flatnonzero(action)
                for b in np.flatnonzero(action) if a < b and a < len(members)
                and b < len(members)) or not action.any()
        if done:
            break
    assert info["invalid_actions"] == clipped > 0


# --------------------------------------------------------------- 3. invalid actions


def _ignoring_the_mask(system, penalty, seed=4, **config):
    """An episode of actions drawn from the whole space; (rewards, infos)."""
    env = make(system, invalid_penalty=penalty, **config)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    rewards, infos, done = [], [], False
    while not done:
        _, reward, done, _, info = env.step(env.action_space.sample())
        rewards.append(reward)
        infos.append(info)
    return np.array(rewards), infos


@pytest.mark.parametrize("system, flag", [("pdftsp", "refused"), ("titan", "clipped"),
                                          ("allpass", "clipped")])
def test_invalid_actions_are_reported_counted_and_penalised(system, flag):
    plain, infos = _ignoring_the_mask(system, 0.0)
    invalid = np.array([info[flag] for info in infos])
    assert invalid.any() and (system == "titan" or not invalid.all())  # 47 random slots:
    # every one of TITAN's is clipped
    assert "invalid_actions" in infos[-1] and "invalid_actions" not in infos[0]
    assert infos[-1]["invalid_actions"] == invalid.sum()
    penalised, again = _ignoring_the_mask(system, 2.5)
    assert [info[flag] for info in again] == invalid.tolist()  # the same episode
    np.testing.assert_allclose(penalised, plain - 2.5 * invalid, rtol=0, atol=1e-12)
    result = infos[-1]["result"]  # the penalty never enters the system's result
    assert result.identical(again[-1]["result"].assign_attrs(
        wall_seconds=result.attrs["wall_seconds"])) or system != "allpass"


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("penalty", [-1.0, math.inf, "1", True])
def test_the_penalty_is_a_non_negative_finite_number(system, penalty):
    with pytest.raises(InputError, match="invalid_penalty must be a non-negative finite"):
        make(system, invalid_penalty=penalty)


def test_provisioning_can_refuse_an_action_the_mask_refuses():
    env = make("allpass", invalid_action="raise")
    env.reset(seed=0)
    mask = env.unwrapped.action_masks()
    with pytest.raises(InputError, match=r"asks a change of [+-]\d+ serverful workers; "
                                         r"possible now"):
        env.step(int(np.flatnonzero(~mask)[0]))
    env.step(int(np.flatnonzero(mask)[0]))  # a valid one goes through
    with pytest.raises(InputError, match="invalid_action must be one of"):
        make("allpass", invalid_action="ignore")


# ------------------------------------------------------------------ 4. true bounds


#: the finite bounds the environments keep, each true: part -> why
FINITE = {"pressure": "p is observed capped at P_CAP", "prices": "the conventional price"}


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("observation", gym.OBSERVATIONS)
def test_no_box_bound_is_a_huge_stand_in_for_infinity(system, observation):
    space = make(system, observation=observation).observation_space
    unbounded = 0
    for key, part in space.spaces.items():
        if not isinstance(part, gymnasium.spaces.Box):
            continue
        if np.issubdtype(part.dtype, np.integer):
            big = part.high[part.bounded_above]   # inf is stored as int64's largest
        else:
            big = part.high[np.isfinite(part.high)]
            unbounded += int(np.isinf(part.high).sum())
        low = part.low[np.isfinite(part.low)] if part.dtype.kind == "f" else part.low
        if key == "pressure":
            assert part.high[0] == P_CAP and np.isinf(part.high[1:]).all()
            continue
        assert (np.abs(big) < 1e6).all() and (np.abs(low) < 1e6).all(), key
    assert unbounded > 0


def test_the_pressure_is_observed_at_its_cap_when_infinite():
    env = make("allpass")
    observations, _, _ = masked_play(env, seed=0)
    p = np.array([o["pressure"][0] for o in observations])
    assert (p == P_CAP).any() and (p[p < P_CAP] < 1e3).all()  # far below the cap
    assert all(o in env.observation_space for o in observations)


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("observation", gym.OBSERVATIONS)
def test_the_scaled_observation_lies_in_0_1_or_minus_1_1_and_in_its_space(system,
                                                                         observation):
    env = make(system, observation=observation, scale=True)
    for key, part in env.observation_space.spaces.items():
        if isinstance(part, gymnasium.spaces.Box):
            assert part.dtype == np.float64
            assert set(np.unique(part.low)) <= {-1.0, 0.0}, key
            assert (part.high == 1.0).all(), key
    observations, _, _ = masked_play(env, seed=1)
    assert all(o in env.observation_space for o in observations)
    env.reset(seed=1)
    env.action_space.seed(1)
    for _ in range(60):  # and an agent that ignores the mask
        obs, _, done, _, _ = env.step(env.action_space.sample())
        assert obs in env.observation_space
        if done:
            break


def _both(system, steps=40, **config):
    """The unscaled and the scaled observations of the same masked actions."""
    raw, scaled = make(system, **config), make(system, scale=True, **config)
    a, _ = raw.reset(seed=5)
    b, _ = scaled.reset(seed=5)
    rng = np.random.default_rng(5)
    pairs = [(a, b)]
    for _ in range(steps):
        masks = raw.unwrapped.action_masks()
        if system == "titan":
            rows = masks.reshape(raw.action_space.nvec.size, -1)
            action = np.array([rng.choice(np.flatnonzero(r)) for r in rows])
        else:
            action = int(rng.choice(np.flatnonzero(masks)))
        a, _, done, _, _ = raw.step(action)
        b, *_ = scaled.step(action)
        pairs.append((a, b))
        if done:
            break
    return raw.unwrapped, pairs


def test_the_scaled_admission_observation_is_the_documented_transform():
    env, pairs = _both("pdftsp")
    u, a = pdftsp.UNITS, env.arrays
    for raw, s in pairs:
        np.testing.assert_allclose(s["task"][:3], common.squash(raw["task"][:3], [
            u["money"], u["samples"], u["memory"]]))
        np.testing.assert_allclose(s["task"][3:5], raw["task"][3:5] / a.n_slots)
        np.testing.assert_allclose(s["lam"], common.squash(raw["lam"], 1e-4))
        np.testing.assert_allclose(s["phi"], common.squash(raw["phi"], 0.1))
        np.testing.assert_allclose(
            s["compute_left"], raw["compute_left"] / a.compute_capacity[:, None])
        np.testing.assert_allclose(s["memory_left"], np.clip(
            raw["memory_left"] / a.memory_capacity[:, None], 0, 1))
        np.testing.assert_array_equal(s["window"], raw["window"])
        np.testing.assert_array_equal(s["action_mask"], raw["action_mask"])
        np.testing.assert_allclose(s["speed"], common.squash(raw["speed"], 1e4))
        np.testing.assert_allclose(s["vendor_price"], common.squash(raw["vendor_price"], 1))
        np.testing.assert_allclose(s["vendor_delay"], common.squash(raw["vendor_delay"], 10))
        q = dict(zip(lorasched.pdftsp.env.QUOTE_FEATURES, raw["quote"], strict=True))
        want = [q["feasible"], common.squash(q["vendor"], 1.0)] + [
            common.squash(q[k], 1.0) for k in ("surplus", "payment", "posted_price",
                                               "welfare", "vendor_price", "op_cost")] + [
            common.squash(q["lam_hat"], 1e-4), common.squash(q["phi_hat"], 0.1),
            common.squash(q["samples"], 1e4), common.squash(q["n_cells"], 10.0)]
        np.testing.assert_allclose(s["quote"], want)


def test_the_scaled_allocation_observation_is_the_documented_transform():
    env, pairs = _both("titan")
    M = env.arrays.gpus
    for raw, s in pairs:
        np.testing.assert_allclose(s["free_gpus"], raw["free_gpus"] / M)
        np.testing.assert_allclose(s["gpus"], raw["gpus"] / M)
        for key, unit in titan.UNITS.items():
            np.testing.assert_allclose(s[key], common.squash(raw[key], unit))
        for key in ("mask", "action_mask", "conflicts"):
            np.testing.assert_array_equal(s[key], raw[key])


def test_the_scaled_provisioning_observation_is_the_documented_transform():
    env, pairs = _both("allpass", steps=200)
    u, n, cap = allpass.UNITS, env._arrays.submit.size, env._arrays.capacity
    conventional = lorasched.allpass.clouds.PROVIDERS["lambda"].price_per_gpu_h
    for raw, s in pairs:
        np.testing.assert_allclose(s["time"], common.squash(raw["time"], 3600.0))
        np.testing.assert_allclose(s["jobs"], raw["jobs"] / n)
        np.testing.assert_allclose(s["queue"], common.squash(raw["queue"], 3600.0))
        np.testing.assert_allclose(s["queue_summary"][0], raw["queue_summary"][0] / n)
        np.testing.assert_allclose(s["workers"], raw["workers"] / cap)
        np.testing.assert_allclose(s["pressure"], common.squash(
            raw["pressure"], [1.0, u["demand"], u["window"]]))
        np.testing.assert_allclose(s["prices"], raw["prices"] / conventional)
        assert s["pressure"][0] < 1.0  # P_CAP: 1 - 1e-6
        np.testing.assert_allclose(s["queue_summary"][1:], common.squash(
            raw["queue_summary"][1:], 3600.0))
        np.testing.assert_allclose(s["F"], common.squash(raw["F"], 600.0))
        np.testing.assert_allclose(s["free_offers"], common.squash(raw["free_offers"], 50))
        np.testing.assert_array_equal(s["queue_mask"], raw["queue_mask"])
    assert any(raw["queue_mask"].any() for raw, _ in pairs)  # a queue was scaled


def test_the_scaled_workers_of_a_scenario_with_no_cap_are_squashed():
    scenario = lorasched.allpass_scenario(jobs=6, source="helios", capacity="none",
                                          sizing="trace", book_hours=1, seed=0)
    raw = allpass.ProvisioningEnv(scenario)
    scaled = allpass.ProvisioningEnv(scenario, scale=True)
    assert math.isinf(raw.observation_space["workers"].high[0])
    a, _ = raw.reset(seed=0)
    b, _ = scaled.reset(seed=0)
    for _ in range(20):
        np.testing.assert_allclose(b["workers"], common.squash(a["workers"], 10.0))
        a, _, done, _, _ = raw.step(8)  # add four each minute: no cap stops them
        b, *_ = scaled.step(8)
        if done:
            break
    assert a["workers"][0] > 4 and b in scaled.observation_space


def test_squash_and_fraction_keep_their_documented_ranges():
    x = np.array([-np.inf, -2.0, -1.0, 0.0, 1.0, 3.0, np.inf])
    np.testing.assert_allclose(common.squash(x, 1.0), [-1, -2 / 3, -0.5, 0, 0.5, 0.75, 1])
    assert np.all(np.diff(common.squash(x, 7.0)) > 0)  # increasing
    np.testing.assert_allclose(common.fraction([0, 2, 5, 3], [4, 4, 4, 0]),
                               [0, 0.5, 1, 0])


@pytest.mark.parametrize("system", SYSTEMS)
def test_scale_is_true_or_false(system):
    with pytest.raises(InputError, match="scale must be True or False"):
        make(system, scale="yes")


# -------------------------------------------------------------------- 5. Box keys


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("config", [{}, {"scale": True}, {"observation": "fixed"}])
def test_box_keys_are_the_box_parts_and_the_modules_tuple(system, config):
    env = make(system, **config)
    keys = env.get_wrapper_attr("box_keys")
    parts = env.observation_space.spaces
    assert keys == tuple(k for k in parts if isinstance(parts[k], gymnasium.spaces.Box))
    assert all(isinstance(parts[k], gymnasium.spaces.MultiBinary)
               for k in parts if k not in keys)
    extra = ("allocations",) if system == "titan" and config.get("observation") else ()
    assert keys == tuple(sorted(MODULES[system].BOX_KEYS + extra))


# ------------------------------------------------------- 6. scenarios from a family


def test_held_out_seeds_are_kept_for_evaluation():
    assert gym.HELD_OUT_SEEDS == range(10_000, 10_100)
    assert gym.held_out_seeds() == list(range(10_000, 10_100))
    assert gym.held_out_seeds(3) == [10_000, 10_001, 10_002]
    for n in (0, 101, 2.0, True):
        with pytest.raises(InputError, match="n must be an integer in 1..100"):
            gym.held_out_seeds(n)


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_family_is_drawn_per_reset_with_the_environments_generator(system):
    family = (3, 5, 8)
    env = make(system, scenario_seeds=family)
    module = MODULES[system]
    drawn = []
    for k in range(8):
        _, info = env.reset(seed=k)
        drawn.append(info["scenario_seed"])
        assert env.unwrapped.scenario.identical(module.default_scenario(drawn[-1]))
    assert set(drawn) <= set(family) and len(set(drawn)) > 1
    other = make(system, scenario_seeds=family)
    assert [other.reset(seed=k)[1]["scenario_seed"] for k in range(8)] == drawn
    expected = [family[np.random.default_rng(k).integers(3)] for k in range(8)]
    assert drawn == expected  # np_random's first draw picks it


@pytest.mark.parametrize("system", SYSTEMS)
def test_reset_runs_one_seeds_default_scenario_for_one_episode(system):
    env = make(system)
    module = MODULES[system]
    seed = gym.held_out_seeds(1)[0]
    _, info = env.reset(seed=0, options={"scenario_seed": seed})
    assert info["scenario_seed"] == seed
    assert env.unwrapped.scenario.identical(module.default_scenario(seed))
    masked_play(env, seed=0, steps=5)
    _, info = env.reset(seed=0)  # back to the environment's own
    assert info["scenario_seed"] == 0
    assert env.unwrapped.scenario.identical(module.default_scenario())


@pytest.mark.parametrize("system", SYSTEMS)
def test_unknown_reset_options_are_refused_by_name(system):
    env = make(system)
    with pytest.raises(InputError, match=r"unknown option\(s\) \['seed', 'x'\]; it reads "
                                         r"\['scenario_seed'\]"):
        env.reset(seed=0, options={"x": 1, "seed": 2, "scenario_seed": 1})
    with pytest.raises(InputError, match="scenario_seed'\\] must be a non-negative"):
        env.reset(options={"scenario_seed": -1})
    env.reset(options={})  # empty: accepted
    given = make(system, scenario=MODULES[system].default_scenario(1))
    assert given.reset(seed=0)[1]["scenario_seed"] is None
    with pytest.raises(InputError, match="runs the scenario it was given"):
        given.reset(options={"scenario_seed": 2})


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("config, match", [
    ({"scenario_seeds": [1, 10_050, 2]}, r"holds 10050, a held-out seed"),
    ({"scenario_seeds": []}, "at least one seed"),
    ({"scenario_seeds": [1, -2]}, "each of scenario_seeds must be a non-negative"),
    ({"scenario_seeds": "123"}, "sequence of non-negative integers"),
    ({"scenario_seeds": [1], "scenario_seed": 2}, "not both"),
])
def test_a_family_is_checked(system, config, match):
    with pytest.raises(InputError, match=match):
        make(system, **config)
    with pytest.raises(InputError, match="pass it without scenario"):
        make(system, scenario=MODULES[system].default_scenario(), scenario_seeds=[1])


@pytest.mark.parametrize("system, resize", [
    ("pdftsp", {"nodes": 5}), ("titan", {"jobs": 12}), ("allpass", {"jobs": 7})])
def test_a_drawn_scenario_that_needs_other_spaces_is_refused_naming_the_parts(system,
                                                                            resize):
    env = make(system, scenario_seeds=[1, 2])
    scenarios = env.unwrapped._scenarios
    build = scenarios._build
    scenarios._build = lambda **kw: build(**{**kw, **(resize if kw["seed"] == 7 else {})})
    with pytest.raises(InputError, match=r"default scenario of seed 7 needs the "
                                         r"(observation part\(s\) \[|action space)"):
        env.reset(seed=0, options={"scenario_seed": 7})
    env.reset(seed=0, options={"scenario_seed": 2})  # its own shape: accepted
    if system != "allpass":  # Allpass's fixed observation differs only in bounds
        fixed = make(system, observation="fixed", scenario_seeds=[1, 2]).unwrapped
        fixed._scenarios._build = scenarios._build
        obs, _ = fixed.reset(seed=0, options={"scenario_seed": 7})
        assert obs in fixed.observation_space


def test_built_scenarios_are_kept_per_seed_up_to_the_cache():
    env = allpass.ProvisioningEnv(scenario_seeds=[1, 2])
    scenarios, calls = env._scenarios, []
    build = scenarios._build
    scenarios._build = lambda **kw: calls.append(kw["seed"]) or build(**kw)
    for k in range(6):
        env.reset(seed=k)
    assert calls == [2]  # seed 1 was built when the environment was made
    for seed in range(100, 100 + common.CACHED_SCENARIOS):
        scenarios.get(seed)
    assert 1 not in scenarios._cache and len(scenarios._cache) == common.CACHED_SCENARIOS


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_vector_of_a_family_steps(system):
    envs = gymnasium.make_vec(gym.IDS[system], num_envs=2, vectorization_mode="sync",
                              scenario_seeds=range(4))
    _, info = envs.reset(seed=0)
    assert set(info["scenario_seed"]) <= set(range(4))
    envs.step(envs.action_space.sample())
    envs.close()


# ------------------------------------------------ 7. defaults that move every part


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("scale", [False, True])
def test_every_part_of_the_default_observation_moves_under_masked_random_play(system,
                                                                            scale):
    assert bench.frozen_parts(make(system, scale=scale)) == []  # 5 episodes


def test_frozen_parts_names_a_part_that_never_moves():
    paper = lorasched.titan_scenario(jobs=24, nodes=2, oversize="cap", seed=0)
    # the paper's setup is not preemptive: no unit in the system is ever a candidate
    assert bench.frozen_parts(make("titan", scenario=paper)) == ["attained_gpu_s", "gpus"]
    # the mixture's ten jobs never make p move while an agent acts (only the final
    # observation, after the end, has p = 0: it does not count)
    mixture = lorasched.allpass_scenario(jobs=10, capacity=4, sizing="trace", book_hours=2,
                                         seed=0)
    assert "pressure" in bench.frozen_parts(make("allpass", scenario=mixture))
    # the fixed observation's masks of one scenario's nodes and vendors
    assert bench.frozen_parts(make("pdftsp", observation="fixed"), episodes=1) == [
        "node_mask", "vendor_mask"]
    with pytest.raises(InputError, match="episodes must be a positive integer"):
        bench.frozen_parts(make("pdftsp"), episodes=0)


def test_a_random_episode_can_follow_the_mask():
    env = make("allpass")
    free = bench.random_episode(env, seed=3)
    masked = bench.random_episode(env, seed=3, masked=True)
    assert free["ended"] and masked["ended"] and free["reward"] != masked["reward"]
    env.reset(seed=0)
    env.action_space.seed(0)
    masks = env.unwrapped.action_masks()
    assert all(masks[bench.masked_sample(env)] for _ in range(50))
    with pytest.raises(InputError, match="has no action_masks"):
        bench.masked_sample(gymnasium.make("CartPole-v1"))

    class Boxed(gymnasium.Env):
        action_space = gymnasium.spaces.Box(0, 1, (2,))
        observation_space = gymnasium.spaces.Box(0, 1, (1,))

        def action_masks(self):
            return np.ones(2, dtype=bool)

    with pytest.raises(InputError, match="needs a Discrete or MultiDiscrete action space"):
        bench.masked_sample(Boxed())


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_render_mode_is_refused_with_the_typeerror_libraries_fall_back_on(system):
    """Stable-Baselines3's make_vec_env tries ``render_mode="rgb_array"`` first and makes
    the environment again without it on a TypeError; none renders."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium's: not in the render modes
        with pytest.raises(TypeError, match="unexpected keyword argument 'render_mode'"):
            make(system, render_mode="rgb_array")
