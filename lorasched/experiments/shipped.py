"""Cells shipped with the repository: finished cells' records computed once and kept as one
JSON-lines file (a header with their provenance, then a record a line, sorted by key),
seeded into a store where their keys match the code (:func:`seed`), written from a store
(:func:`ship`). A key hashes the parameters and the code (``grid.cell_key``), so a
shipped record is only ever taken by the code that computed it; see
:doc:`/reference/engine`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..model.errors import InputError
from .grid import cell_key
from .store import Store, atomic_write

#: the header line's marker (its value is the format's version)
FORMAT = "lorasched-shipped-cells"
VERSION = 1
#: a store's record taken from shipped cells carries this field (True)
MARK = "shipped"


@dataclass
class Shipped:
    """A file of shipped cells.

    Parameters
    ----------
    header : dict
        Where and how the records were computed (free-form, e.g. ``commit``, ``machine``,
        ``python``, ``made``); :func:`ship` writes it.
    records : dict
        Cell key -> its store record (``key``, ``params``, ``cell``, ``metrics``,
        ``seconds``, ``cpu_seconds``), metrics as the store encodes them.
    """

    header: dict
    records: dict = field(default_factory=dict)

    @property
    def cpu_seconds(self) -> float:
        """The records' CPU seconds when they were computed, summed."""
        return sum(float(r.get("cpu_seconds", 0.0)) for r in self.records.values())


def read(path) -> Shipped:
    """Read and check a file of shipped cells.

    Parameters
    ----------
    path : str or os.PathLike
        The file (:func:`write`'s format).

    Returns
    -------
    Shipped

    Raises
    ------
    InputError
        If a line is not a JSON object, the first is not the header, a record has no
        ``key``, ``params`` or ``metrics``, or a key appears twice; the message names the
        line.
    """
    path = Path(path)
    lines = path.read_text().splitlines()
    objects = []
    for n, line in enumerate(lines, start=1):
        try:
            obj = json.loads(line)
        except ValueError as err:
            raise InputError(f"{path}, line {n}: not JSON ({err})") from None
        if not isinstance(obj, dict):
            raise InputError(f"{path}, line {n}: not a JSON object")
        objects.append(obj)
    if not objects or objects[0].get("format") != FORMAT:
        raise InputError(f"{path}, line 1: not a header with format {FORMAT!r}")
    if objects[0].get("version") != VERSION:
        raise InputError(f"{path}, line 1: version {objects[0].get('version')!r}, this "
                         f"lorasched reads {VERSION}")
    out = Shipped(header=objects[0].get("header", {}))
    for n, record in enumerate(objects[1:], start=2):
        missing = [f for f in ("key", "params", "metrics") if f not in record]
        if missing:
            raise InputError(f"{path}, line {n}: a record without {', '.join(missing)}")
        if record["key"] in out.records:
            raise InputError(f"{path}, line {n}: key {record['key']} a second time")
        out.records[record["key"]] = record
    return out


def merge(parts: Iterable[Shipped]) -> Shipped:
    """Several files' cells as one, to seed a store from (a file per system, each with its
    own provenance): every part's records, and a header listing the parts' headers.

    Parameters
    ----------
    parts : iterable of Shipped
        The files' cells (:func:`read`).

    Returns
    -------
    Shipped

    Raises
    ------
    InputError
        If a key is in two parts (the message names it).
    """
    out = Shipped(header={"parts": []})
    for part in parts:
        out.header["parts"].append(part.header)
        twice = sorted(set(part.records) & set(out.records))
        if twice:
            raise InputError(f"shipped cell {twice[0]} is in two files")
        out.records.update(part.records)
    return out


def write(path, shipped: Shipped) -> None:
    """Write shipped cells to a file, atomically.

    The header line comes first, then the records sorted by key, so that a refresh's diff
    shows the cells that changed.

    Parameters
    ----------
    path : str or os.PathLike
        The file (its folder is created if missing).
    shipped : Shipped
        The cells (:func:`ship`).
    """
    lines = [json.dumps({"format": FORMAT, "version": VERSION, "header": shipped.header},
                        sort_keys=True)]
    for key in sorted(shipped.records):
        record = {k: v for k, v in shipped.records[key].items() if k != MARK}
        lines.append(json.dumps(record, sort_keys=True, allow_nan=False))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    atomic_write(Path(path), "\n".join(lines) + "\n")


def seed(store: Store, shipped: Shipped, keys: Iterable[str]) -> list[str]:
    """Copy into ``store`` the shipped records of ``keys`` that it does not hold yet, each
    marked as shipped (``MARK``); an earlier failure of the cell is removed.

    Parameters
    ----------
    store : lorasched.experiments.store.Store
        The store (its folders are created if missing).
    shipped : Shipped
        The shipped cells.
    keys : iterable of str
        The cells wanted (a batch's keys): a shipped record of another key (other code,
        another figure) is not copied.

    Returns
    -------
    list of str
        The keys copied, sorted.
    """
    done = set(store.done())
    copied = []
    for key in sorted(set(keys)):
        if key in shipped.records and key not in done:
            store.adopt(key, {**shipped.records[key], MARK: True})
            copied.append(key)
    return copied


def unseed(store: Store) -> list[str]:
    """Remove from ``store`` every record that was taken from shipped cells, so that the
    next run computes those cells here.

    Parameters
    ----------
    store : lorasched.experiments.store.Store
        The store.

    Returns
    -------
    list of str
        The keys removed, sorted.
    """
    gone = sorted(key for key, record in store.done().items() if record.get(MARK))
    for key in gone:
        store.drop(key)
    return gone


def ship(store: Store, keys: Iterable[str], header: dict) -> Shipped:
    """The records of ``keys`` in ``store``, to be written by :func:`write`.

    Parameters
    ----------
    store : lorasched.experiments.store.Store
        Where the cells were computed.
    keys : iterable of str
        The cells to ship.
    header : dict
        Where and how they were computed (the :class:`Shipped` header).

    Returns
    -------
    Shipped

    Raises
    ------
    InputError
        If a key has no finished record in the store, or a record was itself taken from
        shipped cells (shipping it again would give it this header's provenance); the
        message says how many and names the first.
    """
    done, keys = store.done(), sorted(set(keys))
    missing = [k for k in keys if k not in done]
    if missing:
        raise InputError(f"{len(missing)} of the {len(keys)} cells to ship are not finished "
                         f"in {store.folder} (the first: {missing[0]}); compute them first")
    taken = [k for k in keys if done[k].get(MARK)]
    if taken:
        raise InputError(f"{len(taken)} of the {len(keys)} cells to ship were taken from "
                         f"shipped cells, not computed in {store.folder} (the first: "
                         f"{taken[0]}); compute them here first (--no-shipped)")
    return Shipped(header=dict(header), records={k: store.raw(k) for k in keys})


def extend(old: Shipped, store: Store, keys: Iterable[str], header: dict) -> Shipped:
    """``old``'s records of ``keys``, and the records of the other ``keys`` from ``store``,
    where they were computed: more seeds or settings shipped without computing again the
    cells already shipped. ``old``'s header is kept, with ``header`` (where and how the
    new records were computed) and their count appended to its list ``added``.

    Parameters
    ----------
    old : Shipped
        The file's cells (:func:`read`).
    store : lorasched.experiments.store.Store
        Where the new cells were computed (``old``'s may be there too, taken from it).
    keys : iterable of str
        The cells to ship (a batch's keys): a record of ``old`` of another key leaves.
    header : dict
        Where and how the new cells were computed.

    Returns
    -------
    Shipped

    Raises
    ------
    InputError
        As :func:`ship` does for a new cell that is not finished in ``store`` or was not
        computed there.
    """
    keys = sorted(set(keys))
    kept = {k: old.records[k] for k in keys if k in old.records}
    new = ship(store, [k for k in keys if k not in kept], header)
    out = Shipped(header={**old.header, "added": [*old.header.get("added", []),
                                                   {**header, "cells": len(new.records)}]},
                  records={**kept, **new.records})
    return out


def rekey(old: Shipped, why: str, header: dict) -> Shipped:
    """``old``'s records under the keys this code gives their parameters
    (:func:`~.grid.cell_key`), not computed again: for a change of code that moves every
    key but none of the numbers (the cell runner moved between modules), shown to be so
    by recomputing cells with the new code (the shipped-cells tests recompute the
    cheapest cell of each policy). Each record keeps its metrics and the provenance of
    where it was computed; the header keeps ``old``'s and appends ``header`` with ``why``
    and the count to its list ``rekeyed``, so the file says what was not recomputed.

    Parameters
    ----------
    old : Shipped
        The file's cells (:func:`read`).
    why : str
        What changed, and how it was shown not to change the numbers.
    header : dict
        Where and when the keys were made again.

    Returns
    -------
    Shipped

    Raises
    ------
    InputError
        If ``why`` is empty, or two records' parameters give one key.
    """
    if not why.strip():
        raise InputError("rekey: say why the numbers stand under the new keys")
    records = {}
    for record in old.records.values():
        key = cell_key(record["params"])
        if key in records:
            raise InputError(f"rekey: two records' parameters give the key {key}")
        records[key] = {**record, "key": key}
    entry = {**header, "why": why.strip(), "cells": len(records)}
    return Shipped(header={**old.header, "rekeyed": [*old.header.get("rekeyed", []), entry]},
                   records=dict(sorted(records.items())))

