"""What the commands share: the parser class, the argument types (the generic ones of
:mod:`lorasched.model.flags`, pdFTSP's ``--load``) and two argument groups, a pdFTSP day
and where a batch of cells runs. Each type turns one flag's text into a value or refuses it
with argparse's one-line error naming the flag."""

from __future__ import annotations

import argparse

from ..model.flags import positive_float, positive_int, seed_arg
from ..pdftsp.flags import load_arg
from ..pdftsp.workload import DEADLINE_POLICIES

__all__ = ["Parser", "execution_args", "load_arg", "positive_float", "positive_int",
           "scenario_args", "seed_arg"]


class Parser(argparse.ArgumentParser):
    """argparse's parser whose errors are one line on stderr (exit status 2), as every
    other input error of the command is: the rule broken and where to read the usage,
    instead of the usage block followed by the error. Its sub-commands' parsers are of
    this class too (argparse makes them of their parent's)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} "
                     f"(see {self.prog} --help)\n")


def scenario_args(p: argparse.ArgumentParser, seed: bool = True) -> None:
    """A pdFTSP synthetic day: --nodes, --gpu, --load, --vendors, --deadline-policy,
    --slots and (``seed``) --seed."""
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
