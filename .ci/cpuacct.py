"""A pytest plugin that writes each test's CPU seconds, its process's own and its reaped
children's (a notebook's kernel, a subprocess; a browser is counted only when reaped),
its wall seconds and its start (seconds since the epoch) to
``$CPUACCT_DIR/<xdist worker>.tsv``: where `make test`'s CPU time goes, test by test, and
when each worker waits.

    PYTHONPATH=.ci CPUACCT_DIR=/tmp/cpuacct make test \
      PYTEST_FLAGS="-n 3 --dist loadgroup --no-loadscope-reorder -p cpuacct"
"""
import os
import resource
import time

import pytest

_out = None


def _cpu():
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _out
    if _out is None:
        d = os.environ.get("CPUACCT_DIR", "/tmp/cpuacct")
        os.makedirs(d, exist_ok=True)
        _out = open(os.path.join(d, f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.tsv"), "a")
    a, b, t = *_cpu(), time.time()
    yield
    a2, b2 = _cpu()
    _out.write(f"{item.nodeid}\t{a2 - a:.2f}\t{b2 - b:.2f}\t{time.time() - t:.2f}\t{t:.2f}\n")
    _out.flush()
