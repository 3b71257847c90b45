"""Files the figure pages write while other processes may read or write them too: a
write that lands whole or not at all (:func:`atomic_file`), and a lock so that a file
several processes want is made once (:func:`locked`)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Windows
    fcntl = None


@contextmanager
def atomic_file(path) -> Iterator[Path]:
    """A temporary path beside ``path``, unique to this writer (``tempfile.mkstemp``),
    renamed to ``path`` when the block ends, removed if it fails: an interrupted write
    leaves no broken file, and processes writing one file at once (two notebooks of
    ``make book``, two test workers sharing the default store) do not take each other's
    temporary file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def locked(path) -> Iterator[None]:
    """Hold ``path``'s lock (a lock file beside it, ``.<name>.lock``) in the block, so that
    processes making one file at once (two notebooks of ``make book``, two test workers
    sharing the default store) make it once: the others wait, then find it made."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fcntl is None:  # pragma: no cover - no advisory locks here: each may make it
        yield
        return
    with open(path.with_name(f".{path.name}.lock"), "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
