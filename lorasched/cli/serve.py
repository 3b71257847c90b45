"""``lorasched serve`` and ``lorasched loadgen``: pdFTSP's auction as a durable HTTP/JSON
service (every decision stored before it is answered), and a client that replays a
scenario against it and compares its decisions with ``lorasched simulate``."""

from __future__ import annotations

import sys

from .. import systems
from ..pdftsp.auction import CONSTANTS
from ..service import AuctionService
from ..service import http as service_http
from ..service.loadgen import compare, replay
from .arguments import positive_int


def register(sub) -> None:
    """The ``serve`` and ``loadgen`` commands."""
    sv = sub.add_parser(
        "serve", help="pdFTSP's auction as a durable HTTP/JSON admission and pricing service",
        description="Serve the auction of a cluster (a pdFTSP scenario file; its tasks are "
        "ignored) at http://HOST:PORT/v1/ until Ctrl-C. Every decision is stored in "
        "STATE/auction.sqlite3 before it is answered; a restart replays them.")
    sv.add_argument("--cluster", required=True, help="a pdFTSP scenario file (.nc)")
    sv.add_argument("--state", required=True, help="folder of the durable state")
    sv.add_argument("--host", default="127.0.0.1",
                    help="address to bind (127.0.0.1; any other needs --token)")
    sv.add_argument("--port", type=int, default=8000, help="port (8000)")
    sv.add_argument("--token", default=None,
                    help="bearer token every request must carry (16+ characters)")
    sv.add_argument("--payment", default="critical", choices=["critical", "paper"])
    sv.add_argument("--constants", default="lemma2", choices=list(CONSTANTS))
    sv.add_argument("--solver", default="paper", choices=["paper", "exact"])
    sv.add_argument("--sync", default="full", choices=["full", "normal"],
                    help="full: each decision on disk before its reply (default); normal: in "
                    "the OS's write-ahead log (survives a killed process, not a power loss)")
    sv.set_defaults(run=serve)
    _register_loadgen(sub)


def _register_loadgen(sub) -> None:
    lg = sub.add_parser(
        "loadgen", help="replay a scenario's tasks against a running service and compare "
        "its decisions with lorasched simulate")
    lg.add_argument("url", help="the service, http://HOST:PORT")
    lg.add_argument("scenario", help="a pdFTSP scenario file (.nc) on the service's cluster")
    lg.add_argument("--concurrency", type=positive_int, default=1,
                    help="client threads (1: the scenario's order)")
    lg.add_argument("--rate", type=float, default=None,
                    help="requests per second at most (none: as fast as answered)")
    lg.add_argument("--limit", type=positive_int, default=None, help="send at most N tasks")
    lg.add_argument("--timeout", type=float, default=30.0, help="per request, s (30)")
    lg.add_argument("--deadline", type=float, default=600.0,
                    help="stop sending after this many seconds (600)")
    lg.add_argument("--token", default=None, help="the service's bearer token")
    lg.set_defaults(run=loadgen)


def serve(args) -> int:
    """Start the auction service on ``args.host:args.port`` until interrupted."""
    service_http.check_bind(args.host, args.token)
    service = AuctionService(args.cluster, args.state, payment=args.payment,
                             constants=args.constants, solver=args.solver, sync=args.sync)
    print(f"lorasched serve: http://{args.host}:{args.port}/ (cluster {args.cluster}: "
          f"{service.cluster.n_nodes} nodes, {service.cluster.n_slots} slots; state "
          f"{service.store.path}: {service.replayed} decisions replayed in "
          f"{service.replay_seconds:.2f} s, clock at slot {service.clock})", flush=True)
    try:
        service_http.serve(service, args.host, args.port, token=args.token)
    finally:
        service.close()
        print(f"lorasched serve: stopped; {len(service.by_id)} decisions stored in "
              f"{service.store.path}", flush=True)
    return 0


def loadgen(args) -> int:
    """Replay a scenario against a server, print throughput, latency and the comparison
    with ``lorasched simulate``; exit 1 if any decision differs."""
    scenario = systems.load_scenario(args.scenario)
    run = replay(args.url, scenario, concurrency=args.concurrency, rate=args.rate,
                 limit=args.limit, timeout=args.timeout, deadline_s=args.deadline,
                 token=args.token)
    codes = {}
    for s in run.status:
        codes[s] = codes.get(s, 0) + 1
    p = run.percentiles()
    print(f"{run.answered} of {len(run.status)} requests answered in {run.seconds:.2f} s "
          f"({run.throughput:.0f}/s, "
          f"concurrency {args.concurrency}); latency p50 {p[50]:.2f} ms, p90 {p[90]:.2f} ms, "
          f"p99 {p[99]:.2f} ms; status " + ", ".join(f"{k}: {v}" for k, v in
                                                      sorted(codes.items())))
    result = compare(scenario, run.acknowledged())
    print(f"decisions identical to lorasched simulate (in the server's order): "
          f"{result['identical']} of {result['tasks']}"
          + (f"; differ: {', '.join(result['differ'][:10])}" if result["differ"] else ""))
    if result["differ"]:
        print("lorasched loadgen: decisions differ from simulate", file=sys.stderr)
        return 1
    return 0
