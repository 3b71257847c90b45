"""Work done once per test run and shared by every pytest-xdist worker (the notebooks'
execution, the built book): the first test to ask runs it under a file lock; a test on
another worker that asks meanwhile waits for it, with a deadline, and reads its result."""

from __future__ import annotations

import fcntl
import json
import os
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest
from _pytest.outcomes import OutcomeException


def run_root(tmp_path_factory) -> Path:
    """The folder this run's workers share: the parent of each worker's base temporary
    folder under pytest-xdist (``.../pytest-N``), the base folder itself without it."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once(root: Path, key: str, make: Callable[[], Path], timeout: float) -> Path:
    """``make()`` run once per test run (``root``: :func:`run_root`), its result a path.

    The first caller runs it holding ``root/once/<key>.lock``; a caller on another worker
    waits for the lock at most ``timeout`` seconds, then reads the result. A failure of
    ``make`` is recorded: every later caller fails with it, naming where it came from,
    instead of doing the work again."""
    folder = root / "once"
    folder.mkdir(parents=True, exist_ok=True)
    done = folder / f"{key}.json"
    deadline = time.monotonic() + timeout
    with open(folder / f"{key}.lock", "a") as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    pytest.fail(f"{key}: still being made by another worker after waiting "
                                f"{timeout:g} s", pytrace=False)
                time.sleep(0.1)
        try:
            if done.is_file():
                record = json.loads(done.read_text())
            else:
                try:
                    record = {"path": str(make())}
                except (Exception, OutcomeException) as error:
                    text = "".join(traceback.format_exception_only(error))
                    done.write_text(json.dumps({"error": text[-12000:],
                                                "by": os.environ.get("PYTEST_XDIST_WORKER",
                                                                     "master")}))
                    raise
                done.write_text(json.dumps(record))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    if "error" in record:
        pytest.fail(f"{key} failed earlier in this run (worker {record['by']}):\n"
                    f"{record['error']}", pytrace=False)
    return Path(record["path"])
