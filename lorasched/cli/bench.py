"""``lorasched bench <name>``: print benchmark figures (pdFTSP's decision time, its DP
against the exact solver, runtime against Titan, welfare against the OPT bound, the speed
table at every scale, the candidate index, Titan's MILP settings and the summary's
verdicts under them, a figure's worst runs of Titan re-run at the paper's gap, the
service's throughput, the service under injected faults, the
progress bar's estimates replayed on a finished batch). Each
sub-command is one ``_register_*`` function and one ``_run_*``/``run`` function."""

from __future__ import annotations

import json

from ..bench import faults, scale, titan_per_slot
from ..bench import pdftsp as pdftsp_bench
from ..bench import progress as progress_bench
from ..bench import service as service_bench
from ..figures import pdftsp as figures
from ..figures.pdftsp import strict as titan_strict
from ..pdftsp.baselines.titan_per_slot import MIP_SETTINGS as titan_mip_settings
from ..pdftsp.workload import synthetic_scenario
from .arguments import positive_int, scenario_args
from .reproduce import provenance


def register(sub) -> None:
    """The ``bench`` command and its sub-commands."""
    parent = sub.add_parser("bench", help="print benchmark figures")
    bsub = parent.add_subparsers(dest="bench", required=True)
    for add in (_register_day_benches, _register_scale, _register_index, _register_titan,
                _register_verdicts, _register_strict, _register_service, _register_faults,
                _register_progress):
        add(bsub)


# ---------------------------------------------------- one synthetic day: four benches


def _register_day_benches(bsub) -> None:
    """decision, solvers, runtime, compare: each on one synthetic day (scenario flags)."""
    dec = bsub.add_parser("decision", help="time per task decision and numba speed-up")
    scenario_args(dec)
    dec.add_argument("--python-tasks", type=positive_int, default=40,
                     help="decisions timed in pure Python (40)")
    dec.set_defaults(run=_run_decision)
    sol = bsub.add_parser("solvers", help="how often the paper DP is optimal for (12)")
    scenario_args(sol)
    sol.add_argument("--tasks", type=positive_int, default=3000, help="tasks quoted (3000)")
    sol.set_defaults(run=_run_solvers)
    rt = bsub.add_parser("runtime", help="time per task of pdFTSP and Titan (Fig. 13)")
    scenario_args(rt)
    rt.add_argument("--sizes", type=positive_int, nargs="+", default=[25, 50, 100],
                    help="cluster sizes K (25 50 100)")
    rt.set_defaults(run=_run_runtime)
    cmp_ = bsub.add_parser("compare", help="welfare of all algorithms and the OPT bound")
    scenario_args(cmp_)
    cmp_.add_argument("--no-bound", action="store_true", help="skip the offline LP bound")
    cmp_.add_argument("--bound-time-limit", type=float, default=600.0,
                      help="seconds for the bound's column generation (600)")
    cmp_.set_defaults(run=_run_compare)


def _day(args) -> dict:
    """The synthetic day's settings the four day benches share."""
    return dict(nodes=args.nodes, slots=args.slots, vendors=args.vendors, load=args.load,
                seed=args.seed)


def _run_decision(args) -> int:
    pdftsp_bench.decision(python_tasks=args.python_tasks, **_day(args))
    return 0


def _run_solvers(args) -> int:
    pdftsp_bench.solvers(max_tasks=args.tasks, **_day(args))
    return 0


def _run_runtime(args) -> int:
    day = _day(args)
    day.pop("nodes")
    pdftsp_bench.runtime(nodes=tuple(args.sizes), **day)
    return 0


def _run_compare(args) -> int:
    pdftsp_bench.compare(bound=not args.no_bound, bound_time_limit=args.bound_time_limit,
                  **_day(args))
    return 0


# ------------------------------------------------------------------- the other benches


def _register_scale(bsub) -> None:
    sc = bsub.add_parser("scale", help="time and memory at every scale (the speed table)",
                         description="Each row is measured in its own process (peak memory "
                         "= its max RSS); prints the table, writes it as JSON.")
    sc.add_argument("--rows", nargs="+", default=list(scale.DEFAULT_ROWS),
                    choices=scale.ROWS, metavar="ROW",
                    help=f"rows to measure, of {', '.join(scale.ROWS)} (default: all "
                         "but book, which runs make book in a fresh clone)")
    sc.add_argument("--out", default="bench-scale.json", help="JSON file (bench-scale.json)")
    sc.add_argument("--baseline", default=None,
                    help="a previous JSON of this command: print the ratios to it")
    sc.add_argument("--keep-store", default=None, metavar="DIR",
                    help="book row: copy the fresh clone's store of cells to DIR")
    sc.add_argument("--candidates", choices=["auto", "scan"], default="auto",
                    help="pdFTSP's candidate cells in every pdFTSP day: the index (auto) or "
                    "the scan (slower; the same decisions)")
    sc.set_defaults(run=_run_scale)


def _run_scale(args) -> int:
    scale.scale(tuple(args.rows), out_path=args.out, baseline_path=args.baseline,
                      keep_store=args.keep_store, candidates=args.candidates)
    return 0


def _register_index(bsub) -> None:
    ix = bsub.add_parser("index", help="pdFTSP with and without the exact candidate index",
                         description="The same days run with the scan and with the index "
                         "(lorasched.pdftsp.candidate_index): seconds, median decision, and "
                         "whether every decision, payment and price is identical. K = 100 and "
                         "200 at high load, 2,000 at the 10x day's 800 arrivals a slot.")
    ix.add_argument("--nodes", nargs="+", type=positive_int, default=[100, 200, 2000],
                    help="cluster sizes K (100 200 2000)")
    ix.add_argument("--seeds", nargs="+", type=positive_int, default=[1, 2, 3],
                    help="seeds (1 2 3)")
    ix.add_argument("--solvers", nargs="+", default=["paper", "exact"],
                    choices=["paper", "exact"], help="DPs (paper exact)")
    ix.add_argument("--payments", nargs="+", default=["critical", "paper"],
                    choices=["critical", "paper"], help="payment rules (critical paper)")
    ix.add_argument("--slots", type=positive_int, default=144,
                    help="slots of each day (144)")
    ix.set_defaults(run=_run_index)


def _run_index(args) -> int:
    pdftsp_bench.index(tuple(args.nodes), tuple(args.seeds), tuple(args.solvers),
                tuple(args.payments), args.slots)
    return 0


def _register_titan(bsub) -> None:
    tb = bsub.add_parser("titan", help="Titan's K = 100 high-load day under each MILP setting",
                         description="Titan-per-slot's day (K = 100, high load) under each "
                         "per-slot MILP setting and seed, each in its own process: seconds, "
                         "admitted, welfare, slots at a limit, certified per-slot gap.")
    tb.add_argument("--settings", nargs="+", default=list(titan_mip_settings),
                    choices=list(titan_mip_settings),
                    help=f"MILP settings (all: {' '.join(titan_mip_settings)})")
    tb.add_argument("--seeds", nargs="+", type=positive_int, default=[1, 2, 3],
                    help="seeds (1 2 3)")
    tb.add_argument("--algorithm", default="titan", choices=["titan", "titan_oracle"])
    tb.add_argument("--out", default=None, help="write the table as JSON here")
    tb.add_argument("--merge", action="store_true",
                    help="keep --out's rows of the settings not measured now")
    tb.add_argument("--gaps", action="store_true",
                    help="instead: the converged and the budget-limited Titan at --nodes "
                         "(medium load) with pdFTSP beside them: certified per-slot gap, "
                         "welfare, CPU seconds")
    tb.add_argument("--nodes", nargs="+", type=positive_int, default=[30, 50, 100, 200],
                    help="with --gaps: cluster sizes K (30 50 100 200)")
    tb.add_argument("--load", default="medium", choices=["light", "medium", "high"],
                    help="with --gaps: the day's load (medium)")
    readings = list(titan_per_slot.TITAN_READINGS)
    tb.add_argument("--readings", nargs="+", default=readings, choices=readings,
                    metavar="READING",
                    help=f"with --gaps: Titan's readings (all: {', '.join(readings)})")
    tb.add_argument("--store", default=None, metavar="DIR",
                    help="instead: the Titan cells of a sweep store (build/sweeps/full "
                         "after make book): CPU seconds and largest certified gap per "
                         "setting and seed")
    tb.set_defaults(run=_run_titan)


def _run_titan(args) -> int:
    if args.store is not None:
        print(titan_per_slot.titan_cells_text(titan_per_slot.titan_cells(args.store)))
        return 0
    if args.gaps:
        titan_per_slot.titan_gaps(args.nodes, args.seeds, out_path=args.out,
                                  day={"kind": "day", "load": args.load},
                                  readings=tuple(args.readings))
        return 0
    titan_per_slot.titan_settings(args.settings, args.seeds, algorithm=args.algorithm,
                               out_path=args.out, merge=args.merge)
    return 0


def _register_verdicts(bsub) -> None:
    vd = bsub.add_parser("verdicts", help="the pdFTSP summary's verdicts under Titan's settings",
                         description="Every pdFTSP figure's cells (full size, resumable) with "
                         "Titan-per-slot's per-slot MILP under each setting, each setting in "
                         "its own store; then the summary's claims under each. Most of an "
                         "hour per setting whose store is empty.")
    vd.add_argument("--settings", nargs="+", default=["rens_lean", "rens_pscost"],
                    choices=list(titan_mip_settings),
                    help="MILP settings, the figures' first (rens_lean rens_pscost)")
    vd.add_argument("--store", nargs=2, action="append", default=[],
                    metavar=("SETTING", "DIR"),
                    help="a setting's store (default: build/sweeps/full for the figures' "
                         "setting, build/sweeps/full-titan-SETTING for another)")
    vd.add_argument("--out", default=None, help="write the rows as JSON here")
    vd.add_argument("--merge", action="store_true",
                    help="keep --out's rows of the settings not computed now")
    vd.set_defaults(run=_run_verdicts)


def _run_verdicts(args) -> int:
    data = figures.titan_setting_verdicts(tuple(args.settings), stores=dict(args.store),
                                          out_path=args.out, merge=args.merge)
    print(figures.setting_verdicts_table(data).to_string(index=False))
    print(figures.setting_verdicts_findings(data))
    return 0


def _register_strict(bsub) -> None:
    st = bsub.add_parser("titan-strict",
                         help="a figure's worst runs of Titan re-run at the paper's 0.01 % gap",
                         description="Re-run a pdFTSP figure's runs of Titan with the largest "
                         "certified per-slot gaps at 0.01 % (Gurobi's default; the figures "
                         "ask 1 %), each a cell in the store (resumable); print their gaps "
                         "before and after and the figure's verdicts with them in place, and "
                         "keep the runs in lorasched/figures/pdftsp/titan_strict.csv, which "
                         "the figure's page reads.")
    st.add_argument("--figure", required=True, help="the figure (fig04 ... fig09, fig12)")
    st.add_argument("--size", default="full", choices=["small", "full"],
                    help="the figures' size (full)")
    st.add_argument("--count", type=positive_int, default=3,
                    help="how many runs, those with the largest gaps first (3)")
    st.add_argument("--store", default=None, metavar="DIR",
                    help="the figure's finished cells (default build/sweeps/SIZE)")
    st.add_argument("--strict-store", default=None, metavar="DIR",
                    help="where the re-runs' cells are kept (default "
                         "build/sweeps/SIZE-titan-strict)")
    st.add_argument("--out", default=None, metavar="CSV",
                    help="the file of re-runs (default the package's titan_strict.csv)")
    st.set_defaults(run=_run_strict)


def _run_strict(args) -> int:
    fig = figures.figure(args.figure)
    data = fig.data(args.size, store=args.store)
    out = titan_strict.STRICT_FILE if args.out is None else args.out
    where = {k: v for k, v in provenance().items() if k != "made"}
    rows = titan_strict.rerun_worst(fig, args.size, args.count, data=data,
                                    store=args.strict_store, out_path=out, provenance=where)
    print(rows[["at", "seed", "gap_before", "capped_before", "max_gap", "task_gap",
                "slots_hit_limit", "cpu_seconds", "wall_seconds"]].to_string(index=False))
    moves = titan_strict.verdict_moves(fig, data, titan_strict.substitute(data, rows))
    print(moves.to_string(index=False))
    print(titan_strict.strict_text(fig, data, args.size, path=out))
    return 0


def _register_service(bsub) -> None:
    bs = bsub.add_parser("service", help="lorasched serve: decisions/s and latency in process "
                         "and over loopback HTTP at K = 100 and 2,000",
                         description="The synthetic high-load day at each K: every task "
                         "offered in process, then through `lorasched serve` in its own "
                         "process; decisions/s, p50/p99 latency, and every decision compared "
                         "with lorasched simulate.")
    bs.add_argument("--nodes", nargs="+", type=positive_int, default=[100, 2000],
                    help="cluster sizes K (100 2000)")
    bs.add_argument("--clients", nargs="+", type=positive_int, default=[1, 2],
                    help="loopback client threads (1 2)")
    bs.add_argument("--limit", type=positive_int, default=None,
                    help="the day's first N tasks only")
    bs.add_argument("--out", default=None, help="write the rows as JSON here")
    bs.set_defaults(run=_run_service)


def _register_faults(bsub) -> None:
    bf = bsub.add_parser("faults", help="lorasched serve under injected faults: the answers, "
                         "the state after a restart, every acknowledged decision back",
                         description="One small synthetic day sent over HTTP while a fault "
                         "strikes (a full disk, failing writes, a bug, SIGKILL between the "
                         "write and the reply, a second server, a truncated database), then "
                         "a restart on the same state.")
    bf.add_argument("--nodes", type=positive_int, default=4, help="cluster size K (4)")
    bf.add_argument("--slots", type=positive_int, default=24, help="slots of the day (24)")
    bf.add_argument("--seed", type=int, default=2, help="seed of the day (2)")
    bf.set_defaults(run=_run_faults)


def _run_service(args) -> int:
    """``lorasched bench service``: print the table (and the goals) and write JSON."""
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


def _run_faults(args) -> int:
    """``lorasched bench faults``: the fault drill's table; exit 1 if any row fails."""
    day = synthetic_scenario(nodes=args.nodes, slots=args.slots, load=3.0, seed=args.seed)
    rows = faults.drill(day)
    print(f"fault drill: {day.sizes['task']} tasks, K = {args.nodes}, {args.slots} slots, "
          f"seed {args.seed}")
    for r in rows:
        print(f"- {r['fault']}\n    answers: {r['answers']}\n    after restart: "
              f"{r['after restart']}; acknowledged back unchanged: "
              f"{r['acknowledged back unchanged']}; ok: {r['day as uninterrupted']}")
    return 0 if all(r["day as uninterrupted"] for r in rows) else 1


def _register_progress(bsub) -> None:
    bp = bsub.add_parser("progress", help="the progress bar's estimates, replayed on a batch",
                         description="A finished batch's computed cells replayed in the order "
                         "they ended: the finish the progress bar forecast at 5-90 %% of the "
                         "batch's wall time, and the cost model's alone, against the finish.")
    bp.add_argument("--store", default="build/sweeps/full", metavar="DIR",
                    help="the batch's store (build/sweeps/full, after make book)")
    bp.set_defaults(run=_run_progress)


def _run_progress(args) -> int:
    print(progress_bench.replay_text(progress_bench.replay(args.store)))
    return 0
