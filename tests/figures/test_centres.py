"""The centre every page prints (lorasched.figures.centres): the claims' own."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from lorasched.figures.centres import centre, centre_share, fmt, over_seeds, seeds_estimate
from lorasched.figures.verdicts import RATIO, SHARE, estimate


def test_the_centre_is_the_claims_estimate():
    values = [1.0, 4.0, 16.0]
    assert centre(values) == pytest.approx(4.0) == estimate(values, RATIO).mean
    assert centre([0.0, 1.0, 2.0]) == pytest.approx(1.0)  # a seed at zero: the mean
    assert centre_share([0.2, 0.5, 0.8]) == pytest.approx(estimate([20, 50, 80], SHARE).mean
                                                          / 100)
    assert np.isnan(centre([np.nan, np.nan]))
    assert np.isnan(seeds_estimate([np.nan]).mean) and fmt([np.nan]) == ""


def test_over_seeds_reduces_the_seed_dimension_at_every_other_coordinate():
    da = xr.DataArray([[1.0, 4.0, 16.0], [2.0, 2.0, 2.0]], dims=("policy", "seed"),
                      coords={"policy": ["a", "b"], "seed": [1, 2, 3]})
    out = over_seeds(da)
    assert out.dims == ("policy",)
    assert out.sel(policy="a") == pytest.approx(4.0) and out.sel(policy="b") == 2.0
    shares = over_seeds(100 * da / 20, SHARE)
    assert float(shares.sel(policy="b")) == pytest.approx(10.0)


def test_a_table_cell_is_the_centre_and_its_interval():
    est = estimate([1.0, 4.0, 16.0], RATIO)
    assert fmt([1.0, 4.0, 16.0]) == f"{est.mean:.3g} ({est.low:.3g} to {est.high:.3g})"
    assert fmt([3.0, 3.0]) == "3"
