"""TITAN's scheduler as an event-driven loop (SoCC'22 sec. 3-4, :class:`TitanCluster`): the
MILP re-solved at submissions and completions (or on a tick), merged jobs, switch costs, and
the options of the authors' code (their rules: :mod:`.authors_rules`). Every option:
:doc:`/reference/titan_scheduler`. A decision is the candidates (:meth:`TitanCluster.offer`),
the MILP's choice (``plan``) and its start (``apply``), so that another policy may choose in
the MILP's place (:mod:`.env`).
"""

from __future__ import annotations

import contextvars
import math
import time
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from tqdm import tqdm

from ..jobsim.engine import on_tick
from ..model.errors import InputError
from .authors_rules import AuthorsCodeRules
from .decisions import Recorder, Schedule
from .merging import MERGE_LENGTHS, merged_iterations
from .milp import CONSTRAINTS, each_at_its_best, solve_allocation, solve_with_merging
from .scenario import TitanArrays

CANDIDATES = ("pairs", "all_pairs", "application", "cross_dataset")
#: the MILP's objective: eq. (1) or the authors' code's FAIR (module docstring)
OBJECTIVES = ("paper", "authors_fair")
#: which candidates the MILP sees: all, or the M with least work left (the authors' code)
KEEP = ("all", "shortest")
#: the widths the MILP may give a job: any of the set A, or only the one nearest its request
WIDTHS = ("elastic", "requested")
#: the remaining times the authors' FAIR objective and the ``shortest`` cut read: the true
#: ones, or the authors' simulator's estimate (``predict_remaining_time``: one accumulation
#: micro-step per iteration too many, rounded to whole seconds)
ESTIMATES = ("exact", "authors")
#: where a started unit's GPUs come from: one pool (the paper's), or nodes, a unit starting
#: only on the fewest its width needs, the widest first, else waiting (the authors' code:
#: their consolidating placement, ``jobsim.engine.fewest_nodes``)
PLACEMENTS = ("pooled", "fewest_nodes")


@dataclass(frozen=True, eq=False)
class Offer:
    """The candidates of one decision of :class:`TitanCluster` (:meth:`TitanCluster.offer`).

    Parameters
    ----------
    free : int
        The GPUs to allocate (all M when preemptive).
    allocs : numpy.ndarray
        The allocations of the set A that fit in ``free``.
    units : list of int
        Units already in the system (stopped or running; preemptive only), offered first.
    jobs : list of int
        Jobs never started, in arrival order, offered after the units.
    iters, batch, left : numpy.ndarray
        Per unit and job: iterations in all, the row of ``iter_s``, the fraction left.
    groups : list of tuple of int
        Merge candidates, each a tuple of positions in ``jobs`` (eqs. 5-11).
    g_iters, g_batch : list
        Per merge candidate: the merged job's iterations and row of ``iter_s``.
    """

    free: int
    allocs: np.ndarray
    units: list
    jobs: list
    iters: np.ndarray
    batch: np.ndarray
    left: np.ndarray
    groups: list
    g_iters: list
    g_batch: list

    @property
    def size(self) -> int:
        """Units, jobs and merge candidates offered."""
        return len(self.units) + len(self.jobs) + len(self.groups)


#: whether :meth:`TitanCluster.run` shows a bar of finished jobs: set for one run by
#: :func:`lorasched.titan.system.simulate` (``progress=True``, ``lorasched simulate
#: --system titan --progress``), so that no policy needs the option
SHOW_PROGRESS = contextvars.ContextVar("titan_progress", default=False)


class TitanCluster(AuthorsCodeRules):
    """State of one TITAN run (module docstring). ``switch_s`` is the switch cost per
    allocation column (seconds, aligned with ``arrays.allocations``)."""

    STATE = ("now", "cursor", "pending", "waiting_jobs", "running", "units", "epochs",
             "record", "taken")

    def __init__(self, arrays: TitanArrays, switch_s: np.ndarray, *, merge: bool = True,
                 preemptive: bool = False, constraints: str = "pairwise",
                 candidates: str = "pairs", merge_length: str = "log",
                 restart_cost: bool = True, tick_s: float = 0.0, keep: str = "all",
                 objective: str = "paper", width: str = "elastic",
                 estimate: str = "exact", placement: str = "pooled"):
        for name, value, allowed in (("objective", objective, OBJECTIVES),
                                     ("keep", keep, KEEP), ("width", width, WIDTHS),
                                     ("estimate", estimate, ESTIMATES),
                                     ("placement", placement, PLACEMENTS)):
            if value not in allowed:
                raise InputError(f"{name} must be one of {allowed}, got {value!r}")
        if placement == "fewest_nodes" and (arrays.gpus_per_node <= 0
                                            or arrays.gpus % arrays.gpus_per_node):
            raise InputError("placement='fewest_nodes' needs a scenario that records its "
                             "'gpus_per_node' (dividing its GPUs)")
        self.placement = placement
        if merge_length == "authors" and (arrays.dataset_index is None
                                          or candidates == "application"):
            raise InputError("merge_length='authors' merges pairs (not candidates="
                             "'application') on a scenario of setup 'authors_code' (its "
                             "'dataset_index' and the merged batches' step times)")
        if estimate == "authors" and arrays.estimated_width_s is None:
            raise InputError("estimate='authors' needs a scenario built with "
                             "setup='authors_code' (its 'estimated_width_s')")
        self.estimate = estimate
        if objective == "authors_fair" and merge and candidates != "cross_dataset":
            raise InputError("objective='authors_fair' is modelled without the task merger "
                             "(the authors' main experiment runs it so), or with their "
                             "merger only: use merge=False or candidates='cross_dataset'")
        if (isinstance(tick_s, bool) or not isinstance(tick_s, int | float)
                or not math.isfinite(tick_s) or tick_s < 0):
            raise InputError(f"tick_s must be a non-negative number of seconds (0: "
                             f"event-driven), got {tick_s!r}")
        self.restart_cost, self.tick_s = bool(restart_cost), float(tick_s)
        self.keep, self.objective, self.width = keep, objective, width
        if candidates not in CANDIDATES:
            raise InputError(f"candidates must be one of {CANDIDATES}, got {candidates!r}")
        if constraints not in CONSTRAINTS:
            raise InputError(f"constraints must be one of {CONSTRAINTS}, got {constraints!r}")
        if merge_length not in MERGE_LENGTHS:
            raise InputError(f"merge_length must be one of {MERGE_LENGTHS}, got "
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
        # placement="fewest_nodes": the GPUs a running unit holds on each node
        self.taken: dict[int, list[int]] = {}

    # -- state ---------------------------------------------------------------------------
    def snapshot(self) -> dict:
        rec = self.record
        return {"now": self.now, "cursor": self.cursor, "pending": list(self.pending),
                "waiting_jobs": list(self.waiting_jobs), "running": list(self.running),
                "units": [list(u) for u in self.units], "epochs": self.epochs,
                "taken": {u: list(t) for u, t in self.taken.items()},
                "record": (list(rec.units), list(rec.segments), list(rec.parts),
                           list(rec.decisions))}

    def restore(self, state: dict) -> None:
        self.now, self.cursor, self.epochs = state["now"], state["cursor"], state["epochs"]
        self.pending = list(state["pending"])
        self.waiting_jobs = list(state["waiting_jobs"])
        self.running = list(state["running"])
        self.units = [list(u) for u in state["units"]]
        self.taken = {u: list(t) for u, t in state.get("taken", {}).items()}
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
        if self.tick_s > 0 and self.preemptive and (self.running or self.pending):
            # the authors' loop: a preemptive TITAN re-solves at every tick
            t = min(t, float(np.nextafter(self.now, math.inf)))
        return on_tick(t, self.tick_s)

    def advance(self) -> bool:
        """Move to the next scheduling event: close the units that finished by then and
        queue the jobs submitted by then; False when no event is left (the run is over)."""
        t = self.next_epoch()
        if t == math.inf:
            if self.pending or self.waiting_jobs:
                raise RuntimeError("TITAN: jobs wait with nothing running and no event left "
                                   "(no allocation is offered to them)")
            return False
        self.now = t
        done = sorted((self.units[u][6], u) for u in self.running if self.units[u][6] <= t)
        for end, u in done:  # at its own end (before the tick when ticking)
            self._stop(u, end, finished=True)
        hi = int(np.searchsorted(self._arrival, t, side="right"))
        self.waiting_jobs.extend(int(j) for j in self._order[self.cursor:hi])
        self.cursor = hi
        return True

    def step(self) -> bool:
        if not self.advance():
            return False
        self._decide()
        self.epochs += 1
        return True

    def run(self) -> Schedule:
        with tqdm(total=int(self._arrival.size), desc="titan", unit="job",
                  disable=not SHOW_PROGRESS.get()) as bar:
            while self.step():
                if not bar.disable:  # the members of every unit run to its end
                    done = sum(len(self.record.units[u]) for u, unit in enumerate(self.units)
                               if unit[1] == 0.0)
                    bar.update(done - bar.n)
        return self.record.schedule()

    # -- units ---------------------------------------------------------------------------
    def _iter_s(self, batch: int, gpus: int) -> float:
        c = int(np.searchsorted(self.a.allocations, gpus))
        return float(self.a.iter_s[batch, c])

    def _new_unit(self, members, iters: float, batch: int) -> int:
        uid = self.record.unit(members)
        self.units.append([float(iters), 1.0, int(batch), 0, math.nan, math.nan, math.nan])
        return uid

    def _start(self, u: int, gpus: int, t: float, take=None) -> None:
        unit = self.units[u]
        if take is not None:
            self.taken[u] = [int(x) for x in take]
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
        self.taken.pop(u, None)
        unit[3], unit[4], unit[5], unit[6] = 0, math.nan, math.nan, math.nan
        self.running.remove(u)
        if not finished:
            self.pending.append(u)

    # -- the decision --------------------------------------------------------------------
    def _progress(self, iters: np.ndarray, batch: np.ndarray, allocs: np.ndarray) -> np.ndarray:
        cols = np.searchsorted(self.a.allocations, allocs)
        return 3600.0 / (self.a.iter_s[batch][:, cols] * iters[:, None])  # eq. (1), per hour

    def _groups(self, jobs: list[int]) -> list[tuple[int, ...]]:
        if self.candidates == "cross_dataset":
            return self._cross_dataset(jobs)
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

    def _shortest(self, units: list[int], jobs: list[int], M: int):
        """The authors' code's cut: only the ``M`` candidates with the least work left on
        one GPU (ties by position) reach the MILP; a running unit cut off is stopped."""
        if self.estimate == "authors":
            work = [float(self._estimated(self.units[u][1] * self.units[u][0],
                                          self.units[u][2], 1)) for u in units]
            work += [float(self._estimated(self.a.iterations[j], self.a.batch[j], 1))
                     for j in jobs]
        else:
            one = int(np.searchsorted(self.a.allocations, 1))
            work = [self.units[u][1] * self.units[u][0] * self._iter_s(self.units[u][2], 1)
                    for u in units]
            work += [float(self.a.iterations[j] * self.a.iter_s[self.a.batch[j], one])
                     for j in jobs]
        work = np.nan_to_num(np.array(work, dtype=float), nan=math.inf)
        if work.size <= M:
            return units, jobs
        keep = set(np.argsort(work, kind="stable")[:M].tolist())
        for pos, u in enumerate(units):
            if pos not in keep and u in self.running:
                self._stop(u, self.now, finished=False)
        return ([u for pos, u in enumerate(units) if pos in keep],
                [j for pos, j in enumerate(jobs) if len(units) + pos in keep])

    def _with_restarts(self, T: np.ndarray, units: list[int], work: np.ndarray,
                       batch: np.ndarray, allocs: np.ndarray) -> np.ndarray:
        """eq. (1)'s rate times ``D / (D + s)`` (module docstring, ``restart_cost``)."""
        cols = np.searchsorted(self.a.allocations, allocs)
        D = work[:, None] * self.a.iter_s[batch][:, cols]       # seconds of work left
        s = np.broadcast_to(self.switch_s[cols], D.shape).copy()
        for pos, u in enumerate(units):
            if u in self.running:
                s[pos, allocs == self.units[u][3]] = 0.0  # stays: no restart
        return T * D / (D + s)

    def _held(self, T: np.ndarray, members: list, batch: np.ndarray,
              allocs: np.ndarray) -> np.ndarray:
        """``T`` with each candidate held to one width (``width="requested"``): of the set
        A's allocations its batch has a step time on, the nearest to its members' largest
        request (the smaller of two as near); nan elsewhere, and everywhere while that
        width is not free."""
        a = self.a
        out = np.full_like(T, np.nan)
        for i, (m, b) in enumerate(zip(members, batch, strict=True)):
            ok = a.allocations[np.isfinite(a.iter_s[b])]
            if not ok.size:
                continue
            want = int(a.requested_gpus[m].max())
            width = int(ok[np.argmin(np.abs(ok - want))])
            out[i, allocs == width] = T[i, allocs == width]
        return out

    def _merged(self, members: list[int]) -> tuple[float, int]:
        """(iterations, row of ``iter_s``) of a merged unit: :func:`merged_iterations` at
        the longest member's batch; ``merge_length="authors"``: job A's samples at the
        two batches summed, their merged job's batch (:meth:`_ordered`)."""
        a = self.a
        if self._authors_pair(members):
            first = self._ordered(members)[0]
            total = int(sum(a.batch_sizes[a.batch[j]] for j in members))
            row = int(np.searchsorted(a.batch_sizes, total))
            if row < a.batch_sizes.size and a.batch_sizes[row] == total:
                samples = float(a.iterations[first] * a.batch_sizes[a.batch[first]])
                return samples / total, row
            raise InputError(f"merge_length='authors': the scenario has no step times at "
                             f"the merged batch {total} (a scenario of setup "
                             "'authors_code' has every sum of two batches)")
        iters = merged_iterations(a.iterations[members], a.scale[members],
                                  self.merge_length)
        return iters, int(a.batch[members[int(np.argmax(a.iterations[members]))]])

    def offer(self) -> Offer | None:
        """The candidates of the decision at this event (module docstring), or None when
        there is nothing to decide (no GPU free or nothing waiting). With ``keep =
        "shortest"`` it first stops the running units that the cut leaves out."""
        M = self.a.gpus
        if self.preemptive:
            free = M
            units = list(self.running) + list(self.pending)
        else:
            free = M - sum(self.units[u][3] for u in self.running)
            units = list(self.pending)  # empty: non-preemptive units never stop early
        jobs = list(self.waiting_jobs)
        if free <= 0 or not (units or jobs):
            return None
        if self.keep == "shortest":
            units, jobs = self._shortest(units, jobs, M)
        a = self.a
        # candidates: existing units first (preemptive), then never-started jobs
        u_iters = np.array([self.units[u][0] for u in units], dtype=float)
        u_batch = np.array([self.units[u][2] for u in units], dtype=np.int64)
        u_left = np.array([self.units[u][1] for u in units], dtype=float)
        groups = self._groups(jobs) if self.merge else []
        g_iters, g_batch = [], []
        for g in groups:
            iters, row = self._merged([jobs[p] for p in g])
            g_iters.append(iters)
            g_batch.append(row)
        return Offer(free=free, allocs=a.allocations[a.allocations <= free],
                     units=units, jobs=jobs,
                     iters=np.r_[u_iters, a.iterations[jobs].astype(float)],
                     batch=np.r_[u_batch, a.batch[jobs]],
                     left=np.r_[u_left, np.ones(len(jobs))],
                     groups=groups, g_iters=g_iters, g_batch=g_batch)

    def plan(self, offer: Offer) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """TITAN's choice on ``offer``: the MILP's GPUs per unit and job (in the offer's
        order) and per merge candidate (eqs. 1-4, or 5-11 with merge candidates)."""
        M = self.a.gpus
        units, jobs, groups = offer.units, offer.jobs, offer.groups
        allocs, iters, batch, left = offer.allocs, offer.iters, offer.batch, offer.left
        if self.objective == "authors_fair":
            T = self._authors_fair(iters * left, batch, allocs, M)
        else:
            T = self._progress(iters, batch, allocs)
            if self.preemptive and self.restart_cost:
                T = self._with_restarts(T, units, iters * left, batch, allocs)
        offset = len(units)
        if self.width == "requested":
            members = [self.record.units[u] for u in units] + [[j] for j in jobs]
            T = self._held(T, members, batch, allocs)
        if groups:
            if self.objective == "authors_fair":
                merged_T = self._authors_merged(jobs, groups, offer.g_iters, offer.g_batch,
                                                allocs, M, len(units) + len(jobs))
            else:
                merged_T = self._progress(np.array(offer.g_iters),
                                          np.array(offer.g_batch, dtype=np.int64), allocs)
            if self.width == "requested":
                merged_T = self._held(merged_T, [[jobs[p] for p in g] for g in groups],
                                      np.array(offer.g_batch, dtype=np.int64), allocs)
            sol = solve_with_merging(T, merged_T, [tuple(offset + p for p in g) for g in groups],
                                     offer.free, tuple(allocs.tolist()), self.constraints)
            return tuple(sol.gpus), tuple(sol.group_gpus)
        sol = (each_at_its_best(T, offer.free, allocs) if self.tick_s > 0 else None) \
            or solve_allocation(T, offer.free, tuple(allocs.tolist()))
        return tuple(sol.gpus), ()

    def apply(self, offer: Offer, gpus, group_gpus) -> None:
        """Carry out an allocation of ``offer`` at this event: ``gpus`` per unit and job
        (the offer's order), ``group_gpus`` per merge candidate (0 = none); a unit whose
        allocation changes is stopped and restarted, paying its switch."""
        if self.placement == "fewest_nodes":
            return self._apply_on_nodes(offer, gpus, group_gpus)
        a, t = self.a, self.now
        units, jobs, groups = offer.units, offer.jobs, offer.groups
        offset = len(units)
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
                uid = self._new_unit(members, offer.g_iters[k], offer.g_batch[k])
                self._start(uid, int(g), t)
                started.update(members)
        for pos, j in enumerate(jobs):
            g = int(gpus[offset + pos])
            if g > 0:
                uid = self._new_unit([j], float(a.iterations[j]), int(a.batch[j]))
                self._start(uid, g, t)
                started.add(j)
        self.waiting_jobs = [j for j in self.waiting_jobs if j not in started]

    def _decide(self) -> None:
        offer = self.offer()
        if offer is None:
            return
        clock = time.perf_counter()
        gpus, group_gpus = self.plan(offer)
        self.record.decision(self.now, offer.size, time.perf_counter() - clock)
        self.apply(offer, gpus, group_gpus)


def run_titan(arrays: TitanArrays, switch_s: np.ndarray, **options) -> Schedule:
    """Run TITAN to the end on ``arrays`` (options of :class:`TitanCluster`)."""
    return TitanCluster(arrays, switch_s, **options).run()
