"""Why pdFTSP admits what it admits: task merging and utilisation of a result, and the
prices of the tasks it rejects (lorasched.pdftsp.diagnostics)."""

from __future__ import annotations

import numpy as np
import pytest

import lorasched
from lorasched.pdftsp.diagnostics import merging, priced_out
from lorasched.pdftsp.scenario import node_speed


def loaded():
    return lorasched.synthetic_scenario(nodes=3, slots=12, load=4.0, vendors=2, seed=4)


def test_ntm_never_shares_a_cell():
    """NTM runs one task per node and slot: no used cell is shared."""
    result = lorasched.simulate(loaded(), "ntm", seed=1)
    m = merging(result)
    assert m["used_cells"] > 0
    assert m["shared_cells"] == 0.0


def test_eft_merges_tasks_on_a_loaded_cluster():
    """EFT packs tasks together: some used cells hold two or more tasks."""
    result = lorasched.simulate(loaded(), "eft", seed=1)
    m = merging(result)
    count = np.zeros((result.sizes["node"], result.sizes["slot"]), dtype=int)
    np.add.at(count, (result["cell_node"].values, result["cell_slot"].values), 1)
    assert m["shared_cells"] > 0
    assert m["used_cells"] == (count > 0).sum()
    assert m["shared_cells"] == pytest.approx((count >= 2).sum() / (count > 0).sum())


@pytest.mark.parametrize("algorithm", ["pdftsp", "eft", "ntm", "titan"])
def test_utilisation_is_compute_used_over_the_cluster_capacity(algorithm):
    """utilisation = samples processed / (sum of node capacities x slots), from the cells."""
    result = lorasched.simulate(loaded(), algorithm, seed=1)
    m = merging(result)
    speed = node_speed(result).values
    samples = sum(int(speed[i, k]) for i, k in zip(result["cell_task"].values,
                                                    result["cell_node"].values, strict=True))
    assert samples == int(result["compute_used"].values.sum())
    capacity = int(result["compute_capacity"].values.sum()) * result.sizes["slot"]
    assert m["utilisation"] == pytest.approx(samples / capacity, rel=1e-12)
    assert 0 < m["utilisation"] <= 1
    assert 0 < m["task_share_median"] <= 1


def test_merging_of_an_empty_result_is_zero():
    """A result with no admitted task uses no cell and merges nothing."""
    scenario = lorasched.synthetic_scenario(nodes=2, slots=6, load=0.0, vendors=0)
    result = lorasched.simulate(scenario, "eft", seed=1)
    assert merging(result) == {"used_cells": 0.0, "shared_cells": 0.0, "utilisation": 0.0,
                               "task_share_median": 0.0}


@pytest.mark.parametrize("options", [{}, {"constants": "vmax"}, {"alpha": 2.0, "beta": 50.0},
                                     {"payment": "paper"}])
def test_priced_out_lists_exactly_the_negative_surplus_rejections(options):
    """One row per task that pdFTSP rejects with reason negative_surplus, same options."""
    scenario = loaded()
    result = lorasched.simulate(scenario, "pdftsp", **options)
    rejected = np.flatnonzero(result["reason"].values == "negative_surplus")
    table = priced_out(scenario, **options)
    assert len(table) == rejected.size
    assert table.index.tolist() == rejected.tolist()
    assert table.index.name == "task"


def test_priced_out_describes_each_rejection():
    """Floors and used shares lie in [0, 1], prices reach Lemma 2's floors, and value
    densities lie within the declared bounds (in units of v_min)."""
    scenario = loaded()
    table = priced_out(scenario)
    assert len(table) > 0  # the default constants price some tasks out here
    assert list(table.columns) == ["compute_used", "memory_used", "lam_hat", "phi_hat",
                                   "lam_floor", "phi_floor", "compute_charge",
                                   "value_density"]
    for column in ("lam_floor", "phi_floor", "compute_used", "memory_used", "compute_charge"):
        assert table[column].between(0.0, 1.0).all(), column
    ratio = scenario.attrs["value_density_max"] / scenario.attrs["value_density_min"]
    assert table["value_density"].between(1.0 - 1e-9, ratio + 1e-9).all()
    # lam_floor is 2^u - 1 at the fullest cell, so never below 2^mean(u) - 1 (convexity)
    assert (table["lam_floor"] >= 2.0 ** table["compute_used"] - 1.0 - 1e-12).all()
    assert (table["lam_hat"] > 0).all()
    # with Lemma 2's constants (the default) the prices are at least the lemma's floors
    assert (table["lam_hat"] >= table["lam_floor"] - 1e-9).all()
    assert (table["phi_hat"] >= table["phi_floor"] - 1e-9).all()


def test_priced_out_is_empty_when_nothing_is_priced_out():
    """With zero prices (alpha = beta = 0) no task of this scenario is priced out: no row."""
    table = priced_out(loaded(), alpha=0.0, beta=0.0)
    assert table.empty and table.index.name == "task"
