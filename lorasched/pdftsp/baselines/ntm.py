"""NTM (No Task Merging), a baseline of the paper's section 5.1, as a fixed-price service.

Paper: "For each task, NTM chooses the labor vendor in the marketplace randomly. In NTM,
there is only one task can be executed on each compute node at each time. NTM also
allocates the computation to the compute nodes so that the task can be finished as soon
as possible."

Everything is as in :mod:`lorasched.pdftsp.baselines.eft` (arrival order, first come first
served, irrevocable; posted price ``price_per_sample * M_i``: ``"price_above_bid"`` if the
bid is below it, else ``"no_feasible_schedule"`` if no schedule meets ``M_i`` by ``d_i``,
else admitted at the posted price; welfare is ignored, so a task whose bid is below its
vendor price plus operating cost is still admitted) except:

* Vendor: uniformly at random (:func:`~lorasched.pdftsp.baselines.vendors.random_vendor`,
  shared with Titan), ``rng.integers(N)``, one draw per task that needs pre-processing,
  drawn for all such tasks in task order before any decision (so a decision never shifts
  the random stream, and the same seed gives the same result). A task without
  pre-processing uses no vendor (-1) and may start at its arrival.
* Schedule: :func:`lorasched.pdftsp.kernels.earliest_finish` with ``exclusive=True``: only
  nodes idle in a slot (no other task on them) are eligible, so no node ever runs two tasks
  at once.
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
