"""Truthfulness and individual rationality of the online auction, task by task (Figs. 10-11):
the replay and what-if model :class:`AuctionReplay`, :func:`utility_curve`,
:func:`untruthful_tasks` and :func:`misreport_gains`; see :doc:`/reference/pdftsp_online`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import xarray as xr

from ..model.errors import InputError
from .auction import (
    PAYMENTS,
    Decision,
    OnlineAuction,
    payment_paper,
)
from .scenario import to_arrays
from .schedule import INFEASIBLE, NO_VENDOR

__all__ = [
    "SNAPSHOT_BUDGET",
    "AuctionReplay",
    "WhatIf",
    "misreport_gains",
    "untruthful_tasks",
    "utility_curve",
]

#: bytes of snapshots an :class:`AuctionReplay` keeps at most when it picks the spacing
SNAPSHOT_BUDGET = 64 * 2**20

#: default number of bids of :meth:`AuctionReplay.utility_curve`
CURVE_POINTS = 201


@dataclass(frozen=True)
class WhatIf:
    """The auction's answer to one task offered at one bid (nothing committed)."""

    task: int
    bid: float  # the bid b' offered
    value: float  # v_i: the task's true value, its bid in the scenario
    admitted: bool
    reason: str  # "admitted", "no_feasible_schedule" or "negative_surplus"
    vendor: int  # n* of the schedule; NO_VENDOR without pre-processing; INFEASIBLE
    nodes: np.ndarray  # the schedule's cells (k, t) by slot ...
    slots: np.ndarray  # ... whether or not the task is admitted
    surplus: float  # F(il) at this bid, eq. (10); -inf when infeasible
    critical_bid: float  # smallest winning bid q_in* + cost (12); inf when infeasible
    payment: float  # p_i, 0 unless admitted
    utility: float  # v_i - p_i if admitted, else 0

    def describe(self) -> str:
        """A few lines of plain text: decision, schedule, payment, utility."""
        lines = [f"task {self.task}: value v = {self.value:.4g}, bid b' = {self.bid:.4g}",
                 f"{'admitted' if self.admitted else 'rejected'} ({self.reason}); "
                 f"F(il) = {self.surplus:.4g}, critical bid = {self.critical_bid:.4g}"]
        if self.vendor != INFEASIBLE:
            vendor = "none" if self.vendor == NO_VENDOR else str(self.vendor)
            cells = ", ".join(f"({k},{t})" for k, t in zip(self.nodes, self.slots,
                                                            strict=True))
            lines.append(f"schedule: vendor {vendor}, {len(self.slots)} cells (node,slot) "
                         f"{cells}")
        lines.append(f"payment = {self.payment:.4g}, utility = {self.utility:.4g}")
        return "\n".join(lines)


def _check_int(name: str, value, low: int, high: int) -> int:
    """``value`` as an int in ``low..high`` (inclusive), or a ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InputError(f"{name} must be an integer, got {value!r}")
    if not low <= int(value) <= high:
        raise InputError(f"{name} {value} out of range {low}..{high}")
    return int(value)


def _check_bid(bid) -> float:
    try:
        b = float(bid)
    except (TypeError, ValueError):
        raise InputError(f"bid must be a finite number >= 0, got {bid!r}") from None
    if not math.isfinite(b) or b < 0:
        raise InputError(f"bid must be a finite number >= 0, got {bid!r}")
    return b


class AuctionReplay:
    """pdFTSP replayed over a scenario, lazily, with the state after any arrival at hand.

    Parameters
    ----------
    scenario : a scenario ``xarray.Dataset`` (see :mod:`lorasched.pdftsp.scenario`).
    alpha, beta : the constants of eqs. (7)-(8); default, as in pdFTSP,
        :func:`~lorasched.pdftsp.auction.default_alpha_beta` of the declared bounds by the
        rule ``constants`` (``"lemma2"`` or ``"vmax"``).
    payment : ``"critical"`` (truthful, default) or ``"paper"`` (eq. 14).
    solver, work_resolution : passed to :class:`~lorasched.pdftsp.auction.OnlineAuction`.
    snapshot_every : keep the state every this many arrivals (others are recomputed from
        the nearest earlier one); default: every arrival, unless that would take more
        than :data:`SNAPSHOT_BUDGET` bytes. ``n_tasks`` keeps only the initial state: one
        pass, as fast as a plain run (what :func:`utility_curve` and
        :func:`untruthful_tasks` use).

    Tasks are offered in index order, as :func:`lorasched.pdftsp.auction.run` does
    (scenarios list tasks by arrival), so after ``j`` arrivals tasks ``0..j-1`` have been
    decided. Nothing is replayed before it is needed: ``AuctionReplay(s).what_if(i)``
    offers tasks ``0..i-1`` only; :attr:`decisions` replays the whole day.
    """

    def __init__(self, scenario: xr.Dataset, *, alpha: float | None = None,
                 beta: float | None = None, constants: str = "lemma2",
                 payment: str = "critical", solver: str = "paper", work_resolution: int = 8,
                 snapshot_every: int | None = None):
        if payment not in PAYMENTS:
            raise InputError(f"payment must be one of {PAYMENTS}, got {payment!r}")
        self.scenario = scenario
        self.arrays = to_arrays(scenario)
        self._auction = OnlineAuction(self.arrays, alpha=alpha, beta=beta,
                                      constants=constants, payment=payment, solver=solver,
                                      work_resolution=work_resolution)
        n = self.n_tasks
        initial = self._auction.snapshot()
        if snapshot_every is None:
            one = sum(v.nbytes for v in initial.values())
            snapshot_every = max(1, math.ceil((n + 1) * one / SNAPSHOT_BUDGET))
        self.snapshot_every = _check_int("snapshot_every", snapshot_every, 1, max(1, n))
        self._snapshots: dict[int, dict[str, np.ndarray]] = {0: initial}
        self._decisions: list[Decision] = []
        # The auction object is scratch: ``_live`` is the number of arrivals its state
        # stands for (None after a what-if changed it). ``_frontier`` is the state after
        # all ``len(_decisions)`` recorded arrivals, saved only when the auction leaves it
        # (None while ``_live`` is there). ``_recent``: the last state rebuilt from a
        # snapshot by replaying offers, so that repeated what-ifs of one task replay once.
        self._live: int | None = 0
        self._frontier: dict[str, np.ndarray] | None = None
        self._recent: tuple[int, dict[str, np.ndarray]] | None = None

    # ------------------------------------------------------------------ attributes
    @property
    def n_tasks(self) -> int:
        return self.arrays.n_tasks

    @property
    def alpha(self) -> float:
        return self._auction.alpha

    @property
    def beta(self) -> float:
        return self._auction.beta

    @property
    def payment(self) -> str:
        """The payment rule, ``"critical"`` or ``"paper"``."""
        return self._auction.payment_rule

    @property
    def decisions(self) -> list[Decision]:
        """What the auction decided for each task at its own bid (replays the whole day)."""
        self._goto(self.n_tasks)
        return self._decisions

    def decision(self, task: int) -> Decision:
        """What the auction decided for ``task`` at its own bid (replays up to it)."""
        task = self.check_task(task)
        if task >= len(self._decisions):
            self._goto(task + 1)
        return self._decisions[task]

    def check_task(self, task) -> int:
        """``task`` as an int in ``0..n_tasks-1``, or a ValueError naming it."""
        return _check_int("task", task, 0, self.n_tasks - 1)

    def check_step(self, step) -> int:
        """``step`` (arrivals) as an int in ``0..n_tasks``, or a ValueError naming it."""
        return _check_int("step", step, 0, self.n_tasks)

    # ------------------------------------------------------------------ replay
    def _detach(self) -> None:
        """The auction is about to leave the state ``_live`` (restore or what-if)."""
        if self._live is not None and self._live == len(self._decisions) \
                and self._frontier is None:
            self._frontier = self._auction.snapshot()
        self._live = None

    def _goto(self, step: int) -> None:
        """Put the auction in the state after the first ``step`` arrivals, replaying known
        decisions from the nearest saved state and recording new ones."""
        if self._live == step:
            return
        done, k = len(self._decisions), self.snapshot_every
        target = min(step, done)
        # the latest saved state at or before ``target``; the frontier is None only while
        # the auction is there (``_live == done``), and then the ``live`` branch is taken
        start = done if target == done and self._frontier is not None else target - target % k
        if self._recent is not None and start < self._recent[0] <= target:
            start = self._recent[0]
        live = self._live
        if live is not None and start <= live <= target:
            start = live  # go on from where the auction is: no restore
        else:
            if start == done:
                state = self._frontier
            elif self._recent is not None and start == self._recent[0]:
                state = self._recent[1]
            else:
                state = self._snapshots[start]
            self._detach()
            self._auction.restore(state)
        self._live = None
        for j in range(start, target):
            self._auction.offer(j)  # deterministic: the recorded decision again
        if start < target < done:
            self._recent = (target, self._auction.snapshot())
        for j in range(done, step):  # new arrivals (only when step > done)
            if j % k == 0 and j not in self._snapshots:
                self._snapshots[j] = self._auction.snapshot()
            self._decisions.append(self._auction.offer(j))
        if step > done:
            self._frontier = None
        self._live = step

    def state_after(self, step: int) -> dict[str, np.ndarray]:
        """Copies of ``lam``, ``phi``, ``compute_left``, ``memory_left`` after the first
        ``step`` arrivals (``step`` in ``0..n_tasks``; 0 is the initial state)."""
        self._goto(self.check_step(step))
        return self._auction.snapshot()

    def prices_after(self, step: int) -> xr.Dataset:
        """The dual prices ``lambda`` and ``phi`` after the first ``step`` arrivals, over
        ``(node, slot)`` as in a :func:`lorasched.simulate` result, with the scenario's
        node labels and attributes plus ``arrivals`` (= ``step``) and ``n_tasks``."""
        step = self.check_step(step)
        state = self.state_after(step)
        coords = {d: self.scenario.coords[d] for d in ("node", "slot")
                  if d in self.scenario.coords}
        ds = xr.Dataset({"lambda": (("node", "slot"), state["lam"]),
                         "phi": (("node", "slot"), state["phi"])}, coords=coords)
        if "gpu_type" in self.scenario:
            ds["gpu_type"] = self.scenario["gpu_type"]
        ds.attrs = {**self.scenario.attrs, "arrivals": step, "n_tasks": self.n_tasks}
        return ds

    def _offer(self, task: int, bid: float | None) -> Decision:
        """Offer ``task`` at ``bid`` against the state just before it arrives."""
        self._goto(task)
        self._detach()
        d = self._auction.offer(task, bid)
        if not d.admitted:  # a rejection changes nothing
            self._live = task
        return d

    # ------------------------------------------------------------------ what-ifs
    def what_if(self, task: int, bid: float | None = None) -> WhatIf:
        """Task ``task`` offered at ``bid`` (default: its own) against the state just before
        it arrives; commits nothing."""
        task = self.check_task(task)
        value = float(self.arrays.bid[task])
        bid = value if bid is None else _check_bid(bid)
        d = self._offer(task, bid)
        s = d.schedule
        return WhatIf(task=task, bid=bid, value=value, admitted=d.admitted, reason=d.reason,
                      vendor=s.vendor, nodes=np.asarray(s.nodes), slots=np.asarray(s.slots),
                      surplus=float(s.surplus),
                      critical_bid=float(s.critical_bid) if s.feasible else math.inf,
                      payment=float(d.payment),
                      utility=value - float(d.payment) if d.admitted else 0.0)

    def bid_grid(self, task: int, n: int = CURVE_POINTS) -> np.ndarray:
        """``n`` bids from 0 to twice the task's value (to 1 if its value is 0)."""
        v = float(self.arrays.bid[self.check_task(task)])
        return np.linspace(0.0, 2.0 * v if v > 0 else 1.0, n)

    def utility_curve(self, task: int, bids=None, *, n: int = CURVE_POINTS) -> xr.Dataset:
        """Task ``task``'s outcome for every bid in ``bids`` (default: :meth:`bid_grid`,
        ``n`` bids from 0 to twice its value), all else fixed.

        Returns a Dataset over ``bid`` with ``admitted``, ``payment`` and ``utility``
        (``value - payment`` if admitted, else 0), and attributes ``task``, ``value`` (the
        true value, the scenario's bid), ``critical_bid`` (the smallest winning bid:
        ``q_in* + cost (12)``; NaN when the task has no feasible schedule),
        ``operating_cost`` (``sum e`` of the schedule), ``feasible``, ``payment_rule``,
        ``alpha``, ``beta``.
        """
        task = self.check_task(task)
        value = float(self.arrays.bid[task])
        bids = self.bid_grid(task, n) if bids is None else np.asarray(bids, dtype=float)
        if bids.ndim != 1 or bids.size == 0:
            raise InputError("bids must be a non-empty 1-d sequence of numbers")
        if not (np.isfinite(bids).all() and (bids >= 0).all()):
            bad = bids[~(np.isfinite(bids) & (bids >= 0))][0]
            raise InputError(f"bids must be finite and >= 0, got {bad}")
        admitted = np.zeros(bids.size, dtype=bool)
        pay = np.zeros(bids.size)
        for j, b in enumerate(bids):
            d = self._offer(task, float(b))
            admitted[j] = d.admitted
            pay[j] = d.payment
        self._goto(task)
        s = self._auction.quote(task)
        utility = np.where(admitted, value - pay, 0.0)
        return xr.Dataset(
            {"admitted": ("bid", admitted), "payment": ("bid", pay),
             "utility": ("bid", utility)},
            coords={"bid": bids},
            attrs={"task": task, "value": value,
                   "critical_bid": float(s.critical_bid) if s.feasible else float("nan"),
                   "operating_cost": float(s.op_cost) if s.feasible else float("nan"),
                   "feasible": int(s.feasible), "payment_rule": self.payment,
                   "alpha": self.alpha, "beta": self.beta})

    def pick_task(self, start: int = 0) -> int:
        """The first task from ``start`` on that was admitted (else ``start``): one whose
        utility curve has an admission threshold to look at."""
        start = self.check_task(start)
        for j in range(start, self.n_tasks):
            if self.decision(j).admitted:
                return j
        return start


def _one_pass(scenario: xr.Dataset, **options) -> AuctionReplay:
    """A replay that keeps no snapshot on the way: a single pass, as fast as a plain run."""
    return AuctionReplay(scenario, snapshot_every=max(1, scenario.sizes["task"]), **options)


def utility_curve(scenario: xr.Dataset, task: int, bids=None, *, alpha: float | None = None,
                  beta: float | None = None, payment: str = "critical",
                  solver: str = "paper", n: int = CURVE_POINTS) -> xr.Dataset:
    """:meth:`AuctionReplay.utility_curve` of ``task`` on ``scenario``: tasks
    ``0 .. task-1`` are offered once, at their own bids, then ``task`` at every bid of
    ``bids`` (default: ``n`` bids from 0 to twice its value)."""
    replay = _one_pass(scenario, alpha=alpha, beta=beta, payment=payment, solver=solver)
    return replay.utility_curve(task, bids, n=n)


def untruthful_tasks(scenario: xr.Dataset, *, alpha: float | None = None,
                     beta: float | None = None, solver: str = "paper") -> np.ndarray:
    """Tasks that lose by bidding truthfully but would win with positive utility by
    overbidding under the paper's payment (14): value in ``(p14, p14 + sum e]``.

    One online pass at truthful bids (the dual updates do not depend on the payment rule).
    """
    replay = _one_pass(scenario, alpha=alpha, beta=beta, payment="paper", solver=solver)
    r, bid = replay.arrays.memory, replay.arrays.bid
    found = []
    for i, d in enumerate(replay.decisions):
        s = d.schedule
        if d.admitted or not s.feasible:
            continue
        if payment_paper(s, float(r[i])) < float(bid[i]) <= s.critical_bid:
            found.append(i)
    return np.asarray(found, dtype=np.int64)


#: the bids :func:`misreport_gains` probes, as multiples of each task's value
PROBE_GRID = np.linspace(0.0, 2.0, CURVE_POINTS)


def misreport_gains(scenario: xr.Dataset, bids=PROBE_GRID, *, alpha: float | None = None,
                    beta: float | None = None, constants: str = "lemma2",
                    solver: str = "paper") -> xr.Dataset:
    """Every task of ``scenario`` offered at every bid of a grid (``bids``: multiples of its
    value, default 0 to 2 in :data:`CURVE_POINTS` steps), against the state its truthful
    predecessors leave, under both payment rules: what the task gains by misreporting.

    One online pass at truthful bids (the dual updates do not depend on the payment rule).
    Algorithm 2's schedule, and so the critical bid, does not depend on the bid (eq. (10)
    adds the bid to every schedule's surplus alike), so task ``i`` at bid ``b'`` wins iff
    ``b' > critical bid`` (eq. 11) and pays the critical bid (``"critical"``) or eq. (14)
    (``"paper"``) whatever ``b'``: each offer's outcome follows from the task's one quote,
    as :meth:`AuctionReplay.utility_curve` would find by offering it.

    Returns a Dataset over ``task`` (and ``payment_rule``) with ``value``,
    ``critical_bid`` (NaN where no schedule is feasible), ``payment14`` (eq. (14) on the
    schedule), ``operating_cost``, ``truthful_utility``, ``gain`` (the largest utility over
    the grid less the truthful one, >= 0) and ``best_bid`` (a bid attaining it; the value
    itself where no bid gains)."""
    replay = _one_pass(scenario, alpha=alpha, beta=beta, constants=constants,
                       payment="critical", solver=solver)
    grid = np.asarray(bids, dtype=float)
    if grid.ndim != 1 or grid.size == 0 or not (np.isfinite(grid) & (grid >= 0)).all():
        raise InputError("bids must be a non-empty 1-d grid of finite multiples >= 0")
    n = replay.n_tasks
    value = np.asarray(replay.arrays.bid, dtype=float)
    memory = np.asarray(replay.arrays.memory, dtype=float)
    crit, p14, cost = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    for i, d in enumerate(replay.decisions):
        s = d.schedule
        if s.feasible:
            crit[i], cost[i] = s.critical_bid, s.op_cost
            p14[i] = payment_paper(s, float(memory[i]))
    offered = value[:, None] * grid[None, :]  # task x bid
    wins = np.isfinite(crit)[:, None] & (offered - np.nan_to_num(crit)[:, None] > 0)
    truthful_wins = np.isfinite(crit) & (value - np.nan_to_num(crit) > 0)
    gains, best_bids, truthful = [], [], []
    for pay in (crit, p14):
        u = np.where(wins, value[:, None] - np.nan_to_num(pay)[:, None], 0.0)
        u0 = np.where(truthful_wins, value - np.nan_to_num(pay), 0.0)
        j = np.argmax(u, axis=1)
        best = u[np.arange(n), j]
        gain = np.maximum(best - u0, 0.0)
        gains.append(gain)
        best_bids.append(np.where(gain > 0, offered[np.arange(n), j], value))
        truthful.append(u0)
    rules = ["critical", "paper"]
    return xr.Dataset(
        {"value": ("task", value), "critical_bid": ("task", crit),
         "payment14": ("task", p14), "operating_cost": ("task", cost),
         "truthful_utility": (("payment_rule", "task"), np.array(truthful)),
         "gain": (("payment_rule", "task"), np.array(gains)),
         "best_bid": (("payment_rule", "task"), np.array(best_bids))},
        coords={"task": np.arange(n), "payment_rule": rules},
        attrs={"alpha": replay.alpha, "beta": replay.beta, "bids": grid.size,
               "bid_low": float(grid.min()), "bid_high": float(grid.max())})
