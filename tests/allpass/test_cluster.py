"""Allpass's two-tier event loop (lorasched.allpass.cluster) on tiny hand-worked runs.

Start-up delays are pinned (Modal 2 s, Vast.ai 30 s, Lambda 250 s) so every instant can be
worked by hand; each run is also assembled into a result and judged by the checker."""

from __future__ import annotations

import math

import numpy as np
import pytest
import xarray as xr

import lorasched.allpass.cluster as cluster_module
from lorasched.allpass.cluster import (
    CHECKPOINT,
    CHECKPOINT_S,
    RESTORE,
    RESTORE_S,
    RUN,
    AllpassCluster,
    Run,
)
from lorasched.allpass.policies import tl_p
from lorasched.allpass.result import assemble, check_result
from lorasched.allpass.scenario import to_arrays
from lorasched.allpass.workload import allpass_scenario
from lorasched.model.errors import ResultError

STARTUP = {"modal": 2.0, "vast": 30.0, "lambda": 250.0}
FAR = 1e7                                    # a deadline past every window: no demand
NO_OFFER = [[np.nan]]


@pytest.fixture
def fixed_startup(monkeypatch):
    monkeypatch.setattr(cluster_module, "startup_times",
                        lambda provider, n, rng: np.full(n, STARTUP[provider]))


def run(submit, work, deadline, offers, capacity=30, F0=math.nan, **settings):
    """Run the loop on plain arrays, then assemble and check the result."""
    submit, work = np.asarray(submit, float), np.asarray(work, float)
    deadline, offers = np.asarray(deadline, float), np.asarray(offers, float)
    c = AllpassCluster(submit, work, deadline, offers,
                       math.inf if capacity == -1 else float(capacity),
                       np.random.default_rng(0), **settings)
    assert c.run()
    r = c.result()
    scenario = xr.Dataset(
        {"name": ("job", np.array([f"j{i}" for i in range(submit.size)])),
         "submit_s": ("job", submit), "work_s": ("job", work), "deadline_s": ("job", deadline),
         "price_per_gpu_h": (("minute", "offer"), offers)},
        attrs={"system": "allpass", "capacity": capacity})
    res = assemble(scenario, r, algorithm="hand", seed=0, options={}, F0=F0)
    check_result(res)
    return r, res


def segments(r: Run, job: int) -> list[tuple]:
    """(lease, kind, start, end) of a job's segments in time order."""
    mine = np.flatnonzero(r.seg_job == job)
    mine = mine[np.argsort(r.seg_start[mine], kind="stable")]
    return [(int(r.seg_lease[k]), int(r.seg_kind[k]), float(r.seg_start[k]),
             float(r.seg_end[k])) for k in mine]


SERVERFUL = {"serverless": "none", "provision": "on-demand"}


# -- a. Modal only -----------------------------------------------------------------------


def test_modal_only_runs_from_start_up_to_end(fixed_startup):
    r, res = run([0.0], [100.0], [FAR], NO_OFFER, serverless="all", discipline="fifo",
                 provision="on-demand")
    assert r.finish[0] == 102.0                      # 2 s start-up + 100 s of work
    assert list(r.lease_provider) == ["modal"]
    assert (r.lease_start[0], r.lease_ready[0], r.lease_end[0]) == (0.0, 2.0, 102.0)
    assert r.lease_price[0] == 2.10 and r.lease_offer[0] == -1
    assert segments(r, 0) == [(0, RUN, 2.0, 102.0)]
    assert r.serverless_s[0] == 100.0 and r.demotions[0] == 0 and r.overhead_s[0] == 0
    # per-second billing, no minimum: 102 s at $2.10/h
    assert res.attrs["cost_usd"] == pytest.approx(102 * 2.10 / 3600)
    assert res.attrs["cost_modal_usd"] == res.attrs["cost_usd"]
    assert res["jct_s"].values[0] == 102.0 and res["wait_s"].values[0] == 2.0
    assert np.isnan(r.tick_F).all()                  # no threshold in force


def test_modal_only_every_job_has_its_own_worker(fixed_startup):
    r, _ = run([0.0, 0.0, 5.0], [4000.0, 50.0, 7000.0], [FAR] * 3, NO_OFFER,
               serverless="all", discipline="fifo", provision="on-demand")
    np.testing.assert_array_equal(r.finish, [4002.0, 52.0, 7007.0])
    assert list(r.lease_provider) == ["modal"] * 3
    np.testing.assert_array_equal(r.demotions, 0)
    assert r.tick_workers.max() == 0


# -- b. one demotion under a fixed F -----------------------------------------------------


def test_fixed_threshold_demotes_and_restores_on_lambda(fixed_startup):
    r, res = run([0.0], [500.0], [FAR], NO_OFFER, serverless="fixed", F=300.0,
                 provision="dbf", F0=300.0)
    # Modal: ready at 2, runs 300 s to 302, checkpoints 42 s to 344 (the Modal lease ends);
    # queued at 344, the tick at 360 adds a worker by the liveness rule (no demand: the
    # deadline is past every window), Lambda is ready at 610, restores to 652, runs 200 s
    assert segments(r, 0) == [(0, RUN, 2.0, 302.0), (0, CHECKPOINT, 302.0, 344.0),
                              (1, RESTORE, 610.0, 652.0), (1, RUN, 652.0, 852.0)]
    assert r.finish[0] == 852.0
    assert r.serverless_s[0] == 300.0
    assert r.demotions[0] == 1 and r.preemptions[0] == 0
    assert r.overhead_s[0] == CHECKPOINT_S + RESTORE_S == 84.0
    assert r.queue_s[0] == 610.0 - 344.0
    assert list(r.lease_provider) == ["modal", "lambda"]
    np.testing.assert_array_equal(r.lease_start, [0.0, 360.0])
    np.testing.assert_array_equal(r.lease_ready, [2.0, 610.0])
    np.testing.assert_array_equal(r.lease_end, [344.0, 852.0])
    run_s = sum(e - s for _, k, s, e in segments(r, 0) if k == RUN)
    assert run_s == 500.0                                        # work conserved
    assert res.attrs["cost_usd"] == pytest.approx(344 * 2.10 / 3600 + 492 * 1.29 / 3600)
    assert np.nanmax(r.tick_F) == 300.0 and np.nanmin(r.tick_F) == 300.0


def test_fixed_threshold_demotion_lands_on_the_cheapest_offer(fixed_startup):
    offers = [[0.9, 0.5, np.nan]]
    r, _ = run([0.0], [500.0], [FAR], offers, serverless="fixed", F=300.0,
               provision="dbf", F0=300.0)
    # the same as on Lambda, with a Vast.ai start-up of 30 s: ready 390, restore to 432
    assert segments(r, 0)[2:] == [(1, RESTORE, 390.0, 432.0), (1, RUN, 432.0, 632.0)]
    assert r.finish[0] == 632.0
    assert list(r.lease_provider) == ["modal", "vast"]
    assert r.lease_offer[1] == 1 and r.lease_price[1] == 0.5


def test_short_job_finishes_on_modal_without_demotion(fixed_startup):
    r, _ = run([0.0], [299.0], [FAR], NO_OFFER, serverless="fixed", F=300.0,
               provision="dbf", F0=300.0)
    assert r.finish[0] == 301.0 and r.demotions[0] == 0 and r.serverless_s[0] == 299.0
    assert list(r.lease_provider) == ["modal"]


def test_zero_overheads_leave_no_checkpoint_segments(fixed_startup):
    r, _ = run([0.0], [500.0], [FAR], NO_OFFER, serverless="fixed", F=300.0,
               provision="dbf", F0=300.0, checkpoint_s=0.0, restore_s=0.0)
    # demoted at 302, queued at once, worker added at the tick at 360, ready at 610
    assert segments(r, 0) == [(0, RUN, 2.0, 302.0), (1, RUN, 610.0, 810.0)]
    assert r.overhead_s[0] == 0.0 and r.finish[0] == 810.0


# -- c. EDF ------------------------------------------------------------------------------


def test_edf_serves_the_earlier_deadline_first(fixed_startup):
    # job 0 arrives first but its deadline is later; both wait for the only worker
    r, _ = run([0.0, 10.0], [100.0, 100.0], [5000.0, 1000.0], [[0.5]], capacity=1,
               discipline="edf", **SERVERFUL)
    assert list(r.lease_provider) == ["vast"]                    # the cap: one worker
    assert segments(r, 1) == [(0, RUN, 30.0, 130.0)]
    assert segments(r, 0) == [(0, RUN, 130.0, 230.0)]           # a fresh job: no restore
    np.testing.assert_array_equal(r.finish, [230.0, 130.0])
    np.testing.assert_array_equal(r.queue_s, [130.0, 20.0])


def test_fifo_serves_the_first_arrival_first(fixed_startup):
    r, _ = run([0.0, 10.0], [100.0, 100.0], [5000.0, 1000.0], [[0.5]], capacity=1,
               discipline="fifo", **SERVERFUL)
    np.testing.assert_array_equal(r.finish, [130.0, 230.0])


# -- d. the market and its fallback ------------------------------------------------------


def test_no_offer_falls_back_to_lambda(fixed_startup):
    r, res = run([0.0, 0.0], [100.0, 100.0], [FAR, FAR], [[np.nan, np.nan]] * 3,
                 discipline="fifo", **SERVERFUL)
    assert list(r.lease_provider) == ["lambda", "lambda"]
    np.testing.assert_array_equal(r.lease_price, 1.29)
    np.testing.assert_array_equal(r.lease_offer, -1)
    np.testing.assert_array_equal(r.finish, [350.0, 350.0])
    assert res.attrs["cost_lambda_usd"] == pytest.approx(2 * 350 * 1.29 / 3600)
    assert res.attrs["cost_vast_usd"] == 0.0 and res.attrs["cost_modal_usd"] == 0.0


def test_cheapest_offers_first_then_lambda(fixed_startup):
    r, _ = run([0.0] * 3, [100.0, 100.0, 100.0], [FAR] * 3, [[0.9, 0.5, np.nan]],
               discipline="fifo", **SERVERFUL)
    assert list(r.lease_provider) == ["vast", "vast", "lambda"]
    np.testing.assert_array_equal(r.lease_offer, [1, 0, -1])
    np.testing.assert_array_equal(r.lease_price, [0.5, 0.9, 1.29])
    # the two Vast.ai workers are ready at 30 and take jobs 0 and 1, cheapest first; job 2
    # takes the cheapest one when it frees at 130, before Lambda is ready at 250
    assert segments(r, 0) == [(0, RUN, 30.0, 130.0)]
    assert segments(r, 1) == [(1, RUN, 30.0, 130.0)]
    assert segments(r, 2) == [(0, RUN, 130.0, 230.0)]
    assert not (r.seg_lease == 2).any() and r.lease_end[2] == 250.0


def test_an_offer_dearer_than_lambda_is_not_rented(fixed_startup):
    """Sec. 3.3: the cheapest available workers across marketplace AND conventional clouds.
    With one offer below Lambda's 1.29, one equal (a tie goes to the marketplace) and one
    above, three workers are the two offers and Lambda, never the dear offer."""
    r, res = run([0.0] * 3, [100.0] * 3, [FAR] * 3, [[2.5, 1.29, 0.8]],
                 discipline="fifo", **SERVERFUL)
    assert sorted(r.lease_provider) == ["lambda", "vast", "vast"]
    assert sorted(r.lease_price) == [0.8, 1.29, 1.29]
    assert 0 not in r.lease_offer  # the 2.50 offer
    assert res.attrs["cost_lambda_usd"] > 0.0


def test_the_book_row_is_the_current_minute_and_the_last_stands(fixed_startup):
    offers = [[np.nan], [0.7], [0.4]]
    r, _ = run([30.0, 90.0, 500.0], [10.0] * 3, [FAR] * 3, offers,
               discipline="fifo", **SERVERFUL)
    # minute 0 offers nothing (Lambda); minute 1 offers $0.70; past the book, minute 2's $0.40
    assert list(r.lease_provider) == ["lambda", "vast", "vast"]
    np.testing.assert_array_equal(r.lease_price, [1.29, 0.7, 0.4])
    np.testing.assert_array_equal(r.lease_start, [30.0, 90.0, 500.0])


def test_a_held_offer_is_not_rented_twice(fixed_startup):
    r, _ = run([0.0, 0.0], [100.0, 100.0], [FAR, FAR], [[0.5]], discipline="fifo",
               **SERVERFUL)
    assert list(r.lease_provider) == ["vast", "lambda"]


# -- e. the cap --------------------------------------------------------------------------


def open_at_once(lease_start, lease_end) -> int:
    t = np.concatenate([lease_start, lease_end])
    step = np.concatenate([np.ones(lease_start.size), -np.ones(lease_end.size)])
    order = np.lexsort((step, t))
    return int(np.cumsum(step[order]).max())


@pytest.mark.parametrize("discipline", ["fifo", "edf", "sjf"])
def test_capacity_caps_open_serverful_leases(fixed_startup, discipline):
    n = 7
    work = np.arange(1, n + 1) * 100.0
    r, res = run(np.arange(n) * 5.0, work, np.full(n, FAR), [[0.5, 0.6, 0.7, 0.8]],
                 capacity=2, discipline=discipline, **SERVERFUL)
    serverful = r.lease_provider != "modal"
    assert open_at_once(r.lease_start[serverful], r.lease_end[serverful]) == 2
    assert r.tick_workers.max() <= 2
    np.testing.assert_array_equal(r.seg_kind, RUN)               # no preemption: no overhead
    assert np.isfinite(r.finish).all()
    # the cap binds: with unlimited capacity every job gets a worker at once and finishes
    # earlier
    r2, _ = run(np.arange(n) * 5.0, work, np.full(n, FAR), [[0.5, 0.6, 0.7, 0.8]],
                capacity=-1, discipline=discipline, **SERVERFUL)
    assert open_at_once(r2.lease_start, r2.lease_end) > 2
    assert r2.finish.mean() < r.finish.mean()
    # the checker sees the cap too
    bad = res.copy(deep=True)
    bad.attrs["capacity"] = 1
    with pytest.raises(ResultError, match="serverful concurrency"):
        check_result(bad)


# -- f. SJF and FIFO ---------------------------------------------------------------------


def test_non_preemptive_sjf_against_fifo_on_one_worker(fixed_startup):
    submit, work = [0.0, 1.0, 2.0], [300.0, 100.0, 200.0]
    r, _ = run(submit, work, [FAR] * 3, [[0.5]], capacity=1, discipline="sjf", **SERVERFUL)
    # all three wait for the worker ready at 30: shortest first
    np.testing.assert_array_equal(r.finish, [630.0, 130.0, 330.0])
    f, _ = run(submit, work, [FAR] * 3, [[0.5]], capacity=1, discipline="fifo", **SERVERFUL)
    np.testing.assert_array_equal(f.finish, [330.0, 430.0, 630.0])
    assert r.finish.mean() < f.finish.mean()
    np.testing.assert_array_equal(r.preemptions, 0)
    np.testing.assert_array_equal(f.preemptions, 0)


def test_non_preemptive_sjf_does_not_evict_a_placed_job(fixed_startup):
    # a short job arrives while a long one runs: it waits for the end
    r, _ = run([0.0, 100.0], [1000.0, 10.0], [FAR] * 2, [[0.5]], capacity=1,
               discipline="sjf", **SERVERFUL)
    np.testing.assert_array_equal(r.finish, [1030.0, 1040.0])
    np.testing.assert_array_equal(r.preemptions, 0)


# -- g. preemptive Tiresias --------------------------------------------------------------


def test_tiresias_preempts_a_long_job_for_a_fresh_one(fixed_startup):
    r, _ = run([0.0, 500.0], [1000.0, 100.0], [FAR, FAR], [[0.5]], capacity=1,
               discipline="tiresias", preemptive=True, tiresias_threshold_s=60.0,
               **SERVERFUL)
    # job 0 runs 30..500 (470 s, in the low queue past 60 s); job 1 arrives in the high
    # queue: job 0 checkpoints 500..542, job 1 runs 542..642, job 0 restores 642..684
    # and runs its last 530 s
    assert segments(r, 0) == [(0, RUN, 30.0, 500.0), (0, CHECKPOINT, 500.0, 542.0),
                              (0, RESTORE, 642.0, 684.0), (0, RUN, 684.0, 1214.0)]
    assert segments(r, 1) == [(0, RUN, 542.0, 642.0)]
    np.testing.assert_array_equal(r.finish, [1214.0, 642.0])
    np.testing.assert_array_equal(r.preemptions, [1, 0])
    np.testing.assert_array_equal(r.overhead_s, [84.0, 0.0])
    np.testing.assert_array_equal(r.demotions, 0)


def test_tiresias_without_preemption_keeps_the_long_job(fixed_startup):
    r, _ = run([0.0, 500.0], [1000.0, 100.0], [FAR, FAR], [[0.5]], capacity=1,
               discipline="tiresias", preemptive=False, tiresias_threshold_s=60.0,
               **SERVERFUL)
    np.testing.assert_array_equal(r.finish, [1030.0, 1130.0])
    np.testing.assert_array_equal(r.preemptions, 0)


def test_tl_p_policy_with_a_small_threshold_preempts():
    scenario = allpass_scenario(jobs=25, seed=3, capacity=2, book_hours=1)
    arrays = to_arrays(scenario)
    out = tl_p(arrays, np.random.default_rng(0), threshold_s=30.0)
    assert out.preemptions.sum() > 0
    assert (out.seg_kind == CHECKPOINT).sum() == out.preemptions.sum()
    res = assemble(scenario, out, algorithm="tl_p", seed=0, options={"threshold_s": 30.0})
    check_result(res)
    np.testing.assert_array_equal(out.demotions, 0)
    assert (out.lease_provider != "modal").all()


# -- h. snapshot and restore -------------------------------------------------------------


def assert_runs_equal(a: Run, b: Run) -> None:
    for field in Run._fields:
        x, y = getattr(a, field), getattr(b, field)
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y, err_msg=field)
        else:
            assert x == y, field


@pytest.mark.parametrize("settings", [
    {"serverless": "adaptive", "F": 300.0, "discipline": "edf", "provision": "dbf"},
    {"serverless": "none", "discipline": "tiresias", "preemptive": True,
     "provision": "on-demand", "tiresias_threshold_s": 120.0},
    {"serverless": "none", "discipline": "sjf", "share": "stride",
     "provision": "on-demand", "quantum_s": 300.0},
    {"serverless": "none", "discipline": "fifo", "provision": "hpa"},
], ids=["allpass", "tl_p", "sjf_p", "hpa"])
def test_snapshot_restore_replays_exactly(settings):
    a = to_arrays(allpass_scenario(jobs=10, seed=4, capacity=3, sizing="trace",
                                    book_hours=1))

    def cluster():
        return AllpassCluster(a.submit, a.work, a.deadline, a.offers, a.capacity,
                              np.random.default_rng(9), **settings)

    c = cluster()
    assert not c.run(max_events=25)
    assert c.events == 25
    snap = c.snapshot()
    c.run()
    first = c.result()
    c.restore(snap)
    assert c.events == 25 and not c.done
    c.run()
    second = c.result()
    assert_runs_equal(first, second)
    # and both equal a run never interrupted (the Generator's state is in the snapshot)
    whole = cluster()
    whole.run()
    assert_runs_equal(first, whole.result())
    assert np.isfinite(first.finish).all()


def test_snapshot_is_independent_of_the_running_state():
    a = to_arrays(allpass_scenario(jobs=8, seed=4, sizing="trace", book_hours=1))
    c = AllpassCluster(a.submit, a.work, a.deadline, a.offers, a.capacity,
                       np.random.default_rng(1))
    c.run(max_events=5)
    snap = c.snapshot()
    state = snap["state"].copy()
    c.run()
    np.testing.assert_array_equal(snap["state"], state)         # a deep copy
    c.restore(snap)
    c.run()
    np.testing.assert_array_equal(snap["state"], state)         # restore copies too


def test_step_after_the_end_is_false(fixed_startup):
    c = AllpassCluster(np.array([0.0]), np.array([10.0]), np.array([FAR]), np.array(NO_OFFER),
                       math.inf, np.random.default_rng(0), serverless="all")
    assert c.run()
    events = c.events
    assert c.step() is False and c.events == events


def test_stride_with_a_short_quantum_still_makes_progress(fixed_startup):
    c = AllpassCluster(np.array([0.0, 0.0]), np.array([1000.0, 1000.0]), np.array([FAR, FAR]),
                       np.array([[0.5]]), 1.0, np.random.default_rng(0), serverless="none",
                       discipline="sjf", share="stride", provision="on-demand",
                       quantum_s=60.0)
    # 2000 s of work at >= 18 s of progress per 60 s quantum ends well within 20000 events
    assert c.run(max_events=20_000)


# -- units="slip" and the queue-all oracle ------------------------------------------------


@pytest.mark.parametrize("units, workers", [("paper", 1), ("slip", 26)])
def test_units_slip_sizes_the_tier_sixty_times_the_demand(fixed_startup, units, workers):
    # one job of 1000 s due at 2000 s on Modal (F = 300 fixed): its deadline enters the
    # 30-min window at the tick of 240 s, with 1000 - 238 = 762 s left and no worker open
    # (p = inf, binding window 1800 s): Algorithm 2 adds ceil(762 / 1800) = 1 worker, or
    # under the slip ceil(60 * 762 / 1800) = 26
    r, _ = run([0.0], [1000.0], [2000.0], np.full((1, 40), 0.5), capacity=-1,
               serverless="fixed", F=300.0, provision="dbf", units=units, F0=300.0)
    at = list(r.tick_t)
    assert r.tick_workers[at.index(180.0)] == 0
    assert r.tick_p[at.index(240.0)] == math.inf
    assert r.tick_workers[at.index(240.0)] == workers
    # at 300 s: 702 s left, binding window 1740 s (the first holding the deadline)
    k = at.index(300.0)
    factor = 60.0 if units == "slip" else 1.0
    assert r.tick_window[k] == 1740.0
    assert r.tick_p[k] == pytest.approx(factor * 702.0 / (workers * 1740.0))
    assert r.tick_demand[k] == pytest.approx(factor * 702.0)


def test_units_default_is_the_papers():
    c = AllpassCluster(np.array([0.0]), np.array([10.0]), np.array([FAR]), np.array(NO_OFFER),
                       math.inf, np.random.default_rng(0))
    assert c.units == "paper"


@pytest.mark.parametrize("capacity", [-1, 2])
def test_queue_all_oracle_rents_for_every_queued_job_at_once(fixed_startup, capacity):
    from lorasched.allpass.policies import queue_all_oracle
    from lorasched.allpass.scenario import AllpassArrays

    # three 1000 s jobs submitted at 0, 1, 2 s; Modal ready 2 s later, F = 300 s, checkpoint
    # 42 s: queued at 344, 345, 346 s; no offer, so Lambda (250 s start-up)
    arrays = AllpassArrays(np.array([0.0, 1.0, 2.0]), np.full(3, 1000.0),
                           np.array([FAR] * 3), np.array(NO_OFFER),
                           math.inf if capacity == -1 else float(capacity))
    r = queue_all_oracle(arrays, np.random.default_rng(0))
    serverful = r.lease_provider != "modal"
    starts = np.sort(r.lease_start[serverful])
    if capacity == -1:
        # every queued job gets a worker the instant it is queued: it waits the start-up
        np.testing.assert_array_equal(starts, [344.0, 345.0, 346.0])
        np.testing.assert_array_equal(r.queue_s, 250.0)
    else:
        # the cap: two workers at once; the third job waits for the first to finish
        # (ready 594, restore 42 s, 700 s of work left: free at 1336 s)
        np.testing.assert_array_equal(starts, [344.0, 345.0])
        assert open_at_once(r.lease_start[serverful], r.lease_end[serverful]) == 2
        np.testing.assert_array_equal(r.queue_s, [250.0, 250.0, 1336.0 - 346.0])
    np.testing.assert_array_equal(r.tick_F, 300.0)                 # F fixed: no feedback


@pytest.mark.parametrize("seed", range(20))
def test_live_remaining_kernel_gives_the_loops_floats(seed):
    """The compiled pass the tick takes its pressure from gives exactly the jobs and the
    work left that the loop's numpy helpers give, in every state."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 120))
    c = AllpassCluster(np.zeros(n), np.ones(n), np.ones(n), np.array(NO_OFFER), 30.0,
                       np.random.default_rng(0))
    c.t = float(rng.uniform(0, 1e5))
    c.state = rng.integers(0, 7, n)                       # every state, DONE and WAITING too
    c.remaining = rng.lognormal(5.0, 3.0, n) * (rng.random(n) < 0.9)
    c.run_from = np.where(rng.random(n) < 0.8, c.t - rng.lognormal(5.0, 3.0, n),
                          c.t + rng.uniform(0, 300, n))  # some still starting
    live, remaining = cluster_module._live_remaining(c.t, c.state, c.remaining, c.run_from)
    np.testing.assert_array_equal(live, c._live())
    want = c._remaining_now(c._live())
    assert remaining.tobytes() == want.tobytes()
