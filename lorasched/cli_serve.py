"""``lorasched serve`` and ``lorasched loadgen`` (the parser is :mod:`lorasched.cli`'s)."""

from __future__ import annotations

import json
import sys

from . import systems
from .bench import faults as service_drill
from .bench import service as service_bench
from .pdftsp.workload import synthetic_scenario
from .service import AuctionService
from .service import http as service_http
from .service.loadgen import compare, replay


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


def bench(args) -> int:
    """``lorasched bench service``: print the table (and the issue's goals) and write JSON."""
    rows = service_bench.benchmark(tuple(args.nodes), concurrency=tuple(args.clients),
                                   limit=args.limit)
    print(f"{'K':>6} {'tasks':>7} {'where':<27} {'clients':>7} {'decisions/s':>12} "
          f"{'p50 ms':>8} {'p99 ms':>8} {'as simulate':>12} {'admitted':>9}")
    for r in rows:
        print(f"{r['K']:>6} {r['tasks']:>7} {r['where']:<27} {r['clients'] or '-':>7} "
              f"{r['per_s']:>12,.0f} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} "
              f"{r['identical']:>5} / {r['tasks']:<5} {r['admitted']:>9}")
    for goal, (where, K, column, bound) in service_bench.GOALS.items():
        hit = [r for r in rows if r["where"] == where and r["K"] == K]
        if hit:
            ok = [(r[column] <= bound) if column != "per_s" else (r[column] >= bound)
                  for r in hit]
            print(f"goal {goal}: " + ", ".join(
                f"{'met' if o else 'missed'} ({r[column]:,.2f}"
                f"{', ' + str(r['clients']) + ' client(s)' if r['clients'] else ''})"
                for o, r in zip(ok, hit, strict=True)))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
        print(f"wrote {args.out}")
    return 0


def faults(args) -> int:
    """``lorasched bench faults``: the fault drill's table; exit 1 if any row fails."""
    day = synthetic_scenario(nodes=args.nodes, slots=args.slots, load=3.0, seed=args.seed)
    rows = service_drill.drill(day)
    print(f"fault drill: {day.sizes['task']} tasks, K = {args.nodes}, {args.slots} slots, "
          f"seed {args.seed}")
    for r in rows:
        print(f"- {r['fault']}\n    answers: {r['answers']}\n    after restart: "
              f"{r['after restart']}; acknowledged back unchanged: "
              f"{r['acknowledged back unchanged']}; ok: {r['day as uninterrupted']}")
    return 0 if all(r["day as uninterrupted"] for r in rows) else 1
