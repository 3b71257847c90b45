"""Allpass's provisioning each minute as a decision problem for a policy of one's own
(:class:`ProvisioningProblem`): at every tick the action changes the serverful worker count
by -K..+K in place of Algorithm 2; arrivals, Algorithm 1's threshold F, the EDF queue and the
liveness rule run as the policy ``allpass`` runs them. The reward is minus the dollars (and,
optionally, a weight times the job completion time) accrued since the last tick.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..model.errors import InputError
from .clouds import PROVIDERS, bill
from .cluster import (
    CHECKPOINT_S,
    DEMOTING,
    DONE,
    PLACED,
    PREEMPTING,
    QUEUED,
    RESTORE_S,
    SERVERLESS,
    AllpassCluster,
)
from .decisions import Run
from .pressure import RULES, UNITS
from .scalers import F0, G_DN, G_UP, R_DN, R_UP, ServerlessScaler
from .scenario import AllpassArrays

#: the default largest change in serverful workers per tick (K)
MAX_STEP = 4
#: the default number of prices observed (the next workers' $/GPU-h, cheapest first)
PRICES_K = 4
#: the default number of queued jobs observed one by one (the most urgent, EDF order)
QUEUE_K = 8
#: the pressure observed in place of inf (no serverful worker, some demand)
P_CAP = 1e6
#: the observation's parts (:meth:`ProvisioningProblem.observe`)
OBSERVATION = ("time", "jobs", "queue", "queue_mask", "queue_summary", "workers",
               "pressure", "F", "prices", "free_offers")


def _count(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InputError(f"{name!r} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _nonneg(name: str, value) -> float:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not math.isfinite(value) or value < 0):
        raise InputError(f"{name!r} must be a non-negative finite number, got {value!r}")
    return float(value)


class ProvisioningProblem:
    """Allpass's serverful provisioning, one decision per tick (module docstring).

    The action is the change in serverful workers, an integer in ``[-max_step,
    max_step]``, clipped at what is possible: an addition at the cap's room (cheapest
    first: marketplace offers no dearer than the conventional cloud, then the conventional
    cloud), a release at the idle ready workers (dearest first; a worker holding a job or
    still starting is never released). The liveness rule of the policy ``allpass`` follows
    every action (a worker when none is open and jobs wait), so every sequence of actions
    finishes every job. Algorithm 1 keeps moving F on its own (it reads the pressure only,
    not the action).

    Parameters
    ----------
    arrays : AllpassArrays
        The scenario's plain arrays.
    rng : numpy.random.Generator
        Draws the providers' start-up delays, in the order the policy ``allpass`` draws
        them.
    max_step : int, optional
        K, the largest change per tick (default 4).
    jct_weight : float, optional
        USD per minute of job completion time taken off the reward (default 0: the reward
        is minus the dollars alone).
    prices_k, queue_k : int, optional
        Prices and queued jobs observed (defaults 4 and 8).
    F0, G_up, R_up, G_dn, R_dn : float, optional
        Algorithm 1's initial threshold and gains (the policy ``allpass``'s defaults).
    overdue : bool, optional
        Count jobs past their deadline in D (eq. 1; default True).
    demand : {"deadline", "laxity"}, optional
        The demand rule of eq. (1) (default ``"deadline"``).
    units : {"paper", "slip"}, optional
        The units of D against ``C_t T`` (default ``"paper"``).
    checkpoint_s, restore_s : float, optional
        Seconds of a demotion's checkpoint and restore (default 42 + 42).

    Raises
    ------
    InputError
        Naming the first argument out of its type, choices or range.
    """

    def __init__(self, arrays: AllpassArrays, rng: np.random.Generator, *,
                 max_step: int = MAX_STEP, jct_weight: float = 0.0, prices_k: int = PRICES_K,
                 queue_k: int = QUEUE_K, F0: float = F0, G_up: float = G_UP,
                 R_up: float = R_UP, G_dn: float = G_DN, R_dn: float = R_DN,
                 overdue: bool = True, demand: str = "deadline", units: str = "paper",
                 checkpoint_s: float = CHECKPOINT_S, restore_s: float = RESTORE_S):
        if not isinstance(arrays, AllpassArrays):
            raise InputError(f"arrays must be an AllpassArrays (lorasched.allpass.scenario."
                             f"to_arrays), got {type(arrays).__name__}")
        if not isinstance(rng, np.random.Generator):
            raise InputError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        self.max_step = _count("max_step", max_step, 1)
        self.jct_weight = _nonneg("jct_weight", jct_weight)
        self.prices_k = _count("prices_k", prices_k, 1)
        self.queue_k = _count("queue_k", queue_k, 1)
        if demand not in RULES:
            raise InputError(f"'demand' must be one of {RULES}, got {demand!r}")
        if units not in UNITS:
            raise InputError(f"'units' must be one of {UNITS}, got {units!r}")
        if not isinstance(overdue, bool | np.bool_):
            raise InputError(f"'overdue' must be True or False, got {overdue!r}")
        F0 = _nonneg("F0", F0)
        scaler = ServerlessScaler(G_up=G_up, R_up=R_up, G_dn=G_dn, R_dn=R_dn, F0=F0)
        self.cluster = AllpassCluster(
            arrays.submit, arrays.work, arrays.deadline, arrays.offers, arrays.capacity, rng,
            serverless="adaptive", F=F0, scaler=scaler, discipline="edf", provision="dbf",
            overdue=bool(overdue), demand=demand, units=units,
            checkpoint_s=_nonneg("checkpoint_s", checkpoint_s),
            restore_s=_nonneg("restore_s", restore_s))
        self._closed = np.zeros(0, dtype=bool)      # leases whose bill is final
        self._closed_usd = 0.0
        self._usd = 0.0                              # accrued at the last step
        self._jct_s = 0.0
        self._pressure = self.cluster.next_decision()

    # -- the episode -----------------------------------------------------------------
    @property
    def done(self) -> bool:
        """Whether every job is done (the episode is over)."""
        return self.cluster.done

    def actions(self) -> np.ndarray:
        """The actions, ``-max_step .. max_step``.

        Returns
        -------
        numpy.ndarray
            (2 K + 1,) int, the index of :meth:`valid_actions`'s mask.
        """
        return np.arange(-self.max_step, self.max_step + 1)

    def valid_actions(self) -> np.ndarray:
        """The actions that are possible without clipping.

        Returns
        -------
        numpy.ndarray
            (2 K + 1,) bool over :meth:`actions`: a release of at most the idle ready
            workers, an addition of at most the cap's room; all False once done.
        """
        a = self.actions()
        if self.done:
            return np.zeros(a.size, dtype=bool)
        c = self.cluster
        return (a >= -len(c.dearest_idle())) & (a <= c.capacity - len(c.open))

    def step(self, action) -> tuple[float, bool]:
        """Carry out one tick's provisioning and run to the next tick.

        Parameters
        ----------
        action : int
            The change in serverful workers, in ``[-max_step, max_step]`` (clipped at
            what is possible: class docstring).

        Returns
        -------
        reward : float
            Minus the USD accrued since the last step (every lease billed to now, or to
            its end), minus ``jct_weight`` times the minutes of completion time accrued.
        done : bool
            Whether every job is done.

        Raises
        ------
        InputError
            For an action that is not an integer in range, or a step after the end.
        """
        if self.done:
            raise InputError("the episode is over: every job is done")
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action[()]
        if (isinstance(action, bool | np.bool_) or not isinstance(action, numbers.Integral)
                or not -self.max_step <= action <= self.max_step):
            raise InputError(f"action must be an integer in [-{self.max_step}, "
                             f"{self.max_step}] (the change in serverful workers), "
                             f"got {action!r}")
        action = int(action)
        c = self.cluster
        add = max(0, action)
        release = min(len(c.dearest_idle()), max(0, -action))
        c.provide(add, release)
        self._pressure = c.next_decision()
        usd, jct_s = self._accrued()
        reward = -(usd - self._usd) - self.jct_weight * (jct_s - self._jct_s) / 60.0
        self._usd, self._jct_s = usd, jct_s
        return float(reward), self.done

    def output(self) -> Run:
        """What the episode decided, as the policies return it.

        Returns
        -------
        Run
            For ``lorasched.allpass.result.assemble``.

        Raises
        ------
        InputError
            Before the episode is over.
        """
        if not self.done:
            raise InputError("output needs a finished episode: some job is not done")
        return self.cluster.result()

    # -- what the policy sees --------------------------------------------------------
    def observe(self) -> dict[str, np.ndarray]:
        """The state at the pending tick (after Algorithm 1, before the action).

        Returns
        -------
        dict of numpy.ndarray
            ``time`` (1,): s. ``jobs`` (4,): jobs on the serverless tier (demoting
            included), queued for a serverful worker, on a serverful worker, done.
            ``queue`` (queue_k, 2): remaining work and laxity (deadline - now -
            remaining), s, of the queued jobs in EDF order, zero-padded; ``queue_mask``
            (queue_k,) int8: 1 where a row holds a job. ``queue_summary`` (4,): queued
            jobs, their remaining work, least and mean laxity (s; 0 when none).
            ``workers`` (4,): serverful leases open, busy, idle ready, starting.
            ``pressure`` (3,): p of eq. (2) (inf as ``P_CAP``), D(t, T) and the
            binding window T (s). ``F`` (1,): the serverless threshold, s.
            ``prices`` (prices_k,): $/GPU-h of the next prices_k workers an addition
            would lease, cheapest first (free marketplace offers no dearer than the
            conventional cloud, then the conventional cloud's). ``free_offers`` (1,):
            the marketplace's free offers. After the end: the final state, pressure 0.
        """
        c = self.cluster
        t = c.t
        state = c.state
        queued = np.flatnonzero(state == QUEUED)
        queued = queued[np.lexsort((queued, c.submit[queued], c.deadline[queued]))]
        rem = c.remaining[queued]
        lax = c.deadline[queued] - t - rem
        table = np.zeros((self.queue_k, 2))
        mask = np.zeros(self.queue_k, dtype=np.int8)
        n = min(queued.size, self.queue_k)
        table[:n, 0], table[:n, 1], mask[:n] = rem[:n], lax[:n], 1
        summary = [queued.size, rem.sum(), lax.min(), lax.mean()] if queued.size \
            else [0.0, 0.0, 0.0, 0.0]
        open_ = c.open
        busy = sum(1 for i in open_ if c.leases[i][6] >= 0)
        starting = sum(1 for i in open_ if c.leases[i][3] > t + 1e-9)
        pd = self._pressure
        pressure = [min(pd.p, P_CAP), pd.demand, pd.window] if pd is not None \
            else [0.0, 0.0, 0.0]
        free = c.free_prices() if not self.done else np.empty(0)
        conventional = PROVIDERS["lambda"].price_per_gpu_h
        prices = np.full(self.prices_k, conventional)
        cheap = np.sort(free[free <= conventional])[:self.prices_k]
        prices[:cheap.size] = cheap
        return {
            "time": np.array([t]),
            "jobs": np.array([((state == SERVERLESS) | (state == DEMOTING)).sum(),
                              queued.size, ((state == PLACED) | (state == PREEMPTING)).sum(),
                              (state == DONE).sum()], dtype=float),
            "queue": table, "queue_mask": mask,
            "queue_summary": np.array(summary, dtype=float),
            "workers": np.array([len(open_), busy, len(c.dearest_idle()) if not self.done
                                 else 0, starting], dtype=float),
            "pressure": np.array(pressure, dtype=float),
            "F": np.array([c.F]),
            "prices": prices,
            "free_offers": np.array([free.size], dtype=float),
        }

    # -- the reward ------------------------------------------------------------------
    def _accrued(self) -> tuple[float, float]:
        """USD billed so far (a lease still open billed to now) and seconds of completion
        time so far (a job not done counted to now)."""
        c = self.cluster
        leases = c.leases
        if self._closed.size < len(leases):
            self._closed = np.concatenate(
                [self._closed, np.zeros(len(leases) - self._closed.size, dtype=bool)])
        open_usd = 0.0
        for i, (provider, _, start, _, end, price, _) in enumerate(leases):
            if self._closed[i]:
                continue
            if math.isnan(end):
                open_usd += bill(provider, start, max(c.t, start), price)
            else:
                self._closed_usd += bill(provider, start, end, price)
                self._closed[i] = True
        arrived = c.next_arrival
        until = np.where(np.isnan(c.finish[:arrived]), c.t, c.finish[:arrived])
        return self._closed_usd + open_usd, float(np.sum(until - c.submit[:arrived]))

    # -- the paper's policy ----------------------------------------------------------
    def expert_action(self) -> int:
        """Algorithm 2's own action at the pending tick, as the policy ``allpass`` decides it.

        The serverful scaler's decision on this tick's pressure (D, T and p of eq. 2),
        the open workers' capacity, the marketplace's free offers and the idle ready
        workers, computed as the cluster's tick computes it: the workers it adds, or minus
        the idle workers it releases (never both: it adds only when p > 1, releases only
        when p < 1). Following it at every tick with ``max_step`` at least the largest
        change gives the policy ``allpass``'s run exactly; with the default K = 4 a larger
        change is clipped to ``-K..K`` (Algorithm 2 may add or release more in one tick).

        Returns
        -------
        int
            The change in serverful workers, in ``[-max_step, max_step]``.

        Raises
        ------
        InputError
            Once the episode is over.
        """
        if self.done:
            raise InputError("the episode is over: every job is done")
        c, pd = self.cluster, self._pressure
        idle = np.array([c.leases[i][5] for i in c.dearest_idle()], dtype=float)
        decision = c.serverful_scaler._decide(pd.demand, float(len(c.open)), pd.window,
                                              pd.p, c.free_prices(), idle)
        change = decision.add if decision.add else -len(decision.remove)
        return max(-self.max_step, min(self.max_step, change))
