"""The service's durable state (:class:`Store`): one SQLite database,
``<state>/auction.sqlite3``, written before a reply is sent, and the lock
``<state>/serve.lock`` that keeps it to one server. Durability and faults:
:doc:`/reference/service`.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import threading
from pathlib import Path

from ..model.errors import InputError

FILENAME = "auction.sqlite3"
LOCKNAME = "serve.lock"
#: durability settings (module docstring)
SYNCS = ("full", "normal")
#: decisions between two checkpoints of the write-ahead log into the database
CHECKPOINT_EVERY = 1000


class StateError(InputError):
    """The state folder cannot be used: held by another server, or its database damaged.

    An :class:`~lorasched.model.errors.InputError`.

    Parameters
    ----------
    message : str
        Names the file (and the holder's pid) and what to do.
    """


class StoreError(RuntimeError):
    """A decision the store could not make durable.

    The HTTP API answers it 503 with ``Retry-After``.

    Parameters
    ----------
    field : {"disk", "database"}
        ``"disk"`` when the disk (or the database's size limit) is full, ``"database"``
        for any other failure.
    message : str
        What failed.
    known : bool, optional
        True (default) when the write certainly left nothing, False when its outcome
        could not be read back (the next write first settles it, :meth:`Store.holds`).
    """

    def __init__(self, field: str, message: str, *, known: bool = True):
        super().__init__(message)
        self.field = field
        self.known = known


def _field(err: sqlite3.Error) -> str:
    code = getattr(err, "sqlite_errorcode", None)
    return "disk" if code is not None and code & 0xFF == sqlite3.SQLITE_FULL else "database"


def _take_lock(folder: Path) -> int:
    """An exclusive ``flock`` on ``<folder>/serve.lock``, with this process's pid written
    in it; :class:`StateError` naming the folder and the holder's pid if another holds it.
    The kernel releases it when the process ends, however it ends."""
    path = folder / LOCKNAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        raise StateError(f"--state: {folder} is in use by another lorasched serve (pid "
                         f"{holder}, lock {path}); one server per state: stop that one or "
                         f"use another folder") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


class Store:
    """The decisions of one service, in order, in SQLite; safe to call from several threads.

    Opening takes the state's lock (one server per state) and checks the database (the
    module docstring).

    Parameters
    ----------
    state_dir : str or os.PathLike
        The state folder (created if missing): ``auction.sqlite3`` and ``serve.lock``.
    fingerprint : str
        The cluster's and the auction's options' fingerprint; a state built on another
        is refused.
    sync : {"full", "normal"}, optional
        ``"full"`` (default): :meth:`append` returns once the decision is on disk;
        ``"normal"``: once it is in the operating system's write-ahead log.

    Raises
    ------
    InputError
        If ``sync`` is not a choice, ``state_dir`` is not a folder, or the state holds
        decisions made on another cluster or with other auction options.
    StateError
        If another server holds the state, or its database is truncated, damaged or
        missing decisions.
    """

    def __init__(self, state_dir, fingerprint: str, sync: str = "full"):
        if sync not in SYNCS:
            raise InputError(f"--sync must be one of {SYNCS}, got {sync!r}")
        folder = Path(state_dir)
        if folder.exists() and not folder.is_dir():
            raise InputError(f"--state: {folder} is not a folder")
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / FILENAME
        self._lock = threading.Lock()
        self._lock_fd = _take_lock(folder)  # before anything reads or writes the database
        self._db = None
        self.writes = 0
        try:
            self._open(fingerprint, sync)
        except BaseException:
            self.close()
            raise

    def _open(self, fingerprint: str, sync: str) -> None:
        wal = self.path.with_name(FILENAME + "-wal")
        if self.path.exists() and self.path.stat().st_size == 0:
            raise StateError(f"--state: {self.path} is empty: the database was truncated "
                             f"(restore it from a backup; delete it only if this server "
                             f"never stored a decision)")
        if not self.path.exists() and wal.exists() and wal.stat().st_size > 0:
            raise StateError(f"--state: {wal} is a write-ahead log without its database "
                             f"{self.path}: restore the database, or move both away")
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False,
                                       isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={sync.upper()}")
            self._db.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints apart (docstring)
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, "
                             "value TEXT)")
            self._db.execute("CREATE TABLE IF NOT EXISTS decisions (seq INTEGER PRIMARY KEY, "
                             "id TEXT UNIQUE NOT NULL, request TEXT NOT NULL, "
                             "decision TEXT NOT NULL)")
            row = self._db.execute("SELECT value FROM meta WHERE key = 'fingerprint'"
                                   ).fetchone()
            if row is None:
                self._db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
            n, low, high = self._db.execute("SELECT count(*), min(seq), max(seq) FROM "
                                            "decisions").fetchone()
        except sqlite3.DatabaseError as err:
            raise StateError(f"--state: {self.path} cannot be read as the service's "
                             f"decisions ({err}): it was truncated, overwritten or damaged; "
                             f"restore it from a backup or use another folder") from None
        if row is not None and row[0] != fingerprint:
            raise InputError(f"--state: {self.path} holds decisions made on another cluster "
                             f"or with other auction options (fingerprint {row[0]}, this "
                             f"cluster's {fingerprint}); use another folder")
        if n and (low != 1 or high != n):
            raise StateError(f"--state: {self.path} holds {n} decisions numbered {low}.."
                             f"{high}, not 1..{n}: decisions are missing; restore it from a "
                             f"backup")

    def decisions(self):
        """Every stored decision, in ``seq`` order.

        Returns
        -------
        list of tuple
            ``(seq, id, request, decision)``, the request and the decision as dicts.

        Raises
        ------
        StateError
            Naming the decision whose record is not JSON.
        """
        with self._lock:
            rows = self._db.execute("SELECT seq, id, request, decision FROM decisions "
                                    "ORDER BY seq").fetchall()
        out = []
        for seq, task_id, request, decision in rows:
            try:
                out.append((seq, task_id, json.loads(request), json.loads(decision)))
            except (TypeError, ValueError) as err:
                raise StateError(f"--state: {self.path}, decision {seq} (task {task_id!r}): "
                                 f"its record is not JSON ({err}); restore the database "
                                 f"from a backup") from None
        return out

    def append(self, seq: int, task_id: str, request: dict, decision: dict) -> None:
        """Store one decision, durably (committed and synced) before returning.

        Parameters
        ----------
        seq : int
            The decision's number, from 1.
        task_id : str
            The client's id of the task.
        request : dict
            The request body.
        decision : dict
            The decision.

        Raises
        ------
        StoreError
            If it could not be stored (module docstring).
        """
        row = (seq, task_id, json.dumps(request, sort_keys=True),
               json.dumps(decision, sort_keys=True))
        with self._lock:
            try:
                self._db.execute("INSERT INTO decisions VALUES (?, ?, ?, ?)", row)
            except sqlite3.Error as err:
                held = self._holds(row)
                if held is not True:
                    unknown = "" if held is False else "; whether it was is not known yet"
                    raise StoreError(_field(err), f"the decision could not be stored "
                                     f"({err}){unknown}", known=held is False) from err
            self.writes += 1
            if self.writes % CHECKPOINT_EVERY == 0:
                self._checkpoint()

    def holds(self, seq: int, task_id: str, request: dict, decision: dict) -> bool:
        """Whether a decision is stored as given.

        Parameters
        ----------
        seq, task_id, request, decision
            As for :meth:`append`.

        Returns
        -------
        bool
            Whether decision ``seq`` is stored as given.

        Raises
        ------
        StoreError
            With the outcome unknown if the database cannot be read; or if ``seq`` holds
            another decision.
        """
        row = (seq, task_id, json.dumps(request, sort_keys=True),
               json.dumps(decision, sort_keys=True))
        with self._lock:
            held = self._holds(row)
        if held is None:
            raise StoreError("database", "the database cannot be read", known=False)
        return held

    def _holds(self, row) -> bool | None:
        """True when ``row`` is stored, False when its ``seq`` is free, None when the
        database cannot be read; a ``seq`` holding another decision is a
        :class:`StoreError` (nothing of this one was written)."""
        try:
            got = self._db.execute("SELECT seq, id, request, decision FROM decisions "
                                   "WHERE seq = ?", (row[0],)).fetchone()
        except sqlite3.Error:
            return None
        if got is None:
            return False
        if tuple(got) != row:
            raise StoreError("database", f"{self.path}: decision {row[0]} is already taken "
                             f"by task {got[1]!r}: the database was changed by another "
                             f"program; restart the service")
        return True

    def _checkpoint(self) -> None:
        try:
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error:
            self.writes -= 1  # try again at the next write

    def close(self) -> None:
        """Close the database and release the state's lock."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
            if self._lock_fd is not None:
                os.close(self._lock_fd)  # releases the lock
                self._lock_fd = None
