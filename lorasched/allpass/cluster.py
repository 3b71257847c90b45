"""Allpass's two-tier GPU cluster as an event loop (sec. 3), shared by Allpass and every
baseline of sec. 5.1 (:class:`AllpassCluster`): serverless stints under the threshold F,
demotion, the serverful queue, provisioning (DBF, on demand, HPA) and leases, in exact event
time. Every rule: :doc:`/reference/allpass_cluster`.
"""

from __future__ import annotations

import copy
import math
import numbers

import numpy as np
from numba import njit

from ..jobsim import Tiresias
from ..jobsim.queues import JobView
from ..model.errors import InputError
from .clouds import PROVIDERS, startup_times
from .decisions import CHECKPOINT, RESTORE, RUN, Run
from .pressure import TICK_S, WINDOW_S, _pressure_detail, check_rules, window_set
from .scalers import F0, ServerfulScaler, ServerlessScaler

#: job states
WAITING, SERVERLESS, DEMOTING, QUEUED, PLACED, PREEMPTING, DONE = range(7)
#: the paper's average demotion overhead, 1.4 min (sec. 5.3, Fig. 8), split evenly between
#: the checkpoint (on the worker the job leaves) and the restore (on the one it joins)
DEMOTION_S = 84.0
CHECKPOINT_S = RESTORE_S = DEMOTION_S / 2
SERVERLESS_MODES = ("adaptive", "fixed", "all", "none")
DISCIPLINES = ("edf", "tiresias", "sjf", "fifo")
PROVISIONS = ("dbf", "on-demand", "hpa")
SHARES = ("none", "stride")
#: Kubernetes HPA's default target in the paper (70 %) and downscale stabilisation (300 s)
HPA_TARGET, HPA_WINDOW_S = 0.70, 300.0
#: Tiresias-L's queue threshold, s of attained service: one hour, lorasched's choice (the
#: Allpass paper names none; TITAN's Tiresias uses the TITAN authors' four GPU-hours
#: instead; Allpass's stays one hour until its own readings are looked at)
TIRESIAS_THRESHOLD_S = 3600.0
#: SJF-P's scheduling quantum, s (lorasched's choice; the paper names none)
QUANTUM_S = 600.0
_EPS = 1e-9


class AllpassCluster:
    """The state of one run and its event loop (module docstring)."""

    def __init__(self, submit, work, deadline, offers, capacity, rng, *,
                 serverless="adaptive", F=F0, discipline="edf", preemptive=False,
                 share="none", provision="dbf", reading="evident", overdue=True,
                 demand="deadline", units="paper",
                 checkpoint_s=CHECKPOINT_S, restore_s=RESTORE_S,
                 tiresias_threshold_s=TIRESIAS_THRESHOLD_S, quantum_s=QUANTUM_S,
                 hpa_target=HPA_TARGET, hpa_window_s=HPA_WINDOW_S, tick_s=TICK_S,
                 window_s=WINDOW_S, scaler=None):
        self.submit, self.work, self.deadline = submit, work, deadline
        self.offers, self.capacity, self.rng = offers, capacity, rng
        self.mode, self.discipline, self.preemptive = serverless, discipline, preemptive
        self.share, self.provision, self.overdue = share, provision, overdue
        check_rules(demand, units)
        self.demand_rule, self.units = demand, units
        self.checkpoint_s, self.restore_s = float(checkpoint_s), float(restore_s)
        self.quantum_s, self.tick_s = float(quantum_s), float(tick_s)
        self.hpa_target, self.hpa_window_s = float(hpa_target), float(hpa_window_s)
        self.windows = window_set(window_s, tick_s)
        self.tiresias = Tiresias(tiresias_threshold_s, service="time")
        self.F = math.inf if serverless == "all" else float(F)
        self.serverless_scaler = scaler if scaler is not None else ServerlessScaler(F0=self.F) \
            if serverless == "adaptive" else None
        self.serverful_scaler = ServerfulScaler(1.0, reading=reading)
        n = submit.size
        self.n = n
        self.t = 0.0
        self.next_arrival = 0
        self.next_tick = 0.0
        self.next_quantum = 0.0
        self.state = np.full(n, WAITING, dtype=np.int64)
        self.remaining = work.astype(float).copy()
        self.event = np.full(n, math.inf)       # the job's next own event
        self.run_from = np.full(n, math.nan)    # when its current work segment starts
        self.job_lease = np.full(n, -1, dtype=np.int64)
        self.queued_at = np.full(n, math.nan)
        self.pass_ = np.zeros(n)
        self.attained_mark = np.zeros(n)         # work done at the last quantum (stride)
        self.finish = np.full(n, math.nan)
        self.serverless_s = np.zeros(n)
        self.demotions = np.zeros(n, dtype=np.int64)
        self.preemptions = np.zeros(n, dtype=np.int64)
        self.overhead_s = np.zeros(n)
        self.queue_s = np.zeros(n)
        self.started = np.zeros(n, dtype=bool)  # has done some work (has a checkpoint)
        self.leases: list[list] = []            # [provider, offer, start, ready, end, price, job]
        self.segments: list[tuple] = []
        self.ticks: list[tuple] = []
        self.hpa_history: list[tuple[float, int]] = []
        self.open: list[int] = []               # open serverful leases, in lease order
        self._quantum_due = False
        self._pending = None                    # a tick's pressure awaiting its decision
        self.events = 0
        self.finished = 0                       # jobs DONE (the loop's end test)

    # -- state convention -------------------------------------------------------------
    def snapshot(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k != "rng"}
        return copy.deepcopy(state) | {"rng": copy.deepcopy(self.rng.bit_generator.state)}

    def restore(self, state: dict) -> None:
        state = dict(state)
        self.rng.bit_generator.state = state.pop("rng")
        self.__dict__.update(copy.deepcopy(state))

    @property
    def done(self) -> bool:
        return self.finished == self.n

    # -- leases -----------------------------------------------------------------------
    def _open_serverful(self) -> list[int]:
        return list(self.open)

    def _lease(self, provider: str, offer: int, price: float, job: int = -1) -> int:
        start = self.t
        ready = start + float(startup_times(provider, 1, self.rng)[0])
        self.leases.append([provider, offer, start, ready, math.nan, price, job])
        if provider != "modal":
            self.open.append(len(self.leases) - 1)
        return len(self.leases) - 1

    def _free_offers(self) -> tuple[np.ndarray, np.ndarray]:
        minute = min(int(self.t // 60.0), self.offers.shape[0] - 1)
        row = self.offers[minute]
        free = np.isfinite(row)
        free[[self.leases[i][1] for i in self.open if self.leases[i][0] == "vast"]] = False
        slots = np.flatnonzero(free)
        return slots, row[slots]

    def _room(self) -> float:
        return self.capacity - len(self._open_serverful())

    def _add_workers(self, k: int) -> None:
        k = int(min(k, self._room()))
        if k <= 0:
            return
        slots, prices = self._free_offers()
        # sec. 3.3: "the cheapest available workers (across marketplace and conventional
        # clouds)": the conventional cloud has room for any number at its one price, so a
        # marketplace offer is taken only while it costs no more than that price (a tie goes
        # to the marketplace); the rest, and all when the book has no free offer (the
        # "fallback"), are conventional workers
        conventional = PROVIDERS["lambda"].price_per_gpu_h
        order = np.argsort(prices, kind="stable")[:k]
        order = order[prices[order] <= conventional]
        for i in order:                                            # cheapest first
            self._lease("vast", int(slots[i]), float(prices[i]))
        for _ in range(k - order.size):
            self._lease("lambda", -1, conventional)

    def _idle(self) -> list[int]:
        """Open serverful leases holding no job (ready or still starting)."""
        return [i for i in self.open if self.leases[i][6] < 0]

    def _release(self, lease: int) -> None:
        self.leases[lease][4] = self.t
        self.open.remove(lease)

    def _idle_ready(self) -> list[int]:
        """Idle serverful workers past their start-up: the ones that can be released (a
        worker still starting is not idle, it is on its way to a job)."""
        return [i for i in self._idle() if self.leases[i][3] <= self.t + _EPS]

    def _release_dearest_idle(self, k: int) -> None:
        idle = self._idle_ready()
        idle.sort(key=lambda i: (-self.leases[i][5], i))
        for i in idle[:max(0, k)]:
            self._release(i)

    # -- jobs -------------------------------------------------------------------------
    def _segment(self, j, lease, kind, start, end) -> None:
        if end > start + _EPS or kind == RUN and end > start:
            self.segments.append((j, lease, kind, start, end))

    def _arrive(self, j: int) -> None:
        if self.mode in ("adaptive", "fixed", "all"):
            lease = self._lease("modal", -1, PROVIDERS["modal"].price_per_gpu_h, job=j)
            self.state[j] = SERVERLESS
            self.job_lease[j] = lease
            self.run_from[j] = self.leases[lease][3]
            self._stint_end(j)
        else:
            self._enqueue(j)
        if self.share == "stride":
            live = (self.state == QUEUED) | (self.state == PLACED) | (self.state == PREEMPTING)
            live[j] = False
            self.pass_[j] = self.pass_[live].min() if live.any() else 0.0

    def _stint_end(self, j: int) -> None:
        """The end of a serverless stint under the F in force (module docstring)."""
        end = self.run_from[j] + min(self.remaining[j], self.F)
        self.event[j] = max(end, self.t)

    def _enqueue(self, j: int) -> None:
        self.state[j] = QUEUED
        self.queued_at[j] = self.t
        self.job_lease[j] = -1
        self.event[j] = math.inf

    def _job_event(self, j: int) -> None:
        t, s, lease = self.t, self.state[j], self.job_lease[j]
        if s == SERVERLESS:
            done_work = max(0.0, t - self.run_from[j])
            self._segment(j, lease, RUN, self.run_from[j], t)
            self.serverless_s[j] += done_work
            self.remaining[j] -= done_work
            if self.remaining[j] <= _EPS * max(1.0, self.work[j]):
                self._finish(j)
            elif done_work <= 0:          # F is 0 before it ran: nothing to checkpoint
                self.leases[lease][3] = min(self.leases[lease][3], t)
                self.leases[lease][4] = t
                self.leases[lease][6] = -1
                self.demotions[j] += 1
                self._enqueue(j)
            else:                                                  # demote (step 3)
                self.started[j] = True                         # it has a checkpoint
                self.demotions[j] += 1
                self.state[j] = DEMOTING
                self.event[j] = t + self.checkpoint_s
                self.overhead_s[j] += self.checkpoint_s
                self._segment(j, lease, CHECKPOINT, t, t + self.checkpoint_s)
        elif s == DEMOTING:
            self.leases[lease][4] = t                               # the Modal worker ends
            self.leases[lease][6] = -1
            self._enqueue(j)
        elif s == PLACED:
            self._segment(j, lease, RUN, self.run_from[j], t)
            self.remaining[j] = 0.0
            self._finish(j)
        elif s == PREEMPTING:
            self.leases[lease][6] = -1
            self._enqueue(j)

    def _finish(self, j: int) -> None:
        lease = self.job_lease[j]
        self.state[j] = DONE
        self.finished += 1
        self.finish[j] = self.t
        self.event[j] = math.inf
        if self.leases[lease][0] == "modal":
            self.leases[lease][4] = self.t
        self.leases[lease][6] = -1
        self.job_lease[j] = -1

    def _place(self, j: int, lease: int) -> None:
        t = self.t
        self.queue_s[j] += t - self.queued_at[j]
        overhead = self.restore_s if self.started[j] else 0.0
        self.overhead_s[j] += overhead
        self._segment(j, lease, RESTORE, t, t + overhead)
        self.state[j] = PLACED
        self.job_lease[j] = lease
        self.leases[lease][6] = j
        self.run_from[j] = t + overhead
        self.event[j] = t + overhead + self.remaining[j]
        self.started[j] = True

    def _preempt(self, j: int) -> None:
        t, lease = self.t, self.job_lease[j]
        done_work = max(0.0, t - self.run_from[j])
        if t > self.run_from[j]:
            self._segment(j, lease, RUN, self.run_from[j], t)
        else:                                                      # cut short its restore
            for k in range(len(self.segments) - 1, -1, -1):
                s = self.segments[k]
                if s[0] == j and s[1] == lease and s[2] == RESTORE:
                    self.segments[k] = (j, lease, RESTORE, s[3], t)
                    if t <= s[3] + _EPS:
                        del self.segments[k]
                    break
            self.overhead_s[j] -= self.run_from[j] - t
        self.remaining[j] -= done_work
        self.preemptions[j] += 1
        self.state[j] = PREEMPTING
        self.event[j] = t + self.checkpoint_s
        self.overhead_s[j] += self.checkpoint_s
        self._segment(j, lease, CHECKPOINT, t, t + self.checkpoint_s)

    # -- ordering ---------------------------------------------------------------------
    def _keys(self, jobs: np.ndarray) -> np.ndarray:
        if self.share == "stride":
            return self.pass_[jobs]           # ties: placed jobs first (see _ranked)
        if self.discipline == "edf":
            return self.deadline[jobs]
        if self.discipline == "sjf":
            return self.work[jobs]
        if self.discipline == "tiresias":
            rem = self.remaining[jobs].copy()
            placed = self.state[jobs] == PLACED
            rem[placed] -= np.maximum(0.0, self.t - self.run_from[jobs[placed]])
            view = JobView(self.submit[jobs], np.ones(jobs.size, dtype=np.int64),
                           self.work[jobs], rem)
            return self.tiresias.key(view)
        return self.submit[jobs]                                   # fifo

    def _ranked(self, jobs: np.ndarray) -> np.ndarray:
        keys = self._keys(jobs)
        moved = (self.state[jobs] != PLACED) if self.share == "stride" else np.zeros(jobs.size)
        return jobs[np.lexsort((jobs, self.submit[jobs], moved, keys))]

    def _ready_idle(self) -> list[int]:
        idle = self._idle_ready()
        idle.sort(key=lambda i: (self.leases[i][5], i))            # cheapest first
        return idle

    def _dispatch(self) -> None:
        if self.preemptive or (self.share == "stride" and self._quantum_due):
            ready = [i for i in self._open_serverful() if self.leases[i][3] <= self.t + _EPS]
            holders = [i for i in ready if self.leases[i][6] >= 0
                       and self.state[self.leases[i][6]] == PREEMPTING]
            slots = len(ready) - len(holders)
            live = np.flatnonzero((self.state == QUEUED) | (self.state == PLACED))
            keep = set(self._ranked(live)[:slots].tolist())
            for j in live:
                if self.state[j] == PLACED and j not in keep:
                    self._preempt(int(j))
        if self.provision == "on-demand":
            queued = int((self.state == QUEUED).sum())
            covered = len(self._idle())
            if queued > covered:
                self._add_workers(queued - covered)
        idle = self._ready_idle()
        if not idle:
            return
        queued = self._ranked(np.flatnonzero(self.state == QUEUED))
        for j, lease in zip(queued, idle, strict=False):
            self._place(int(j), lease)

    # -- the control loop (ticks) -----------------------------------------------------
    def _live(self) -> np.ndarray:
        return np.flatnonzero((self.state != WAITING) & (self.state != DONE))

    def _remaining_now(self, jobs: np.ndarray) -> np.ndarray:
        rem = self.remaining[jobs].copy()
        running = (self.state[jobs] == PLACED) | (self.state[jobs] == SERVERLESS)
        rem[running] -= np.maximum(0.0, self.t - self.run_from[jobs[running]])
        return np.maximum(rem, 0.0)

    def _tick(self) -> None:
        pd = self._tick_pressure()
        if self.provision == "dbf":
            idle = self._idle_ready()
            slots, prices = self._free_offers()
            decision = self.serverful_scaler._decide(              # Algorithm 2
                pd.demand, float(len(self.open)), pd.window, pd.p, prices,
                np.array([self.leases[i][5] for i in idle], dtype=float))
            self._provide(decision.add, [idle[k] for k in decision.remove])
        elif self.provision == "on-demand":
            if not (self.state == QUEUED).any():
                for i in self._idle_ready():
                    self._release(i)
        else:
            self._hpa()
        self._record(pd)

    def _tick_pressure(self):
        """The tick's pressure (eq. 2) and, under DBF provisioning, Algorithm 1's new F."""
        live, remaining = _live_remaining(self.t, self.state, self.remaining, self.run_from)
        capacity = float(len(self.open))                           # C_t = I mu, mu = 1
        pd = _pressure_detail(self.t, self.windows, capacity,      # checked in __init__
                              self.deadline[live], remaining,
                              self.overdue, self.demand_rule, self.units)
        if self.provision == "dbf" and self.serverless_scaler is not None:  # Algorithm 1
            self.F = self.serverless_scaler.step(pd.p, self.t)
            for j in np.flatnonzero(self.state == SERVERLESS):
                self._stint_end(int(j))
        return pd

    def _provide(self, add: int, release: list[int]) -> None:
        """Carry out a tick's serverful decision: ``add`` workers (cheapest first, up to the
        cap), release the idle ready leases ``release``, then the liveness rule."""
        if add:
            self._add_workers(add)
        for i in release:
            self._release(i)
        if not self._open_serverful() and (self.state == QUEUED).any():
            self._add_workers(1)                                   # liveness rule

    def _hpa(self) -> None:
        open_ = self._open_serverful()
        ready = [i for i in open_ if self.leases[i][3] <= self.t + _EPS]
        busy = sum(1 for i in ready if self.leases[i][6] >= 0)
        waiting = bool((self.state == QUEUED).any())
        if ready:
            u = busy / len(ready)
        else:
            u = 1.0 if waiting else 0.0
        current = len(open_)
        desired = math.ceil(round(current * u / self.hpa_target, 9))
        if self._live().size:
            desired = max(desired, 1)
        self.hpa_history.append((self.t, desired))
        self.hpa_history = [(s, d) for s, d in self.hpa_history
                            if s > self.t - self.hpa_window_s - _EPS]
        if desired > current:
            self._add_workers(desired - current)
        else:
            floor = max(d for _, d in self.hpa_history)
            if current > floor:
                self._release_dearest_idle(current - floor)

    def _record(self, pd) -> None:
        open_ = self._open_serverful()
        ready = [i for i in open_ if self.leases[i][3] <= self.t + _EPS]
        self.ticks.append((
            self.t, pd.p, pd.demand, pd.window,
            self.F if self.mode in ("adaptive", "fixed") else math.nan,
            np.count_nonzero(self.state == QUEUED), len(open_), len(ready),
            sum(1 for i in open_ if self.leases[i][6] >= 0),
            np.count_nonzero((self.state == SERVERLESS) | (self.state == DEMOTING))))

    # -- the loop ---------------------------------------------------------------------
    def _next_time(self) -> float:
        t = min(self.event.min() if self.n else math.inf, self.next_tick)
        if self.next_arrival < self.n:
            t = min(t, self.submit[self.next_arrival])
        starting = [self.leases[i][3] for i in self.open if self.leases[i][3] > self.t + _EPS]
        if starting:
            t = min(t, min(starting))
        if self.share == "stride":
            t = min(t, self.next_quantum)
        return t

    def step(self) -> bool:
        """One instant of the loop; False once every job is done."""
        if self.done:
            return False
        if self._begin_instant():
            self._tick()
        self._end_instant()
        return not self.done

    def _begin_instant(self) -> bool:
        """The first part of an instant: the clock, the jobs' events, the arrivals; True
        when a tick is due (``next_tick`` already moved on)."""
        self.t = self._next_time()
        self.events += 1
        for j in np.flatnonzero(self.event <= self.t + _EPS):
            self._job_event(int(j))
        while self.next_arrival < self.n and self.submit[self.next_arrival] <= self.t + _EPS:
            self._arrive(self.next_arrival)
            self.next_arrival += 1
        if self.next_tick <= self.t + _EPS:
            self.next_tick += self.tick_s
            return True
        return False

    def _end_instant(self) -> None:
        """The rest of an instant, after its tick: the quantum, the dispatch, the end."""
        self._quantum_due = self.share == "stride" and self.next_quantum <= self.t + _EPS
        if self._quantum_due:
            live = np.flatnonzero((self.state != WAITING) & (self.state != DONE))
            attained = self.work[live] - self._remaining_now(live)
            served = np.maximum(0.0, attained - self.attained_mark[live])
            self.pass_[live] += self.work[live] * served / self.quantum_s  # stride = work
            self.attained_mark[live] = attained
            self.next_quantum += self.quantum_s
        self._dispatch()
        self._quantum_due = False
        if self.done:
            for L in self.leases:
                if math.isnan(L[4]):
                    L[4] = max(self.t, L[3])                       # the run is over
            self.open = []

    # -- the provisioning decision, from outside (lorasched.allpass.env) -----------------
    def next_decision(self):
        """Run to the next tick whose serverful decision is due and stop before it.

        Only under ``provision="dbf"``. The tick's pressure is taken and Algorithm 1 has
        moved F; :meth:`provide` carries out the decision and finishes the instant.

        Returns
        -------
        Pressure or None
            The tick's pressure (eq. 2, with D and the binding window), or None once every
            job is done.
        """
        if self.provision != "dbf":
            raise InputError(f"next_decision needs provision='dbf', got {self.provision!r}")
        while not self.done:
            if self._begin_instant():
                self._pending = self._tick_pressure()
                return self._pending
            self._end_instant()
        return None

    def provide(self, add: int, release: int) -> None:
        """Carry out the pending tick's serverful decision and finish its instant.

        Parameters
        ----------
        add : int
            Workers to provision, cheapest first (marketplace offers no dearer than the
            conventional cloud, then the conventional cloud), up to the cap.
        release : int
            Idle ready workers to release, dearest first (at most the idle ready count).
        """
        pd = self._pending
        if pd is None:
            raise InputError("provide needs a pending decision: call next_decision first")
        for name, value in (("add", add), ("release", release)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
                    or value < 0:
                raise InputError(f"{name} must be an integer >= 0, got {value!r}")
        self._pending = None
        self._provide(int(add), self.dearest_idle()[:int(release)])
        self._record(pd)
        self._end_instant()

    def dearest_idle(self) -> list[int]:
        """The idle ready serverful leases, dearest first (ties: lease order): the order
        Algorithm 2 releases them in."""
        idle = self._idle_ready()
        idle.sort(key=lambda i: (-self.leases[i][5], i))
        return idle

    def free_prices(self) -> np.ndarray:
        """The $/GPU-h of the marketplace's free offers this minute (any order)."""
        return self._free_offers()[1]

    def run(self, max_events: int | None = None) -> bool:
        """Run to the end (or ``max_events`` instants); True when every job is done."""
        count = 0
        while not self.done and (max_events is None or count < max_events):
            self.step()
            count += 1
        return self.done

    def result(self) -> Run:
        L = self.leases
        seg = np.array(self.segments, dtype=float).reshape(-1, 5)
        ticks = np.array(self.ticks, dtype=float).reshape(-1, 10)
        return Run(
            finish=self.finish.copy(), serverless_s=self.serverless_s.copy(),
            demotions=self.demotions.copy(), preemptions=self.preemptions.copy(),
            overhead_s=self.overhead_s.copy(), queue_s=self.queue_s.copy(),
            lease_provider=np.array([x[0] for x in L], dtype=str),
            lease_offer=np.array([x[1] for x in L], dtype=np.int64),
            lease_start=np.array([x[2] for x in L], dtype=float),
            lease_ready=np.array([x[3] for x in L], dtype=float),
            lease_end=np.array([x[4] for x in L], dtype=float),
            lease_price=np.array([x[5] for x in L], dtype=float),
            seg_job=seg[:, 0].astype(np.int64), seg_lease=seg[:, 1].astype(np.int64),
            seg_kind=seg[:, 2].astype(np.int64), seg_start=seg[:, 3], seg_end=seg[:, 4],
            tick_t=ticks[:, 0], tick_p=ticks[:, 1], tick_demand=ticks[:, 2],
            tick_window=ticks[:, 3], tick_F=ticks[:, 4],
            tick_queue=ticks[:, 5].astype(np.int64), tick_workers=ticks[:, 6].astype(np.int64),
            tick_ready=ticks[:, 7].astype(np.int64), tick_busy=ticks[:, 8].astype(np.int64),
            tick_serverless=ticks[:, 9].astype(np.int64), events=self.events)


@njit(cache=True)
def _live_remaining(t, state, remaining, run_from):
    """The live jobs (neither waiting nor done) and their work left at ``t``: what
    ``_live`` and ``_remaining_now`` give, in one pass (the same floats)."""
    live = np.empty(state.size, dtype=np.int64)
    rem = np.empty(state.size)
    k = 0
    for j in range(state.size):
        s = state[j]
        if s == WAITING or s == DONE:
            continue
        r = remaining[j]
        if s == PLACED or s == SERVERLESS:
            x = t - run_from[j]
            r = r - (0.0 if 0.0 >= x else x)                       # np.maximum(0.0, x)
        rem[k] = r if (r >= 0.0 or np.isnan(r)) else 0.0           # np.maximum(r, 0.0)
        live[k] = j
        k += 1
    return live[:k], rem[:k]
