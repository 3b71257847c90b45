"""NTM (No Task Merging), a baseline of the paper's section 5.1, as a fixed-price service: EFT
with a random vendor and one task per node per slot (:func:`run`). Rule by rule:
:doc:`/reference/pdftsp_baselines`.
"""

from __future__ import annotations

import numpy as np

from ..decisions import Decisions
from ..scenario import ScenarioArrays
from .eft import greedy_run
from .vendors import random_vendor


def run(arrays: ScenarioArrays, rng: np.random.Generator, *,
        price_per_sample: float | None = None, progress: bool = False) -> Decisions:
    """NTM on ``arrays``; see the module docstring."""
    return greedy_run(arrays, random_vendor(arrays, rng), exclusive=True, name="ntm",
                      vendor_rule="random", price_per_sample=price_per_sample,
                      progress=progress)
