"""The command line's argument types and shared argument groups (the parser is
:mod:`lorasched.cli`'s): each type turns one flag's text into a value or refuses it with
argparse's one-line error naming the flag."""

from __future__ import annotations

import argparse
import math
import os

from .allpass.scenario import capacity_value
from .pdftsp.auction import CONSTANTS
from .pdftsp.workload import DEADLINE_POLICIES, LOADS


class Parser(argparse.ArgumentParser):
    """argparse's parser whose errors are one line on stderr (exit status 2), as every
    other input error of the command is: the rule broken and where to read the usage,
    instead of the usage block followed by the error. Its sub-commands' parsers are of
    this class too (argparse makes them of their parent's)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} "
                     f"(see {self.prog} --help)\n")


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


def positive_float(value: str) -> float:
    """A finite number > 0."""
    try:
        x = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {value!r}") from None
    if not math.isfinite(x) or x <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {value!r}")
    return x


def positive_int(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {n}")
    return n


def seed_arg(value: str) -> int:
    """--seed: a whole number >= 0 (numpy's generators take no negative seed)."""
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {n}")
    return n


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


def constants_arg(value: str) -> str:
    """--constants: a named rule, or the path of a file written by ``lorasched calibrate``."""
    if value in CONSTANTS or os.path.isfile(value):
        return value
    raise argparse.ArgumentTypeError(f"must be one of {list(CONSTANTS)} or an existing "
                                     f"constants file, got {value!r}")


def scenario_args(p: argparse.ArgumentParser, seed: bool = True,
                   systems_: bool = False) -> None:
    if systems_:  # simulate: defaults depend on --system
        p.add_argument("--nodes", type=positive_int, default=None,
                       help="GPU nodes (pdftsp: K = 100; titan: 16 nodes x 4 GPUs)")
        p.add_argument("--gpu", default=None, choices=["A100", "A40", "V100", "mix"],
                       help="node type (pdftsp: mix of A100/A40; titan: the LUT's GPU, V100)")
    else:
        p.add_argument("--nodes", type=positive_int, default=100, help="GPU nodes K (100)")
        p.add_argument("--gpu", default="mix", choices=["A100", "A40", "mix"],
                       help="node type (mix)")
    p.add_argument("--load", type=load_arg, default="high",
                   help="light, medium, high (30/50/80 arrivals per slot) or a mean (high)")
    p.add_argument("--vendors", type=int, default=5, help="labelling vendors N (5)")
    p.add_argument("--deadline-policy", default="slack", choices=DEADLINE_POLICIES)
    p.add_argument("--slots", type=positive_int, default=144, help="slots T (144)")
    if seed:
        p.add_argument("--seed", type=seed_arg, default=1, help="random seed, >= 0 (1)")


def execution_args(p: argparse.ArgumentParser) -> None:
    """Where and how a batch of cells runs: --scheduler, --workers, --serial, --no-progress."""
    p.add_argument("--scheduler", default=None,
                   help="address of an existing Dask scheduler (tcp://HOST:PORT)")
    p.add_argument("--workers", type=positive_int, default=None,
                   help="LocalCluster worker processes (default: one per CPU)")
    p.add_argument("--serial", action="store_true", help="run in this process, no Dask")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
