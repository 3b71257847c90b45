"""Run one phase of `make test` and note its wall and CPU time; print the phases' table.

    python .ci/timed.py NAME COMMAND [ARG ...]   run COMMAND, add a row to build/test-times.tsv,
                                                 exit with its status
    python .ci/timed.py --report                 the table of the rows written since --reset
    python .ci/timed.py --reset                  start a new table

The table is build/test-times.tsv, or the file that $TIMED_TABLE names (`make book` keeps
its phases in build/book-times.tsv).
CPU time is that of the command and all its descendants (user + system), so CPU / wall
says how many of the cores the phase kept busy.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

TABLE = Path(os.environ.get("TIMED_TABLE")
             or Path(__file__).resolve().parents[1] / "build" / "test-times.tsv")


def run(name: str, command: list[str]) -> int:
    before = os.times()
    start = time.monotonic()
    status = subprocess.call(command)
    wall = time.monotonic() - start
    after = os.times()
    user = after.children_user - before.children_user
    system = after.children_system - before.children_system
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    with TABLE.open("a") as f:
        f.write(f"{name}\t{wall:.1f}\t{user:.1f}\t{system:.1f}\t{status}\n")
    return status


def report() -> None:
    rows = [line.split("\t") for line in TABLE.read_text().splitlines()] if TABLE.exists() \
        else []
    print(f"\n{'phase':<10} {'wall':>9} {'user':>9} {'system':>9} {'cores busy':>11}  status")
    total = [0.0, 0.0, 0.0]
    for name, wall, user, system, status in rows:
        w, u, s = float(wall), float(user), float(system)
        total = [total[0] + w, total[1] + u, total[2] + s]
        print(f"{name:<10} {_mmss(w):>9} {_mmss(u):>9} {_mmss(s):>9} "
              f"{(u + s) / w if w else 0:>11.2f}  {status}")
    w, u, s = total
    print(f"{'all':<10} {_mmss(w):>9} {_mmss(u):>9} {_mmss(s):>9} "
          f"{(u + s) / w if w else 0:>11.2f}")


def _mmss(seconds: float) -> str:
    return f"{int(seconds // 60)}:{seconds % 60:04.1f}"


if __name__ == "__main__":
    if sys.argv[1:] == ["--report"]:
        report()
    elif sys.argv[1:] == ["--reset"]:
        TABLE.unlink(missing_ok=True)
    elif len(sys.argv) >= 3:
        sys.exit(run(sys.argv[1], sys.argv[2:]))
    else:
        sys.exit(__doc__)
