"""The TITAN system end to end (lorasched.titan: scenario, switch, cluster, policies, result,
system) against hand-worked schedules, the paper's Table 2 (SoCC'22 sec. 4.2) and Fig. 3's
switch costs, the result checker's constraints, determinism and the system's plumbing."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import lorasched
from lorasched.model.errors import InputError, ResultError
from lorasched.titan import policies
from lorasched.titan.cluster import TitanCluster
from lorasched.titan.decisions import RUN, SWITCH
from lorasched.titan.lut import from_frames
from lorasched.titan.merging import LOG_LAW, merged_iterations
from lorasched.titan.milp import solve_with_merging
from lorasched.titan.result import check_result
from lorasched.titan.scenario import to_arrays, validate
from lorasched.titan.switch import switch_seconds, switch_table
from lorasched.titan.system import METRICS, measure
from lorasched.titan.workload import build, titan_scenario

BATCH = 32


# --------------------------------------------------------------------------- helpers


def _lut(steps: dict[str, float]):
    """A LUT whose placement ``p`` takes ``steps[p]`` seconds per step at local batch 16
    and 32 (so a global batch of 32 runs at that step time on 1 or 2 GPUs)."""
    rows = [(p, b, s, 0.0) for p, s in steps.items() for b in (16, 32)]
    frame = pd.DataFrame(rows, columns=["placement", "local_bsz", "step_time", "sync_time"])
    return from_frames(frame, gpu="T", model="m", source="test")


def _scenario(jobs, gpus: int, steps: dict[str, float]) -> xr.Dataset:
    """A scenario from ``jobs`` = [(submit_s, requested_gpus, iterations, application,
    samples_per_epoch)] on ``gpus`` GPUs with the step times ``steps`` (see _lut)."""
    n = len(jobs)
    submit, req, iters, app, scale = (list(c) for c in zip(*jobs, strict=True))
    table = xr.Dataset({
        "name": ("job", np.array([f"j{i}" for i in range(n)], dtype=object)),
        "application": ("job", np.array(app, dtype=object)),
        "submit_s": ("job", np.array(submit, dtype=float)),
        "requested_gpus": ("job", np.array(req, dtype=np.int64)),
        "target_batch_size": ("job", np.full(n, BATCH, dtype=np.int64)),
        "total_iterations": ("job", np.array(iters, dtype=np.int64)),
        "samples_per_epoch": ("job", np.array(scale, dtype=float)),
    })
    return build(table, _lut(steps), gpus)


def _scale_for(n_max: int, merged: float) -> float:
    """Dataset scale S of two equal-scale members such that the merged job of the longer
    (``n_max`` iterations) lasts ``merged`` iterations under the log law:
    n_max * L(2S) / L(S) = merged  <=>  L(S) = P1 ln 2 / (merged / n_max - 1)."""
    p0, p1 = LOG_LAW
    return math.exp((p1 * math.log(2) / (merged / n_max - 1) - p0) / p1)


def _runs(result, unit):
    """(start, end) of the run segments of ``unit``, in time order."""
    seg = np.flatnonzero((result["seg_unit"].values == unit)
                         & (result["seg_kind"].values == RUN))
    pairs = zip(result["seg_start_s"].values[seg], result["seg_end_s"].values[seg],
                strict=True)
    return sorted((float(a), float(b)) for a, b in pairs)


def _segments(schedule_or_result):
    """The decisions of a run, without measured times (for equality)."""
    r = schedule_or_result
    if isinstance(r, xr.Dataset):
        names = ("seg_unit", "seg_gpus", "seg_start_s", "seg_end_s", "seg_kind",
                 "part_segment", "part_job", "part_progress", "jct_s", "finish_s",
                 "member_unit", "member_job", "decision_time_s")
        return {k: r[k].values for k in names}
    names = ("seg_unit", "seg_gpus", "seg_start", "seg_end", "seg_kind", "part_segment",
             "part_job", "part_progress", "decision_time", "decision_candidates")
    out = {k: getattr(r, k) for k in names}
    out["unit_members"] = r.unit_members
    return out


def _assert_same(a: dict, b: dict):
    assert a.keys() == b.keys()
    for k in a:
        if k == "unit_members":
            assert a[k] == b[k]
        else:
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)


@pytest.fixture(scope="module")
def authors():
    return titan_scenario()


@pytest.fixture(scope="module")
def helios():
    return titan_scenario(workload="helios", jobs=40, seed=1)


@pytest.fixture(scope="module")
def titan_result(authors):
    return lorasched.simulate(authors, "titan")


@pytest.fixture(scope="module")
def srtf_result(authors):
    return lorasched.simulate(authors, "srtf")


# --------------------------------------------------------------------------- 1. Table 2

#: (A, B, merged duration, chosen average JCT, the other option's average JCT), minutes
TABLE2 = [(20, 20, 25, 25, 30), (10, 20, 21, 20, 21), (5, 100, 102, 55, 102)]


@pytest.mark.parametrize(("a", "b", "merged", "chosen", "other"), TABLE2)
def test_table2_milp_chooses_the_smaller_average_jct(a, b, merged, chosen, other):
    T = np.array([[1 / a], [1 / b]])
    sol = solve_with_merging(T, np.array([[1 / merged]]), [(0, 1)], 1, (1,))
    assert sol.gpus_used == 1
    if sol.group_gpus[0]:                       # both run merged, finish together
        assert sol.gpus == (0, 0)
        avg = merged
    else:                                       # SRTF: the shorter alone first
        assert sol.gpus == (1, 0)
        avg = (a + (a + b)) / 2
    srtf_avg = (2 * min(a, b) + max(a, b)) / 2
    assert avg == pytest.approx(chosen)
    assert avg == pytest.approx(min(merged, srtf_avg))
    assert max(merged, srtf_avg) == pytest.approx(other)
    assert sol.objective == pytest.approx(max(1 / a, 1.5 / merged))


@pytest.mark.parametrize(("a", "b", "merged", "chosen", "other"), TABLE2)
def test_table2_end_to_end_on_one_gpu(a, b, merged, chosen, other):
    scale = _scale_for(max(a, b), merged)
    assert merged_iterations([a, b], [scale, scale], "log") == pytest.approx(merged)
    # one iteration = one minute on the single GPU; no switch cost
    sc = _scenario([(0, 1, a, "m@d", scale), (0, 1, b, "m@d", scale)], 1, {"1": 60.0})
    res = lorasched.simulate(sc, "titan", switch="none")
    check_result(res)
    m = merged_iterations([a, b], [scale, scale], "log")
    if a == b:  # case 1: merged, both finish at the merged duration
        np.testing.assert_allclose(res["finish_s"].values, [m * 60, m * 60])
        np.testing.assert_allclose(res["jct_s"].values, [m * 60, m * 60])
        assert res.attrs["n_merged_jobs"] == 2 and res.attrs["n_units"] == 1
        assert res["unit_size"].values.tolist() == [2]
    else:       # A alone, then B alone
        np.testing.assert_allclose(res["finish_s"].values, [a * 60, (a + b) * 60])
        assert res.attrs["n_merged_jobs"] == 0
    assert res.attrs["avg_jct_h"] * 60 == pytest.approx(chosen, rel=1e-9)


# --------------------------------------------------------------------------- 2. switch


def test_switch_costs_of_fig3():
    np.testing.assert_array_equal(switch_seconds([1, 2, 4, 8], "naive"), [18, 22, 29, 46])
    np.testing.assert_array_equal(switch_seconds([1, 2, 4, 8], "pipelined"), [5, 7, 5, 6])
    assert switch_seconds(3, "naive") == pytest.approx(25.5)
    assert switch_seconds(6, "pipelined") == pytest.approx(5.5)
    assert switch_seconds(16, "naive") == 46 and switch_seconds(64, "pipelined") == 6
    np.testing.assert_array_equal(switch_seconds([1, 8], "naive", 2.0), [36, 92])
    np.testing.assert_array_equal(switch_seconds([1, 2, 64], "none"), [0, 0, 0])
    assert switch_seconds(3, {2: 10, 4: 20}) == pytest.approx(15)
    assert switch_seconds(1, {2: 10, 4: 20}) == 10  # flat below the table too
    assert switch_table({4: 1, 1: 2}) == {1: 2.0, 4: 1.0}


@pytest.mark.parametrize(("kind", "scale", "gpus", "words"), [
    ("fast", 1.0, 1, "switch must be one of"),
    ({}, 1.0, 1, "non-empty mapping"),
    ({0: 5.0}, 1.0, 1, "GPU count 0"),
    ({1.5: 5.0}, 1.0, 1, "GPU count 1.5"),
    ({1: -1.0}, 1.0, 1, "seconds for 1 GPUs"),
    ({1: math.nan}, 1.0, 1, "seconds for 1 GPUs"),
    ("naive", -1.0, 1, "switch_scale"),
    ("naive", math.inf, 1, "switch_scale"),
    ("naive", 1.0, 0, "gpus must be >= 1"),
])
def test_bad_switch_tables_and_scales_are_named(kind, scale, gpus, words):
    with pytest.raises(ValueError, match=words):
        switch_seconds(gpus, kind, scale)


@pytest.mark.parametrize(("switch", "finish"), [("naive", 618), ("pipelined", 605),
                                                ("none", 600)])
def test_one_job_pays_one_switch(switch, finish):
    sc = _scenario([(0, 1, 10, "m@d", 1e6)], 1, {"1": 60.0})
    res = lorasched.simulate(sc, "titan", switch=switch)
    check_result(res)
    assert res["finish_s"].values.tolist() == [finish]
    assert res["start_s"].values.tolist() == [0]
    assert res.attrs["switch_h"] == pytest.approx((finish - 600) / 3600)
    kinds = res["seg_kind"].values.tolist()
    assert kinds == ([RUN] if switch == "none" else [SWITCH, RUN])


# --------------------------------------------------------------------------- 3. SRTF

SRTF_JOBS = [(0, 2, 100, "a@x", 1e6), (10, 1, 30, "b@x", 1e6), (10, 1, 20, "c@x", 1e6)]


@pytest.mark.parametrize(("switch", "finish"), [("none", [100, 130, 120]),
                                                ("naive", [122, 170, 160])])
def test_srtf_by_hand(switch, finish):
    sc = _scenario(SRTF_JOBS, 2, {"1": 1.0, "2": 1.0})
    res = lorasched.simulate(sc, "srtf", switch=switch)
    check_result(res)
    np.testing.assert_allclose(res["finish_s"].values, finish)
    jct = np.array(finish) - [0, 10, 10]
    np.testing.assert_allclose(res["jct_s"].values, jct)
    assert res.attrs["avg_jct_h"] == pytest.approx(jct.mean() / 3600)
    start = [0, finish[0], finish[0]]
    np.testing.assert_allclose(res["start_s"].values, start)
    n_kinds = 2 if switch == "naive" else 1
    assert sorted(res["seg_gpus"].values.tolist()) == sorted([2, 1, 1] * n_kinds)
    switch_s = 0 if switch == "none" else 22 * 2 + 18 + 18
    assert res.attrs["switch_h"] == pytest.approx(switch_s / 3600)


# --------------------------------------------------------------------------- 4. Tiresias


def test_tiresias_demotion_preempts_by_hand():
    # 1 GPU; a (0 s, 100 s of work), b (10 s, 50 s). Threshold 5 GPU-s: a is demoted at 5;
    # b arrives in queue 0 at 10 and preempts a; b is demoted at 15, and the older a
    # (queue 1, FIFO) resumes with 90 s left -> 105; then b resumes with 45 s -> 150.
    sc = _scenario([(0, 1, 100, "a@x", 1e6), (10, 1, 50, "b@x", 1e6)], 1, {"1": 1.0})
    res = lorasched.simulate(sc, "tiresias", switch="none", threshold_gpu_s=5.0)
    check_result(res)
    np.testing.assert_allclose(res["finish_s"].values, [105, 150])
    np.testing.assert_allclose(_runs(res, 0), [(0, 10), (15, 105)])
    np.testing.assert_allclose(_runs(res, 1), [(10, 15), (105, 150)])
    prog = res["part_progress"].values
    job = res["part_job"].values
    np.testing.assert_allclose(np.sort(prog[job == 0]), [0.1, 0.9])
    np.testing.assert_allclose(np.sort(prog[job == 1]), [0.1, 0.9])
    # with the default threshold nobody is demoted: FIFO, no preemption
    plain = lorasched.simulate(sc, "tiresias", switch="none")
    np.testing.assert_allclose(plain["finish_s"].values, [100, 150])
    assert _runs(plain, 0) == [(0, 100)] and _runs(plain, 1) == [(100, 150)]


def test_tiresias_default_threshold_is_the_authors_four_gpu_hours():
    # 1 GPU; a (0 s, two hours of work), b (10 s, 50 s). Under four GPU-hours a is never
    # demoted (FIFO: 7200, 7250); under lorasched's former one GPU-hour it is demoted at
    # 3600 s and b runs first (a 7250, b 3650).
    sc = _scenario([(0, 1, 7200, "a@x", 1e6), (10, 1, 50, "b@x", 1e6)], 1, {"1": 1.0})
    assert policies.TIRESIAS_THRESHOLD_GPU_S == 4 * 3600.0
    default = lorasched.simulate(sc, "tiresias", switch="none")
    np.testing.assert_allclose(default["finish_s"].values, [7200, 7250])
    hour = lorasched.simulate(sc, "tiresias", switch="none", threshold_gpu_s=3600.0)
    np.testing.assert_allclose(hour["finish_s"].values, [7250, 3650])


def test_tiresias_preemption_pays_the_switch_again():
    sc = _scenario([(0, 1, 100, "a@x", 1e6), (10, 1, 50, "b@x", 1e6)], 1, {"1": 1.0})
    res = lorasched.simulate(sc, "tiresias", switch="naive", threshold_gpu_s=5.0)
    check_result(res)
    # four starts, each an 18 s switch on one GPU
    assert (res["seg_kind"].values == SWITCH).sum() == 4
    assert res.attrs["switch_h"] == pytest.approx(4 * 18 / 3600)


# --------------------------------------------------------------------------- 5. non-preemptive


def _segments_per_unit(res):
    seg_unit = res["seg_unit"].values
    return [np.flatnonzero(seg_unit == u) for u in range(res.sizes["unit"])]


def _one_stay_per_unit(res):
    kind, gpus = res["seg_kind"].values, res["seg_gpus"].values
    s0, s1 = res["seg_start_s"].values, res["seg_end_s"].values
    for u, segs in enumerate(_segments_per_unit(res)):
        assert kind[segs].tolist() == [SWITCH, RUN], u
        assert s1[segs[0]] == s0[segs[1]], u            # contiguous
        assert gpus[segs[0]] == gpus[segs[1]], u
    # every job in exactly one unit
    assert sorted(res["member_job"].values.tolist()) == list(range(res.sizes["job"]))


def test_titan_never_stops_a_running_unit(helios, titan_result):
    _one_stay_per_unit(titan_result)  # with merged units
    res = lorasched.simulate(helios, "titan")
    check_result(res)
    _one_stay_per_unit(res)
    kind = res["seg_kind"].values
    pre = lorasched.simulate(helios, "titan", preemptive=True)
    check_result(pre)
    assert max(len(s) for s in _segments_per_unit(pre)) > 2
    assert (pre["seg_kind"].values == SWITCH).sum() > (kind == SWITCH).sum()


# --------------------------------------------------------------------------- 6. checker


def _mutated(result, **changes):
    bad = result.copy(deep=True)
    for name, (index, value) in changes.items():
        bad[name].values[index] = value
    return bad


def _overlapping_segment(res):
    """A segment during which another segment is running."""
    s0, s1 = res["seg_start_s"].values, res["seg_end_s"].values
    for s in range(s0.size):
        if np.any((s0 < s1[s]) & (s1 > s0[s]) & (np.arange(s0.size) != s)):
            return s
    raise AssertionError("no overlapping segments")


def test_the_real_results_pass(titan_result, srtf_result):
    check_result(titan_result)
    check_result(srtf_result)
    assert titan_result.attrs["n_merged_jobs"] > 0


def test_checker_too_many_gpus(titan_result):
    s = _overlapping_segment(titan_result)
    bad = _mutated(titan_result, seg_gpus=(s, 64))
    with pytest.raises(ResultError, match=r"more than the cluster's 64 .*eq\. 4"):
        check_result(bad)


def test_checker_allocation_not_in_A(titan_result):
    bad = _mutated(titan_result, seg_gpus=(0, 3))
    with pytest.raises(ResultError, match=r"uses 3 GPUs, not in the allocation set A"):
        check_result(bad)


def test_checker_segment_before_submission(titan_result):
    submit = titan_result["submit_s"].values
    members = titan_result["member_job"].values
    mem_u = titan_result["member_unit"].values
    u = int(mem_u[np.argmax(submit[members] > 1000)])
    s = int(np.flatnonzero(titan_result["seg_unit"].values == u)[0])
    first = min(submit[members[mem_u == u]])
    bad = _mutated(titan_result, seg_start_s=(s, first - 500))
    with pytest.raises(ResultError, match=rf"segment {s} .*before the submission"):
        check_result(bad)


def test_checker_progress_must_sum_to_one(titan_result):
    j = int(titan_result["part_job"].values[3])
    p = titan_result["part_progress"].values[3]
    bad = _mutated(titan_result, part_progress=(3, p * 0.5))
    with pytest.raises(ResultError, match=rf"job {j}'s progress sums to"):
        check_result(bad)


def test_checker_member_alone_while_merged(titan_result):
    r = titan_result
    size = r["unit_size"].values
    seg_unit, kind = r["seg_unit"].values, r["seg_kind"].values
    s0, s1 = r["seg_start_s"].values, r["seg_end_s"].values
    mem_u, mem_j = r["member_unit"].values, r["member_job"].values
    submit = r["submit_s"].values
    # a merged unit's run segment, a member j, and a solo unit v whose segments start
    # inside it: make v's job be j, so j runs alone while its merged job runs
    for s in np.flatnonzero((size[seg_unit] >= 2) & (kind == RUN)):
        j = int(mem_j[mem_u == seg_unit[s]][0])
        inside = np.flatnonzero((size[seg_unit] == 1) & (s0 > s0[s]) & (s0 < s1[s])
                                & (s0 >= submit[j]))
        if inside.size:
            v = int(seg_unit[inside[0]])
            break
    else:
        raise AssertionError("no solo unit starts inside a merged unit")
    bad = r.copy(deep=True)
    bad["member_job"].values[np.flatnonzero(mem_u == v)[0]] = j
    with pytest.raises(ResultError, match=rf"job {j} runs alone while its merged job runs"):
        check_result(bad)


def test_checker_job_runs_twice_at_once():
    # the hand-worked SRTF schedule: j0 [0, 100) on 2 GPUs, j1 [100, 130), j2 [100, 120);
    # crediting j2's segment to j1's unit makes j1 run twice at once (GPUs unchanged)
    res = lorasched.simulate(_scenario(SRTF_JOBS, 2, {"1": 1.0, "2": 1.0}), "srtf",
                             switch="none")
    check_result(res)
    s = int(np.flatnonzero(res["seg_unit"].values == 2)[0])
    bad = _mutated(res, seg_unit=(s, 1))
    with pytest.raises(ResultError, match=r"job 1 runs twice at once"):
        check_result(bad)


@pytest.mark.parametrize(("name", "match"), [
    ("jct_s", r"'jct_s' is not finish_s - submit_s"),
    ("finish_s", r"job 5: 'finish_s'"),
    ("start_s", r"job 5: 'start_s'"),
])
def test_checker_per_job_values(titan_result, name, match):
    bad = _mutated(titan_result, **{name: (5, titan_result[name].values[5] + 60)})
    with pytest.raises(ResultError, match=match):
        check_result(bad)


@pytest.mark.parametrize("attr", ["avg_jct_h", "makespan_h"])
def test_checker_attrs(titan_result, attr):
    bad = titan_result.copy(deep=True)
    bad.attrs[attr] = titan_result.attrs[attr] * 1.01
    with pytest.raises(ResultError, match=rf"attr '{attr}'"):
        check_result(bad)


def test_checker_srtf_runs_as_requested(srtf_result):
    r = srtf_result
    s = 0
    j = int(r["member_job"].values[r["member_unit"].values == r["seg_unit"].values[s]][0])
    req = int(r["requested_gpus"].values[j])
    bad = _mutated(r, seg_gpus=(s, 1 if req != 1 else 2))
    with pytest.raises(ResultError, match=rf"job {j}\) uses .* not the {req} it requested"):
        check_result(bad)
    merged = r.copy(deep=True)  # a "requested" result cannot hold a merged unit
    merged["member_unit"].values[1] = merged["member_unit"].values[0]
    merged["unit_size"].values[merged["member_unit"].values[0]] = 2
    merged["unit_size"].values[1] = 0
    with pytest.raises(ResultError, match=r"merges jobs .* runs jobs as requested"):
        check_result(merged)


@pytest.mark.parametrize("attr", ["switch_h", "n_merged_jobs"])
def test_checker_switch_and_merge_attrs(titan_result, attr):
    bad = titan_result.copy(deep=True)
    bad.attrs[attr] = titan_result.attrs[attr] + 1
    with pytest.raises(ResultError, match=attr):
        check_result(bad)


# --------------------------------------------------------------------------- 7. determinism


@pytest.mark.parametrize("algorithm", ["titan", "srtf", "tiresias"])
def test_same_input_same_schedule(authors, titan_result, algorithm):
    first = titan_result if algorithm == "titan" else lorasched.simulate(authors, algorithm)
    again = lorasched.simulate(authors, algorithm)
    _assert_same(_segments(first), _segments(again))
    assert first.attrs["avg_jct_h"] == again.attrs["avg_jct_h"]


@pytest.mark.parametrize("preemptive", [False, True])
def test_snapshot_restore_reproduces_the_schedule(helios, preemptive):
    arrays = to_arrays(helios)
    cost = switch_seconds(arrays.allocations, "pipelined")
    whole = TitanCluster(arrays, cost, preemptive=preemptive).run()
    cluster = TitanCluster(arrays, cost, preemptive=preemptive)
    for _ in range(15):
        assert cluster.step()
    state = cluster.snapshot()
    first = cluster.run()
    cluster.restore(state)
    second = cluster.run()
    fresh = TitanCluster(arrays, cost, preemptive=preemptive)
    fresh.restore(state)
    third = fresh.run()
    for other in (first, second, third):
        _assert_same(_segments(whole), _segments(other))
    assert cluster.done and fresh.done


# --------------------------------------------------------------------------- 8. validation


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"workload": "nope"}, "workload"),
    ({"density": 0}, "density"),
    ({"density": math.nan}, "density"),
    ({"jobs": 500}, "jobs"),
    ({"jobs": 0}, "jobs"),
    ({"nodes": 0}, "nodes"),
    ({"gpus_per_node": 2.5}, "gpus_per_node"),
    ({"seed": 1.5}, "seed"),
])
def test_bad_scenario_arguments_are_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        titan_scenario(**kwargs)


def test_validate_names_field_and_job(authors):
    bad = authors.copy(deep=True)
    bad["submit_s"].values[7] = np.nan
    name = authors["name"].values[7]
    with pytest.raises(ValueError,
                       match=rf"job 7 \('{name}'\): 'submit_s' = .*nan.* must be finite"):
        validate(bad)
    bad = authors.copy(deep=True)
    bad["requested_gpus"].values[11] = 65
    with pytest.raises(ValueError, match=r"job 11 .*'requested_gpus' = .*65.* must be in 1..64"):
        validate(bad)
    with pytest.raises(ValueError, match="requested_gpus"):  # the policies refuse it too
        lorasched.simulate(bad, "srtf")
    # build refuses a request beyond the cluster the same way
    with pytest.raises(ValueError, match=r"job 0 \('j0'\): 'requested_gpus' = 2 exceeds"):
        _scenario([(0, 2, 10, "a@x", 1e6)], 1, {"1": 1.0, "2": 1.0})


# --------------------------------------------------------------------------- 9. plumbing


def test_system_plumbing(authors, titan_result):
    res = lorasched.simulate(authors, "titan-nomerge")
    check_result(res)
    assert res.attrs["algorithm"] == "titan_nomerge"
    assert res.attrs["n_merged_jobs"] == 0 and not res["merged"].values.any()
    assert (res["unit_size"].values == 1).all()
    with pytest.raises(ValueError, match="frobnicate"):
        lorasched.simulate(authors, "titan", frobnicate=1)
    with pytest.raises(ValueError, match="merge"):  # titan_nomerge takes no 'merge'
        lorasched.simulate(authors, "titan_nomerge", merge=True)
    metrics = measure(authors, titan_result)
    assert set(metrics) == set(METRICS)
    assert all(isinstance(v, float) for v in metrics.values())
    assert metrics["decisions"] == titan_result.sizes["decision"] > 0
    assert metrics["n_jobs"] == 160
    noswitch = lorasched.simulate(authors, "titan_noswitch")
    check_result(noswitch)
    assert noswitch.attrs["switch_h"] > titan_result.attrs["switch_h"] > 0


def test_policies_take_arrays_directly(authors, titan_result):
    arrays = to_arrays(authors)
    sched = policies.titan(arrays, np.random.default_rng(0))
    assert len(sched.unit_members) == titan_result.sizes["unit"]
    np.testing.assert_array_equal(sched.seg_end, titan_result["seg_end_s"].values)


def test_bad_constraints_reading_refused_when_merging_is_possible():
    sc = _scenario([(0, 1, 10, "a@x", 1e6), (0, 1, 10, "a@x", 1e6)], 1, {"1": 1.0})
    with pytest.raises(ValueError, match="constraints must be one of"):
        lorasched.simulate(sc, "titan", constraints="bogus")


def test_bad_constraints_reading_refused_without_merge_candidates():
    sc = _scenario([(0, 1, 10, "a@x", 1e6), (0, 1, 10, "b@x", 1e6)], 1, {"1": 1.0})
    with pytest.raises(ValueError, match="constraints must be one of"):
        lorasched.simulate(sc, "titan", constraints="bogus")


# --------------------------------------------------------------------------- 10. readings


def test_both_readings_pass_the_checker(authors, titan_result):
    lit = lorasched.simulate(authors, "titan", constraints="literal",
                             candidates="application")
    check_result(lit)
    check_result(titan_result)
    assert lit.attrs["n_merged_jobs"] > 0


def _three_same_app():
    # three identical jobs of one application on 2 GPUs; scale 10 is below the log law's
    # range, so a merged job lasts as long as its members in sequence (merging never pays)
    # and 2 GPUs are only 10 % faster than one: the best plan runs two jobs alone at once
    jobs = [(0, 1, 100, "m@d", 10.0)] * 3
    return _scenario(jobs, 2, {"1": 1.0, "2": 0.9})


@pytest.mark.parametrize("candidates", ["application", "all_pairs"])
def test_literal_reading_forbids_two_members_alone(candidates):
    sc = _three_same_app()
    assert merged_iterations([100, 100], [10.0, 10.0]) == 200
    pair = lorasched.simulate(sc, "titan", switch="none", candidates=candidates)
    lit = lorasched.simulate(sc, "titan", switch="none", candidates=candidates,
                             constraints="literal")
    check_result(pair)
    check_result(lit)

    def solo_at_zero(res):
        size, seg_unit = res["unit_size"].values, res["seg_unit"].values
        at0 = res["seg_start_s"].values == 0
        return sorted(res["seg_gpus"].values[at0 & (size[seg_unit] == 1)].tolist())

    # pairwise: two members of the set run alone from 0, one GPU each
    assert solo_at_zero(pair) == [1, 1]
    assert pair.attrs["n_merged_jobs"] == 0
    np.testing.assert_allclose(np.sort(pair["finish_s"].values), [100, 100, 190])
    # literal (9): at most one member of a candidate set runs alone at a time
    assert len(solo_at_zero(lit)) == 1
    if candidates == "application":
        # one job alone on both GPUs, then the next, then the last (sequential)
        assert solo_at_zero(lit) == [2]
        np.testing.assert_allclose(np.sort(lit["finish_s"].values), [90, 180, 270])
    else:
        # one job alone and the other pair merged, each on one GPU
        assert lit.attrs["n_merged_jobs"] == 2
        np.testing.assert_allclose(np.sort(lit["finish_s"].values), [100, 200, 200])
    assert lit.attrs["avg_jct_h"] > pair.attrs["avg_jct_h"]


# --------------------------------------------------------------------------- the authors' setup


@pytest.fixture(scope="module")
def authors_vit():
    return titan_scenario(model="vit", setup="authors_code", jobs=60, seed=2)


def test_authors_code_setup_is_their_cluster_allocations_and_restart(authors_vit):
    sc, a = authors_vit, to_arrays(authors_vit)
    assert sc.attrs["gpus"] == 32 and sc.attrs["nodes"] == 8 and a.setup == "authors_code"
    assert a.allocations.tolist() == [1, 2, 3, 4, 8, 12, 16, 20, 24, 28, 32]
    # ViT's measured switch (vit_context_switch.csv, food101) plus the 30 s checkpoint
    assert sc.attrs["context_switch_s"] == pytest.approx(4.16124963760376)
    assert a.restart_s == pytest.approx(4.16124963760376 + 30.0)
    # a job is capped at min(32, batch // smallest local batch 4): batch 48 -> 12 GPUs
    row = list(sc["batch"].values).index(48)
    offered = a.allocations[np.isfinite(a.iter_s[row])]
    assert offered.max() == 12 and 3 in offered.tolist()
    big = list(sc["batch"].values).index(192)
    assert np.isfinite(a.iter_s[big, -1])  # 32 GPUs, timed from the scalability table
    paper = to_arrays(titan_scenario(model="vit", jobs=60, seed=2))
    assert paper.setup == "paper" and paper.gpus == 64 and 3 not in paper.allocations


@pytest.mark.parametrize("kwargs, words", [
    ({"setup": "authors"}, "setup must be one of"),
    ({"ckpt_s": 10.0}, "ckpt_s applies to setup='authors_code' only"),
    ({"setup": "authors_code", "ckpt_s": -1.0}, "ckpt_s must be a non-negative"),
])
def test_bad_setups_are_named(kwargs, words):
    with pytest.raises(ValueError, match=words):
        titan_scenario(model="vit", jobs=10, **kwargs)


@pytest.mark.parametrize("algorithm", ["titan", "titan_nomerge", "srtf", "tiresias"])
def test_authors_code_runs_every_policy_on_its_ticks(authors_vit, algorithm):
    r = lorasched.simulate(authors_vit, algorithm)
    check_result(r)
    tick = 300.0 if algorithm in ("srtf", "tiresias") else 120.0
    starts = r["seg_start_s"].values
    # every stay begins on a tick; every start pays the measured restart (no pipeline)
    first = starts[r["seg_kind"].values == SWITCH]
    assert first.size and np.allclose(first % tick, 0)
    length = (r["seg_end_s"] - r["seg_start_s"]).values[r["seg_kind"].values == SWITCH]
    assert length.max() == pytest.approx(authors_vit.attrs["restart_s"])
    # a job finishes at its own time, not on a tick
    assert not np.allclose(r["finish_s"].values % tick, 0)
    # the explicit option wins over the setup's default
    event = lorasched.simulate(authors_vit, algorithm, tick_s=0.0)
    assert event.attrs["avg_jct_h"] < r.attrs["avg_jct_h"]


def test_authors_titan_preempts_on_ticks_and_weighs_restarts(authors_vit):
    weighed = lorasched.simulate(authors_vit, "titan_nomerge")
    plain = lorasched.simulate(authors_vit, "titan_nomerge", restart_cost=False)
    non = lorasched.simulate(authors_vit, "titan_nomerge", preemptive=False)
    starts = {k: measure(authors_vit, r)["starts_per_job"]
              for k, r in (("weighed", weighed), ("plain", plain), ("non", non))}
    assert starts["non"] == 1.0
    assert 1.0 < starts["weighed"] < starts["plain"]


def test_with_restarts_discounts_only_moves():
    """Two units of 100 s of work left on 1 or 2 GPUs (2 GPUs twice as fast), a 50 s
    switch: the running unit (on 1 GPU) keeps its rate there; elsewhere every rate is
    scaled by D / (D + 50)."""
    sc = _scenario([(0, 1, 100, "a@x", 1000.0), (0, 1, 100, "a@y", 1000.0)], 2,
                   {"1": 1.0, "2": 0.5})
    arrays = to_arrays(sc)
    cluster = TitanCluster(arrays, np.array([50.0, 50.0]), merge=False, preemptive=True)
    cluster.step()  # both start at 0 on 1 GPU each
    units = list(cluster.running)
    T = cluster._progress(np.array([100.0, 100.0]), arrays.batch[:2], arrays.allocations)
    W = cluster._with_restarts(T, units, np.array([100.0, 100.0]), arrays.batch[:2],
                               arrays.allocations)
    assert W[:, 0] == pytest.approx(T[:, 0])  # their own allocation: no restart
    assert W[:, 1] == pytest.approx(T[:, 1] * 50 / (50 + 50))  # D = 100 x 0.5 s


def test_authors_fair_objective_matches_brute_force():
    """The authors' FAIR objective as lorasched's maximisation picks the allocation that
    minimises sum max(R(a), tick) / max(R(fair), tick), 10^4 per job left out."""
    from itertools import product

    from lorasched.titan.milp import solve_allocation
    sc = _scenario([(0, 1, it, "a@x", 1000.0) for it in (40, 300, 900)], 4,
                   {"1": 1.0, "2": 0.6, "4": 0.4})
    arrays = to_arrays(sc)
    cluster = TitanCluster(arrays, np.zeros(3), merge=False, preemptive=True, tick_s=60.0,
                           objective="authors_fair")
    work = arrays.iterations.astype(float)
    allocs = arrays.allocations
    T = cluster._authors_fair(work, arrays.batch, allocs, 4)
    sol = solve_allocation(T, 4, tuple(allocs.tolist()))
    best, best_cost = None, math.inf
    for choice in product([0, *allocs.tolist()], repeat=3):
        if sum(choice) > 4:
            continue
        cost = sum(1e4 if g == 0 else 1e4 - T[i, list(allocs).index(g)]
                   for i, g in enumerate(choice))
        if cost < best_cost - 1e-9:
            best, best_cost = choice, cost
    chosen = sum(1e4 if g == 0 else 1e4 - T[i, list(allocs).index(g)]
                 for i, g in enumerate(sol.gpus))
    assert chosen == pytest.approx(best_cost) and best is not None
    assert sol.gpus[2] >= sol.gpus[0]  # the long job never gets less than the short one
    with pytest.raises(ValueError, match="without the task merger"):
        TitanCluster(arrays, np.zeros(3), merge=True, objective="authors_fair")


def test_keep_shortest_offers_the_milp_only_m_jobs():
    sc = _scenario([(0, 1, it, "a@x", 1000.0) for it in (500, 10, 300, 20)], 2,
                   {"1": 1.0, "2": 0.6})
    cluster = TitanCluster(to_arrays(sc), np.zeros(2), merge=False, preemptive=True,
                           keep="shortest")
    cluster.step()
    assert cluster.record.decisions[0][1] == 2  # the MILP saw the two shortest only
    running = sorted(cluster.record.units[u][0] for u in cluster.running)
    assert set(running) <= {1, 3} and 0 in cluster.waiting_jobs and 2 in cluster.waiting_jobs
    schedule = cluster.run()
    assert sorted(j for m in schedule.unit_members for j in m) == [0, 1, 2, 3]


def test_authors_merge_reading_pairs_different_datasets_at_the_first_length():
    assert merged_iterations([100, 400], [1.0, 1.0], "first") == 100.0
    sc = _scenario([(0, 1, 100, "m@x", 1000.0), (0, 1, 120, "m@x", 1000.0),
                    (0, 1, 400, "m@y", 1000.0), (0, 1, 105, "m@z", 1000.0)], 2,
                   {"1": 1.0, "2": 0.6})
    cluster = TitanCluster(to_arrays(sc), np.zeros(2), candidates="cross_dataset",
                           merge_length="first")
    pairs = cluster._cross_dataset([0, 1, 2, 3])
    # never two jobs of one dataset; (0, 3): reweight (100 + 105 + 100) / 200 > 1.1 kept,
    # (2, 3): (400 + 105 + 105) / 800 < 1.1 dropped
    assert all(cluster.a.app[p] != cluster.a.app[q] for p, q in pairs)
    assert (0, 3) in pairs and (2, 3) not in pairs and (0, 1) not in pairs


def test_cli_runs_the_authors_setup(capsys):
    from lorasched.cli import main
    code = main(["simulate", "--system", "titan", "--setup", "authors_code", "--model", "vit",
                 "--nodes", "8", "--jobs", "40", "--algorithm", "tiresias"])
    out = capsys.readouterr().out
    assert code == 0 and "setup authors_code" in out and "32 V100 GPUs" in out
    with pytest.raises(SystemExit) as stop:
        main(["simulate", "--setup", "authors_code"])
    assert stop.value.code == 2 and "--setup is TITAN's" in capsys.readouterr().err


def test_progress_shows_finished_jobs_and_changes_nothing(helios, capfd):
    quiet = lorasched.simulate(helios, "titan")
    capfd.readouterr()
    shown = lorasched.simulate(helios, "titan", progress=True)
    err = capfd.readouterr().err
    assert "titan" in err and f"{helios.sizes['job']}/{helios.sizes['job']}" in err
    np.testing.assert_array_equal(shown["finish_s"].values, quiet["finish_s"].values)
    assert shown.attrs["options"] == quiet.attrs["options"]  # not a policy option
    lorasched.simulate(helios, "srtf", progress=True)  # the baselines accept it too


def test_authors_fair_with_their_merger_merges_a_pair_their_way():
    # two never-started jobs of different datasets, equal length: reweight 1.5 >= 1.1
    sc = _scenario([(0, 1, 100, "a@x", 1000.0), (0, 1, 100, "a@y", 1000.0)], 2,
                   {"1": 1.0, "2": 0.6})
    arrays = to_arrays(sc)
    cluster = TitanCluster(arrays, np.zeros(2), merge=True, candidates="cross_dataset",
                           merge_length="first", objective="authors_fair")
    cluster.step()
    members = [list(cluster.record.units[u]) for u in cluster.running]
    assert members == [[0, 1]]  # one merged unit: it costs one job's time, not two
    # the pair's value: 2 x 10^4 minus max(R_last(a), tick) / (reweight max(R_m(f), tick)),
    # over eq. (5)'s bonus 1.5; R in seconds, f = max(1, 2 // 2) = 1
    allocs = arrays.allocations[arrays.allocations <= 2]
    value = cluster._authors_merged([0, 1], [(0, 1)], [100.0], [int(arrays.batch[0])],
                                    allocs, 2, 2)
    r = 100 * arrays.iter_s[arrays.batch[1]][np.searchsorted(arrays.allocations, allocs)]
    cost = r / (1.5 * 100 * arrays.iter_s[arrays.batch[0], 0])
    np.testing.assert_allclose(value[0], (2e4 - cost) / 1.5)


def _widths_off_request(result, arrays) -> int:
    """Run segments whose GPUs are not the allocation nearest their unit's largest
    request among those its batch has a step time on."""
    seg = result["seg_kind"].values == RUN
    units = result["seg_unit"].values[seg]
    gpus = result["seg_gpus"].values[seg]
    member_unit, member_job = result["member_unit"].values, result["member_job"].values
    off = 0
    for u, g in zip(units, gpus, strict=True):
        jobs = member_job[member_unit == u]
        ok = arrays.allocations[np.isfinite(arrays.iter_s[arrays.batch[jobs[0]]])]
        want = int(arrays.requested_gpus[jobs].max())
        off += int(g != ok[np.argmin(np.abs(ok - want))])
    return off


def test_width_requested_holds_every_unit_to_its_request(helios):
    arrays = to_arrays(helios)
    held = lorasched.simulate(helios, "titan", width="requested")
    check_result(held)
    assert _widths_off_request(held, arrays) == 0
    # the paper's TITAN runs jobs wider or narrower than requested: the check can fail
    assert _widths_off_request(lorasched.simulate(helios, "titan"), arrays) > 0
    with pytest.raises(Exception, match="width must be one of"):
        lorasched.simulate(helios, "titan", width="narrow")


def test_the_baselines_behaviours_are_options_named_when_refused(helios):
    for policy, options, words in (
            ("srtf", {"estimate": "guess"}, "estimate must be one of"),
            ("srtf", {"placement": "spread"}, "placement must be one of"),
            ("tiresias", {"attained": "time"}, "attained must be one of")):
        with pytest.raises(Exception, match=words):
            lorasched.simulate(helios, policy, **options)
    # the paper's setting keeps the paper's baselines; nodes are an option there too
    assert policies.SETUP_DEFAULTS["paper"]["baselines"]["placement"] == "pooled"
    on_nodes = lorasched.simulate(helios, "srtf", placement="fewest_nodes")
    check_result(on_nodes)
    arrays = to_arrays(helios)
    no_nodes = arrays._replace(gpus_per_node=0)
    with pytest.raises(Exception, match="needs a scenario that records its 'gpus_per_node'"):
        policies.srtf(no_nodes, np.random.default_rng(0), placement="fewest_nodes")


def test_the_authors_code_setups_scenario_behaviours_are_options(authors_vit):
    """The authors'-code setup reads targets and rounds micro-batches as their simulator
    does, and builds their remaining-time estimate at every width; each is an option of
    titan_scenario that the paper's setting leaves at lorasched's reading."""
    assert authors_vit.attrs["micro_batch"] == "floor"
    est = authors_vit["estimated_width_s"]
    assert est.dims == ("batch", "width") and est.sizes["width"] == 32
    a = to_arrays(authors_vit)
    # the estimate is one micro-step longer than the step it estimates, never shorter
    cols = a.allocations - 1
    ok = np.isfinite(a.iter_s)
    assert (a.estimated_width_s[:, cols][ok] >= a.iter_s[ok]).all()
    assert np.isnan(a.estimated_width_s[:, cols][~ok]).all()
    paper = titan_scenario(model="vit", jobs=60, seed=2)
    assert paper.attrs["micro_batch"] == "ceil" and "estimated_width_s" not in paper
    ceil = titan_scenario(model="vit", setup="authors_code", jobs=60, seed=2,
                          micro_batch="ceil")
    assert ceil.attrs["micro_batch"] == "ceil"
    with pytest.raises(ValueError, match="micro_batch must be one of"):
        titan_scenario(model="vit", jobs=10, micro_batch="nearest")
    with pytest.raises(ValueError, match="target must be one of"):
        titan_scenario(model="vit", jobs=10, target="rounded")


def test_titan_ranks_and_weighs_by_the_authors_estimate_in_their_setup(authors_vit):
    a = to_arrays(authors_vit)
    assert policies.SETUP_DEFAULTS["authors_code"]["titan"]["estimate"] == "authors"
    assert policies.SETUP_DEFAULTS["paper"]["titan"]["estimate"] == "exact"
    cluster = TitanCluster(a, np.zeros(a.allocations.size), merge=False, preemptive=True,
                           tick_s=120.0, objective="authors_fair", estimate="authors")
    work = a.iterations[:3].astype(float)
    batch = a.batch[:3]
    # whole seconds of the estimate: R(a) = round(work x estimated step time at a)
    T = cluster._authors_fair(work, batch, a.allocations, a.gpus)
    exact = TitanCluster(a, np.zeros(a.allocations.size), merge=False, preemptive=True,
                         tick_s=120.0, objective="authors_fair")
    assert not np.allclose(T, exact._authors_fair(work, batch, a.allocations, a.gpus),
                           equal_nan=True)
    R = cluster._estimated(work[0], batch[0], 4)
    assert R == round(work[0] * a.estimated_width_s[batch[0], 3])
    # the options differ in their runs, and the estimate needs the setup's table
    runs = {e: lorasched.simulate(authors_vit, "titan_nomerge", objective="authors_fair",
                                  estimate=e).attrs["avg_jct_h"] for e in ("exact", "authors")}
    assert runs["exact"] != runs["authors"]
    with pytest.raises(ValueError, match="estimate must be one of"):
        lorasched.simulate(authors_vit, "titan", estimate="guess")
    paper = to_arrays(titan_scenario(model="vit", jobs=10, seed=2))
    with pytest.raises(ValueError, match="needs a scenario built with setup='authors_code'"):
        TitanCluster(paper, np.zeros(paper.allocations.size), estimate="authors")


def test_titan_on_nodes_starts_the_widest_first_and_a_start_no_node_holds_waits(authors_vit):
    from lorasched.titan.cluster import Offer
    arrays = to_arrays(authors_vit)  # 8 nodes of 4 GPUs
    assert arrays.gpus_per_node == 4 and arrays.gpus == 32
    jobs = list(range(10))
    # eight jobs of 3 GPUs leave one GPU free on every node: the job of 2 fits on no node
    gpus = (1, 2) + (3,) * 8
    offer = Offer(free=32, allocs=arrays.allocations, units=[], jobs=jobs,
                  iters=arrays.iterations[jobs].astype(float), batch=arrays.batch[jobs],
                  left=np.ones(len(jobs)), groups=[], g_iters=[], g_batch=[])
    started = {}
    for placement in ("pooled", "fewest_nodes"):
        cluster = TitanCluster(arrays, np.zeros(arrays.allocations.size), preemptive=True,
                               placement=placement)
        cluster.now, cluster.waiting_jobs = 0.0, list(jobs)
        cluster.apply(offer, gpus, ())
        started[placement] = sorted(m for u in cluster.running
                                    for m in cluster.record.units[u])
        if placement == "fewest_nodes":
            assert cluster.waiting_jobs == [1]  # the job of 2 GPUs waits
            taken = np.array(list(cluster.taken.values()))
            assert (taken.sum(axis=0) <= 4).all() and (cluster._free_nodes() >= 0).all()
            # the job of 1 GPU went on the fullest node it fits on, beside a job of 3
            one = next(u for u in cluster.running if list(cluster.record.units[u]) == [0])
            assert sorted(cluster.taken[one]) == [0] * 7 + [1]
            assert cluster._free_nodes().sum() == 32 - 25
            # a stopped unit gives its node back; the state carries what each unit holds
            state = cluster.snapshot()
            cluster._stop(one, 10.0, finished=False)
            assert cluster._free_nodes().sum() == 32 - 24 and one not in cluster.taken
            cluster.restore(state)
            assert cluster._free_nodes().sum() == 32 - 25
    assert started["pooled"] == jobs and started["fewest_nodes"] == [0] + list(range(2, 10))
    with pytest.raises(InputError, match="placement must be one of"):
        TitanCluster(arrays, np.zeros(arrays.allocations.size), placement="racks")
    pooled = arrays._replace(gpus_per_node=0)  # a scenario without nodes
    with pytest.raises(InputError, match="gpus_per_node"):
        TitanCluster(pooled, np.zeros(arrays.allocations.size), placement="fewest_nodes")
