"""Allpass's checker rule by rule (lorasched.allpass.result.RULES): a valid result broken in
exactly one rule's way breaks that rule alone, and check_result raises its message."""

from __future__ import annotations

import re

import numpy as np
import pytest
import xarray as xr

from lorasched import simulate
from lorasched.allpass.clouds import PROVIDERS
from lorasched.allpass.decisions import SEGMENT_KINDS, Run
from lorasched.allpass.result import RULES, assemble, broken_rules, check_result
from lorasched.allpass.workload import allpass_scenario
from lorasched.model.errors import ResultError


def _scenario() -> xr.Dataset:
    return allpass_scenario(jobs=30, seed=1, capacity=30, source="helios")  # its jobs' shapes


@pytest.fixture(scope="module")
def valid() -> xr.Dataset:
    """Allpass on 30 jobs: demotions, serverful work on the market, serverless stints."""
    res = simulate(_scenario(), "allpass", seed=0)
    kind = res["seg_kind"].values
    on = res["lease_provider"].values[res["seg_lease"].values]
    assert int(res["demotions"].sum()) > 0
    assert ((kind == "run") & (on == "vast")).any() and ((kind == "run") & (on == "modal")).any()
    return res


def _run(res: xr.Dataset) -> Run:
    """The :class:`Run` a result was assembled from (assemble's inverse), as copies."""
    names = {"finish": "finish_s", "lease_start": "lease_start_s",
             "lease_ready": "lease_ready_s", "lease_end": "lease_end_s",
             "lease_price": "lease_price_per_h", "seg_start": "seg_start_s",
             "seg_end": "seg_end_s", "tick_t": "tick_s", "tick_p": "p", "tick_demand": "D",
             "tick_window": "window_s", "tick_F": "F_s", "tick_queue": "queue",
             "tick_workers": "workers", "tick_ready": "ready", "tick_busy": "busy",
             "tick_serverless": "serverless"}
    fields = {f: res[names.get(f, f)].values.copy() for f in Run._fields
              if f not in ("seg_kind", "events")}
    fields["lease_provider"] = fields["lease_provider"].astype(object)
    kind = np.array([SEGMENT_KINDS.index(k) for k in res["seg_kind"].values], dtype=np.int64)
    return Run(**fields, seg_kind=kind, events=int(res.attrs["events"]))


def _reassembled(res: xr.Dataset, change, scenario: xr.Dataset | None = None) -> xr.Dataset:
    """``res``'s run changed in place by ``change(run)`` and assembled again (on
    ``scenario``, by default the valid one's): JCTs and costs follow the changed run."""
    run = _run(res)
    change(run)
    return assemble(_scenario() if scenario is None else scenario, run,
                    algorithm=res.attrs["algorithm"], seed=None, options={},
                    F0=res.attrs["F0"])


def _first(res, mask) -> int:
    found = np.flatnonzero(mask)
    assert found.size, "the valid run lacks what this corruption needs"
    return int(found[0])


# -- corruptions: each takes a copy of the valid result and returns it broken -------------


def _set(name, index, value):
    def corrupt(r):
        if name in r.attrs:
            r.attrs[name] = value(r.attrs[name]) if callable(value) else value
        else:
            index_ = index(r) if callable(index) else index
            old = r[name].values[index_]
            r[name].values[index_] = value(old) if callable(value) else value
        return r
    return corrupt


def _submitted_after_finish(r):
    """Job 4 submitted 10 s after its finish (its JCT follows)."""
    scenario = _scenario()
    scenario["submit_s"].values[4] = r["finish_s"].values[4] + 10.0
    return _reassembled(r, lambda run: None, scenario)


def _modal_start_after_ready(r):
    """A Modal lease requested 1 s after it was ready (its cost follows)."""
    i = _first(r, r["lease_provider"].values == "modal")

    def change(run):
        run.lease_start[i] = run.lease_ready[i] + 1.0
    return _reassembled(r, change)


def _reversed_checkpoint(r):
    """A checkpoint segment's start and end swapped (no work, inside its lease)."""
    k = _first(r, r["seg_kind"].values == "checkpoint")
    s0, s1 = r["seg_start_s"].values, r["seg_end_s"].values
    s0[k], s1[k] = s1[k], s0[k]
    return r


def _ready_later(r):
    """The lease of segment 0 ready 1 s after segment 0 starts."""
    lease = int(r["seg_lease"].values[0])
    r["lease_ready_s"].values[lease] = r["seg_start_s"].values[0] + 1.0
    return r


def _restore_early_on_a_busy_worker(r):
    """A restore segment that starts right after another job's segment on its worker
    begins 1 s before that one ends (after its own job's previous segment)."""
    sj, sl, kind = r["seg_job"].values, r["seg_lease"].values, r["seg_kind"].values
    s0, s1 = r["seg_start_s"].values, r["seg_end_s"].values
    ready = r["lease_ready_s"].values
    order = np.lexsort((s0, sl))
    for a, b in zip(order[:-1], order[1:], strict=True):
        mine = np.flatnonzero((sj == sj[b]) & (s1 <= s0[b]))
        if (sl[a] == sl[b] and sj[a] != sj[b] and kind[b] == "restore"
                and s1[a] - 1.0 >= ready[sl[b]]
                and (mine.size == 0 or s1[mine].max() <= s1[a] - 1.0)):
            s0[b] = s1[a] - 1.0
            return r
    raise AssertionError("no restore right after another job's segment")


def _job_in_two_places(r):
    """A checkpoint or restore segment handed to a job running elsewhere at its start."""
    sj, sl, kind = r["seg_job"].values, r["seg_lease"].values, r["seg_kind"].values
    s0, s1 = r["seg_start_s"].values, r["seg_end_s"].values
    finish = r["finish_s"].values
    for a in range(sj.size):
        for b in np.flatnonzero((kind != "run") & (sj != sj[a]) & (sl != sl[a])
                                & (s0[a] < s0) & (s0 < s1[a] - 1.0)
                                & (s1 <= finish[sj[a]])):
            sj[b] = sj[a]
            return r
    raise AssertionError("no segment to hand over")


def _serverful_peak(r) -> int:
    prov = r["lease_provider"].values
    t = np.r_[r["lease_start_s"].values[prov != "modal"], r["lease_end_s"].values[prov != "modal"]]
    step = np.r_[np.ones(t.size // 2), -np.ones(t.size // 2)]
    return int(np.cumsum(step[np.lexsort((step, t))]).max())


def _cap_below_peak(r):
    r.attrs["capacity"] = _serverful_peak(r) - 1
    return r


def _F_of_one_second(r):
    r["F_s"].values[:] = 1.0
    r.attrs["F0"] = 1.0
    return r


def _vast_price(r):
    i = _first(r, r["lease_provider"].values == "vast")

    def change(run):
        run.lease_price[i] *= 1.5
    return _reassembled(r, change)


def _offer_twice(r):
    """A Vast.ai lease moved to the offer slot of one open at its start, at that slot's
    price in the book."""
    prov, offer = r["lease_provider"].values, r["lease_offer"].values
    start, end = r["lease_start_s"].values, r["lease_end_s"].values
    book = r["price_per_gpu_h"].values
    vast = np.flatnonzero(prov == "vast")
    for a in vast:
        for b in vast:
            minute = min(int(start[b] // 60), book.shape[0] - 1)
            if (a != b and start[a] <= start[b] < end[a] - 1.0 and offer[a] != offer[b]
                    and np.isfinite(book[minute, offer[a]])):
                def change(run, a=a, b=b, minute=minute):
                    run.lease_offer[b] = run.lease_offer[a]
                    run.lease_price[b] = book[minute, offer[a]]
                return _reassembled(r, change)
    raise AssertionError("no two Vast.ai leases open at once")


def _modal_price(r):
    i = _first(r, r["lease_provider"].values == "modal")

    def change(run):
        run.lease_price[i] = 1.0
    return _reassembled(r, change)


def _lambda_at_the_market_price(r):
    """A Vast.ai lease billed as a Lambda one, at its market price."""
    i = _first(r, r["lease_provider"].values == "vast")
    assert not np.isclose(r["lease_price_per_h"].values[i], PROVIDERS["lambda"].price_per_gpu_h)

    def change(run):
        run.lease_provider[i] = "lambda"
    return _reassembled(r, change)


#: a number as the messages show it (``!r`` of a numpy float reads ``np.float64(...)``)
NUM = r"(np\.float64\()?[\d.]+\)?"

#: rule name -> (corruption of a copy of the valid result, the detail its message gives)
CASES = {
    "every job finishes": (_submitted_after_finish, rf"job 'allpass-4' finish_s={NUM}"),
    "jct = finish - submit": (_set("jct_s", 2, lambda v: v + 5.0), r"job 'allpass-2'"),
    "lease start <= ready <= end": (_modal_start_after_ready,
                                    rf"lease 0 \(modal\): {NUM}, {NUM}, {NUM}"),
    "segments end after they start": (_reversed_checkpoint,
                                      r"segment \d+ of job 'allpass-\d+'"),
    "jobs run only on ready workers": (_ready_later,
                                       r"job 'allpass-0' run \[[\d.]+, [\d.]+\] on lease 0 "
                                       r"ready [\d.]+, ended [\d.]+"),
    "one job per worker at a time": (_restore_early_on_a_busy_worker,
                                      r"lease \d+ has overlapping segments near t=[\d.]+"),
    "a job does one thing at a time": (_job_in_two_places,
                                       r"job 'allpass-\d+' has overlapping segments near "
                                       r"t=[\d.]+"),
    "serverful concurrency <= the cap": (_cap_below_peak,
                                         r"(\d+) workers open at once, cap \d+"),
    "each serverless stint <= the F in force": (_F_of_one_second,
                                                r"job 'allpass-\d+' ran [\d.]+ s on Modal, "
                                                r"F <= 1\.000"),
    "work conserved across demotion": (_set("work_s", 7, lambda v: v + 10.0),
                                       rf"job 'allpass-7' ran {NUM} s of {NUM} s"),
    "a job's last segment ends at its finish": (
        lambda r: _set("jct_s", 3, lambda v: v + 50.0)(_set("finish_s", 3,
                                                            lambda v: v + 50.0)(r)),
        r"job 'allpass-3'"),
    "serverless_s = work on the serverless tier": (_set("serverless_s", 0,
                                                        lambda v: v + 20.0),
                                                   r"job 'allpass-0'"),
    "marketplace leases pay the offer's price": (_vast_price,
                                                 r"lease \d+: offer \d+ at minute \d+, "
                                                 rf"price {NUM}"),
    "an offer is rented once at a time": (_offer_twice, r"offer slot \d+"),
    "modal leases pay modal's price": (_modal_price, r"lease 0"),
    "lambda leases pay lambda's price": (_lambda_at_the_market_price, r"lease \d+"),
    "cost recomputed from leases": (_set("lease_cost_usd", 1, lambda v: v + 0.01),
                                    r"lease 1"),
}


def test_every_rule_has_a_case_and_names_are_unique():
    names = [rule.name for rule in RULES]
    assert len(set(names)) == len(names)
    assert set(CASES) == set(names)


def test_the_valid_result_breaks_no_rule(valid):
    assert broken_rules(valid) == []
    assert broken_rules(_reassembled(valid, lambda run: None)) == []


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_each_rule_alone(valid, rule):
    corrupt, detail = CASES[rule.name]
    bad = corrupt(valid.copy(deep=True))
    assert broken_rules(bad) == [rule.name]
    message = f"^Allpass result breaks '{re.escape(rule.name)}': {detail}$"
    with pytest.raises(ResultError, match=message) as err:
        check_result(bad)
    assert err.value.rule == rule.name
    check_result(valid)  # the valid result is untouched


def test_check_result_lists_every_rule():
    doc = " ".join(check_result.__doc__.split())
    for rule in RULES:
        assert f"``{rule.name}``" in doc, rule.name
    assert re.search(r"Parameters\s+-+.*Raises\s+-+", check_result.__doc__, re.S)
