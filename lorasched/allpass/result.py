"""An Allpass run as a result ``Dataset`` (:func:`assemble`: per job, lease, segment and tick),
and the checker that recomputes what the run claims (:func:`check_result`). The variables:
:doc:`/reference/allpass_cluster`.
"""

from __future__ import annotations

import json
import math

import numpy as np
import xarray as xr

from ..model.errors import ResultError
from .clouds import PROVIDERS, bill
from .cluster import SEGMENT_KINDS, Run
from .scenario import UNLIMITED

#: relative tolerance of the checker's float comparisons (seconds, dollars)
TOL = 1e-6


def lease_costs(provider, start, end, price) -> np.ndarray:
    """USD of each lease by its provider's billing rule (:func:`.clouds.bill`)."""
    return np.array([bill(p, s, e, pr) for p, s, e, pr in zip(provider, start, end, price,
                                                               strict=True)], dtype=float)


def assemble(scenario: xr.Dataset, run: Run, *, algorithm: str, seed, options: dict,
             F0: float = math.nan) -> xr.Dataset:
    """The result Dataset of one run (module docstring)."""
    ds = scenario.copy()
    submit = scenario["submit_s"].values
    jct = run.finish - submit
    ds["finish_s"] = ("job", run.finish)
    ds["jct_s"] = ("job", jct)
    ds["wait_s"] = ("job", jct - scenario["work_s"].values)
    for name in ("serverless_s", "demotions", "preemptions", "overhead_s", "queue_s"):
        ds[name] = ("job", getattr(run, name))
    cost = lease_costs(run.lease_provider, run.lease_start, run.lease_end, run.lease_price)
    ds["lease_provider"] = ("lease", run.lease_provider.astype(str))
    ds["lease_offer"] = ("lease", run.lease_offer)
    ds["lease_start_s"] = ("lease", run.lease_start)
    ds["lease_ready_s"] = ("lease", run.lease_ready)
    ds["lease_end_s"] = ("lease", run.lease_end)
    ds["lease_price_per_h"] = ("lease", run.lease_price)
    ds["lease_cost_usd"] = ("lease", cost)
    ds["seg_job"] = ("seg", run.seg_job)
    ds["seg_lease"] = ("seg", run.seg_lease)
    ds["seg_kind"] = ("seg", np.array(SEGMENT_KINDS)[run.seg_kind].astype(str)
                      if run.seg_kind.size else np.array([], dtype=str))
    ds["seg_start_s"] = ("seg", run.seg_start)
    ds["seg_end_s"] = ("seg", run.seg_end)
    ds["tick_s"] = ("tick", run.tick_t)
    for name, values in (("p", run.tick_p), ("D", run.tick_demand),
                         ("window_s", run.tick_window), ("F_s", run.tick_F),
                         ("queue", run.tick_queue), ("workers", run.tick_workers),
                         ("ready", run.tick_ready), ("busy", run.tick_busy),
                         ("serverless", run.tick_serverless)):
        ds[name] = ("tick", values)
    ds.attrs.update(
        algorithm=algorithm, seed=-1 if seed is None else int(seed),
        options=json.dumps(options, sort_keys=True, default=str), F0=float(F0),
        cost_usd=float(cost.sum()), avg_jct_s=float(jct.mean()), events=int(run.events))
    for name in PROVIDERS:
        ds.attrs[f"cost_{name}_usd"] = float(cost[run.lease_provider == name].sum())
    return ds


def _fail(rule: str, detail: str) -> None:
    raise ResultError(f"Allpass result breaks '{rule}': {detail}")


def _close(a, b, scale=1.0) -> np.ndarray:
    return np.abs(np.asarray(a) - np.asarray(b)) <= TOL * np.maximum(1.0, scale)


def check_result(result: xr.Dataset) -> None:
    """Raise :class:`~lorasched.model.errors.ResultError` naming the first rule the result
    breaks:

    every job finished after its submission, with ``jct_s = finish_s - submit_s``; leases
    ordered start <= ready <= end; one job per worker at a time; a job does one thing at a
    time; work only on ready workers, inside the lease; serverful concurrency within the
    cap; each serverless stint within the largest ``F`` in force during it; work conserved
    across demotions and preemptions (run segments sum to ``work_s``); a job's last segment
    ends at its finish; a marketplace lease pays the book's price of its offer at its
    start minute, and no offer is rented twice at once; every lease's cost and the totals
    recomputed from the billing rules.
    """
    names = result["name"].values.astype(str).tolist()
    submit = result["submit_s"].values
    finish = result["finish_s"].values
    work = result["work_s"].values
    bad = ~np.isfinite(finish) | (finish < submit - TOL)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        _fail("every job finishes", f"job {names[j]!r} finish_s={finish[j]!r}")
    bad = ~_close(result["jct_s"].values, finish - submit, finish)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        _fail("jct = finish - submit", f"job {names[j]!r}")

    prov = result["lease_provider"].values.astype(str)
    start, ready = result["lease_start_s"].values, result["lease_ready_s"].values
    end, price = result["lease_end_s"].values, result["lease_price_per_h"].values
    bad = ~(np.isfinite(end) & (start <= ready + TOL) & (ready <= end + TOL))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail("lease start <= ready <= end", f"lease {i} ({prov[i]}): {start[i]!r}, "
              f"{ready[i]!r}, {end[i]!r}")

    sj, sl = result["seg_job"].values, result["seg_lease"].values
    kind = result["seg_kind"].values.astype(str)
    s0, s1 = result["seg_start_s"].values, result["seg_end_s"].values
    if (s1 < s0 - TOL).any():
        k = int(np.flatnonzero(s1 < s0 - TOL)[0])
        _fail("segments end after they start", f"segment {k} of job {names[sj[k]]!r}")
    inside = (s0 >= ready[sl] - TOL * np.maximum(1, s0)) & (s1 <= end[sl] + TOL * np.maximum(1, s1))
    if not inside.all():
        k = int(np.flatnonzero(~inside)[0])
        _fail("jobs run only on ready workers",
              f"job {names[sj[k]]!r} {kind[k]} [{s0[k]:.3f}, {s1[k]:.3f}] on lease {sl[k]} "
              f"ready {ready[sl[k]]:.3f}, ended {end[sl[k]]:.3f}")
    for key, rule, who in ((sl, "one job per worker at a time", "lease"),
                           (sj, "a job does one thing at a time", "job")):
        order = np.lexsort((s0, key))
        same = key[order][1:] == key[order][:-1]
        overlap = same & (s0[order][1:] < s1[order][:-1] - TOL * np.maximum(1, s0[order][1:]))
        if overlap.any():
            k = int(order[1:][overlap][0])
            label = names[key[k]] if who == "job" else int(key[k])
            _fail(rule, f"{who} {label!r} has overlapping segments near t={s0[k]:.3f}")

    serverful = prov != "modal"
    cap = int(result.attrs.get("capacity", UNLIMITED))
    if cap != UNLIMITED and serverful.any():
        t = np.concatenate([start[serverful], end[serverful]])
        step = np.concatenate([np.ones(serverful.sum()), -np.ones(serverful.sum())])
        order = np.lexsort((step, t))                       # releases before requests
        peak = int(np.cumsum(step[order]).max())
        if peak > cap:
            _fail("serverful concurrency <= the cap", f"{peak} workers open at once, cap {cap}")

    F = result["F_s"].values
    if np.isfinite(F).any() or np.isfinite(result.attrs.get("F0", math.nan)):
        ticks = result["tick_s"].values
        F0 = float(result.attrs.get("F0", math.nan))
        stint = (kind == "run") & (prov[sl] == "modal")
        for k in np.flatnonzero(stint):
            during = (ticks > s0[k] - TOL) & (ticks <= s1[k] + TOL)
            before = np.flatnonzero(ticks <= s0[k] + TOL)
            in_force = list(F[during]) + ([F[before[-1]]] if before.size else [F0])
            limit = np.nanmax(in_force) if np.isfinite(in_force).any() else math.inf
            if s1[k] - s0[k] > limit + TOL * max(1.0, limit):
                _fail("each serverless stint <= the F in force",
                      f"job {names[sj[k]]!r} ran {s1[k] - s0[k]:.3f} s on Modal, F <= "
                      f"{limit:.3f}")

    runs = kind == "run"
    done = np.bincount(sj[runs], weights=(s1 - s0)[runs], minlength=work.size)
    bad = ~_close(done, work, work)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        _fail("work conserved across demotion", f"job {names[j]!r} ran {done[j]!r} s of "
              f"{work[j]!r} s")
    last = np.full(work.size, -np.inf)
    np.maximum.at(last, sj, s1)
    bad = ~_close(last, finish, finish)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        _fail("a job's last segment ends at its finish", f"job {names[j]!r}")
    ss = np.bincount(sj[runs & (prov[sl] == "modal")],
                     weights=(s1 - s0)[runs & (prov[sl] == "modal")], minlength=work.size)
    bad = ~_close(ss, result["serverless_s"].values, work)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        _fail("serverless_s = work on the serverless tier", f"job {names[j]!r}")

    offer = result["lease_offer"].values
    book = result["price_per_gpu_h"].values
    vast = np.flatnonzero(prov == "vast")
    for i in vast:
        minute = min(int(start[i] // 60), book.shape[0] - 1)
        if not (0 <= offer[i] < book.shape[1]) or not np.isclose(book[minute, offer[i]],
                                                                  price[i]):
            _fail("marketplace leases pay the offer's price",
                  f"lease {i}: offer {offer[i]} at minute {minute}, price {price[i]!r}")
    for o in np.unique(offer[vast]):
        mine = vast[offer[vast] == o]
        order = mine[np.argsort(start[mine], kind="stable")]
        if (start[order][1:] < end[order][:-1] - TOL).any():
            _fail("an offer is rented once at a time", f"offer slot {o}")
    for name in ("modal", "lambda"):
        p = PROVIDERS[name].price_per_gpu_h
        bad = (prov == name) & ~np.isclose(price, p)
        if bad.any():
            _fail(f"{name} leases pay {name}'s price", f"lease {int(np.flatnonzero(bad)[0])}")

    cost = lease_costs(prov, start, end, price)
    bad = ~_close(cost, result["lease_cost_usd"].values, cost)
    if bad.any():
        _fail("cost recomputed from leases", f"lease {int(np.flatnonzero(bad)[0])}")
    if not _close(cost.sum(), result.attrs["cost_usd"], cost.sum()):
        _fail("cost recomputed from leases", f"total {result.attrs['cost_usd']!r} != "
              f"{cost.sum()!r}")
    for name in PROVIDERS:
        mine = cost[prov == name].sum()
        if not _close(mine, result.attrs.get(f"cost_{name}_usd", math.nan), mine):
            _fail("cost recomputed from leases", f"cost_{name}_usd")
