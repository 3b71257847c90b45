"""What a system adds to ``lorasched simulate``, in its own words.

Each system declares one :class:`Flags` in its ``flags`` module: its flags (:class:`Flag`,
each setting one of its scenario parameters, policy options or ``simulate`` keywords) and
the one line a run prints. The command line builds ``simulate`` from every system's
declaration and knows no system. The argument types here are the ones declarations share:
each turns a flag's text into its value or refuses it with argparse's one-line error.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Flag:
    """One flag of ``lorasched simulate`` that a system reads.

    * ``parameter``: what the flag sets, a scenario parameter of the system
      (``System.scenario_parameters``), an option of its policies or a keyword of its
      ``simulate``; by default the flag's name (``--gpus-per-node``: ``gpus_per_node``).
    * ``help``: the system's words; where several systems declare one flag the help reads
      ``topic (a: help; b: help)``, or ``a: help; b: help`` without a ``topic``.
    * ``default``, ``type``, ``action``, ``metavar``: argparse's (several systems declaring
      one flag agree on them). A value other than ``default`` counts as given: given to
      another system, or to a policy without that option, it is refused by name. An
      option whose ``type`` returns a :class:`~pathlib.Path` names a file written by
      ``lorasched calibrate``: its options are the run's.
    * ``choices``: the values this system takes (the parser takes every system's).
    * ``requires``: another flag of the system this one needs.
    """

    name: str
    help: str = ""
    parameter: str = ""
    default: Any = None
    type: Callable | None = None
    choices: tuple = ()
    action: str | None = None
    metavar: str | None = None
    topic: str = ""
    requires: str = ""

    def __post_init__(self):
        if not self.name.startswith("--"):
            raise ValueError(f"flag {self.name!r}: a flag's name starts with --")
        if not self.parameter:
            object.__setattr__(self, "parameter", self.dest)

    @property
    def dest(self) -> str:
        """The attribute argparse stores it under: ``--gpus-per-node``: ``gpus_per_node``."""
        return self.name[2:].replace("-", "_")


@dataclass(frozen=True)
class Run:
    """One run of ``lorasched simulate``, as a system's ``describe`` sees it: the policy as
    the command line spells it, every flag's value by parameter (a scenario parameter left
    out holds the scenario builder's default), the seed, the scenario and the result."""

    algorithm: str
    values: dict[str, Any]
    seed: int
    scenario: Any
    result: Any


@dataclass(frozen=True)
class Flags:
    """A system's face on ``lorasched simulate``.

    * ``flags``: its :class:`Flag` s, in the order its help lists them.
    * ``scenario``: what one scenario of the system is, in a few words (the command's
      help: "run one algorithm on a synthetic day (...), ...").
    * ``describe(run)``: the one line a :class:`Run` prints (without `` -> OUT``); none:
      the policy's name and the system's metrics.
    * ``hints``: why the system has no setting for another system's flag (``--nodes``:
      ``"rents A100 workers from its clouds"``), said in place of the generic refusal.
    """

    flags: tuple[Flag, ...]
    scenario: str = "one scenario"
    describe: Callable[[Run], str] | None = None
    hints: dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        names = [f.name for f in self.flags]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"flags declared twice: {twice}")
        for f in self.flags:
            if f.requires and f.requires not in names:
                raise ValueError(f"{f.name} requires {f.requires}, which is not declared")


def positive_int(value: str) -> int:
    """A whole number >= 1."""
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {n}")
    return n


def positive_float(value: str) -> float:
    """A finite number > 0."""
    try:
        x = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {value!r}") from None
    if not math.isfinite(x) or x <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {value!r}")
    return x


def seed_arg(value: str) -> int:
    """A seed: a whole number >= 0 (numpy's generators take no negative seed)."""
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {n}")
    return n


def existing_file(value: str) -> str:
    """The path of an existing file."""
    if not os.path.isfile(value):
        raise argparse.ArgumentTypeError(f"no such file {value}")
    return value
