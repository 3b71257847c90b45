"""The numba kernels of pdFTSP's online algorithm and the greedy baselines, on plain numpy
arrays: the work grid, the candidate scan and its pruning rule, Algorithm 2's DPs, the dual
updates and the earliest-finish schedule. Column generation's pricing kernels are in
:mod:`.cg_kernels`, the candidate index's in :mod:`.candidate_index`; see
:doc:`/reference/candidate_index`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

INF = np.inf
MEMORY_TOLERANCE = 1e-9  # GB; the same as lorasched.pdftsp.scenario.MEMORY_TOLERANCE


@njit(cache=True)
def slowest_speed(speed_i):
    """The smallest positive speed of a task (0 if it has none): s_min of the work grid."""
    s_min = 0
    for k in range(speed_i.shape[0]):
        if speed_i[k] > 0 and (s_min == 0 or speed_i[k] < s_min):
            s_min = speed_i[k]
    return s_min


@njit(cache=True)
def work_units(speed_i, work_i, resolution, relaxed=False):
    """Speeds in work units (rounded down) and the requirement W_i (rounded up).

    With ``relaxed`` the rounding goes the OTHER way: speeds up, work down (at least 1).
    Every schedule that meets ``M_i`` in real samples then meets ``W`` in these units, so a
    search over them is a relaxation -- what an upper bound needs.
    """
    K = speed_i.shape[0]
    s_min = slowest_speed(speed_i)
    units = np.zeros(K, dtype=np.int64)
    if s_min == 0:
        return units, 0
    up = s_min - 1 if relaxed else 0
    for k in range(K):
        if speed_i[k] > 0:
            units[k] = (speed_i[k] * resolution + up) // s_min
    if relaxed:
        return units, max((work_i * resolution) // s_min, 1)
    W = (work_i * resolution + s_min - 1) // s_min
    return units, W


@njit(cache=True)
def prune_append(nodes, start, count, k, t, speed_i, lam, phi, rate, prune):
    """Append candidate node ``k`` of slot ``t`` to ``nodes[start:count]`` (the slot's
    candidates so far, ascending) and return the new count. With ``prune``, ``k`` is
    dropped when a kept node of the same speed is no worse in lambda, phi and operating cost
    (equal in all three: the lower index is kept), and kept nodes that ``k`` dominates are
    removed. The one place this rule lives: :func:`candidates` (the scan) and
    :mod:`lorasched.pdftsp.candidate_index` (the index) both append through it, in ascending
    ``k``."""
    s = speed_i[k]
    if prune:
        lk = lam[k, t]
        pk = phi[k, t]
        ek = s * rate[k, t]
        m = start
        while m < count:
            q = nodes[m]
            if speed_i[q] == s:
                lq = lam[q, t]
                pq = phi[q, t]
                eq = s * rate[q, t]
                if lq <= lk and pq <= pk and eq <= ek:
                    return count  # dominated by q (lower index)
                if lk <= lq and pk <= pq and ek <= eq:
                    # k dominates q strictly (q has the lower index): drop q
                    for r in range(m, count - 1):
                        nodes[r] = nodes[r + 1]
                    count -= 1
                    continue
            m += 1
    nodes[count] = k
    return count + 1


@njit(cache=True)
def candidates(speed_i, r_i, t0, t1, lam, phi, rate, compute_left, memory_left, prune):
    """Cells (k, t), t0 <= t <= t1, where task i fits in the residual capacity.

    Returns CSR arrays ``ptr[t1 - t0 + 2]`` and ``nodes``: the candidate nodes of slot
    ``t0 + j`` are ``nodes[ptr[j]:ptr[j + 1]]``, ascending. Only cells with
    ``s_ik <= compute_left`` and ``r_i <= memory_left`` are candidates, so the schedule
    found can never break (4f) or (4g).

    With ``prune``, a node is dropped when another node of the same speed is no worse in
    lambda, phi and operating cost (and, if equal in all three, has a lower index).
    Swapping a dominated cell for its dominator keeps S and n and lowers no maximum, so
    some optimum of (12) uses only undominated cells: the exact solver stays exact. For the
    paper's DP, whose increment is non-decreasing in each of the three, a dominated node
    can at most tie, so pruning only changes how ties are broken. The DPs then cost
    O(T * W * P) with P the (small) number of undominated nodes per slot instead of K.
    """
    K = speed_i.shape[0]
    nT = max(t1 - t0 + 1, 0)
    ptr = np.zeros(nT + 1, dtype=np.int64)
    nodes = np.empty(max(nT * K, 1), dtype=np.int64)
    # which cells fit, node by node: a node's slots are contiguous in the [K, T] arrays, so
    # this pass reads them in memory order (slot by slot, at K = 2,000, it cost 25 % more)
    fits = np.zeros((nT, K), dtype=np.bool_)
    for k in range(K):
        s = speed_i[k]
        if s <= 0:
            continue
        for j in range(nT):
            t = t0 + j
            if s <= compute_left[k, t] and r_i <= memory_left[k, t] + MEMORY_TOLERANCE:
                fits[j, k] = True
    count = 0
    for j in range(nT):
        t = t0 + j
        start = count
        for k in range(K):
            if fits[j, k]:
                count = prune_append(nodes, start, count, k, t, speed_i, lam, phi, rate,
                                     prune)
        ptr[j + 1] = count
    return ptr, nodes[:count]


@njit(cache=True)
def paper_dp(t0, t1, W, units, speed_i, r_i, lam, phi, rate, ptr, nodes):
    """Algorithm 2's ``findSchedule``: the DP of eq. (13) with a running max.

    ``dp[t, w]`` is the cost (12) of the best path found that delivers ``w`` work units
    (capped at ``W``) in slots ``t0..t``; each state carries its path's running maxima
    lambda-hat and phi-hat, samples ``S`` and cell count ``n``, and operating cost ``E``.
    Taking node k at slot t moves ``w -> min(w + u_k, W)`` at the increment (line 11)
    ``Delta_kt = max(lh, lam_kt) * (S + s_ik) + max(ph, phi_kt) * (n + 1) * r_i + E + e_ikt
    - (lh * S + ph * n * r_i + E)``. This is the text's definition of Delta_kt, "the
    increment of the objective value of (12)": when a cell raises a maximum, the earlier
    cells are re-priced too (line 11's shorthand ``s_ik lh + r_i ph + e_ikt`` would leave them
    at the old maximum and report less than the schedule's cost under (12)). Keeping one
    path per state is what makes this a heuristic for (12): the path kept may not be the
    best prefix for a later maximum.

    Returns ``(cost, lam_hat, phi_hat, samples, n_cells, op_cost, cell_nodes, cell_slots)``;
    ``cost = inf`` and empty cells when no schedule meets the work by ``t1``.
    """
    nT = t1 - t0 + 1
    cost = np.full((nT + 1, W + 1), INF)
    lh = np.zeros((nT + 1, W + 1))
    ph = np.zeros((nT + 1, W + 1))
    S = np.zeros((nT + 1, W + 1), dtype=np.int64)
    ncell = np.zeros((nT + 1, W + 1), dtype=np.int64)
    E = np.zeros((nT + 1, W + 1))
    take = np.full((nT + 1, W + 1), -1, dtype=np.int64)
    prev = np.zeros((nT + 1, W + 1), dtype=np.int64)
    cost[0, 0] = 0.0
    for j in range(1, nT + 1):
        t = t0 + j - 1
        # dp[t, w] = dp[t-1, w]: leave slot t idle
        for w in range(W + 1):
            cost[j, w] = cost[j - 1, w]
            lh[j, w] = lh[j - 1, w]
            ph[j, w] = ph[j - 1, w]
            S[j, w] = S[j - 1, w]
            ncell[j, w] = ncell[j - 1, w]
            E[j, w] = E[j - 1, w]
            prev[j, w] = w
        # dp[t, w + u_k] <- dp[t-1, w] + Delta_kt   (eq. 13)
        for w in range(W):
            c0 = cost[j - 1, w]
            if c0 == INF:
                continue
            for m in range(ptr[j - 1], ptr[j]):
                k = nodes[m]
                nw = min(w + units[k], W)
                l_new = max(lh[j - 1, w], lam[k, t])
                p_new = max(ph[j - 1, w], phi[k, t])
                s_new = S[j - 1, w] + speed_i[k]
                n_new = ncell[j - 1, w] + 1
                e_new = E[j - 1, w] + speed_i[k] * rate[k, t]
                c_new = l_new * s_new + p_new * n_new * r_i + e_new
                if c_new < cost[j, nw]:
                    cost[j, nw] = c_new
                    lh[j, nw] = l_new
                    ph[j, nw] = p_new
                    S[j, nw] = s_new
                    ncell[j, nw] = n_new
                    E[j, nw] = e_new
                    take[j, nw] = k
                    prev[j, nw] = w
    best = cost[nT, W]
    if best == INF:
        empty = np.empty(0, dtype=np.int64)
        return INF, 0.0, 0.0, 0, 0, 0.0, empty, empty
    n = ncell[nT, W]
    cell_nodes = np.empty(n, dtype=np.int64)
    cell_slots = np.empty(n, dtype=np.int64)
    w = W
    c = n
    for j in range(nT, 0, -1):
        k = take[j, w]
        if k >= 0:
            c -= 1
            cell_nodes[c] = k
            cell_slots[c] = t0 + j - 1
            w = prev[j, w]
        # an idle slot keeps w
    return (best, lh[nT, W], ph[nT, W], S[nT, W], n, E[nT, W], cell_nodes, cell_slots)


@njit(cache=True)
def additive_dp(t0, t1, W, units, speed_i, r_i, lam, phi, rate, ptr, nodes, lam_cap, phi_cap):
    """Exact min-cost schedule when the maxima in (12) are FIXED at ``lam_cap, phi_cap``.

    Only cells with ``lam_kt <= lam_cap`` and ``phi_kt <= phi_cap`` are allowed; each then
    costs ``lam_cap * s_ik + phi_cap * r_i + e_ikt`` (additive), so the DP over (t, w) with
    at most one cell per slot is exact. Returns ``(additive_cost, nodes, slots)``.
    """
    nT = t1 - t0 + 1
    cost = np.full((nT + 1, W + 1), INF)
    take = np.full((nT + 1, W + 1), -1, dtype=np.int64)
    prev = np.zeros((nT + 1, W + 1), dtype=np.int64)
    cost[0, 0] = 0.0
    for j in range(1, nT + 1):
        t = t0 + j - 1
        for w in range(W + 1):
            cost[j, w] = cost[j - 1, w]
            prev[j, w] = w
        for w in range(W):
            c0 = cost[j - 1, w]
            if c0 == INF:
                continue
            for m in range(ptr[j - 1], ptr[j]):
                k = nodes[m]
                if lam[k, t] > lam_cap or phi[k, t] > phi_cap:
                    continue
                nw = min(w + units[k], W)
                c_new = c0 + lam_cap * speed_i[k] + phi_cap * r_i + speed_i[k] * rate[k, t]
                if c_new < cost[j, nw]:
                    cost[j, nw] = c_new
                    take[j, nw] = k
                    prev[j, nw] = w
    best = cost[nT, W]
    n = 0
    if best < INF:
        w = W
        for j in range(nT, 0, -1):
            if take[j, w] >= 0:
                n += 1
                w = prev[j, w]
    cell_nodes = np.empty(n, dtype=np.int64)
    cell_slots = np.empty(n, dtype=np.int64)
    if best < INF:
        w = W
        c = n
        for j in range(nT, 0, -1):
            k = take[j, w]
            if k >= 0:
                c -= 1
                cell_nodes[c] = k
                cell_slots[c] = t0 + j - 1
                w = prev[j, w]
    return best, cell_nodes, cell_slots


@njit(cache=True)
def true_cost(cell_nodes, cell_slots, speed_i, r_i, lam, phi, rate):
    """Objective (12) of a given schedule: max-lambda * S + max-phi * R + E.

    Returns ``(cost, lam_hat, phi_hat, samples, n_cells, op_cost)``.
    """
    lh = 0.0
    ph = 0.0
    s = 0
    e = 0.0
    n = cell_nodes.shape[0]
    for c in range(n):
        k = cell_nodes[c]
        t = cell_slots[c]
        lh = max(lh, lam[k, t])
        ph = max(ph, phi[k, t])
        s += speed_i[k]
        e += speed_i[k] * rate[k, t]
    return lh * s + ph * n * r_i + e, lh, ph, s, n, e


@njit(cache=True)
def exact_schedule(t0, t1, W, units, speed_i, r_i, lam, phi, rate, ptr, nodes):
    """Exact optimum of problem (12) by enumerating the price thresholds.

    The optimal schedule's maxima (lambda-hat, phi-hat) are values of some candidate cells.
    For every pair of such values, :func:`additive_dp` finds the cheapest schedule under
    those caps; its true cost (12) is at most its additive cost, and at the optimum's own
    maxima the additive cost equals the optimum. So the cheapest true cost over all pairs
    is optimal. Cost: (#distinct lambda) x (#distinct phi) DPs -- slow on busy clusters.
    Same return value as :func:`paper_dp`.
    """
    total = ptr[ptr.shape[0] - 1]
    lam_vals = np.empty(total)
    phi_vals = np.empty(total)
    for j in range(ptr.shape[0] - 1):
        t = t0 + j
        for m in range(ptr[j], ptr[j + 1]):
            lam_vals[m] = lam[nodes[m], t]
            phi_vals[m] = phi[nodes[m], t]
    lam_vals = np.unique(lam_vals)
    phi_vals = np.unique(phi_vals)
    best = INF
    best_nodes = np.empty(0, dtype=np.int64)
    best_slots = np.empty(0, dtype=np.int64)
    for a in range(lam_vals.shape[0]):
        for b in range(phi_vals.shape[0]):
            add, cn, cs = additive_dp(t0, t1, W, units, speed_i, r_i, lam, phi, rate,
                                      ptr, nodes, lam_vals[a], phi_vals[b])
            if add == INF:
                continue
            c = true_cost(cn, cs, speed_i, r_i, lam, phi, rate)[0]
            if c < best:
                best = c
                best_nodes = cn
                best_slots = cs
    if best == INF:
        empty = np.empty(0, dtype=np.int64)
        return INF, 0.0, 0.0, 0, 0, 0.0, empty, empty
    c, lh, ph, s, n, e = true_cost(best_nodes, best_slots, speed_i, r_i, lam, phi, rate)
    return c, lh, ph, s, n, e, best_nodes, best_slots


@njit(cache=True)
def update_duals(lam, phi, compute_left, memory_left, cell_nodes, cell_slots, speed_i, r_i,
                 compute_capacity, usable_memory, alpha, beta, b_bar):
    """Commit an admitted schedule: dual updates (7) and (8), then residual capacities.

    ``usable_memory[k] = C_km - r_b``. Asserts Algorithm 1's line-8 capacity check, which
    the candidate filter makes impossible to fail.
    """
    for c in range(cell_nodes.shape[0]):
        k = cell_nodes[c]
        t = cell_slots[c]
        s = speed_i[k]
        frac_s = s / compute_capacity[k]
        lam[k, t] = lam[k, t] * (1.0 + frac_s) + alpha * b_bar * frac_s  # eq. (7)
        frac_r = r_i / usable_memory[k] if usable_memory[k] > 0 else 0.0
        phi[k, t] = phi[k, t] * (1.0 + frac_r) + beta * b_bar * frac_r  # eq. (8)
        compute_left[k, t] -= s
        memory_left[k, t] -= r_i
        # Algorithm 1, line 8: "enough resources" (never fails; see candidates())
        assert compute_left[k, t] >= 0
        assert memory_left[k, t] >= -MEMORY_TOLERANCE


@njit(cache=True)
def schedule_task(a, d, needs_pre, bid, work_i, speed_i, r_i, vendor_price_i, vendor_delay_i,
                  lam, phi, rate, compute_left, memory_left, resolution, exact):
    """Algorithm 2 for one task: the best schedule over all vendors, eq. (9)-(10).

    For each vendor n the window is ``a + h_in .. d`` (4c, 4d) and the schedule minimises
    (12) (paper DP, or the exact solver when ``exact``); the vendor with the largest
    ``F(il_n) = b_i - q_in - cost_n`` (eq. 10; line 5) wins, ties to the lower index.
    A task without pre-processing (f_i = 0) uses no vendor (n = -1, q = 0, h = 0).
    Vendors with equal delay share one DP.

    Returns ``(vendor, F, cost, lam_hat, phi_hat, samples, n_cells, op_cost, vendor_price,
    cell_nodes, cell_slots)``; ``vendor = -2`` when no vendor admits a feasible schedule.
    """
    ptr, nodes = candidates(speed_i, r_i, a, d, lam, phi, rate, compute_left, memory_left,
                            True)
    return schedule_over(ptr, nodes, a, d, needs_pre, bid, work_i, speed_i, r_i,
                         vendor_price_i, vendor_delay_i, lam, phi, rate, resolution, exact)


@njit(cache=True)
def schedule_over(ptr, nodes, a, d, needs_pre, bid, work_i, speed_i, r_i, vendor_price_i,
                  vendor_delay_i, lam, phi, rate, resolution, exact):
    """:func:`schedule_task` over given candidates (CSR ``ptr``, ``nodes`` of slots
    ``a..d``, as :func:`candidates` returns them with ``prune``): the DPs and the vendor
    choice. :mod:`lorasched.pdftsp.candidate_index` supplies the same candidates without a scan."""
    units, W = work_units(speed_i, work_i, resolution)
    n_opt = vendor_price_i.shape[0] if needs_pre else 1
    span = d - a + 1
    done = np.full(span, -1, dtype=np.int64)  # t0 - a -> slot in the result buffers
    r_cost = np.empty(n_opt)
    r_lh = np.empty(n_opt)
    r_ph = np.empty(n_opt)
    r_s = np.empty(n_opt, dtype=np.int64)
    r_n = np.empty(n_opt, dtype=np.int64)
    r_e = np.empty(n_opt)
    r_nodes = np.empty((n_opt, span), dtype=np.int64)
    r_slots = np.empty((n_opt, span), dtype=np.int64)
    used = 0
    best_v = -2
    best_f = -INF
    best_r = -1
    best_q = 0.0
    for v in range(n_opt):
        if needs_pre:
            q = vendor_price_i[v]
            t0 = a + vendor_delay_i[v]
        else:
            q = 0.0
            t0 = a
        if t0 > d or W == 0:
            continue
        slot = done[t0 - a]
        if slot < 0:
            off = ptr[t0 - a]
            sub_ptr = ptr[t0 - a:] - off
            sub_nodes = nodes[off:]
            if exact:
                res = exact_schedule(t0, d, W, units, speed_i, r_i, lam, phi, rate,
                                     sub_ptr, sub_nodes)
            else:
                res = paper_dp(t0, d, W, units, speed_i, r_i, lam, phi, rate,
                               sub_ptr, sub_nodes)
            slot = used
            used += 1
            done[t0 - a] = slot
            r_cost[slot] = res[0]
            r_lh[slot] = res[1]
            r_ph[slot] = res[2]
            r_s[slot] = res[3]
            r_n[slot] = res[4]
            r_e[slot] = res[5]
            for c in range(res[4]):
                r_nodes[slot, c] = res[6][c]
                r_slots[slot, c] = res[7][c]
        if r_cost[slot] == INF:
            continue
        f = bid - q - r_cost[slot]  # eq. (10): b_il - max-lambda*S - max-phi*R
        if f > best_f:
            best_f = f
            best_v = v if needs_pre else -1
            best_r = slot
            best_q = q
    if best_r < 0:
        empty = np.empty(0, dtype=np.int64)
        return -2, -INF, INF, 0.0, 0.0, 0, 0, 0.0, 0.0, empty, empty
    n = r_n[best_r]
    return (best_v, best_f, r_cost[best_r], r_lh[best_r], r_ph[best_r], r_s[best_r], n,
            r_e[best_r], best_q, r_nodes[best_r, :n].copy(), r_slots[best_r, :n].copy())


@njit(cache=True)
def earliest_finish(t0, d, work_i, speed_i, r_i, compute_left, memory_left, compute_capacity,
                    exclusive):
    """Earliest-finish schedule of one task (the EFT and NTM baselines, the offline warm start).

    From slot ``t0`` to ``d`` take, in every slot, the eligible node with the largest speed
    (ties: lowest index) until ``M_i`` samples are reached. Eligible: ``s_ik > 0``,
    ``s_ik <= compute_left[k, t]``, ``r_i <= memory_left[k, t]`` (plus MEMORY_TOLERANCE) and,
    when ``exclusive`` (NTM, no task merging), the node is idle in that slot:
    ``compute_left[k, t] == compute_capacity[k]``. A cell consumes its full speed ``s_ik``
    of compute (constraint 4f), also in the last slot, where less may be needed.

    Optimal: with at most one node per slot (4b) and slots independent (the residuals are
    fixed), greedy maximises the work done by every slot t, so no schedule finishes earlier.

    Returns ``(finish_slot, cell_nodes, cell_slots)``; ``finish_slot = -1`` and no cells
    when the work cannot be met by ``d``.
    """
    K = speed_i.shape[0]
    n_max = max(d - t0 + 1, 0)
    cell_nodes = np.empty(n_max, dtype=np.int64)
    cell_slots = np.empty(n_max, dtype=np.int64)
    s_top = 0
    for k in range(K):
        if speed_i[k] > s_top:
            s_top = speed_i[k]
    done = 0
    n = 0
    for t in range(t0, d + 1):
        if done + (d - t + 1) * s_top < work_i:
            break  # even the fastest node in every remaining slot would fall short
        best = -1
        best_s = 0
        for k in range(K):
            s = speed_i[k]
            if s <= best_s or s > compute_left[k, t]:
                continue  # also skips s <= 0, since best_s >= 0
            if r_i > memory_left[k, t] + MEMORY_TOLERANCE:
                continue
            if exclusive and compute_left[k, t] != compute_capacity[k]:
                continue
            best = k
            best_s = s
        if best >= 0:
            cell_nodes[n] = best
            cell_slots[n] = t
            n += 1
            done += best_s
            if done >= work_i:
                return t, cell_nodes[:n].copy(), cell_slots[:n].copy()
    empty = np.empty(0, dtype=np.int64)
    return -1, empty, empty.copy()
