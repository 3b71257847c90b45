"""``lorasched reproduce``, ``compare-stores`` and ``export-sweeps``: every figure's cells
run into one store (the systems whose figures are sweeps of cells in one batch), two stores
compared number by number, every figure's sweep declaration written as a file."""

from __future__ import annotations

import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

from ..experiments import Store, compare_stores, shipped
from ..figures import allpass as allpass_figures
from ..figures import pdftsp as pdftsp_figures
from ..figures import titan as titan_figures
from ..figures.allpass import declared as allpass_declared
from ..figures.base import default_store, reproduce_together, shipped_file, shipped_files
from ..model.errors import InputError
from ..suite.report import machine
from .arguments import execution_args, positive_int


def register(sub) -> None:
    """The ``reproduce``, ``compare-stores`` and ``export-sweeps`` commands."""
    _register_reproduce(sub)
    cmp_stores = sub.add_parser(
        "compare-stores", help="do two cell stores hold the same numbers?",
        description="Match the finished cells of two stores by their parameters (not their "
        "keys, which also hash the code) and compare every metric but the measured times, "
        "bit for bit. Exit status 0 if identical, 1 if not.")
    cmp_stores.add_argument("first", help="a cell store folder (with done/)")
    cmp_stores.add_argument("second", help="another cell store folder")
    cmp_stores.set_defaults(run=compare)
    exp = sub.add_parser(
        "export-sweeps", help="write every figure's sweep declaration as TOML files",
        description="Write the sweep declarations of every figure object "
        "(lorasched.figures) as NAME.toml into FOLDER, e.g. notebooks/sweeps.")
    exp.add_argument("folder", help="an existing folder")
    exp.add_argument("--size", default="full", choices=["small", "full"])
    exp.set_defaults(run=export)


def _register_reproduce(sub) -> None:
    rep = sub.add_parser(
        "reproduce", help="run every figure of the papers' evaluations into one cell store",
        description="Run the cells of every figure sweep of lorasched.figures (pdFTSP: "
        "Figs. 4-9, 12, 13 and the calibration page; TITAN: Table 3, Fig. 5, Table 4; "
        "Allpass: Figs. 6-12, the readings page, the sequential design's added seeds and "
        "the sensitivity page, whose runs' whole results are kept beside their metrics) "
        "into STORE as ONE parallel, resumable batch (one pool of workers, each system's "
        "slowest cells first); the figure notebooks then find their cells done. "
        "--scheduler, --workers and --serial say where that batch runs. "
        "`make book` runs this with --size full.")
    rep.add_argument("--system", default="all", choices=["all", *figure_modules()],
                     help="whose figures (all)")
    rep.add_argument("--size", default="full", choices=["small", "full"],
                     help="full: the paper's setting (default); small: a quick look")
    rep.add_argument("--store", default=None,
                     help="folder of finished cells (default: build/sweeps/SIZE in a "
                     "checkout, as the notebooks expect)")
    rep.add_argument("--seeds", type=positive_int, default=None,
                     help="seeds per cell (default, full / small: pdFTSP 10 / 5, of which "
                     "its costly cells run the first 3 at the small size, and at the full "
                     "size Titan all 10 and the bounds the first 4; TITAN 10 / 5; Allpass "
                     "20 / 5, and 60 / 15 for the headline rows those leave undecided)")
    rep.add_argument("--figures", nargs="+", default=None, metavar="FIG",
                     help="only these figures of --system (pdftsp, the default with --figures: "
                     "fig04 ... fig13, calibration; fig12 is two sweeps, LP bound and OPT; "
                     "titan: table3, fig05"
                     + "; allpass: " + ", ".join(allpass_figures.FIGURES) + "; without "
                     "--figures a system's sensitivity page and, for Allpass, the added "
                     "seeds of its second look run too)")
    rep.add_argument("--shipped", default=None, metavar="FILE", nargs="+",
                     help="finished cells to take instead of computing them, where their "
                     "keys match this code (default: every notebooks/cells/*-SIZE.jsonl in "
                     "a checkout, each system's costly cells; see ship-cells)")
    rep.add_argument("--no-shipped", action="store_true",
                     help="compute every cell here: take no shipped cell, and forget those "
                     "an earlier run took into STORE (`make book RECOMPUTE=1`)")
    execution_args(rep)
    rep.set_defaults(run=reproduce)
    ship = sub.add_parser(
        "ship-cells", help="write the figures' costly cells from a store into the files "
        "shipped with the repository",
        description="Write each chosen system's costly figure cells at SIZE (pdFTSP: "
        "every cell but a kept run, Titan's and the bounds' the costliest; TITAN: the "
        "policies that solve a MILP at each decision) from STORE into its file, "
        "notebooks/cells/SYSTEM-SIZE.jsonl, one record a line after a header that says "
        "where they were computed; cells of other keys leave the file. Every one must be "
        "finished in STORE and computed there (`lorasched reproduce --size SIZE --system "
        "SYSTEM --no-shipped` first). `make book` (the full size) and `make test` (the "
        "small one) then take them instead of computing them while the code that computed "
        "them is unchanged.")
    ship.add_argument("--size", default="full", choices=["full", "small"],
                      help="whose cells: the book's (full, the default) or the small "
                      "build's that `make test` makes")
    ship.add_argument("--system", default="all", choices=["all", *shipping()],
                      help="whose cells (all)")
    ship.add_argument("--store", default=None,
                      help="folder of finished cells (default: build/sweeps/SIZE in a "
                      "checkout)")
    ship.add_argument("--to", default=None, metavar="FILE",
                      help="the file, with one --system (default: "
                      "notebooks/cells/SYSTEM-SIZE.jsonl in a checkout)")
    ship.add_argument("--add", action="store_true",
                      help="keep the file's cells that are still wanted and add the others "
                      "from STORE, where they were computed (more seeds or settings without "
                      "computing the shipped ones again: `lorasched reproduce` with the "
                      "shipped cells first); the header lists each addition's provenance")
    ship.add_argument("--rekey", default=None, metavar="WHY",
                      help="re-key the file's cells to this code, computing none: for a "
                      "change that moves every key but no number (the cell runner moved "
                      "between modules), shown so by recomputing cells; WHY, written into "
                      "the header, says what changed and how it was shown")
    ship.set_defaults(run=ship_cells)


def compare(args) -> int:
    """``lorasched compare-stores``: 0 if the two stores hold the same numbers, 1 if not."""
    report = compare_stores(args.first, args.second)
    print(report)
    return 0 if report.identical else 1


def export(args) -> int:
    """``lorasched export-sweeps``: print the path of every file written."""
    for path in export_sweeps(args.folder, args.size):
        print(path)
    return 0


def figure_modules() -> dict:
    """system -> its figures module."""
    return {"pdftsp": pdftsp_figures, "titan": titan_figures, "allpass": allpass_figures}


def reproduce(args) -> int:
    """Run the cells of every chosen system's figures into the store; 130 if interrupted,
    1 if a cell failed."""
    store = args.store or default_store(args.size)
    if args.no_shipped and args.shipped:
        raise InputError("--shipped and --no-shipped: give one or the other")
    for path in args.shipped or []:
        if not Path(path).is_file():
            raise InputError(f"--shipped {path}: no such file")
    if args.no_shipped and Path(store).is_dir():
        gone = shipped.unseed(Store(store))
        if gone:
            print(f"{len(gone)} cells taken from shipped cells forgotten in {store}: "
                  "computed here")
    if args.system != "all":
        chosen = [args.system]
    else:  # --figures alone names pdFTSP's figures, as before TITAN's pages existed
        chosen = ["pdftsp"] if args.figures else list(figure_modules())
    modules = figure_modules()
    # every system's figures are sweeps of cells: one batch, one pool of workers
    batched = {name: modules[name].sweeps(args.size, args.seeds, args.figures)
               for name in chosen}
    return _batch(batched, args, store)


def _batch(batched: dict, args, store) -> int:
    """Run the systems' sweeps as one batch; print a line per system (and the batch's)."""
    start = time.perf_counter()
    paths = [] if args.no_shipped else (args.shipped or shipped_files(args.size))
    files = {path: shipped.read(path) for path in paths}
    cells = shipped.merge(files.values()) if files else None
    report, per = reproduce_together(batched, args.size, store, workers=args.workers,
                                     scheduler=args.scheduler, serial=args.serial,
                                     progress=not args.no_progress, shipped_cells=cells)
    if report.interrupted:
        return 130
    seconds, status = time.perf_counter() - start, 0
    for name, got in per.items():
        took = (f" in {seconds:.0f} s" if len(per) == 1
                else f"; its cells ran {got.cell_seconds:.0f} s in all")
        mine = ", ".join(str(path) for path, part in files.items()
                         if any(r["params"].get("system") == name
                                for r in part.records.values()))
        taken = (f" ({got.shipped} taken from {mine}, computed there in "
                 f"{got.shipped_cpu_seconds:.0f} CPU-s)" if got.shipped else "")
        print(f"{name} ({args.size}): {got.computed} cells computed, {got.skipped} "
              f"already done{taken}, {len(got.failed)} failed{took} -> {store}")
        status |= _report_failed(store, got.failed)
    if len(per) > 1:
        print(f"{' + '.join(per)} ({args.size}): one batch of {len(report.cells)} cells "
              f"in {seconds:.0f} s -> {store}")
    print(cpu_report(per))
    return status


def cpu_report(per: dict) -> str:
    """The computed cells' CPU seconds per system and per policy, as lines of a table
    (the largest first) beside what the systems' cost models expected of them, and the
    cells taken from shipped ones apart."""
    rows = [(name, policy, n, cpu, model) for name, got in per.items()
            for policy, (n, cpu, model) in got.by_policy.items()]
    taken = [f"  {name}: {got.shipped} cells taken from the shipped cells, not computed "
             f"here (they took {got.shipped_cpu_seconds:.0f} CPU-s where they were computed)"
             for name, got in per.items() if got.shipped]
    if not rows:
        return "\n".join(["no cell computed: no CPU time to report", *taken])
    wide = max(18, *(len(r[1]) for r in rows))  # a labelled policy: "srtf [counterfactual]"
    lines = ["CPU seconds of the computed cells, per system and per policy (model: what the "
             "system's cost model expected; a label in brackets: a labelled sweep's cells, "
             "such as a page's counterfactual):",
             f"  {'system':<8} {'policy':<{wide}} {'cells':>6} {'CPU s':>9} {'per cell':>9} "
             f"{'model s':>9}"]
    for name, got in sorted(per.items(), key=lambda kv: -kv[1].cpu_seconds):
        mine = sorted((r[1:] for r in rows if r[0] == name), key=lambda r: -r[2])
        for policy, n, cpu, model in mine:
            lines.append(f"  {name:<8} {policy:<{wide}} {n:>6} {cpu:>9.0f} {cpu / n:>9.2f} "
                         f"{model:>9.0f}")
        model = sum(r[3] for r in mine)
        lines.append(f"  {name:<8} {'(all)':<{wide}} {got.computed:>6} {got.cpu_seconds:>9.0f} "
                     f"{'':>9} {model:>9.0f}")
    total = sum(got.cpu_seconds for got in per.values())
    lines.append(f"  {'all':<8} {'':<{wide}} {sum(g.computed for g in per.values()):>6} "
                 f"{total:>9.0f} {'':>9} {sum(r[4] for r in rows):>9.0f}")
    return "\n".join([*lines, *taken])


def shipping() -> dict:
    """system -> its figures' catalogue, for the systems that ship costly cells."""
    return {name: module.CATALOGUE for name, module in figure_modules().items()
            if module.CATALOGUE.ships is not None}


def ship_cells(args) -> int:
    """``lorasched ship-cells``: write each chosen system's costly figure cells from the
    store into its shipped file; print what each holds."""
    store = Store(args.store or default_store(args.size))
    chosen = list(shipping()) if args.system == "all" else [args.system]
    if args.to and len(chosen) > 1:
        raise InputError("ship-cells --to FILE: name one --system (each system has its file)")
    for name in chosen:
        to = Path(args.to) if args.to else shipped_file(args.size, name)
        if to is None:
            raise InputError("ship-cells: not in a source checkout; say where with --to FILE")
        if args.rekey is not None:
            if args.add:
                raise InputError("ship-cells: --rekey and --add: give one or the other")
            old = shipped.read(to)
            cells = shipped.rekey(old, args.rekey, provenance())
            shipped.write(to, cells)
            print(f"{name}: {len(cells.records)} cells re-keyed in {to}, none computed: "
                  f"{len(set(cells.records) - set(old.records))} keys new")
            continue
        keys = shipping()[name].shipped_keys(args.size)
        before = shipped.read(to) if to.is_file() else None
        if args.add and before is not None:
            cells = shipped.extend(before, store, keys, provenance())
        else:
            cells = shipped.ship(store, keys, provenance())
        old = set(before.records) if before is not None else set()
        shipped.write(to, cells)
        print(f"{name}: {len(cells.records)} cells ({cells.cpu_seconds:.0f} CPU-s when "
              f"computed) -> {to}: {len(set(cells.records) - old)} new, "
              f"{len(old - set(cells.records))} gone")
    return 0


def provenance() -> dict:
    """Where shipped cells are computed: the checkout's commit (``+`` if it has changes),
    the machine, the versions that can change a number, and the date."""
    def git(*argv) -> str:
        try:
            return subprocess.run(["git", *argv], capture_output=True, text=True,
                                  cwd=Path(__file__).parent, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""

    commit = git("rev-parse", "--short", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no")
    here = machine()
    return {"commit": commit + ("+" if dirty else ""), "made": datetime.now(UTC).isoformat(
        timespec="seconds"), "machine": f"{platform.machine()}, {here['processor']}, "
            f"{here['cpus']} CPUs", "python": here["python"],
            **{name: version(name) for name in ("numpy", "numba", "highspy")}}


def _report_failed(store, failed) -> int:
    """Print the failed cells to stderr; 1 if there were any."""
    if not failed:
        return 0
    print(f"failed cells (tracebacks in {store}/failed/; rerun to retry them):",
          file=sys.stderr)
    for where, error in failed:
        print(f"  {where}: {error}", file=sys.stderr)
    return 1


def export_sweeps(folder, size: str = "full") -> list[Path]:
    """Write every figure's sweep declaration as ``<name>.toml`` in ``folder`` (the
    examples in ``notebooks/sweeps/`` are these files; a test checks they are current)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"export-sweeps: {folder} is a file, not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for fig in [fig for module in figure_modules().values()
                for fig in module.FIGURES.values()]:
        for sweep in fig.sweeps(size).values():
            path = folder / f"{sweep.name}.toml"
            if path in paths:  # TITAN's pages share one sweep
                continue
            path.write_text(f"# {fig.number}: {fig.title} — generated from "
                            f"lorasched.figures.{fig.system}.FIGURES[{fig.key!r}] by "
                            f"`lorasched export-sweeps`; do not edit\n" + sweep.to_toml())
            paths.append(path)
    sweep = allpass_declared.paper_sweep(size)  # Allpass's pages read common kept runs (no
    path = folder / f"{sweep.name}.toml"        # figure sweep): their main runs as one file
    path.write_text("# Allpass sec. 5.1: every policy in both setups (Figs. 6-12) — generated "
                    "from lorasched.figures.allpass.declared.paper_sweep by `lorasched "
                    "export-sweeps`; do not edit\n" + sweep.to_toml())
    paths.append(path)
    return paths

