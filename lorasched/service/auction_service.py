"""The auction behind ``lorasched serve`` (:class:`AuctionService`): one cluster, one
:class:`~lorasched.pdftsp.auction.OnlineAuction`, idempotent offers, each decision stored
before it is applied and answered, and the stored decisions replayed on start
(:doc:`/reference/service`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from typing import NamedTuple

import numpy as np
import xarray as xr

from ..pdftsp.auction import Decision, OnlineAuction
from ..pdftsp.scenario import ScenarioArrays, to_arrays
from ..systems import load_scenario
from .store import StateError, Store, StoreError
from .tasks import ServiceInputError, one_task, parse_task

#: the latency histogram's upper bounds, seconds (Prometheus buckets)
BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
           0.5, 1.0)
#: the cluster fields the fingerprint covers
_CLUSTER = ("compute_capacity", "memory_capacity", "op_cost_rate")


class _Pending(NamedTuple):
    """A decision computed but not yet applied: what :meth:`AuctionService._apply` needs."""

    task_id: str
    seq: int
    fields: dict
    digest: str
    payload: dict
    arrays: ScenarioArrays
    auction_decision: Decision
    decision: dict


class ConflictError(ServiceInputError):
    """A request that contradicts the state: a used id with another body, a closed slot.

    The HTTP API answers it 409.

    Parameters
    ----------
    field : str
        The request's field at fault (``"id"`` or ``"arrival"``).
    message : str
        Names the task, the field and the rule.
    """


def fingerprint(arrays: ScenarioArrays, gpu_types, options: dict) -> str:
    """A hash of the cluster (capacities, operating cost, vendors, slots, GPU types,
    declared bounds) and the auction's options."""
    h = hashlib.sha256()
    for name in _CLUSTER:
        h.update(np.ascontiguousarray(getattr(arrays, name)).tobytes())
    h.update(json.dumps({"base_model_memory": arrays.base_model_memory,
                         "vendors": int(arrays.vendor_price.shape[1]),
                         "gpu_types": [str(g) for g in gpu_types],
                         **{k: getattr(arrays, k) for k in ScenarioArrays.DECLARED_ATTRS},
                         **options}, sort_keys=True).encode())
    return h.hexdigest()[:16]


class AuctionService:
    """The service's state and its one decision path: pdFTSP's auction, stored decisions.

    One cluster, one :class:`~lorasched.pdftsp.auction.OnlineAuction`; every decision is
    stored before it is applied and answered, and on start the stored decisions are
    replayed through a fresh auction (the module docstring).

    Parameters
    ----------
    cluster : xarray.Dataset or path-like
        A pdFTSP scenario or the path of one: the cluster (nodes, capacities, operating
        cost, vendors, slots, the declared value bounds the constants alpha and beta come
        from); its tasks are ignored.
    state_dir : str or os.PathLike
        The folder of the durable state (:class:`~lorasched.service.store.Store`).
    payment, constants, solver : str, optional
        The auction's options (:class:`~lorasched.pdftsp.auction.OnlineAuction`; default
        ``"critical"``, ``"lemma2"``, ``"paper"``).
    work_resolution : int, optional
        The auction's R of the work discretisation (default 8).
    sync : {"full", "normal"}, optional
        The store's durability (default ``"full"``).

    Raises
    ------
    ~lorasched.service.tasks.ServiceInputError
        If the cluster declares no value bounds (an online service cannot take them
        from hindsight).
    InputError
        If the scenario or an option is invalid, or the state was built on another
        cluster or with other options.
    ~lorasched.service.store.StateError
        If the state is held by another server, damaged, or its replay does not give
        the stored decisions.
    """

    def __init__(self, cluster, state_dir, *, payment: str = "critical",
                 constants: str = "lemma2", solver: str = "paper", work_resolution: int = 8,
                 sync: str = "full"):
        ds = cluster if isinstance(cluster, xr.Dataset) else _load(cluster)
        self.cluster = to_arrays(ds)
        missing = [k for k in ("value_density_min", "value_density_max")
                   if getattr(self.cluster, k) is None]
        if (self.cluster.speed_per_memory_max is None
                and self.cluster.task_memory_min is None):
            missing.append("speed_per_memory_max (or task_memory_min)")
        if missing:
            raise ServiceInputError("cluster", f"--cluster: the scenario declares no "
                                    f"{missing[0]} attribute; the auction's constants come "
                                    f"from the declared bounds, which a service cannot take "
                                    f"from hindsight")
        self.gpu_types = np.asarray(ds["gpu_type"].values if "gpu_type" in ds
                                    else np.array(["gpu"] * self.cluster.n_nodes)).astype(str)
        self.options = {"payment": payment, "constants": constants, "solver": solver,
                        "work_resolution": int(work_resolution)}
        self.fingerprint = fingerprint(self.cluster, self.gpu_types, self.options)
        self.auction = OnlineAuction(self.cluster, **self.options)
        if self.cluster.n_tasks:  # compile the kernels now, not on the first request
            self.auction.quote(0)
        self.store = Store(state_dir, self.fingerprint, sync)
        self._lock = threading.Lock()
        self.by_id: dict[str, dict] = {}
        self.requests: dict[str, str] = {}  # id -> digest of its request body
        self.clock = -1
        self.counts = Counter()
        self.latency = np.zeros(len(BUCKETS) + 1, dtype=np.int64)
        self.latency_sum = 0.0
        self.failure: StoreError | None = None  # the last write's, until one succeeds
        self.broken: str | None = None  # memory behind the store (_apply)
        self._pending: _Pending | None = None  # a write of unknown outcome (_usable)
        started = time.perf_counter()
        try:
            self._replay()
        except BaseException:
            self.store.close()
            raise
        self.replayed = len(self.by_id)
        self.replay_seconds = time.perf_counter() - started

    # ------------------------------------------------------------------ decisions
    def offer(self, payload) -> tuple[dict, bool]:
        """Decide one task: Algorithm 1 against the state, stored, then applied.

        The same ``id`` again returns the stored decision and admits nothing twice.
        Offers run one at a time.

        Parameters
        ----------
        payload : dict
            One request body (``lorasched.service.tasks`` lists its fields).

        Returns
        -------
        decision : dict
            ``id``, ``seq``, ``arrival``, ``admitted``, ``reason``, ``payment``,
            ``critical_bid``, ``vendor`` and ``cells``.
        new : bool
            False when the id was decided before (the stored decision is returned).

        Raises
        ------
        ~lorasched.service.tasks.ServiceInputError
            A bad field.
        ConflictError
            A used id with another body, or a task for a slot before the clock (the
            largest arrival slot seen).
        ~lorasched.service.store.StoreError
            The decision could not be stored: nothing of it is kept, the same request may
            be sent again.
        """
        started = time.perf_counter()
        task_id, fields = parse_task(payload, self.cluster, self.gpu_types)
        digest = _digest(payload)
        with self._lock:
            self._usable()
            if task_id in self.by_id:
                if self.requests[task_id] != digest:
                    raise ConflictError("id", f"task {task_id!r}, field 'id': already used for "
                                              f"another task (a retry must send the same body)")
                self.counts["repeated"] += 1
                return self.by_id[task_id], False
            if fields["arrival"] < self.clock:
                raise ConflictError("arrival", f"task {task_id!r}, field 'arrival': slot "
                                               f"{fields['arrival']} is closed (the clock "
                                               f"is at slot {self.clock})")
            seq = len(self.by_id) + 1
            pending = self._decide(task_id, seq, fields, digest, payload)
            try:  # durable first: a failed write leaves nothing in memory
                self.store.append(seq, task_id, payload, pending.decision)
            except StoreError as err:
                self.counts["store_failures"] += 1
                self.failure = err
                if not err.known:  # settled by the next request (_usable)
                    self._pending = pending
                raise
            self.failure = None
            self._apply(pending)
            seconds = time.perf_counter() - started
            self.latency[int(np.searchsorted(BUCKETS, seconds))] += 1
            self.latency_sum += seconds
        return pending.decision, True

    def _decide(self, task_id: str, seq: int, fields: dict, digest: str, payload: dict
                ) -> _Pending:
        """Algorithm 1's decision on one task against the current state, changing
        nothing (the auction's input arrays are the task's own)."""
        arrays = one_task(self.cluster, fields)
        self.auction.arrays = arrays
        d = self.auction.decide(0)
        s = d.schedule
        decision = {
            "id": task_id, "seq": seq, "arrival": fields["arrival"],
            "admitted": bool(d.admitted), "reason": d.reason,
            "payment": float(d.payment),
            "critical_bid": float(s.critical_bid) if s.feasible else None,
            "vendor": (int(s.vendor) if d.admitted and s.vendor >= 0 else None),
            "cells": ([[int(k), int(t)] for k, t in zip(s.nodes.tolist(), s.slots.tolist(),
                                                         strict=True)]
                      if d.admitted else []),
        }
        return _Pending(task_id, seq, fields, digest, payload, arrays, d, decision)

    def _apply(self, p: _Pending) -> None:
        """Commit a stored decision to the state: the auction's prices and capacities, the
        ids, the clock, the counters. A failure here leaves memory behind the store:
        the service then refuses every write until restarted (its replay is exact)."""
        try:
            self.auction.arrays = p.arrays
            self.auction.commit(p.auction_decision)
            self.by_id[p.task_id] = p.decision
            self.requests[p.task_id] = p.digest  # a retry must match it
            self.clock = max(self.clock, p.fields["arrival"])
            self.counts["decisions"] += 1
            self.counts["admitted"] += int(p.auction_decision.admitted)
        except BaseException as err:
            self.broken = (f"decision {p.seq} (task {p.task_id!r}) is stored but could not "
                           f"be applied in memory ({type(err).__name__}: {err}); restart the "
                           f"service: its replay rebuilds the state from the store")
            raise

    def _usable(self) -> None:
        """Before a write: settle a write whose outcome was unknown (apply it if the store
        holds it, drop it if not), and refuse while the state must be rebuilt."""
        if self.broken:
            raise StoreError("state", self.broken)
        if self._pending is not None:
            p = self._pending
            if self.store.holds(p.seq, p.task_id, p.payload, p.decision):
                self._apply(p)
            self._pending = None

    def health(self) -> dict:
        """The service's health.

        Returns
        -------
        dict
            ``{"status": "ok", "decisions": n, "clock": slot}``; from a failed write until
            a write succeeds (or while the state must be rebuilt), ``"status":
            "failing"`` and ``"store": {"field", "error"}``.
        """
        with self._lock:
            out = {"status": "ok", "decisions": len(self.by_id), "clock": self.clock}
            problem = StoreError("state", self.broken) if self.broken else self.failure
            if problem is not None:
                out.update(status="failing",
                           store={"field": problem.field, "error": str(problem)})
            return out

    def _replay(self) -> None:
        """Rebuild the state from the stored decisions, each checked against a fresh
        decision on the same request."""
        for seq, task_id, request, stored in self.store.decisions():
            try:
                _, fields = parse_task(request, self.cluster, self.gpu_types)
            except ServiceInputError as err:
                raise StateError(f"--state: {self.store.path}, decision {seq}: its request "
                                 f"is refused ({err}): the state was changed, or stored by "
                                 f"another version; keep it with the version that stored "
                                 f"it") from None
            p = self._decide(task_id, seq, fields, _digest(request), request)
            if p.decision != stored:
                raise StateError(f"--state: {self.store.path}, decision {seq} (task "
                                 f"{task_id!r}): replaying it gives {p.decision}, the store "
                                 f"holds {stored}: the state was built by other code or "
                                 f"changed; keep it with the version that stored it")
            self._apply(p)

    # ------------------------------------------------------------------ reading
    def get(self, task_id: str) -> dict | None:
        """The stored decision of one task.

        Parameters
        ----------
        task_id : str
            The client's id of the task.

        Returns
        -------
        dict or None
            The decision, as :meth:`offer` returned it; None if the id is unknown.
        """
        return self.by_id.get(task_id)

    def prices(self, start: int, stop: int) -> dict:
        """The dual prices lambda and phi (node x slot) of some slots.

        Parameters
        ----------
        start, stop : int
            The slots ``start..stop-1``.

        Returns
        -------
        dict
            ``{"from": start, "to": stop, "lambda": [[...]], "phi": [[...]]}``.

        Raises
        ------
        ~lorasched.service.tasks.ServiceInputError
            Unless ``0 <= start < stop <=`` the number of slots.
        """
        T = self.cluster.n_slots
        if not 0 <= start < stop <= T:
            raise ServiceInputError("slots", f"slots {start}..{stop - 1}: need 0 <= from < "
                                             f"to <= {T}")
        with self._lock:
            return {"from": start, "to": stop,
                    "lambda": self.auction.lam[:, start:stop].tolist(),
                    "phi": self.auction.phi[:, start:stop].tolist()}

    def metrics(self) -> str:
        """The counters and the latency histogram, for Prometheus.

        Returns
        -------
        str
            The Prometheus text exposition: decisions, admitted, repeats, store failures,
            the clock, and the decision latency.
        """
        lines = ["# HELP lorasched_decisions_total tasks decided",
                 "# TYPE lorasched_decisions_total counter",
                 f"lorasched_decisions_total {self.counts['decisions']}",
                 "# HELP lorasched_admitted_total tasks admitted",
                 "# TYPE lorasched_admitted_total counter",
                 f"lorasched_admitted_total {self.counts['admitted']}",
                 "# HELP lorasched_repeated_total requests for an id already decided",
                 "# TYPE lorasched_repeated_total counter",
                 f"lorasched_repeated_total {self.counts['repeated']}",
                 "# HELP lorasched_store_failures_total decisions the store could not keep",
                 "# TYPE lorasched_store_failures_total counter",
                 f"lorasched_store_failures_total {self.counts['store_failures']}",
                 "# HELP lorasched_clock_slot the largest arrival slot seen",
                 "# TYPE lorasched_clock_slot gauge",
                 f"lorasched_clock_slot {self.clock}",
                 "# HELP lorasched_decision_seconds time to decide a new task",
                 "# TYPE lorasched_decision_seconds histogram"]
        total = 0
        for bound, n in zip((*BUCKETS, float("inf")), self.latency.tolist(), strict=True):
            total += n
            le = "+Inf" if bound == float("inf") else f"{bound:g}"
            lines.append(f'lorasched_decision_seconds_bucket{{le="{le}"}} {total}')
        lines += [f"lorasched_decision_seconds_sum {self.latency_sum:.9f}",
                  f"lorasched_decision_seconds_count {total}"]
        return "\n".join(lines) + "\n"

    def close(self) -> None:
        """Close the store (and release the state's lock)."""
        self.store.close()


def _digest(payload: dict) -> str:
    """A hash of a request body (canonical JSON): what a retry under the same id must
    match, without keeping every body in memory."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _load(path) -> xr.Dataset:
    try:
        ds = load_scenario(path)
    except ValueError as err:
        raise ServiceInputError("cluster", f"--cluster: {err}") from None
    if ds.attrs.get("system", "pdftsp") != "pdftsp":
        raise ServiceInputError("cluster", f"--cluster: {path} is a {ds.attrs['system']} "
                                "scenario; the service runs pdFTSP's auction on a pdftsp one")
    return ds
