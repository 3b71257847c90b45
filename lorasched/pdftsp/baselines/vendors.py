"""The baselines' vendor rules (z_in of constraint 4a), chosen before any schedule.

EFT takes the vendor with the lowest delay (:func:`lowest_delay_vendor`); NTM and Titan one
drawn uniformly at random (:func:`random_vendor`). A task without pre-processing
(``f_i = 0``) uses no vendor (-1).
"""

from __future__ import annotations

import numpy as np

from ..scenario import ScenarioArrays


def lowest_delay_vendor(arrays: ScenarioArrays) -> np.ndarray:
    """Per task, the vendor with the lowest delay (ties: lowest price, then lowest index)."""
    if arrays.n_vendors == 0:
        return np.full(arrays.n_tasks, -1, dtype=np.int64)
    order = np.lexsort((arrays.vendor_price, arrays.vendor_delay), axis=-1)  # stable
    return np.ascontiguousarray(order[:, 0], dtype=np.int64)


def random_vendor(arrays: ScenarioArrays, rng: np.random.Generator) -> np.ndarray:
    """Per task, a uniformly random vendor if it needs pre-processing, else -1.

    One draw ``rng.integers(N)`` per task that needs pre-processing, all in task order in one
    call, before any decision (so a decision never shifts the random stream); none when the
    marketplace has no vendor (such tasks cannot be scheduled).
    """
    vendor = np.full(arrays.n_tasks, -1, dtype=np.int64)
    if arrays.n_vendors == 0:
        return vendor
    need = np.flatnonzero(arrays.needs_preprocessing)
    vendor[need] = rng.integers(arrays.n_vendors, size=need.shape[0])
    return vendor
