"""Allpass as a system (lorasched.allpass.system, lorasched.systems): every policy of the
registry on a small scenario, reproducibility, names, options and metrics."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from lorasched import systems
from lorasched.allpass import system as allpass_system
from lorasched.allpass.policies import LABELS, REGISTRY
from lorasched.allpass.system import (
    METRICS,
    SYSTEM,
    TIMINGS,
    measure,
    options_of,
    policy_name,
    simulate,
    vast_price_mean,
)
from lorasched.allpass.workload import allpass_scenario
from lorasched.model.errors import ResultError

SERVERFUL_ONLY = ("tl_p", "tl_np", "sjf_p", "sjf_np", "hpa")
CAPACITIES = (30, "none")
#: one worker runs the module, so that its runs (the fixtures below) are made once
pytestmark = pytest.mark.xdist_group("allpass-system")


@pytest.fixture(scope="module")
def scenarios():
    return {cap: allpass_scenario(jobs=30, seed=1, capacity=cap) for cap in CAPACITIES}


@pytest.fixture(scope="module")
def results(scenarios):
    return {(name, cap): simulate(scenarios[cap], name, seed=3)
            for cap in CAPACITIES for name in REGISTRY}


@pytest.fixture(scope="module")
def metrics(scenarios, results):
    return {key: measure(scenarios[key[1]], res) for key, res in results.items()}


def test_registry_and_labels():
    assert set(REGISTRY) == {"allpass", "allpass_fixed60", "allpass_fixed600", "tl_p",
                             "tl_np", "sjf_p", "sjf_np", "hpa", "modal", "queue_all_oracle",
                             "random"}
    assert "oracle" in LABELS["queue_all_oracle"]
    assert "oracle" in REGISTRY["queue_all_oracle"].__doc__
    assert set(LABELS) == set(REGISTRY)
    assert SYSTEM.policies is REGISTRY
    assert next(iter(SYSTEM.policies)) == "allpass"        # the system's own algorithm


@pytest.mark.slow
@pytest.mark.parametrize("cap", CAPACITIES)
@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_policy_passes_the_checker(results, metrics, name, cap):
    res = results[name, cap]
    allpass_system.check_result(res)
    systems.check_result(res)
    assert res.attrs["algorithm"] == name and res.attrs["seed"] == 3
    assert res.attrs["capacity"] == (30 if cap == 30 else -1)
    assert np.isfinite(res["finish_s"].values).all()
    # a job's JCT (finish - submit) is at least its work, up to the rounding of the
    # subtraction (the mixture's short jobs, submitted late, meet it)
    assert (res["jct_s"].values >= res["work_s"].values * (1 - 1e-12)).all()
    m = metrics[name, cap]
    assert m["cost_usd"] > 0 and m["avg_jct_min"] > 0
    assert m["cost_usd"] == pytest.approx(m["cost_modal_usd"] + m["cost_vast_usd"]
                                          + m["cost_lambda_usd"])
    if cap == 30:
        assert m["max_workers"] <= 30


@pytest.mark.parametrize("name", list(REGISTRY))
def test_same_seed_same_result(scenarios, results, name):
    again = simulate(scenarios[30], name, seed=3)
    first = results[name, 30]
    np.testing.assert_array_equal(again["jct_s"].values, first["jct_s"].values)
    assert again.attrs["cost_usd"] == first.attrs["cost_usd"]
    for var in ("lease_start_s", "lease_ready_s", "lease_end_s", "seg_start_s", "F_s"):
        np.testing.assert_array_equal(again[var].values, first[var].values)
    assert again.attrs["events"] == first.attrs["events"]


def test_another_seed_draws_other_start_ups(scenarios, results):
    other = simulate(scenarios[30], "modal", seed=4)
    first = results["modal", 30]
    ready = (first["lease_ready_s"] - first["lease_start_s"]).values
    ready2 = (other["lease_ready_s"] - other["lease_start_s"]).values
    assert not np.array_equal(ready, ready2)


@pytest.mark.parametrize("cap", CAPACITIES)
def test_the_policies_are_what_they_say(results, metrics, cap):
    m = {name: metrics[name, cap] for name in REGISTRY}
    # Modal: every job at once on its own worker, the whole bill on Modal
    assert m["modal"]["wait_min"] < 0.2
    assert m["modal"]["cost_modal_usd"] == m["modal"]["cost_usd"]
    assert m["modal"]["max_workers"] == 0 and m["modal"]["queue_min"] == 0
    modal = results["modal", cap]
    assert (modal["lease_provider"].values == "modal").all()
    assert modal.sizes["lease"] == modal.sizes["job"]
    assert m["modal"]["avg_jct_min"] <= min(v["avg_jct_min"] for v in m.values()) + 1e-9
    # the serverful baselines never touch Modal
    for name in SERVERFUL_ONLY:
        assert m[name]["cost_modal_usd"] == 0, name
        assert m[name]["demoted_share"] == 0, name
        res = results[name, cap]
        assert (res["serverless_s"].values == 0).all(), name
        assert np.isnan(res["F_s"].values).all(), name
    # Allpass and its variants start every job on Modal, then use the serverful tier
    for name in ("allpass", "allpass_fixed60", "allpass_fixed600"):
        assert m[name]["cost_modal_usd"] > 0, name
        assert m[name]["cost_vast_usd"] + m[name]["cost_lambda_usd"] > 0, name
        assert 0 < m[name]["demoted_share"] <= 1, name
        assert (results[name, cap]["serverless_s"].values > 0).all(), name
    # Allpass is far cheaper than Modal alone (the paper's point)
    assert m["allpass"]["cost_usd"] < m["modal"]["cost_usd"]
    # the fixed thresholds stay put; a lower F demotes at least as many jobs
    np.testing.assert_array_equal(results["allpass_fixed60", cap]["F_s"].values, 60.0)
    np.testing.assert_array_equal(results["allpass_fixed600", cap]["F_s"].values, 600.0)
    assert m["allpass_fixed60"]["demoted_share"] >= m["allpass_fixed600"]["demoted_share"]
    # the queue-all oracle: Allpass's serverless front at F0, then every queued job rented a
    # worker (up to the cap): its jobs queue no longer than Allpass's
    oracle = results["queue_all_oracle", cap]
    np.testing.assert_array_equal(oracle["F_s"].values, 300.0)
    assert oracle.attrs["F0"] == 300.0
    assert m["queue_all_oracle"]["cost_modal_usd"] > 0
    assert m["queue_all_oracle"]["queue_min"] <= m["allpass"]["queue_min"]
    # no preemption without a preemptive policy
    for name in ("tl_np", "sjf_np", "hpa", "modal", "queue_all_oracle"):
        assert (results[name, cap]["preemptions"].values == 0).all(), name


def test_stints_respect_the_fixed_threshold(results):
    res = results["allpass_fixed60", 30]
    runs = (res["seg_kind"].values == "run") & (
        res["lease_provider"].values[res["seg_lease"].values] == "modal")
    stint = (res["seg_end_s"] - res["seg_start_s"]).values[runs]
    assert stint.max() <= 60.0 + 1e-6
    assert (res["serverless_s"].values <= 60.0 + 1e-6).all()


# -- simulate: names and options -----------------------------------------------------------


@pytest.fixture(scope="module")
def small():
    return allpass_scenario(jobs=8, seed=2, capacity=4, book_hours=1)


@pytest.mark.parametrize(("hyphen", "name"), [("tl-p", "tl_p"), ("tl-np", "tl_np"),
                                              ("allpass-fixed60", "allpass_fixed60"),
                                              ("sjf-p", "sjf_p")])
def test_hyphenated_names(small, hyphen, name):
    a = simulate(small, hyphen, seed=1)
    b = simulate(small, name, seed=1)
    assert a.attrs["algorithm"] == name == policy_name(hyphen)
    np.testing.assert_array_equal(a["jct_s"].values, b["jct_s"].values)
    assert a.attrs["cost_usd"] == b.attrs["cost_usd"]
    allpass_system.check_result(a)


def test_unknown_option_is_a_type_error_naming_it(small):
    with pytest.raises(ValueError, match="bogus"):
        simulate(small, "allpass", bogus=1)
    with pytest.raises(ValueError, match="quantum_s"):
        simulate(small, "tl_p", quantum_s=10.0)
    with pytest.raises(ValueError, match="bogus"):
        systems.simulate(small, "hpa", bogus=True)


def test_unknown_algorithm_is_a_value_error(small):
    with pytest.raises(ValueError, match="unknown algorithm 'nope'"):
        simulate(small, "nope")


@pytest.mark.parametrize(("name", "options", "field"), [
    ("allpass", {"reading": "loose"}, "reading"), ("allpass", {"F0": -1.0}, "F0"),
    ("allpass", {"overdue": "yes"}, "overdue"), ("allpass", {"checkpoint_s": -1}, "checkpoint_s"),
    ("allpass", {"units": "minutes"}, "units"), ("allpass_fixed60", {"units": "s"}, "units"),
    ("queue_all_oracle", {"F": -1.0}, "'F'"),
    ("tl_p", {"threshold_s": 0.0}, "threshold_s"), ("sjf_p", {"quantum_s": 0}, "quantum_s"),
    ("hpa", {"target": 1.5}, "target"), ("hpa", {"window_s": math.nan}, "window_s"),
    ("sjf_np", {"restore_s": math.inf}, "restore_s"),
])
def test_bad_option_values_are_named(small, name, options, field):
    with pytest.raises(ValueError, match=field):
        simulate(small, name, **options)


def test_options_are_recorded_and_used(small):
    res = simulate(small, "allpass", seed=0, F0=120.0, checkpoint_s=10.0, restore_s=20.0)
    assert options_of(res) == {"F0": 120.0, "checkpoint_s": 10.0, "restore_s": 20.0}
    assert res.attrs["F0"] == 120.0
    allpass_system.check_result(res)
    kind = res["seg_kind"].values
    length = (res["seg_end_s"] - res["seg_start_s"]).values
    if (kind == "checkpoint").any():
        np.testing.assert_allclose(length[kind == "checkpoint"], 10.0)
    assert options_of(simulate(small, "modal")) == {}


def test_policy_options_are_its_keyword_parameters():
    # what a sweep may pass, read from the signatures
    assert {"F0", "G_up", "R_up", "G_dn", "R_dn", "reading", "overdue", "units",
            "checkpoint_s", "restore_s"} <= set(inspect.signature(REGISTRY["allpass"]).parameters)
    assert inspect.signature(REGISTRY["allpass"]).parameters["units"].default == "paper"
    # the policy counts overdue jobs by default (pressure.py's functions leave them out
    # unless told: their docstring says both)
    assert inspect.signature(REGISTRY["allpass"]).parameters["overdue"].default is True
    assert "units" in inspect.signature(REGISTRY["allpass_fixed600"]).parameters
    assert {"F", "checkpoint_s", "restore_s"} == set(
        inspect.signature(REGISTRY["queue_all_oracle"]).parameters) - {"arrays", "rng"}
    assert "threshold_s" in inspect.signature(REGISTRY["tl_p"]).parameters
    assert "quantum_s" in inspect.signature(REGISTRY["sjf_p"]).parameters


# -- measure and the registry of systems ---------------------------------------------------


def test_measure_returns_every_metric_as_a_float(scenarios, results, metrics):
    for key, m in metrics.items():
        assert set(m) == set(METRICS), key
        assert all(type(v) is float for v in m.values()), key
    m = metrics["allpass", 30]
    res = results["allpass", 30]
    assert m["avg_jct_min"] == pytest.approx(float(res["jct_s"].mean()) / 60)
    assert m["work_h"] == pytest.approx(float(res["work_s"].sum()) / 3600)
    assert m["cost_usd"] == res.attrs["cost_usd"]
    assert m["wall_seconds"] == res.attrs["wall_seconds"] >= 0
    assert 0 <= m["share_10min"] <= 1 and 0 <= m["deadline_miss_share"] <= 1
    assert m["median_jct_min"] <= m["p90_jct_min"]
    assert m["makespan_h"] >= max(res["work_s"].values) / 3600
    assert m["max_workers"] == float(res["workers"].max())
    assert TIMINGS == ("wall_seconds",)
    # a marketplace price within the book's range, NaN for a run without the market
    assert 0.3 < m["vast_price_mean"] < 1.7
    assert math.isnan(metrics["modal", 30]["vast_price_mean"])
    assert math.isnan(vast_price_mean(results["modal", 30]))


def test_systems_registry_dispatches_on_the_scenario(small):
    assert systems.get("allpass") is SYSTEM
    assert systems.of(small) is SYSTEM
    assert SYSTEM.name == "allpass" and SYSTEM.measure is measure
    assert {"jobs", "source", "capacity", "sizing", "book_hours", "offer_file",
            "trace_file", "per_epoch_s", "per_epoch_label",
            "trace_seed"} == set(SYSTEM.scenario_parameters)
    built = SYSTEM.build_scenario(jobs=8, capacity=4, book_hours=1, seed=2)
    assert built.identical(small)
    a = systems.simulate(small, "tl-np", seed=5)
    b = simulate(small, "tl_np", seed=5)
    np.testing.assert_array_equal(a["finish_s"].values, b["finish_s"].values)
    default = systems.simulate(small, seed=5)                  # the system's own algorithm
    assert default.attrs["algorithm"] == "allpass"
    bad = default.copy(deep=True)
    bad["finish_s"].values[0] = np.nan
    with pytest.raises(ResultError, match="every job finishes"):
        systems.check_result(bad)


def test_a_registered_policy_is_simulated(small):
    from lorasched.allpass.policies import allpass_fixed

    def mine(arrays, rng, F: float = 120.0):
        return allpass_fixed(arrays, rng, F=F)

    SYSTEM.register("mine_fixed", mine)
    try:
        res = simulate(small, "mine_fixed", seed=0, F=90.0)
        allpass_system.check_result(res)
        assert res.attrs["algorithm"] == "mine_fixed" and math.isnan(res.attrs["F0"])
        np.testing.assert_array_equal(res["F_s"].values, 90.0)
    finally:
        SYSTEM.unregister("mine_fixed")
    assert "mine_fixed" not in REGISTRY


def test_fixed_variants_accept_allpass_fixed_options(small):
    res = simulate(small, "allpass_fixed60", seed=0, checkpoint_s=10.0)
    assert options_of(res) == {"checkpoint_s": 10.0}


def test_necessary_demand_option_is_labelled_and_checked(small):
    res = simulate(small, "allpass", seed=0, demand="laxity")
    systems.check_result(res)
    assert options_of(res) == {"demand": "laxity"}
    with pytest.raises(ValueError, match="'demand'"):
        simulate(small, "allpass", seed=0, demand="slack")


def test_units_slip_is_an_option_that_changes_the_run(scenarios):
    paper = simulate(scenarios[30], "allpass", seed=3)
    default = simulate(scenarios[30], "allpass", seed=3, units="paper")
    slip = simulate(scenarios[30], "allpass", seed=3, units="slip")
    allpass_system.check_result(slip)
    assert options_of(slip) == {"units": "slip"}
    np.testing.assert_array_equal(default["finish_s"].values, paper["finish_s"].values)
    assert not np.array_equal(slip["finish_s"].values, paper["finish_s"].values)
    # (the factor itself is pinned tick by tick in test_allpass_cluster and
    # test_allpass_scalers); on this scenario the larger pressure raises F further
    assert np.nanmax(slip["F_s"].values) >= np.nanmax(paper["F_s"].values)


@pytest.mark.parametrize("R_dn", [2.0, 1e9])
def test_r_dn_at_or_above_g_dn_never_changes_a_run(scenarios, results, R_dn):
    # p >= 0, so line 6's G_dn (1 - p) <= G_dn = 2 < R_dn: R_dn never binds
    res = simulate(scenarios[30], "allpass", seed=3, R_dn=R_dn)
    np.testing.assert_array_equal(res["F_s"].values, results["allpass", 30]["F_s"].values)
    np.testing.assert_array_equal(res["finish_s"].values,
                                  results["allpass", 30]["finish_s"].values)
    assert res.attrs["cost_usd"] == results["allpass", 30].attrs["cost_usd"]
    # below G_dn it binds and changes F
    low = simulate(scenarios[30], "allpass", seed=3, R_dn=0.5)
    assert not np.array_equal(low["F_s"].values, results["allpass", 30]["F_s"].values)
