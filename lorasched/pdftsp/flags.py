"""pdFTSP's flags of ``lorasched simulate``: the synthetic or trace day of
:func:`.workload.synthetic_scenario`, the online auction's options (:mod:`.policies`), and
the line a run prints (:class:`~lorasched.model.flags.Flags`)."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from ..model.flags import Flag, Flags, Run, positive_int
from .auction import CONSTANTS
from .workload import DEADLINE_POLICIES, LOADS


def load_arg(value: str):
    """--load: a name (light/medium/high) or a mean number of arrivals per slot."""
    if value in LOADS:
        return value
    try:
        mean = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be one of {sorted(LOADS)} or a number, got {value!r}") from None
    if not math.isfinite(mean) or mean < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {value!r}")
    return mean


def constants_arg(value: str) -> str | Path:
    """--constants: a named rule, or (a :class:`~pathlib.Path`) a file written by
    ``lorasched calibrate``."""
    if value in CONSTANTS:
        return value
    if os.path.isfile(value):
        return Path(value)
    raise argparse.ArgumentTypeError(f"must be one of {list(CONSTANTS)} or an existing "
                                     f"constants file, got {value!r}")


def day_arg(value: str) -> int | str:
    """--trace-day: a day number, or a day's name."""
    return int(value) if value.isdigit() else value


def describe(run: Run) -> str:
    """The line of one run: the cluster, the day, the welfare accounting."""
    v, a = run.values, run.result.attrs
    source = (f"trace {v['trace']} day {run.scenario.attrs['trace_day']}, " if v["trace"]
              else "")
    return (f"{run.algorithm}: K={v['nodes']} {v['gpu']}, {source}load {v['load']} "
            f"(load factor {run.scenario.attrs['load_factor']:.2f}), seed {run.seed}: "
            f"admitted {a['n_admitted']}/{a['n_tasks']}, welfare {a['welfare']:.2f}, user "
            f"utility {a['user_utility']:.2f}, provider utility {a['provider_utility']:.2f}, "
            f"revenue {a['revenue']:.2f}, median decision "
            f"{a['median_decision_time'] * 1e6:.0f} us" + _titan_gaps(run))


def _titan_gaps(run: Run) -> str:
    """Titan per slot's certified gaps, where the run has them: the worst slot's and how
    many slots a limit stopped short of the stated gap."""
    name = run.result.attrs.get("algorithm", "")
    a = run.result.attrs
    if f"{name}_max_gap" not in a:
        return ""
    return (f"; worst slot's certified gap {a[f'{name}_max_gap']:.2%} (stated "
            f"{a[f'{name}_mip_rel_gap'] * 100:g}%), {a[f'{name}_slots_hit_limit']} slot(s) "
            "stopped by the node limit")


FLAGS = Flags(scenario="a synthetic day", flags=(
    Flag("--nodes", "K = 100", type=positive_int, topic="GPU nodes"),
    Flag("--gpu", "mix of A100/A40", choices=("A100", "A40", "mix"), topic="node type"),
    Flag("--load", "light, medium, high (30/50/80 arrivals per slot) or a mean (high)",
         type=load_arg, default="high"),
    Flag("--vendors", "labelling vendors N (5)", type=int, default=5),
    Flag("--deadline-policy", default="slack", choices=DEADLINE_POLICIES),
    Flag("--slots", "slots T (144)", type=positive_int, default=144),
    Flag("--trace", "arrivals from a real trace day: mlaas, philly, helios, acme or a CSV path "
         "(scaled to --load)"),
    Flag("--payment", "critical (truthful threshold bid) or paper (eq. 14)",
         default="critical", choices=("critical", "paper")),
    Flag("--solver", "per-task schedule: the paper's DP or the exact solver", default="paper",
         choices=("paper", "exact")),
    Flag("--constants", "pdFTSP's alpha and beta: lemma2 (default), vmax, or a FILE written "
         "by `lorasched calibrate`", type=constants_arg, default="lemma2"),
    Flag("--alpha", "eq. (7) constant (overrides --constants)", type=float),
    Flag("--beta", "eq. (8) constant (overrides --constants)", type=float),
    Flag("--work-resolution", "work units per slowest-node slot in the DP (8)",
         type=positive_int, default=8),
    Flag("--candidate-cells", "pdFTSP's candidate cells: from the exact index (auto, where "
         "nodes fall into few groups) or by reading every cell (scan); same decisions",
         parameter="candidates", default="auto", choices=("auto", "index", "scan")),
    Flag("--trace-day", "pdftsp: the day of --trace to use, a day number (default: the "
         "representative median day)", type=day_arg, requires="--trace"),
    Flag("--task-sizes", "task work from the paper's ranges or the trace jobs' GPU time",
         default="paper", choices=("paper", "trace")),
    Flag("--progress", "tasks", action="store_true", default=False,
         topic="show a progress bar"),
), describe=describe)
