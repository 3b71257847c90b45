"""The auction behind ``lorasched serve``: one cluster, one
:class:`~lorasched.pdftsp.auction.OnlineAuction`, decisions stored before they are
answered.

* The cluster comes from a pdFTSP scenario file (nodes, capacities, operating cost,
  vendors, slots, the declared value bounds the constants alpha and beta come from); its
  tasks are ignored. A cluster that declares no bounds is refused (an online service
  cannot take them from hindsight).
* :meth:`AuctionService.offer` takes one request body (:mod:`.tasks`): the same ``id``
  again returns the stored decision and admits nothing twice (a different body under a
  used id is refused); a task for a slot before the clock (the largest arrival slot seen)
  is refused; otherwise Algorithm 1 decides, the decision is stored
  (:class:`~lorasched.service.store.Store`), then returned. Offers run one at a time.
* On start the stored decisions are replayed in order through a fresh auction; each must
  come out as stored (the state built by replay is the one lost), else the service
  refuses to start.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter

import numpy as np
import xarray as xr

from ..pdftsp.auction import OnlineAuction
from ..pdftsp.scenario import ScenarioArrays, to_arrays
from ..systems import load_scenario
from .store import Store
from .tasks import ServiceInputError, one_task, parse_task

#: the latency histogram's upper bounds, seconds (Prometheus buckets)
BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
           0.5, 1.0)
#: the cluster fields the fingerprint covers
_CLUSTER = ("compute_capacity", "memory_capacity", "op_cost_rate")


class ConflictError(ServiceInputError):
    """A request that contradicts the state: a used id with another body, a closed slot."""


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
    """The service's state and its one decision path (module docstring).

    ``cluster``: a pdFTSP scenario Dataset or the path of one; ``state_dir``: the folder of
    the durable state; ``payment``, ``constants``, ``solver``, ``work_resolution``: the
    auction's options (:class:`~lorasched.pdftsp.auction.OnlineAuction`); ``sync``: the
    store's durability (:mod:`.store`)."""

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
        started = time.perf_counter()
        for seq, task_id, request, stored in self.store.decisions():
            decision = self._decide(task_id, request, seq)
            if decision != stored:
                raise RuntimeError(f"--state: replaying decision {seq} (task {task_id!r}) "
                                   f"gives {decision}, the store holds {stored}: the state "
                                   f"was built by other code; keep it with that version")
        self.replayed = len(self.by_id)
        self.replay_seconds = time.perf_counter() - started

    # ------------------------------------------------------------------ decisions
    def offer(self, payload) -> tuple[dict, bool]:
        """``(decision, new)`` for one request body; ``new`` is False when the id was
        decided before (the stored decision is returned). Raises
        :class:`ServiceInputError` (bad field) or :class:`ConflictError`."""
        started = time.perf_counter()
        task_id, fields = parse_task(payload, self.cluster, self.gpu_types)
        with self._lock:
            if task_id in self.by_id:
                if self.requests[task_id] != _digest(payload):
                    raise ConflictError("id", f"task {task_id!r}, field 'id': already used for "
                                              f"another task (a retry must send the same body)")
                self.counts["repeated"] += 1
                return self.by_id[task_id], False
            if payload["arrival"] < self.clock:
                raise ConflictError("arrival", f"task {task_id!r}, field 'arrival': slot "
                                               f"{payload['arrival']} is closed (the clock "
                                               f"is at slot {self.clock})")
            seq = len(self.by_id) + 1
            decision = self._decide(task_id, payload, seq, fields)
            self.store.append(seq, task_id, payload, decision)
            seconds = time.perf_counter() - started
            self.latency[int(np.searchsorted(BUCKETS, seconds))] += 1
            self.latency_sum += seconds
        return decision, True

    def _decide(self, task_id: str, payload: dict, seq: int, fields: dict | None = None
                ) -> dict:
        if fields is None:
            _, fields = parse_task(payload, self.cluster, self.gpu_types)
        self.auction.arrays = one_task(self.cluster, fields)
        d = self.auction.offer(0)
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
        self.by_id[task_id] = decision
        self.requests[task_id] = _digest(payload)  # a retry must match it
        self.clock = max(self.clock, fields["arrival"])
        self.counts["decisions"] += 1
        self.counts["admitted"] += int(d.admitted)
        return decision

    # ------------------------------------------------------------------ reading
    def get(self, task_id: str) -> dict | None:
        return self.by_id.get(task_id)

    def prices(self, start: int, stop: int) -> dict:
        """lambda and phi (node x slot) for slots ``start..stop-1``."""
        T = self.cluster.n_slots
        if not 0 <= start < stop <= T:
            raise ServiceInputError("slots", f"slots {start}..{stop - 1}: need 0 <= from < "
                                             f"to <= {T}")
        with self._lock:
            return {"from": start, "to": stop,
                    "lambda": self.auction.lam[:, start:stop].tolist(),
                    "phi": self.auction.phi[:, start:stop].tolist()}

    def metrics(self) -> str:
        """The Prometheus text exposition of the counters and the latency histogram."""
        lines = ["# HELP lorasched_decisions_total tasks decided",
                 "# TYPE lorasched_decisions_total counter",
                 f"lorasched_decisions_total {self.counts['decisions']}",
                 "# HELP lorasched_admitted_total tasks admitted",
                 "# TYPE lorasched_admitted_total counter",
                 f"lorasched_admitted_total {self.counts['admitted']}",
                 "# HELP lorasched_repeated_total requests for an id already decided",
                 "# TYPE lorasched_repeated_total counter",
                 f"lorasched_repeated_total {self.counts['repeated']}",
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
