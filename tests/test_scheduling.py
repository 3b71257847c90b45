"""How `make test` shares its work between its pytest-xdist workers (tests/conftest.py,
tests/_once.py): a group kept on one worker, work done once per run for all workers, a
hung test failing by name."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from _once import once

TESTS = Path(__file__).resolve().parent


def _pytest(tmp_path, source: str, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_it.py").write_text(textwrap.dedent(source))
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           "-o", "addopts=", *args, str(tmp_path / "test_it.py")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=240)


@pytest.mark.slow
def test_an_xdist_group_runs_on_one_worker(tmp_path):
    """--dist loadgroup keeps each group on one worker (with pytest 9.2 and pytest-xdist
    3.8 it silently does not: pyproject.toml rules that pair out)."""
    run = _pytest(tmp_path, f"""
        import json, os, time
        import pytest
        CASES = [pytest.param(g, i, marks=pytest.mark.xdist_group(g))
                 for g in "ab" for i in range(6)]
        @pytest.mark.parametrize("group, i", CASES)
        def test_note(group, i):
            time.sleep(0.05)
            with open({str(tmp_path / "seen.jsonl")!r}, "a") as f:
                f.write(json.dumps([group, os.environ["PYTEST_XDIST_WORKER"]]) + "\\n")
    """, "-n", "2", "--dist", "loadgroup")
    assert run.returncode == 0, run.stdout + run.stderr
    seen = [json.loads(line) for line in (tmp_path / "seen.jsonl").read_text().splitlines()]
    workers = {group: {w for g, w in seen if g == group} for group in "ab"}
    assert len(seen) == 12 and all(len(w) == 1 for w in workers.values()), workers


@pytest.mark.slow
def test_a_test_past_its_time_limit_fails_by_name(tmp_path):
    """pytest-timeout (pyproject.toml's ``timeout``) ends a hung test as a failure that
    names it, and the run goes on to the next test."""
    start = time.monotonic()
    run = _pytest(tmp_path, """
        import time
        def test_hangs():
            time.sleep(600)
        def test_after():
            pass
    """, "--timeout", "2")
    assert time.monotonic() - start < 120
    assert run.returncode == 1
    assert "FAILED test_it.py::test_hangs - Failed: Timeout" in run.stdout, run.stdout
    assert "1 failed, 1 passed" in run.stdout


_ONCE = """
import sys, time
from pathlib import Path
sys.path.insert(0, {tests!r})
from _once import once
root = Path({root!r})
def make():
    with open(root / "made", "a") as f:
        f.write("made\\n")
    time.sleep(1.0)
    if {fail!r}:
        raise RuntimeError("the work broke")
    return root / "result"
print(once(root, "work", make, timeout=60))
"""


@pytest.mark.parametrize("fail", [False, True])
def test_work_asked_for_by_two_processes_at_once_is_done_once(tmp_path, fail):
    """Two processes (as two workers) ask at the same moment: the work is done once, and
    both get its result; if it fails, both fail with its message and it is not retried."""
    script = _ONCE.format(tests=str(TESTS), root=str(tmp_path), fail=fail)
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert (tmp_path / "made").read_text() == "made\n"
    if fail:
        assert all(p.returncode != 0 for p in procs)
        assert all("the work broke" in out + err for out, err in outs), outs
        assert sum("failed earlier in this run" in out + err for out, err in outs) == 1
    else:
        assert all(p.returncode == 0 for p in procs), outs
        assert [out.strip() for out, _ in outs] == [str(tmp_path / "result")] * 2


def test_work_done_once_is_not_done_again(tmp_path):
    calls = []
    for _ in range(3):
        assert once(tmp_path, "k", lambda: calls.append(1) or tmp_path / "r", 10) == \
            tmp_path / "r"
    assert calls == [1]


class _Item:
    """Enough of a pytest item for conftest's queue: its fixtures, name and markers."""

    def __init__(self, name: str, fixtures: tuple[str, ...] = (), slow: bool = False):
        self.nodeid = self.originalname = name
        self.fixturenames = list(fixtures)
        self._slow = slow

    def get_closest_marker(self, name: str):
        return object() if name == "slow" and self._slow else None


def test_the_built_books_checks_are_spread_over_the_other_tests():
    """`make test`'s queue (conftest._queue): the book-building test first, then the slow
    and quick tests in that order with the built book's checks (which mostly wait on
    Chromium) spread evenly among them, from ``BOOK_START`` to ``BOOK_END`` of the work's
    expected time; every test once."""
    import conftest

    book = [_Item(f"page{i}", ("built_book",)) for i in range(10)]
    slow = [_Item(f"slow{i}", slow=True) for i in range(20)]
    quick = [_Item(f"quick{i}") for i in range(400)]
    first = _Item(conftest.BOOK_FIRST, ("built_book",))
    queue = conftest._queue([*book, *quick, first, *slow])
    assert sorted(i.nodeid for i in queue) == sorted(
        i.nodeid for i in [*book, *quick, first, *slow])
    assert queue[0] is first
    work = [i for i in queue[1:] if not i.nodeid.startswith("page")]
    assert work == [*slow, *quick]  # the others keep their order
    done, at = 0.0, []  # the expected time of the work run before each page
    for item in queue[1:]:
        if item.nodeid.startswith("page"):
            at.append(done)
        else:
            done += conftest.SLOW_S if item in slow else conftest.QUICK_S
    assert [queue.index(p) for p in book] == sorted(queue.index(p) for p in book)
    assert conftest.BOOK_START * done <= min(at) and max(at) <= conftest.BOOK_END * done, at
    gaps = [b - a for a, b in zip(at, at[1:], strict=False)]
    assert max(gaps) <= 2 * min(gaps) + conftest.SLOW_S, gaps  # evenly, to a slow test
