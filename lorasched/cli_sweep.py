"""``lorasched sweep``, ``calibrate`` and ``export-sweeps`` (the parser is
:mod:`lorasched.cli`'s): declared sweeps run into a store, alpha x beta scanned on held-out
seeds, every figure's sweep written as a file."""

from __future__ import annotations

import sys
from pathlib import Path

from . import cli_reproduce
from .experiments import Store, Sweep, default_store, grid, run_sweep
from .experiments import calibrate as calibration
from .figures.allpass import common as allpass_common
from .model.errors import InputError


def export_sweeps(folder, size: str = "full") -> list[Path]:
    """Write every figure's sweep declaration as ``<name>.toml`` in ``folder`` (the
    examples in ``notebooks/sweeps/`` are these files; a test checks they are current)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"export-sweeps: {folder} is a file, not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for fig in [fig for module in cli_reproduce.figure_modules().values()
                for fig in module.FIGURES.values()]:
        for sweep in fig.sweeps(size).values():
            path = folder / f"{sweep.name}.toml"
            if path in paths:  # TITAN's pages share one sweep
                continue
            path.write_text(f"# {fig.number}: {fig.title} — generated from "
                            f"lorasched.figures.{fig.system}.FIGURES[{fig.key!r}] by "
                            f"`lorasched export-sweeps`; do not edit\n" + sweep.to_toml())
            paths.append(path)
    sweep = allpass_common.paper_sweep(size)  # Allpass's pages run in memory (no figure
    path = folder / f"{sweep.name}.toml"      # sweep): their main runs as one declaration
    path.write_text("# Allpass sec. 5.1: every policy in both setups (Figs. 6-12) — generated "
                    "from lorasched.figures.allpass.common.paper_sweep by `lorasched "
                    "export-sweeps`; do not edit\n" + sweep.to_toml())
    paths.append(path)
    return paths


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
    sweep = Sweep.from_file(args.file)
    if args.constants:
        sweep = _with_constants(sweep, args.constants)
    if args.dry_run:
        cells = grid.cells(sweep)
        store = Store(args.store or default_store(args.out))
        done = store.done()
        dims = ", ".join(f"{d}={len(v)}" for d, v in grid.coords(sweep).items())
        print(f"sweep {sweep.name!r}: {dims}; {len(cells)} distinct cells, "
              f"{sum(c.key in done for c in cells)} already done in {store.folder}")
        for cell in cells:
            print(("done  " if cell.key in done else "to do ") + cell.describe())
        return 0
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
