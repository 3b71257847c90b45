"""The store of a sweep's cells: one JSON file per finished or failed cell, written
atomically, non-finite metrics as ``null`` or ``"inf"`` (:doc:`/reference/engine`).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np

from .declaration import Sweep, json_default
from .grid import Cell


def encode_metric(value):
    """A metric as standard JSON can hold it: NaN -> None, +-inf -> "inf" / "-inf"."""
    if isinstance(value, float | np.floating) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def decode_metric(value):
    """The inverse of :func:`encode_metric`."""
    if value is None:
        return math.nan
    if isinstance(value, str) and value in ("inf", "-inf"):
        return float(value)
    return value


class Store:
    """The store of a sweep's cells: one JSON file per finished or failed cell.

    Finished cells go to ``done/``, failed ones to ``failed/``, each written atomically,
    plus the declaration (``sweep.json``). Safe to kill at any moment.

    Parameters
    ----------
    folder : str or os.PathLike
        The store's folder (created by :meth:`open`).
    """

    def __init__(self, folder):
        self.folder = Path(folder)
        self.done_dir = self.folder / "done"
        self.failed_dir = self.folder / "failed"

    def open(self, sweep: Sweep) -> None:
        """Create the folders and write the declaration.

        Parameters
        ----------
        sweep : Sweep
            The sweep whose declaration is written to ``sweep.json``.
        """
        self.done_dir.mkdir(parents=True, exist_ok=True)
        self.failed_dir.mkdir(parents=True, exist_ok=True)
        atomic_write(self.folder / "sweep.json", sweep.to_json())

    def done(self, keys=None) -> dict[str, dict]:
        """The finished cells.

        Parameters
        ----------
        keys : iterable of str, optional
            Only these cells' records (those finished): a sweep reads its own cells, not
            every other sweep's in a shared folder. Default: every finished cell.

        Returns
        -------
        dict
            Cell key -> its record (``key``, ``params``, ``cell``, ``metrics``, and
            ``seconds`` where recorded); files that are not JSON are ignored.
        """
        out = {}
        if not self.done_dir.is_dir():
            return out
        paths = (self.done_dir.glob("*.json") if keys is None else
                 (self.done_dir / f"{k}.json" for k in dict.fromkeys(keys)))
        for path in paths:
            try:
                record = json.loads(path.read_text())
            except (OSError, ValueError):
                continue  # a torn file cannot exist (atomic writes); ignore foreign ones
            if isinstance(record.get("metrics"), dict):
                record["metrics"] = {k: decode_metric(v) for k, v in record["metrics"].items()}
            out[path.stem] = record
        return out

    def failed(self) -> dict[str, dict]:
        """The failed cells.

        Returns
        -------
        dict
            Cell key -> its record (``key``, ``params``, ``cell``, ``error``,
            ``traceback``).
        """
        out = {}
        if self.failed_dir.is_dir():
            for path in self.failed_dir.glob("*.json"):
                try:
                    out[path.stem] = json.loads(path.read_text())
                except (OSError, ValueError):
                    continue
        return out

    def put(self, cell: Cell, outcome: dict) -> None:
        """Write one cell's outcome, atomically.

        A success goes to ``done/`` and removes the cell's earlier failure; a failure
        goes to ``failed/``.

        Parameters
        ----------
        cell : lorasched.experiments.grid.Cell
            The cell.
        outcome : dict
            ``ok``, and ``metrics`` (a success) or ``error`` and ``traceback`` (a
            failure); ``seconds`` and ``cpu_seconds``, the cell's wall and CPU time on its
            worker, if measured.
        """
        record = {"key": cell.key, "params": cell.params, "cell": cell.describe()}
        for name in ("seconds", "cpu_seconds"):  # measured on its worker (not results)
            if name in outcome:
                record[name] = outcome[name]
        if outcome["ok"]:
            record["metrics"] = {k: encode_metric(v) for k, v in outcome["metrics"].items()}
            atomic_write(self.done_dir / f"{cell.key}.json",
                          json.dumps(record, default=json_default, allow_nan=False))
            (self.failed_dir / f"{cell.key}.json").unlink(missing_ok=True)
        else:
            record["error"] = outcome["error"]
            record["traceback"] = outcome["traceback"]
            atomic_write(self.failed_dir / f"{cell.key}.json",
                          json.dumps(record, default=json_default))

    def raw(self, key: str) -> dict:
        """A finished cell's record as stored.

        Parameters
        ----------
        key : str
            The cell's key.

        Returns
        -------
        dict
            The record, its metrics encoded as ``encode_metric`` writes them.

        Raises
        ------
        FileNotFoundError
            If the cell is not finished.
        """
        return json.loads((self.done_dir / f"{key}.json").read_text())

    def adopt(self, key: str, record: dict) -> None:
        """Write a finished cell's record made elsewhere, atomically.

        The cell's earlier failure, if any, is removed.

        Parameters
        ----------
        key : str
            The cell's key.
        record : dict
            Its record as a store holds it (metrics encoded, :meth:`raw`).
        """
        self.done_dir.mkdir(parents=True, exist_ok=True)
        atomic_write(self.done_dir / f"{key}.json", json.dumps(record, allow_nan=False))
        (self.failed_dir / f"{key}.json").unlink(missing_ok=True)

    def drop(self, key: str) -> None:
        """Forget a finished cell, so that the next run computes it.

        Parameters
        ----------
        key : str
            The cell's key (nothing happens if it is not finished).
        """
        (self.done_dir / f"{key}.json").unlink(missing_ok=True)


def _umask() -> int:
    """The process's file-mode creation mask (read once, at import, while one thread runs)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: the mode a file written here gets: what ``open`` would give it (``mkstemp`` gives 0600)
FILE_MODE = 0o666 & ~_umask()


def atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            os.fchmod(fh.fileno(), FILE_MODE)
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def default_store(out) -> Path:
    """Where a sweep writing ``out`` keeps its cells.

    Parameters
    ----------
    out : str or os.PathLike
        The sweep's netCDF file.

    Returns
    -------
    pathlib.Path
        ``<out>.cells/``.
    """
    return Path(str(out) + ".cells")
