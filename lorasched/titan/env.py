"""TITAN's allocation at each scheduling event as a decision problem for a policy of one's
own (:class:`AllocationProblem`): the candidates TITAN's MILP would be offered, a GPU count
chosen for each, and the job completion time accrued between events as the cost. Plain
numpy; ``lorasched.gym.titan`` wraps it for Gymnasium.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..model.errors import InputError
from .cluster import Offer, TitanCluster
from .decisions import RUN, Schedule
from .scenario import TitanArrays

#: the options of TITAN's loop (``lorasched.titan.cluster.TitanCluster``) it accepts
CLUSTER_OPTIONS = ("merge", "preemptive", "constraints", "candidates", "merge_length",
                   "restart_cost", "tick_s", "keep", "objective", "estimate", "placement")
#: the keys of :meth:`AllocationProblem.observe`
OBSERVATION = ("free_gpus", "time_s", "mask", "members", "remaining_iterations",
               "attained_gpu_s", "age_s", "gpus", "throughput", "action_mask", "conflicts")


def slot_bound(n_jobs: int, merge: bool = True, candidates: str = "pairs") -> int:
    """The most candidates one event can offer: every job (alone or in its unit) and every
    merge candidate the rule ``candidates`` can form of them.

    Parameters
    ----------
    n_jobs : int
        The scenario's jobs, J.
    merge : bool, optional
        Whether merge candidates are formed (default True).
    candidates : {"pairs", "all_pairs", "application", "cross_dataset"}, optional
        The rule that forms them (default ``"pairs"``: at most J - 1 pairs of neighbours;
        ``"application"``: at most J / 2 groups; the other two: every pair).

    Returns
    -------
    int
        J plus the merge candidates' bound (at least 1).
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs < 0:
        raise InputError(f"n_jobs must be a non-negative integer, got {n_jobs!r}")
    n = int(n_jobs)
    if not merge:
        groups = 0
    elif candidates == "pairs":
        groups = max(n - 1, 0)
    elif candidates == "application":
        groups = n // 2
    else:
        groups = n * (n - 1) // 2
    return max(1, n + groups)


class AllocationProblem:
    """TITAN's allocation problem, one step per scheduling event (module docstring).

    At every event at which TITAN's MILP would run (a submission or a completion, or a
    tick, with GPUs free and a candidate waiting), the policy sees the candidates, in
    slots: the units already in the system (preemptive setups only), then the never-started
    jobs in arrival order, then the merge candidates (eqs. 5-11), padded to ``max_units``
    (candidates beyond it get no GPUs at that event; a running unit among them stops). Its
    action is one index per slot into ``(0,) + allocations``: 0 = no GPUs, ``c + 1`` =
    ``allocations[c]`` GPUs. An action is feasible when each index is offered to its slot
    (the LUT has a step time there and it fits in the free GPUs), the GPUs add up to no
    more than the free ones (eq. 4), no job is in two slots given GPUs (eqs. 8-10,
    pairwise), and it does not leave every GPU idle with no submission left to come (the
    run would never end). A unit whose GPUs change restarts, paying its switch. The cost of
    a step is the job completion time accrued from its event to the next one (the sum over
    jobs in the system of the time elapsed, h; the first step's also counts what accrued
    before its event), so that the costs of an episode add up to the jobs' total JCT. The
    problem draws no random numbers but in :meth:`random_action`.

    Parameters
    ----------
    arrays : TitanArrays
        The scenario.
    rng : numpy.random.Generator
        Draws :meth:`random_action`'s choices.
    switch_s : numpy.ndarray
        Seconds of a switch per allocation (aligned with ``arrays.allocations``);
        :func:`lorasched.titan.policies.cluster_options` resolves a setup's.
    max_units : int, optional
        Slots of the observation and the action (default: :func:`slot_bound`, never
        exceeded).
    **options
        Options of TITAN's loop, ``TitanCluster`` (:data:`CLUSTER_OPTIONS`;
        ``constraints``, ``restart_cost`` and ``objective`` only shape
        :meth:`expert_action`).

    Raises
    ------
    InputError
        Naming the first argument or option out of its type or range.
    """

    def __init__(self, arrays: TitanArrays, rng: np.random.Generator, *, switch_s,
                 max_units: int | None = None, **options):
        if not isinstance(arrays, TitanArrays):
            raise InputError(f"arrays must be TitanArrays (lorasched.titan.to_arrays), got "
                             f"{type(arrays).__name__}")
        if not isinstance(rng, np.random.Generator):
            raise InputError(f"rng must be a numpy.random.Generator, got "
                             f"{type(rng).__name__}")
        unknown = sorted(set(options) - set(CLUSTER_OPTIONS))
        if unknown:
            raise InputError(f"unknown option(s) {unknown}; the problem accepts "
                             f"{list(CLUSTER_OPTIONS)}")
        for name in ("merge", "preemptive", "restart_cost"):
            if name in options and not isinstance(options[name], bool | np.bool_):
                raise InputError(f"{name!r} must be True or False, got {options[name]!r}")
        n_alloc = arrays.allocations.size
        cost = np.asarray(switch_s, dtype=float)
        if cost.shape != (n_alloc,) or not np.all(np.isfinite(cost) & (cost >= 0)):
            raise InputError(f"switch_s must hold {n_alloc} finite non-negative seconds, one "
                             f"per allocation, got {switch_s!r}")
        self.cluster = TitanCluster(arrays, cost, **options)
        n_jobs = int(arrays.submit.size)
        if max_units is None:
            max_units = slot_bound(n_jobs, self.cluster.merge, self.cluster.candidates)
        if (isinstance(max_units, bool) or not isinstance(max_units, numbers.Integral)
                or max_units < 1):
            raise InputError(f"max_units must be a positive integer, got {max_units!r}")
        self.a, self.rng, self.max_units = arrays, rng, int(max_units)
        self.allocations = arrays.allocations.astype(np.int64)
        self._finish = np.full(n_jobs, math.inf)  # per job, once its unit has finished
        self._seen = 0                             # segments read for finishes
        self._charged = -math.inf                  # JCT counted up to this time
        self._offer: Offer | None = None
        self._advance()

    # -- the episode -----------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """Whether the run is over (no decision is left)."""
        return self._offer is None

    @property
    def n_choices(self) -> int:
        """The number of indices per slot (no GPUs, then each allocation of the set A)."""
        return int(self.allocations.size) + 1

    def observe(self) -> dict[str, np.ndarray]:
        """The state at this event, arrays of fixed shapes (``U = max_units``, ``A``
        allocations).

        Returns
        -------
        dict of numpy.ndarray
            ``free_gpus`` (1,) the GPUs to allocate (all M when preemptive); ``time_s``
            (1,) the event's time; per slot (U,): ``mask`` 1 where a candidate is offered,
            ``members`` its jobs (2 or more: a merge candidate), ``remaining_iterations``,
            ``attained_gpu_s`` (GPU-seconds of run so far), ``age_s`` (time since its
            first member's submission), ``gpus`` (those it holds now); ``throughput``
            (U, A) iterations per second on each allocation (0: not offered);
            ``action_mask`` (U, A + 1) the indices each slot may take alone;
            ``conflicts`` (U, U) 1 where two slots share a job. After the last step, every
            slot is empty.
        """
        return {k: v.copy() for k, v in self._obs.items()}

    def action_mask(self) -> np.ndarray:
        """The indices each slot may take on its own at this event.

        Returns
        -------
        numpy.ndarray
            (max_units, A + 1) bool: index 0 everywhere; ``c + 1`` where the slot holds a
            candidate with a step time on ``allocations[c]`` GPUs and they are free.
            Jointly, an action must also fit the free GPUs and give no job two slots.
        """
        return self._obs["action_mask"].astype(bool)

    def step(self, action) -> tuple[float, bool]:
        """Allocate at this event and run to the next one.

        Parameters
        ----------
        action : array_like of int
            (max_units,) indices into ``(0,) + allocations``, one per slot.

        Returns
        -------
        reward : float
            Minus the job completion time accrued from this event to the next one,
            job-hours.
        done : bool
            Whether the run is over.

        Raises
        ------
        InputError
            If the run is over, or the action is infeasible (naming the slot and the rule).
        """
        if self.done:
            raise InputError("the run is over: no decision is left (see done)")
        act = self._check(action)
        gpus, group_gpus = self._decode(act)
        self.cluster.record.decision(self.cluster.now, self._n_slots, 0.0)
        self.cluster.apply(self._offer, gpus, group_gpus)
        self.cluster.epochs += 1
        self._advance()
        until = math.inf if self.done else self.cluster.now
        start, self._charged = self._charged, until
        return -self._accrued(start, until), self.done

    def output(self) -> Schedule:
        """The run's schedule, what a TITAN-system policy returns.

        Returns
        -------
        ~lorasched.titan.decisions.Schedule
            The run segments of every unit; each decision is recorded with 0 solver
            seconds.

        Raises
        ------
        InputError
            If the run is not over.
        """
        if not self.done:
            raise InputError("the run is not over: step until done before output()")
        return self.cluster.record.schedule()

    # -- actions -------------------------------------------------------------------------
    def clip(self, action) -> np.ndarray:
        """The feasible action nearest ``action`` by a fixed rule.

        Slot by slot, in order: an index out of range is clipped into ``[0, A]``; a slot
        with no candidate gets 0; an index not offered to the slot, or beyond the GPUs left
        by the slots before it, falls to the next lower one offered (0 at worst); a slot
        sharing a job with an earlier slot given GPUs gets 0. If that leaves every GPU idle
        where that is refused, the first slot with an offered allocation gets its smallest.

        Parameters
        ----------
        action : array_like of int
            (max_units,) indices.

        Returns
        -------
        numpy.ndarray
            (max_units,) int64, feasible.

        Raises
        ------
        InputError
            If the run is over or ``action`` does not have the shape (max_units,).
        """
        if self.done:
            raise InputError("the run is over: no decision is left (see done)")
        act = np.asarray(action)
        if act.shape != (self.max_units,):
            raise InputError(f"action must have shape ({self.max_units},), one index per "
                             f"slot, got shape {act.shape}")
        act = np.clip(np.nan_to_num(act.astype(float)), 0, self.n_choices - 1).astype(np.int64)
        mask = self._obs["action_mask"]
        out = np.zeros(self.max_units, dtype=np.int64)
        left, taken = self._offer.free, set()
        for s in range(self._n_slots):
            i = int(act[s])
            while i > 0 and (not mask[s, i] or self.allocations[i - 1] > left):
                i -= 1
            if i > 0 and not taken.isdisjoint(self._members[s]):
                i = 0
            if i > 0:
                out[s] = i
                left -= int(self.allocations[i - 1])
                taken.update(self._members[s])
        offered = np.flatnonzero(mask[:, 1:].any(axis=1))
        if not out.any() and offered.size and self._idle_refused():
            s = int(offered[0])
            out[s] = int(np.flatnonzero(mask[s, 1:])[0]) + 1
        return out

    def random_action(self) -> np.ndarray:
        """A random feasible action, drawn from the problem's generator.

        The slots are visited in a random order; each takes an index drawn uniformly among
        those still feasible (0 included). If every slot drew 0 while some allocation is
        offered, one offered (slot, allocation) pair is drawn uniformly instead, so that
        each event starts something and the run ends.

        Returns
        -------
        numpy.ndarray
            (max_units,) int64.

        Raises
        ------
        InputError
            If the run is over.
        """
        if self.done:
            raise InputError("the run is over: no decision is left (see done)")
        mask = self._obs["action_mask"].astype(bool)
        out = np.zeros(self.max_units, dtype=np.int64)
        left, taken = self._offer.free, set()
        for s in self.rng.permutation(self._n_slots).tolist():
            if not taken.isdisjoint(self._members[s]):
                continue
            choices = [0] + [i for i in range(1, self.n_choices)
                             if mask[s, i] and self.allocations[i - 1] <= left]
            i = choices[int(self.rng.integers(len(choices)))]
            if i > 0:
                out[s] = i
                left -= int(self.allocations[i - 1])
                taken.update(self._members[s])
        if not out.any():
            pairs = np.argwhere(mask[:, 1:])
            if len(pairs):
                s, c = pairs[int(self.rng.integers(len(pairs)))]
                out[s] = c + 1
        return out

    def expert_action(self) -> np.ndarray:
        """TITAN's own choice at this event: its MILP's allocation
        (``TitanCluster.plan``), as an action.

        Returns
        -------
        numpy.ndarray
            (max_units,) int64.

        Raises
        ------
        InputError
            If the run is over, or the MILP gives GPUs to a candidate beyond ``max_units``.
        """
        if self.done:
            raise InputError("the run is over: no decision is left (see done)")
        gpus, group_gpus = self.cluster.plan(self._offer)
        chosen = np.r_[np.asarray(gpus, dtype=np.int64), np.asarray(group_gpus, dtype=np.int64)]
        if chosen[self._n_slots:].any():
            raise InputError(f"TITAN's MILP allocates to a candidate beyond max_units = "
                             f"{self.max_units}; raise max_units")
        out = np.zeros(self.max_units, dtype=np.int64)
        g = chosen[:self._n_slots]
        out[:g.size] = np.where(g > 0, np.searchsorted(self.allocations, g) + 1, 0)
        return out

    # -- internals -----------------------------------------------------------------------
    def _advance(self) -> None:
        """Run the cluster to the next event with a decision (or to the end)."""
        c = self.cluster
        self._offer = None
        while c.advance():
            self._note_finishes()
            offer = c.offer()
            if offer is not None:
                self._offer = offer
                break
            c.epochs += 1
        self._note_finishes()
        self._obs = self._build_observation()

    def _note_finishes(self) -> None:
        """Each job's finish, from the segments recorded since the last call."""
        c = self.cluster
        segments = c.record.segments
        for u, _, _, end, _ in segments[self._seen:]:
            if c.units[u][1] == 0.0:
                self._finish[list(c.record.units[u])] = end
        self._seen = len(segments)

    def _accrued(self, start: float, until: float) -> float:
        """Job-hours in the system between ``start`` and ``until`` (JCT, sec. 3)."""
        begin = np.maximum(self.a.submit, start)
        end = np.minimum(self._finish, until)
        return float(np.clip(end - begin, 0.0, None).sum() / 3600.0)

    def _build_observation(self) -> dict[str, np.ndarray]:
        U, A, c = self.max_units, int(self.allocations.size), self.cluster
        obs = {
            "free_gpus": np.array([self.a.gpus], dtype=np.int64),
            "time_s": np.array([max(c.now, 0.0)], dtype=np.float64),
            "mask": np.zeros(U, dtype=np.int8),
            "members": np.zeros(U, dtype=np.int64),
            "remaining_iterations": np.zeros(U),
            "attained_gpu_s": np.zeros(U),
            "age_s": np.zeros(U),
            "gpus": np.zeros(U, dtype=np.int64),
            "throughput": np.zeros((U, A)),
            "action_mask": np.zeros((U, A + 1), dtype=np.int8),
            "conflicts": np.zeros((U, U), dtype=np.int8),
        }
        obs["action_mask"][:, 0] = 1
        self._members: list[tuple[int, ...]] = []
        self._n_slots = 0
        offer = self._offer
        if offer is None:
            return obs
        obs["free_gpus"][0] = offer.free
        members = [tuple(c.record.units[u]) for u in offer.units]
        members += [(j,) for j in offer.jobs]
        members += [tuple(offer.jobs[p] for p in g) for g in offer.groups]
        n = min(len(members), U)
        self._members, self._n_slots = members[:n], n
        batch = np.r_[offer.batch, np.asarray(offer.g_batch, dtype=np.int64)][:n]
        work = np.r_[offer.iters * offer.left, np.asarray(offer.g_iters, dtype=float)][:n]
        attained = self._attained()
        step_s = self.a.iter_s[batch]                                         # (n, A)
        obs["mask"][:n] = 1
        obs["members"][:n] = [len(m) for m in self._members]
        obs["remaining_iterations"][:n] = work
        obs["age_s"][:n] = [c.now - float(self.a.submit[list(m)].min()) for m in self._members]
        for s, u in enumerate(offer.units[:n]):
            obs["gpus"][s] = c.units[u][3]
            obs["attained_gpu_s"][s] = attained.get(u, 0.0)
        obs["throughput"][:n] = np.where(np.isfinite(step_s), 1.0 / step_s, 0.0)
        obs["action_mask"][:n, 1:] = np.isfinite(step_s) & (self.allocations <= offer.free)
        slots_of: dict[int, list[int]] = {}
        for s, m in enumerate(self._members):
            for j in m:
                slots_of.setdefault(j, []).append(s)
        for slots in slots_of.values():
            obs["conflicts"][np.ix_(slots, slots)] = 1
        np.fill_diagonal(obs["conflicts"], 0)
        return obs

    def _attained(self) -> dict[int, float]:
        """GPU-seconds each unit has run (switches left out), the stay under way included."""
        c = self.cluster
        out: dict[int, float] = {}
        for u, g, start, end, kind in c.record.segments:
            if kind == RUN:
                out[u] = out.get(u, 0.0) + (end - start) * g
        for u in c.running:
            unit = c.units[u]
            out[u] = out.get(u, 0.0) + max(0.0, c.now - unit[5]) * unit[3]
        return out

    def _check(self, action) -> np.ndarray:
        """``action`` as int64, or an InputError naming the rule it breaks."""
        act = np.asarray(action)
        if act.shape != (self.max_units,):
            raise InputError(f"action must have shape ({self.max_units},), one index per "
                             f"slot, got shape {act.shape}")
        if not np.issubdtype(act.dtype, np.integer) and not (
                np.issubdtype(act.dtype, np.floating) and np.all(act == np.round(act))):
            raise InputError(f"action must hold whole indices, got {action!r}")
        act = act.astype(np.int64)
        bad = np.flatnonzero((act < 0) | (act >= self.n_choices))
        if bad.size:
            s = int(bad[0])
            raise InputError(f"action[{s}] = {act[s]}: an index must be in 0..{self.n_choices - 1} "
                             f"(0 = no GPUs, c + 1 = allocations[c])")
        mask = self._obs["action_mask"]
        free = self._offer.free
        taken: dict[int, int] = {}
        for s in np.flatnonzero(act).tolist():
            i = int(act[s])
            if s >= self._n_slots:
                raise InputError(f"action[{s}] = {i}: slot {s} holds no candidate (this event "
                                 f"offers {self._n_slots})")
            if not mask[s, i]:
                raise InputError(f"action[{s}] = {i}: {self.allocations[i - 1]} GPUs are not "
                                 f"offered to this candidate (no step time there, or more "
                                 f"than the {free} free)")
            for j in self._members[s]:
                if j in taken:
                    raise InputError(f"action[{s}] and action[{taken[j]}] both give GPUs to "
                                     f"job {j}: a job runs in one unit at a time (eqs. 8-10)")
                taken[j] = s
        used = int(self.allocations[act[act > 0] - 1].sum())
        if used > free:
            raise InputError(f"action allocates {used} GPUs, more than the {free} free "
                             f"(eq. 4)")
        if not act.any() and self._idle_refused():
            raise InputError("action leaves every GPU idle while jobs wait and no submission "
                             "is left to come: the run would never end")
        return act

    def _idle_refused(self) -> bool:
        """Whether an action of all zeros would leave the run with no event to come."""
        c = self.cluster
        runs_on = bool(c.running) and not c.preemptive
        return not runs_on and c.cursor == self.a.submit.size

    def _decode(self, act: np.ndarray):
        """(gpus per unit and job, gpus per merge candidate) of a checked action."""
        offer = self._offer
        n_solo = len(offer.units) + len(offer.jobs)
        g = np.zeros(n_solo + len(offer.groups), dtype=np.int64)
        n = self._n_slots
        g[:n] = np.where(act[:n] > 0, self.allocations[np.maximum(act[:n], 1) - 1], 0)
        return tuple(int(x) for x in g[:n_solo]), tuple(int(x) for x in g[n_solo:])
