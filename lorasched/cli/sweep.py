"""``lorasched sweep`` and ``lorasched calibrate``: a declared sweep (grid x algorithms x
seeds) run in parallel and resumably into a dataset; pdFTSP's alpha x beta scanned on a
held-out day, the best pair written as a constants file."""

from __future__ import annotations

import sys
from pathlib import Path

from ..experiments import Store, Sweep, default_store, grid, run_sweep
from ..experiments import calibrate as calibration
from ..model.errors import InputError
from ..pdftsp.auction import ALPHA_GRID, BETA_GRID
from .arguments import execution_args, positive_int, scenario_args, seed_arg


def register(sub) -> None:
    """The ``sweep`` and ``calibrate`` commands."""
    _register_sweep(sub)
    _register_calibrate(sub)


def _register_sweep(sub) -> None:
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
    sw.set_defaults(run=sweep)


def _register_calibrate(sub) -> None:
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
    cal.set_defaults(run=calibrate)


def _with_constants(sweep: Sweep, path) -> Sweep:
    """``sweep`` with the options of the constants file ``path`` added to the options of
    the algorithm it calibrates."""
    data = calibration.read_constants(path)
    if data["system"] != sweep.system or data["algorithm"] not in sweep.algorithms:
        raise InputError(f"--constants: {path} calibrates {data['system']}/"
                         f"{data['algorithm']}, which sweep {sweep.name!r} does not run")
    decl = sweep.to_dict()
    decl["options"].setdefault(data["algorithm"], {}).update(data["options"])
    return Sweep.from_dict(decl)


def calibrate(args) -> int:
    """``lorasched calibrate``: scan alpha x beta, write the best pair, print the surface."""
    scenario = {"nodes": args.nodes, "gpu": args.gpu, "load": args.load,
                "vendors": args.vendors, "deadline_policy": args.deadline_policy,
                "slots": args.slots}
    if args.trace is not None:
        scenario["trace"] = args.trace
        if args.trace_day is not None:
            scenario["trace_day"] = (int(args.trace_day) if args.trace_day.isdigit()
                                     else args.trace_day)
    elif args.trace_day is not None:
        raise InputError("--trace-day needs --trace")
    out = Path(args.out)
    cal = calibration.calibrate(
        "pdftsp", "pdftsp", scenario, {"alpha": args.alpha, "beta": args.beta},
        seeds=args.seeds, metric=args.metric,
        store=args.store or default_store(out), scheduler=args.scheduler,
        workers=args.workers, serial=args.serial, progress=not args.no_progress)
    calibration.write_constants(out, cal)
    surface = cal.surface.to_pandas()
    surface.index = [f"alpha={a:g}" for a in surface.index]
    surface.columns = [f"beta={b:g}" for b in surface.columns]
    print(f"mean {cal.metric} over seed(s) {', '.join(map(str, cal.seeds))}:")
    print(surface.round(1).to_string())
    print(calibration.describe(cal) + f" -> {out}")
    return 0


def sweep(args) -> int:
    """``lorasched sweep``: run the declared sweep; 1 if a cell failed, 130 if interrupted."""
    sweep = Sweep.from_file(args.file)
    if args.constants:
        sweep = _with_constants(sweep, args.constants)
    if args.dry_run:
        return _dry_run(sweep, args)
    report = run_sweep(sweep, args.out, store=args.store, scheduler=args.scheduler,
                       workers=args.workers, serial=args.serial,
                       progress=not args.no_progress)
    if report.interrupted:
        return 130
    print(f"sweep {sweep.name!r}: {report.computed} cells computed, {report.skipped} "
          f"already done, {len(report.failed)} failed -> {args.out}")
    if report.failed:
        print("failed cells (recorded with their traceback in "
              f"{args.store or default_store(args.out)}/failed/; rerun to retry them):",
              file=sys.stderr)
        for where, error in report.failed:
            print(f"  {where}: {error}", file=sys.stderr)
        return 1
    return 0


def _dry_run(sweep: Sweep, args) -> int:
    """Print the sweep's cells and which are done; run nothing."""
    cells = grid.cells(sweep)
    store = Store(args.store or default_store(args.out))
    done = store.done()
    dims = ", ".join(f"{d}={len(v)}" for d, v in grid.coords(sweep).items())
    print(f"sweep {sweep.name!r}: {dims}; {len(cells)} distinct cells, "
          f"{sum(c.key in done for c in cells)} already done in {store.folder}")
    for cell in cells:
        print(("done  " if cell.key in done else "to do ") + cell.describe())
    return 0
