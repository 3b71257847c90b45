"""lorasched.allpass.diagnostics: the queueing mechanism of a run, on a hand-edited result and
on a real run; the overlap of demoted jobs on a hand-made workload."""

from __future__ import annotations

import math

import numpy as np
import pytest
import xarray as xr

import lorasched.allpass.cluster as cluster_module
from lorasched.allpass.diagnostics import (
    demoted_overlap,
    demotion_times,
    max_overlap,
    queue_mechanism,
)
from lorasched.allpass.policies import queue_all_oracle
from lorasched.allpass.result import assemble
from lorasched.allpass.scenario import AllpassArrays
from lorasched.allpass.workload import allpass_scenario
from lorasched.systems import check_result, simulate


@pytest.fixture(scope="module")
def run():
    result = simulate(allpass_scenario(jobs=40, seed=1, capacity=30), "allpass", seed=1)
    check_result(result)
    return result


def test_demotion_times_are_checkpoint_ends(run):
    t = demotion_times(run)
    demoted = run["demotions"].values > 0
    # a job demoted with work done has a checkpoint; its queueing starts when it ends
    assert np.isfinite(t[demoted]).any() and np.isnan(t[~demoted]).all()
    ok = np.isfinite(t)
    assert np.all(t[ok] >= run["submit_s"].values[ok] + run["serverless_s"].values[ok])
    assert np.all(t[ok] <= run["finish_s"].values[ok])


def test_shares_in_range_and_consistent(run):
    m = queue_mechanism(run)
    for key in ("waiting_ticks", "far_queue_share", "far_demoted", "deadline_miss"):
        assert 0.0 <= m[key] <= 1.0
    assert m["deadline_miss"] == pytest.approx(
        np.mean(run["finish_s"].values > run["deadline_s"].values))
    waiting = run["queue"].values > 0
    assert m["waiting_ticks"] == pytest.approx(waiting.mean())


def test_hand_edited_ticks(run):
    r = run.copy(deep=True)
    q = np.zeros(r.sizes["tick"], dtype=np.int64)
    q[:4] = 2
    r["queue"].values[:] = q
    r["p"].values[:] = 0.5
    r["p"].values[0] = 3.0
    r["workers"].values[:4] = [1, 2, 3, 6]
    m = queue_mechanism(r)
    assert m["waiting_ticks"] == pytest.approx(4 / q.size)
    assert m["calm_when_waiting"] == pytest.approx(3 / 4)
    assert m["workers_when_waiting"] == pytest.approx(3.0)
    assert m["queue_when_waiting"] == pytest.approx(2.0)


def test_no_queue_gives_nan_shares(run):
    r = run.copy(deep=True)
    r["queue"].values[:] = 0
    r["queue_s"].values[:] = 0.0
    m = queue_mechanism(r)
    assert np.isnan(m["calm_when_waiting"]) and np.isnan(m["far_queue_share"])
    assert np.isnan(m["workers_when_waiting"])


# -- the overlap of demoted jobs ------------------------------------------------------------


def test_max_overlap_hand_worked():
    assert max_overlap([], []) == 0
    assert max_overlap([0.0, 1.0, 2.0], [10.0, 3.0, 2.5]) == 3
    # an interval ending at t is closed before one starting at t opens
    assert max_overlap([0.0, 5.0, 5.0], [5.0, 6.0, 7.0]) == 2
    # empty intervals never count
    assert max_overlap([1.0, 1.0, 1.0], [1.0, 1.0, 2.0]) == 1


@pytest.mark.parametrize("start, end, match", [
    ([[0.0]], [[1.0]], "start must be a 1-D"),
    ([0.0, 1.0], [1.0], "end must have start's shape"),
    ([0.0], [math.inf], "finite"),
    ([2.0], [1.0], "end must be >= start"),
])
def test_max_overlap_bad_input_named(start, end, match):
    with pytest.raises(ValueError, match=match):
        max_overlap(start, end)


def _hand_run(monkeypatch, submit, work):
    """The queue-all oracle (F = 300 s, no cap) on plain jobs, Modal starting in 2 s."""
    monkeypatch.setattr(cluster_module, "startup_times",
                        lambda provider, n, rng: np.full(n, 2.0 if provider == "modal"
                                                         else 250.0))
    submit, work = np.asarray(submit, float), np.asarray(work, float)
    deadline, offers = np.full(submit.size, 1e7), np.array([[np.nan]])
    r = queue_all_oracle(AllpassArrays(submit, work, deadline, offers, math.inf),
                         np.random.default_rng(0))
    scenario = xr.Dataset(
        {"name": ("job", np.array([f"j{i}" for i in range(submit.size)])),
         "submit_s": ("job", submit), "work_s": ("job", work), "deadline_s": ("job", deadline),
         "price_per_gpu_h": (("minute", "offer"), offers)},
        attrs={"system": "allpass", "capacity": -1})
    res = assemble(scenario, r, algorithm="queue_all_oracle", seed=0, options={}, F0=300.0)
    check_result(res)
    return res


def test_demoted_overlap_on_a_hand_made_workload(monkeypatch):
    # demoted at submit + 2 (Modal) + 300 (F) + 42 (checkpoint); each then needs 42 s of
    # restore and 700 s of work: [344, 1086), [354, 1096), and, submitted at 716,
    # [1060, 1802); the 100 s job finishes on Modal, the last is alone
    res = _hand_run(monkeypatch, [0.0, 10.0, 20.0, 716.0, 5000.0],
                    [1000.0, 1000.0, 100.0, 1000.0, 1000.0])
    np.testing.assert_array_equal(demotion_times(res)[[0, 1, 3, 4]],
                                  [344.0, 354.0, 1060.0, 5344.0])
    assert np.isnan(demotion_times(res)[2])
    assert demoted_overlap(res) == 3
    # without the restore the first two end before the third is demoted
    assert demoted_overlap(res, restore_s=0.0) == 2
    with pytest.raises(ValueError, match="restore_s"):
        demoted_overlap(res, restore_s=-1.0)


def test_demoted_overlap_counts_demoted_jobs_only(run):
    # a real run: the overlap counts only demoted jobs, so at most their number
    assert 0 < demoted_overlap(run) <= int((run["demotions"].values > 0).sum())
