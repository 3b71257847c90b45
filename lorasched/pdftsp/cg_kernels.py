"""The numba kernels of column generation's pricing problem (pdFTSP's offline LP bound and
Titan's per-slot LP, :mod:`lorasched.pdftsp.bound`): a task's cheapest schedule under
additive per-cell prices, and every task of a round in one call. Plain numpy arrays only."""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import INF, MEMORY_TOLERANCE


@njit(cache=True)
def price_schedules(a, d, W, units, speed_i, r_i, rate, pi, sigma, compute_left,
                    memory_left, starts, fixed):
    """Cheapest schedule for each start slot in ``starts`` under ADDITIVE cell prices.

    A cell (k, t) costs ``s_ik * (rate[k, t] + pi[k, t]) + r_i * sigma[k, t]`` (operating
    cost plus the LP duals of (5b) and (5c)) and is usable when the task fits in
    ``compute_left``/``memory_left``. One backward DP ``g[t, w]`` = cheapest way to deliver
    ``w`` more units in slots ``t..d`` (at most one node per slot, eq. 4b) answers every
    start at once: the cost for start ``t0`` is ``g[t0, W]``. Exact on the work grid.

    ``fixed[m]`` is a constant added to option ``m`` (its vendor price). Returns
    ``costs[len(starts)]`` (cell costs only; inf where infeasible), the option ``best``
    minimising ``fixed + costs`` (-1 if none) and its cells:
    ``(costs, best, cell_nodes, cell_slots)``.
    """
    K = speed_i.shape[0]
    nT = d - a + 1
    # per slot, the cheapest usable node for each distinct unit count
    uniq = np.unique(units[units > 0])
    nU = uniq.shape[0]
    best_c = np.full((nT, nU), INF)
    best_k = np.full((nT, nU), -1, dtype=np.int64)
    for j in range(nT):
        t = a + j
        for k in range(K):
            s = speed_i[k]
            if s <= 0 or s > compute_left[k, t] or r_i > memory_left[k, t] + MEMORY_TOLERANCE:
                continue
            c = s * (rate[k, t] + pi[k, t]) + r_i * sigma[k, t]
            u = np.searchsorted(uniq, units[k])
            if c < best_c[j, u]:
                best_c[j, u] = c
                best_k[j, u] = k
    g = np.full((nT + 1, W + 1), INF)
    choice = np.full((nT + 1, W + 1), -1, dtype=np.int64)
    for j in range(nT + 1):
        g[j, 0] = 0.0
    for j in range(nT - 1, -1, -1):
        for w in range(1, W + 1):
            v = g[j + 1, w]
            ch = -1
            for u in range(nU):
                if best_k[j, u] < 0:
                    continue
                rest = max(w - uniq[u], 0)
                c = best_c[j, u] + g[j + 1, rest]
                if c < v:
                    v = c
                    ch = u
            g[j, w] = v
            choice[j, w] = ch
    costs = np.full(starts.shape[0], INF)
    best = -1
    for m in range(starts.shape[0]):
        j = starts[m] - a
        if 0 <= j <= nT - 1:
            costs[m] = g[j, W]
            if costs[m] < INF and (best < 0 or
                                   costs[m] + fixed[m] < costs[best] + fixed[best]):
                best = m
    if best < 0:
        empty = np.empty(0, dtype=np.int64)
        return costs, best, empty, empty
    nodes = np.empty(nT, dtype=np.int64)
    slots = np.empty(nT, dtype=np.int64)
    n = 0
    j = starts[best] - a
    w = W
    while w > 0 and j < nT:
        u = choice[j, w]
        if u >= 0:
            nodes[n] = best_k[j, u]
            slots[n] = a + j
            n += 1
            w = max(w - uniq[u], 0)
        j += 1
    return costs, best, nodes[:n].copy(), slots[:n].copy()


@njit(cache=True)
def price_batch(arrival, deadline, W, units, speed, memory, bid, rate, pi, sigma,
                compute_left, memory_left, opt_ptr, starts, fixed, mu, tol):
    """:func:`price_schedules` for every task of one column-generation round, in one call.

    Task ``j`` of the round: window ``arrival[j]..deadline[j]``, requirement ``W[j]`` in
    work units ``units[j]``, speeds ``speed[j]``, memory ``memory[j]``, bid ``bid[j]``, its
    vendor options ``starts``/``fixed[opt_ptr[j]:opt_ptr[j + 1]]``, and ``mu[j]`` the dual
    of its row (5a). A task with ``W[j] == 0`` or no option has no schedule.

    Returns ``(best, value, improving, lagrangian, cell_ptr, nodes, slots)``: per task the
    option of its best schedule (-1: none), that schedule's value ``b_i - q - priced cost``,
    whether its reduced cost ``value - mu[j]`` exceeds ``tol * max(1, |b_i|)``, the sum of
    ``max(0, value)`` over the tasks with a schedule (the groups' part of the dual bound),
    and the cells of the improving schedules: task ``j``'s in
    ``nodes/slots[cell_ptr[j]:cell_ptr[j + 1]]``.
    """
    n = arrival.shape[0]
    best = np.full(n, -1, dtype=np.int64)
    value = np.zeros(n)
    improving = np.zeros(n, dtype=np.bool_)
    cell_ptr = np.zeros(n + 1, dtype=np.int64)
    cap = 1024
    nodes_out = np.empty(cap, dtype=np.int64)
    slots_out = np.empty(cap, dtype=np.int64)
    m = 0
    lagrangian = 0.0
    for j in range(n):
        lo = opt_ptr[j]
        hi = opt_ptr[j + 1]
        if W[j] > 0 and hi > lo:
            costs, b, nodes, slots = price_schedules(
                arrival[j], deadline[j], W[j], units[j], speed[j], memory[j], rate, pi, sigma,
                compute_left, memory_left, starts[lo:hi], fixed[lo:hi])
            if b >= 0:
                v = bid[j] - fixed[lo + b] - costs[b]
                best[j] = b
                value[j] = v
                lagrangian += max(0.0, v)  # mu'_j of the dual bound
                if v - mu[j] > tol * max(1.0, abs(bid[j])):  # reduced cost > 0
                    improving[j] = True
                    k = nodes.shape[0]
                    if m + k > cap:
                        while m + k > cap:
                            cap *= 2
                        grown = np.empty(cap, dtype=np.int64)
                        grown[:m] = nodes_out[:m]
                        nodes_out = grown
                        grown = np.empty(cap, dtype=np.int64)
                        grown[:m] = slots_out[:m]
                        slots_out = grown
                    nodes_out[m:m + k] = nodes
                    slots_out[m:m + k] = slots
                    m += k
        cell_ptr[j + 1] = m
    return best, value, improving, lagrangian, cell_ptr, nodes_out[:m].copy(), slots_out[:m].copy()
