"""TITAN's checker rule by rule (lorasched.titan.result.RULES): a valid result broken in
exactly one rule's way breaks that rule alone, and check_result raises its message."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
import xarray as xr

from lorasched import simulate
from lorasched.model.errors import ResultError
from lorasched.titan.decisions import RUN, SWITCH, Schedule
from lorasched.titan.result import RULES, assemble, broken_rules, check_result
from lorasched.titan.workload import titan_scenario


@pytest.fixture(scope="module")
def scenario() -> xr.Dataset:
    return titan_scenario(jobs=20)


@pytest.fixture(scope="module")
def valid(scenario) -> dict[str, xr.Dataset]:
    """TITAN's result (allocations in A) and SRTF's (each job on its request): each unit
    one job, a switch segment then a run segment."""
    results = {"set": simulate(scenario, "titan"), "requested": simulate(scenario, "srtf")}
    for widths, r in results.items():
        assert r.attrs["widths"] == widths
        assert (r["unit_size"].values == 1).all()
        assert r["seg_kind"].values.tolist() == [SWITCH, RUN] * r.sizes["unit"]
    return results


def _schedule(r: xr.Dataset) -> Schedule:
    """The :class:`Schedule` a result was assembled from (assemble's inverse)."""
    members = [[] for _ in range(r.sizes["unit"])]
    for u, j in zip(r["member_unit"].values.tolist(), r["member_job"].values.tolist(),
                    strict=True):
        members[u].append(j)
    return Schedule(
        unit_members=tuple(tuple(m) for m in members),
        seg_unit=r["seg_unit"].values.copy(), seg_gpus=r["seg_gpus"].values.copy(),
        seg_start=r["seg_start_s"].values.copy(), seg_end=r["seg_end_s"].values.copy(),
        seg_kind=r["seg_kind"].values.copy(), part_segment=r["part_segment"].values.copy(),
        part_job=r["part_job"].values.copy(), part_progress=r["part_progress"].values.copy(),
        decision_time=r["decision_time_s"].values.copy(),
        decision_candidates=r["decision_candidates"].values.copy(),
        decision_seconds=r["solve_s"].values.copy(), widths=r.attrs["widths"])


def _reassembled(r: xr.Dataset, change) -> xr.Dataset:
    """``r``'s schedule changed by ``change(schedule)`` (in place, or a new one returned)
    and assembled again: per-job values and attributes follow the changed segments."""
    schedule = _schedule(r)
    schedule = change(schedule) or schedule
    return assemble(titan_scenario(jobs=20), schedule, algorithm=r.attrs["algorithm"],
                    seed=None, options={})


def _segment(r, kind, unit=None, k=0) -> int:
    """The ``k``-th segment of ``kind`` (of ``unit``)."""
    mask = r["seg_kind"].values == kind
    if unit is not None:
        mask &= r["seg_unit"].values == unit
    return int(np.flatnonzero(mask)[k])


def _unit_of(r, j) -> int:
    return int(r["member_unit"].values[r["member_job"].values == j][0])


# -- corruptions: each takes a copy of the valid result and returns it broken -------------


def _set(name, index, value):
    def corrupt(r):
        if name in r.attrs:
            r.attrs[name] = value(r.attrs[name]) if callable(value) else value
        else:
            r[name].values[index] = value(r[name].values[index]) if callable(value) else value
        return r
    return corrupt


def _segments(field, index, value):
    """Change segment field ``field`` (``start``, ``end``, ``gpus``, ``kind``) of segment
    ``index(r)`` to ``value(r, s)``, then re-assemble."""
    def corrupt(r):
        s = index(r)

        def change(schedule):
            getattr(schedule, f"seg_{field}")[s] = value(r, s)
        return _reassembled(r, change)
    return corrupt


def _merge_requested(r):
    """SRTF's unit of job 2 gets job 0 as a second member: job 0 was submitted before it
    and its own segments are over before it starts."""
    u = _unit_of(r, 2)
    assert r["finish_s"].values[0] <= r["seg_start_s"].values[r["seg_unit"].values == u].min()

    def change(schedule):
        members = list(schedule.unit_members)
        members[u] = members[u] + (0,)
        return dataclasses.replace(schedule, unit_members=tuple(members))
    return _reassembled(r, change)


def _zero_length_switch(r):
    return _segments("end", lambda r: _segment(r, SWITCH), lambda r, s: r["seg_start_s"][s])(r)


def _credit_switch(r):
    """Part 0's progress credited to the switch segment before its run segment."""
    s = int(r["part_segment"].values[0])
    r["part_segment"].values[0] = _segment(r, SWITCH, unit=int(r["seg_unit"].values[s]))
    return r


def _swap_part_jobs(r):
    """Parts 0 and 1 credit each other's job: every job's progress still sums to 1."""
    r["part_job"].values[[0, 1]] = r["part_job"].values[[1, 0]]
    return r


def _other_unit(r):
    r["unit"].values[5] = (r["unit"].values[5] + 1) % r.sizes["unit"]
    return r


#: rule name -> (system ("set": TITAN, "requested": SRTF), corruption, message regex)
CASES = {
    "member jobs exist": ("set", _set("member_job", 0, 20),
                          r"unit \d+ lists job 20, which does not exist"),
    "unit_size from the members": ("set", _set("unit_size", 0, 2),
                                   r"'unit_size' does not match the member lists"),
    "segment units exist": ("set", _set("seg_unit", 0, 20),
                            r"a segment names a unit that does not exist"),
    "widths known": ("set", _set("widths", None, "any"),
                     r"attr 'widths' must be one of \('set', 'requested'\), got 'any'"),
    "requested widths merge nothing": ("requested", _merge_requested,
                                       r"unit \d+ merges jobs \[2, 0\], but its policy runs "
                                       r"jobs as requested"),
    "segment of positive length": ("set", _zero_length_switch,
                                   r"segment 0 \(unit 1\) has no positive length"),
    "(2) allocation in A": ("set", _segments("gpus", lambda r: _segment(r, RUN),
                                             lambda r, s: 3),
                            r"segment 1 \(unit 1\) uses 3 GPUs, not in the allocation set A = "
                            r"\[1, 2, 4, .*, 64\] \(eq\. 2\)"),
    "requested GPUs": ("requested", _segments("gpus", lambda r: _segment(r, RUN),
                                              lambda r, s: r["seg_gpus"][s] // 2),
                       r"segment 1 \(job 1\) uses 4 GPUs, not the 8 it requested"),
    "segment kind known": ("set", _segments("kind", lambda r: _segment(r, SWITCH),
                                            lambda r, s: 2),
                           r"segment 0 has unknown kind 2"),
    "after the members' submission": ("set", _segments(
        "start", lambda r: _segment(r, SWITCH), lambda r, s: r["seg_start_s"][s] - 1),
        r"segment 0 \(unit 1\) starts at 2228 s, before the submission of a member "
        r"\(first member submitted at 2229 s\)"),
    "(4) at most M GPUs": ("set", _set("gpus", None, 16),
                           r"\d+ GPUs in use at [\d.]+ s, more than the cluster's 16 "
                           r"\(eq\. 4\)"),
    "(3, 9-10) a job in one place at a time": ("set", _segments(
        "end", lambda r: _segment(r, SWITCH), lambda r, s: r["seg_end_s"][s] + 1),
        r"job 1 runs twice at once: segments 0 \(unit 1\) and 1 \(unit 1\) overlap "
        r"\(eqs\. 3, 9-10\)"),
    "progress finite and non-negative": ("set", _set("part_progress", 0, np.nan),
                                         r"a part has negative or non-finite progress"),
    "progress in run segments": ("set", _credit_switch,
                                 r"progress credited to a switch segment"),
    "progress to members": ("set", _swap_part_jobs,
                            r"part 0 credits job \d+, not a member of segment \d+'s unit"),
    "progress sums to 1": ("set", _set("part_progress", 0, lambda p: p / 2),
                           r"job \d+'s progress sums to 0\.5, not 1"),
    "start_s from the segments": ("set", _set("start_s", 5, lambda v: v + 60),
                                  r"job 5: 'start_s' = 10522 but its segments give 10462"),
    "finish_s from the segments": ("set", _set("finish_s", 5, lambda v: v + 60),
                                   r"job 5: 'finish_s' = [\d.]+ but its segments give [\d.]+"),
    "jct_s = finish_s - submit_s": ("set", _set("jct_s", 5, lambda v: v + 60),
                                    r"'jct_s' is not finish_s - submit_s"),
    "unit finishes the job": ("set", _other_unit,
                              r"job 5: 'unit' = \d+ but its last segment is unit \d+'s"),
    "merged from the units": ("set", _set("merged", 5, True),
                              r"'merged' does not match the units that finished the jobs"),
    "attributes from the segments": ("set", _set("avg_jct_h", None, lambda v: v * 1.01),
                                     r"attr 'avg_jct_h' = [\d.]+ but the segments give "
                                     r"(np\.float64\()?[\d.]+\)?"),
}


def test_every_rule_has_a_case_and_names_are_unique():
    names = [rule.name for rule in RULES]
    assert len(set(names)) == len(names)
    assert set(CASES) == set(names)


@pytest.mark.parametrize("widths", ["set", "requested"])
def test_the_valid_results_break_no_rule(valid, widths):
    assert broken_rules(valid[widths]) == []
    assert broken_rules(_reassembled(valid[widths], lambda schedule: None)) == []


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_each_rule_alone(valid, rule):
    widths, corrupt, message = CASES[rule.name]
    bad = corrupt(valid[widths].copy(deep=True))
    assert broken_rules(bad) == [rule.name]
    with pytest.raises(ResultError, match=f"^check_result: {message}$") as err:
        check_result(bad)
    assert err.value.rule == rule.name
    check_result(valid[widths])  # the valid result is untouched


def test_segments_are_checked_one_at_a_time(valid):
    """Segment 0 of an unknown kind and segment 2 of no length: the checker raises for
    segment 0 (kind), as it always did, though the length rule comes first in the table."""
    r = valid["set"]

    def change(schedule):
        schedule.seg_kind[0] = 2
        schedule.seg_end[2] = schedule.seg_start[2]
    bad = _reassembled(r, change)
    assert broken_rules(bad) == ["segment of positive length", "segment kind known"]
    with pytest.raises(ResultError, match="segment 0 has unknown kind 2") as err:
        check_result(bad)
    assert err.value.rule == "segment kind known"


def test_check_result_lists_every_rule():
    doc = " ".join(check_result.__doc__.split())
    for rule in RULES:
        assert f"``{rule.name}``" in doc, rule.name
    assert re.search(r"Parameters\s+-+.*Raises\s+-+", check_result.__doc__, re.S)
