"""Truthfulness and individual rationality of the online auction, task by task (Figs. 10-11).

The mechanism's properties are statements about ONE task facing the state the earlier tasks
left behind. :func:`auction_before` replays the earlier tasks, each at its own (truthful)
bid, so that :func:`utility_curve` can offer task ``i`` every bid of a grid against exactly
that state and report the outcome:

* admitted iff ``F(il) > 0`` (eq. 11), i.e. iff the bid exceeds the critical bid
  ``q_in* + cost (12)``, where the schedule (Algorithm 2) does not depend on the bid;
* the payment: the critical bid (``payment="critical"``, lorasched's default) or eq. (14)
  (``payment="paper"``), which leaves out the operating cost ``sum e``;
* the utility ``v_i - p_i`` if admitted and 0 otherwise (Definition 1, with the true value
  ``v_i`` = the scenario's bid ``b_i``).

Under the critical payment the utility is maximal at the truthful bid (Theorem 3 /
Myerson). Under eq. (14) a task whose value lies in ``(p14, p14 + sum e]`` loses when it
bids truthfully but wins with positive utility by overbidding; :func:`untruthful_tasks`
finds such tasks in a scenario.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from .auction import PAYMENTS, OnlineAuction, declared_bounds, default_alpha_beta
from .scenario import to_arrays


def _auction(scenario: xr.Dataset, alpha, beta, payment: str, solver: str) -> OnlineAuction:
    if payment not in PAYMENTS:
        raise ValueError(f"payment must be one of {PAYMENTS}, got {payment!r}")
    arrays = to_arrays(scenario)
    if alpha is None or beta is None:
        a0, b0 = default_alpha_beta(arrays, *declared_bounds(dict(scenario.attrs), arrays))
        alpha = a0 if alpha is None else alpha
        beta = b0 if beta is None else beta
    return OnlineAuction(arrays, alpha=alpha, beta=beta, payment=payment, solver=solver)


def _check_task(scenario: xr.Dataset, task) -> int:
    n = scenario.sizes["task"]
    if not isinstance(task, int | np.integer) or not 0 <= int(task) < n:
        raise ValueError(f"task must be an integer in 0..{n - 1}, got {task!r}")
    return int(task)


def auction_before(scenario: xr.Dataset, task: int, *, alpha: float | None = None,
                   beta: float | None = None, payment: str = "critical",
                   solver: str = "paper") -> OnlineAuction:
    """The pdFTSP auction (Algorithm 1) after tasks ``0 .. task-1`` were offered at their
    own bids, i.e. the state task ``task`` meets when it arrives."""
    task = _check_task(scenario, task)
    auction = _auction(scenario, alpha, beta, payment, solver)
    for j in range(task):
        auction.offer(j)
    return auction


def utility_curve(scenario: xr.Dataset, task: int, bids=None, *, alpha: float | None = None,
                  beta: float | None = None, payment: str = "critical",
                  solver: str = "paper") -> xr.Dataset:
    """Task ``task``'s outcome for every bid in ``bids`` (default: 201 bids from 0 to twice
    its value), all else fixed.

    Returns a Dataset over ``bid`` with ``admitted``, ``payment`` and ``utility``
    (``value - payment`` if admitted, else 0), and attributes ``value`` (the true value,
    the scenario's bid), ``critical_bid`` (the smallest winning bid: ``q_in* + cost (12)``),
    ``operating_cost`` (``sum e`` of the schedule), ``payment_rule``, ``alpha``, ``beta``.
    """
    task = _check_task(scenario, task)
    auction = auction_before(scenario, task, alpha=alpha, beta=beta, payment=payment,
                             solver=solver)
    value = float(auction.arrays.bid[task])
    if bids is None:
        bids = np.linspace(0.0, 2.0 * value, 201)
    bids = np.asarray(bids, dtype=float)
    if bids.ndim != 1 or bids.size == 0:
        raise ValueError("bids must be a non-empty 1-d sequence of numbers")
    if not (np.isfinite(bids).all() and (bids >= 0).all()):
        bad = bids[~(np.isfinite(bids) & (bids >= 0))][0]
        raise ValueError(f"bids must be finite and >= 0, got {bad}")
    state = auction.snapshot()
    admitted = np.zeros(bids.size, dtype=bool)
    pay = np.zeros(bids.size)
    for j, b in enumerate(bids):
        auction.restore(state)
        d = auction.offer(task, bid=float(b))
        admitted[j] = d.admitted
        pay[j] = d.payment
    auction.restore(state)
    s = auction.quote(task)
    utility = np.where(admitted, value - pay, 0.0)
    return xr.Dataset(
        {"admitted": ("bid", admitted), "payment": ("bid", pay), "utility": ("bid", utility)},
        coords={"bid": bids},
        attrs={"task": task, "value": value,
               "critical_bid": float(s.critical_bid) if s.feasible else float("nan"),
               "operating_cost": float(s.op_cost) if s.feasible else float("nan"),
               "feasible": int(s.feasible), "payment_rule": payment,
               "alpha": auction.alpha, "beta": auction.beta})


def untruthful_tasks(scenario: xr.Dataset, *, alpha: float | None = None,
                     beta: float | None = None, solver: str = "paper") -> np.ndarray:
    """Tasks that lose by bidding truthfully but would win with positive utility by
    overbidding under the paper's payment (14): value in ``(p14, p14 + sum e]``.

    One online pass at truthful bids (the dual updates do not depend on the payment rule).
    """
    auction = _auction(scenario, alpha, beta, "paper", solver)
    r = auction.arrays.memory
    found = []
    for i in range(auction.arrays.n_tasks):
        d = auction.offer(i)
        s = d.schedule
        if d.admitted or not s.feasible:
            continue
        p14 = s.vendor_price + s.lam_hat * s.samples + s.phi_hat * s.n_cells * float(r[i])
        if p14 < float(auction.arrays.bid[i]) <= s.critical_bid:
            found.append(i)
    return np.asarray(found, dtype=np.int64)
