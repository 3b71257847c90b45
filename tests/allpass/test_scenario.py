"""Allpass's scenario (lorasched.allpass.scenario): shape, attrs, reproducibility, the cap's
spellings and the errors that name the broken field."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lorasched.allpass import workload as workload_module
from lorasched.allpass.clouds import save_offer_book
from lorasched.allpass.scenario import (
    PAPER_CAPACITY,
    UNLIMITED,
    capacity_value,
    to_arrays,
    validate,
)
from lorasched.allpass.workload import (
    HEADLINE_SOURCE,
    PER_EPOCH_S,
    TABLE4_SOURCE,
    allpass_scenario,
    allpass_workload,
)
from lorasched.systems import check_result, simulate


# a job's name in a message: numpy 2 writes a name's repr as np.str_('...'), either is fine
def named(job: int) -> str:
    return rf"(np\.str_\()?'allpass-{job}'\)?"


JOB_VARS = ("name", "submit_s", "work_s", "model", "per_epoch_s", "epochs", "deadline_s",
            "trace_duration_s")


@pytest.fixture(scope="module")
def scenario():
    return allpass_scenario(jobs=12, seed=2, book_hours=2)


def test_shape_and_attrs(scenario):
    ds = scenario
    assert ds.sizes["job"] == 12
    assert ds.sizes["minute"] == 120
    assert ds["price_per_gpu_h"].dims == ("minute", "offer")
    assert set(JOB_VARS) <= set(ds.data_vars)
    assert ds.attrs["system"] == "allpass"
    assert ds.attrs["capacity"] == PAPER_CAPACITY == 30
    assert ds.attrs["book_hours"] == pytest.approx(2.0)
    assert ds.attrs["sizing"] == "cost" and ds.attrs["source"] == HEADLINE_SOURCE
    # the book's attrs come along, prefixed
    assert "book_median" in ds.attrs and "book_churn" in ds.attrs
    prices = ds["price_per_gpu_h"].values
    assert np.isfinite(prices).any()
    assert (prices[np.isfinite(prices)] > 0).all()
    # the jobs are exactly the workload's
    work = allpass_workload(jobs=12, seed=2)
    for var in JOB_VARS:
        np.testing.assert_array_equal(ds[var].values, work[var].values)
    validate(ds)


def test_default_book_covers_a_day():
    ds = allpass_scenario(jobs=3, seed=0)
    assert ds.sizes["minute"] == 24 * 60 and ds.attrs["book_hours"] == 24.0


def test_fractional_book_hours_round_up_to_whole_minutes():
    ds = allpass_scenario(jobs=3, seed=0, book_hours=0.01)
    assert ds.sizes["minute"] == 1 and ds.attrs["book_hours"] == pytest.approx(1 / 60)


@pytest.mark.parametrize("cap", ["none", None, "unlimited", "None", -1, "-1"])
def test_unlimited_capacity_is_stored_as_minus_one(cap):
    ds = allpass_scenario(jobs=4, seed=0, capacity=cap, book_hours=1)
    assert ds.attrs["capacity"] == UNLIMITED == -1
    assert to_arrays(ds).capacity == math.inf


def test_capacity_integer_and_digit_string():
    assert allpass_scenario(jobs=4, seed=0, capacity=7, book_hours=1).attrs["capacity"] == 7
    assert capacity_value("12") == 12
    assert capacity_value(np.int64(3)) == 3
    assert capacity_value(1) == 1


def test_same_seed_identical_other_seed_differs():
    a = allpass_scenario(jobs=10, seed=5, book_hours=1)
    b = allpass_scenario(jobs=10, seed=5, book_hours=1)
    c = allpass_scenario(jobs=10, seed=6, book_hours=1)
    assert a.identical(b)
    assert not np.array_equal(a["work_s"].values, c["work_s"].values)
    assert not np.array_equal(a["price_per_gpu_h"].values, c["price_per_gpu_h"].values,
                              equal_nan=True)


def test_market_does_not_depend_on_the_workload_draws():
    # the book has a stream of its own: a different job count leaves it as it was
    a = allpass_scenario(jobs=5, seed=3, book_hours=1)
    b = allpass_scenario(jobs=9, seed=3, book_hours=1)
    np.testing.assert_array_equal(a["price_per_gpu_h"].values, b["price_per_gpu_h"].values)


def test_a_fixed_trace_keeps_the_jobs_and_varies_the_market():
    a = allpass_scenario(jobs=10, seed=5, book_hours=1, trace_seed=2)
    b = allpass_scenario(jobs=10, seed=6, book_hours=1, trace_seed=2)
    own = allpass_scenario(jobs=10, seed=2, book_hours=1)
    for v in ("submit_s", "work_s", "deadline_s"):
        np.testing.assert_array_equal(a[v].values, b[v].values)
        np.testing.assert_array_equal(a[v].values, own[v].values)
    assert not np.array_equal(a["price_per_gpu_h"].values, b["price_per_gpu_h"].values,
                              equal_nan=True)
    np.testing.assert_array_equal(
        a["price_per_gpu_h"].values,
        allpass_scenario(jobs=10, seed=5, book_hours=1)["price_per_gpu_h"].values)


def test_sizing_trace_keeps_durations_over_five():
    ds = allpass_scenario(jobs=6, seed=1, sizing="trace", book_hours=1)
    np.testing.assert_allclose(ds["work_s"], ds["trace_duration_s"] / 5)
    cost = allpass_scenario(jobs=6, seed=1, book_hours=1)
    assert cost.attrs["work_scale"] > 1
    np.testing.assert_allclose(cost["work_s"], ds["work_s"] * cost.attrs["work_scale"])


#: per-epoch seconds on some faster GPU, for two of Table 4's three models
GIVEN = {"LLaMA3-8B": 300.0, "BERT": 7.5}


def _check_on_given_gpu(default, given_ds, given):
    """What ``per_epoch_s`` must change and nothing else: the given models' jobs keep their
    model and epochs and take ``epochs x per_epoch_s`` s, their deadlines scale with it;
    the other jobs, the arrivals, the market and every old attribute stay as they were."""
    for var in ("name", "submit_s", "model", "epochs", "trace_duration_s",
                "price_per_gpu_h"):
        np.testing.assert_array_equal(given_ds[var].values, default[var].values)
    assert {k: v for k, v in given_ds.attrs.items() if k != "gpu_hours"
            and not k.startswith("per_epoch_")} == {k: v for k, v in default.attrs.items()
                                                     if k != "gpu_hours"}
    model = default["model"].values
    mine = np.isin(model, list(given))
    assert mine.any() and (~mine).any()
    for var in ("work_s", "per_epoch_s", "deadline_s"):
        np.testing.assert_array_equal(given_ds[var].values[~mine], default[var].values[~mine])
    per = np.array([given[m] for m in model[mine]])
    np.testing.assert_array_equal(given_ds["per_epoch_s"].values[mine], per)
    np.testing.assert_allclose(given_ds["work_s"].values[mine],
                               default["epochs"].values[mine] * per, rtol=1e-12)
    slack = (given_ds["deadline_s"] - given_ds["submit_s"]) / given_ds["work_s"]
    np.testing.assert_allclose(slack, (default["deadline_s"] - default["submit_s"])
                               / default["work_s"], rtol=1e-12)
    assert given_ds.attrs["gpu_hours"] == pytest.approx(float(given_ds["work_s"].sum()) / 3600)
    for m, table4 in PER_EPOCH_S.items():
        assert given_ds.attrs[f"per_epoch_s_{m}"] == given.get(m, table4)
        assert given_ds.attrs[f"per_epoch_from_{m}"] == (
            "faster GPU" if m in given else TABLE4_SOURCE)


def test_per_epoch_s_changes_only_the_given_models_jobs():
    default = allpass_scenario(jobs=40, seed=1, book_hours=1)
    given = allpass_scenario(jobs=40, seed=1, book_hours=1, per_epoch_s=GIVEN,
                             per_epoch_label="faster GPU")
    _check_on_given_gpu(default, given, GIVEN)
    assert not any(k.startswith("per_epoch_") for k in default.attrs)
    # faster epochs: less work for LLaMA3-8B (476 -> 300 s) and BERT (20 -> 7.5 s)
    assert given.attrs["gpu_hours"] < default.attrs["gpu_hours"]


def test_the_check_fails_when_the_option_is_ignored(monkeypatch):
    """The check above is not vacuous: with the kernel mutated to ignore ``per_epoch_s``
    (A100 work and Table 4 kept) it fails."""
    default = allpass_scenario(jobs=40, seed=1, book_hours=1)
    monkeypatch.setattr(workload_module, "_on_given_gpu",
                        lambda model, epochs, work, given: (
                            work, np.array([PER_EPOCH_S[m] for m in model])))
    ignored = allpass_scenario(jobs=40, seed=1, book_hours=1, per_epoch_s=GIVEN,
                               per_epoch_label="faster GPU")
    with pytest.raises(AssertionError):
        _check_on_given_gpu(default, ignored, GIVEN)


def test_per_epoch_s_scenario_simulates_and_checks():
    # Helios's jobs: this window holds LLaMA3-8B jobs
    ds = allpass_scenario(jobs=12, seed=2, book_hours=2, per_epoch_s={"LLaMA3-8B": 952.0},
                          per_epoch_label="half-speed GPU", source="helios")
    result = simulate(ds, "allpass", seed=0)
    check_result(result)
    base = simulate(allpass_scenario(jobs=12, seed=2, book_hours=2, source="helios"),
                    "allpass", seed=0)
    assert (ds["model"].values == "LLaMA3-8B").any()
    assert result.attrs["cost_usd"] > base.attrs["cost_usd"]


def test_offer_file_replaces_the_model(tmp_path):
    path = tmp_path / "offers.csv"
    path.write_text("minute,price_per_gpu_h\n0,0.9\n0,0.6\n1,0.7\n2,1.5\n2,0.4\n2,0.5\n")
    ds = allpass_scenario(jobs=4, seed=0, offer_file=path)
    assert ds.sizes["minute"] == 3 and ds.sizes["offer"] == 3
    assert ds.attrs["book_hours"] == pytest.approx(3 / 60)
    assert ds.attrs["book_source"] == str(path)
    np.testing.assert_array_equal(ds["price_per_gpu_h"].values,
                                  [[0.9, 0.6, np.nan], [0.7, np.nan, np.nan],
                                   [1.5, 0.4, 0.5]])


def test_offer_file_minutes_count_from_the_first_submission(tmp_path):
    """A file that starts at minute 5 offers nothing before it: the book is indexed by
    minute label, not by row, so a job at t = 0 falls back to the conventional cloud."""
    path = tmp_path / "late.csv"
    path.write_text("minute,price_per_gpu_h\n5,0.4\n6,0.9\n")
    ds = allpass_scenario(jobs=3, seed=0, offer_file=path)
    np.testing.assert_array_equal(ds["minute"].values, np.arange(7))
    assert np.isnan(ds["price_per_gpu_h"].values[:5]).all()
    assert ds["price_per_gpu_h"].values[5, 0] == 0.4
    result = simulate(ds, "tl_np", seed=0)
    check_result(result)
    first = int(np.argmin(result["lease_start_s"].values))
    assert result["lease_start_s"].values[first] < 300
    assert str(result["lease_provider"].values[first]) == "lambda"


def test_validate_names_a_shifted_minute_coordinate(scenario):
    bad = scenario.assign_coords(minute=scenario["minute"].values + 5)
    with pytest.raises(ValueError, match="'minute' coordinate"):
        validate(bad)


def test_offer_file_round_trip_of_the_model(tmp_path):
    ds = allpass_scenario(jobs=4, seed=0, book_hours=1)
    book = ds[["price_per_gpu_h"]]
    path = save_offer_book(book, tmp_path / "book.csv")
    again = allpass_scenario(jobs=4, seed=0, offer_file=path)
    # load packs each minute's offers to the left: the sorted finite prices agree
    for a, b in zip(ds["price_per_gpu_h"].values, again["price_per_gpu_h"].values,
                    strict=True):
        np.testing.assert_allclose(np.sort(a[np.isfinite(a)]), np.sort(b[np.isfinite(b)]))


def test_to_arrays(scenario):
    arr = to_arrays(scenario)
    np.testing.assert_array_equal(arr.submit, scenario["submit_s"].values)
    np.testing.assert_array_equal(arr.work, scenario["work_s"].values)
    np.testing.assert_array_equal(arr.deadline, scenario["deadline_s"].values)
    np.testing.assert_array_equal(arr.offers, scenario["price_per_gpu_h"].values)
    assert arr.capacity == 30.0
    assert arr.submit.dtype == float and arr.offers.shape == (120, scenario.sizes["offer"])


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"capacity": 0}, "capacity"), ({"capacity": "x"}, "capacity"),
    ({"capacity": -2}, "capacity"), ({"capacity": 2.5}, "capacity"),
    ({"capacity": True}, "capacity"), ({"capacity": "0"}, "capacity"),
    ({"book_hours": -1}, "book_hours"), ({"book_hours": 0}, "book_hours"),
    ({"book_hours": float("inf")}, "book_hours"), ({"book_hours": "2"}, "book_hours"),
    ({"book_hours": True}, "book_hours"), ({"jobs": 0}, "jobs"),
    ({"source": "seren"}, "source"), ({"sizing": "paper"}, "sizing"),
    ({"seed": -1}, "seed"), ({"trace_seed": -1}, "trace_seed"),
    ({"trace_seed": 1.5}, "trace_seed"), ({"per_epoch_s": {}}, "per_epoch_s"),
    ({"per_epoch_s": [("BERT", 1.0)]}, "per_epoch_s"),
    ({"per_epoch_s": {"GPT-2": 1.0}}, "'GPT-2' is not a model of Table 4"),
    ({"per_epoch_s": {"BERT": 0.0}}, r"per_epoch_s\['BERT'\]"),
    ({"per_epoch_s": {"BERT": float("nan")}}, r"per_epoch_s\['BERT'\]"),
    ({"per_epoch_s": {"BERT": "20"}}, r"per_epoch_s\['BERT'\]"),
    ({"per_epoch_s": {"BERT": 5.0}, "per_epoch_label": ""}, "per_epoch_label"),
])
def test_bad_arguments_named(kwargs, field):
    with pytest.raises(ValueError, match=field):
        allpass_scenario(**{"jobs": 4, "book_hours": 1, **kwargs})


def test_validate_names_negative_work_and_the_job(scenario):
    ds = scenario.copy(deep=True)
    ds["work_s"].values[3] = -5.0
    with pytest.raises(ValueError, match=rf"work_s of job {named(3)}.*positive"):
        validate(ds)
    ds["work_s"].values[3] = 0.0
    with pytest.raises(ValueError, match=rf"work_s of job {named(3)}"):
        validate(ds)
    with pytest.raises(ValueError, match="work_s"):
        to_arrays(ds)


def test_validate_names_non_finite_submit(scenario):
    ds = scenario.copy(deep=True)
    ds["submit_s"].values[-1] = np.nan
    with pytest.raises(ValueError, match=rf"submit_s of job {named(11)}"):
        validate(ds)


def test_validate_names_decreasing_submit(scenario):
    ds = scenario.copy(deep=True)
    submit = ds["submit_s"].values
    k = int(np.flatnonzero(submit[:-1] >= 1.0)[0])
    submit[k + 1] = submit[k] - 0.5         # still >= 0 and before its deadline
    with pytest.raises(ValueError, match=rf"submit_s must be non-decreasing; job "
                                         rf"{named(k + 1)}"):
        validate(ds)


def test_validate_names_deadline_before_submit(scenario):
    ds = scenario.copy(deep=True)
    j = int(np.flatnonzero(ds["submit_s"].values > 0)[0])
    ds["deadline_s"].values[j] = ds["submit_s"].values[j] - 0.5
    with pytest.raises(ValueError, match=rf"deadline_s of job {named(j)} is before its "
                                         "submit_s"):
        validate(ds)


def test_validate_other_contract_breaches(scenario):
    ds = scenario.copy(deep=True)
    ds.attrs["system"] = "titan"
    with pytest.raises(ValueError, match="system"):
        validate(ds)
    with pytest.raises(ValueError, match="xarray.Dataset"):
        validate({"system": "allpass"})
    with pytest.raises(ValueError, match="deadline_s"):
        validate(scenario.drop_vars("deadline_s"))
    ds = scenario.copy(deep=True)
    ds["price_per_gpu_h"].values[4, 0] = -0.3
    with pytest.raises(ValueError, match="price_per_gpu_h at minute 4"):
        validate(ds)
    ds = scenario.copy(deep=True)
    ds.attrs["capacity"] = 0
    with pytest.raises(ValueError, match="capacity"):
        validate(ds)
    with pytest.raises(ValueError, match="no jobs"):
        validate(scenario.isel(job=slice(0, 0)))
