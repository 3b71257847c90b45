"""Job tables, windows and samples (lorasched.model.jobs)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lorasched.model.jobs import JobTable, filter_jobs, job_table, job_window, sample_jobs
from lorasched.model.traces import DAY_SECONDS, read_trace, trace_day

HEADER = "submit_time_s,duration_s,num_gpus\n"
ROWS = [(0, 60, 1), (10, 30, 2), (10, 5, 1), (25, 100, 8), (40, 7, 4), (99, 1, 1)]


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "tiny.csv"
    path.write_text(HEADER + "".join(f"{a},{b},{c}\n" for a, b, c in ROWS))
    return job_table(path)


def _table(submit, duration=None, gpus=None, name="t"):
    n = len(submit)
    return JobTable(name, 0.0, np.arange(n), submit,
                    np.ones(n) if duration is None else duration,
                    np.ones(n) if gpus is None else gpus)


# ----------------------------------------------------------------------------------------
# the table
# ----------------------------------------------------------------------------------------


def test_job_table_reads_the_trace_columns(table):
    assert table.name == "tiny.csv" and table.origin_s == 0.0 and len(table) == 6
    np.testing.assert_array_equal(table.submit_s, [0, 10, 10, 25, 40, 99])
    np.testing.assert_array_equal(table.duration_s, [60, 30, 5, 100, 7, 1])
    np.testing.assert_array_equal(table.num_gpus, [1, 2, 1, 8, 4, 1])
    np.testing.assert_array_equal(table.job, np.arange(6))
    assert table.submit_s.dtype == np.float64 and table.duration_s.dtype == np.float64
    assert table.num_gpus.dtype == np.int64 and table.job.dtype == np.int64
    with pytest.raises(ValueError, match="read-only"):
        table.submit_s[0] = 5.0


def test_job_table_of_a_shipped_trace_matches_read_trace():
    trace = read_trace("acme")
    table = job_table("acme")
    assert len(table) == trace.submit_s.size
    np.testing.assert_array_equal(table.num_gpus, trace.num_gpus)
    np.testing.assert_array_equal(table.duration_s, trace.duration_s)


def test_job_table_needs_duration_and_gpus(tmp_path):
    path = tmp_path / "bare.csv"
    path.write_text("submit_time_s,duration_s\n0,5\n3,4\n")
    with pytest.raises(ValueError, match="no column 'num_gpus'"):
        job_table(path)


def test_job_table_rejects_bad_arrays():
    with pytest.raises(ValueError, match="'duration_s' has shape"):
        JobTable("t", 0.0, np.arange(3), np.zeros(3), np.ones(2), np.ones(3))
    with pytest.raises(ValueError, match="sorted by 'submit_s'"):
        _table([0.0, 5.0, 1.0])
    with pytest.raises(ValueError, match="'job' must be 1-d"):
        JobTable("t", 0.0, np.zeros((2, 2)), np.zeros(2), np.ones(2), np.ones(2))


def test_take_keeps_submission_order(table):
    sub = table.take([4, 0, 3])
    np.testing.assert_array_equal(sub.job, [0, 3, 4])
    np.testing.assert_array_equal(table.take(table.num_gpus > 1).job, [1, 3, 4])


# ----------------------------------------------------------------------------------------
# windows
# ----------------------------------------------------------------------------------------


def test_window_is_half_open_and_rebased(table):
    w = job_window(table, 10, 30)  # [10, 40)
    np.testing.assert_array_equal(w.job, [1, 2, 3])
    np.testing.assert_array_equal(w.submit_s, [0, 0, 15])
    np.testing.assert_array_equal(w.duration_s, [30, 5, 100])
    assert w.origin_s == 10.0
    inner = job_window(w, 15, 100)  # a window of a window: origins add up
    np.testing.assert_array_equal(inner.job, [3])
    assert inner.origin_s == 25.0 and inner.submit_s.tolist() == [0.0]
    assert len(job_window(table, 100, 5)) == 0


def test_window_reads_a_trace_by_path_name_or_trace(tmp_path, table):
    path = tmp_path / "tiny.csv"  # written by the fixture
    for source in (path, str(path), read_trace(path)):
        np.testing.assert_array_equal(job_window(source, 0, 26).job, [0, 1, 2, 3])


def test_median_window_is_the_representative_day():
    w = job_window("philly", "median")
    day = trace_day("philly", mean=0.0)  # the same representative day, per-slot view
    assert w.origin_s == day.day_start_s == 1980 + 84 * DAY_SECONDS
    assert len(w) == int(day.raw_counts.sum()) == 893
    trace = read_trace("philly")
    np.testing.assert_array_equal(trace.submit_s[w.job], w.submit_s + w.origin_s)
    assert w.submit_s.min() >= 0 and w.submit_s.max() < DAY_SECONDS


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 50), max_size=30), st.integers(-10, 60), st.integers(1, 40))
def test_window_equals_a_brute_force_filter(times, start, length):
    table = _table(sorted(times))
    w = job_window(table, start, length)
    expected = [(j, t - start) for j, t in enumerate(sorted(times)) if start <= t < start + length]
    assert list(zip(w.job.tolist(), w.submit_s.tolist(), strict=True)) == expected


@pytest.mark.parametrize("start, length, match", [
    ("noon", 10, "'start_s' must be a number of seconds or 'median'"),
    (float("nan"), 10, "'start_s' must be a finite number"),
    (True, 10, "'start_s' must be a finite number"),
    (0, 0, "'length_s' must be a positive finite number"),
    (0, -5, "'length_s' must be a positive finite number"),
    (0, float("inf"), "'length_s' must be a positive finite number"),
])
def test_window_errors(table, start, length, match):
    with pytest.raises(ValueError, match=match):
        job_window(table, start, length)


def test_median_window_needs_a_trace(table):
    with pytest.raises(ValueError, match="needs a trace"):
        job_window(table, "median")


# ----------------------------------------------------------------------------------------
# filters
# ----------------------------------------------------------------------------------------


def test_filter_bounds_are_inclusive(table):
    np.testing.assert_array_equal(filter_jobs(table, duration_s=(5, 60)).job, [0, 1, 2, 4])
    np.testing.assert_array_equal(filter_jobs(table, num_gpus=(2, 4)).job, [1, 4])
    both = filter_jobs(table, duration_s=(6, 1e9), num_gpus=(1, 2))
    np.testing.assert_array_equal(both.job, [0, 1])


@pytest.mark.parametrize("kwargs, match", [
    ({"duration_s": (10, 5)}, "'duration_s' = \\(10, 5\\) must satisfy low <= high"),
    ({"num_gpus": 3}, "'num_gpus' must be a \\(low, high\\) pair"),
    ({"num_gpus": ("a", 2)}, "'num_gpus' must be a \\(low, high\\) pair"),
])
def test_filter_errors(table, kwargs, match):
    with pytest.raises(ValueError, match=match):
        filter_jobs(table, **kwargs)
    with pytest.raises(ValueError, match="'table' must be a JobTable"):
        filter_jobs("philly")


# ----------------------------------------------------------------------------------------
# samples
# ----------------------------------------------------------------------------------------


def test_sample_without_replacement_is_sorted_and_distinct():
    table = job_window("helios", "median")
    s = sample_jobs(table, 100, np.random.default_rng(3))
    assert len(s) == 100 and np.unique(s.job).size == 100
    assert np.isin(s.job, table.job).all()
    assert (np.diff(s.submit_s) >= 0).all()
    assert s.origin_s == table.origin_s


def test_sample_beyond_the_table_takes_every_job_then_repeats(table):
    s = sample_jobs(table, 15, 7)
    counts = np.bincount(s.job, minlength=len(table))
    assert counts.sum() == 15 and (counts >= 1).all()
    assert (np.diff(s.submit_s) >= 0).all()


def test_sample_is_deterministic_per_seed():
    table = job_window("mlaas", "median")
    a = sample_jobs(table, 50, np.random.default_rng(11))
    b = sample_jobs(table, 50, 11)  # an integer seed is default_rng(seed)
    for field in ("job", "submit_s", "duration_s", "num_gpus"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    rng = np.random.default_rng(11)
    first, second = sample_jobs(table, 50, rng), sample_jobs(table, 50, rng)
    np.testing.assert_array_equal(first.job, a.job)
    assert not np.array_equal(second.job, first.job)  # the Generator advanced


def test_sample_all_and_none(table):
    np.testing.assert_array_equal(sample_jobs(table, len(table), 0).job, table.job)
    assert len(sample_jobs(table, 0, 0)) == 0
    assert len(sample_jobs(_table([]), 0, 0)) == 0


@pytest.mark.parametrize("n, rng, match", [
    (-1, 0, "'n' must be a whole number of jobs >= 0"),
    (2.5, 0, "'n' must be a whole number of jobs >= 0"),
    (True, 0, "'n' must be a whole number of jobs >= 0"),
    (3, None, "'rng' must be a numpy.random.Generator or an integer seed"),
    (3, 1.5, "'rng' must be a numpy.random.Generator or an integer seed"),
])
def test_sample_errors(table, n, rng, match):
    with pytest.raises(ValueError, match=match):
        sample_jobs(table, n, rng)


def test_sample_from_empty_table_is_an_error():
    with pytest.raises(ValueError, match="cannot sample 2 jobs from an empty job table"):
        sample_jobs(_table([]), 2, 0)
    with pytest.raises(ValueError, match="'table' must be a JobTable"):
        sample_jobs([1, 2], 1, 0)
