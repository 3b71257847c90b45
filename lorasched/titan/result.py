"""A TITAN-system result: scenario + schedule + JCT accounting (:func:`assemble`), and its
checker, one named rule of :data:`RULES` each (:func:`check_result`, :func:`broken_rules`).
The variables: :doc:`/titan_model`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import xarray as xr

from ..model import rules
from ..model.errors import ResultError
from ..model.rules import Rule
from .decisions import KINDS, RUN, SWITCH, WIDTHS, Schedule
from .milp import allocation_set

#: tolerance of the checker on progress sums and times
TOL = 1e-6


def assemble(scenario: xr.Dataset, schedule: Schedule, *, algorithm: str, seed,
             options: dict) -> xr.Dataset:
    """The result Dataset (module docstring) of ``schedule`` on ``scenario``."""
    n = scenario.sizes["job"]
    start, finish, unit = _derive(schedule, n)
    members = [(u, j) for u, m in enumerate(schedule.unit_members) for j in m]
    mem = np.array(members, dtype=np.int64).reshape(-1, 2)
    size = np.array([len(m) for m in schedule.unit_members], dtype=np.int64)
    submit = scenario["submit_s"].values
    jct = finish - submit
    gpu_switch = ((schedule.seg_end - schedule.seg_start) * schedule.seg_gpus)[
        schedule.seg_kind == SWITCH].sum()
    merged = size[unit] >= 2 if size.size else np.zeros(n, dtype=bool)
    out = scenario.copy()
    out = out.assign(
        start_s=("job", start, {"units": "s"}),
        finish_s=("job", finish, {"units": "s"}),
        jct_s=("job", jct, {"units": "s", "long_name": "job completion time"}),
        unit=("job", unit),
        merged=("job", merged),
        unit_size=("unit", size),
        member_unit=("member", mem[:, 0]),
        member_job=("member", mem[:, 1]),
        seg_unit=("segment", schedule.seg_unit),
        seg_gpus=("segment", schedule.seg_gpus),
        seg_start_s=("segment", schedule.seg_start, {"units": "s"}),
        seg_end_s=("segment", schedule.seg_end, {"units": "s"}),
        seg_kind=("segment", schedule.seg_kind, {"kinds": list(KINDS)}),
        part_segment=("part", schedule.part_segment),
        part_job=("part", schedule.part_job),
        part_progress=("part", schedule.part_progress),
        decision_time_s=("decision", schedule.decision_time, {"units": "s"}),
        decision_candidates=("decision", schedule.decision_candidates),
        solve_s=("decision", schedule.decision_seconds, {"units": "s", "timing": 1}),
    )
    out.attrs.update(
        algorithm=algorithm, seed=-1 if seed is None else int(seed),
        options=json.dumps(options, sort_keys=True, default=str),
        avg_jct_h=float(jct.mean() / 3600) if n else 0.0,
        makespan_h=float((finish.max() - submit.min()) / 3600) if n else 0.0,
        switch_h=float(gpu_switch / 3600), n_jobs=int(n), n_merged_jobs=int(merged.sum()),
        n_units=int(size.size), widths=schedule.widths)
    return out


def _derive(schedule: Schedule, n: int):
    """(start, finish, finishing unit) per job from the segments."""
    start = np.full(n, np.nan)
    finish = np.full(n, np.nan)
    unit = np.full(n, -1, dtype=np.int64)
    for u, seg_start, seg_end in zip(schedule.seg_unit.tolist(), schedule.seg_start.tolist(),
                                     schedule.seg_end.tolist(), strict=True):
        for j in schedule.unit_members[u]:
            if not seg_start >= start[j]:  # nan-aware min
                start[j] = seg_start
            if not seg_end <= finish[j]:
                finish[j] = seg_end
                unit[j] = u
    return start, finish, unit


def _fail(what: str) -> None:
    raise ResultError(f"check_result: {what}")


@dataclass(frozen=True, eq=False)
class _Context:
    """A result's variables as plain arrays, decoded once for the rules; what more than
    one rule needs is derived once, on first use."""

    result: xr.Dataset
    M: int  # GPUs of the cluster
    n: int  # jobs
    submit: np.ndarray
    seg_unit: np.ndarray
    gpus: np.ndarray
    s0: np.ndarray
    s1: np.ndarray
    kind: np.ndarray
    mem_u: np.ndarray
    mem_j: np.ndarray
    n_units: int
    widths: object
    requested: np.ndarray  # GPUs each job requested
    p_seg: np.ndarray  # parts: (segment, job, progress) credits
    p_job: np.ndarray
    prog: np.ndarray

    @property
    def n_segments(self) -> int:
        return self.seg_unit.size

    @cached_property
    def members(self) -> list[list[int]]:
        """Each unit's jobs, from the member lists, read in order; a job that does not
        exist breaks rule ``member jobs exist`` here."""
        members = [[] for _ in range(self.n_units)]
        for u, j in zip(self.mem_u.tolist(), self.mem_j.tolist(), strict=True):
            if not 0 <= j < self.n:
                _fail(f"unit {u} lists job {j}, which does not exist")
            members[u].append(j)
        return members

    @cached_property
    def legal(self) -> set:
        """The scenario's allocations (the paper's A, or the authors' code's with 3 GPUs)."""
        return (set(self.result["allocation"].values.tolist())
                if "allocation" in self.result.coords else set(allocation_set(self.M)))

    @cached_property
    def from_segments(self) -> tuple[np.ndarray, np.ndarray]:
        """(start, finish) per job from its segments."""
        return _derive_arrays(self.seg_unit, self.s0, self.s1, self.members, self.n)

    @cached_property
    def last(self) -> np.ndarray:
        """The unit that finished each job."""
        finish = self.from_segments[1]
        last = np.full(self.n, -1, dtype=np.int64)
        for s in np.argsort(self.s1, kind="stable"):
            for j in self.members[self.seg_unit[s]]:
                if self.s1[s] >= finish[j] - TOL:
                    last[j] = self.seg_unit[s]
        return last

    @cached_property
    def merged(self) -> np.ndarray:
        """Whether each job finished in a merged unit."""
        size = np.array([len(m) for m in self.members], dtype=np.int64)
        return size[self.last] >= 2 if self.n else np.zeros(0, dtype=bool)


def _context(result: xr.Dataset) -> _Context:
    return _Context(result=result, M=int(result.attrs["gpus"]), n=result.sizes["job"],
                    submit=result["submit_s"].values, seg_unit=result["seg_unit"].values,
                    gpus=result["seg_gpus"].values, s0=result["seg_start_s"].values,
                    s1=result["seg_end_s"].values, kind=result["seg_kind"].values,
                    mem_u=result["member_unit"].values, mem_j=result["member_job"].values,
                    n_units=result.sizes["unit"], widths=result.attrs.get("widths"),
                    requested=result["requested_gpus"].values,
                    p_seg=result["part_segment"].values, p_job=result["part_job"].values,
                    prog=result["part_progress"].values)


def _member_jobs_exist(c: _Context) -> None:
    """Every member job exists: checked as the member lists are read, in their order
    (:attr:`_Context.members`, which the later rules use)."""
    _ = c.members


def _unit_size_from_members(c: _Context) -> None:
    if np.any(c.result["unit_size"].values != [len(m) for m in c.members]):
        _fail("'unit_size' does not match the member lists")


def _segment_units_exist(c: _Context) -> None:
    if c.seg_unit.size and (c.seg_unit.min() < 0 or c.seg_unit.max() >= c.n_units):
        _fail("a segment names a unit that does not exist")


def _widths_known(c: _Context) -> None:
    if c.widths not in WIDTHS:
        _fail(f"attr 'widths' must be one of {WIDTHS}, got {c.widths!r}")


def _requested_units_unmerged(c: _Context) -> None:  # the baselines merge nothing
    for u, m in enumerate(c.members):
        if c.widths == "requested" and len(m) != 1:
            _fail(f"unit {u} merges jobs {m}, but its policy runs jobs as requested")


# the rules of one segment s (checked segment by segment, all of them on each)


def _positive_length(c: _Context, s: int) -> None:
    if not c.s1[s] > c.s0[s]:
        _fail(f"segment {s} (unit {c.seg_unit[s]}) has no positive length")


def _allocation_in_set(c: _Context, s: int) -> None:  # (2)
    if c.widths == "set" and int(c.gpus[s]) not in c.legal:
        _fail(f"segment {s} (unit {c.seg_unit[s]}) uses {c.gpus[s]} GPUs, not in the "
              f"allocation set A = {sorted(c.legal)} (eq. 2)")


def _requested_gpus(c: _Context, s: int) -> None:  # the baselines' allocation
    if c.widths == "requested" and c.gpus[s] != c.requested[c.members[c.seg_unit[s]][0]]:
        j = c.members[c.seg_unit[s]][0]
        _fail(f"segment {s} (job {j}) uses {c.gpus[s]} GPUs, not the {c.requested[j]} it "
              f"requested")


def _known_kind(c: _Context, s: int) -> None:
    if c.kind[s] not in (RUN, SWITCH):
        _fail(f"segment {s} has unknown kind {c.kind[s]}")


def _after_submission(c: _Context, s: int) -> None:
    submitted = [c.submit[j] for j in c.members[c.seg_unit[s]]]
    first = min(submitted)
    if c.s0[s] < max(submitted) - TOL:
        _fail(f"segment {s} (unit {c.seg_unit[s]}) starts at {c.s0[s]:g} s, before the "
              f"submission of a member (first member submitted at {first:g} s)")


def _at_most_M_gpus(c: _Context) -> None:  # (4) / (11)
    times = np.r_[c.s0, c.s1]
    change = np.r_[c.gpus, -c.gpus]
    order = np.lexsort((change, times))  # ends (negative) before starts at one instant
    busy = np.cumsum(change[order])
    if busy.size and busy.max() > c.M:
        at = times[order][int(np.argmax(busy))]
        _fail(f"{int(busy.max())} GPUs in use at {at:g} s, more than the cluster's {c.M} "
              f"(eq. 4)")


def _one_place_at_a_time(c: _Context) -> None:  # (3), (9)-(10)
    per_job: list[list[tuple[float, float, int]]] = [[] for _ in range(c.n)]
    for s in range(c.seg_unit.size):
        for j in c.members[c.seg_unit[s]]:
            per_job[j].append((c.s0[s], c.s1[s], s))
    for j, segs in enumerate(per_job):
        segs.sort()
        for (_a0, a1, sa), (b0, _b1, sb) in zip(segs, segs[1:], strict=False):
            if b0 < a1 - TOL:
                ua, ub = c.seg_unit[sa], c.seg_unit[sb]
                what = ("runs alone while its merged job runs" if len(c.members[ua]) !=
                        len(c.members[ub]) else "runs twice at once")
                _fail(f"job {j} {what}: segments {sa} (unit {ua}) and {sb} (unit {ub}) "
                      f"overlap (eqs. 3, 9-10)")


def _progress_finite(c: _Context) -> None:
    if np.any(c.prog < -TOL) or np.any(~np.isfinite(c.prog)):
        _fail("a part has negative or non-finite progress")


def _progress_in_run_segments(c: _Context) -> None:
    if c.p_seg.size and (np.any(c.kind[c.p_seg] != RUN)):
        _fail("progress credited to a switch segment")


def _progress_to_members(c: _Context) -> None:
    p_seg, p_job = c.p_seg, c.p_job
    for p in range(p_seg.size):
        if p_job[p] not in c.members[c.seg_unit[p_seg[p]]]:
            _fail(f"part {p} credits job {p_job[p]}, not a member of segment {p_seg[p]}'s "
                  f"unit")


def _progress_sums_to_one(c: _Context) -> None:  # each job's T_i done: sec. 3
    total = np.bincount(c.p_job, weights=c.prog, minlength=c.n)
    bad = np.flatnonzero(np.abs(total - 1.0) > TOL)
    if bad.size:
        j = int(bad[0])
        _fail(f"job {j}'s progress sums to {total[j]:.9g}, not 1")


def _matches_segments(c: _Context, name: str, values: np.ndarray) -> None:
    stored = c.result[name].values
    if not np.allclose(stored, values, rtol=0, atol=TOL):
        j = int(np.flatnonzero(~np.isclose(stored, values, rtol=0, atol=TOL))[0])
        _fail(f"job {j}: {name!r} = {stored[j]:g} but its segments give {values[j]:g}")


def _start_from_segments(c: _Context) -> None:
    _matches_segments(c, "start_s", c.from_segments[0])


def _finish_from_segments(c: _Context) -> None:
    _matches_segments(c, "finish_s", c.from_segments[1])


def _jct_is_finish_minus_submit(c: _Context) -> None:  # JCT, sec. 3
    if not np.allclose(c.result["jct_s"].values, c.from_segments[1] - c.submit, rtol=0,
                       atol=TOL):
        _fail("'jct_s' is not finish_s - submit_s")


def _unit_finishes_the_job(c: _Context) -> None:
    unit = c.result["unit"].values
    if not np.array_equal(unit, c.last):
        j = int(np.flatnonzero(unit != c.last)[0])
        _fail(f"job {j}: 'unit' = {unit[j]} but its last segment is unit {c.last[j]}'s")


def _merged_from_units(c: _Context) -> None:
    if not np.array_equal(c.result["merged"].values, c.merged):
        _fail("'merged' does not match the units that finished the jobs")


def _attributes_from_segments(c: _Context) -> None:
    n, finish, jct = c.n, c.from_segments[1], c.from_segments[1] - c.submit
    switch_h = ((c.s1 - c.s0) * c.gpus)[c.kind == SWITCH].sum() / 3600
    for attr, value in (("avg_jct_h", jct.mean() / 3600 if n else 0.0),
                        ("makespan_h", (finish.max() - c.submit.min()) / 3600 if n else 0.0),
                        ("switch_h", switch_h), ("n_jobs", n),
                        ("n_merged_jobs", int(c.merged.sum())), ("n_units", c.n_units)):
        if not np.isclose(c.result.attrs[attr], value, rtol=1e-9, atol=1e-12):
            _fail(f"attr {attr!r} = {c.result.attrs[attr]!r} but the segments give {value!r}")


#: the rules of :func:`check_result`, in the order it checks them (``per="n_segments"``:
#: checked segment by segment, each segment by all such rules in a row before the next)
RULES = (
    Rule("member jobs exist", _member_jobs_exist, guard=True),
    Rule("unit_size from the members", _unit_size_from_members),
    Rule("segment units exist", _segment_units_exist, guard=True),
    Rule("widths known", _widths_known),
    Rule("requested widths merge nothing", _requested_units_unmerged),
    Rule("segment of positive length", _positive_length, per="n_segments"),
    Rule("(2) allocation in A", _allocation_in_set, per="n_segments"),
    Rule("requested GPUs", _requested_gpus, per="n_segments"),
    Rule("segment kind known", _known_kind, per="n_segments"),
    Rule("after the members' submission", _after_submission, per="n_segments"),
    Rule("(4) at most M GPUs", _at_most_M_gpus),
    Rule("(3, 9-10) a job in one place at a time", _one_place_at_a_time),
    Rule("progress finite and non-negative", _progress_finite),
    Rule("progress in run segments", _progress_in_run_segments),
    Rule("progress to members", _progress_to_members),
    Rule("progress sums to 1", _progress_sums_to_one),
    Rule("start_s from the segments", _start_from_segments),
    Rule("finish_s from the segments", _finish_from_segments),
    Rule("jct_s = finish_s - submit_s", _jct_is_finish_minus_submit),
    Rule("unit finishes the job", _unit_finishes_the_job),
    Rule("merged from the units", _merged_from_units),
    Rule("attributes from the segments", _attributes_from_segments),
)


def check_result(result: xr.Dataset) -> None:
    """Re-derive and check a TITAN result against the model.

    Runs the rules of :data:`RULES` in order; the first one the result breaks raises (its
    name is the error's ``rule`` attribute). The rules: ``member jobs exist``, ``unit_size
    from the members``, ``segment units exist``, ``widths known``, ``requested widths merge
    nothing``; segment by segment: ``segment of positive length``, ``(2) allocation in A``
    (``widths="set"``), ``requested GPUs`` (``widths="requested"``, the baselines),
    ``segment kind known``, ``after the members' submission``; then ``(4) at most M GPUs``
    (eq. 4/11), ``(3, 9-10) a job in one place at a time`` (no member runs alone while its
    merged job runs), ``progress finite and non-negative``, ``progress in run segments``,
    ``progress to members``, ``progress sums to 1``, ``start_s from the segments``,
    ``finish_s from the segments``, ``jct_s = finish_s - submit_s``, ``unit finishes the
    job``, ``merged from the units``, ``attributes from the segments``.

    Parameters
    ----------
    result : xarray.Dataset
        A TITAN result (module docstring).

    Raises
    ------
    ResultError
        ``check_result: ...`` naming the broken constraint (eq. number), the job, unit or
        segment, and the values.
    """
    rules.check(RULES, _context(result))


def broken_rules(result: xr.Dataset) -> list[str]:
    """The names of every rule of :data:`RULES` that ``result`` breaks, in order (none after
    a broken ``member jobs exist`` or ``segment units exist``: the later rules index with
    them)."""
    return rules.broken(RULES, _context(result))


def _derive_arrays(seg_unit, s0, s1, members, n):
    start = np.full(n, np.inf)
    finish = np.full(n, -np.inf)
    for s in range(seg_unit.size):
        for j in members[seg_unit[s]]:
            start[j] = min(start[j], s0[s])
            finish[j] = max(finish[j], s1[s])
    return start, finish
