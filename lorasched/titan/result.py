"""A TITAN-system result: scenario + schedule + JCT accounting (:func:`assemble`), and its
checker (:func:`check_result`). The variables: :doc:`/titan_model`.
"""

from __future__ import annotations

import json

import numpy as np
import xarray as xr

from ..model.errors import ResultError
from .milp import allocation_set
from .schedule import KINDS, RUN, SWITCH, WIDTHS, Schedule

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


def check_result(result: xr.Dataset) -> None:
    """Re-derive and check a TITAN result; :class:`~lorasched.model.errors.ResultError` naming the
    broken constraint.

    Checked: GPUs in use <= M at every instant (eq. 4/11); every allocation in the
    scenario's set A (eq. 2),
    or, for the baselines (``widths="requested"``), the job's requested GPUs and no merged
    units; nothing before submission; each job's progress sums to 1; a job is in at most
    one running thing at a time (no member runs alone while its merged job runs, eqs.
    9-10); the per-job times and the attrs match the segments."""
    M = int(result.attrs["gpus"])
    n = result.sizes["job"]
    submit = result["submit_s"].values
    seg_unit = result["seg_unit"].values
    gpus = result["seg_gpus"].values
    s0, s1 = result["seg_start_s"].values, result["seg_end_s"].values
    kind = result["seg_kind"].values
    mem_u, mem_j = result["member_unit"].values, result["member_job"].values
    n_units = result.sizes["unit"]
    members = [[] for _ in range(n_units)]
    for u, j in zip(mem_u.tolist(), mem_j.tolist(), strict=True):
        if not 0 <= j < n:
            _fail(f"unit {u} lists job {j}, which does not exist")
        members[u].append(j)
    if np.any(result["unit_size"].values != [len(m) for m in members]):
        _fail("'unit_size' does not match the member lists")
    if seg_unit.size and (seg_unit.min() < 0 or seg_unit.max() >= n_units):
        _fail("a segment names a unit that does not exist")
    # the scenario's allocations (the paper's A, or the authors' code's with 3 GPUs)
    legal = (set(result["allocation"].values.tolist()) if "allocation" in result.coords
             else set(allocation_set(M)))
    widths = result.attrs.get("widths")
    if widths not in WIDTHS:
        _fail(f"attr 'widths' must be one of {WIDTHS}, got {widths!r}")
    requested = result["requested_gpus"].values
    for u, m in enumerate(members):
        if widths == "requested" and len(m) != 1:
            _fail(f"unit {u} merges jobs {m}, but its policy runs jobs as requested")
    for s in range(seg_unit.size):
        if not s1[s] > s0[s]:
            _fail(f"segment {s} (unit {seg_unit[s]}) has no positive length")
        if widths == "set" and int(gpus[s]) not in legal:
            _fail(f"segment {s} (unit {seg_unit[s]}) uses {gpus[s]} GPUs, not in the "
                  f"allocation set A = {sorted(legal)} (eq. 2)")
        if widths == "requested" and gpus[s] != requested[members[seg_unit[s]][0]]:
            j = members[seg_unit[s]][0]
            _fail(f"segment {s} (job {j}) uses {gpus[s]} GPUs, not the {requested[j]} it "
                  f"requested")
        if kind[s] not in (RUN, SWITCH):
            _fail(f"segment {s} has unknown kind {kind[s]}")
        first = min(submit[j] for j in members[seg_unit[s]])
        if s0[s] < max(submit[j] for j in members[seg_unit[s]]) - TOL:
            _fail(f"segment {s} (unit {seg_unit[s]}) starts at {s0[s]:g} s, before the "
                  f"submission of a member (first member submitted at {first:g} s)")
    # GPUs in use at every instant (eq. 4 / 11)
    times = np.r_[s0, s1]
    change = np.r_[gpus, -gpus]
    order = np.lexsort((change, times))  # ends (negative) before starts at one instant
    busy = np.cumsum(change[order])
    if busy.size and busy.max() > M:
        at = times[order][int(np.argmax(busy))]
        _fail(f"{int(busy.max())} GPUs in use at {at:g} s, more than the cluster's {M} "
              f"(eq. 4)")
    # each job in one place at a time: its segments (alone or merged) never overlap
    per_job: list[list[tuple[float, float, int]]] = [[] for _ in range(n)]
    for s in range(seg_unit.size):
        for j in members[seg_unit[s]]:
            per_job[j].append((s0[s], s1[s], s))
    for j, segs in enumerate(per_job):
        segs.sort()
        for (_a0, a1, sa), (b0, _b1, sb) in zip(segs, segs[1:], strict=False):
            if b0 < a1 - TOL:
                ua, ub = seg_unit[sa], seg_unit[sb]
                what = ("runs alone while its merged job runs" if len(members[ua]) !=
                        len(members[ub]) else "runs twice at once")
                _fail(f"job {j} {what}: segments {sa} (unit {ua}) and {sb} (unit {ub}) "
                      f"overlap (eqs. 3, 9-10)")
    # progress
    p_seg, p_job = result["part_segment"].values, result["part_job"].values
    prog = result["part_progress"].values
    if np.any(prog < -TOL) or np.any(~np.isfinite(prog)):
        _fail("a part has negative or non-finite progress")
    if p_seg.size and (np.any(kind[p_seg] != RUN)):
        _fail("progress credited to a switch segment")
    for p in range(p_seg.size):
        if p_job[p] not in members[seg_unit[p_seg[p]]]:
            _fail(f"part {p} credits job {p_job[p]}, not a member of segment {p_seg[p]}'s "
                  f"unit")
    total = np.bincount(p_job, weights=prog, minlength=n)
    bad = np.flatnonzero(np.abs(total - 1.0) > TOL)
    if bad.size:
        j = int(bad[0])
        _fail(f"job {j}'s progress sums to {total[j]:.9g}, not 1")
    # re-derived per-job values and attrs
    from_segments = _derive_arrays(seg_unit, s0, s1, members, n)
    for name, values in zip(("start_s", "finish_s"), from_segments, strict=True):
        if not np.allclose(result[name].values, values, rtol=0, atol=TOL):
            j = int(np.flatnonzero(~np.isclose(result[name].values, values, rtol=0,
                                               atol=TOL))[0])
            _fail(f"job {j}: {name!r} = {result[name].values[j]:g} but its segments give "
                  f"{values[j]:g}")
    finish = from_segments[1]
    jct = finish - submit
    if not np.allclose(result["jct_s"].values, jct, rtol=0, atol=TOL):
        _fail("'jct_s' is not finish_s - submit_s")
    last = np.full(n, -1, dtype=np.int64)  # the unit that finished each job
    for s in np.argsort(s1, kind="stable"):
        for j in members[seg_unit[s]]:
            if s1[s] >= finish[j] - TOL:
                last[j] = seg_unit[s]
    if not np.array_equal(result["unit"].values, last):
        j = int(np.flatnonzero(result["unit"].values != last)[0])
        _fail(f"job {j}: 'unit' = {result['unit'].values[j]} but its last segment is unit "
              f"{last[j]}'s")
    size = np.array([len(m) for m in members], dtype=np.int64)
    merged = size[last] >= 2 if n else np.zeros(0, dtype=bool)
    if not np.array_equal(result["merged"].values, merged):
        _fail("'merged' does not match the units that finished the jobs")
    switch_h = ((s1 - s0) * gpus)[kind == SWITCH].sum() / 3600
    for attr, value in (("avg_jct_h", jct.mean() / 3600 if n else 0.0),
                        ("makespan_h", (finish.max() - submit.min()) / 3600 if n else 0.0),
                        ("switch_h", switch_h), ("n_jobs", n),
                        ("n_merged_jobs", int(merged.sum())), ("n_units", n_units)):
        if not np.isclose(result.attrs[attr], value, rtol=1e-9, atol=1e-12):
            _fail(f"attr {attr!r} = {result.attrs[attr]!r} but the segments give {value!r}")


def _derive_arrays(seg_unit, s0, s1, members, n):
    start = np.full(n, np.inf)
    finish = np.full(n, -np.inf)
    for s in range(seg_unit.size):
        for j in members[seg_unit[s]]:
            start[j] = min(start[j], s0[s])
            finish[j] = max(finish[j], s1[s])
    return start, finish
