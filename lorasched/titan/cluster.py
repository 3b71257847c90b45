"""TITAN's scheduler as an event-driven loop (SoCC'22 sec. 3-4): the MILP re-solved "in the
events of job completion and job submission", merged jobs, switch costs.

:class:`TitanCluster` holds the whole state (``snapshot``/``restore``, the project's
online-loop convention) and advances epoch by epoch: all events at one instant form one
epoch (completions, then arrivals, then one decision).

The decision (sec. 3, eqs. 1-4, or with merging sec. 4.2, eqs. 5-11):

* ``preemptive=False`` (default; the paper: "We design a non-preemptive scheduler"): the
  MILP's N pending jobs are the jobs that arrived and have not started; M is the GPUs the
  running jobs leave free. A started job keeps its allocation until it finishes.
* ``preemptive=True`` (the authors' later code, which re-solves and restarts running jobs
  whose allocation changes; an option): every unit in the system is a candidate and M is
  the whole cluster; a running unit whose chosen allocation differs is stopped (its
  progress kept) and, if given GPUs again, restarts and pays the switch again.

``T[i, a] = 1 / (iter_s[i, a] * iterations_i)``: progress per second over the *total*
iterations, the paper's definition (sec. 3), passed to the MILP per hour (x 3600, the same
argmax with better-scaled coefficients).

Merged jobs (``merge=True``): the candidate sets are formed among the pending jobs that
never started, by ``candidates``:

* ``"pairs"`` (default): within an application, the jobs sorted by length and each paired
  with the next: the pairs of closest durations, which the paper's Table 2 shows are the
  merges that pay (case 1), in a number linear in the jobs;
* ``"all_pairs"``: every pair within an application (quadratic: a backlog of a few
  hundred jobs makes MILPs of tens of thousands of binaries; for small instances);
* ``"application"``: one set per application holding all of them (the authors' code).

The paper says only that candidates are subsets. Pairs are lorasched's reading because the
paper's constraint (10) is written for candidate sets that overlap (with disjoint sets it
says nothing) and its Table 2 reasons about two-job merges.
A merged job trains the members' datasets together at the
batch of its longest member and ends when all targets are met, after
``merged_iterations`` (:func:`merged_iterations`).

The switch (sec. 4.3): each start on ``a`` GPUs spends ``switch_s[a]`` seconds loading
parameters before any progress.
"""

from __future__ import annotations

import math
import time
from itertools import combinations

import numpy as np

from .milp import CONSTRAINTS, solve_allocation, solve_with_merging
from .scenario import TitanArrays
from .schedule import Recorder, Schedule

#: the authors' fitted law of iterations against dataset scale S (samples), first commit:
#: iterations = P0 + P1 * ln(S) (fit.py on three points; used for merged jobs' length)
LOG_LAW = (-6761.0, 2327.0)
#: how a merged job's length is computed, see merged_iterations
MERGE_LENGTHS = ("log", "sum")
CANDIDATES = ("pairs", "all_pairs", "application")


def merged_iterations(iterations, scale, rule: str = "log") -> float:
    """Iterations of the merged job of members with ``iterations`` and dataset ``scale``.

    ``"log"`` (default): the authors' law that iterations grow with the log of the dataset
    scale, L(S) = P0 + P1 ln S (:data:`LOG_LAW`), applied to the summed scale relative to
    the longest member: ``N_max * L(sum S) / L(S of N_max)``; two jobs on one dataset of
    75,000 samples (imagenet-split-1) then take about 8 % longer merged than the longer
    one alone. ``"sum"``:
    the merged job does all the members' iterations (no saving; merging then helps only by
    packing). The paper gives no formula; its Table 2 only shows merged durations.
    """
    it = np.asarray(iterations, dtype=float)
    sc = np.asarray(scale, dtype=float)
    if rule == "sum":
        return float(it.sum())
    if rule != "log":
        raise ValueError(f"merge_length must be one of {MERGE_LENGTHS}, got {rule!r}")
    longest = int(np.argmax(it))
    p0, p1 = LOG_LAW
    law = p0 + p1 * math.log(float(sc.sum()))
    base = p0 + p1 * math.log(float(sc[longest]))
    if base <= 0:  # scale below the law's range: fall back to proportional scaling
        return float(it[longest] * sc.sum() / sc[longest])
    return float(it[longest] * law / base)


class TitanCluster:
    """State of one TITAN run (module docstring). ``switch_s`` is the switch cost per
    allocation column (seconds, aligned with ``arrays.allocations``)."""

    STATE = ("now", "cursor", "pending", "waiting_jobs", "running", "units", "epochs",
             "record")

    def __init__(self, arrays: TitanArrays, switch_s: np.ndarray, *, merge: bool = True,
                 preemptive: bool = False, constraints: str = "pairwise",
                 candidates: str = "pairs", merge_length: str = "log"):
        if candidates not in CANDIDATES:
            raise ValueError(f"candidates must be one of {CANDIDATES}, got {candidates!r}")
        if constraints not in CONSTRAINTS:
            raise ValueError(f"constraints must be one of {CONSTRAINTS}, got {constraints!r}")
        if merge_length not in MERGE_LENGTHS:
            raise ValueError(f"merge_length must be one of {MERGE_LENGTHS}, got "
                             f"{merge_length!r}")
        self.a = arrays
        self.switch_s = np.asarray(switch_s, dtype=float)
        self.merge, self.preemptive = bool(merge), bool(preemptive)
        self.constraints, self.candidates = constraints, candidates
        self.merge_length = merge_length
        self._order = np.argsort(arrays.submit, kind="stable")
        self._arrival = arrays.submit[self._order]
        self.record = Recorder()
        self.now = -math.inf
        self.cursor = 0
        self.pending: list[int] = []       # stopped units waiting (preemptive only)
        self.waiting_jobs: list[int] = []  # jobs arrived and never started (no unit yet)
        self.running: list[int] = []   # unit ids on GPUs
        # per unit: [iters_total, frac_left, batch, gpus, start, switch_end, end]
        self.units: list[list] = []
        self.epochs = 0

    # -- state ---------------------------------------------------------------------------
    def snapshot(self) -> dict:
        rec = self.record
        return {"now": self.now, "cursor": self.cursor, "pending": list(self.pending),
                "waiting_jobs": list(self.waiting_jobs), "running": list(self.running),
                "units": [list(u) for u in self.units], "epochs": self.epochs,
                "record": (list(rec.units), list(rec.segments), list(rec.parts),
                           list(rec.decisions))}

    def restore(self, state: dict) -> None:
        self.now, self.cursor, self.epochs = state["now"], state["cursor"], state["epochs"]
        self.pending = list(state["pending"])
        self.waiting_jobs = list(state["waiting_jobs"])
        self.running = list(state["running"])
        self.units = [list(u) for u in state["units"]]
        rec = Recorder()
        rec.units, rec.segments, rec.parts, rec.decisions = (list(x) for x in state["record"])
        self.record = rec

    @property
    def done(self) -> bool:
        return (self.cursor == self._arrival.size and not self.running and not self.pending
                and not self.waiting_jobs)

    # -- loop ----------------------------------------------------------------------------
    def next_epoch(self) -> float:
        t = float(self._arrival[self.cursor]) if self.cursor < self._arrival.size else math.inf
        for u in self.running:
            t = min(t, self.units[u][6])
        return t

    def step(self) -> bool:
        t = self.next_epoch()
        if t == math.inf:
            if self.pending or self.waiting_jobs:
                raise RuntimeError("TITAN: jobs wait with nothing running and no event left "
                                   "(no allocation is offered to them)")
            return False
        self.now = t
        for u in [u for u in self.running if self.units[u][6] <= t]:
            self._stop(u, t, finished=True)
        hi = int(np.searchsorted(self._arrival, t, side="right"))
        self.waiting_jobs.extend(int(j) for j in self._order[self.cursor:hi])
        self.cursor = hi
        self._decide()
        self.epochs += 1
        return True

    def run(self) -> Schedule:
        while self.step():
            pass
        return self.record.schedule()

    # -- units ---------------------------------------------------------------------------
    def _iter_s(self, batch: int, gpus: int) -> float:
        c = int(np.searchsorted(self.a.allocations, gpus))
        return float(self.a.iter_s[batch, c])

    def _new_unit(self, members, iters: float, batch: int) -> int:
        uid = self.record.unit(members)
        self.units.append([float(iters), 1.0, int(batch), 0, math.nan, math.nan, math.nan])
        return uid

    def _start(self, u: int, gpus: int, t: float) -> None:
        unit = self.units[u]
        c = int(np.searchsorted(self.a.allocations, gpus))
        switch_end = t + float(self.switch_s[c])
        unit[3], unit[4], unit[5] = int(gpus), t, switch_end
        unit[6] = switch_end + unit[1] * unit[0] * self._iter_s(unit[2], gpus)
        self.running.append(u)

    def _stop(self, u: int, t: float, *, finished: bool) -> None:
        unit = self.units[u]
        total, left, batch, gpus, start, switch_end, _ = unit
        if finished:
            progress = left
            unit[1] = 0.0
        else:
            ran = max(0.0, t - switch_end)
            progress = min(left, ran / (total * self._iter_s(batch, gpus)))
            unit[1] = left - progress
        self.record.interval(u, gpus, start, switch_end, t, progress)
        unit[3], unit[4], unit[5], unit[6] = 0, math.nan, math.nan, math.nan
        self.running.remove(u)
        if not finished:
            self.pending.append(u)

    # -- the decision --------------------------------------------------------------------
    def _progress(self, iters: np.ndarray, batch: np.ndarray, allocs: np.ndarray) -> np.ndarray:
        cols = np.searchsorted(self.a.allocations, allocs)
        return 3600.0 / (self.a.iter_s[batch][:, cols] * iters[:, None])  # eq. (1), per hour

    def _groups(self, jobs: list[int]) -> list[tuple[int, ...]]:
        by_app: dict[int, list[int]] = {}
        for pos, j in enumerate(jobs):
            by_app.setdefault(int(self.a.app[j]), []).append(pos)
        groups = []
        for app in sorted(by_app):
            members = by_app[app]
            if len(members) < 2:
                continue
            if self.candidates == "application":
                groups.append(tuple(members))
            elif self.candidates == "all_pairs":
                groups.extend(combinations(members, 2))
            else:  # neighbours by length (ties by arrival order in the list)
                ranked = sorted(members, key=lambda p: (self.a.iterations[jobs[p]], p))
                groups.extend(tuple(sorted(pair))
                              for pair in zip(ranked, ranked[1:], strict=False))
        return groups

    def _decide(self) -> None:
        M = self.a.gpus
        if self.preemptive:
            free = M
            units = list(self.running) + list(self.pending)
        else:
            free = M - sum(self.units[u][3] for u in self.running)
            units = list(self.pending)  # empty: non-preemptive units never stop early
        jobs = list(self.waiting_jobs)
        if free <= 0 or not (units or jobs):
            return
        allocs = self.a.allocations[self.a.allocations <= free]
        a = self.a
        # candidates: existing units first (preemptive), then never-started jobs
        u_iters = np.array([self.units[u][0] for u in units], dtype=float)
        u_batch = np.array([self.units[u][2] for u in units], dtype=np.int64)
        j_iters = a.iterations[jobs].astype(float)
        T = self._progress(np.r_[u_iters, j_iters], np.r_[u_batch, a.batch[jobs]], allocs)
        groups = self._groups(jobs) if self.merge else []
        offset = len(units)
        clock = time.perf_counter()
        if groups:
            g_iters, g_batch = [], []
            for g in groups:
                members = [jobs[p] for p in g]
                g_iters.append(merged_iterations(a.iterations[members], a.scale[members],
                                                 self.merge_length))
                g_batch.append(a.batch[members[int(np.argmax(a.iterations[members]))]])
            merged_T = self._progress(np.array(g_iters), np.array(g_batch, dtype=np.int64),
                                      allocs)
            sol = solve_with_merging(T, merged_T, [tuple(offset + p for p in g) for g in groups],
                                     free, tuple(allocs.tolist()), self.constraints)
            group_gpus = sol.group_gpus
        else:
            sol = solve_allocation(T, free, tuple(allocs.tolist()))
            group_gpus = ()
        self.record.decision(self.now, len(units) + len(jobs) + len(groups),
                             time.perf_counter() - clock)
        gpus = sol.gpus
        t = self.now
        # units already in the system (preemptive only): stop those whose allocation changes
        for pos, u in enumerate(units):
            g = int(gpus[pos])
            if u in self.running:
                if g == self.units[u][3]:
                    continue
                self._stop(u, t, finished=False)
            if g > 0:
                self.pending.remove(u)
                self._start(u, g, t)
        started: set[int] = set()
        for k, g in enumerate(group_gpus):
            if g > 0:
                members = [jobs[p] for p in groups[k]]
                uid = self._new_unit(members, g_iters[k], g_batch[k])
                self._start(uid, int(g), t)
                started.update(members)
        for pos, j in enumerate(jobs):
            g = int(gpus[offset + pos])
            if g > 0:
                uid = self._new_unit([j], float(a.iterations[j]), int(a.batch[j]))
                self._start(uid, g, t)
                started.add(j)
        self.waiting_jobs = [j for j in jobs if j not in started]


def run_titan(arrays: TitanArrays, switch_s: np.ndarray, **options) -> Schedule:
    """Run TITAN to the end on ``arrays`` (options of :class:`TitanCluster`)."""
    return TitanCluster(arrays, switch_s, **options).run()
