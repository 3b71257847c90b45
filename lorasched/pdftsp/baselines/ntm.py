"""NTM (No Task Merging), a baseline of the paper's section 5.1, as a fixed-price service.

Paper: "For each task, NTM chooses the labor vendor in the marketplace randomly. In NTM,
there is only one task can be executed on each compute node at each time. NTM also
allocates the computation to the compute nodes so that the task can be finished as soon
as possible."

Everything is as in :mod:`lorasched.algorithms.eft` (arrival order, first come first served,
irrevocable; posted price ``price_per_sample * M_i``: ``"price_above_bid"`` if the bid is
below it, else ``"no_feasible_schedule"`` if no schedule meets ``M_i`` by ``d_i``, else
admitted at the posted price; welfare is ignored, so a task whose bid is below its vendor
price plus operating cost is still admitted) except:

* Vendor: uniformly at random, ``rng.integers(N)``, one draw per task that needs
  pre-processing, drawn for all such tasks in task order before any decision (so a
  decision never shifts the random stream, and the same seed gives the same result). A
  task without pre-processing uses no vendor (-1) and may start at its arrival.
* Schedule: :func:`lorasched.kernels.earliest_finish` with ``exclusive=True``: only nodes
  idle in a slot (no other task on them) are eligible, so no node ever runs two tasks at
  once.
"""

from __future__ import annotations

import numpy as np

from ..decisions import Decisions
from ..scenario import ScenarioArrays
from .eft import greedy_run


def random_vendor(arrays: ScenarioArrays, rng: np.random.Generator) -> np.ndarray:
    """Per task, a uniformly random vendor if it needs pre-processing, else -1."""
    vendor = np.full(arrays.n_tasks, -1, dtype=np.int64)
    if arrays.n_vendors == 0:
        return vendor  # nothing to draw; tasks needing a vendor cannot be scheduled
    need = np.flatnonzero(arrays.needs_preprocessing)
    vendor[need] = rng.integers(arrays.n_vendors, size=need.shape[0])
    return vendor


def run(arrays: ScenarioArrays, rng: np.random.Generator, *, attrs: dict | None = None,
        price_per_sample: float | None = None, progress: bool = False) -> Decisions:
    """NTM on ``arrays``; see the module docstring."""
    return greedy_run(arrays, random_vendor(arrays, rng), exclusive=True, name="ntm",
                      vendor_rule="random", attrs=attrs, price_per_sample=price_per_sample,
                      progress=progress)
