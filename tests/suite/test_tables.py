"""The suite's numbers on hand-made datasets: pooled and per-scenario means with their 95 %
Student-t intervals over seeds, ratios, missing cells, and the Markdown table."""

from __future__ import annotations

import math

import numpy as np
import pytest
import xarray as xr

from lorasched.model.errors import InputError
from lorasched.suite import tables

#: avg_jct_h by (density, algorithm, seed): two scenarios, two policies, three seeds
JCT = np.array([[[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]],
                [[3.0, 4.0, 8.0], [5.0, 5.0, 5.0]]])


def titan_dataset(jct=JCT) -> xr.Dataset:
    dims = ("density", "algorithm", "seed")
    coords = {"density": [1.0, 2.0], "algorithm": ["a", "b"], "seed": [1, 2, 3]}
    return xr.Dataset({"avg_jct_h": (dims, jct), "makespan_h": (dims, 10 * jct),
                       "solve_time_mean": (dims, np.full(jct.shape, 0.5)),
                       "wall_seconds": (dims, np.ones(jct.shape))}, coords=coords)


def row(long, policy, scenario, metric):
    got = long[(long.policy == policy) & (long.scenario == scenario) & (long.metric == metric)]
    assert len(got) == 1
    return got.iloc[0]


def test_pooled_rows_estimate_each_seeds_mean_over_the_scenarios():
    long = tables.summary(titan_dataset(), "titan")
    r = row(long, "a", tables.POOLED, "avg_jct_h")
    per_seed = JCT[:, 0, :].mean(axis=0)  # 2, 3, 5.5
    half = 4.303 * per_seed.std(ddof=1) / math.sqrt(3)  # t(0.975, df 2) = 4.303
    assert r["mean"] == pytest.approx(per_seed.mean())
    assert (r["low"], r["high"]) == pytest.approx((per_seed.mean() - half,
                                                   per_seed.mean() + half))
    assert r["n"] == 3 and r["system"] == "titan" and not r["machine_dependent"]
    assert row(long, "a", tables.POOLED, "wall_seconds")["machine_dependent"]


def test_scenario_rows_estimate_over_the_seeds_of_that_scenario():
    long = tables.summary(titan_dataset(), "titan")
    r = row(long, "a", "density=2", "avg_jct_h")
    half = 4.303 * np.std([3.0, 4.0, 8.0], ddof=1) / math.sqrt(3)
    assert (r["mean"], r["low"], r["high"]) == pytest.approx((5.0, 5.0 - half, 5.0 + half))
    equal = row(long, "b", "density=1", "avg_jct_h")  # no spread: a point
    assert equal["low"] == equal["high"] == equal["mean"] == 2.0
    assert set(long.scenario) == {tables.POOLED, "density=1", "density=2"}
    assert len(long) == 2 * 3 * 4  # policies x (pooled + 2 scenarios) x metrics


def test_a_seed_missing_a_scenario_leaves_the_pooled_row():
    jct = JCT.copy()
    jct[1, 0, 2] = np.nan  # policy a, density 2, seed 3 failed
    long = tables.summary(titan_dataset(jct), "titan")
    r = row(long, "a", tables.POOLED, "avg_jct_h")
    assert r["n"] == 2 and r["mean"] == pytest.approx((2.0 + 3.0) / 2)
    assert row(long, "a", "density=2", "avg_jct_h")["n"] == 2


def test_a_ratio_is_its_numerator_over_a_positive_denominator():
    dims = ("load", "algorithm", "seed")
    coords = {"load": ["x"], "algorithm": ["p"], "seed": [1, 2]}
    shape = (1, 1, 2)
    ds = xr.Dataset({"welfare": (dims, np.array([[[50.0, 30.0]]])),
                     "provider_utility": (dims, np.zeros(shape)),
                     "n_admitted": (dims, np.array([[[1.0, 2.0]]])),
                     "n_tasks": (dims, np.array([[[4.0, 0.0]]])),
                     "decision_time_mean": (dims, np.zeros(shape)),
                     "wall_seconds": (dims, np.zeros(shape)),
                     "bound": (("load", "seed"), np.array([[100.0, 60.0]]))}, coords=coords)
    values = tables.metrics(ds, "pdftsp")
    assert values["welfare_to_bound"].values.ravel().tolist() == [0.5, 0.5]
    share = values["admitted_share"].values.ravel()
    assert share[0] == 0.25 and np.isnan(share[1])  # no task arrived: no share
    with pytest.raises(InputError, match=r"no variable\(s\) \['bound'\]"):
        tables.metrics(ds.drop_vars("bound"), "pdftsp")


def test_the_markdown_table_has_every_policy_metric_and_interval():
    long = tables.summary(titan_dataset(), "titan")
    text = tables.markdown(long, "titan")
    lines = text.splitlines()
    assert lines[0] == ("| policy | avg_jct_h | makespan_h | solve_time_mean † | "
                        "wall_seconds † | seeds |")
    assert len(lines) == 4 and lines[2].startswith("| a | 3.5 [") and lines[3].startswith(
        "| b | 3.5 |")  # b has no spread over seeds: the bare mean
    assert tables.cell_text(1.0, 0.5, 1.5) == "1 [0.5, 1.5]"
    assert tables.cell_text(-1e-17, -1e-16, 1e-16) == "0"  # rounding noise
    assert tables.cell_text(math.nan, math.nan, math.nan) == "—"


def test_wide_is_a_policy_by_metric_table_of_numbers():
    table = tables.wide(tables.summary(titan_dataset(), "titan"))
    assert list(table.index) == ["a", "b"]
    assert list(table.columns[:3]) == ["avg_jct_h", "avg_jct_h_low", "avg_jct_h_high"]
    assert table.loc["a", "avg_jct_h"] == pytest.approx(3.5)
    assert table["seeds"].tolist() == [3, 3]
