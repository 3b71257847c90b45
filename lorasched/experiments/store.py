"""The store of a sweep's cells: one JSON file per finished or failed cell, written
atomically, non-finite metrics as ``null`` or ``"inf"``, and a kept cell's result as netCDF
beside it (:doc:`/reference/engine`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import xarray as xr

from ..model.errors import InputError
from . import kept
from .declaration import Sweep, json_default
from .grid import Cell

#: the first bytes of every netCDF-4 (HDF5) file
_SIGNATURE = b"\x89HDF\r\n\x1a\n"


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
    plus the declaration (``sweep.json``); a kept cell's result (a sweep with ``keep``) goes
    to ``results/<key>.nc``, written before its record, and a kept cell whose result file
    is missing or not whole is not done (the next run computes it again). Safe to kill at
    any moment.

    Parameters
    ----------
    folder : str or os.PathLike
        The store's folder (created by :meth:`open`).
    """

    def __init__(self, folder):
        self.folder = Path(folder)
        self.done_dir = self.folder / "done"
        self.failed_dir = self.folder / "failed"
        self.results_dir = self.folder / "results"

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
            ``seconds`` where recorded); files that are not JSON are ignored, and so is a
            kept cell whose result file is missing or not the one its record describes.
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
            if _kept(record) and not self._whole(path.stem, record):
                continue  # its result was lost: not done, computed again
            out[path.stem] = record
        return out

    def result_file(self, key: str) -> Path:
        """Where a kept cell's result is (or would be) stored.

        Parameters
        ----------
        key : str
            The cell's key.

        Returns
        -------
        pathlib.Path
            ``results/<key>.nc``.
        """
        return self.results_dir / f"{key}.nc"

    def _whole(self, key: str, record: dict) -> bool:
        """Whether the kept cell's result file is there with the size its record gives and
        the netCDF-4 signature (a cheap look; :meth:`result` checks every byte)."""
        about = record.get("result")
        if not isinstance(about, dict):
            return False
        try:
            with self.result_file(key).open("rb") as fh:
                return (os.fstat(fh.fileno()).st_size == about.get("bytes")
                        and fh.read(len(_SIGNATURE)) == _SIGNATURE)
        except OSError:
            return False

    def result(self, key: str) -> xr.Dataset:
        """A kept cell's checked result Dataset, as its worker returned it.

        Parameters
        ----------
        key : str
            The key of a finished cell of a sweep with ``keep``.

        Returns
        -------
        xarray.Dataset
            Loaded into memory (the file is closed).

        Raises
        ------
        InputError
            Naming the key: the cell is not finished here, it is not a kept cell, or its
            result file is missing or differs from what its record says (run the sweep
            again to compute it anew).
        """
        path = self.done_dir / f"{key}.json"
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            raise InputError(f"cell {key}: not finished in {self.folder} (no kept "
                             "result)") from None
        if not _kept(record):
            raise InputError(f"cell {key}: its sweep does not keep results (keep = false), "
                             f"so {self.folder} holds only its metrics")
        about = record.get("result") or {}
        try:
            data = self.result_file(key).read_bytes()
        except OSError:
            data = None
        if data is None or hashlib.sha256(data).hexdigest() != about.get("sha256"):
            raise InputError(f"cell {key}: its kept result {self.result_file(key)} is "
                             f"{'missing' if data is None else 'not the one recorded'}; "
                             "run its sweep again to compute it anew")
        return kept.decode(self.result_file(key))

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
            worker, if measured; ``result``, a kept cell's result as netCDF bytes
            (:func:`.kept.encode`), written to :meth:`result_file` before the record.
        """
        record = {"key": cell.key, "params": cell.params, "cell": cell.describe()}
        for name in ("seconds", "cpu_seconds"):  # measured on its worker (not results)
            if name in outcome:
                record[name] = outcome[name]
        if outcome["ok"]:
            record["metrics"] = {k: encode_metric(v) for k, v in outcome["metrics"].items()}
            data = outcome.get("result")
            if data is not None:
                self.results_dir.mkdir(parents=True, exist_ok=True)
                atomic_write(self.result_file(cell.key), data)
                record["result"] = {"bytes": len(data),
                                    "sha256": hashlib.sha256(data).hexdigest()}
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
        self.result_file(key).unlink(missing_ok=True)


def _kept(record: dict) -> bool:
    """Whether a record is a kept policy cell's (its result is part of it)."""
    params = record.get("params") or {}
    return bool(params.get("keep")) and params.get("algorithm") is not None


def _umask() -> int:
    """The process's file-mode creation mask (read once, at import, while one thread runs)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: the mode a file written here gets: what ``open`` would give it (``mkstemp`` gives 0600)
FILE_MODE = 0o666 & ~_umask()


def atomic_write(path: Path, text: str | bytes) -> None:
    """Write ``text`` (or bytes) to ``path`` atomically: a temporary file beside it,
    fsync, rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb" if isinstance(text, bytes) else "w") as fh:
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
