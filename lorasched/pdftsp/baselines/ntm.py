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
    """The baseline ``ntm``: No Task Merging as a fixed-price service (module docstring).

    Parameters
    ----------
    arrays : ScenarioArrays
        The scenario.
    rng : numpy.random.Generator
        Draws each vendor uniformly at random, one draw per task that needs
        pre-processing, before any decision.
    price_per_sample : float, optional
        The posted price per sample; a task is offered at ``price_per_sample * M_i``
        (default the scenario's ``value_density_min``).
    progress : bool, optional
        Show a progress bar (default False).

    Returns
    -------
    Decisions
    """
    return greedy_run(arrays, random_vendor(arrays, rng), exclusive=True, name="ntm",
                      vendor_rule="random", price_per_sample=price_per_sample,
                      progress=progress)
