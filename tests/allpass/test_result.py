"""Allpass's result Dataset (lorasched.allpass.result): what assemble writes, and a checker
that catches each broken rule by name."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from lorasched.allpass.clouds import PROVIDERS, bill
from lorasched.allpass.decisions import SEGMENT_KINDS, Run
from lorasched.allpass.result import assemble, check_result
from lorasched.allpass.system import simulate
from lorasched.allpass.workload import allpass_scenario
from lorasched.model.errors import ResultError


@pytest.fixture(scope="module")
def scenario():
    return allpass_scenario(jobs=30, seed=1, capacity=30)


@pytest.fixture(scope="module")
def valid(scenario):
    res = simulate(scenario, "allpass", seed=0)
    check_result(res)
    prov = res["lease_provider"].values
    kind = res["seg_kind"].values
    on = prov[res["seg_lease"].values]
    # what the mutations below need: demotions, serverful work on the market, stints
    assert int(res["demotions"].sum()) > 0
    assert ((kind == "run") & (on == "vast")).any()
    assert ((kind == "run") & (on == "modal")).any()
    return res


def mutable(res):
    out = res.copy(deep=True)
    out.attrs = dict(res.attrs)
    return out


def serverful_peak(res) -> int:
    prov = res["lease_provider"].values
    s = res["lease_start_s"].values[prov != "modal"]
    e = res["lease_end_s"].values[prov != "modal"]
    t = np.concatenate([s, e])
    step = np.concatenate([np.ones(s.size), -np.ones(e.size)])
    return int(np.cumsum(step[np.lexsort((step, t))]).max())


# -- assemble ----------------------------------------------------------------------------


def test_assemble_layout(valid, scenario):
    res = valid
    for var in ("finish_s", "jct_s", "wait_s", "serverless_s", "demotions", "preemptions",
                "overhead_s", "queue_s"):
        assert res[var].dims == ("job",)
    for var in ("lease_provider", "lease_offer", "lease_start_s", "lease_ready_s",
                "lease_end_s", "lease_price_per_h", "lease_cost_usd"):
        assert res[var].dims == ("lease",)
    for var in ("seg_job", "seg_lease", "seg_kind", "seg_start_s", "seg_end_s"):
        assert res[var].dims == ("seg",)
    for var in ("tick_s", "p", "D", "window_s", "F_s", "queue", "workers", "ready", "busy",
                "serverless"):
        assert res[var].dims == ("tick",)
    # the scenario comes along untouched
    for var in scenario.data_vars:
        np.testing.assert_array_equal(res[var].values, scenario[var].values)
    assert res.attrs["system"] == "allpass" and res.attrs["capacity"] == 30
    assert res.attrs["algorithm"] == "allpass" and res.attrs["seed"] == 0
    assert res.attrs["F0"] == 300.0
    assert set(res["seg_kind"].values) <= {"run", "checkpoint", "restore"}
    assert set(res["lease_provider"].values) <= set(PROVIDERS)


def test_assemble_derived_numbers(valid):
    res = valid
    submit, finish = res["submit_s"].values, res["finish_s"].values
    np.testing.assert_array_equal(res["jct_s"].values, finish - submit)
    np.testing.assert_allclose(res["wait_s"].values, finish - submit - res["work_s"].values)
    assert (res["wait_s"].values > 0).all()                    # a start-up at least
    cost = [bill(p, s, e, pr) for p, s, e, pr in zip(
        res["lease_provider"].values, res["lease_start_s"].values, res["lease_end_s"].values,
        res["lease_price_per_h"].values, strict=True)]
    np.testing.assert_allclose(res["lease_cost_usd"].values, cost)
    assert res.attrs["cost_usd"] == pytest.approx(sum(cost))
    assert sum(res.attrs[f"cost_{p}_usd"] for p in PROVIDERS) == pytest.approx(
        res.attrs["cost_usd"])
    assert res.attrs["avg_jct_s"] == pytest.approx(float(res["jct_s"].mean()))
    assert res.attrs["events"] > 0
    # every job began on Modal: one Modal lease each
    assert (res["lease_provider"].values == "modal").sum() == res.sizes["job"]
    # a demoted job paid its checkpoint and its restore
    demoted = res["demotions"].values > 0
    assert (res["overhead_s"].values[demoted] >= 84.0 - 1e-9).all()
    assert (res["overhead_s"].values[~demoted] == 0).all()


def run_of(res) -> Run:
    """The :class:`Run` a result was assembled from (assemble's inverse)."""
    names = {"finish": "finish_s", "lease_start": "lease_start_s",
             "lease_ready": "lease_ready_s", "lease_end": "lease_end_s",
             "lease_price": "lease_price_per_h", "seg_start": "seg_start_s",
             "seg_end": "seg_end_s", "tick_t": "tick_s", "tick_p": "p", "tick_demand": "D",
             "tick_window": "window_s", "tick_F": "F_s", "tick_queue": "queue",
             "tick_workers": "workers", "tick_ready": "ready", "tick_busy": "busy",
             "tick_serverless": "serverless"}
    fields = {f: res[names.get(f, f)].values for f in Run._fields
              if f not in ("seg_kind", "events")}
    kind = np.array([SEGMENT_KINDS.index(k) for k in res["seg_kind"].values], dtype=np.int64)
    return Run(**fields, seg_kind=kind, events=int(res.attrs["events"]))


def test_assemble_round_trip_seed_none_and_options(scenario, valid):
    res = assemble(scenario, run_of(valid), algorithm="mine", seed=None,
                   options={"b": 2, "a": 1})
    assert res.attrs["seed"] == -1 and res.attrs["algorithm"] == "mine"
    assert json.loads(res.attrs["options"]) == {"a": 1, "b": 2}
    assert math.isnan(res.attrs["F0"])
    for var in valid.data_vars:
        np.testing.assert_array_equal(res[var].values, valid[var].values)
    for attr in ("cost_usd", "cost_modal_usd", "cost_vast_usd", "cost_lambda_usd",
                 "avg_jct_s", "events"):
        assert res.attrs[attr] == valid.attrs[attr]
    check_result(res)                      # F0 NaN: the stint rule reads the ticks' F


# -- the checker ---------------------------------------------------------------------------


def test_valid_result_passes(valid):
    check_result(valid)


def test_finish_nan_every_job_finishes(valid):
    bad = mutable(valid)
    bad["finish_s"].values[4] = np.nan
    with pytest.raises(ResultError, match="breaks 'every job finishes'.*allpass-4"):
        check_result(bad)


def test_finish_before_submit(valid):
    bad = mutable(valid)
    j = int(np.flatnonzero(bad["submit_s"].values > 0)[0])
    bad["finish_s"].values[j] = bad["submit_s"].values[j] - 1.0
    with pytest.raises(ResultError, match="every job finishes"):
        check_result(bad)


def test_jct_mismatch(valid):
    bad = mutable(valid)
    bad["jct_s"].values[2] += 5.0
    with pytest.raises(ResultError, match=r"jct = finish - submit"):
        check_result(bad)


def test_lease_order(valid):
    bad = mutable(valid)
    bad["lease_ready_s"].values[0] = bad["lease_end_s"].values[0] + 10.0
    with pytest.raises(ResultError, match=r"lease start <= ready <= end"):
        check_result(bad)


def test_run_segment_before_its_lease_is_ready(valid):
    bad = mutable(valid)
    prov = bad["lease_provider"].values[bad["seg_lease"].values]
    k = int(np.flatnonzero((bad["seg_kind"].values == "run") & (prov == "vast"))[0])
    ready = bad["lease_ready_s"].values[bad["seg_lease"].values[k]]
    assert bad["seg_start_s"].values[k] >= ready
    bad["seg_start_s"].values[k] = ready - 10.0
    with pytest.raises(ResultError, match="breaks 'jobs run only on ready workers'"):
        check_result(bad)


def test_segment_past_its_lease_end(valid):
    bad = mutable(valid)
    k = int(np.flatnonzero(bad["seg_kind"].values == "checkpoint")[0])
    bad["lease_end_s"].values[bad["seg_lease"].values[k]] = bad["seg_end_s"].values[k] - 5.0
    with pytest.raises(ResultError, match="jobs run only on ready workers"):
        check_result(bad)


def test_two_segments_overlap_on_one_lease(valid):
    bad = mutable(valid)
    sl = bad["seg_lease"].values
    s0, s1 = bad["seg_start_s"].values, bad["seg_end_s"].values
    order = np.lexsort((s0, sl))
    for a, b in zip(order[:-1], order[1:], strict=True):
        if sl[a] == sl[b] and s1[a] - s0[a] > 2.0:
            break
    else:
        pytest.fail("no lease with two segments")
    s0[b] = s1[a] - 1.0                  # b now starts 1 s before a ends, inside the lease
    with pytest.raises(ResultError, match="breaks 'one job per worker at a time'"):
        check_result(bad)


def test_serverful_concurrency_above_the_cap(valid):
    peak = serverful_peak(valid)
    assert peak >= 2
    bad = mutable(valid)
    bad.attrs["capacity"] = peak - 1
    with pytest.raises(ResultError, match=rf"serverful concurrency <= the cap.*{peak} "
                                         rf"workers open at once, cap {peak - 1}"):
        check_result(bad)
    ok = mutable(valid)
    ok.attrs["capacity"] = peak
    check_result(ok)
    ok.attrs["capacity"] = -1
    check_result(ok)


def test_serverless_stint_longer_than_F(valid):
    bad = mutable(valid)
    bad["F_s"].values[:] = 1.0
    bad.attrs["F0"] = 1.0
    with pytest.raises(ResultError, match="breaks 'each serverless stint <= the F in force'"):
        check_result(bad)


def test_work_not_conserved(valid):
    bad = mutable(valid)
    bad["work_s"].values[7] += 10.0
    with pytest.raises(ResultError, match="breaks 'work conserved.*allpass-7"):
        check_result(bad)


def test_last_segment_not_at_finish(valid):
    bad = mutable(valid)
    bad["finish_s"].values[3] += 50.0
    bad["jct_s"].values[3] += 50.0
    with pytest.raises(ResultError, match="a job's last segment ends at its finish"):
        check_result(bad)


def test_serverless_seconds_mismatch(valid):
    bad = mutable(valid)
    bad["serverless_s"].values[0] += 20.0
    with pytest.raises(ResultError, match="serverless_s = work on the serverless tier"):
        check_result(bad)


def test_vast_lease_price_is_the_offer_price(valid):
    bad = mutable(valid)
    i = int(np.flatnonzero(bad["lease_provider"].values == "vast")[0])
    bad["lease_price_per_h"].values[i] *= 1.5
    with pytest.raises(ResultError, match=rf"breaks 'marketplace leases pay the offer's "
                                         rf"price': lease {i}"):
        check_result(bad)


def test_vast_lease_offer_slot_out_of_the_book(valid):
    bad = mutable(valid)
    i = int(np.flatnonzero(bad["lease_provider"].values == "vast")[0])
    bad["lease_offer"].values[i] = bad.sizes["offer"]
    with pytest.raises(ResultError, match="marketplace leases pay the offer's price"):
        check_result(bad)


def test_modal_lease_pays_modals_price(valid):
    bad = mutable(valid)
    i = int(np.flatnonzero(bad["lease_provider"].values == "modal")[0])
    bad["lease_price_per_h"].values[i] = 1.0
    with pytest.raises(ResultError, match="modal leases pay modal's price"):
        check_result(bad)


def test_lease_cost_changed(valid):
    bad = mutable(valid)
    bad["lease_cost_usd"].values[1] += 0.01
    with pytest.raises(ResultError, match="breaks 'cost recomputed from leases': lease 1"):
        check_result(bad)


@pytest.mark.parametrize("attr", ["cost_usd", "cost_modal_usd", "cost_vast_usd"])
def test_cost_totals_changed(valid, attr):
    bad = mutable(valid)
    bad.attrs[attr] += 1.0
    with pytest.raises(ResultError, match="breaks 'cost recomputed from leases'"):
        check_result(bad)


def test_a_job_doing_two_things_at_once(valid):
    bad = mutable(valid)
    sj, sl = bad["seg_job"].values, bad["seg_lease"].values
    s0, s1 = bad["seg_start_s"].values, bad["seg_end_s"].values
    # two segments of different jobs on different leases at overlapping times: give the
    # later one to the first job (no lease holds two jobs at once, yet a job does two things)
    pairs = [(a, b) for a in range(sj.size) for b in range(sj.size)
             if sj[a] != sj[b] and sl[a] != sl[b] and s0[a] < s0[b] < s1[a] - 1.0]
    assert pairs
    a, b = pairs[0]
    sj[b] = sj[a]
    with pytest.raises(ResultError, match="breaks 'a job does one thing at a time'"):
        check_result(bad)


def test_segment_ending_before_it_starts(valid):
    bad = mutable(valid)
    bad["seg_end_s"].values[0] = bad["seg_start_s"].values[0] - 1.0
    with pytest.raises(ResultError, match="segments end after they start"):
        check_result(bad)


def test_an_offer_rented_twice_at_once(valid):
    bad = mutable(valid)
    prov, offer = bad["lease_provider"].values, bad["lease_offer"].values
    start, end = bad["lease_start_s"].values, bad["lease_end_s"].values
    vast = np.flatnonzero(prov == "vast")
    # two Vast.ai leases open at the same time on different slots, both priced from the
    # book at their start minutes: put the second on the first's slot where it offers the
    # same price (else the price rule fires first)
    book = bad["price_per_gpu_h"].values
    for a in vast:
        for b in vast:
            if a != b and start[a] <= start[b] < end[a] - 1.0 and offer[a] != offer[b]:
                minute = min(int(start[b] // 60), book.shape[0] - 1)
                if np.isfinite(book[minute, offer[a]]):
                    bad["lease_price_per_h"].values[b] = book[minute, offer[a]]
                    offer[b] = offer[a]
                    with pytest.raises(ResultError, match="an offer is rented once at a time"):
                        check_result(bad)
                    return
    pytest.fail("the fixture run must hold two overlapping Vast.ai leases for this test")
