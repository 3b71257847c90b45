"""The ``lorasched`` command: ``simulate``, ``sweep``, ``calibrate``, ``reproduce``,
``compare-stores``, ``export-sweeps``, ``bench``, ``profiles``."""

from __future__ import annotations

import argparse
import os
import sys

from . import cli_profile, cli_reproduce, cli_serve, cli_simulate, cli_sweep, systems
from .allpass import policies as allpass_policies
from .allpass.scenario import PAPER_CAPACITY
from .allpass.workload import PAPER_JOBS as ALLPASS_JOBS
from .bench import pdftsp as bench
from .bench import scale as bench_scale
from .bench import titan_per_slot as bench_titan
from .cli_args import (
    Parser,
    capacity_arg,
    constants_arg,
    execution_args,
    positive_float,
    positive_int,
    scenario_args,
    seed_arg,
)
from .experiments import calibrate as calibration
from .experiments import compare_stores
from .explorer import app
from .figures import allpass as allpass_figures
from .figures import pdftsp as figures
from .model.profiles import SOURCES, profile_table
from .pdftsp import policies as algorithms
from .pdftsp.auction import ALPHA_GRID, BETA_GRID, CONSTANTS
from .pdftsp.baselines.titan_per_slot import MIP_SETTINGS as titan_mip_settings


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="lorasched",
        description="Online scheduling and auction pricing of LoRA fine-tuning jobs.")
    sub = parser.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="run one algorithm on a synthetic day (pdftsp), "
                         "a fine-tuning workload (titan) or jobs on three GPU clouds "
                         "(allpass)")
    sim.add_argument("--system", default="pdftsp", choices=sorted(systems.SYSTEMS),
                     help="which paper's model (pdftsp)")
    scenario_args(sim, systems_=True)
    sim.add_argument("--algorithm", default=None,
                     help="a policy of the system (default its own: pdftsp, titan or "
                     "allpass); pdftsp: " + ", ".join(sorted(algorithms.REGISTRY)) + "; titan: "
                     + ", ".join(n.replace("_", "-") for n in systems.get("titan").policies)
                     + "; allpass: "
                     + ", ".join(n.replace("_", "-") for n in allpass_policies.REGISTRY))
    titan = sim.add_argument_group("titan (--system titan)")
    titan.add_argument("--jobs", type=positive_int, default=None,
                       help="titan: jobs at density 1 of the helios workload (320); "
                       f"allpass: jobs of the workload ({ALLPASS_JOBS})")
    titan.add_argument("--density", type=float, default=1.0,
                       help="workload density: 0.5, 1, 1.5, 2 (1)")
    titan.add_argument("--model", default="vit-large",
                       help="the LUT's model: vit, vit-large, roberta-base, roberta-large")
    titan.add_argument("--gpus-per-node", type=positive_int, default=4, help="(4)")
    titan.add_argument("--preemptive", action="store_true",
                       help="TITAN re-allocates running jobs at each event (the authors' "
                       "later code); default non-preemptive, as the paper")
    titan.add_argument("--candidates", default=None, choices=["pairs", "all_pairs", "application",
                                                         "cross_dataset"],
                       help="merge candidate sets (pairs)")
    titan.add_argument("--constraints", default=None, choices=["pairwise", "literal"],
                       help="reading of the merger's constraints (9)-(10) (pairwise)")
    titan.add_argument("--setup", default=None, choices=["paper", "authors_code"],
                       help="paper (16 x 4 GPUs, event-driven; default) or authors_code (the "
                       "TITAN authors' simulator: 8 x 4 GPUs, ticks of 120/300 s, measured "
                       "restarts plus a checkpoint, jobs up to 32 GPUs, TITAN preemptive)")
    titan.add_argument("--ckpt-s", type=float, default=None,
                       help="authors_code: checkpoint seconds added to every start (30)")
    titan.add_argument("--oversize", default=None, choices=["error", "cap", "drop"],
                       help="a job requesting more GPUs than the cluster has: an error "
                       "(default), its request capped at the cluster's GPUs, or dropped")
    titan.add_argument("--objective", default=None, choices=["paper", "authors_fair"],
                       help="TITAN's MILP objective: eq. (1) (paper) or the authors' code's "
                       "FAIR (authors_fair, with --algorithm titan-nomerge)")
    allpass = sim.add_argument_group("allpass (--system allpass)")
    allpass.add_argument("--capacity", type=capacity_arg, default=None,
                         help="cap on concurrent serverful workers, or none for unlimited "
                         f"({PAPER_CAPACITY})")
    allpass.add_argument("--sizing", default=None, choices=["cost", "trace"],
                         help="job work scaled to the paper's cost (cost) or the trace "
                         "duration / 5 (trace) (cost)")
    allpass.add_argument("--offers", default=None, metavar="PATH",
                         help="a marketplace price/availability series instead of the "
                         "modelled offer book")
    allpass.add_argument("--units", default=None, choices=["paper", "slip"],
                         help="units of D against C_t T in the pressure: paper (consistent, "
                         "default) or slip (p 60 times larger, D's seconds against a "
                         "capacity in minutes: a hypothesis about the authors' code)")
    pdftsp = sim.add_argument_group("pdftsp (--system pdftsp, the default)")
    pdftsp.add_argument("--payment", default="critical", choices=["critical", "paper"],
                     help="critical (truthful threshold bid) or paper (eq. 14)")
    pdftsp.add_argument("--solver", default="paper", choices=["paper", "exact"],
                     help="per-task schedule: the paper's DP or the exact solver")
    pdftsp.add_argument("--constants", type=constants_arg, default="lemma2",
                     help="pdFTSP's alpha and beta: lemma2 (default), vmax, or a FILE "
                     "written by `lorasched calibrate`")
    pdftsp.add_argument("--alpha", type=float, default=None,
                     help="eq. (7) constant (overrides --constants)")
    pdftsp.add_argument("--beta", type=float, default=None,
                     help="eq. (8) constant (overrides --constants)")
    pdftsp.add_argument("--work-resolution", type=positive_int, default=8,
                     help="work units per slowest-node slot in the DP (8)")
    pdftsp.add_argument("--candidate-cells", choices=["auto", "index", "scan"], default="auto",
                     help="pdFTSP's candidate cells: from the exact index (auto, where nodes "
                     "fall into few groups) or by reading every cell (scan); same decisions")
    sim.add_argument("--trace", default=None,
                     help="pdftsp: arrivals from a real trace day: mlaas, philly, helios, "
                     "acme or a CSV path (scaled to --load); titan: helios for the "
                     "Helios-derived workload (default: the authors' workload); allpass: "
                     "helios (default) or mixture (fitted to Seren)")
    pdftsp.add_argument("--trace-day", default=None,
                     help="pdftsp: the day of --trace to use, a day number (default: the "
                     "representative median day)")
    pdftsp.add_argument("--task-sizes", default="paper", choices=["paper", "trace"],
                     help="task work from the paper's ranges or the trace jobs' GPU time")
    sim.add_argument("--out", default=None, help="write the result dataset (netCDF)")
    sim.add_argument("--progress", action="store_true",
                     help="show a progress bar (pdftsp: tasks; titan: finished jobs)")

    sw = sub.add_parser(
        "sweep", help="run a declared sweep (grid x algorithms x seeds), parallel, resumable",
        description="Run the sweep declared in FILE (.toml, .yaml or .json; see "
        "lorasched.experiments.declaration) and write an xarray dataset. Finished cells "
        "are kept in OUT.cells/ as they complete: after a crash or Ctrl-C the same command "
        "resumes. "
        "Exit status 1 if any cell failed (the others finish), 130 if interrupted.")
    sw.add_argument("file", help="sweep declaration (.toml, .yaml, .yml, .json)")
    sw.add_argument("--out", required=True, help="results dataset to write (netCDF, .nc)")
    sw.add_argument("--scheduler", default=None,
                    help="address of an existing Dask scheduler (tcp://HOST:PORT); default: "
                    "an embedded LocalCluster")
    sw.add_argument("--workers", type=positive_int, default=None,
                    help="LocalCluster worker processes (default: one per CPU)")
    sw.add_argument("--serial", action="store_true", help="run in this process, no Dask")
    sw.add_argument("--store", default=None, help="folder of finished cells (OUT.cells)")
    sw.add_argument("--dry-run", action="store_true",
                    help="print the cells and how many are already done, run nothing")
    sw.add_argument("--no-progress", action="store_true", help="no progress bar")
    sw.add_argument("--constants", default=None, metavar="FILE",
                    help="a file written by `lorasched calibrate`: its options are added to "
                    "the calibrated algorithm's options (which must be in the sweep)")

    cal = sub.add_parser(
        "calibrate", help="scan pdFTSP's alpha x beta on a held-out day, write the best",
        description="Run pdFTSP on a calibration day (by default seed 101 of the given "
        "setting; for a trace, pick another --trace-day than the one you evaluate) for every "
        "alpha x beta of the grid, as a parallel, resumable sweep; write the pair with the "
        "largest mean welfare to OUT, which `simulate --constants OUT` and `sweep --constants "
        "OUT` read. Evaluate on other seeds or days than these.")
    scenario_args(cal, seed=False)
    cal.add_argument("--seeds", type=seed_arg, nargs="+", default=[calibration.CALIBRATION_SEED],
                     help=f"calibration seeds ({calibration.CALIBRATION_SEED})")
    cal.add_argument("--trace", default=None,
                     help="arrivals from a real trace: mlaas, philly, helios, acme or a CSV")
    cal.add_argument("--trace-day", default=None,
                     help="the trace day to calibrate on (a day number; default: median)")
    cal.add_argument("--alpha", type=float, nargs="+", default=list(ALPHA_GRID),
                     help=f"alpha values ({' '.join(map(str, ALPHA_GRID))})")
    cal.add_argument("--beta", type=float, nargs="+", default=list(BETA_GRID),
                     help=f"beta values ({' '.join(map(str, BETA_GRID))})")
    cal.add_argument("--metric", default="welfare", help="what to maximise (welfare)")
    cal.add_argument("--out", default="constants.toml", help="file to write (constants.toml)")
    cal.add_argument("--store", default=None, help="folder of finished cells (OUT.cells)")
    execution_args(cal)

    rep = sub.add_parser(
        "reproduce", help="run every figure of the papers' evaluations into one cell store",
        description="Run the cells of every figure sweep of lorasched.figures (pdFTSP: "
        "Figs. 4-9, 12, 13 and the calibration page; TITAN: Table 3, Fig. 5, Table 4; "
        "Allpass: Figs. 1, 6-12, computed in memory) into STORE: pdFTSP's and TITAN's "
        "cells as ONE parallel, resumable batch (one pool of workers, each system's "
        "slowest cells first), then Allpass's; the figure notebooks then find their cells "
        "done. `make book` runs this with --size full.")
    rep.add_argument("--system", default="all", choices=["all", *cli_reproduce.figure_modules()],
                     help="whose figures (all)")
    rep.add_argument("--size", default="full", choices=["small", "full"],
                     help="full: the paper's setting (default); small: a quick look")
    rep.add_argument("--store", default=None,
                     help="folder of finished cells (default: build/sweeps/SIZE in a "
                     "checkout, as the notebooks expect)")
    rep.add_argument("--seeds", type=positive_int, default=None,
                     help="seeds per cell (default: 3 full, 2 small)")
    rep.add_argument("--figures", nargs="+", default=None, metavar="FIG",
                     help="only these figures of --system (pdftsp, the default with --figures: "
                     "fig04 ... fig13, calibration; fig12 is two sweeps, LP bound and OPT; "
                     "titan: table3, fig05"
                     + "; allpass: " + ", ".join(allpass_figures.FIGURES) + ")")
    execution_args(rep)

    cmp_stores = sub.add_parser(
        "compare-stores", help="do two cell stores hold the same numbers?",
        description="Match the finished cells of two stores by their parameters (not their "
        "keys, which also hash the code) and compare every metric but the measured times, "
        "bit for bit. Exit status 0 if identical, 1 if not.")
    cmp_stores.add_argument("first", help="a cell store folder (with done/)")
    cmp_stores.add_argument("second", help="another cell store folder")

    exp = sub.add_parser(
        "export-sweeps", help="write every figure's sweep declaration as TOML files",
        description="Write the sweep declarations of every figure object "
        "(lorasched.figures) as NAME.toml into FOLDER, e.g. notebooks/sweeps.")
    exp.add_argument("folder", help="an existing folder")
    exp.add_argument("--size", default="full", choices=["small", "full"])

    bench = sub.add_parser("bench", help="print benchmark figures")
    bsub = bench.add_subparsers(dest="bench", required=True)
    dec = bsub.add_parser("decision", help="time per task decision and numba speed-up")
    scenario_args(dec)
    dec.add_argument("--python-tasks", type=positive_int, default=40,
                     help="decisions timed in pure Python (40)")
    sol = bsub.add_parser("solvers", help="how often the paper DP is optimal for (12)")
    scenario_args(sol)
    sol.add_argument("--tasks", type=positive_int, default=3000, help="tasks quoted (3000)")

    rt = bsub.add_parser("runtime", help="time per task of pdFTSP and Titan (Fig. 13)")
    scenario_args(rt)
    rt.add_argument("--sizes", type=positive_int, nargs="+", default=[25, 50, 100],
                    help="cluster sizes K (25 50 100)")
    cmp_ = bsub.add_parser("compare", help="welfare of all algorithms and the OPT bound")
    scenario_args(cmp_)
    cmp_.add_argument("--no-bound", action="store_true", help="skip the offline LP bound")
    cmp_.add_argument("--bound-time-limit", type=float, default=600.0,
                      help="seconds for the bound's column generation (600)")

    sc = bsub.add_parser("scale", help="time and memory at every scale (the speed table)",
                         description="Each row is measured in its own process (peak memory "
                         "= its max RSS); prints the table, writes it as JSON.")
    sc.add_argument("--rows", nargs="+", default=list(bench_scale.DEFAULT_ROWS),
                    choices=bench_scale.ROWS, metavar="ROW",
                    help=f"rows to measure, of {', '.join(bench_scale.ROWS)} (default: all "
                         "but book, which runs make book in a fresh clone)")
    sc.add_argument("--out", default="bench-scale.json", help="JSON file (bench-scale.json)")
    sc.add_argument("--baseline", default=None,
                    help="a previous JSON of this command: print the ratios to it")
    sc.add_argument("--keep-store", default=None, metavar="DIR",
                    help="book row: copy the fresh clone's store of cells to DIR")
    sc.add_argument("--candidates", choices=["auto", "scan"], default="auto",
                    help="pdFTSP's candidate cells in every pdFTSP day: the index (auto) or "
                    "the scan (slower; the same decisions)")

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
    bf = bsub.add_parser("faults", help="lorasched serve under injected faults: the answers, "
                         "the state after a restart, every acknowledged decision back",
                         description="One small synthetic day sent over HTTP while a fault "
                         "strikes (a full disk, failing writes, a bug, SIGKILL between the "
                         "write and the reply, a second server, a truncated database), then "
                         "a restart on the same state.")
    bf.add_argument("--nodes", type=positive_int, default=4, help="cluster size K (4)")
    bf.add_argument("--slots", type=positive_int, default=24, help="slots of the day (24)")
    bf.add_argument("--seed", type=int, default=2, help="seed of the day (2)")

    sub.add_parser("profiles", help="print the GPU/model profile table with sources")
    cli_profile.add_parser(sub, positive_int)

    ex = sub.add_parser(
        "explore", help="serve the live explorer as a web app (Voila) on localhost",
        description="Serve the explorer (pdFTSP's auction, TITAN's and Allpass's runs) as a "
        "web app with live widgets, on http://127.0.0.1:PORT/, until Ctrl-C.")
    ex.add_argument("--port", type=int, default=app.DEFAULT_PORT,
                    help=f"port on 127.0.0.1 ({app.DEFAULT_PORT}; 0: a free one)")
    ex.add_argument("--system", choices=list(app.VIEWS), default="pdftsp",
                    help="the view shown first (pdftsp)")
    ex.add_argument("--nodes", type=positive_int, default=6,
                    help="pdFTSP's first scenario: GPU nodes K (6)")
    ex.add_argument("--load", type=positive_float, default=4.0,
                    help="... mean arrivals per slot, > 0 (4)")
    ex.add_argument("--slots", type=positive_int, default=48, help="... slots (48)")
    ex.add_argument("--seed", type=seed_arg, default=1, help="... workload seed (1)")
    ex.add_argument("--notebook", default=None,
                    help="serve this notebook instead of the app (it should display widgets)")
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
    return parser


def main(argv: list[str] | None = None) -> int:
    """The ``lorasched`` command. Bad input (:class:`~lorasched.InputError`, any other
    ``ValueError``, a file that cannot be read or written) is one line on stderr and exit
    status 2, never a traceback; a reader that closes the pipe (``lorasched profiles |
    head``) ends the command quietly."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader went away: point stdout at /dev/null so that Python's flush at exit
        # does not fail again, and end as a command cut short by its reader does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _file_error(exc: OSError) -> str:
    """An OS error on a file, in one line: what happened and to which path."""
    what = {IsADirectoryError: "is a directory, not a file",
            NotADirectoryError: "is not a directory",
            PermissionError: "permission denied",
            FileNotFoundError: "no such file or directory",
            FileExistsError: "already exists"}.get(type(exc), exc.strerror or str(exc))
    return f"{exc.filename}: {what}" if exc.filename else str(exc)


def _main(argv: list[str] | None) -> int:
    parser = _parser()
    if not (sys.argv[1:] if argv is None else argv):  # `lorasched` alone: what it can do
        parser.print_help(sys.stderr)
        return 2
    args = parser.parse_args(argv)
    try:
        if args.command == "simulate":
            return cli_simulate.simulate(args, parser)
        if args.command == "sweep":
            return cli_sweep.sweep(args)
        if args.command == "reproduce":
            return cli_reproduce.reproduce(args)
        if args.command == "calibrate":
            return cli_sweep.calibrate(args)
        if args.command == "compare-stores":
            report = compare_stores(args.first, args.second)
            print(report)
            return 0 if report.identical else 1
        if args.command == "export-sweeps":
            for path in cli_sweep.export_sweeps(args.folder, args.size):
                print(path)
            return 0
        if args.command == "bench":
            if args.bench == "titan":
                bench_titan.titan_settings(args.settings, args.seeds,
                                           algorithm=args.algorithm, out_path=args.out,
                                           merge=args.merge)
                return 0
            if args.bench == "verdicts":
                data = figures.titan_setting_verdicts(
                    tuple(args.settings), stores=dict(args.store), out_path=args.out,
                    merge=args.merge)
                print(figures.setting_verdicts_table(data).to_string(index=False))
                print(figures.setting_verdicts_findings(data))
                return 0
            if args.bench == "service":
                return cli_serve.bench(args)
            if args.bench == "faults":
                return cli_serve.faults(args)
            if args.bench == "index":
                bench.index(tuple(args.nodes), tuple(args.seeds), tuple(args.solvers),
                            tuple(args.payments), args.slots)
                return 0
            if args.bench == "scale":
                bench_scale.scale(tuple(args.rows), out_path=args.out,
                                  baseline_path=args.baseline, keep_store=args.keep_store,
                                  candidates=args.candidates)
                return 0
            common = dict(nodes=args.nodes, slots=args.slots, vendors=args.vendors,
                          load=args.load, seed=args.seed)
            if args.bench == "decision":
                bench.decision(python_tasks=args.python_tasks, **common)
            elif args.bench == "solvers":
                bench.solvers(max_tasks=args.tasks, **common)
            elif args.bench == "runtime":
                common.pop("nodes")
                bench.runtime(nodes=tuple(args.sizes), **common)
            else:
                bench.compare(bound=not args.no_bound, bound_time_limit=args.bound_time_limit,
                              **common)
            return 0
        if args.command == "explore":
            return app.serve(args.notebook, port=args.port, system=args.system,
                             nodes=args.nodes, load=args.load, slots=args.slots,
                             seed=args.seed)
        if args.command == "serve":
            return cli_serve.serve(args)
        if args.command == "loadgen":
            return cli_serve.loadgen(args)
        if args.command == "profile":
            return cli_profile.profile(args)
        if args.command == "profiles":
            for row in profile_table():
                print(f"{row['quantity']:<45} {row['gpu']:<10} {row['value']!s:>12}  "
                      f"[{row['source']}]")
            print("\nsources:")
            for key, text in SOURCES.items():
                print(f"  {key}: {text}")
            return 0
    except UnicodeDecodeError as exc:  # a loader that did not name its file
        parser.exit(2, f"lorasched: error: not UTF-8 text (byte {exc.start}: "
                    f"{exc.object[exc.start:exc.start + 1]!r})\n")
    except ValueError as exc:  # InputError, and any other ValueError
        parser.exit(2, f"lorasched: error: {_one_line(exc)}\n")
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        parser.exit(2, f"lorasched: error: {_file_error(exc)}\n")
    return 0


def _one_line(exc: Exception) -> str:
    """An error's message on one line."""
    return " ".join(str(exc).split())



# kept importable from here (tests, scripts)
export_sweeps = cli_sweep.export_sweeps


if __name__ == "__main__":
    sys.exit(main())
