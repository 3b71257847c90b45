"""EFT (Earliest Finish Time), a baseline of the paper's section 5.1, as a fixed-price service:
the lowest-delay vendor, the earliest-finish schedule, the posted price (:func:`run`;
:func:`greedy_run` is shared with NTM). Rule by rule: :doc:`/reference/pdftsp_baselines`.
"""

from __future__ import annotations

import time

import numpy as np
from tqdm import tqdm  # text bar: a widget bar would break plotly in the built book

from .. import kernels
from ..decisions import CellCollector, Decisions
from ..pricing import posted_prices
from ..scenario import ScenarioArrays
from .vendors import lowest_delay_vendor


def greedy_run(arrays: ScenarioArrays, vendor: np.ndarray, *, exclusive: bool, name: str,
               vendor_rule: str, price_per_sample: float | None,
               progress: bool) -> Decisions:
    """First come, first served at posted prices with earliest-finish schedules.

    ``vendor[i]`` is task i's vendor if it needs pre-processing (-1: none available, so the
    task cannot be scheduled). ``exclusive``: one task per node and slot (NTM).
    """
    prices, pps = posted_prices(arrays, price_per_sample)
    n_tasks, K, T = arrays.n_tasks, arrays.n_nodes, arrays.n_slots
    out = Decisions.empty(n_tasks, K, T)
    capacity = np.ascontiguousarray(arrays.compute_capacity, dtype=np.int64)
    compute_left, memory_left = arrays.residual()  # C_kp, C_km - r_b

    # plain Python scalars: numpy scalar indexing per task costs more than the decision
    arrival = arrays.arrival.tolist()
    deadline = arrays.deadline.tolist()
    work = arrays.work.tolist()
    memory = arrays.memory.tolist()
    needs = arrays.needs_preprocessing.tolist()
    bid = arrays.bid.tolist()
    price = prices.tolist()
    vendor_l = vendor.tolist()
    speed = arrays.speed
    delay = arrays.vendor_delay
    earliest_finish = kernels.earliest_finish
    admitted, chosen, payment = out.admitted, out.chosen_vendor, out.payment
    reason, decision_time = out.reason, out.decision_time
    clock = time.perf_counter
    cells = CellCollector()
    for i in tqdm(range(n_tasks), desc=name, unit="task", disable=not progress):
        start = clock()
        if bid[i] < price[i]:
            reason[i] = "price_above_bid"
            decision_time[i] = clock() - start
            continue
        v = -1
        t0 = arrival[i]
        if needs[i]:
            v = vendor_l[i]
            if v < 0:  # needs pre-processing but the marketplace has no vendor
                decision_time[i] = clock() - start
                continue
            t0 += int(delay[i, v])
        d = deadline[i]
        if t0 > d:
            decision_time[i] = clock() - start
            continue
        speed_i = speed[i]
        r_i = memory[i]
        finish, nodes, slots = earliest_finish(t0, d, work[i], speed_i, r_i, compute_left,
                                               memory_left, capacity, exclusive)
        if finish >= 0:
            compute_left[nodes, slots] -= speed_i[nodes]  # (k, t) pairs are distinct
            memory_left[nodes, slots] -= r_i
            admitted[i] = True
            chosen[i] = v
            payment[i] = price[i]
            reason[i] = "admitted"
            cells.add(i, nodes, slots)
        decision_time[i] = clock() - start
    cells.store(out)
    out.attrs = {"price_per_sample": pps, "vendor_rule": vendor_rule}
    return out


def run(arrays: ScenarioArrays, rng: np.random.Generator, *,
        price_per_sample: float | None = None, progress: bool = False) -> Decisions:
    """The baseline ``eft``: Earliest Finish Time as a fixed-price service (module docstring).

    Draws no random numbers.

    Parameters
    ----------
    arrays : ScenarioArrays
        The scenario.
    rng : numpy.random.Generator
        Accepted for the common interface.
    price_per_sample : float, optional
        The posted price per sample; a task is offered at ``price_per_sample * M_i``
        (default the scenario's ``value_density_min``).
    progress : bool, optional
        Show a progress bar (default False).

    Returns
    -------
    Decisions
    """
    del rng
    return greedy_run(arrays, lowest_delay_vendor(arrays), exclusive=False, name="eft",
                      vendor_rule="lowest_delay", price_per_sample=price_per_sample,
                      progress=progress)
