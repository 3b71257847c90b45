"""What the book's page "pdFTSP as a service" measures, in the page's own process: the
decision latency in process and over loopback HTTP, the replay's equivalence with
``lorasched simulate``, and a restart's replay of the stored state."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
import uvicorn
import xarray as xr

from ..explorer.app import free_port
from ..figures.base import Prose, paragraphs
from ..pdftsp.workload import synthetic_scenario
from ..service.auction_service import AuctionService
from ..service.http import create_app
from ..service.loadgen import Replay, compare, replay
from ..service.tasks import scenario_requests


class LoopbackServer:
    """The service's HTTP app on ``127.0.0.1`` and a free port, run by uvicorn in a thread
    of this process (a context manager; ``url`` while it runs)."""

    def __init__(self, service: AuctionService):
        self.port = free_port()
        config = uvicorn.Config(create_app(service), host="127.0.0.1", port=self.port,
                                log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LoopbackServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the loopback server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def in_process(scenario: xr.Dataset, state_dir, sync: str = "full"
               ) -> tuple[np.ndarray, list[dict]]:
    """Offer every task of ``scenario`` to a fresh service (state in ``state_dir``, the
    store's ``sync``), in order, timing each :meth:`~AuctionService.offer` (decision and
    durable store)."""
    service = AuctionService(scenario, state_dir, sync=sync)
    seconds, out = [], []
    for body in scenario_requests(scenario):
        start = time.perf_counter()
        out.append(service.offer(body)[0])
        seconds.append(time.perf_counter() - start)
    service.close()
    return np.array(seconds), out


def measure(scenario: xr.Dataset, concurrency: tuple[int, ...] = (1, 4),
            folder=None) -> dict:
    """The page's measurements (module docstring): ``in_process`` latencies (s), a
    :class:`~lorasched.service.loadgen.Replay` per ``concurrency`` over loopback (each on
    a fresh state), each run's comparison with simulate, and the restart of the last
    state (``replayed`` decisions, ``replay_seconds``, ``same_prices``)."""
    with tempfile.TemporaryDirectory(prefix="lorasched-serve-") as tmp:
        root = Path(folder or tmp)
        seconds, decisions = in_process(scenario, root / "in-process")
        out = {"tasks": scenario.sizes["task"], "in_process": seconds,
               "in_process_compare": compare(scenario, decisions), "loopback": {}}
        for c in concurrency:
            service = AuctionService(scenario, root / f"loopback-{c}")
            with LoopbackServer(service) as server:
                run: Replay = replay(server.url, scenario, concurrency=c)
            lam, phi = service.auction.lam.copy(), service.auction.phi.copy()
            service.close()
            out["loopback"][c] = {"replay": run,
                                  "compare": compare(scenario, run.acknowledged())}
        again = AuctionService(scenario, root / f"loopback-{concurrency[-1]}")
        out["restart"] = {"replayed": again.replayed, "replay_seconds": again.replay_seconds,
                          "same_prices": bool(np.array_equal(again.auction.lam, lam)
                                              and np.array_equal(again.auction.phi, phi))}
        again.close()
    return out


def findings(m: dict) -> Prose:
    """The page's prose, every number from ``m``."""
    p = np.percentile(m["in_process"] * 1e3, [50, 99])
    c = m["in_process_compare"]
    parts = [f"In process, a decision and its durable store take {p[0]:.2f} ms at the "
             f"median and {p[1]:.2f} ms at the 99th percentile over {m['tasks']} tasks; "
             f"{c['identical']} of {c['tasks']} decisions are those of lorasched simulate."]
    for conc, r in m["loopback"].items():
        run, cmp_ = r["replay"], r["compare"]
        q = run.percentiles()
        parts.append(f"Over loopback HTTP with {conc} client thread{'s' * (conc > 1)}: "
                     f"{run.throughput:.0f} requests per second, latency {q[50]:.2f} ms at "
                     f"the median and {q[99]:.2f} ms at the 99th percentile; "
                     f"{cmp_['identical']} of {cmp_['tasks']} decisions identical to "
                     f"simulate in the order the server served them.")
    r = m["restart"]
    parts.append(f"A restart on the last state replayed its {r['replayed']} decisions in "
                 f"{r['replay_seconds'] * 1e3:.0f} ms and "
                 f"{'rebuilt' if r['same_prices'] else 'did not rebuild'} the same dual "
                 f"prices.")
    return paragraphs(*parts)


class ServerProcess:
    """``lorasched serve`` in a process of its own (a context manager; ``url``): what the
    benchmark measures, so that the client's threads do not share the server's GIL."""

    def __init__(self, cluster_path, state_dir, *, port: int | None = None,
                 timeout: float = 120.0):
        self.port = free_port() if port is None else int(port)
        self.url = f"http://127.0.0.1:{self.port}"
        self.args = [sys.executable, "-c", "import sys; from lorasched.cli import main; "
                     "sys.exit(main())", "serve", "--cluster", str(cluster_path), "--state",
                     str(state_dir), "--port", str(self.port)]
        self.timeout = timeout

    def __enter__(self) -> ServerProcess:
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=2):
                    return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.proc.kill()
                    raise RuntimeError(f"lorasched serve did not start: "
                                       f"{self.proc.stdout.read()[-2000:]}") from None
                time.sleep(0.1)

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)
        self.proc.stdout.close()


def benchmark(nodes=(100, 2000), *, load: str = "high", seed: int = 1,
              concurrency=(1, 2), limit: int | None = None) -> list[dict]:
    """Per cluster size ``K`` in ``nodes`` (the synthetic ``load`` day of ``seed``, its
    first ``limit`` tasks): the in-process decision time (p50, p99, decisions/s), then
    ``lorasched serve`` in its own process driven by :func:`replay` at each
    ``concurrency`` over loopback (decisions/s, p50/p99), and every decision compared with
    simulate (admission, cells, vendor, payment)."""
    rows = []
    for K in nodes:
        day = synthetic_scenario(nodes=int(K), load=load, seed=seed)
        if limit is not None:
            day = day.isel(task=slice(0, int(limit)))
        with tempfile.TemporaryDirectory(prefix="lorasched-bench-") as tmp:
            for sync in ("full", "normal"):
                seconds, decisions = in_process(day, Path(tmp) / f"in-process-{sync}", sync)
                ms = seconds * 1e3
                cmp_ = compare(day, decisions)
                rows.append({"K": int(K), "tasks": int(day.sizes["task"]),
                             "where": "in process" + ("" if sync == "full" else
                                                      ", sync=normal"),
                             "clients": 0, "per_s": float(len(seconds) / seconds.sum()),
                             "p50_ms": float(np.percentile(ms, 50)),
                             "p99_ms": float(np.percentile(ms, 99)),
                             "identical": cmp_["identical"], "admitted":
                             int(sum(d["admitted"] for d in decisions))})
            cluster = Path(tmp) / "cluster.nc"
            day.to_netcdf(cluster)
            for c in concurrency:
                with ServerProcess(cluster, Path(tmp) / f"state-{c}") as server:
                    run = replay(server.url, day, concurrency=int(c))
                acked = run.acknowledged()
                cmp_ = compare(day, acked)
                q = run.percentiles((50, 99))
                rows.append({"K": int(K), "tasks": int(day.sizes["task"]),
                             "where": "loopback HTTP", "clients": int(c),
                             "per_s": run.throughput, "p50_ms": q[50], "p99_ms": q[99],
                             "identical": cmp_["identical"],
                             "admitted": int(sum(d["admitted"] for d in acked))})
    return rows


#: the service's speed goals: (rows they apply to, column, bound)
GOALS = {"p99 in process <= 1 ms at K = 100": ("in process", 100, "p99_ms", 1.0),
         "p99 over loopback <= 5 ms at K = 100": ("loopback HTTP", 100, "p99_ms", 5.0),
         ">= 1,000 decisions/s over loopback at K = 100": ("loopback HTTP", 100, "per_s",
                                                           1000.0)}
