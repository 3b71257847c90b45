"""lorasched.titan.env: TITAN's allocation at each event as a decision problem. TITAN's own
choice through it gives the ``titan`` policy's schedule, the costs add up to the total JCT,
the floor policy ``random`` is reproducible and valid, and infeasible actions are refused."""

from __future__ import annotations

import numpy as np
import pytest

from lorasched.model.errors import InputError
from lorasched.titan import policies
from lorasched.titan.env import AllocationProblem, slot_bound
from lorasched.titan.result import assemble, check_result
from lorasched.titan.scenario import to_arrays
from lorasched.titan.system import simulate
from lorasched.titan.workload import titan_scenario

FIELDS = ("seg_unit", "seg_gpus", "seg_start", "seg_end", "seg_kind", "part_segment",
          "part_job", "part_progress", "decision_time", "decision_candidates")


@pytest.fixture(scope="module")
def scenario():
    """32 jobs on 4 GPUs: queues, merged jobs, up to 7 candidates per event."""
    return titan_scenario(jobs=16, nodes=1, oversize="cap", density=2, seed=0)


@pytest.fixture(scope="module")
def arrays(scenario):
    return to_arrays(scenario)


def _problem(arrays, seed=0, **options):
    setup = {k: options.pop(k) for k in ("preemptive", "tick_s", "keep") if k in options}
    return AllocationProblem(arrays, np.random.default_rng(seed), **options,
                             **policies.cluster_options(arrays, **setup))


def _same(a, b) -> bool:
    return a.unit_members == b.unit_members and all(
        np.array_equal(getattr(a, f), getattr(b, f)) for f in FIELDS)


@pytest.mark.parametrize("options", [{}, {"preemptive": True, "tick_s": 600.0}])
def test_titans_own_choice_gives_the_titan_policys_schedule(arrays, scenario, options):
    problem = _problem(arrays, **options)
    total, steps = 0.0, 0
    while not problem.done:
        reward, done = problem.step(problem.expert_action())
        total, steps = total + reward, steps + 1
        assert done == problem.done
    got = problem.output()
    want = policies.titan(arrays, np.random.default_rng(0), **options)
    assert _same(got, want)
    assert steps == want.decision_time.size > 20
    assert np.all(got.decision_seconds == 0.0)
    result = assemble(scenario, got, algorithm="x", seed=0, options={})
    assert total == pytest.approx(-result.attrs["n_jobs"] * result.attrs["avg_jct_h"],
                                  rel=1e-12)


def test_the_floor_policy_is_reproducible_valid_and_ends(scenario):
    first = simulate(scenario, "random", seed=1)
    check_result(first)
    again = simulate(scenario, "random", seed=1)
    other = simulate(scenario, "random", seed=2)
    for name in first.data_vars:
        if name != "solve_s":
            assert np.array_equal(first[name].values, again[name].values), name
    assert not np.array_equal(first["seg_start_s"].values, other["seg_start_s"].values) or \
        not np.array_equal(first["seg_gpus"].values, other["seg_gpus"].values)
    assert first.attrs["avg_jct_h"] > simulate(scenario, "titan").attrs["avg_jct_h"]
    assert list(policies.REGISTRY)[-1] == "random"


@pytest.mark.parametrize("options", [{"preemptive": True},
                                     {"preemptive": True, "tick_s": 600.0, "keep": "shortest"},
                                     {"merge": False}])
def test_the_floor_policy_ends_in_other_setups(scenario, options):
    check_result(simulate(scenario, "random", seed=3, **options))


def test_the_costs_add_up_to_the_total_jct(arrays, scenario):
    problem = _problem(arrays, seed=5)
    total = 0.0
    while not problem.done:
        total += problem.step(problem.random_action())[0]
    result = assemble(scenario, problem.output(), algorithm="x", seed=5, options={})
    assert total == pytest.approx(-result.attrs["n_jobs"] * result.attrs["avg_jct_h"],
                                  rel=1e-12)


def test_observations_keep_their_shapes_and_offer_the_candidates(arrays):
    problem = _problem(arrays)
    shapes = {k: v.shape for k, v in problem.observe().items()}
    U, A = problem.max_units, arrays.allocations.size
    assert U == slot_bound(arrays.submit.size) == 2 * 32 - 1
    assert shapes["throughput"] == (U, A) and shapes["action_mask"] == (U, A + 1)
    offered = []
    while not problem.done:
        obs = problem.observe()
        assert {k: v.shape for k, v in obs.items()} == shapes
        assert np.array_equal(obs["mask"].astype(bool), obs["action_mask"][:, 1:].any(axis=1))
        assert np.all(obs["conflicts"] == obs["conflicts"].T)
        offered.append(int(obs["mask"].sum()))
        problem.step(problem.expert_action())
    assert offered == problem.output().decision_candidates.tolist()
    assert max(offered) > 2
    assert not problem.observe()["mask"].any()


@pytest.fixture
def queued(arrays):
    """Every job submitted at 0: the first event offers them all, nothing runs, no
    submission is left to come."""
    return _problem(arrays._replace(submit=np.zeros(arrays.submit.size)))


def _slots(problem):
    obs = problem.observe()
    jobs = np.flatnonzero(obs["members"] == 1)
    merged = np.flatnonzero(obs["members"] >= 2)
    return obs, jobs, merged


@pytest.mark.parametrize("rule", ["shape", "whole", "range", "empty slot", "not offered",
                                  "over the free GPUs", "one job twice", "idle forever"])
def test_infeasible_actions_are_refused(arrays, queued, rule):
    if rule == "not offered":  # no step time on 2 GPUs: the LUT does not offer them
        iter_s = arrays.iter_s.copy()
        iter_s[:, 1] = np.nan
        queued = _problem(arrays._replace(submit=np.zeros(arrays.submit.size),
                                          iter_s=iter_s))
    obs, jobs, merged = _slots(queued)
    U, top = queued.max_units, queued.n_choices - 1   # top: all 4 GPUs
    act = np.zeros(U, dtype=np.int64)
    act[jobs[0]] = 1
    pair = np.flatnonzero(obs["conflicts"][merged[0]])
    match = {"shape": "shape", "whole": "whole", "range": "index must be", "empty slot":
             "holds no candidate", "not offered": "not offered", "over the free GPUs":
             "more than the 4 free", "one job twice": "both give GPUs to job",
             "idle forever": "never end"}[rule]
    if rule == "shape":
        act = act[:-1]
    elif rule == "whole":
        act = act + 0.5
    elif rule == "range":
        act[jobs[1]] = top + 1
    elif rule == "empty slot":
        act[U - 1] = 1
    elif rule == "not offered":
        assert not obs["action_mask"][:, 2].any()
        act[jobs[1]] = 2
    elif rule == "over the free GPUs":
        act[jobs[1]] = top
    elif rule == "one job twice":
        act[:] = 0
        act[merged[0]], act[pair[0]] = 1, 1
    else:
        act[:] = 0
    assert obs["mask"].sum() < U
    with pytest.raises(InputError, match=match):
        queued.step(act)
    reward, done = queued.step(queued.clip(act) if rule != "shape" else
                               np.eye(U, dtype=np.int64)[jobs[0]])
    assert not done and reward < 0


def test_clip_follows_its_rule(queued):
    obs, jobs, merged = _slots(queued)
    U, top = queued.max_units, queued.n_choices - 1
    act = np.zeros(U, dtype=np.int64)
    act[jobs[0]], act[jobs[1]] = 2, top           # 2 GPUs, then 4: the second falls to 2
    act[U - 1] = 1                                 # no candidate there: 0
    got = queued.clip(act)
    assert got[jobs[0]] == 2 and got[jobs[1]] == 2 and got[U - 1] == 0
    pair = np.flatnonzero(obs["conflicts"][merged[0]])
    act = np.zeros(U, dtype=np.int64)
    act[pair[0]], act[merged[0]] = 1, 1            # the later slot sharing a job: 0
    got = queued.clip(act)
    assert got[min(pair[0], merged[0])] == 1 and got[max(pair[0], merged[0])] == 0
    got = queued.clip(np.zeros(U, dtype=np.int64))  # idle with nothing to come: first slot
    assert got.tolist() == [1] + [0] * (U - 1)
    assert queued.clip(np.full(U, 99)).sum() > 0


def test_a_finished_run_refuses_steps_and_an_unfinished_one_output(arrays):
    problem = _problem(arrays)
    with pytest.raises(InputError, match="not over"):
        problem.output()
    while not problem.done:
        problem.step(problem.random_action())
    for call in (problem.random_action, problem.expert_action):
        with pytest.raises(InputError, match="run is over"):
            call()
    with pytest.raises(InputError, match="run is over"):
        problem.step(np.zeros(problem.max_units, dtype=np.int64))


def test_a_short_table_offers_the_first_candidates_only(arrays):
    queued = _problem(arrays._replace(submit=np.zeros(arrays.submit.size)), max_units=2)
    obs = queued.observe()
    assert obs["mask"].tolist() == [1, 1] and obs["free_gpus"].tolist() == [4]
    steps = 0
    while not queued.done:
        queued.step(queued.random_action())
        steps += 1
    schedule = queued.output()
    assert steps >= 16 and set(schedule.decision_candidates.tolist()) <= {1, 2}
    assert sorted(j for m in schedule.unit_members for j in m) == list(range(32))


@pytest.mark.parametrize("kwargs, match", [
    ({"rng": 0}, "numpy.random.Generator"),
    ({"max_units": 0}, "max_units"),
    ({"switch_s": [1.0]}, "switch_s"),
    ({"merge": "yes"}, "'merge'"),
    ({"solver": "highs"}, "unknown option"),
    ({"candidates": "triples"}, "candidates"),
])
def test_the_problem_validates_its_arguments(arrays, kwargs, match):
    args = {"rng": np.random.default_rng(0), "switch_s": np.zeros(arrays.allocations.size)}
    args.update(kwargs)
    with pytest.raises(InputError, match=match):
        AllocationProblem(arrays, **args)
    with pytest.raises(InputError, match="TitanArrays"):
        AllocationProblem({}, np.random.default_rng(0), switch_s=[0.0])


def test_slot_bound_counts_jobs_and_merge_candidates():
    assert [slot_bound(10, True, c) for c in ("pairs", "application", "all_pairs")] == \
        [19, 15, 55]
    assert slot_bound(10, False) == 10 and slot_bound(0) == 1
    with pytest.raises(InputError, match="n_jobs"):
        slot_bound(-1)
