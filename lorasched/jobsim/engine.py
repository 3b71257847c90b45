"""An event-driven simulator of jobs on a pool of identical GPUs (:class:`JobEngine`,
:func:`simulate`): decisions at arrivals, completions and reviews (or ticks), greedy admission
in the discipline's order, with or without preemption and backfilling, a switch cost per
start. The rules: :doc:`/reference/jobsim`.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from ..model.errors import InputError
from . import queues
from .queues import Discipline, JobView

#: event log kinds: job started or resumed, was preempted, finished
RUN, PREEMPT, FINISH = 0, 1, 2
LOG_KINDS = ("run", "preempt", "finish")


@dataclass(frozen=True, eq=False)
class JobSimResult:
    """Outcome of :func:`simulate`; arrays have one entry per job (input order).

    ``start``: first time on GPUs; ``finish``; ``jct = finish - arrival``; ``preemptions``
    (int64); ``overhead``: the switch seconds per start or resume (zeros when none given).
    The log lists every change in time order: ``log_time`` (s), ``log_job``, ``log_kind``
    (:data:`RUN`, :data:`PREEMPT`, :data:`FINISH`). ``epochs``: decisions made.
    """

    total_gpus: int
    arrival: np.ndarray
    gpus: np.ndarray
    work: np.ndarray
    overhead: np.ndarray
    start: np.ndarray
    finish: np.ndarray
    jct: np.ndarray
    preemptions: np.ndarray
    log_time: np.ndarray
    log_job: np.ndarray
    log_kind: np.ndarray
    epochs: int

    @property
    def mean_jct(self) -> float:
        return mean_jct(self)

    @property
    def makespan(self) -> float:
        """Last finish minus first arrival (0 without jobs)."""
        return float(self.finish.max() - self.arrival.min()) if self.finish.size else 0.0

    @property
    def switch_seconds(self) -> float:
        """Seconds the jobs held GPUs in context switches: the sum over every run interval
        of ``min(interval length, overhead[j])`` (intervals still open are left out, so
        this is exact once every job has finished)."""
        order = np.argsort(self.log_job, kind="stable")  # each job's log, in time order
        t, j, k = self.log_time[order], self.log_job[order], self.log_kind[order]
        closed = (k[:-1] == RUN) & (j[1:] == j[:-1])  # a run and the entry that ends it
        length = t[1:][closed] - t[:-1][closed]
        return float(np.minimum(length, self.overhead[j[:-1][closed]]).sum())


def mean_jct(result) -> float:
    """Average job completion time of a :class:`JobSimResult` or of an array of JCTs."""
    jct = np.asarray(result.jct if isinstance(result, JobSimResult) else result, dtype=float)
    if jct.size == 0:
        raise InputError("mean_jct: no jobs")
    return float(jct.mean())


def busy_gpus(result: JobSimResult) -> tuple[np.ndarray, np.ndarray]:
    """Busy GPUs as a step function: ``busy[k]`` GPUs from ``time[k]`` to ``time[k + 1]``."""
    change = np.where(result.log_kind == RUN, 1, -1) * result.gpus[result.log_job]
    time, first = np.unique(result.log_time, return_index=True)
    busy = np.cumsum(change)[np.r_[first[1:], change.size] - 1] if change.size else change
    return time, busy.astype(np.int64)


# ----------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------


def _whole(name: str, value, low: int) -> int:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not float(value).is_integer() or value < low):
        raise InputError(f"{name!r} must be a whole number >= {low}, got {value!r}")
    return int(value)


def _array(name: str, values, n: int | None) -> np.ndarray:
    try:
        out = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name!r} must be an array of numbers") from None
    if out.ndim != 1:
        raise InputError(f"{name!r} must be 1-d, got shape {out.shape}")
    if n is not None and out.size != n:
        raise InputError(f"{name!r} has {out.size} entries, 'arrival' has {n}")
    return out


def _first_bad(name: str, values: np.ndarray, bad: np.ndarray, why: str) -> None:
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise InputError(f"job {j}: {name!r} = {values[j]:g} {why}")


def _check_jobs(arrival, gpus, work, total_gpus, deadline, overhead):
    total_gpus = _whole("total_gpus", total_gpus, 1)
    arrival = _array("arrival", arrival, None)
    n = arrival.size
    gpus, work = _array("gpus", gpus, n), _array("work", work, n)
    _first_bad("arrival", arrival, ~np.isfinite(arrival), "must be finite")
    _first_bad("gpus", gpus, ~(np.isfinite(gpus) & (gpus == np.round(gpus)) & (gpus >= 1)),
               "must be a whole number >= 1")
    _first_bad("gpus", gpus, gpus > total_gpus,
               f"exceeds the pool's {total_gpus} GPUs ('total_gpus')")
    _first_bad("work", work, ~(np.isfinite(work) & (work > 0)), "must be positive and finite")
    if deadline is not None:
        deadline = _array("deadline", deadline, n)
        _first_bad("deadline", deadline, ~np.isfinite(deadline), "must be finite")
    if overhead is None:
        overhead = np.zeros(n)
    else:
        overhead = _array("overhead", overhead, n)
        _first_bad("overhead", overhead, ~(np.isfinite(overhead) & (overhead >= 0)),
                   "must be non-negative and finite")
    return arrival, gpus.astype(np.int64), work, total_gpus, deadline, overhead


# ----------------------------------------------------------------------------------------
# the engine
# ----------------------------------------------------------------------------------------


class JobEngine:
    """The state of one simulation, advanced epoch by epoch (module docstring).

    ``tick_s`` (default 0: event-driven) makes the engine decide only at multiples of
    ``tick_s`` seconds, as a periodic scheduler does (the TITAN authors' simulator runs its
    SRTF and Tiresias every 300 s): an arrival waits for the next tick, a job finishes at
    its own time (its JCT is exact) but its GPUs are given out only at the next tick, and a
    review the discipline asks for is taken at the first tick not before it.

    State (all in :meth:`snapshot`): ``now`` (s), ``cursor`` (jobs arrived, in arrival
    order), ``active`` (indices of the jobs in the system), ``running`` (mask), ``end``
    (projected finish of each running job, switch included), ``remaining`` (work left of
    each job not running; of a running job, its work left when it last started or
    resumed), ``resumed`` (time of that last start or resume of each running job, else
    ``nan``; its switch ends at ``resumed + overhead``), ``start``, ``finish``,
    ``preemptions``, ``review_at``, ``epochs`` and the log.
    """

    STATE = ("now", "cursor", "active", "running", "end", "remaining", "resumed", "start",
             "finish", "preemptions", "review_at", "epochs", "log", "switched", "node_free",
             "held")

    def __init__(self, arrival, gpus, work, total_gpus: int, discipline="fifo", *,
                 deadline=None, preemptive: bool = True, backfill: bool = True,
                 overhead=None, tick_s: float = 0.0, gpus_per_node: int | None = None):
        self.tick_s = _tick("tick_s", tick_s)
        self.discipline: Discipline = queues.discipline(discipline)
        for name, flag in (("preemptive", preemptive), ("backfill", backfill)):
            if not isinstance(flag, bool | np.bool_):
                raise InputError(f"{name!r} must be True or False, got {flag!r}")
        if self.discipline.needs_deadline and deadline is None:
            raise InputError(f"discipline {self.discipline.name!r} needs 'deadline'")
        (self.arrival, self.gpus, self.work, self.total_gpus, self.deadline,
         self.overhead) = _check_jobs(arrival, gpus, work, total_gpus, deadline, overhead)
        for values in (self.arrival, self.gpus, self.work, self.deadline, self.overhead):
            if values is not None:  # shared with every result: keep them as given
                values.setflags(write=False)
        self.preemptive, self.backfill = bool(preemptive), bool(backfill)
        n = self.arrival.size
        self._order = np.argsort(self.arrival, kind="stable")  # arrival order, ties by index
        self._sorted_arrival = self.arrival[self._order]
        self.now = -math.inf
        self.cursor = 0
        self.active = np.zeros(0, dtype=np.int64)
        self.running = np.zeros(n, dtype=bool)
        self.end = np.full(n, np.nan)
        self.remaining = self.work.copy()
        self.resumed = np.full(n, np.nan)
        self.start = np.full(n, np.nan)
        self.finish = np.full(n, np.nan)
        self.preemptions = np.zeros(n, dtype=np.int64)
        self.review_at = math.inf
        self.epochs = 0
        self.log: list[tuple[float, int, int]] = []
        self.switched = np.zeros(n)  # switch seconds spent by each job before its last resume
        self.gpus_per_node = None
        self.node_free = self.held = None
        if gpus_per_node is not None:  # GPUs on nodes, each job on the fewest possible
            per = _whole("gpus_per_node", gpus_per_node, 1)
            if self.total_gpus % per:
                raise InputError(f"'total_gpus' ({self.total_gpus}) must be a multiple of "
                                 f"'gpus_per_node' ({per})")
            self.gpus_per_node = per
            self.node_free = np.full(self.total_gpus // per, per, dtype=np.int64)
            self.held = np.zeros((n, self.node_free.size), dtype=np.int64)

    # -- state ---------------------------------------------------------------------------

    def snapshot(self) -> dict:
        """Copies of the whole mutable state."""
        state = {name: getattr(self, name) for name in self.STATE}
        state = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in state.items()}
        state["log"] = list(self.log)
        return state

    def restore(self, state: dict) -> None:
        """Put back a state taken by :meth:`snapshot` (copied, so it can be reused)."""
        for name in self.STATE:
            value = state[name]
            setattr(self, name, value.copy() if isinstance(value, np.ndarray) else value)
        self.log = list(state["log"])

    @property
    def done(self) -> bool:
        return self.cursor == self.arrival.size and self.active.size == 0

    # -- one epoch -----------------------------------------------------------------------

    def next_epoch(self) -> float:
        """Time of the next epoch (``inf`` when every job has finished)."""
        t = self._sorted_arrival[self.cursor] if self.cursor < self.arrival.size else math.inf
        if self.running.any():
            t = min(t, float(np.min(self.end[self.running])))
        return on_tick(float(min(t, self.review_at)), self.tick_s)

    def step(self) -> bool:
        """Process the next epoch; ``False`` (and nothing done) when all jobs have finished."""
        t = self.next_epoch()
        if t == math.inf:
            return False
        self._complete(t)
        hi = int(np.searchsorted(self._sorted_arrival, t, side="right"))
        self.active = np.concatenate([self.active, self._order[self.cursor:hi]])
        self.cursor = hi
        self.now = t
        self._decide()
        self.epochs += 1
        return True

    def run(self, max_epochs: int | None = None) -> bool:
        """Step until every job has finished or ``max_epochs`` more epochs; ``True`` if done."""
        limit = math.inf if max_epochs is None else _whole("max_epochs", max_epochs, 0)
        count = 0
        while count < limit and self.step():
            count += 1
        return self.done

    def _complete(self, t: float) -> None:
        run = np.flatnonzero(self.running)
        done = run[self.end[run] <= t]
        if done.size == 0:
            return
        done = done[np.argsort(self.end[done], kind="stable")]
        when = self.end[done]  # == t when event-driven; before the tick when ticking
        self.finish[done] = when
        self.remaining[done] = 0.0
        self.switched[done] += self.overhead[done]
        self._release(done)
        self.running[done] = False
        self.end[done] = np.nan
        self.resumed[done] = np.nan
        self.log.extend((float(w), int(j), FINISH) for w, j in zip(when, done, strict=True))
        self.active = self.active[np.isnan(self.finish[self.active])]

    def _work_left(self, jobs: np.ndarray) -> np.ndarray:
        """Work left now of running ``jobs``: ``end - now`` after the switch; during the
        switch, the work left at the resume (an interrupted switch did no work).

        Equal to ``min(remaining, end - now)`` but bit for bit ``end - now`` after the
        switch (so zero overhead reproduces the engine without switches exactly).
        """
        switching = self.now < self.resumed[jobs] + self.overhead[jobs]
        return np.where(switching, self.remaining[jobs], self.end[jobs] - self.now)

    def _release(self, jobs: np.ndarray) -> None:
        """Give back the GPUs ``jobs`` hold on their nodes (placement on nodes only)."""
        if self.held is not None and jobs.size:
            self.node_free += self.held[jobs].sum(axis=0)
            self.held[jobs] = 0

    def _decide(self) -> None:
        act = self.active
        was = self.running[act]
        left = self.remaining[act].copy()
        left[was] = self._work_left(act[was])
        switched = self.switched[act].copy()  # with the switch time of the current run
        switched[was] += np.minimum(self.now - self.resumed[act[was]],
                                    self.overhead[act[was]])
        jobs = JobView(self.arrival[act], self.gpus[act], self.work[act], left,
                       None if self.deadline is None else self.deadline[act], switched, act)
        key = np.asarray(self.discipline.key(jobs), dtype=np.float64)
        if self.preemptive:
            candidates, free = np.arange(act.size), self.total_gpus
        else:
            candidates = np.flatnonzero(~was)
            free = self.total_gpus - int(jobs.gpus[was].sum())
        order = candidates[np.lexsort((act[candidates], jobs.arrival[candidates],
                                       key[candidates]))]
        admitted = order[_admit(jobs.gpus[order], free, self.backfill)]
        now_running = was.copy()
        if self.preemptive:
            now_running[:] = False
        now_running[admitted] = True

        stop = act[was & ~now_running]  # preempted: keep the work left (switch time lost)
        self._release(stop)
        if self.held is not None:  # on nodes: the largest first, each on the fewest nodes
            new = admitted[~was[admitted]]
            for pos in new[np.argsort(-jobs.gpus[new], kind="stable")]:
                take = fewest_nodes(int(jobs.gpus[pos]), self.node_free, self.gpus_per_node)
                if take is None:  # no room on few enough nodes: it waits
                    now_running[pos] = False
                    continue
                self.node_free -= take
                self.held[act[pos]] = take
        self.switched[stop] = switched[was & ~now_running]
        self.remaining[stop] = left[was & ~now_running]
        self.end[stop] = np.nan
        self.resumed[stop] = np.nan
        self.preemptions[stop] += 1
        go = act[now_running & ~was]  # started or resumed: the switch, then the work left
        self.end[go] = self.now + self.overhead[go] + self.remaining[go]
        self.resumed[go] = self.now
        self.start[go] = np.where(np.isnan(self.start[go]), self.now, self.start[go])
        self.running[act] = now_running
        self.log.extend((self.now, int(j), PREEMPT) for j in stop)
        self.log.extend((self.now, int(j), RUN) for j in go)

        self.review_at = math.inf
        if self.preemptive and not now_running.all():
            # review_in sees the work left now and assumes the running jobs work from now
            # on; a job still in (or just starting) its switch works only after it, so the
            # review comes early by at most the switch time left, never late. An early
            # review finds the order unchanged (review_in promises no change before the
            # real crossing) and asks again for the rest of the gap, so it is harmless.
            review = self.now + self.discipline.review_in(jobs, now_running)
            # never at the same instant again (round-off of a tiny review_in)
            self.review_at = max(review, float(np.nextafter(self.now, math.inf)))

    # -- outcome -------------------------------------------------------------------------

    def result(self) -> JobSimResult:
        """The outcome so far (``nan`` start/finish for jobs not started/finished yet)."""
        log = np.array(self.log, dtype=np.float64).reshape(-1, 3)
        return JobSimResult(
            total_gpus=self.total_gpus, arrival=self.arrival, gpus=self.gpus, work=self.work,
            overhead=self.overhead, start=self.start.copy(), finish=self.finish.copy(),
            jct=self.finish - self.arrival, preemptions=self.preemptions.copy(),
            log_time=log[:, 0], log_job=log[:, 1].astype(np.int64),
            log_kind=log[:, 2].astype(np.int8), epochs=self.epochs)


def _tick(name: str, value) -> float:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not math.isfinite(value) or value < 0):
        raise InputError(f"{name!r} must be a non-negative finite number of seconds (0: "
                         f"event-driven), got {value!r}")
    return float(value)


def on_tick(t: float, tick_s: float) -> float:
    """The first multiple of ``tick_s`` not before ``t`` (``t`` itself when ``tick_s`` is
    0, event-driven; ``inf`` stays ``inf``); the ticks start at 0, so a time before 0 waits
    for the tick at 0."""
    if tick_s <= 0 or not math.isfinite(t):
        return t
    k = math.ceil(t / tick_s)
    return max(k * tick_s, 0.0) if k * tick_s >= t else (k + 1) * tick_s


def fewest_nodes(gpus: int, free: np.ndarray, per_node: int) -> np.ndarray | None:
    """GPUs to take from each node for a job of ``gpus`` GPUs, given each node's ``free``
    GPUs, as the TITAN authors' simulator's consolidating placement takes them: a job that
    fits on one node goes on the fullest node it fits on (the lowest-numbered of equals);
    a wider one takes the freest nodes first; a placement on more nodes than the fewest its
    width needs is refused (``None``), as is one the pool cannot hold."""
    if int(free.sum()) < gpus:
        return None
    take = np.zeros(free.size, dtype=np.int64)
    if gpus <= per_node:
        fits = np.flatnonzero(free >= gpus)
        if not fits.size:
            return None
        take[fits[np.argmin(free[fits])]] = gpus
        return take
    left = gpus
    for node in np.argsort(-free, kind="stable"):
        if left == 0:
            break
        got = min(int(free[node]), left)
        take[node], left = got, left - got
    return None if per_node * (np.count_nonzero(take) - 1) >= gpus else take


def _admit(gpus: np.ndarray, free: int, backfill: bool) -> np.ndarray:
    """Greedy admission of jobs in the given order: a mask of those that get their GPUs."""
    if not backfill:  # the longest prefix that fits
        return np.cumsum(gpus) <= free
    admitted = np.zeros(gpus.size, dtype=bool)
    for i, g in enumerate(gpus.tolist()):
        if g <= free:
            admitted[i] = True
            free -= g
            if free == 0:
                break
    return admitted


def simulate(arrival, gpus, work, total_gpus: int, discipline="fifo", *, deadline=None,
             preemptive: bool = True, backfill: bool = True,
             overhead=None, tick_s: float = 0.0,
             gpus_per_node: int | None = None) -> JobSimResult:
    """Run jobs on ``total_gpus`` GPUs under a queue discipline to the end (module doc).

    ``discipline``: a name of :data:`~lorasched.jobsim.queues.DISCIPLINES` or a
    :class:`~lorasched.jobsim.queues.Discipline` (e.g. ``LAS(quantum_s=60)``);
    ``deadline`` (s) is needed by EDF only. ``overhead`` (s, one per job, ``>= 0``; default
    none): the context switch a job pays on its GPUs, doing no work, each time it starts or
    resumes (a preemption loses it; see :attr:`JobSimResult.switch_seconds`). ``tick_s``
    (s, default 0: event-driven): decide only at its multiples (:class:`JobEngine`).
    ``gpus_per_node`` (default none: one pool): the GPUs lie on nodes of that many, and a
    job admitted in the discipline's order starts only where :func:`fewest_nodes` places
    it (the widest first), else waits for the next decision. Bad input raises
    ``ValueError`` naming the argument and the job.
    """
    engine = JobEngine(arrival, gpus, work, total_gpus, discipline, deadline=deadline,
                       preemptive=preemptive, backfill=backfill, overhead=overhead,
                       tick_s=tick_s, gpus_per_node=gpus_per_node)
    engine.run()
    return engine.result()
