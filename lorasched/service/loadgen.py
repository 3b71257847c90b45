"""``lorasched loadgen``: replay a scenario's tasks against a running service, measure, and
compare every decision with ``lorasched simulate`` in the order the server served them
(:doc:`/reference/service`).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import xarray as xr

from ..model.errors import InputError
from ..systems import simulate
from .tasks import scenario_requests


@dataclass
class Replay:
    """What :func:`replay` measured, per request (the scenario's order): the task ``ids``,
    the HTTP ``status`` (0: no answer, the connection failed or the run's deadline passed
    first), the ``decision`` (or the error body; ``None`` without an answer) and the
    ``latency`` (s, client side; ``nan`` without an answer); the wall ``seconds``."""

    ids: list[str]
    status: list[int]
    decision: list[dict | None]
    latency: np.ndarray
    seconds: float

    @property
    def answered(self) -> int:
        return int(np.isfinite(self.latency).sum())

    @property
    def throughput(self) -> float:
        """Answered requests per second."""
        return self.answered / self.seconds if self.seconds > 0 else float("nan")

    def percentiles(self, q=(50, 90, 99)) -> dict[int, float]:
        """Latency percentiles of the answered requests, milliseconds."""
        ok = self.latency[np.isfinite(self.latency)]
        return {p: float(np.percentile(ok, p) * 1e3) if ok.size else float("nan") for p in q}

    def acknowledged(self) -> list[dict]:
        """The decisions the server answered (200 or 201)."""
        return [d for s, d in zip(self.status, self.decision, strict=True) if s in (200, 201)]


def _client(url: str, timeout: float):
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise InputError(f"URL: need http://host:port, got {url!r}")
    return parts.hostname, parts.port or 80, timeout


def replay(url: str, scenario: xr.Dataset, *, concurrency: int = 1, rate: float | None = None,
           limit: int | None = None, timeout: float = 30.0, deadline_s: float = 600.0,
           token: str | None = None) -> Replay:
    """Send the scenario's tasks to the service at ``url`` (module docstring)."""
    for name, value, low in (("concurrency", concurrency, 1), ("limit", limit, 1)):
        if value is not None and (not isinstance(value, int) or value < low):
            raise InputError(f"--{name} must be a whole number >= {low}, got {value!r}")
    if rate is not None and not rate > 0:
        raise InputError(f"--rate must be > 0 requests per second, got {rate!r}")
    host, port, timeout = _client(url, timeout)
    bodies = scenario_requests(scenario)[:limit]
    n = len(bodies)
    status, decision = [0] * n, [None] * n
    latency = np.full(n, np.nan)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    local = threading.local()
    start = time.perf_counter()

    def send(i: int) -> None:
        if time.perf_counter() - start > deadline_s:
            return
        if rate is not None:  # pace: request i not before start + i / rate
            time.sleep(max(0.0, start + i / rate - time.perf_counter()))
        if not hasattr(local, "conn"):
            local.conn = http.client.HTTPConnection(host, port, timeout=timeout)
        sent = time.perf_counter()
        try:
            local.conn.request("POST", "/v1/tasks", json.dumps(bodies[i]), headers)
            response = local.conn.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException):
            local.conn.close()  # no answer: status 0; a new connection next time
            del local.conn
            return
        latency[i] = time.perf_counter() - sent
        status[i] = response.status
        decision[i] = json.loads(body) if body else None

    # one slot at a time (the service refuses a slot before its clock), its tasks
    # concurrently
    arrival = np.array([b["arrival"] for b in bodies], dtype=np.int64)
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        for slot in np.unique(arrival).tolist():
            list(pool.map(send, np.flatnonzero(arrival == slot).tolist()))
    return Replay(ids=[b["id"] for b in bodies], status=status, decision=decision,
                  latency=latency, seconds=time.perf_counter() - start)


def compare(scenario: xr.Dataset, decisions: list[dict]) -> dict:
    """Compare the service's ``decisions`` (one per task sent, with their ``seq``) with
    :func:`lorasched.systems.simulate` on the scenario's same tasks in the server's order:
    ``{"tasks", "identical", "differ": [ids]}`` (admission, payment, vendor and cells)."""
    by_seq = sorted((d for d in decisions if d and "seq" in d), key=lambda d: d["seq"])
    index = [int(d["id"].split("-", 1)[1]) for d in by_seq]
    sub = scenario.isel(task=index).assign_coords(task=np.arange(len(index)))
    ref = simulate(sub, "pdftsp")
    differ = []
    cells_task = ref["cell_task"].values
    for k, d in enumerate(by_seq):
        mine = sorted(map(tuple, d["cells"]))
        theirs = sorted(zip(ref["cell_node"].values[cells_task == k].tolist(),
                            ref["cell_slot"].values[cells_task == k].tolist(), strict=True))
        vendor = int(ref["chosen_vendor"].values[k])
        same = (d["admitted"] == bool(ref["admitted"].values[k])
                and d["payment"] == float(ref["payment"].values[k])
                and mine == theirs
                and (d["vendor"] if d["vendor"] is not None else -1)
                == (vendor if d["admitted"] and vendor >= 0 else -1))
        if not same:
            differ.append(d["id"])
    return {"tasks": len(by_seq), "identical": len(by_seq) - len(differ), "differ": differ}
