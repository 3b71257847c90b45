"""``lorasched serve`` and ``lorasched loadgen`` (the parser is :mod:`lorasched.cli`'s)."""

from __future__ import annotations

import sys

import xarray as xr

from .service import AuctionService
from .service import http as service_http
from .service.loadgen import compare, replay


def serve(args) -> int:
    """Start the auction service on ``args.host:args.port`` until interrupted."""
    service_http.check_bind(args.host, args.token)
    service = AuctionService(args.cluster, args.state, payment=args.payment,
                             constants=args.constants, solver=args.solver)
    print(f"lorasched serve: http://{args.host}:{args.port}/ (cluster {args.cluster}: "
          f"{service.cluster.n_nodes} nodes, {service.cluster.n_slots} slots; state "
          f"{service.store.path}: {service.replayed} decisions replayed in "
          f"{service.replay_seconds:.2f} s, clock at slot {service.clock})", flush=True)
    try:
        service_http.serve(service, args.host, args.port, token=args.token)
    finally:
        service.close()
    return 0


def loadgen(args) -> int:
    """Replay a scenario against a server, print throughput, latency and the comparison
    with ``lorasched simulate``; exit 1 if any decision differs."""
    try:
        scenario = xr.load_dataset(args.scenario)
    except (OSError, ValueError) as err:
        raise ValueError(f"SCENARIO: cannot read {args.scenario}: {err}") from None
    run = replay(args.url, scenario, concurrency=args.concurrency, rate=args.rate,
                 limit=args.limit, timeout=args.timeout, deadline_s=args.deadline,
                 token=args.token)
    codes = {}
    for s in run.status:
        codes[s] = codes.get(s, 0) + 1
    p = run.percentiles()
    print(f"{len(run.status)} requests in {run.seconds:.2f} s ({run.throughput:.0f}/s, "
          f"concurrency {args.concurrency}); latency p50 {p[50]:.2f} ms, p90 {p[90]:.2f} ms, "
          f"p99 {p[99]:.2f} ms; status " + ", ".join(f"{k}: {v}" for k, v in
                                                      sorted(codes.items())))
    ok = [d for s, d in zip(run.status, run.decision, strict=True) if s in (200, 201)]
    result = compare(scenario, ok)
    print(f"decisions identical to lorasched simulate (in the server's order): "
          f"{result['identical']} of {result['tasks']}"
          + (f"; differ: {', '.join(result['differ'][:10])}" if result["differ"] else ""))
    if result["differ"]:
        print("lorasched loadgen: decisions differ from simulate", file=sys.stderr)
        return 1
    return 0
