"""The centre of per-seed values that every page prints, the one its claims judge: the
geometric mean of a positive quantity, the logit mean of a share, with its 95 % interval
over seeds (:func:`~.verdicts.estimate`); tables and prose use it so that a number and
the verdict beside it read the same data the same way."""

from __future__ import annotations

import numpy as np
import xarray as xr

from .numbers import num
from .verdicts import LINEAR, RATIO, SHARE, Estimate, estimate

#: how the pages name the centre
CENTRE_WORDS = "geometric mean over seeds"


def seeds_estimate(values, on: str = LINEAR) -> Estimate:
    """:func:`~lorasched.figures.verdicts.estimate` of per-seed values on scale ``on``
    (:data:`~lorasched.figures.verdicts.SCALES`), or an estimate of NaNs (judged
    *inconclusive*, shown as missing) when no seed has a finite value."""
    v = np.asarray(values, dtype=float).ravel()
    if not np.isfinite(v).any():
        return Estimate(np.nan, np.nan, np.nan, 0, on)
    return estimate(v, on)


def centre(values, on: str = RATIO) -> float:
    """The claims' centre of per-seed ``values`` on scale ``on`` (:data:`~.verdicts.SCALES`):
    the geometric mean of a positive quantity (``RATIO``, the default), falling back to the
    arithmetic mean where a seed gives zero, as the claims' interval does
    (:func:`~.verdicts.estimate`); NaN where no seed has a finite value."""
    return seeds_estimate(values, on).mean


def centre_share(values) -> float:
    """The centre of per-seed shares given as fractions (0 to 1), as a fraction: the mean
    of their logit, transformed back (:func:`centre` on ``SHARE``)."""
    return centre(100 * np.asarray(values, dtype=float), SHARE) / 100


def over_seeds(da: xr.DataArray, on: str = RATIO) -> xr.DataArray:
    """:func:`centre` over ``da``'s ``seed`` dimension, at each of its other coordinates."""
    return xr.apply_ufunc(lambda v: centre(v, on), da, input_core_dims=[["seed"]],
                          vectorize=True)


def fmt(values, f=num, on: str = RATIO) -> str:
    """Per-seed values for the data tables, as the claims give them: the centre
    (:func:`centre`) and its 95 % interval over seeds, ``24.2 (18.1 to 32.3)``, each
    number by ``f``; one number where every seed gives it, blank where none has one."""
    est = seeds_estimate(values, on)
    if not np.isfinite(est.mean):
        return ""
    return f"{f(est.mean)} ({f(est.low)} to {f(est.high)})" if est.spread else f(est.mean)
