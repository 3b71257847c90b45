"""Allpass's evaluation workload (lorasched.allpass.workload)."""

from __future__ import annotations

import numpy as np
import pytest

from lorasched.allpass.workload import (
    MIXTURE,
    PER_EPOCH_S,
    SEREN_TABLE1,
    allpass_workload,
    fig1_shares,
    fit_mixture,
    mixture_stats,
    table1_stats,
    trace_table1,
)

VARS = ("name", "submit_s", "work_s", "model", "per_epoch_s", "epochs", "deadline_s",
        "trace_duration_s")


@pytest.mark.parametrize("source", ["helios", "mixture"])
def test_shape_and_attrs(source):
    ds = allpass_workload(jobs=50, source=source, seed=3, sizing="trace")
    assert ds.sizes["job"] == 50
    assert set(VARS) <= set(ds.data_vars)
    assert ds.attrs["source"] == source and ds.attrs["seed"] == 3
    assert ds.attrs["duration_scale"] == pytest.approx(1 / 5)
    assert ds.attrs["iat_scale"] == pytest.approx(1 / 15)
    assert ds.attrs["gpu_hours"] == pytest.approx(float(ds.work_s.sum()) / 3600)
    assert ds.submit_s.values[0] == 0 and np.all(np.diff(ds.submit_s.values) >= 0)
    np.testing.assert_allclose(ds.work_s, ds.trace_duration_s / 5)
    assert ds.attrs["sizing"] == "trace" and ds.attrs["work_scale"] == 1.0
    assert set(ds.model.values) <= set(PER_EPOCH_S)


@pytest.mark.parametrize(("source", "mean_s"), [("helios", None), ("mixture", 1208.0)])
def test_cost_sizing_scales_work_to_the_papers_bill(source, mean_s):
    from lorasched.allpass.workload import PAPER_WORK_H
    from lorasched.model.traces import read_trace
    if mean_s is None:
        d = read_trace("helios").duration_s.astype(float)
        mean_s = float(d[d > 0].mean())
    trace = allpass_workload(jobs=50, source=source, seed=3, sizing="trace")
    cost = allpass_workload(jobs=50, source=source, seed=3)
    scale = PAPER_WORK_H * 3600 / (200 * mean_s / 5)
    assert cost.attrs["sizing"] == "cost"
    assert cost.attrs["work_scale"] == pytest.approx(scale)
    np.testing.assert_allclose(cost.work_s, trace.work_s * scale)
    np.testing.assert_array_equal(cost.submit_s, trace.submit_s)
    np.testing.assert_allclose(cost.deadline_s - cost.submit_s,
                               (trace.deadline_s - trace.submit_s) * scale)
    assert PAPER_WORK_H == pytest.approx(332.5, abs=0.1)


@pytest.mark.parametrize("source", ["helios", "mixture"])
def test_deterministic_and_seed_dependent(source):
    a = allpass_workload(source=source, seed=1)
    b = allpass_workload(source=source, seed=1)
    c = allpass_workload(source=source, seed=2)
    assert a.identical(b)
    assert not np.array_equal(a.work_s.values, c.work_s.values)


@pytest.mark.parametrize("source", ["helios", "mixture"])
def test_deadlines_models_epochs(source):
    ds = allpass_workload(source=source, seed=0)
    slack = (ds.deadline_s - ds.submit_s) / ds.work_s
    assert float(slack.min()) >= 1 and float(slack.max()) <= 10
    bert = ds.model.values == "BERT"
    np.testing.assert_array_equal(bert, ds.work_s.values < 476)
    assert set(ds.model.values[~bert]) <= {"LLaMA3-8B", "LLaMA2-13B"}
    per = np.array([PER_EPOCH_S[m] for m in ds.model.values])
    np.testing.assert_allclose(ds.per_epoch_s, per)
    np.testing.assert_allclose(ds.epochs, ds.work_s / per)


def test_helios_window_keeps_trace_gaps():
    from lorasched.model.traces import read_trace
    ds = allpass_workload(jobs=20, source="helios", seed=4, iat_scale=1.0, duration_scale=1.0)
    tr = read_trace("helios")
    d = tr.duration_s.astype(float)
    # the window is 20 consecutive rows: find it by its durations
    raw = ds.trace_duration_s.values
    starts = [i for i in range(d.size - 19) if np.array_equal(d[i:i + 20], raw)]
    assert starts
    s = tr.submit_s.astype(float)
    assert any(np.allclose(s[i:i + 20] - s[i], ds.submit_s) for i in starts)


def test_mixture_matches_seren_table1():
    stats = mixture_stats()
    for key in ("mean", "p50", "p90"):
        assert stats[key] == pytest.approx(SEREN_TABLE1[key], rel=0.02)
    assert stats["share_within_10min"] > 0.8
    fitted = fit_mixture()
    for key, value in MIXTURE.items():
        assert fitted[key] == pytest.approx(value, rel=1e-6)


def test_table1_stats_hand_made():
    d = np.array([10.0, 20.0, 30.0, 40.0, 1000.0])
    s = table1_stats(d)
    assert s["mean"] == pytest.approx(220.0)
    assert s["p50"] == pytest.approx(30.0)
    assert s["p90"] == pytest.approx(40 + 0.6 * 960)
    f = fig1_shares(d)
    assert f["share_within_10min"] == pytest.approx(0.8)
    assert f["top10_time_share"] == pytest.approx(1000 / 1100)
    with pytest.raises(ValueError, match="durations"):
        table1_stats([])
    with pytest.raises(ValueError, match="durations"):
        table1_stats([1.0, -1.0])


def test_trace_table1_helios():
    t = trace_table1("helios")
    assert t["jobs"] == 125_303
    assert t["p50"] == pytest.approx(204.0)
    assert 0 < t["share_within_10min"] < 1 and 0 < t["top10_time_share"] < 1


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"jobs": 0}, "jobs"), ({"jobs": 2.5}, "jobs"), ({"jobs": True}, "jobs"),
    ({"jobs": 10**7, "source": "helios"}, "jobs"), ({"source": "seren"}, "source"),
    ({"seed": -1}, "seed"),
    ({"seed": 1.5}, "seed"), ({"duration_scale": 0}, "duration_scale"),
    ({"iat_scale": float("nan")}, "iat_scale"), ({"iat_scale": "x"}, "iat_scale"),
    ({"sizing": "paper"}, "sizing"), ({"sizing": None}, "sizing"),
])
def test_bad_arguments_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        allpass_workload(**kwargs)
