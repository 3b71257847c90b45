"""EFT (Earliest Finish Time), a baseline of the paper's section 5.1, as a fixed-price service.

Paper: "For each task, EFT chooses the labor vendor with the lowest delay for data
pre-processing in the marketplace. EFT allocates the computation of the incoming task to
the compute nodes at the time slots where the task can be finished as soon as possible."

Tasks are taken in arrival order, first come first served; every decision is final.

* Vendor: the lowest delay ``h_in`` (ties: lowest price ``q_in``, then lowest index;
  :func:`~lorasched.pdftsp.baselines.vendors.lowest_delay_vendor`). A task without
  pre-processing (``f_i = 0``) uses no vendor (-1) and may start at its arrival. The window
  is ``[a_i + h_in, d_i]``.
* Schedule: :func:`lorasched.pdftsp.kernels.earliest_finish`, the fastest eligible node in
  every slot from the window's start on, which finishes as early as any schedule can. Tasks
  may share a node in a slot (task merging) as long as compute and memory fit.
* Admission: EFT runs no auction. Task ``i`` is offered at the posted price
  ``p_i = price_per_sample * M_i`` (:func:`lorasched.pdftsp.pricing.posted_prices`; by
  default the scenario's ``value_density_min``). If ``b_i < p_i`` the user does not buy:
  rejected, ``"price_above_bid"``. Otherwise, if no schedule meets ``M_i`` by ``d_i``:
  ``"no_feasible_schedule"``. Otherwise the task is admitted, pays ``p_i`` (<= ``b_i``,
  individually rational) and its cells are removed from the residual capacities
  (``compute_left -= s_ik``, ``memory_left -= r_i``).
* Welfare is ignored: a task is admitted even when its bid is below its vendor price plus
  operating cost (negative contribution to welfare), as a fixed-price service would.

No surplus ``F(il)`` is computed (NaN) and there are no dual prices (zeros).
:func:`greedy_run` is shared with :mod:`lorasched.pdftsp.baselines.ntm`.
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
