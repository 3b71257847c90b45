"""Posted prices for the baselines, which run no auction.

Titan, EFT and NTM are schedulers, not mechanisms. lorasched runs them as a fixed-price
service: task ``i`` is offered at ``price_per_sample * M_i``; a user buys iff the bid (its
value) is at least that price, and then pays exactly that price (individually rational by
construction). The default price per sample is the scenario's declared minimum value density
``value_density_min`` (:attr:`~lorasched.pdftsp.scenario.ScenarioArrays.value_density_min`), at
which every user of a synthetic scenario buys, so that admission depends on capacity and
deadlines only (first come, first served) and the baselines are not handicapped by their
price; revenue plots then show what that price earns.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..model.errors import InputError
from .scenario import ScenarioArrays


def posted_prices(arrays: ScenarioArrays,
                  price_per_sample: float | None = None) -> tuple[np.ndarray, float]:
    """Price of each task (money), ``price_per_sample * work``, and the price per sample
    used (the argument, or the default of the module docstring; for a scenario that
    declares no ``value_density_min``, the lowest bid per sample, with a warning)."""
    if price_per_sample is None:
        if arrays.value_density_min is not None:
            price_per_sample = float(arrays.value_density_min)
        else:
            density = arrays.bid / arrays.work
            price_per_sample = float(density.min()) if density.size else 0.0
            warnings.warn("the scenario declares no value_density_min; the posted price per "
                          "sample is the lowest bid per sample (hindsight)", stacklevel=3)
    if not np.isfinite(price_per_sample) or price_per_sample < 0:
        raise InputError(f"price_per_sample must be a number >= 0, got {price_per_sample}")
    return price_per_sample * arrays.work.astype(float), float(price_per_sample)
