"""Allpass's flags of ``lorasched simulate``: the workload, clouds and capacity of
:func:`.workload.allpass_scenario`, the options of its policies (:mod:`.policies`), and the
line a run prints (:class:`~lorasched.model.flags.Flags`)."""

from __future__ import annotations

import argparse

from ..model.flags import Flag, Flags, Run, existing_file, positive_int
from .scenario import PAPER_CAPACITY, capacity_value
from .system import measure
from .workload import HEADLINE_SOURCE, PAPER_JOBS, SOURCES


def capacity_arg(value: str):
    """--capacity: a positive whole number of serverful workers, or none (unlimited). One
    rule: any number below 1 is refused, -1 included (the scenario stores unlimited as -1,
    but on the command line it is spelt none)."""
    text = value.strip().lower()
    if text in ("none", "unlimited"):
        return "none"
    try:
        cap = int(text)
    except ValueError:
        cap = 0
    if cap < 1:
        raise argparse.ArgumentTypeError(
            f"must be a positive whole number or none (unlimited), got {value!r}")
    return capacity_value(cap)


def describe(run: Run) -> str:
    """The line of one run: the workload, JCT, the bill per cloud, the serverful workers."""
    v, m = run.values, measure(run.scenario, run.result)
    return (f"{run.algorithm}" + (f" (units {v['units']})" if v["units"] else "")
            + f": {run.result.sizes['job']} jobs ({v['source']}, {v['sizing']} sizing, "
            + ("unlimited capacity" if v["capacity"] == "none" else f"capacity {v['capacity']}")
            + f"), seed {run.seed}: average JCT {m['avg_jct_min']:.1f} min, median "
            f"{m['median_jct_min']:.1f} min, {m['share_10min']:.0%} <= 10 min, cost "
            f"${m['cost_usd']:.2f} (Modal ${m['cost_modal_usd']:.2f}, Vast.ai "
            f"${m['cost_vast_usd']:.2f}, Lambda ${m['cost_lambda_usd']:.2f}), at most "
            f"{m['max_workers']:.0f} serverful workers")


#: why Allpass has no --nodes or --gpu
RENTS = "rents A100 workers from its clouds; cap the serverful ones with --capacity"

FLAGS = Flags(scenario="jobs on three GPU clouds", flags=(
    Flag("--trace", " or ".join(s + {"mixture": " (fitted to Seren)"}.get(s, "")
                                + (" (default)" if s == HEADLINE_SOURCE else "")
                                for s in SOURCES), parameter="source", choices=SOURCES),
    Flag("--jobs", f"jobs of the workload ({PAPER_JOBS})", type=positive_int),
    Flag("--capacity", "cap on concurrent serverful workers, or none for unlimited "
         f"({PAPER_CAPACITY})", type=capacity_arg),
    Flag("--sizing", "job work scaled to the paper's cost (cost) or the trace duration / 5 "
         "(trace) (cost)", choices=("cost", "trace")),
    Flag("--offers", "a marketplace price/availability series instead of the modelled offer "
         "book", parameter="offer_file", type=existing_file, metavar="PATH"),
    Flag("--units", "units of D against C_t T in the pressure: paper (consistent, default) or "
         "slip (p 60 times larger, D's seconds against a capacity in minutes: a hypothesis "
         "about the authors' code)", choices=("paper", "slip")),
), describe=describe, hints={"--nodes": RENTS, "--gpu": RENTS})
