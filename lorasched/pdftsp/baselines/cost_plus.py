"""Cost-plus pricing, lorasched's baseline (not the paper's): first come, first served, each
task offered at ``markup`` times what serving it costs, its cheapest vendor and
earliest-finish schedule (:func:`run`). The price does not depend on the bid, so bidding
the true value is a dominant strategy. Rule by rule: :doc:`/reference/pdftsp_baselines`.
"""

from __future__ import annotations

import time

import numpy as np

from ...model.errors import InputError
from .. import kernels
from ..decisions import CellCollector, Decisions
from ..scenario import ScenarioArrays

#: the markup over cost when none is given (the plug-in example's)
DEFAULT_MARKUP = 2.0
#: the markups scanned when cost-plus is tuned: log-spaced from 1 (a price at cost) far
#: enough up that welfare falls again on both sizes of the book's base scenario
MARKUP_GRID = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0)


def run(arrays: ScenarioArrays, rng: np.random.Generator, *,
        markup: float = DEFAULT_MARKUP, progress: bool = False) -> Decisions:
    """The baseline ``cost_plus``: cost-plus pricing, first come, first served.

    A task is admitted iff its bid covers ``markup`` x its cheapest cost, and then pays
    exactly that. Tasks are taken in arrival order. For every vendor the task could use (or
    none, if its data need no pre-processing) the earliest-finish schedule
    (``lorasched.pdftsp.kernels.earliest_finish``, as EFT's) in the capacity left after
    the vendor's delay is found; the cheapest, vendor price plus operating cost
    ``sum e_ikt`` over its cells, is kept. The price, ``markup`` x that cost, depends on
    the task's work, deadline and the capacity left, never on its bid: a posted price,
    so truthful. Draws no random numbers.

    Parameters
    ----------
    arrays : ScenarioArrays
        The scenario.
    rng : numpy.random.Generator
        Accepted for the common interface.
    markup : float, optional
        The price over cost, > 0 (default ``DEFAULT_MARKUP``, 2).
    progress : bool, optional
        Accepted for the common interface (the policy takes about what EFT takes).

    Returns
    -------
    Decisions
        Admission, vendor, schedule and payment of every task.

    Raises
    ------
    InputError
        If ``markup`` is not a number > 0 (a ``ValueError``).
    """
    del rng, progress
    if not (isinstance(markup, int | float) and np.isfinite(markup) and markup > 0):
        raise InputError(f"markup must be a number > 0, got {markup!r}")
    a = arrays
    out = Decisions.empty(a.n_tasks, a.n_nodes, a.n_slots)
    compute_left, memory_left = a.residual()  # C_kp, C_km - r_b
    capacity = np.ascontiguousarray(a.compute_capacity, dtype=np.int64)
    earliest_finish = kernels.earliest_finish
    clock = time.perf_counter
    cells = CellCollector()
    for i in range(a.n_tasks):
        start = clock()
        if a.needs_preprocessing[i]:
            offers = zip(range(a.n_vendors), a.vendor_price[i].tolist(),
                         a.vendor_delay[i].tolist(), strict=True)
        else:
            offers = [(-1, 0.0, 0)]
        best = None
        for v, price, delay in offers:
            finish, nodes, slots = earliest_finish(
                int(a.arrival[i]) + int(delay), int(a.deadline[i]), a.work[i], a.speed[i],
                a.memory[i], compute_left, memory_left, capacity, False)
            if finish < 0:
                continue
            cost = price + float(a.op_cost(i, nodes, slots).sum())  # vendor + sum e_ikt
            if best is None or cost < best[0]:
                best = (cost, v, nodes, slots)
        if best is not None:
            cost, v, nodes, slots = best
            if a.bid[i] < markup * cost:
                out.reason[i] = "price_above_bid"
            else:
                compute_left[nodes, slots] -= a.speed[i, nodes]  # (k, t) pairs are distinct
                memory_left[nodes, slots] -= a.memory[i]
                out.admitted[i], out.chosen_vendor[i], out.reason[i] = True, v, "admitted"
                out.payment[i] = markup * cost
                cells.add(i, nodes, slots)
        out.decision_time[i] = clock() - start
    cells.store(out)
    out.attrs = {"markup": float(markup)}
    return out
