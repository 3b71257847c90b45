"""``lorasched reproduce`` (the parser is :mod:`lorasched.cli`'s): every figure's cells into
one store, the systems whose figures are sweeps of cells in one batch."""

from __future__ import annotations

import sys
import time

from .figures import allpass as allpass_figures
from .figures import pdftsp as pdftsp_figures
from .figures import titan as titan_figures
from .figures.base import default_store, reproduce_together


def figure_modules() -> dict:
    """system -> its figures module."""
    return {"pdftsp": pdftsp_figures, "titan": titan_figures, "allpass": allpass_figures}


def reproduce(args) -> int:
    """Run the cells of every chosen system's figures into the store; 130 if interrupted,
    1 if a cell failed."""
    store = args.store or default_store(args.size)
    if args.system != "all":
        chosen = [args.system]
    else:  # --figures alone names pdFTSP's figures, as before TITAN's pages existed
        chosen = ["pdftsp"] if args.figures else list(figure_modules())
    modules = figure_modules()
    # the systems whose figures are sweeps of cells share one pool of workers
    batched = {name: modules[name].sweeps(args.size, args.seeds, args.figures)
               for name in chosen if hasattr(modules[name], "sweeps")}
    status = 0
    if batched:
        start = time.perf_counter()
        report, per = reproduce_together(batched, args.size, store, workers=args.workers,
                                         scheduler=args.scheduler, serial=args.serial,
                                         progress=not args.no_progress)
        if report.interrupted:
            return 130
        seconds = time.perf_counter() - start
        for name, got in per.items():
            took = (f" in {seconds:.0f} s" if len(per) == 1
                    else f"; its cells ran {got.cell_seconds:.0f} s in all")
            print(f"{name} ({args.size}): {got.computed} cells computed, {got.skipped} "
                  f"already done, {len(got.failed)} failed{took} -> {store}")
            status |= _report_failed(store, got.failed)
        if len(per) > 1:
            print(f"{' + '.join(per)} ({args.size}): one batch of {len(report.cells)} cells "
                  f"in {seconds:.0f} s -> {store}")
    for name in chosen:
        if name in batched:
            continue
        start = time.perf_counter()
        report = modules[name].reproduce(args.size, store, seeds=args.seeds,
                                         figures=args.figures, workers=args.workers,
                                         scheduler=args.scheduler, serial=args.serial,
                                         progress=not args.no_progress)
        if report.interrupted:
            return 130
        print(f"{name} ({args.size}): {report.computed} cells computed, {report.skipped} "
              f"already done, {len(report.failed)} failed in "
              f"{time.perf_counter() - start:.0f} s -> {store}")
        status |= _report_failed(store, report.failed)
    return status


def _report_failed(store, failed) -> int:
    """Print the failed cells to stderr; 1 if there were any."""
    if not failed:
        return 0
    print(f"failed cells (tracebacks in {store}/failed/; rerun to retry them):",
          file=sys.stderr)
    for where, error in failed:
        print(f"  {where}: {error}", file=sys.stderr)
    return 1
