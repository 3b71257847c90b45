"""pdFTSP's causes: the counterfactual data put pdFTSP's calibrated runs in place of its
Lemma-2 runs and leave every baseline's run as it was, or put each baseline's run tuned
alike in its place; every figure that states claims declares a root cause."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from lorasched.figures.pdftsp.catalog import FIGURES
from lorasched.figures.pdftsp.causes import (
    INTERVENTIONS,
    ROOT_CAUSES,
    ROOT_OF,
    counterfactual,
    root_cause,
)
from lorasched.model.errors import InputError


def _data():
    rng = np.random.default_rng(1)
    shape = (2, 3, 4)
    dims = ("constants", "algorithm", "seed")
    coords = {"constants": ["Lemma 2", "calibrated"], "algorithm": ["pdftsp", "titan", "eft"],
              "seed": [1, 2, 3, 4]}
    return xr.Dataset({"welfare": (dims, rng.uniform(1, 9, shape)),
                       "n_tasks": (("seed",), np.arange(4.0))}, coords=coords)


def test_the_counterfactual_swaps_pdftsps_constants_only():
    ds = _data()
    cf = counterfactual(ds)
    w, w0 = cf["welfare"], ds["welfare"]
    np.testing.assert_array_equal(w.sel(constants="Lemma 2", algorithm="pdftsp"),
                                  w0.sel(constants="calibrated", algorithm="pdftsp"))
    np.testing.assert_array_equal(w.sel(algorithm=["titan", "eft"]),
                                  w0.sel(algorithm=["titan", "eft"]))
    np.testing.assert_array_equal(w.sel(constants="calibrated"), w0.sel(constants="calibrated"))
    assert cf["n_tasks"].equals(ds["n_tasks"])
    # the input is left as it was
    assert not np.array_equal(w0.sel(constants="Lemma 2", algorithm="pdftsp"),
                              w0.sel(constants="calibrated", algorithm="pdftsp"))



def _with_tuned():
    """Figure data as a sweep figure joins its part "tuned": each baseline with a free
    option beside its run tuned alike (``<algorithm>_tuned``)."""
    rng = np.random.default_rng(2)
    algorithms = ["pdftsp", "titan", "eft", "ntm", "eft_tuned", "ntm_tuned"]
    dims = ("constants", "algorithm", "seed")
    coords = {"constants": ["Lemma 2", "calibrated"], "algorithm": algorithms,
              "seed": [1, 2, 3]}
    return xr.Dataset({"welfare": (dims, rng.uniform(1, 9, (2, len(algorithms), 3)))},
                      coords=coords)


def test_the_tuned_counterfactual_puts_every_baseline_tuned_alike_beside_calibrated_pdftsp():
    ds = _with_tuned()
    w0, w = ds["welfare"], counterfactual(ds, tuned=True)["welfare"]
    np.testing.assert_array_equal(w.sel(constants="Lemma 2", algorithm="pdftsp"),
                                  w0.sel(constants="calibrated", algorithm="pdftsp"))
    for a in ("eft", "ntm"):
        np.testing.assert_array_equal(w.sel(algorithm=a), w0.sel(algorithm=f"{a}_tuned"))
    # Titan has nothing to tune: its run is its own tuned self
    np.testing.assert_array_equal(w.sel(algorithm="titan"), w0.sel(algorithm="titan"))
    # untuned, the baselines stay as the paper ran them
    np.testing.assert_array_equal(counterfactual(ds)["welfare"].sel(algorithm="eft"),
                                  w0.sel(algorithm="eft"))
    # a figure whose tuned part did not run cannot give the fair comparison
    with pytest.raises(InputError, match="tuned alike"):
        counterfactual(ds.drop_sel(algorithm="ntm_tuned"), tuned=True)


def test_every_figure_that_states_claims_declares_a_root_cause():
    stating = [k for k in FIGURES if k != "calibration"]  # the calibration page: none
    for key in stating:
        fig = FIGURES[key]
        assert root_cause(key, "any claim of the page") in ROOT_CAUSES
        assert root_cause(fig.number, "any claim") == root_cause(key, "any claim")
    assert set(ROOT_OF.values()) <= set(ROOT_CAUSES)
    # the calibrated counterfactual takes away the prices, and counts only tuned alike
    assert INTERVENTIONS["calibrated"].unfair and not INTERVENTIONS["calibrated_tuned"].unfair
    with pytest.raises(InputError, match="no root cause"):
        root_cause("Fig. 99", "a claim no page states")


def test_a_figure_without_a_declared_root_cause_is_refused(monkeypatch):
    from lorasched.figures.pdftsp import causes as pdftsp_causes

    broken = {k: v for k, v in ROOT_OF.items() if k[0] != "fig09"}
    monkeypatch.setattr(pdftsp_causes, "ROOT_OF", broken)
    with pytest.raises(InputError, match="Fig. 9"):
        root_cause("Fig. 9", "pdFTSP best for every deadline policy")


def test_the_longest_declared_start_of_a_claim_decides(monkeypatch):
    from lorasched.figures.pdftsp import causes as pdftsp_causes

    monkeypatch.setattr(pdftsp_causes, "ROOT_OF", {("fig05", ""): "vendors",
                                                   ("fig05", "welfare rises"): "prices"})
    assert root_cause("fig05", "welfare rises slightly with more vendors") == "prices"
    assert root_cause("fig05", "another claim") == "vendors"
