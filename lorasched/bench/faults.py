"""A fault drill for ``lorasched serve`` (``lorasched bench faults``): one day of tasks over HTTP
while a fault strikes, a restart on the same state, and what came back
(:doc:`/reference/service`).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import xarray as xr

from ..explorer.app import free_port
from ..service.auction_service import AuctionService
from ..service.store import FILENAME, StateError
from ..service.tasks import scenario_requests
from .service import LoopbackServer, ServerProcess

#: the script of a ``lorasched serve`` that SIGKILLs itself right after its ``{n}``-th
#: durable write, before the reply (argv: serve's)
KILL_AFTER_WRITE = """
import os, signal, sys
from lorasched.service import store
write = store.Store.append
def append(self, *args, **kwargs):
    write(self, *args, **kwargs)
    if self.writes == {n}:
        os.kill(os.getpid(), signal.SIGKILL)  # stored, not answered
store.Store.append = append
from lorasched.cli import main
sys.exit(main())
"""


class FaultyDB:
    """A store's SQLite connection whose ``n``-th decision write fails as ``mode`` says:
    ``"lost"`` (nothing written, an I/O error), ``"landed"`` (written, then an error
    reported, as SQLite reports a failed checkpoint after a commit), ``"landed-unreadable"``
    and ``"lost-unreadable"`` (the same, and the database cannot be read back once)."""

    MODES = ("lost", "landed", "landed-unreadable", "lost-unreadable")

    def __init__(self, db, n: int, mode: str):
        if mode not in self.MODES:
            raise ValueError(f"mode must be one of {self.MODES}, got {mode!r}")
        self.db, self.n, self.mode, self.writes, self.blind = db, n, mode, 0, 0

    def execute(self, sql, *args):
        if sql.startswith("INSERT INTO decisions"):
            self.writes += 1
            if self.writes == self.n:
                if self.mode.startswith("landed"):
                    self.db.execute(sql, *args)
                if self.mode.endswith("unreadable"):
                    self.blind = 1
                raise sqlite3.OperationalError("disk I/O error")
        if sql.startswith("SELECT seq, id") and self.blind:
            self.blind -= 1
            raise sqlite3.OperationalError("disk I/O error")
        return self.db.execute(sql, *args)

    def close(self):
        self.db.close()


class _Count(logging.Handler):
    """Counts the records logged with a traceback."""

    def __init__(self):
        super().__init__()
        self.tracebacks = 0

    def emit(self, record):
        self.tracebacks += record.exc_info is not None


def post(url: str, body: dict, timeout: float = 30.0) -> tuple[int, dict | None]:
    """``(status, JSON answer)`` of ``POST url/v1/tasks``; ``(0, None)`` when no answer
    came (the connection dropped)."""
    request = urllib.request.Request(f"{url}/v1/tasks", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())
    except OSError:
        return 0, None


def _answers(codes: list) -> str:
    """'201 x 11, 503 (disk) x 2, 201 x 62': the answers in order, runs collapsed."""
    runs: list[list] = []
    for c in codes:
        if runs and runs[-1][0] == c:
            runs[-1][1] += 1
        else:
            runs.append([c, 1])
    return ", ".join(f"{c if c else 'no answer'}" + (f" x {n}" if n > 1 else "")
                     for c, n in runs)


def _row(fault: str, codes: list, state: Path, scenario: xr.Dataset, acked: dict,
         reference: dict) -> dict:
    """Restart on ``state``: what it holds against the acknowledged decisions."""
    service = AuctionService(scenario, state)
    held = dict(service.by_id)
    service.close()
    back = sum(held.get(i) == d for i, d in acked.items())
    return {"fault": fault, "answers": _answers(codes),
            "after restart": f"{len(held)} decisions",
            "acknowledged back unchanged": f"{back} of {len(acked)}",
            "day as uninterrupted": held == reference}


#: times a drill's client sends one request at most
ATTEMPTS = 3


def _day(url: str, bodies: list[dict], codes: list, acked: dict, *, again=(503,),
         before=None) -> None:
    """Send ``bodies`` in order; a request answered with a status in ``again`` is sent
    again, up to :data:`ATTEMPTS` times (the first time after ``before()``, the fault
    cleared), as a client retrying a 503 would (without waiting its Retry-After)."""
    for body in bodies:
        for _ in range(ATTEMPTS):
            status, answer = post(url, body)
            codes.append(status if status != 503 else f"503 ({answer['field']})")
            if status in (200, 201):
                acked[body["id"]] = answer
                break
            if status not in again:
                break
            if before is not None:
                before()
                before = None


def drill(scenario: xr.Dataset, folder=None, *, at: int = 12) -> list[dict]:
    """The fault table (module docstring) on ``scenario``'s tasks, the fault at about the
    ``at``-th decision; ``folder`` keeps the states (a temporary folder by default)."""
    bodies = scenario_requests(scenario)
    with tempfile.TemporaryDirectory(prefix="lorasched-drill-") as tmp:
        root = Path(folder or tmp)
        service = AuctionService(scenario, root / "reference")
        reference = {b["id"]: service.offer(b)[0] for b in bodies}
        service.close()
        rows = []

        def in_process(name, fault, clear=None, again=(503,)):
            state = root / name
            service = AuctionService(scenario, state)
            codes, acked = [], {}
            with LoopbackServer(service) as server:
                _day(server.url, bodies[:at - 1], codes, acked)
                undo = fault(service)
                _day(server.url, bodies[at - 1:], codes, acked, again=again,
                     before=(lambda: clear(service, undo)) if clear else None)
            service.close()
            return codes, acked, state

        def fill(service):
            db = service.store._db
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            db.execute(f"PRAGMA max_page_count = {pages}")

        def room(service, _):
            service.store._db.execute("PRAGMA max_page_count = 1073741823")

        codes, acked, state = in_process("disk", fill, room)
        rows.append(_row("the disk fills (SQLite's page limit), then has room again", codes,
                         state, scenario, acked, reference))
        for mode, words in (("lost", "a write fails (I/O error), nothing written"),
                            ("landed", "a write lands but reports an error"),
                            ("lost-unreadable", "a write fails and cannot be read back"),
                            ("landed-unreadable", "a write lands, reports an error and "
                                                  "cannot be read back")):
            def faulty(service, mode=mode):
                service.store._db = FaultyDB(service.store._db, 1, mode)
            codes, acked, state = in_process(mode, faulty)
            rows.append(_row(words, codes, state, scenario, acked, reference))

        def bug(service):
            decide = service.auction.decide

            def broken(*args, **kwargs):
                service.auction.decide = decide  # once
                raise ZeroDivisionError("an injected bug")
            service.auction.decide = broken
        log = logging.getLogger("lorasched.service")
        logged = _Count()
        log.addHandler(logged)
        log.propagate = False  # counted here, not printed
        try:
            codes, acked, state = in_process("bug", bug, again=(500,))
        finally:
            log.removeHandler(logged)
            log.propagate = True
        rows.append(_row(f"a bug in the auction (an exception, once; {logged.tracebacks} "
                         f"traceback logged)", codes, state, scenario, acked, reference))
        rows.append(_killed(scenario, bodies, root / "sigkill", at, reference))
        rows.append(_second_server(scenario, root / "second"))
        rows.append(_damaged(scenario, bodies, root / "damaged", at))
    return rows


def serve_killed_after(cluster, state, port: int, n: int,
                       timeout: float = 120.0) -> subprocess.Popen:
    """``lorasched serve`` on ``port`` that SIGKILLs itself after its ``n``-th durable
    write, before the reply (:data:`KILL_AFTER_WRITE`), once it answers ``/healthz``."""
    proc = subprocess.Popen([sys.executable, "-c", KILL_AFTER_WRITE.format(n=n), "serve",
                             "--cluster", str(cluster), "--state", str(state), "--port",
                             str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).close()
            return proc
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("lorasched serve did not start") from None
            time.sleep(0.1)


def _killed(scenario, bodies, state: Path, at: int, reference: dict) -> dict:
    """``lorasched serve`` SIGKILLed after storing the ``at``-th decision, before the reply;
    restarted; the client sends every request again."""
    cluster = state.with_suffix(".nc")
    state.mkdir(parents=True)
    scenario.to_netcdf(cluster)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = serve_killed_after(cluster, state, port, at)
    codes, acked = [], {}
    try:
        for body in bodies[:at]:
            status, answer = post(url, body)
            codes.append(status)
            if status in (200, 201):
                acked[body["id"]] = answer
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    with ServerProcess(cluster, state, port=port, timeout=120):
        for body in bodies:  # the client's retries, then the rest of the day
            status, answer = post(url, body)
            codes.append(status)
            if status in (200, 201) and body["id"] not in acked:
                acked[body["id"]] = answer
            elif status == 200 and acked[body["id"]] != answer:
                acked[body["id"]] = {"changed": True}
    return _row("SIGKILL between the durable write and the reply, restart, every request "
                "sent again", codes, state, scenario, acked, reference)


def _second_server(scenario, state: Path) -> dict:
    """A second ``lorasched serve`` on the state of a running one."""
    cluster = state.with_suffix(".nc")
    state.parent.mkdir(parents=True, exist_ok=True)
    scenario.to_netcdf(cluster)
    with ServerProcess(cluster, state, timeout=120) as first:
        second = subprocess.run([sys.executable, "-m", "lorasched", "serve", "--cluster",
                                 str(cluster), "--state", str(state), "--port",
                                 str(free_port())], capture_output=True, text=True,
                                timeout=120)
        named = f"pid {first.proc.pid}" in second.stderr
    return {"fault": "a second server started on the same state",
            "answers": f"exit {second.returncode}, naming the folder and the holder's "
                       f"{'pid' if named else 'pid: NOT NAMED'}",
            "after restart": "the first server serves on", "acknowledged back unchanged": "-",
            "day as uninterrupted": second.returncode == 2 and named}


def _damaged(scenario, bodies, state: Path, at: int) -> dict:
    """The database cut to half its size, then a start on it."""
    service = AuctionService(scenario, state)
    for body in bodies[:3 * at]:
        service.offer(body)
    service.close()
    path = state / FILENAME
    path.write_bytes(path.read_bytes()[:path.stat().st_size // 2])
    try:
        AuctionService(scenario, state).close()
        refused = "started (NOT REFUSED)"
    except StateError as err:
        refused = "refused at start: " + str(err).split(" (")[0]
    return {"fault": "the database truncated to half its size", "answers": refused,
            "after restart": "-", "acknowledged back unchanged": "-",
            "day as uninterrupted": refused.startswith("refused")}
