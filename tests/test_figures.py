"""The section-5 experiments (lorasched.figures.pdftsp): declarations, runs, claims, CLI."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from lorasched.cli import main
from lorasched.experiments.sweep import run_sweep, without_timings
from lorasched.figures import pdftsp as figures


def test_full_size_is_the_papers_setting():
    base = figures.base("full")
    assert base == {"nodes": 100, "gpu": "mix", "vendors": 5, "deadline_policy": "slack",
                    "load": "medium", "slots": 144}
    assert figures.sweep("fig04", "full").coords()["nodes"].tolist() == [50, 100, 150, 200]
    loads = figures.sweep("fig08", "full").axes["load"]
    assert loads == {"light (30)": {"load": "light"}, "medium (50)": {"load": "medium"},
                     "high (80)": {"load": "high"}}
    assert figures.sweep("fig07", "full").coords()["trace"].tolist() == [
        "mlaas", "philly", "helios"]
    for name in [*figures.FIGURES, "fig12_opt"]:
        s = figures.sweep(name, "full")
        assert s.seeds == (1, 2, 3)
        assert s.options["titan"] == {"mip_max_nodes": 0}
        assert set(s.algorithms) == {"pdftsp", "titan", "eft", "ntm"}


def test_small_size_scales_nodes_and_loads_by_ten():
    s = figures.sweep("fig08", "small")
    assert s.base["nodes"] == 10 and s.base["slots"] == 48
    assert [p["load"] for p in s.axes["load"].values()] == [3.0, 5.0, 8.0]
    assert figures.sweep("fig08", "small", seeds=4).seeds == (1, 2, 3, 4)


def test_bad_names_are_rejected():
    with pytest.raises(ValueError, match="figure must be one of"):
        figures.sweep("fig99")
    with pytest.raises(ValueError, match="size must be one of"):
        figures.sweep("fig04", "huge")


def test_run_equals_the_sweep_and_by_method_flattens_pdftsp_variants(tmp_path):
    ds = figures.run("fig06", "small", store=tmp_path)
    direct = run_sweep(figures.sweep("fig06", "small"), store=tmp_path / "direct",
                       serial=True, progress=False).dataset
    xr.testing.assert_identical(without_timings(ds), without_timings(direct))
    flat = figures.by_method(ds)
    assert flat["algorithm"].values.tolist() == [
        "pdFTSP (Lemma 2)", "pdFTSP (α=1, β=100)", "Titan", "EFT", "NTM"]
    np.testing.assert_array_equal(
        flat.sel(algorithm="pdFTSP (α=1, β=100)").values,
        ds["welfare"].sel(algorithm="pdftsp", constants="α=1, β=100").values)
    # baselines ignore alpha/beta: both constants rows hold the same (single) cell
    np.testing.assert_array_equal(ds["welfare"].sel(algorithm="eft").isel(constants=0).values,
                                  ds["welfare"].sel(algorithm="eft").isel(constants=1).values)
    table = figures.welfare_table(ds)
    assert list(table.index) == ["A100", "A40", "mix"] and "±" in table.iloc[0, 0]


def test_reproduce_fills_the_store_the_notebooks_read(tmp_path):
    report = figures.reproduce("small", tmp_path, figures=["fig05", "fig13"], serial=True,
                               progress=False)
    assert not report.failed and report.computed > 0
    for name in ("fig05", "fig04", "fig13"):  # fig04 and fig13 are the same runs
        again = run_sweep(figures.sweep(name, "small"), store=tmp_path, serial=True,
                          progress=False)
        assert again.computed == 0


def _fake(axis, values, welfare):
    """A figure dataset with given welfare[axis, constants, algorithm] (2 equal seeds)."""
    w = np.asarray(welfare, dtype=float)[..., None].repeat(2, axis=-1)
    return xr.Dataset(
        {"welfare": ((axis, "constants", "algorithm", "seed"), w)},
        coords={axis: values, "constants": list(figures.PDFTSP_CONSTANTS),
                "algorithm": list(figures.ALGORITHMS), "seed": [1, 2]})


def test_claims_verdicts_follow_the_data():
    # pdFTSP (Lemma 2) loses to Titan at K=50, the tuned pdFTSP beats everyone
    w = [[[50, 100, 60, 40], [120, 100, 60, 40]],
         [[80, 150, 90, 60], [170, 150, 90, 60]]]
    table = figures.claims("fig04", _fake("nodes", [50, 100], w))
    titan = table[table.claim == "K=50: pdFTSP over Titan"].set_index("pdFTSP")
    assert titan.loc["Lemma 2", "verdict"] == "disagrees"
    assert titan.loc["Lemma 2", "ours"] == "-50.0 %"
    assert titan.loc["α=1, β=100", "verdict"] == "agrees"
    assert titan.loc["α=1, β=100", "paper"] == "+30.78 %"
    grows = table[table.claim == "welfare grows with K"]
    assert (grows.verdict == "agrees").all()


def test_competitive_ratio_above_3_is_inconclusive_for_a_bound_only():
    ds = _fake("load", ["light"], [[[100, 1, 1, 1], [200, 1, 1, 1]]])
    ds["competitive_ratio"] = 350.0 / ds["welfare"]
    ds["bound_converged"] = xr.DataArray([[1.0, 1.0]], dims=("load", "seed"))
    table = figures.claims("fig12", {"lp": ds, "opt": ds}).set_index(["claim", "pdFTSP"])
    assert table.loc[("competitive ratio ≤ 3, LP bound / ALG", "Lemma 2"), "verdict"] == \
        "not shown (bound above 3)"
    assert table.loc[("competitive ratio ≤ 3, OPT / ALG", "Lemma 2"), "verdict"] == \
        "disagrees"
    assert table.loc[("competitive ratio ≤ 3, OPT / ALG", "α=1, β=100"), "verdict"] == \
        "agrees"


def test_truthfulness_and_rationality_figures():
    curves = figures.truthfulness("small", seed=1)
    c = curves["critical"]
    assert 0.2 * c.attrs["value"] < c.attrs["critical_bid"] < 0.9 * c.attrs["value"]
    table = figures.claims("fig10", curves)
    assert table.verdict.tolist() == ["agrees", "disagrees"]  # eq. (14) is not truthful
    result, tasks = figures.rationality("small", seed=1, n=10)
    assert len(tasks) == 10 and result["admitted"].values[tasks].all()
    assert figures.claims("fig11", result).verdict.tolist() == ["agrees"]


def test_cli_reproduce(tmp_path, capsys):
    code = main(["reproduce", "--size", "small", "--figures", "fig06", "--store",
                 str(tmp_path), "--serial", "--no-progress"])
    assert code == 0
    out = capsys.readouterr().out
    assert "cells computed" in out and "0 failed" in out
    main(["reproduce", "--size", "small", "--figures", "fig06", "--store", str(tmp_path),
          "--serial", "--no-progress"])
    assert "0 cells computed" in capsys.readouterr().out
