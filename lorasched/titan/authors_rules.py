"""The TITAN authors' code's rules that :class:`~lorasched.titan.cluster.TitanCluster`
follows on request, each behind an option of its own: their remaining-time estimate
(``estimate``), their FAIR objective (``objective="authors_fair"``), their merge
candidates and merged pair (``candidates="cross_dataset"``, ``merge_length="authors"``)
and their placement on nodes (``placement="fewest_nodes"``). Which simulator does what
the paper describes: :doc:`/reference/titan_scheduler`."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

from ..jobsim.engine import fewest_nodes

#: the authors' code's cost of leaving a candidate without GPUs (weight 1e-4, power -1)
NO_ALLOCATION_COST = 1e4


class AuthorsCodeRules:
    """The authors' code's rules, mixed into :class:`~lorasched.titan.cluster.TitanCluster`
    (whose state they read: ``a``, ``units``, ``running``, ``taken``, ``tick_s`` and the
    options)."""

    def _free_nodes(self) -> np.ndarray:
        """Free GPUs per node (``placement="fewest_nodes"``)."""
        per = self.a.gpus_per_node
        free = np.full(self.a.gpus // per, per, dtype=np.int64)
        for take in self.taken.values():
            free -= np.asarray(take, dtype=np.int64)
        return free

    def _remaining_s(self, work: np.ndarray, batch: np.ndarray, gpus) -> np.ndarray:
        """Seconds of ``work`` iterations left at each candidate's batch on ``gpus`` (one
        count per candidate), step times interpolated linearly between offered
        allocations (nan where none is offered)."""
        out = np.full(work.size, np.nan)
        for i, (w, b, g) in enumerate(zip(work, batch, gpus, strict=True)):
            row = self.a.iter_s[b]
            ok = np.isfinite(row)
            if ok.any():
                out[i] = w * float(np.interp(g, self.a.allocations[ok], row[ok]))
        return out

    def _estimated(self, work, batch, gpus):
        """The authors' estimate of the seconds ``work`` iterations take at ``batch`` on
        ``gpus`` (scalars or arrays, broadcast), whole seconds; nan where none."""
        est = self.a.estimated_width_s
        return np.round(np.asarray(work, dtype=float)
                        * est[np.asarray(batch), np.asarray(gpus) - 1])

    def _fair_width(self, batch: int, fair: int) -> int:
        """The width the authors' FAIR reference runs a job on: ``fair``, or the largest
        width below it with an estimate (the job's cap)."""
        row = np.flatnonzero(np.isfinite(self.a.estimated_width_s[batch])) + 1
        below = row[row <= fair]
        return int(below.max()) if below.size else int(row.min())

    def _authors_fair(self, work: np.ndarray, batch: np.ndarray, allocs: np.ndarray,
                      M: int) -> np.ndarray:
        """The authors' FAIR objective as a maximisation (:mod:`lorasched.titan.cluster`):
        ``10^4 - max(R(a), tick) / max(R(fair), tick)``; nan where not offered."""
        fair = max(1, M // max(work.size, 1))
        cols = np.searchsorted(self.a.allocations, allocs)
        step = self.a.iter_s[batch][:, cols]                    # (n, A)
        if self.estimate == "authors":
            widths = np.array([self._fair_width(b, fair) for b in batch.tolist()],
                              dtype=np.int64)
            fair_s = self._estimated(work, batch, widths)
            R = np.where(np.isfinite(step),
                         self._estimated(work[:, None], batch[:, None], allocs[None, :]),
                         np.nan)
        else:
            largest = np.array([allocs[np.isfinite(r)].max() if np.isfinite(r).any() else 1
                                for r in step])
            fair_s = self._remaining_s(work, batch, np.minimum(fair, largest))
            R = work[:, None] * step
        tick = self.tick_s
        cost = np.maximum(R, tick) / np.maximum(fair_s, tick)[:, None]
        value = NO_ALLOCATION_COST - cost
        return np.where(value > 0, value, np.nan)  # costlier than none: never chosen

    def _authors_merged(self, jobs: list[int], groups, g_iters, g_batch, allocs: np.ndarray,
                        M: int, n: int) -> np.ndarray:
        """The authors' FAIR value of each merged pair (``objective``,
        :mod:`lorasched.titan.cluster`), divided by eq. (5)'s bonus (1 + 2) / 2 so that
        the MILP's bonus restores it: the pair's value is ``2 x 10^4`` (its cost left
        out) minus its cost on ``a``."""
        a, tick = self.a, self.tick_s
        fair = max(1, M // max(n, 1))
        cols = np.searchsorted(a.allocations, allocs)
        last = jobs[-1]
        r_last = float(a.iterations[last]) * a.iter_s[a.batch[last]][cols]      # (A,)
        if self.estimate == "authors":
            r_last = np.where(np.isfinite(r_last), self._estimated(
                float(a.iterations[last]), int(a.batch[last]), allocs), np.nan)
        out = np.full((len(groups), allocs.size), np.nan)
        for k, g in enumerate(groups):
            la, lb = self._pair_lengths([jobs[p] for p in g])
            reweight = (la + lb + min(la, lb)) / (2.0 * la)
            step = a.iter_s[g_batch[k]][cols]
            ok = np.isfinite(step)
            if not ok.any():
                continue
            if self.estimate == "authors":
                fair_s = float(self._estimated(g_iters[k], int(g_batch[k]),
                                               self._fair_width(int(g_batch[k]), fair)))
            else:
                fair_s = self._remaining_s(np.array([g_iters[k]]), np.array([g_batch[k]]),
                                           [min(fair, float(allocs[ok].max()))])[0]
            cost = np.maximum(r_last, tick) / (reweight * max(fair_s, tick))
            value = 2 * NO_ALLOCATION_COST - cost
            out[k] = np.where(ok & np.isfinite(value) & (value > 0), value / 1.5, np.nan)
        return out

    def _cross_dataset(self, jobs: list[int]) -> list[tuple[int, ...]]:
        """The authors' code's merge candidates (``mtask_builder``): pairs ``(A, B)`` of
        never-started jobs of different datasets, in arrival order, kept when the merged
        job's ``reweight = (L_A + L_B + min(L_A, L_B)) / (2 L_A)`` is at least 1.1 and,
        once its list holds ten entries (one per allocation, the empty one included, per
        pair kept), at least ``log10(entries) + 0.1`` (lengths ``L`` in iterations here;
        that code compares samples; so does ``_pair_lengths`` where the scenario has
        their dataset order)."""
        per_pair = self.a.allocations.size + 1
        kept: list[tuple[int, ...]] = []
        for p, q in combinations(range(len(jobs)), 2):
            if self.a.app[jobs[p]] == self.a.app[jobs[q]]:
                continue
            la, lb = self._pair_lengths([jobs[p], jobs[q]])
            reweight = (la + lb + min(la, lb)) / (2.0 * la)
            entries = len(kept) * per_pair
            if reweight < 1.1 or (entries >= 10 and reweight < math.log10(entries) + 0.1):
                continue
            kept.append((p, q))
        return kept

    def _authors_pair(self, members: list[int]) -> bool:
        """Whether a pair merges as the authors' code merges it (``merge_length=
        "authors"``)."""
        return self.merge_length == "authors" and len(members) == 2

    def _ordered(self, members: list[int]) -> list[int]:
        """A pair as the authors' code orders it: the job of the dataset earlier in their
        list first (``MtaskFoundationModelJob``), else the offer's order."""
        if not self._authors_pair(members):
            return list(members)
        return sorted(members, key=lambda j: int(self.a.dataset_index[j]))

    def _pair_lengths(self, members: list[int]) -> tuple[float, float]:
        """(L_A, L_B) of a pair, A first (:meth:`_ordered`): in samples (iterations x
        batch) where the pair merges as the authors' code merges it, else in iterations."""
        a = self.a
        first, second = self._ordered(members)
        if self._authors_pair(members):
            return tuple(float(a.iterations[j] * a.batch_sizes[a.batch[j]])
                         for j in (first, second))
        return float(a.iterations[first]), float(a.iterations[second])

    def _apply_on_nodes(self, offer, gpus, group_gpus) -> None:
        """:meth:`apply` on nodes, as the authors' code places a decision: a unit whose
        allocation changes is stopped; then every start, the widest first (ties: single
        jobs by their remaining time on one GPU, then merged ones), takes the fewest nodes
        its width needs (``fewest_nodes``), or, where none are free, waits for the next
        decision."""
        a, t = self.a, self.now
        units, jobs, groups = offer.units, offer.jobs, offer.groups
        offset = len(units)
        for pos, u in enumerate(units):
            if u in self.running and int(gpus[pos]) != self.units[u][3]:
                self._stop(u, t, finished=False)
        one = int(np.searchsorted(a.allocations, 1))
        starts = []  # (-gpus, rank, what, key)
        for pos, u in enumerate(units):
            g = int(gpus[pos])
            if g > 0 and u not in self.running:
                left = self.units[u][1] * self.units[u][0]
                starts.append((-g, self._rank(left, self.units[u][2], one), "unit", u))
        for pos, j in enumerate(jobs):
            g = int(gpus[offset + pos])
            if g > 0:
                starts.append((-g, self._rank(a.iterations[j], a.batch[j], one), "job", j))
        for k, g in enumerate(group_gpus):
            if g > 0:
                starts.append((-int(g), (math.inf, k), "group", k))
        started: set[int] = set()
        for neg, _, what, key in sorted(starts, key=lambda s: (s[0], s[1])):
            take = fewest_nodes(-neg, self._free_nodes(), a.gpus_per_node)
            if take is None:
                continue
            if what == "unit":
                self.pending.remove(key)
                self._start(key, -neg, t, take)
                continue
            if what == "group":
                members = [jobs[p] for p in groups[key]]
                uid = self._new_unit(members, offer.g_iters[key], offer.g_batch[key])
            else:
                members = [key]
                uid = self._new_unit(members, float(a.iterations[key]), int(a.batch[key]))
            self._start(uid, -neg, t, take)
            started.update(members)
        self.waiting_jobs = [j for j in self.waiting_jobs if j not in started]

    def _rank(self, work: float, batch: int, one: int) -> tuple[float, float]:
        """A start's place among equally wide ones: its remaining time on one GPU, as
        :meth:`_shortest` ranks."""
        if self.estimate == "authors":
            return (0.0, float(self._estimated(work, batch, 1)))
        return (0.0, float(work * self.a.iter_s[batch, one]))


__all__ = ["NO_ALLOCATION_COST", "AuthorsCodeRules"]
