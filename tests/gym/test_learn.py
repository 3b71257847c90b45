"""Learned policies (lorasched.gym.learn): the random and paper policies are seeded and
paired on held-out scenarios, the paper's policy gives the system's own result, the
metrics and returns are the results', a short training runs on every environment, the
inputs are checked, and the kept runs are those the code would make."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from lorasched import simulate
from lorasched.gym import IDS, held_out_seeds, learn
from lorasched.gym import allpass as gym_allpass
from lorasched.gym import pdftsp as gym_pdftsp
from lorasched.gym import titan as gym_titan
from lorasched.model.errors import InputError

SYSTEMS = {IDS["pdftsp"]: ("pdftsp", gym_pdftsp), IDS["titan"]: ("titan", gym_titan),
           IDS["allpass"]: ("allpass", gym_allpass)}
SEEDS = held_out_seeds(2)
NEEDS_SB3 = "training needs the extra rl (torch, stable-baselines3, sb3-contrib)"
#: each environment's options in the kept runs' first configuration of it
OPTIONS = {env_id: next(c["env_options"] for c in learn.RUNS["configs"].values()
                        if c["env_id"] == env_id) for env_id in learn.ENV_IDS}


def without_timing(out: dict) -> dict:
    return {k: v for k, v in out.items() if k != "seconds_per_decision"}


@pytest.mark.parametrize("policy", ["random", "paper"])
@pytest.mark.parametrize("env_id", learn.ENV_IDS)
def test_random_and_paper_give_the_same_numbers_twice(env_id, policy):
    first = learn.evaluate(env_id, policy, SEEDS, seed=0)
    again = learn.evaluate(env_id, policy, SEEDS, seed=0)
    assert without_timing(first) == without_timing(again)
    assert first["scenario_seed"] == SEEDS
    assert set(first) == {"scenario_seed", "return", "decisions", "seconds_per_decision",
                          *learn.METRICS[env_id]}
    assert all(len(v) == len(SEEDS) for v in first.values())
    assert all(s >= 0 for s in first["seconds_per_decision"])


def test_the_random_policy_follows_its_seed():
    env_id = IDS["pdftsp"]
    a = learn.evaluate(env_id, "random", SEEDS, seed=0)
    b = learn.evaluate(env_id, "random", SEEDS, seed=1)
    assert a["provider_utility"] != b["provider_utility"]


@pytest.mark.parametrize("env_id", learn.ENV_IDS)
def test_the_paper_policy_gives_the_systems_own_result(env_id):
    system, module = SYSTEMS[env_id]
    got = learn.evaluate(env_id, "paper", SEEDS, seed=3)
    for i, k in enumerate(SEEDS):
        want = learn.metrics(env_id, simulate(module.default_scenario(k), system, seed=3))
        for name, value in want.items():
            assert got[name][i] == value, (k, name)


@pytest.mark.parametrize("env_id", learn.ENV_IDS)
def test_the_return_is_the_systems_objective(env_id):
    out = learn.evaluate(env_id, "random", SEEDS, seed=0)
    ret = np.array(out["return"])
    if env_id == IDS["pdftsp"]:            # the default reward: the provider's utility
        np.testing.assert_allclose(ret, out["provider_utility"], rtol=1e-9)
    elif env_id == IDS["allpass"]:         # minus the dollars
        np.testing.assert_allclose(ret, -np.array(out["cost_usd"]), rtol=1e-9)
    else:                                   # minus the total JCT
        assert (ret < 0).all()
        assert ret[0] / out["mean_jct_h"][0] == pytest.approx(ret[1] / out["mean_jct_h"][1])


def test_the_welfare_reward_sums_to_the_welfare():
    out = learn.evaluate(IDS["pdftsp"], "random", SEEDS, seed=0,
                         env_options={"reward": "welfare"})
    np.testing.assert_allclose(out["return"], out["welfare"], rtol=1e-9)


def test_the_objectives_table_has_one_row_per_environment():
    table = pd.DataFrame.from_dict(learn.OBJECTIVES, orient="index")
    assert list(table.index) == list(learn.ENV_IDS)
    assert list(table.columns) == ["system", "paper's objective", "reward", "the comparison"]
    assert table.notna().all().all()
    assert "reward='welfare'" in learn.OBJECTIVES[IDS["pdftsp"]]["reward"]


def test_training_and_held_out_seeds_are_apart():
    assert not set(held_out_seeds()) & set(learn.TRAINING_SEEDS)


@pytest.mark.parametrize("call, match", [
    (lambda: learn.evaluate("CartPole-v1", "paper", SEEDS, seed=0), "env_id"),
    (lambda: learn.evaluate(IDS["titan"], "greedy", SEEDS, seed=0), "policy"),
    (lambda: learn.evaluate(IDS["titan"], "learned", SEEDS, seed=0), "model"),
    (lambda: learn.evaluate(IDS["titan"], "paper", SEEDS, seed=0, model=object()), "model"),
    (lambda: learn.evaluate(IDS["titan"], "paper", [], seed=0), "scenario_seeds"),
    (lambda: learn.evaluate(IDS["titan"], "paper", [-1], seed=0), "scenario_seeds"),
    (lambda: learn.evaluate(IDS["titan"], "paper", 10_000, seed=0), "scenario_seeds"),
    (lambda: learn.evaluate(IDS["titan"], "paper", SEEDS, seed=-1), "seed"),
    (lambda: learn.evaluate(IDS["titan"], "paper", SEEDS, seed=0, env_options=[1]),
     "env_options"),
    (lambda: learn.evaluate(IDS["titan"], "paper", SEEDS, seed=0,
                            env_options={"scale": False}), "env_options"),
    (lambda: learn.train(IDS["titan"], steps=0, seed=0), "steps"),
    (lambda: learn.train(IDS["titan"], steps=10, seed=True), "seed"),
    (lambda: learn.train(IDS["titan"], steps=10, seed=0, algorithm="dqn"), "algorithm"),
    (lambda: learn.train(IDS["titan"], steps=10, seed=0, hyperparameters={"lr": 1}),
     "hyperparameter"),
    (lambda: learn.metrics("titan", None), "env_id"),
])
def test_bad_inputs_are_refused_by_name(call, match):
    with pytest.raises(InputError, match=match):
        call()


def test_importing_the_module_imports_neither_torch_nor_sb3():
    code = ("import sys, lorasched.gym.learn; "
            "print(sorted({'torch', 'stable_baselines3', 'sb3_contrib'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_training_without_the_extra_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)   # import fails
    with pytest.raises(InputError, match=r'pip install "lorasched\[rl\]"'):
        learn.train(IDS["allpass"], steps=10, seed=0)


@pytest.mark.parametrize("env_id", learn.ENV_IDS)
def test_a_short_training_runs_and_its_model_acts(env_id):
    pytest.importorskip("sb3_contrib", reason=NEEDS_SB3)
    trained = learn.train(env_id, steps=300, seed=0,
                          hyperparameters={"n_steps": 128, "n_epochs": 2},
                          env_options=OPTIONS[env_id])
    assert trained.model.num_timesteps == 384             # whole rollouts of 128
    assert trained.steps.dtype == np.int64 and trained.returns.dtype == float
    assert trained.steps.size == trained.returns.size >= 1
    # one environment: each episode ends at its own step, the first after step 1
    assert trained.steps[0] >= 1 and np.all(np.diff(trained.steps) > 0)
    assert trained.steps[-1] <= 384
    assert trained.cpu_seconds > 0
    out = learn.evaluate(env_id, "learned", SEEDS[:1], seed=0, model=trained.model,
                         env_options=OPTIONS[env_id])
    assert out["scenario_seed"] == SEEDS[:1] and out["decisions"][0] >= 1


# -- the kept runs -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def kept():
    return learn.load_runs()


def test_the_kept_runs_were_made_with_the_codes_settings(kept):
    assert kept["settings"] == json.loads(json.dumps(learn.RUNS))
    assert kept["objectives"] == learn.OBJECTIVES
    assert kept["metrics"] == learn.METRICS
    assert set(kept["versions"]) >= {"torch", "stable_baselines3", "sb3_contrib"}
    seeds = held_out_seeds(learn.RUNS["held_out"])
    assert list(kept["runs"]) == list(learn.RUNS["configs"])
    for name, config in learn.RUNS["configs"].items():
        runs = kept["runs"][name]
        assert [r["seed"] for r in runs["learned"]] == learn.RUNS["training_seeds"]
        for r in runs["learned"]:
            assert r["steps"] >= config["steps"]
            assert r["learned"]["scenario_seed"] == seeds
            assert len(r["curve"]["steps"]) == len(r["curve"]["returns"]) > 0
        for policy in ("random", "paper"):
            assert runs[policy]["scenario_seed"] == seeds
    assert kept["cpu_seconds"] > 0


@pytest.mark.parametrize("policy", ["random", "paper"])
@pytest.mark.parametrize("name", list(learn.RUNS["configs"]))
def test_the_kept_random_and_paper_runs_are_the_codes(kept, name, policy):
    config = learn.RUNS["configs"][name]
    again = learn.evaluate(config["env_id"], policy, held_out_seeds(learn.RUNS["held_out"]),
                           seed=learn.RUNS["evaluation_seed"],
                           env_options=config["env_options"])
    assert without_timing(again) == without_timing(kept["runs"][name][policy])


def test_the_kept_tiny_run_trains_again_bit_for_bit(kept):
    pytest.importorskip("sb3_contrib", reason=NEEDS_SB3)
    t = learn.RUNS["tiny"]
    config = learn.RUNS["configs"][t["config"]]
    again = learn.run_one(config["env_id"], steps=t["steps"], seed=t["seed"],
                          held_out=t["held_out"], evaluation_seed=learn.RUNS["evaluation_seed"],
                          env_options=config["env_options"],
                          hyperparameters=learn.RUNS["hyperparameters"])
    again = json.loads(json.dumps(again))
    tiny = kept["tiny"]
    assert again["curve"] == tiny["curve"]
    assert again["steps"] == tiny["steps"]
    assert without_timing(again["learned"]) == without_timing(tiny["learned"])
