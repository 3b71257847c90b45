"""``lorasched suite``: the fixed benchmark suite for any set of policies, resumably, into
one report folder (tables, figure, header), optionally checked against another report."""

from __future__ import annotations

import sys

from ..experiments import Store, grid
from ..suite import comparable, read_report, run_suite, suite_sweeps
from ..suite.report import MARKDOWN
from ..suite.runner import CELLS
from ..suite.scenarios import SIZES, SUITE_VERSION
from .arguments import execution_args


def register(sub) -> None:
    """The ``suite`` command."""
    p = sub.add_parser(
        "suite", help="the fixed benchmark suite of the three systems, for any policies",
        description=f"Run lorasched's benchmark suite (version {SUITE_VERSION}): per "
        "system a fixed grid of traces x loads x cluster sizes x seeds, for every policy "
        "in each system's registry (installed plug-ins included) or those --policies "
        "names; write a report folder (report.json, report.md, results.csv, a table and "
        "a dataset per system, report.html). Finished cells are kept in OUT/cells: a "
        "rerun computes nothing, an interrupted one resumes. Exit status 1 if any cell "
        "failed, 130 if interrupted.")
    p.add_argument("--size", choices=SIZES, default="small",
                   help="small: minutes on a laptop; full: for papers (small)")
    p.add_argument("--policies", nargs="+", default=None, metavar="SYSTEM:NAMES",
                   help="which policies: SYSTEM:NAME[,NAME...], SYSTEM:all or SYSTEM, "
                   "e.g. 'pdftsp:pdftsp,eft titan:all'; only the systems named run "
                   "(default: every policy of every system)")
    p.add_argument("--out", default=None, help="report folder (suite-SIZE)")
    p.add_argument("--store", default=None, help=f"folder of finished cells (OUT/{CELLS})")
    p.add_argument("--compare", default=None, metavar="OTHER",
                   help="another report (folder or report.json): say whether the two "
                   "reports' numbers may be compared, and why not")
    p.add_argument("--dry-run", action="store_true",
                   help="print the cells per system and how many are done, run nothing")
    execution_args(p)
    p.set_defaults(run=suite)


def suite(args) -> int:
    """``lorasched suite``: run, report, compare; 1 if a cell failed, 130 if interrupted."""
    other = read_report(args.compare) if args.compare else None
    if args.dry_run:
        return _dry_run(args)
    done = run_suite(args.size, args.policies, args.out, store=args.store,
                     serial=args.serial, scheduler=args.scheduler, workers=args.workers,
                     progress=not args.no_progress)
    if done.interrupted:
        return 130
    print((done.out / MARKDOWN).read_text())
    print(f"suite {SUITE_VERSION} ({args.size}): {done.computed} cells computed, "
          f"{done.skipped} already done, {len(done.failed)} failed, "
          f"{done.header['run']['wall_seconds']:.0f} s -> {done.out}")
    if other is not None:
        print(f"against {args.compare}: {comparable(done.header, other).describe()}")
    if done.failed:
        print("failed cells (recorded with their traceback in the store's failed/; rerun "
              "to retry them):", file=sys.stderr)
        for where, error in done.failed:
            print(f"  {where}: {error}", file=sys.stderr)
        return 1
    return 0


def _dry_run(args) -> int:
    """Print each system's cells and how many are done; run nothing."""
    sweeps = suite_sweeps(args.size, args.policies)
    folder = args.store or f"{args.out or f'suite-{args.size}'}/{CELLS}"
    done = Store(folder).done()
    total = 0
    for system, sweep in sweeps.items():
        cells = grid.cells(sweep)
        total += len(cells)
        dims = ", ".join(f"{d}={len(v)}" for d, v in grid.coords(sweep).items())
        print(f"{system}: {dims}; {len(cells)} cells, "
              f"{sum(c.key in done for c in cells)} done")
    print(f"suite {SUITE_VERSION} ({args.size}): {total} cells in {folder}")
    return 0
