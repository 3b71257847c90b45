"""lorasched.allpass.diagnose: the queueing mechanism of a run, on a hand-edited result and
on a real run."""

from __future__ import annotations

import numpy as np
import pytest

from lorasched.allpass.diagnose import demotion_times, queue_mechanism
from lorasched.allpass.scenario import allpass_scenario
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
