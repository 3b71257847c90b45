"""What the book's page "pdFTSP as a service" measures, in the page's own process: the
decision latency in process and over loopback HTTP, the replay's equivalence with
``lorasched simulate``, and a restart's replay of the stored state."""

from __future__ import annotations

import socket
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import uvicorn
import xarray as xr

from ..figures.base import Prose, paragraphs
from .auction import AuctionService
from .http import create_app
from .loadgen import Replay, compare, replay
from .tasks import scenario_requests


class LoopbackServer:
    """The service's HTTP app on ``127.0.0.1`` and a free port, run by uvicorn in a thread
    of this process (a context manager; ``url`` while it runs)."""

    def __init__(self, service: AuctionService):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
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


def in_process(scenario: xr.Dataset, state_dir) -> tuple[np.ndarray, list[dict]]:
    """Offer every task of ``scenario`` to a fresh service (state in ``state_dir``), in
    order, timing each :meth:`~AuctionService.offer` (decision and durable store)."""
    service = AuctionService(scenario, state_dir)
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
            out["loopback"][c] = {"replay": run, "compare": compare(scenario, run.decision)}
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
