"""Posted prices for the baselines, which run no auction: ``price_per_sample * M_i``, by
default at the declared ``value_density_min`` (:func:`posted_prices`); see
:doc:`/reference/pdftsp_baselines`.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..model.errors import InputError
from .scenario import ScenarioArrays

#: the posted prices per sample scanned when a baseline's price is tuned, as multiples of
#: the declared ``value_density_min`` v_min: synthetic bids per sample lie in
#: [v_min, 4 v_min], so at 1 every user buys (a lower price changes only the revenue, not
#: who is admitted) and at 4 none does
PRICE_GRID = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 3.5)


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
