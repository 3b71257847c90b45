"""Real GPU-cluster traces (lorasched.model.traces) and trace scenarios (synthetic_scenario)."""

from __future__ import annotations

import gzip
import hashlib
import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

from lorasched import synthetic_scenario
from lorasched.model import profiles, traces
from lorasched.model.traces import (
    DAY_SECONDS,
    TRACES,
    read_trace,
    representative_day,
    scale_counts,
    trace_day,
)
from lorasched.pdftsp import validate
from lorasched.pdftsp.workload import WORK_RANGE

ROWS = {"mlaas": 60_105, "philly": 111_549, "helios": 125_303, "acme": 319}
SHA256 = {
    "alibaba_pai_thinned_jobs.csv.gz":
        "3f901a342ef449224d6d3243dfa38fbb201e36593fe5767246e5328dbe03aca2",
    "philly_jobs.csv.gz": "2494039f58f9363954ca42e7e53a102c1b1c8fbf10c26e8d9da198095fcfca31",
    "helios_venus_jobs.csv.gz":
        "e0959daf57a86f154102fa51c96e419bdc1368e3c6edf2ba1b2570155e72ac6a",
    "acme_kalos_subset_jobs.csv.gz":
        "fdd060cf974f5cffcc3bdf683b9eebe2fa7f4e13e4bf43d8a4f850efd688e00f",
}
# representative day and its submissions, as documented in traces/README.md
MEDIAN_DAY = {"mlaas": (24, 935), "philly": (84, 893), "helios": (138, 646), "acme": (16, 1)}
HEADER = "submit_time_s,duration_s,num_gpus,status\n"


def _write(path, rows, header=HEADER):
    text = header + "".join(f"{r}\n" for r in rows)
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


# ----------------------------------------------------------------------------------------
# shipped files
# ----------------------------------------------------------------------------------------


def test_shipped_files_are_the_documented_ones():
    readme = (traces.trace_dir() / "README.md").read_text()
    assert set(SHA256) == set(TRACES.values())
    for file, digest in SHA256.items():
        data = (traces.trace_dir() / file).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, file
        assert digest in readme and file in readme


@pytest.mark.parametrize("name", sorted(TRACES))
def test_read_shipped_trace(name):
    trace = read_trace(name)
    assert trace.name == name
    assert trace.submit_s.shape == trace.duration_s.shape == trace.num_gpus.shape
    assert trace.submit_s.size == ROWS[name]
    assert trace.submit_s.dtype == np.int64 and trace.submit_s[0] == 0
    assert trace.duration_s.dtype == trace.num_gpus.dtype == np.int64  # integer seconds
    assert np.all(np.diff(trace.submit_s) >= 0)
    assert trace.duration_s.min() >= 0 and trace.num_gpus.min() >= 1
    assert read_trace(name) is trace  # cached
    with pytest.raises(ValueError):  # and read-only, so the cache cannot be corrupted
        trace.submit_s[0] = 5


def test_shipped_files_take_the_fast_parser(monkeypatch):
    def fail(*args):
        raise AssertionError("the row-by-row parser ran on a well-formed file")

    monkeypatch.setattr(traces, "_strict_columns", fail)
    for file in TRACES.values():
        columns = traces._parse(traces.trace_dir() / file)
        assert columns["submit_time_s"].size == ROWS[next(k for k, v in TRACES.items()
                                                          if v == file)]


def test_fast_and_strict_parsers_agree():
    """The strict parser (used to find errors) reads the same numbers as numpy's."""
    path = traces.trace_dir() / TRACES["mlaas"]
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    header = lines[0].split(",")
    wanted = ["submit_time_s", "duration_s", "num_gpus"]
    fast = traces._fast_columns(lines[1:], header, wanted)
    strict = traces._strict_columns(lines[1:], header, wanted, path)
    for c in wanted:
        np.testing.assert_array_equal(fast[c], strict[c])


@pytest.mark.parametrize("name", sorted(MEDIAN_DAY))
def test_representative_days(name):
    day, count = MEDIAN_DAY[name]
    assert representative_day(name) == day
    assert traces.daily_counts(name)[day] == count
    assert trace_day(name, mean=0.0).raw_counts.sum() == count


def test_philly_days_start_at_local_midnight():
    """Philly's origin is 23:27 local: its days begin 33 min later, the others' at 0 s."""
    assert trace_day("philly", mean=1.0).day_start_s == 1980 + 84 * DAY_SECONDS
    assert trace_day("helios", mean=1.0).day_start_s == 138 * DAY_SECONDS
    day = trace_day("philly", mean=1.0, day=84, day_start_s=0)
    assert day.day_start_s == 84 * DAY_SECONDS


# ----------------------------------------------------------------------------------------
# malformed and missing files
# ----------------------------------------------------------------------------------------

GOOD = [f"{10 * i},{i + 1},1," for i in range(8)]


@pytest.mark.parametrize("rows, header, match", [
    (GOOD[:4] + ["40,abc,1,"] + GOOD[5:], HEADER,
     r"line 6: column 'duration_s' = 'abc' is not a non-negative number"),
    (GOOD[:2] + ["20,3,-2,"] + GOOD[3:], HEADER, r"line 4: column 'num_gpus' = '-2'"),
    (GOOD[:2] + ["20,3,1.5,"] + GOOD[3:], HEADER, r"line 4: column 'num_gpus' = '1.5'"),
    (GOOD[:6] + [",3,1,"] + GOOD[7:], HEADER, r"line 8: column 'submit_time_s' = ''"),
    (GOOD[:3] + ["30,3,1"] + GOOD[4:], HEADER, r"line 5: 3 fields, the header has 4"),
    (GOOD[:3] + [""] + GOOD[3:], HEADER, r"line 5: 0 fields"),
    (GOOD[:5] + ["5,3,1,"] + GOOD[6:], HEADER,
     r"line 7: column 'submit_time_s' = 5 is before the previous row's 40; rows must be "
     r"sorted"),
    (GOOD, "submit_s,duration_s,num_gpus,status\n", r"line 1: missing column 'submit_time_s'"),
    (GOOD, "submit_time_s,num_gpus,num_gpus,status\n", r"line 1: column 'num_gpus' appears"),
    ([], HEADER, r"no data rows"),
    ([], "", r"empty file"),
])
@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_malformed_trace_names_file_line_and_column(tmp_path, rows, header, match, suffix):
    path = _write(tmp_path / f"bad{suffix}", rows, header)
    with pytest.raises(ValueError, match=match) as err:
        read_trace(path)
    assert f"bad{suffix}" in str(err.value)


def test_corrupt_gzip_is_a_clear_error(tmp_path):
    path = tmp_path / "broken.csv.gz"
    path.write_bytes(gzip.compress(HEADER.encode())[:10])
    with pytest.raises(ValueError, match=r"broken\.csv\.gz: cannot read"):
        read_trace(path)


@pytest.mark.parametrize("what", ["nosuch", "nosuch.csv.gz"])
def test_missing_trace_lists_the_known_names(tmp_path, what):
    with pytest.raises(FileNotFoundError, match=r"nosuch.*not found.*'acme', 'helios', "
                                                r"'mlaas', 'philly'"):
        read_trace(tmp_path / what if what.endswith(".gz") else what)


def test_an_installed_package_reads_the_traces_it_carries(tmp_path, monkeypatch):
    """Outside a checkout (no traces/ beside the package) the traces are the package's own
    copy, lorasched/_traces, which the wheel holds by pyproject.toml's package-data."""
    monkeypatch.delenv("LORASCHED_TRACES", raising=False)
    installed = tmp_path / "site-packages" / "lorasched" / "model" / "traces.py"
    monkeypatch.setattr(traces, "__file__", str(installed))
    assert traces.trace_dir() == tmp_path / "site-packages" / "lorasched" / "_traces"
    (tmp_path / "site-packages" / "traces").mkdir(parents=True)  # a checkout: its traces/ first
    assert traces.trace_dir() == tmp_path / "site-packages" / "traces"


def test_the_wheel_carries_every_shipped_trace_file():
    """lorasched/_traces links to traces/, and the package-data patterns of pyproject.toml
    match every file under it (a deeper folder would need another pattern)."""
    root = Path(__file__).resolve().parents[2]
    package = root / "lorasched"
    assert (package / "_traces").resolve() == (root / "traces").resolve()
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["lorasched"]
    carried = {p for pattern in patterns for p in package.glob(pattern) if p.is_file()}
    shipped = {package / "_traces" / p.relative_to(root / "traces")
               for p in (root / "traces").rglob("*") if p.is_file()}
    assert shipped and shipped <= carried


def test_trace_dir_from_environment(tmp_path, monkeypatch):
    _write(tmp_path / TRACES["philly"], GOOD)
    monkeypatch.setenv("LORASCHED_TRACES", str(tmp_path))
    assert traces.trace_dir() == tmp_path
    assert read_trace("philly").submit_s.size == len(GOOD)
    monkeypatch.delenv("LORASCHED_TRACES")
    assert read_trace("philly").submit_s.size == ROWS["philly"]


def test_rewritten_file_is_read_again(tmp_path):
    path = _write(tmp_path / "mine.csv", GOOD)
    assert read_trace(path).submit_s.size == 8
    _write(path, GOOD + ["100,1,1,", "120,1,1,"])
    assert read_trace(path).submit_s.size == 10


# ----------------------------------------------------------------------------------------
# days: the representative-day rule on a hand-made trace
# ----------------------------------------------------------------------------------------


def _day_trace(tmp_path, per_day, tail_s=DAY_SECONDS // 2, name="days.csv"):
    """A trace with per_day[d] submissions spread over day d, plus one at the end."""
    rows = []
    for d, c in enumerate(per_day):
        rows += [f"{d * DAY_SECONDS + (DAY_SECONDS * k) // max(c, 1)},60,1," for k in range(c)]
    rows.append(f"{len(per_day) * DAY_SECONDS + tail_s},60,1,")
    return read_trace(_write(tmp_path / name, rows))


def test_representative_day_rule(tmp_path):
    """Day 0 is a straggler (1 job, then 2 empty days), day 8 is partial; the active days
    3..7 hold 10, 30, 20, 20, 40: the median 20 is first reached on day 5."""
    trace = _day_trace(tmp_path, [1, 0, 0, 10, 30, 20, 20, 40])
    counts = traces.daily_counts(trace)
    np.testing.assert_array_equal(counts, [1, 0, 0, 10, 30, 20, 20, 40, 1])
    np.testing.assert_array_equal(traces.active_days(trace), [3, 4, 5, 6, 7])
    assert representative_day(trace) == 5
    assert trace_day(trace, mean=1.0, slots=144).day == 5


def test_representative_day_lower_median_and_quiet_inner_days(tmp_path):
    """An even number of active days takes the lower median; a quiet day inside the active
    span stays (day 2 below), and a day with a tenth of the median count is active."""
    trace = _day_trace(tmp_path, [10, 40, 0, 30, 1, 20], name="even.csv")
    np.testing.assert_array_equal(traces.active_days(trace), [0, 1, 2, 3, 4, 5])
    assert representative_day(trace) == 0  # sorted 0 1 10 20 30 40 -> lower median 10
    trace = _day_trace(tmp_path, [2, 20, 20, 20], name="tenth.csv")
    np.testing.assert_array_equal(traces.active_days(trace), [0, 1, 2, 3])
    trace = _day_trace(tmp_path, [1, 20, 20, 20], name="below.csv")
    np.testing.assert_array_equal(traces.active_days(trace), [1, 2, 3])


def test_short_trace_needs_an_explicit_day(tmp_path):
    trace = read_trace(_write(tmp_path / "short.csv", GOOD))
    with pytest.raises(ValueError, match=r"short\.csv.*no full day"):
        representative_day(trace)
    day = trace_day(trace, mean=2.0, day=0, slots=6, slot_minutes=1)
    np.testing.assert_array_equal(day.raw_counts, [6, 2, 0, 0, 0, 0])
    np.testing.assert_array_equal(day.counts, [9, 3, 0, 0, 0, 0])


@pytest.mark.parametrize("kwargs, match", [
    (dict(day=9), r"day must be 'median' or a whole number in \[0, 8\].*got 9"),
    (dict(day=-1), r"day must be"),
    (dict(day=2.5), r"day must be"),
    (dict(day="mean"), r"day must be a day index or 'median', got 'mean'"),
    (dict(day=1), r"day 1 has no submission"),
    (dict(mean=-1.0), r"mean must be"),
    (dict(mean=float("nan")), r"mean must be"),
    (dict(slots=0), r"slots must be"),
    (dict(slot_minutes=0), r"slot_minutes must be"),
])
def test_trace_day_rejects_bad_arguments(tmp_path, kwargs, match):
    trace = _day_trace(tmp_path, [1, 0, 0, 10, 30, 20, 20, 40])
    with pytest.raises(ValueError, match=match):
        trace_day(trace, **kwargs)


# ----------------------------------------------------------------------------------------
# scaling and job sampling
# ----------------------------------------------------------------------------------------


def test_scale_counts_largest_remainder():
    np.testing.assert_array_equal(scale_counts([1, 1, 1, 0], 0.5), [1, 1, 0, 0])
    np.testing.assert_array_equal(scale_counts([2, 0, 1, 1], 2.0), [4, 0, 2, 2])
    np.testing.assert_array_equal(scale_counts([0, 3, 1], 1.0), [0, 2, 1])  # 2.25, 0.75
    np.testing.assert_array_equal(scale_counts([5, 0], 0.0), [0, 0])
    with pytest.raises(ValueError, match="all-zero"):
        scale_counts([0, 0], 1.0)


@pytest.mark.parametrize("name", ["mlaas", "philly", "helios"])
@pytest.mark.parametrize("mean", [30.0, 80.0, 7.3])
def test_scaling_keeps_total_and_shape(name, mean):
    day = trace_day(name, mean=mean)
    raw, counts = day.raw_counts, day.counts
    assert counts.dtype == np.int64 and counts.shape == (144,)
    assert counts.sum() == round(mean * 144)
    expected = raw * counts.sum() / raw.sum()
    assert np.all(np.abs(counts - expected) < 1)  # proportional up to rounding
    assert np.all(counts[raw == 0] == 0)
    assert np.corrcoef(raw, counts)[0, 1] > 0.99


@pytest.mark.parametrize("name", ["philly", "helios"])
def test_jobs_come_from_their_slot(name):
    trace = read_trace(name)
    day = trace_day(name, mean=80.0, seed=4)
    slot = np.repeat(np.arange(144), day.counts)
    offset = trace.submit_s[day.job] - day.day_start_s
    np.testing.assert_array_equal(offset // 600, slot)
    np.testing.assert_array_equal(day.duration_s, trace.duration_s[day.job])
    np.testing.assert_array_equal(day.num_gpus, trace.num_gpus[day.job])
    for t in range(144):
        jobs = day.job[slot == t]
        assert np.all(np.diff(jobs) >= 0)  # submission order within a slot
        if day.counts[t] <= day.raw_counts[t]:
            assert np.unique(jobs).size == jobs.size  # without replacement
        else:  # every real job of the slot, then draws with replacement
            assert np.unique(jobs).size == day.raw_counts[t]


def test_trace_day_is_deterministic():
    a, b = trace_day("helios", seed=7), trace_day("helios", seed=7)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    c = trace_day("helios", seed=8)
    np.testing.assert_array_equal(a.counts, c.counts)
    assert not np.array_equal(a.job, c.job)
    rng = np.random.default_rng(7)
    np.testing.assert_array_equal(trace_day("helios", seed=rng).job, a.job)


def test_trace_summary():
    rows = {r["trace"]: r for r in traces.trace_summary()}
    assert set(rows) == set(TRACES)
    for name, (day, count) in MEDIAN_DAY.items():
        assert (rows[name]["day"], rows[name]["day_count"]) == (day, count)
        assert rows[name]["rows"] == ROWS[name]


# ----------------------------------------------------------------------------------------
# synthetic_scenario(trace=...)
# ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def philly():
    return synthetic_scenario(trace="philly", load="high", nodes=5, seed=2)


def test_trace_scenario(philly):
    validate(philly)
    assert philly.sizes["task"] == 144 * 80
    day = trace_day("philly", mean=80.0, seed=2)
    np.testing.assert_array_equal(np.bincount(philly["arrival"].values, minlength=144),
                                  day.counts)
    assert philly.attrs["trace"] == "philly" and philly.attrs["trace_day"] == 84
    assert philly.attrs["task_sizes"] == "paper"
    generator = json.loads(philly.attrs["generator"])
    assert generator["trace"] == "philly" and generator["trace_day"] == "median"
    work = philly["work"].values
    assert work.min() >= 5_000 and work.max() <= 100_000


def test_trace_task_sizes(philly):
    ds = synthetic_scenario(trace="philly", load="high", nodes=5, seed=2, task_sizes="trace")
    validate(ds)
    work, epochs = ds["work"].values, ds["epochs"].values
    assert work.min() >= WORK_RANGE[0] and work.max() <= WORK_RANGE[1]
    np.testing.assert_array_equal(work, epochs * ds["dataset_size"].values)
    # GPU time of the sampled job on A100s, before clipping
    day = trace_day("philly", mean=80.0, seed=2)
    speed = np.array([profiles.task_speed(profiles.GPUS["A100-80GB"], b)
                      for b in ds["micro_batch"].values]) / 600.0
    raw = day.duration_s * day.num_gpus * speed
    inside = (raw >= 5_000) & (raw <= 100_000)
    assert inside.any() and (~inside).any()
    np.testing.assert_array_less(np.abs(work[inside] - raw[inside]), epochs[inside] + 1e-9)
    assert np.all(work[raw < 5_000] < 5_000 + epochs[raw < 5_000])
    assert np.all(work[raw > 100_000] > 100_000 - epochs[raw > 100_000])
    assert ds.attrs["task_size_clipped_low"] == pytest.approx(np.mean(raw < 5_000))
    assert ds.attrs["task_size_clipped_high"] == pytest.approx(np.mean(raw > 100_000))
    # both task-size modes draw the same epochs, batches and values per sample
    for var in ("arrival", "epochs", "micro_batch", "needs_preprocessing"):
        np.testing.assert_array_equal(ds[var].values, philly[var].values)
    np.testing.assert_allclose(ds["bid"] / ds["work"], philly["bid"] / philly["work"])


def test_paper_scenario_has_no_trace_attributes():
    ds = synthetic_scenario(nodes=2, slots=6, load=3.0, seed=0)
    assert "trace" not in ds.attrs and "task_size_clipped_low" not in ds.attrs
    assert set(json.loads(ds.attrs["generator"])).isdisjoint({"trace", "task_sizes"})


@pytest.mark.parametrize("kwargs, match", [
    (dict(trace="philly", arrivals=[1] * 6), r"either trace= or arrivals="),
    (dict(task_sizes="gpu"), r"task_sizes must be one of \('paper', 'trace'\), got 'gpu'"),
    (dict(task_sizes="trace"), r"task_sizes='trace' needs a trace="),
    (dict(trace="philly", load="extreme"), r"load.*'extreme'"),
    (dict(trace="philly", trace_day=10_000), r"day must be"),
    (dict(trace="nosuch"), r"nosuch.*not found"),
])
def test_trace_scenario_rejects_bad_arguments(kwargs, match):
    with pytest.raises((ValueError, FileNotFoundError), match=match):
        synthetic_scenario(nodes=2, slots=6, seed=0, **kwargs)


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_own_trace_by_path(tmp_path, suffix):
    rows = [f"{60 * i + 7},{30 * (i + 1)},{1 + i % 3},x" for i in range(0, 360, 2)]
    path = _write(tmp_path / f"mine{suffix}", rows)
    ds = synthetic_scenario(trace=str(path), trace_day=0, load=4.0, nodes=2, slots=6,
                            task_sizes="trace")
    validate(ds)
    np.testing.assert_array_equal(np.bincount(ds["arrival"].values, minlength=6), [4] * 6)
    assert ds.attrs["trace"] == f"mine{suffix}" and ds.attrs["trace_day"] == 0
    # durations of 30..10,770 s on 1-3 GPUs: the short ones are clipped at 5k samples
    assert 0 < ds.attrs["task_size_clipped_low"] < 1


def test_own_trace_without_sizes(tmp_path):
    path = _write(tmp_path / "times.csv", [str(60 * i) for i in range(60)],
                  header="submit_time_s\n")
    trace = read_trace(path)
    assert trace.duration_s is None and trace.num_gpus is None
    ds = synthetic_scenario(trace=path, trace_day=0, load=1.0, nodes=2, slots=6)
    assert ds.sizes["task"] == 6
    with pytest.raises(ValueError, match=r"duration_s and num_gpus.*times\.csv"):
        synthetic_scenario(trace=path, trace_day=0, load=1.0, nodes=2, slots=6,
                           task_sizes="trace")


# ----------------------------------------------------------------------------------------
# real (fractional) seconds
# ----------------------------------------------------------------------------------------

# 3 jobs a minute for 6 minutes at fractional times, durations 0.5 .. 1,074.25 s
FRACTIONAL = [f"{20 * i + 0.08 * (i % 7)},{0.5 + 59.75 * (i % 19)},{1 + i % 4}," for i in
              range(18)]


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_fractional_seconds_read(tmp_path, suffix):
    rows = FRACTIONAL[:3] + ["82.08,1277.76,2,", "90,1e-05,1,", "+95.5, 1E3 ,1,"]
    trace = read_trace(_write(tmp_path / f"frac{suffix}", rows))
    assert trace.submit_s.dtype == trace.duration_s.dtype == np.float64
    assert trace.num_gpus.dtype == np.int64  # counts stay integers
    np.testing.assert_array_equal(trace.submit_s, [0, 20.08, 40.16, 82.08, 90, 95.5])
    np.testing.assert_array_equal(trace.duration_s, [0.5, 60.25, 120.0, 1277.76, 1e-05, 1e3])
    np.testing.assert_array_equal(trace.num_gpus, [1, 2, 3, 2, 1, 1])


def test_time_columns_are_parsed_one_by_one(tmp_path):
    """A column of integers stays int64 next to a fractional one."""
    rows = [f"{10 * i},{i + 0.5},{i % 2 + 1}," for i in range(5)]
    trace = read_trace(_write(tmp_path / "mixed.csv", rows))
    assert trace.submit_s.dtype == np.int64 and trace.duration_s.dtype == np.float64
    np.testing.assert_array_equal(trace.submit_s, [0, 10, 20, 30, 40])


def test_fast_and_strict_parsers_agree_on_real_numbers(tmp_path):
    rows = FRACTIONAL + ["400,1.5e3,2,", "400.5,.25,1,", "401,7.,1,"]
    header = HEADER.strip().split(",")
    wanted = ["submit_time_s", "duration_s", "num_gpus"]
    fast = traces._fast_columns(rows, header, wanted)
    strict = traces._strict_columns(rows, header, wanted, tmp_path / "x.csv")
    for c in wanted:
        assert fast[c].dtype == strict[c].dtype
        np.testing.assert_array_equal(fast[c], strict[c])


BAD_NUMBERS = [("nan", r" \(NaN\)"), ("inf", r" \(infinite\)"), ("-inf", r" \(infinite\)"),
               ("1e999", r" \(infinite\)"), ("-1", r" \(negative\)"),
               ("-0.5", r" \(negative\)"), ("abc", ""), ("", r" \(empty\)"), ("1..5", "")]


@pytest.mark.parametrize("value, why", BAD_NUMBERS)
@pytest.mark.parametrize("column", ["submit_time_s", "duration_s"])
@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_bad_real_numbers_are_named(tmp_path, value, why, column, suffix):
    rows = list(FRACTIONAL)
    submit, duration, gpus, _ = rows[4].split(",")
    rows[4] = (f"{value},{duration},{gpus}," if column == "submit_time_s"
               else f"{submit},{value},{gpus},")
    path = _write(tmp_path / f"bad{suffix}", rows)
    match = (rf"bad{suffix.replace('.', '[.]')} line 6: column '{column}' = "
             rf"'{value.replace('.', '[.]')}' is not a non-negative number{why}$")
    with pytest.raises(ValueError, match=match):
        read_trace(path)


def test_unsorted_real_seconds_are_named(tmp_path):
    rows = FRACTIONAL[:5] + ["80.25,1,1,"] + FRACTIONAL[5:]
    with pytest.raises(ValueError, match=r"unsorted\.csv line 7: column 'submit_time_s' = "
                                         r"80\.25 is before the previous row's 80\.32"):
        read_trace(_write(tmp_path / "unsorted.csv", rows))


def _fractional_day(n_days=3, per_hour=30):
    """Submissions at fractional seconds over n_days (and one after), real durations."""
    rows = []
    for k in range(n_days * 24 * per_hour):
        t = k * 3600 / per_hour + 0.37 * (k % 11)
        rows.append(f"{t:.2f},{12.5 + 97.31 * (k % 23):.2f},{1 + k % 8},")
    return rows + [f"{n_days * DAY_SECONDS + 0.5},1.5,1,"]  # closes the last full day


def test_fractional_trace_drives_a_scenario(tmp_path):
    """A trace with real seconds, end to end: read, days, a scenario, a simulation."""
    import lorasched

    path = _write(tmp_path / "published.csv.gz", _fractional_day())
    trace = read_trace(path)
    assert trace.submit_s.dtype == np.float64
    np.testing.assert_array_equal(traces.daily_counts(trace), [720, 720, 720, 1])
    np.testing.assert_array_equal(traces.active_days(trace), [0, 1, 2])
    day = trace_day(trace, mean=5.0, slots=144, seed=3)
    np.testing.assert_array_equal(day.raw_counts, [5] * 144)  # 30 an hour, 5 a slot
    offset = trace.submit_s[day.job] - day.day_start_s
    np.testing.assert_array_equal(offset // 600, np.repeat(np.arange(144), day.counts))
    np.testing.assert_array_equal(day.duration_s, trace.duration_s[day.job])
    ds = synthetic_scenario(trace=path, load=2.0, nodes=3, slots=12, seed=1,
                            task_sizes="trace")
    validate(ds)
    assert ds.attrs["trace"] == "published.csv.gz" and ds.attrs["trace_day"] == 0
    np.testing.assert_array_equal(np.bincount(ds["arrival"].values, minlength=12), [2] * 12)
    result = lorasched.simulate(ds)
    assert result.sizes["task"] == 24


def test_whole_numbers_written_as_reals_give_the_same_scenario(tmp_path):
    """'60.0' is read as float64, '60' as int64: the days, jobs and scenarios are equal."""
    ints = [f"{60 * i + 7},{30 * (i + 1)},{1 + i % 3}," for i in range(0, 3 * 1440, 3)]
    reals = [",".join(f"{v}.0" if j < 2 else v for j, v in enumerate(r.split(",")))
             for r in ints]
    (tmp_path / "i").mkdir()
    (tmp_path / "r").mkdir()
    a, b = _write(tmp_path / "i" / "t.csv", ints), _write(tmp_path / "r" / "t.csv", reals)
    assert read_trace(a).submit_s.dtype == np.int64
    assert read_trace(b).submit_s.dtype == np.float64
    assert representative_day(a) == representative_day(b)
    for x, y in zip(trace_day(a, mean=7.3, seed=2), trace_day(b, mean=7.3, seed=2),
                    strict=True):
        np.testing.assert_array_equal(x, y)
    for sizes in ("paper", "trace"):
        kwargs = dict(load=3.0, nodes=2, slots=12, seed=5, task_sizes=sizes)
        x, y = synthetic_scenario(trace=a, **kwargs), synthetic_scenario(trace=b, **kwargs)
        x.attrs.pop("generator"), y.attrs.pop("generator")  # they differ in the path
        assert x.identical(y)
