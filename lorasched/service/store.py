"""The service's durable state: one SQLite database, ``<state>/auction.sqlite3``.

Tables: ``meta`` (``key``, ``value``: the fingerprint of the cluster and the auction's
options the state was built on) and ``decisions`` (``seq`` from 1, the client's ``id``
(unique), the request body and the decision, both JSON). The database runs in WAL mode
with ``synchronous=FULL`` by default (``sync="full"``): :meth:`Store.append` returns only
once the decision is on disk, so a reply is never sent for a decision a crash of the
process or of the machine could lose. ``sync="normal"`` (an option) returns once the
decision is in the operating system's write-ahead log: it survives the process being
killed, not a power loss, and saves the fsync (about 0.2 ms a decision here,
``lorasched bench service``). The auction's prices are not
stored: they are rebuilt by replaying the decisions in ``seq`` order
(:class:`~lorasched.service.auction.AuctionService`), which is cheaper to keep right than
a second copy.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from ..model.errors import InputError

FILENAME = "auction.sqlite3"
#: durability settings (module docstring)
SYNCS = ("full", "normal")


class Store:
    """The decisions of one service, in order; safe to call from several threads."""

    def __init__(self, state_dir, fingerprint: str, sync: str = "full"):
        if sync not in SYNCS:
            raise InputError(f"--sync must be one of {SYNCS}, got {sync!r}")
        folder = Path(state_dir)
        if folder.exists() and not folder.is_dir():
            raise InputError(f"--state: {folder} is not a folder")
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / FILENAME
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={sync.upper()}")
        self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        self._db.execute("CREATE TABLE IF NOT EXISTS decisions (seq INTEGER PRIMARY KEY, "
                         "id TEXT UNIQUE NOT NULL, request TEXT NOT NULL, "
                         "decision TEXT NOT NULL)")
        row = self._db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
        elif row[0] != fingerprint:
            self._db.close()
            raise InputError(f"--state: {self.path} holds decisions made on another cluster "
                             f"or with other auction options (fingerprint {row[0]}, this "
                             f"cluster's {fingerprint}); use another folder")

    def decisions(self):
        """``(seq, id, request, decision)`` of every stored decision, in ``seq`` order."""
        with self._lock:
            rows = self._db.execute("SELECT seq, id, request, decision FROM decisions "
                                    "ORDER BY seq").fetchall()
        return [(seq, i, json.loads(req), json.loads(dec)) for seq, i, req, dec in rows]

    def append(self, seq: int, task_id: str, request: dict, decision: dict) -> None:
        """Store one decision, durably (committed and synced) before returning."""
        with self._lock:
            self._db.execute("INSERT INTO decisions VALUES (?, ?, ?, ?)",
                             (seq, task_id, json.dumps(request, sort_keys=True),
                              json.dumps(decision, sort_keys=True)))

    def close(self) -> None:
        with self._lock:
            self._db.close()
