"""``lorasched serve`` under faults (lorasched.service.store, .auction, .http): a write that
fails leaves nothing and is answered 503, an acknowledged decision survives any crash and
comes back unchanged, one server per state, a damaged state is refused by name, and no
request body is answered 500 (hypothesis). Every fault is injected deterministically."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

import lorasched
from lorasched.bench.faults import FaultyDB, drill, post, serve_killed_after
from lorasched.bench.service import ServerProcess
from lorasched.cli import main
from lorasched.explorer.app import free_port
from lorasched.model.limits import MAX_JSON_DEPTH
from lorasched.service import AuctionService
from lorasched.service.http import RETRY_AFTER_S, create_app
from lorasched.service.loadgen import compare
from lorasched.service.store import FILENAME, LOCKNAME, StateError
from lorasched.service.tasks import scenario_requests

#: how many random bodies the property test sends
RANDOM_BODIES = 600


@pytest.fixture(scope="module")
def day():
    return lorasched.synthetic_scenario(nodes=4, slots=24, load=3.0, seed=2)


@pytest.fixture(scope="module")
def reference(day):
    """Every decision of an uninterrupted run (the service's own, in the scenario's order)."""
    return {d["id"]: d for d in _uninterrupted(day)}


def _uninterrupted(day):
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        service = AuctionService(day, tmp)
        out = [service.offer(b)[0] for b in scenario_requests(day)]
        service.close()
    return out


def _state(service: AuctionService) -> dict:
    return {k: v.copy() for k, v in service.auction.snapshot().items()} | {
        "n": len(service.by_id), "clock": service.clock, "ids": sorted(service.by_id)}


def _same_state(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) else a[k] == b[k]
               for k in a)


def _rows(path) -> int:
    db = sqlite3.connect(path / FILENAME)
    try:
        return db.execute("SELECT count(*) FROM decisions").fetchone()[0]
    finally:
        db.close()


# -- a full disk: real SQLITE_FULL from the database's size limit ------------------------

def test_a_full_disk_refuses_with_503_leaves_nothing_and_the_retry_succeeds(day, reference,
                                                                            tmp_path):
    service = AuctionService(day, tmp_path)
    client = TestClient(create_app(service))
    bodies = scenario_requests(day)
    for body in bodies[:5]:
        assert client.post("/v1/tasks", json=body).status_code == 201
    pages = service.store._db.execute("PRAGMA page_count").fetchone()[0]
    service.store._db.execute(f"PRAGMA max_page_count = {pages + 1}")  # room for a few
    k = 5
    while (r := client.post("/v1/tasks", json=bodies[k])).status_code == 201:
        k += 1
    failed, before = bodies[k], _state(service)
    assert 5 < k < len(bodies) - 10
    assert r.status_code == 503 and r.headers["retry-after"] == str(RETRY_AFTER_S)
    assert r.json()["field"] == "disk" and "database or disk is full" in r.json()["error"]
    # nothing of it anywhere: memory, store; reads keep working; health names the store
    assert _rows(tmp_path) == k and len(service.by_id) == k
    assert client.get(f"/v1/tasks/{failed['id']}").status_code == 404
    assert client.get(f"/v1/tasks/{bodies[0]['id']}").json() == reference[bodies[0]["id"]]
    assert client.get("/v1/prices?from=0&to=2").status_code == 200
    health = client.get("/healthz")
    assert health.status_code == 503 and health.json()["status"] == "failing"
    assert health.json()["store"]["field"] == "disk"
    assert client.post("/v1/tasks", json=failed).status_code == 503  # still full
    assert _same_state(before, _state(service))
    assert "lorasched_store_failures_total 2" in client.get("/metrics").text
    # room again: the same request gets a fresh run's decision, and health is ok again
    service.store._db.execute("PRAGMA max_page_count = 1073741823")
    again = client.post("/v1/tasks", json=failed)
    assert again.status_code == 201 and again.json() == reference[failed["id"]]
    assert client.get("/healthz").json()["status"] == "ok"
    for body in bodies[k + 1:]:
        assert client.post("/v1/tasks", json=body).status_code == 201
    service.close()
    restarted = AuctionService(day, tmp_path)
    assert restarted.by_id == reference  # every acknowledged decision back, unchanged
    restarted.close()


def test_a_write_the_kernel_refuses_is_a_503_and_the_retry_succeeds(day, reference, tmp_path):
    """A real failed write(2): the process's file-size limit set just above the write-ahead
    log (writes past it fail with EFBIG; Python ignores SIGXFSZ), then lifted."""
    import resource
    service = AuctionService(day, tmp_path)
    client = TestClient(create_app(service))
    bodies = scenario_requests(day)
    for body in bodies[:11]:
        assert client.post("/v1/tasks", json=body).status_code == 201
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    wal = (tmp_path / (FILENAME + "-wal")).stat().st_size
    resource.setrlimit(resource.RLIMIT_FSIZE, (wal + 4096, hard))
    try:
        refused = client.post("/v1/tasks", json=bodies[11])
        health = client.get("/healthz").json()
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert refused.status_code == 503 and refused.json()["field"] == "database"
    assert "disk I/O error" in refused.json()["error"] and health["status"] == "failing"
    assert len(service.by_id) == 11 and _rows(tmp_path) == 11
    for body in bodies[11:]:
        assert client.post("/v1/tasks", json=body).status_code == 201
    service.close()
    restarted = AuctionService(day, tmp_path)
    assert restarted.by_id == reference
    restarted.close()


# -- a store that fails its Nth write, in each way a write can fail -----------------------

@pytest.mark.parametrize("mode, first", [("lost", 503), ("landed", 201),
                                         ("landed-unreadable", 503),
                                         ("lost-unreadable", 503)])
@pytest.mark.parametrize("n", [1, 17])
def test_a_store_failing_its_nth_write(day, reference, tmp_path, mode, first, n):
    """The answer to the failed write, the state, the retry, and the restart: every
    acknowledged decision comes back unchanged and the day ends as an uninterrupted one."""
    service = AuctionService(day, tmp_path)
    service.store._db = FaultyDB(service.store._db, n, mode)
    client = TestClient(create_app(service))
    bodies = scenario_requests(day)
    for body in bodies[:n - 1]:
        assert client.post("/v1/tasks", json=body).status_code == 201
    before = _state(service)
    r = client.post("/v1/tasks", json=bodies[n - 1])
    assert r.status_code == first, r.text
    if first == 503:
        assert r.json()["field"] == "database" and _same_state(before, _state(service))
        assert ("not known yet" in r.json()["error"]) == mode.endswith("unreadable")
        assert client.get("/healthz").json()["store"]["field"] == "database"
        retry = client.post("/v1/tasks", json=bodies[n - 1])  # settles, then answers
        assert retry.status_code == (200 if mode.startswith("landed") else 201), retry.text
        assert retry.json() == reference[bodies[n - 1]["id"]]
    assert r.status_code == 503 or r.json() == reference[bodies[n - 1]["id"]]
    for body in bodies[n:]:
        assert client.post("/v1/tasks", json=body).status_code == 201
    assert client.get("/healthz").json()["status"] == "ok"
    assert service.by_id == reference and _rows(tmp_path) == len(bodies)
    service.close()
    restarted = AuctionService(day, tmp_path)
    assert restarted.by_id == reference
    restarted.close()


def test_an_exception_in_a_handler_is_a_json_500_that_changes_nothing(day, reference,
                                                                      tmp_path, caplog):
    service = AuctionService(day, tmp_path)
    client = TestClient(create_app(service))
    bodies = scenario_requests(day)
    client.post("/v1/tasks", json=bodies[0])
    before, decide = _state(service), service.auction.decide

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    service.auction.decide = broken
    with caplog.at_level(logging.ERROR, logger="lorasched.service"):
        r = client.post("/v1/tasks", json=bodies[1])
    assert r.status_code == 500 and r.json()["field"] == "server"
    assert "ZeroDivisionError" in r.json()["error"] and _same_state(before, _state(service))
    assert "ZeroDivisionError: a bug" in caplog.text and "Traceback" in caplog.text
    assert _rows(tmp_path) == 1
    service.auction.decide = decide
    assert client.post("/v1/tasks", json=bodies[1]).json() == reference[bodies[1]["id"]]
    # a failure after the write (memory behind the store): every write refused until a
    # restart, whose replay holds the decision
    commit = service.auction.commit
    service.auction.commit = broken
    assert client.post("/v1/tasks", json=bodies[2]).status_code == 500
    service.auction.commit = commit
    refused = client.post("/v1/tasks", json=bodies[3])
    assert refused.status_code == 503 and refused.json()["field"] == "state"
    assert "restart the service" in client.get("/healthz").json()["store"]["error"]
    service.close()
    restarted = AuctionService(day, tmp_path)
    assert restarted.by_id == {b["id"]: reference[b["id"]] for b in bodies[:3]}
    restarted.close()


# -- one server per state -----------------------------------------------------------------

def test_one_server_per_state(day, tmp_path, capsys):
    first = AuctionService(day, tmp_path)
    with pytest.raises(StateError, match=rf"--state: {tmp_path} is in use by another lorasched "
                                         rf"serve \(pid {os.getpid()}, lock "):
        AuctionService(day, tmp_path)
    cluster = tmp_path.parent / f"{tmp_path.name}-day.nc"
    day.to_netcdf(cluster)
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--cluster", str(cluster), "--state", str(tmp_path),
              "--port", str(free_port())])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and f"(pid {os.getpid()}" in err
    assert first.offer(scenario_requests(day)[0])[1]  # the holder is untouched
    first.close()  # releases the lock
    AuctionService(day, tmp_path).close()


@pytest.mark.slow
def test_a_second_server_process_exits_2_naming_the_holder(day, tmp_path):
    cluster = tmp_path / "day.nc"
    day.to_netcdf(cluster)
    with ServerProcess(cluster, tmp_path / "state", timeout=60) as server:
        second = subprocess.run([sys.executable, "-m", "lorasched", "serve", "--cluster",
                                 str(cluster), "--state", str(tmp_path / "state"),
                                 "--port", str(free_port())],
                                capture_output=True, text=True, timeout=120)
        assert second.returncode == 2, second.stderr
        assert f"(pid {server.proc.pid}, lock {tmp_path / 'state' / LOCKNAME})" in second.stderr
        assert str(tmp_path / "state") in second.stderr


# -- SIGKILL between the durable write and the reply ---------------------------------------

@pytest.mark.slow
def test_sigkill_between_the_write_and_the_reply(day, reference, tmp_path):
    n = 12
    cluster, state = tmp_path / "day.nc", tmp_path / "state"
    day.to_netcdf(cluster)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = serve_killed_after(cluster, state, port, n)
    try:
        bodies = scenario_requests(day)
        acked = {}
        for body in bodies[:n - 1]:
            status, decision = post(url, body)
            assert status == 201
            acked[body["id"]] = decision
        assert post(url, bodies[n - 1]) == (0, None)  # killed after storing, unanswered
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
    assert _rows(state) == n
    with ServerProcess(cluster, state, port=port, timeout=120):
        status, decision = post(url, bodies[n - 1])  # the client's retry
        assert status == 200 and decision == reference[bodies[n - 1]["id"]]
        for body in bodies[:n - 1]:
            assert post(url, body) == (200, acked[body["id"]])  # unchanged
        final = [post(url, body)[1] for body in bodies[n:]]
    every = list(acked.values()) + [decision] + final
    assert compare(day, every) == {"tasks": len(bodies), "identical": len(bodies),
                                   "differ": []}


# -- a damaged state is refused, naming the file ------------------------------------------

def _damage(state, how: str):
    path = state / FILENAME
    data = path.read_bytes()
    if how == "emptied":
        path.write_bytes(b"")
    elif how == "truncated to half":
        path.write_bytes(data[:len(data) // 2])
    elif how == "a page overwritten":
        path.write_bytes(data[:8192] + bytes(range(256)) * 16 + data[8192 + 4096:])
    elif how == "the id index overwritten":  # read by no replay: quick_check finds it
        db = sqlite3.connect(path)
        page = db.execute("SELECT rootpage FROM sqlite_master WHERE type = 'index' AND "
                          "tbl_name = 'decisions'").fetchone()[0]
        db.close()
        at = (page - 1) * 4096
        path.write_bytes(data[:at] + bytes([0x0D]) + bytes(range(256)) * 15 + bytes(255)
                         + data[at + 4096:])
    elif how == "header overwritten":
        path.write_bytes(b"not a database!!" + data[16:])
    elif how in ("a record not JSON", "a decision missing", "a decision changed"):
        db = sqlite3.connect(path)
        if how == "a record not JSON":
            db.execute("UPDATE decisions SET decision = '{\"admitted\": tru' WHERE seq = 7")
        elif how == "a decision missing":
            db.execute("DELETE FROM decisions WHERE seq = 7")
        else:
            db.execute("UPDATE decisions SET request = replace(request, '\"bid\": ', "
                       "'\"bid\": 1') WHERE seq = 7")
        db.commit()
        db.close()
    elif how == "a log without its database":
        db = sqlite3.connect(path)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
        db.execute("INSERT INTO meta VALUES ('x', 'y')")
        db.commit()
        os.link(state / (FILENAME + "-wal"), state / "wal.keep")  # closing removes it
        db.close()
        path.unlink()
        (state / "wal.keep").rename(state / (FILENAME + "-wal"))


DAMAGE = {"emptied": "is empty: the database was truncated",
          "truncated to half": "cannot be read as the service's decisions",
          "a page overwritten": "cannot be read as the service's decisions",
          "the id index overwritten": "cannot be read as the service's decisions",
          "header overwritten": "cannot be read as the service's decisions",
          "a record not JSON": r"decision 7 \(task 'task-6'\): its record is not JSON",
          "a decision missing": r"holds 39 decisions numbered 1..40, not 1..39",
          "a decision changed": r"decision 7: its request is refused|decision 7 \(task "
                                r"'task-6'\): replaying it gives",
          "a log without its database": "is a write-ahead log without its database"}


@pytest.mark.parametrize("how", list(DAMAGE))
def test_a_damaged_state_is_refused_naming_the_file(day, tmp_path, capsys, how):
    service = AuctionService(day, tmp_path)
    for body in scenario_requests(day)[:40]:
        service.offer(body)
    service.close()  # checkpointed: the database file holds every decision
    _damage(tmp_path, how)
    with pytest.raises(StateError, match=DAMAGE[how]) as err:
        AuctionService(day, tmp_path)
    assert str(tmp_path) in str(err.value)
    cluster = tmp_path.parent / f"{tmp_path.name}.nc"
    day.to_netcdf(cluster)
    with pytest.raises(SystemExit) as stop:  # the command line: one line, exit 2
        main(["serve", "--cluster", str(cluster), "--state", str(tmp_path)])
    out = capsys.readouterr().err
    assert stop.value.code == 2 and out.count("\n") == 1 and str(tmp_path) in out
    fd = os.open(tmp_path / LOCKNAME, os.O_RDWR)  # the refusal let the lock go
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.close(fd)


def test_a_body_nested_deeper_than_the_limit_is_refused_before_parsing(day, tmp_path):
    service = AuctionService(day, tmp_path)
    client = TestClient(create_app(service))
    body = scenario_requests(day)[0]
    for depth, status in ((MAX_JSON_DEPTH, 422), (MAX_JSON_DEPTH + 1, 422), (10**4, 422)):
        nest = "[" * (depth - 1) + "1" + "]" * (depth - 1)  # inside the body's object
        r = client.post("/v1/tasks", content=json.dumps(body)[:-1] + f', "speed2": {nest}}}')
        deep = f"deeper than {MAX_JSON_DEPTH} levels (lorasched.model.limits)"
        assert r.status_code == status and (deep in r.json()["error"]) == (
            depth > MAX_JSON_DEPTH), (depth, r.text)
    strings = json.dumps(body | {"id": "[" * 100})  # brackets in a string do not count
    assert "deeper" not in client.post("/v1/tasks", content=strings).json()["error"]
    assert len(service.by_id) == 0


# -- random bodies: 2xx or 4xx only, the state changed by 2xx answers only ---------------

_SCALARS = (st.none() | st.booleans() | st.integers(-(10**30), 10**30)
            | st.sampled_from([2**31, 2**63, 2**64, 10**400, -1, 0, 1e308, -0.0, 5e-324])
            | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12))
_JSON = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=5)
                     | st.dictionaries(st.text(max_size=8), inner, max_size=5), max_leaves=25)


@st.composite
def _bodies(draw, tasks: list[dict]):
    """A body for a service whose clock is at slot ``clock``, as ``make(clock) -> bytes``:
    arbitrary JSON, one of ``tasks`` with fields changed, dropped or added, a deep nest, or
    raw bytes. (The draws do not depend on the clock, so hypothesis can replay them.)"""
    kind = draw(st.sampled_from(["json", "task", "task", "task", "nest", "bytes"]))
    if kind == "json":
        text = json.dumps(draw(_JSON)).encode()
        return lambda clock: text
    if kind == "nest":
        depth = draw(st.integers(1, 5000))
        nest = (b"[" * depth + b"]" * depth) if draw(st.booleans()) else (
            b'{"id": ' * depth + b"1" + b"}" * depth)
        return lambda clock: nest
    if kind == "bytes":
        raw = draw(st.binary(max_size=200))
        return lambda clock: raw
    body = dict(draw(st.sampled_from(tasks)))
    body["id"] = draw(st.sampled_from([body["id"], "x", "y" * 128])
                      | st.from_regex(r"[A-Za-z0-9._:-]{1,12}", fullmatch=True)
                      | st.text(max_size=10))
    for field in draw(st.lists(st.sampled_from(sorted(body) + ["extra"]), max_size=3)):
        if draw(st.booleans()):
            body[field] = draw(_JSON)
        else:
            body.pop(field, None)
    if draw(st.booleans()):  # an absurd magnitude, in a field or in a list's item
        field = draw(st.sampled_from(["work", "memory", "bid", "speed", "vendor_price",
                                      "vendor_delay", "arrival", "deadline"]))
        huge = draw(st.sampled_from([2**31, 2**53 + 1, 2**63, 2**64, 10**30, 10**400,
                                     1e19, 1e308, -(2**63)]))
        if isinstance(body.get(field), list) and body[field]:
            body[field] = [huge] + body[field][1:]
        else:
            body[field] = huge
    timely = draw(st.booleans())  # a slot the clock has not closed: more tasks decided
    offset, span = draw(st.integers(0, 23)), draw(st.integers(0, 8))

    def make(clock: int) -> bytes:
        if timely:
            body["arrival"] = min(max(clock, 0) + offset, 23)
            body["deadline"] = body["arrival"] + span
        return json.dumps(body).encode()
    return make


@pytest.fixture(scope="module")
def fuzzed(day, tmp_path_factory):
    service = AuctionService(day, tmp_path_factory.mktemp("fuzz"))
    yield service, TestClient(create_app(service)), scenario_requests(day)
    service.close()


@pytest.mark.slow
def test_random_bodies_get_2xx_or_4xx_and_only_2xx_change_the_state(day, tmp_path):
    """RANDOM_BODIES bodies (counted) at one service; after each, the state changed only
    if the answer was 201 (one more decision, one more row)."""
    service = AuctionService(day, tmp_path)
    client, tasks, sent = TestClient(create_app(service)), scenario_requests(day), []

    @settings(max_examples=RANDOM_BODIES, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=st.data())
    def one(data):
        body = data.draw(_bodies(tasks))(service.clock)
        before, rows = _state(service), _rows(tmp_path)
        r = client.post("/v1/tasks", content=body,
                        headers={"Content-Type": "application/json"})
        sent.append(r.status_code)
        assert 200 <= r.status_code < 300 or 400 <= r.status_code < 500, (body[:300], r.text)
        assert r.json()  # every answer is JSON
        if r.status_code == 201:
            assert len(service.by_id) == before["n"] + 1 and _rows(tmp_path) == rows + 1
        else:
            assert r.status_code == 200 or r.json()["field"]
            assert _same_state(before, _state(service)) and _rows(tmp_path) == rows

    one()
    service.close()
    assert len(sent) == RANDOM_BODIES and sent.count(201) > 0  # some reached the auction


@pytest.mark.slow
def test_the_drill_finds_every_fault_handled(day, tmp_path):
    """``lorasched bench faults``' table: every row ends as an uninterrupted day."""
    rows = drill(day, tmp_path)
    assert len(rows) == 9 and all(r["day as uninterrupted"] for r in rows), rows
    assert "503 (disk)" in rows[0]["answers"] and "1 traceback logged" in rows[5]["fault"]
    assert rows[6]["answers"].startswith("201 x 11, no answer, 200 x 12, 201")
