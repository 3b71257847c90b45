"""An Allpass run as a result ``Dataset`` (:func:`assemble`: per job, lease, segment and tick),
and the checker that recomputes what the run claims, one named rule of :data:`RULES` each
(:func:`check_result`, :func:`broken_rules`). The variables: :doc:`/reference/allpass_cluster`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import xarray as xr

from ..model import rules
from ..model.errors import ResultError
from ..model.rules import Rule
from .clouds import PROVIDERS, bill
from .decisions import SEGMENT_KINDS, Run
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


@dataclass(frozen=True, eq=False)
class _Context:
    """A result's variables as plain arrays, decoded once for the rules."""

    result: xr.Dataset
    names: list  # job names
    submit: np.ndarray
    finish: np.ndarray
    work: np.ndarray
    prov: np.ndarray  # leases: provider, requested start, ready, end, $/GPU-h
    start: np.ndarray
    ready: np.ndarray
    end: np.ndarray
    price: np.ndarray
    sj: np.ndarray  # segments: job, lease, kind, start, end
    sl: np.ndarray
    kind: np.ndarray
    s0: np.ndarray
    s1: np.ndarray
    ticks: np.ndarray  # the control loop's ticks and the threshold F after each
    F: np.ndarray


def _context(result: xr.Dataset) -> _Context:
    return _Context(result=result, names=result["name"].values.astype(str).tolist(),
                    submit=result["submit_s"].values, finish=result["finish_s"].values,
                    work=result["work_s"].values,
                    prov=result["lease_provider"].values.astype(str),
                    start=result["lease_start_s"].values, ready=result["lease_ready_s"].values,
                    end=result["lease_end_s"].values, price=result["lease_price_per_h"].values,
                    sj=result["seg_job"].values, sl=result["seg_lease"].values,
                    kind=result["seg_kind"].values.astype(str),
                    s0=result["seg_start_s"].values, s1=result["seg_end_s"].values,
                    ticks=result["tick_s"].values, F=result["F_s"].values)


def _every_job_finishes(c: _Context) -> None:
    bad = ~np.isfinite(c.finish) | (c.finish < c.submit - TOL)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        _fail("every job finishes", f"job {c.names[j]!r} finish_s={c.finish[j]!r}")


def _jct(c: _Context) -> None:
    bad = ~_close(c.result["jct_s"].values, c.finish - c.submit, c.finish)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        _fail("jct = finish - submit", f"job {c.names[j]!r}")


def _lease_ordered(c: _Context) -> None:  # a start-up between request and ready, Table 3
    bad = ~(np.isfinite(c.end) & (c.start <= c.ready + TOL) & (c.ready <= c.end + TOL))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail("lease start <= ready <= end", f"lease {i} ({c.prov[i]}): {c.start[i]!r}, "
              f"{c.ready[i]!r}, {c.end[i]!r}")


def _segments_ordered(c: _Context) -> None:
    if (c.s1 < c.s0 - TOL).any():
        k = int(np.flatnonzero(c.s1 < c.s0 - TOL)[0])
        _fail("segments end after they start", f"segment {k} of job {c.names[c.sj[k]]!r}")


def _on_ready_workers(c: _Context) -> None:  # sec. 3.1: work starts once a worker is up
    s0, s1, sl = c.s0, c.s1, c.sl
    inside = ((s0 >= c.ready[sl] - TOL * np.maximum(1, s0))
              & (s1 <= c.end[sl] + TOL * np.maximum(1, s1)))
    if not inside.all():
        k = int(np.flatnonzero(~inside)[0])
        _fail("jobs run only on ready workers",
              f"job {c.names[c.sj[k]]!r} {c.kind[k]} [{s0[k]:.3f}, {s1[k]:.3f}] on lease "
              f"{sl[k]} ready {c.ready[sl[k]]:.3f}, ended {c.end[sl[k]]:.3f}")


def _no_overlap(c: _Context, key: np.ndarray, rule: str, who: str) -> None:
    order = np.lexsort((c.s0, key))
    s0 = c.s0[order][1:]
    same = key[order][1:] == key[order][:-1]
    overlap = same & (s0 < c.s1[order][:-1] - TOL * np.maximum(1, s0))
    if overlap.any():
        k = int(order[1:][overlap][0])
        label = c.names[key[k]] if who == "job" else int(key[k])
        _fail(rule, f"{who} {label!r} has overlapping segments near t={c.s0[k]:.3f}")


def _one_job_per_worker(c: _Context) -> None:  # sec. 3.1: a worker runs one job
    _no_overlap(c, c.sl, "one job per worker at a time", "lease")


def _one_thing_per_job(c: _Context) -> None:
    _no_overlap(c, c.sj, "a job does one thing at a time", "job")


def _serverful_cap(c: _Context) -> None:  # Algorithm 2 within the cluster's capacity
    serverful = c.prov != "modal"
    cap = int(c.result.attrs.get("capacity", UNLIMITED))
    if cap != UNLIMITED and serverful.any():
        t = np.concatenate([c.start[serverful], c.end[serverful]])
        step = np.concatenate([np.ones(serverful.sum()), -np.ones(serverful.sum())])
        order = np.lexsort((step, t))                       # releases before requests
        peak = int(np.cumsum(step[order]).max())
        if peak > cap:
            _fail("serverful concurrency <= the cap", f"{peak} workers open at once, cap {cap}")


def _stint_in_force(c: _Context, k: int, F0: float) -> float:
    """The largest F in force during serverless stint ``k`` (inf without one)."""
    F, ticks = c.F, c.ticks
    during = (ticks > c.s0[k] - TOL) & (ticks <= c.s1[k] + TOL)
    before = np.flatnonzero(ticks <= c.s0[k] + TOL)
    in_force = list(F[during]) + ([F[before[-1]]] if before.size else [F0])
    return np.nanmax(in_force) if np.isfinite(in_force).any() else math.inf


def _serverless_stints(c: _Context) -> None:  # sec. 3.1 step 2: demoted at F
    F0 = float(c.result.attrs.get("F0", math.nan))
    if np.isfinite(c.F).any() or np.isfinite(F0):
        for k in np.flatnonzero((c.kind == "run") & (c.prov[c.sl] == "modal")):
            limit = _stint_in_force(c, k, F0)
            if c.s1[k] - c.s0[k] > limit + TOL * max(1.0, limit):
                _fail("each serverless stint <= the F in force",
                      f"job {c.names[c.sj[k]]!r} ran {c.s1[k] - c.s0[k]:.3f} s on Modal, F <= "
                      f"{limit:.3f}")


def _run_time(c: _Context, where: np.ndarray) -> np.ndarray:
    """Each job's seconds in the run segments where ``where``."""
    return np.bincount(c.sj[where], weights=(c.s1 - c.s0)[where], minlength=c.work.size)


def _work_conserved(c: _Context) -> None:  # sec. 3.1 steps 3-4: checkpoint, restore
    done = _run_time(c, c.kind == "run")
    bad = ~_close(done, c.work, c.work)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        _fail("work conserved across demotion", f"job {c.names[j]!r} ran {done[j]!r} s of "
              f"{c.work[j]!r} s")


def _last_segment_at_finish(c: _Context) -> None:
    last = np.full(c.work.size, -np.inf)
    np.maximum.at(last, c.sj, c.s1)
    bad = ~_close(last, c.finish, c.finish)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        _fail("a job's last segment ends at its finish", f"job {c.names[j]!r}")


def _serverless_seconds(c: _Context) -> None:
    ss = _run_time(c, (c.kind == "run") & (c.prov[c.sl] == "modal"))
    bad = ~_close(ss, c.result["serverless_s"].values, c.work)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        _fail("serverless_s = work on the serverless tier", f"job {c.names[j]!r}")


def _marketplace_price(c: _Context) -> None:  # the offer book, Figs. 2-3
    offer, book = c.result["lease_offer"].values, c.result["price_per_gpu_h"].values
    for i in np.flatnonzero(c.prov == "vast"):
        minute = min(int(c.start[i] // 60), book.shape[0] - 1)
        if not (0 <= offer[i] < book.shape[1]) or not np.isclose(book[minute, offer[i]],
                                                                  c.price[i]):
            _fail("marketplace leases pay the offer's price",
                  f"lease {i}: offer {offer[i]} at minute {minute}, price {c.price[i]!r}")


def _offer_rented_once(c: _Context) -> None:
    offer = c.result["lease_offer"].values
    vast = np.flatnonzero(c.prov == "vast")
    for o in np.unique(offer[vast]):
        mine = vast[offer[vast] == o]
        order = mine[np.argsort(c.start[mine], kind="stable")]
        if (c.start[order][1:] < c.end[order][:-1] - TOL).any():
            _fail("an offer is rented once at a time", f"offer slot {o}")


def _list_price(name: str):
    """The rule that ``name``'s leases pay its list price (Table 2)."""
    def rule(c: _Context) -> None:
        bad = (c.prov == name) & ~np.isclose(c.price, PROVIDERS[name].price_per_gpu_h)
        if bad.any():
            _fail(f"{name} leases pay {name}'s price", f"lease {int(np.flatnonzero(bad)[0])}")
    return rule


def _costs(c: _Context) -> None:  # each provider's billing rule, Table 2
    cost = lease_costs(c.prov, c.start, c.end, c.price)
    bad = ~_close(cost, c.result["lease_cost_usd"].values, cost)
    if bad.any():
        _fail("cost recomputed from leases", f"lease {int(np.flatnonzero(bad)[0])}")
    attrs = c.result.attrs
    if not _close(cost.sum(), attrs["cost_usd"], cost.sum()):
        _fail("cost recomputed from leases", f"total {attrs['cost_usd']!r} != {cost.sum()!r}")
    for name in PROVIDERS:
        mine = cost[c.prov == name].sum()
        if not _close(mine, attrs.get(f"cost_{name}_usd", math.nan), mine):
            _fail("cost recomputed from leases", f"cost_{name}_usd")


#: the rules of :func:`check_result`, in the order it checks them; a rule's name is the one
#: its error quotes
RULES = (
    Rule("every job finishes", _every_job_finishes),
    Rule("jct = finish - submit", _jct),
    Rule("lease start <= ready <= end", _lease_ordered),
    Rule("segments end after they start", _segments_ordered),
    Rule("jobs run only on ready workers", _on_ready_workers),
    Rule("one job per worker at a time", _one_job_per_worker),
    Rule("a job does one thing at a time", _one_thing_per_job),
    Rule("serverful concurrency <= the cap", _serverful_cap),
    Rule("each serverless stint <= the F in force", _serverless_stints),
    Rule("work conserved across demotion", _work_conserved),
    Rule("a job's last segment ends at its finish", _last_segment_at_finish),
    Rule("serverless_s = work on the serverless tier", _serverless_seconds),
    Rule("marketplace leases pay the offer's price", _marketplace_price),
    Rule("an offer is rented once at a time", _offer_rented_once),
    Rule("modal leases pay modal's price", _list_price("modal")),
    Rule("lambda leases pay lambda's price", _list_price("lambda")),
    Rule("cost recomputed from leases", _costs),
)


def check_result(result: xr.Dataset) -> None:
    """Check an Allpass result against the model and its own claims.

    Runs the rules of :data:`RULES` in order; the first one the result breaks raises,
    quoting its name: ``every job finishes`` (after its submission), ``jct = finish -
    submit``, ``lease start <= ready <= end``, ``segments end after they start``, ``jobs run
    only on ready workers`` (inside the lease), ``one job per worker at a time``, ``a job
    does one thing at a time``, ``serverful concurrency <= the cap``, ``each serverless
    stint <= the F in force`` (the largest ``F`` in force during it), ``work conserved
    across demotion`` (run segments sum to ``work_s`` across demotions and preemptions),
    ``a job's last segment ends at its finish``, ``serverless_s = work on the serverless
    tier``, ``marketplace leases pay the offer's price`` (the book's price of its offer at
    its start minute), ``an offer is rented once at a time``, ``modal leases pay modal's
    price``, ``lambda leases pay lambda's price``, ``cost recomputed from leases`` (every
    lease's cost and the totals, from the billing rules).

    Parameters
    ----------
    result : xarray.Dataset
        An Allpass result (module docstring).

    Raises
    ------
    ResultError
        ``Allpass result breaks '<rule>': <detail>``, the detail naming the job, lease or
        offer and the values.
    """
    rules.check(RULES, _context(result))


def broken_rules(result: xr.Dataset) -> list[str]:
    """The names of every rule of :data:`RULES` that ``result`` breaks, in order."""
    return rules.broken(RULES, _context(result))
