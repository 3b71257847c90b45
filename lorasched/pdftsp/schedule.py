"""Algorithm 2, the per-task schedule (eqs. 9-13), around the kernels: :func:`schedule` with
the solvers ``"paper"`` (the DP of eq. 13), ``"exact"`` and ``"brute"``
(:func:`brute_force_schedule`). See :doc:`/algorithm`.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np

from ..model.errors import InputError
from . import candidate_index, kernels
from .candidate_index import CandidateIndex
from .scenario import MEMORY_TOLERANCE, ScenarioArrays

SOLVERS = ("paper", "exact", "brute")
NO_VENDOR = -1  #: chosen_vendor of an admitted task that needs no pre-processing
INFEASIBLE = -2  #: vendor of a schedule search that found nothing


class Schedule(NamedTuple):
    """The best schedule ``l`` of one task under given prices, with all the terms of (10).

    Parameters
    ----------
    vendor : int
        ``n*``, ``NO_VENDOR`` (-1: no pre-processing) or ``INFEASIBLE`` (-2: no schedule).
    surplus : float
        ``F(il)``, eq. (10); ``-inf`` when infeasible.
    cost : float
        The objective of (12): ``lam_hat * samples + phi_hat * n_cells * r_i + op_cost``.
    lam_hat : float
        The largest lambda over the schedule's cells.
    phi_hat : float
        The largest phi over the schedule's cells.
    samples : int
        ``sum_k sum_t s_ik x_ikt``.
    n_cells : int
        The number of (k, t) cells.
    op_cost : float
        ``sum e_ikt x_ikt``.
    vendor_price : float
        ``q_in*`` (0 without pre-processing).
    nodes : numpy.ndarray
        The cells' nodes, by slot.
    slots : numpy.ndarray
        The cells' slots, ascending.
    """

    vendor: int  # n*, NO_VENDOR, or INFEASIBLE
    surplus: float  # F(il), eq. (10); -inf when infeasible
    cost: float  # objective of (12): lam_hat * samples + phi_hat * n_cells * r_i + op_cost
    lam_hat: float  # max lambda over the schedule's cells
    phi_hat: float  # max phi over the schedule's cells
    samples: int  # sum_k sum_t s_ik x_ikt
    n_cells: int  # number of (k, t) cells
    op_cost: float  # sum e_ikt x_ikt
    vendor_price: float  # q_in* (0 without pre-processing)
    nodes: np.ndarray  # cell nodes, by slot
    slots: np.ndarray  # cell slots, ascending

    @property
    def feasible(self) -> bool:
        """Whether a schedule was found."""
        return self.vendor != INFEASIBLE

    @property
    def critical_bid(self) -> float:
        """The smallest bid with ``F(il) > 0``, everything else fixed: ``q_in* + cost (12)``.

        That is eq. (14) plus the operating cost: the critical payment of
        :class:`~lorasched.pdftsp.auction.OnlineAuction`.
        """
        return self.vendor_price + self.cost


def _check_solver(solver: str) -> None:
    if solver not in SOLVERS:
        raise InputError(f"solver must be one of {SOLVERS}, got {solver!r}")


def schedule(arrays: ScenarioArrays, i: int, lam: np.ndarray, phi: np.ndarray,
             compute_left: np.ndarray, memory_left: np.ndarray, *, bid: float | None = None,
             solver: str = "paper", work_resolution: int = 8,
             index: CandidateIndex | None = None,
             speed_i: np.ndarray | None = None) -> Schedule:
    """Algorithm 2 for task ``i`` against prices ``lam, phi`` and residual capacities.

    For each vendor, the solution of problem (12) in the vendor's window; then the vendor
    with the largest ``F(il)`` (eq. 10).

    Parameters
    ----------
    arrays : ScenarioArrays
        The scenario.
    i : int
        The task's index.
    lam, phi : numpy.ndarray
        float64[K, T]: the dual prices of compute (money per sample) and memory (money per
        GB per slot).
    compute_left, memory_left : numpy.ndarray
        [K, T]: the residual compute (samples) and memory (GB) of each cell.
    bid : float, optional
        Overrides the task's bid (the schedule itself does not depend on it; only
        ``surplus`` does).
    solver : {"paper", "exact", "brute"}, optional
        The DP of eq. (13) (default; a heuristic whose reported cost is its true cost), the
        exact enumeration of price thresholds, or brute force (tiny instances only; the
        module docstring).
    work_resolution : int, optional
        R of the work discretisation (default 8; ``lorasched.pdftsp.kernels``); it does
        not apply to ``solver="brute"``.
    index : object, optional
        A ``lorasched.pdftsp.candidate_index.CandidateIndex`` of exactly this state, which supplies
        the candidate cells without scanning the cluster (the same cells, so the same
        schedule).
    speed_i : numpy.ndarray, optional
        ``arrays.speed[i]`` if the caller has it already (with speeds stored per GPU type,
        building the row costs O(K)).

    Returns
    -------
    Schedule
        The best schedule; its ``vendor`` is ``INFEASIBLE`` when none exists.

    Raises
    ------
    InputError
        If ``solver`` is not one of the three or ``work_resolution`` is not positive.
    """
    _check_solver(solver)
    if int(work_resolution) < 1:
        raise InputError(f"work_resolution must be a positive integer, got {work_resolution}")
    b = float(arrays.bid[i] if bid is None else bid)
    if solver == "brute":
        return brute_force_schedule(arrays, i, lam, phi, compute_left, memory_left, bid=b)
    args = (int(arrays.arrival[i]), int(arrays.deadline[i]),
            bool(arrays.needs_preprocessing[i]), b, int(arrays.work[i]),
            arrays.speed[i] if speed_i is None else speed_i,
            float(arrays.memory[i]), arrays.vendor_price[i], arrays.vendor_delay[i], lam, phi,
            arrays.op_cost_rate, compute_left, memory_left, int(work_resolution),
            solver == "exact")
    if index is not None and index.serves(arrays, args[5]):
        res = candidate_index.schedule_task(*args, *index.schedule_args())
    else:
        res = kernels.schedule_task(*args)
    return Schedule(int(res[0]), float(res[1]), float(res[2]), float(res[3]), float(res[4]),
                    int(res[5]), int(res[6]), float(res[7]), float(res[8]), res[9], res[10])


def brute_force_schedule(arrays: ScenarioArrays, i: int, lam, phi, compute_left, memory_left,
                         *, bid: float | None = None) -> Schedule:
    """Enumerate every schedule of task ``i`` (at most one node per slot, in the window,
    only cells with residual capacity, work met in real samples); return the best.

    Exponential: ``(K + 1) ** window`` per vendor. Ties go to the first found, vendors in
    index order. Pure Python on purpose: it shares no code with the kernels.
    """
    b = float(arrays.bid[i] if bid is None else bid)
    a, d = int(arrays.arrival[i]), int(arrays.deadline[i])
    speed = arrays.speed[i]
    r_i = float(arrays.memory[i])
    work = int(arrays.work[i])
    K = speed.shape[0]
    if arrays.needs_preprocessing[i]:
        options = [(n, float(arrays.vendor_price[i, n]), a + int(arrays.vendor_delay[i, n]))
                   for n in range(arrays.vendor_price.shape[1])]
    else:
        options = [(NO_VENDOR, 0.0, a)]
    best = None
    for vendor, q, t0 in options:
        slots = list(range(t0, d + 1))
        choices = [[-1] + [k for k in range(K)
                           if speed[k] > 0 and speed[k] <= compute_left[k, t]
                           and r_i <= memory_left[k, t] + MEMORY_TOLERANCE]
                           for t in slots]
        for combo in itertools.product(*choices):
            cells = [(k, t) for k, t in zip(combo, slots, strict=True) if k >= 0]
            samples = sum(int(speed[k]) for k, _ in cells)
            if samples < work:
                continue
            lh = max((lam[k, t] for k, t in cells), default=0.0)
            ph = max((phi[k, t] for k, t in cells), default=0.0)
            e = sum(arrays.op_cost(i, k, t) for k, t in cells)
            cost = lh * samples + ph * len(cells) * r_i + e
            surplus = b - q - cost
            if best is None or surplus > best.surplus:
                nodes = np.array([k for k, _ in cells], dtype=np.int64)
                ts = np.array([t for _, t in cells], dtype=np.int64)
                best = Schedule(vendor, surplus, cost, float(lh), float(ph), samples,
                                len(cells), float(e), q, nodes, ts)
    if best is None:
        empty = np.empty(0, dtype=np.int64)
        return Schedule(INFEASIBLE, -np.inf, np.inf, 0.0, 0.0, 0, 0, 0.0, 0.0, empty, empty)
    return best
