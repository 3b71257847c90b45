"""pdFTSP's admission problem (lorasched.pdftsp.env): the random policy, the action mask,
the rewards and the replay of the auction's own decisions."""

from __future__ import annotations

import numpy as np
import pytest

import lorasched
from lorasched.model.errors import InputError
from lorasched.pdftsp import auction, env
from lorasched.pdftsp.env import ACTIONS, QUOTE_FEATURES, AdmissionProblem
from lorasched.pdftsp.policies import REGISTRY
from lorasched.pdftsp.result import assemble
from lorasched.pdftsp.system import TIMINGS, measure

#: a tiny, overloaded day: every reason of the auction occurs (admitted, no feasible
#: schedule, negative surplus)
SMALL = {"nodes": 3, "slots": 10, "load": 8.0, "vendors": 2, "seed": 3}
#: the auction's options: its defaults, and constants as the calibrated figures pass them
#: (explicit alpha and beta from the scanned grid) with eq. (14)'s payment
OPTIONS = [{}, {"alpha": 1.0, "beta": 30.0, "payment": "paper"}]
#: Decisions' fields that are not timings
FIELDS = ("admitted", "chosen_vendor", "payment", "reason", "surplus", "cell_task",
          "cell_node", "cell_slot", "lam", "phi")


@pytest.fixture(scope="module")
def scenario():
    return lorasched.synthetic_scenario(**SMALL)


@pytest.fixture(scope="module")
def arrays(scenario):
    return lorasched.pdftsp.to_arrays(scenario)


def replay(arrays, actions, **options) -> tuple[AdmissionProblem, list[float]]:
    problem = AdmissionProblem(arrays, np.random.default_rng(0), **options)
    rewards = [problem.step(a)[0] for a in actions]
    assert problem.done
    return problem, rewards


def assert_same_decisions(a, b) -> None:
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.attrs == b.attrs


@pytest.mark.parametrize("options", OPTIONS)
def test_replaying_the_auction_gives_its_decisions(arrays, options):
    built_in = auction.run(arrays, np.random.default_rng(0), **options)
    assert set(built_in.reason) == {"admitted", "no_feasible_schedule", "negative_surplus"}
    actions = built_in.admitted.astype(int)  # 1 where the auction admits, else 0
    problem = AdmissionProblem(arrays, np.random.default_rng(0), **options)
    experts = []
    for a in actions:
        experts.append(problem.expert_action())
        problem.step(a)
    assert experts == actions.tolist()
    assert_same_decisions(problem.output(), built_in)


def test_a_changed_action_changes_the_replay(arrays):
    built_in = auction.run(arrays, np.random.default_rng(0))
    actions = built_in.admitted.astype(int)
    first = int(np.flatnonzero(actions)[0])
    actions[first] = 0
    problem, _ = replay(arrays, actions)
    changed = problem.output()
    assert changed.reason[first] == "not_selected"
    with pytest.raises(AssertionError):
        assert_same_decisions(changed, built_in)


def test_random_policy_is_reproducible_and_valid(scenario):
    assert list(REGISTRY)[-1] == "random"
    runs = [lorasched.simulate(scenario, algorithm="random", seed=s) for s in (4, 4, 5)]
    for r in runs:
        lorasched.check_result(r)
    same = [{k: v for k, v in measure(scenario, r).items() if k not in TIMINGS}
            for r in runs]
    assert same[0] == same[1]
    np.testing.assert_array_equal(runs[0]["admitted"], runs[1]["admitted"])
    assert not np.array_equal(runs[0]["reason"], runs[2]["reason"])


def test_random_policy_takes_the_auction_options(scenario):
    r = lorasched.simulate(scenario, algorithm="random", seed=1, alpha=1.0, beta=30.0,
                           payment="paper")
    lorasched.check_result(r)
    assert (r.attrs["random_alpha"], r.attrs["random_payment_rule"]) == (1.0, "paper")


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("reward", ["provider", "welfare"])
def test_rewards_sum_to_the_results_utility(scenario, arrays, options, reward):
    rng = np.random.default_rng(2)
    problem = AdmissionProblem(arrays, rng, reward=reward, **options)
    total, used = 0.0, set()
    while not problem.done:
        valid = np.flatnonzero(problem.valid_actions())
        a = int(valid[rng.integers(valid.size)])
        used.add(a)
        total += problem.step(a)[0]
    assert used == {0, 1, 2}
    result = assemble(scenario, problem.output(), algorithm="x", seed=0, options={})
    lorasched.check_result(result)
    key = "provider_utility" if reward == "provider" else "welfare"
    assert total == pytest.approx(result.attrs[key], rel=1e-12, abs=1e-12)
    assert total != pytest.approx(result.attrs["welfare" if key == "provider_utility"
                                               else "provider_utility"])


def test_the_mask_and_the_prices(arrays):
    """Action 1 charges the critical bid, action 2 the posted price (never above it); every
    action is valid where the auction admits; none but reject where no schedule exists."""
    problem = AdmissionProblem(arrays, np.random.default_rng(0))
    seen = set()
    while not problem.done:
        mask, obs = problem.valid_actions(), problem.observe()
        quote = dict(zip(QUOTE_FEATURES, obs["quote"], strict=True))
        bid = obs["task"][0]
        np.testing.assert_array_equal(obs["action_mask"], mask)
        assert mask[0]
        if not quote["feasible"]:
            assert not mask[1:].any() and quote["vendor"] == -2
            seen.add("infeasible")
        else:
            assert quote["posted_price"] <= quote["payment"] + 1e-12
            assert mask[1] == (quote["payment"] <= bid)
            assert mask[2] == (quote["posted_price"] <= bid)
            if problem.expert_action():
                assert mask.all()
                seen.add("admit")
            elif mask[2] and not mask[1]:
                seen.add("posted only")
        a = 2 if mask[2] else 0
        i = problem.task
        problem.step(a)
        if a == 2:
            assert problem._out.payment[i] == quote["posted_price"]
    assert seen == {"infeasible", "admit", "posted only"}


def test_the_observation_is_the_window_aligned_at_arrival(arrays):
    built_in = auction.run(arrays, np.random.default_rng(0))
    problem = AdmissionProblem(arrays, np.random.default_rng(0))
    K, T = arrays.n_nodes, arrays.n_slots
    checked = 0
    for a in built_in.admitted.astype(int):
        obs = problem.observe()
        i = problem.task
        start, end = arrays.arrival[i], arrays.deadline[i]
        width = end - start + 1
        assert obs["lam"].shape == obs["memory_left"].shape == (K, T)
        np.testing.assert_array_equal(obs["window"], np.arange(T) < width)
        np.testing.assert_array_equal(obs["lam"][:, :width],
                                      problem.auction.lam[:, start:end + 1])
        np.testing.assert_array_equal(obs["phi"][:, width:], 0)
        np.testing.assert_array_equal(obs["compute_left"][:, :width],
                                      problem.auction.compute_left[:, start:end + 1])
        checked += bool(obs["lam"].any())
        problem.step(a)
    assert checked > 0
    final = problem.observe()
    assert not any(v.any() for v in final.values())


@pytest.mark.parametrize("action, match", [
    (1, r"action 1 \(admit\) is not valid for task \d+: it has no feasible schedule"),
    (2, r"action 2 \(posted\) is not valid for task \d+: it has no feasible schedule"),
    (3, "action must be 0 .reject., 1 .admit. or 2 .posted., got 3"),
    (-1, "got -1"), (True, "got True"), (1.0, "got 1.0"), ("1", "got '1'"),
])
def test_an_invalid_action_is_refused(arrays, action, match):
    problem = AdmissionProblem(arrays, np.random.default_rng(0))
    while problem.observe()["quote"][0]:  # to a task without a feasible schedule
        problem.step(0)
    with pytest.raises(InputError, match=match):
        problem.step(action)


def test_an_action_priced_above_the_bid_is_refused(arrays):
    problem = AdmissionProblem(arrays, np.random.default_rng(0))
    while not (problem.valid_actions()[2] and not problem.valid_actions()[1]):
        problem.step(int(np.flatnonzero(problem.valid_actions())[-1]))
    with pytest.raises(InputError, match=r"action 1 \(admit\) .*: the price .* is above the bid"):
        problem.step(1)


def test_the_episode_ends(arrays):
    problem = AdmissionProblem(arrays, np.random.default_rng(0))
    with pytest.raises(InputError, match="still undecided"):
        problem.output()
    while not problem.done:
        problem.step(0)
    assert not problem.valid_actions().any()
    for call in (lambda: problem.step(0), problem.expert_action):
        with pytest.raises(InputError, match="the episode is over"):
            call()
    assert not problem.output().admitted.any()


@pytest.mark.parametrize("config, match", [
    ({"reward": "user"}, "reward must be one of"),
    ({"solver": "dp"}, "solver must be one of"),
    ({"payment": "first"}, "payment must be one of"),
    ({"alpha": -1.0}, "alpha"),
])
def test_the_configuration_is_checked(arrays, config, match):
    with pytest.raises(InputError, match=match):
        AdmissionProblem(arrays, np.random.default_rng(0), **config)


def test_actions_are_named():
    assert ACTIONS == ("reject", "admit", "posted")
    assert env.REWARDS == ("provider", "welfare")
