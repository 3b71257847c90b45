"""The ``lorasched`` command: one module per command or group of commands, each adding its
parsers with ``register(subparsers)`` and naming the function that runs it.

* ``simulate`` — :mod:`.simulate` (its flags are the systems' own);
* ``sweep``, ``calibrate`` — :mod:`.sweep`;
* ``suite`` — :mod:`.suite`;
* ``reproduce``, ``compare-stores``, ``export-sweeps`` — :mod:`.reproduce`;
* ``ledger``, ``recount`` — :mod:`.ledger`;
* ``bench decision|solvers|runtime|compare|scale|index|titan|verdicts|service|faults`` —
  :mod:`.bench`;
* ``profiles``, ``profile`` — :mod:`.profile`;
* ``explore`` — :mod:`.explore`;
* ``serve``, ``loadgen`` — :mod:`.serve`.

The parser class and the argument types the commands share are :mod:`.arguments`'.
"""

from __future__ import annotations

import argparse
import os
import sys

from . import bench, explore, ledger, profile, reproduce, serve, simulate, suite, sweep
from .arguments import Parser
from .reproduce import export_sweeps

__all__ = ["export_sweeps", "main", "parser"]

#: the command modules, in the order ``lorasched --help`` lists their commands
COMMANDS = (simulate, sweep, suite, reproduce, ledger, bench, profile, explore, serve)


def parser() -> argparse.ArgumentParser:
    """The ``lorasched`` parser: every command module's commands."""
    top = Parser(prog="lorasched",
                 description="Online scheduling and auction pricing of LoRA fine-tuning jobs.")
    sub = top.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    """The ``lorasched`` command. Bad input (:class:`~lorasched.InputError`, any other
    ``ValueError``, a file that cannot be read or written) is one line on stderr and exit
    status 2, never a traceback; a reader that closes the pipe (``lorasched profiles |
    head``) ends the command quietly."""
    try:
        return _main(argv)
    except BrokenPipeError:
        # the reader went away: point stdout at /dev/null so that Python's flush at exit
        # does not fail again, and end as a command cut short by its reader does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _main(argv: list[str] | None) -> int:
    top = parser()
    if not (sys.argv[1:] if argv is None else argv):  # `lorasched` alone: what it can do
        top.print_help(sys.stderr)
        return 2
    args = top.parse_args(argv)
    try:
        return args.run(args)
    except UnicodeDecodeError as exc:  # a loader that did not name its file
        top.exit(2, f"lorasched: error: not UTF-8 text (byte {exc.start}: "
                 f"{exc.object[exc.start:exc.start + 1]!r})\n")
    except ValueError as exc:  # InputError, and any other ValueError
        top.exit(2, f"lorasched: error: {' '.join(str(exc).split())}\n")
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        top.exit(2, f"lorasched: error: {_file_error(exc)}\n")


def _file_error(exc: OSError) -> str:
    """An OS error on a file, in one line: what happened and to which path."""
    what = {IsADirectoryError: "is a directory, not a file",
            NotADirectoryError: "is not a directory",
            PermissionError: "permission denied",
            FileNotFoundError: "no such file or directory",
            FileExistsError: "already exists"}.get(type(exc), exc.strerror or str(exc))
    return f"{exc.filename}: {what}" if exc.filename else str(exc)
