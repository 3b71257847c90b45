"""pdFTSP's causes: the counterfactual data put pdFTSP's calibrated runs in place of its
Lemma-2 runs and leave every baseline's run as it was."""

from __future__ import annotations

import numpy as np
import xarray as xr

from lorasched.figures.pdftsp.causes import counterfactual


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

