"""An exact candidate index: Algorithm 2's candidate cells without scanning the cluster
(:class:`CandidateIndex`), from per-group pools and skylines of undominated nodes: the same
candidates as :func:`lorasched.pdftsp.kernels.candidates`, bit for bit. Why it is exact and
how it is updated: :doc:`/reference/candidate_index`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..model.errors import InputError
from . import kernels
from .kernels import MEMORY_TOLERANCE
from .scenario import NodeSpeed, ScenarioArrays

METHODS = ("auto", "index", "scan")


# ------------------------------------------------------------------------------ kernels


@njit(cache=True)
def _dominates(q, x, t, lam, phi, compute_left, memory_left):
    """q dominates x in slot t: at least x's room, at most x's prices, and strictly better
    in a price or, on equal prices, the lower index (see the module docstring)."""
    if compute_left[q, t] < compute_left[x, t] or memory_left[q, t] < memory_left[x, t]:
        return False
    lq = lam[q, t]
    lx = lam[x, t]
    pq = phi[q, t]
    px = phi[x, t]
    if lq > lx or pq > px:
        return False
    return lq < lx or pq < px or q < x


@njit(cache=True)
def _sky_insert(t, g, k, gptr, sky, nsky, lam, phi, compute_left, memory_left):
    """Put used node ``k`` into the skyline of (t, g) unless a member dominates it; drop
    the members it dominates."""
    base = gptr[g]
    n = nsky[t, g]
    for m in range(n):
        if _dominates(sky[t, base + m], k, t, lam, phi, compute_left, memory_left):
            return
    w = 0
    for m in range(n):
        q = sky[t, base + m]
        if not _dominates(k, q, t, lam, phi, compute_left, memory_left):
            sky[t, base + w] = q
            w += 1
    sky[t, base + w] = k
    nsky[t, g] = w + 1


@njit(cache=True)
def _sky_rebuild(t, g, gptr, gnodes, gcap, sky, nsky, lam, phi, compute_left, memory_left):
    """The skyline of (t, g) from scratch, over the group's used nodes."""
    nsky[t, g] = 0
    for p in range(gptr[g], gptr[g + 1]):
        x = gnodes[p]
        if compute_left[x, t] < gcap[g]:
            _sky_insert(t, g, x, gptr, sky, nsky, lam, phi, compute_left, memory_left)


@njit(cache=True)
def _build(gptr, gnodes, gcap, lam, phi, compute_left, memory_left, pool, sky, nsky, mirror):
    """The whole index from a state: every pool pointer at its group's start (they move
    forward lazily), every skyline from its group's used nodes, and the mirror."""
    T = lam.shape[1]
    G = gptr.shape[0] - 1
    for t in range(T):
        for p in range(gnodes.shape[0]):
            _mirror(mirror, t, p, gnodes[p], lam, phi, compute_left, memory_left)
        for g in range(G):
            pool[t, g] = 0
            _sky_rebuild(t, g, gptr, gnodes, gcap, sky, nsky, lam, phi, compute_left,
                         memory_left)


@njit(cache=True)
def _mirror(mirror, t, p, k, lam, phi, compute_left, memory_left):
    """Copy node k's state in slot t to the mirror at its group position p: the state
    arrays are [node, slot], so a pass over a group's nodes in one slot reads them a cache
    line per node; the mirror [field, slot, position] reads them in order."""
    mirror[0, t, p] = lam[k, t]
    mirror[1, t, p] = phi[k, t]
    mirror[2, t, p] = compute_left[k, t]
    mirror[3, t, p] = memory_left[k, t]


@njit(cache=True)
def _capture(cell_nodes, cell_slots, lam, phi, compute_left, memory_left):
    """float64[4, n]: lambda, phi, compute and memory left of the cells, before a commit."""
    n = cell_nodes.shape[0]
    out = np.empty((4, n))
    for c in range(n):
        k = cell_nodes[c]
        t = cell_slots[c]
        out[0, c] = lam[k, t]
        out[1, c] = phi[k, t]
        out[2, c] = compute_left[k, t]
        out[3, c] = memory_left[k, t]
    return out


@njit(cache=True)
def _commit(cell_nodes, cell_slots, before, group_of, position, gptr, gnodes, gcap, sky, nsky,
            mirror, lam, phi, compute_left, memory_left):
    """Update the index for the cells a task just took; ``before`` is :func:`_capture` of
    the cells taken before the dual and capacity updates (7)-(8). Returns the number of
    skylines repaired because a member was used again."""
    repaired = 0
    for c in range(cell_nodes.shape[0]):
        k = cell_nodes[c]
        t = cell_slots[c]
        g = group_of[k]
        _mirror(mirror, t, position[k], k, lam, phi, compute_left, memory_left)
        if before[2, c] == gcap[g]:  # k left the pool of (t, g)
            _sky_insert(t, g, k, gptr, sky, nsky, lam, phi, compute_left, memory_left)
            continue
        base = gptr[g]
        n = nsky[t, g]
        at = -1
        for m in range(n):
            if sky[t, base + m] == k:
                at = m
                break
        if at < 0:
            continue  # k was dominated and only got worse: nothing changes
        # a member got worse. The other members stay (the old k dominated none of them, so
        # the new k, which is worse, dominates none). Nodes that the old k dominated may
        # join; every other used node is still dominated by a member other than k.
        for m in range(at, n - 1):
            sky[t, base + m] = sky[t, base + m + 1]
        nsky[t, g] = n - 1
        l0 = before[0, c]
        p0 = before[1, c]
        c0 = before[2, c]
        m0 = before[3, c]
        _sky_insert(t, g, k, gptr, sky, nsky, lam, phi, compute_left, memory_left)
        cap = gcap[g]
        for p in range(gptr[g], gptr[g + 1]):
            cx = mirror[2, t, p]
            if cx >= cap or c0 < cx or m0 < mirror[3, t, p]:
                continue  # unused, or more room than the old k
            lx = mirror[0, t, p]
            px = mirror[1, t, p]
            x = gnodes[p]
            if x == k or l0 > lx or p0 > px or not (l0 < lx or p0 < px or k < x):
                continue  # k itself, or the old k did not dominate x
            # x may join unless a member dominates it (x's state read from the mirror)
            mx = mirror[3, t, p]
            covered = False
            for m in range(nsky[t, g]):
                q = sky[t, base + m]
                pq = position[q]
                if q == x:
                    covered = True
                    break
                if (mirror[2, t, pq] >= cx and mirror[3, t, pq] >= mx
                        and mirror[0, t, pq] <= lx and mirror[1, t, pq] <= px
                        and (mirror[0, t, pq] < lx or mirror[1, t, pq] < px or q < x)):
                    covered = True
                    break
            if not covered:
                _sky_insert(t, g, x, gptr, sky, nsky, lam, phi, compute_left, memory_left)
        repaired += 1
    return repaired


@njit(cache=True)
def _first_in_pool(t, g, gptr, gnodes, gcap, compute_left, pool):
    """The lowest-numbered node of group g unused in slot t (-1 if none); moves the
    pool pointer past used nodes."""
    p = pool[t, g]
    base = gptr[g]
    end = gptr[g + 1] - base
    while p < end and compute_left[gnodes[base + p], t] < gcap[g]:
        p += 1
    pool[t, g] = p
    return gnodes[base + p] if p < end else -1


@njit(cache=True)
def candidates(speed_i, r_i, t0, t1, lam, phi, rate, compute_left, memory_left, gptr,
               gnodes, gcap, gmem, pool, sky, nsky):
    """Exactly :func:`lorasched.pdftsp.kernels.candidates` with ``prune`` (same CSR arrays),
    from the index: per slot, the first pool node and the fitting skyline members of each
    group where the task has a positive speed, sorted, then pruned by the scan's rule."""
    G = gptr.shape[0] - 1
    nT = max(t1 - t0 + 1, 0)
    ptr = np.zeros(nT + 1, dtype=np.int64)
    size = 0
    widest = 0
    for j in range(nT):
        here = 0
        for g in range(G):
            here += 1 + nsky[t0 + j, g]
        size += here
        widest = max(widest, here)
    nodes = np.empty(max(size, 1), dtype=np.int64)
    gathered = np.empty(max(widest, 1), dtype=np.int64)
    count = 0
    for j in range(nT):
        t = t0 + j
        n = 0
        for g in range(G):
            s = speed_i[gnodes[gptr[g]]]
            if s <= 0 or s > gcap[g] or r_i > gmem[g] + MEMORY_TOLERANCE:
                continue  # fits no node of the group, fresh or used
            first = _first_in_pool(t, g, gptr, gnodes, gcap, compute_left, pool)
            if first >= 0:
                gathered[n] = first
                n += 1
            base = gptr[g]
            for m in range(nsky[t, g]):
                x = sky[t, base + m]
                if s <= compute_left[x, t] and r_i <= memory_left[x, t] + MEMORY_TOLERANCE:
                    gathered[n] = x
                    n += 1
        order = np.sort(gathered[:n])
        start = count
        for m in range(n):
            count = kernels.prune_append(nodes, start, count, order[m], t, speed_i, lam, phi,
                                         rate, True)
        ptr[j + 1] = count
    return ptr, nodes[:count]


@njit(cache=True)
def schedule_task(a, d, needs_pre, bid, work_i, speed_i, r_i, vendor_price_i, vendor_delay_i,
                  lam, phi, rate, compute_left, memory_left, resolution, exact, gptr, gnodes,
                  gcap, gmem, pool, sky, nsky):
    """:func:`lorasched.pdftsp.kernels.schedule_task` with the candidates from the index."""
    ptr, nodes = candidates(speed_i, r_i, a, d, lam, phi, rate, compute_left, memory_left,
                            gptr, gnodes, gcap, gmem, pool, sky, nsky)
    return kernels.schedule_over(ptr, nodes, a, d, needs_pre, bid, work_i, speed_i, r_i,
                                 vendor_price_i, vendor_delay_i, lam, phi, rate, resolution,
                                 exact)


# ------------------------------------------------------------------------------ groups


def node_groups(arrays: ScenarioArrays) -> np.ndarray:
    """int64[K]: each node's group, numbered by first appearance; two nodes share a group
    iff their compute capacity, usable memory, operating-cost rates (every slot) and speeds
    (every task of ``arrays``) are equal. Also the LP bound's classes of identical nodes
    (:func:`lorasched.pdftsp.bound.aggregate_identical_nodes`)."""
    K = arrays.n_nodes
    usable = arrays.usable_memory
    speed = arrays.speed
    # a node's speed column: with speeds stored per GPU type, its type's column
    if isinstance(speed, NodeSpeed):
        table, column_of = speed.by_type, speed.node_type
    else:
        table, column_of = speed, np.arange(K)
    # a weighted sum of each column first (one pass over the table); equal fingerprints
    # are then confirmed column by column
    weights = np.random.default_rng(0).integers(1, 2**20, size=table.shape[0])
    fingerprint = (weights @ table.astype(np.int64) if table.shape[0]
                   else np.zeros(table.shape[1], dtype=np.int64))
    keys: dict = {}
    group = np.empty(K, dtype=np.int64)
    reps: list[int] = []
    for k in range(K):
        c = column_of[k]
        key = (int(arrays.compute_capacity[k]), float(usable[k]),
               arrays.op_cost_rate[k].tobytes(), int(fingerprint[c]))
        for g in keys.get(key, ()):
            r = column_of[reps[g]]
            if r == c or np.array_equal(table[:, r], table[:, c]):
                group[k] = g
                break
        else:
            group[k] = len(reps)
            keys.setdefault(key, []).append(len(reps))
            reps.append(k)
    return group


class CandidateIndex:
    """The index of one :class:`~lorasched.pdftsp.auction.OnlineAuction`'s state (see the
    module docstring), kept on the state arrays ``lam, phi, compute_left, memory_left``
    (the same objects, updated in place). ``method``: ``"auto"`` (the index when the nodes
    fall into at most K / 2 groups, else the scan), ``"index"`` or ``"scan"``;
    :attr:`method` is what is used, :attr:`reason` why.

    The groups are computed from ``arrays``, so a task of ``arrays`` has one speed per
    group. A task from elsewhere (the service's requests) is checked first
    (:meth:`serves`) and, if its speeds differ within a group, gets the scan: the index's
    state does not depend on task speeds, only its queries do."""

    STATE = ("pool", "sky", "nsky", "mirror")

    def __init__(self, arrays: ScenarioArrays, lam, phi, compute_left, memory_left, *,
                 method: str = "auto"):
        if method not in METHODS:
            raise InputError(f"candidates must be one of {METHODS}, got {method!r}")
        self.arrays = arrays
        self.group_of = node_groups(arrays)
        K, T = arrays.n_nodes, arrays.n_slots
        G = int(self.group_of.max()) + 1 if K else 0
        self.n_groups = G
        if method == "auto":
            method = "index" if G <= K // 2 else "scan"
            self.reason = (f"{K} nodes in {G} groups of interchangeable nodes"
                           + ("" if method == "index" else ": too few alike to index"))
        else:
            self.reason = f"asked for ({K} nodes in {G} groups)"
        self.method = method
        order = np.argsort(self.group_of, kind="stable")
        self.gnodes = np.ascontiguousarray(order, dtype=np.int64)
        self.gptr = np.zeros(G + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.group_of, minlength=G), out=self.gptr[1:])
        self.gfirst = self.gnodes[self.gptr[:-1]]
        self.gcap = np.ascontiguousarray(arrays.compute_capacity[self.gfirst], dtype=np.int64)
        self.gmem = np.ascontiguousarray(arrays.usable_memory[self.gfirst], dtype=np.float64)
        self.pool = np.zeros((T, G), dtype=np.int64)
        self.sky = np.zeros((T, K if method == "index" else 0), dtype=np.int64)
        self.nsky = np.zeros((T, G), dtype=np.int64)
        self.position = np.empty(K, dtype=np.int64)  # node -> its place in gnodes
        self.position[self.gnodes] = np.arange(K)
        # each node's lambda, phi, compute and memory left, slot-major, in group order
        self.mirror = np.zeros((4, T, K) if method == "index" else (4, 0, 0))
        self.repaired = 0  # skylines repaired because a member was used again
        self._state = (lam, phi, compute_left, memory_left)
        if self.method == "index":
            self.build()

    def build(self) -> None:
        """Rebuild every pool pointer and skyline from the current state."""
        if self.method == "index":
            _build(self.gptr, self.gnodes, self.gcap, *self._state, self.pool, self.sky,
                   self.nsky, self.mirror)

    def serves(self, arrays: ScenarioArrays, speed_i: np.ndarray) -> bool:
        """Whether the index answers for a task with per-node speeds ``speed_i`` of
        ``arrays``: always for the arrays it was built from, else when ``speed_i`` is
        equal on every node of each group (an O(K) check)."""
        if self.method != "index":
            return False
        if arrays is self.arrays:
            return True
        sizes = np.diff(self.gptr)
        return bool(np.array_equal(speed_i[self.gnodes],
                                   np.repeat(speed_i[self.gfirst], sizes)))

    def capture(self, cell_nodes: np.ndarray, cell_slots: np.ndarray):
        """What :meth:`commit` needs of the cells a task is about to take: call it before
        the dual and capacity updates."""
        if self.method != "index":
            return None
        return _capture(cell_nodes, cell_slots, *self._state)

    def commit(self, cell_nodes: np.ndarray, cell_slots: np.ndarray, before) -> None:
        """A task took these cells (the state already updated; ``before`` from
        :meth:`capture`)."""
        if self.method == "index":
            self.repaired += _commit(cell_nodes, cell_slots, before, self.group_of,
                                     self.position, self.gptr, self.gnodes, self.gcap,
                                     self.sky, self.nsky, self.mirror, *self._state)

    def schedule_args(self) -> tuple:
        """The index's arrays as :func:`schedule_task` takes them after ``exact``."""
        return (self.gptr, self.gnodes, self.gcap, self.gmem, self.pool, self.sky, self.nsky)

    def candidates(self, speed_i: np.ndarray, r_i: float, t0: int, t1: int,
                   rate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The candidates of a task (speeds ``speed_i``, memory ``r_i``) in slots
        ``t0..t1``, as the scan returns them."""
        lam, phi, compute_left, memory_left = self._state
        if self.method == "scan":
            return kernels.candidates(speed_i, float(r_i), int(t0), int(t1), lam, phi, rate,
                                      compute_left, memory_left, True)
        return candidates(speed_i, float(r_i), int(t0), int(t1), lam, phi, rate,
                          compute_left, memory_left, *self.schedule_args())
