"""The three environments as Stable-Baselines3 and sb3-contrib take them, made by id with no
client wrapper: SB3's own check_env, and a short MaskablePPO training on each id whose
masked decisions are never invalid. Needs the extra ``lorasched[rl]`` (``make test``
installs it); without it these tests are skipped, saying so."""

from __future__ import annotations

import re
import warnings

import gymnasium
import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3",
                          reason="the extra lorasched[rl] (stable-baselines3) is not installed")
contrib = pytest.importorskip("sb3_contrib",
                              reason="the extra lorasched[rl] (sb3-contrib) is not installed")

from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402

from lorasched import gym  # noqa: E402
from lorasched.model.errors import InputError  # noqa: E402

#: SB3's warnings accepted, and why: its check recommends flattening a 2-D Box (pdFTSP's
#: grids of nodes by slots, TITAN's throughput table, Allpass's queue rows); the
#: MultiInputPolicy's extractor flattens each part itself, so the shapes are kept as the
#: quantities are
UNCONVENTIONAL_SHAPE = r"has an unconventional shape"
#: each id's actions the mask leaves invalid anyway (TITAN's joint rules: GPUs across slots,
#: one job in two slots), which the environment clips and reports
JOINT_RULES = {"titan"}


def sb3_warnings(env) -> list[str]:
    """The warnings of SB3's check_env on ``env`` beyond the accepted ones."""
    accepted = [UNCONVENTIONAL_SHAPE]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, warn=True, skip_render_check=True)
    return [str(w.message) for w in caught
            if not any(re.search(a, str(w.message)) for a in accepted)]


@pytest.mark.parametrize("scale", [False, True], ids=["native", "scaled"])
@pytest.mark.parametrize("system", list(gym.IDS))
def test_sb3_check_env_has_nothing_of_substance_to_say(system, scale):
    env = gymnasium.make(gym.IDS[system], scale=scale)
    assert sb3_warnings(env.unwrapped) == []


def test_sb3_check_env_flags_an_action_space_starting_below_0():
    """The check above can fail: Provisioning's old ``Discrete(9, start=-4)``, which SB3
    samples as 0..8; the warning is one the check does not accept."""
    env = gymnasium.make(gym.IDS["allpass"], scale=True).unwrapped
    env.action_space = gymnasium.spaces.Discrete(env.action_space.n, start=-4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(InputError):  # then a sampled -4..4 is refused, as 0..8 were
            check_env(env, warn=True, skip_render_check=True)
    said = [str(w.message) for w in caught]
    assert any("non-zero start" in w and not re.search(UNCONVENTIONAL_SHAPE, w)
               for w in said)


@pytest.mark.parametrize("system", list(gym.IDS))
def test_maskable_ppo_trains_on_each_id_and_its_masked_actions_are_valid(system):
    seeds = [0, 1, 2]
    env = gymnasium.make(gym.IDS[system], scale=True, scenario_seeds=seeds)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=64, n_epochs=2,
                        seed=0, device="cpu", verbose=0)
    model.learn(total_timesteps=128)
    assert model.num_timesteps >= 128
    # the trained policy, masked, on a held-out scenario: every decision valid as taken
    test = gymnasium.make(gym.IDS[system], scale=True)
    obs, _ = test.reset(seed=0, options={"scenario_seed": gym.held_out_seeds(1)[0]})
    invalid, steps, done = 0, 0, False
    while not done and steps < 400:
        masks = test.unwrapped.action_masks()
        action, _ = model.predict(obs, action_masks=masks, deterministic=True)
        flat = np.atleast_1d(action)
        if system == "titan":   # one choice a slot: each must be a True of its own row
            rows = masks.reshape(flat.size, -1)
            assert rows[np.arange(flat.size), flat].all()
        else:
            assert masks[int(flat[0])]
        obs, _, terminated, truncated, info = test.step(action)
        invalid += bool(info.get("refused", False) or info.get("clipped", False))
        steps += 1
        done = terminated or truncated
    if system not in JOINT_RULES:
        assert invalid == 0
