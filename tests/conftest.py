"""Shared pytest configuration."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from _book import BIN, ROOT, build_site, execute_notebook, toc_notebooks
from _browser import CHROMIUM_ARGS, find_chromium, reader_browser
from _once import once, run_root
from hypothesis import settings

from lorasched.figures import datafiles

# No time limit on one example: a limit in wall-clock time fails under load (the workers,
# a notebook's kernel and a browser on two cores), and speed belongs in the benchmarks.
settings.register_profile("lorasched", deadline=None)
settings.load_profile("lorasched")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "browser: opens pages in headless Chromium or needs the built book (select with "
        "`-m browser`, leave out with `-m 'not browser'`)",
    )
    config.addinivalue_line(
        "markers",
        "slow: takes seconds, not milliseconds (a notebook, a server, a cluster, a "
        "subprocess, a whole day); `make test` runs them early, `-m 'not slow and not "
        "browser'` leaves them out for quick feedback",
    )


#: the time limits (s) of tests that run the notebooks or build the book, unless a test
#: names its own (``@pytest.mark.timeout``); every other test has pyproject.toml's
#: ``timeout``. A notebook's limit holds the cells and the ledger that the first notebooks
#: wait for (every figure's cells, then every claim judged: minutes in a fresh clone)
NOTEBOOK_TIMEOUT, BOOK_TIMEOUT = 1800, 1800
#: the test that builds the book, started as soon as the notebooks are under way
BOOK_FIRST = "test_the_built_book_loads_only_local_scripts"


#: the notebooks that take longest (most cells to compute in a fresh clone), run first so
#: that the last notebook to finish is a short one; the summary page last, since it reads
#: every figure's cells (run early, it computed them while the figures' own pages did too)
#: (the sensitivity pages before the headlines: they reuse the figures' cells)
FIRST_NOTEBOOKS = ("titan_authors", "allpass_fig06", "service", "allpass_fig07",
                   "calibration", "fig04_scale", "fig12_competitiveness", "day",
                   "titan_fig05")
LAST_NOTEBOOKS = ("sensitivity_pdftsp", "sensitivity_titan", "sensitivity_allpass",
                  "headline_pdftsp", "headline_titan", "headline_allpass", "summary")


def _rank(item) -> tuple:
    """Where a test goes in the queue that pytest-xdist hands out (``make test`` keeps
    this order: --no-loadscope-reorder): the notebooks first, each one group, so all
    workers run them; then the test that builds the book from them; then the slow tests;
    then the rest; the other tests of the built book are spread among those two
    (:func:`_queue`)."""
    names = item.fixturenames
    if "executed_notebook" in names and "built_book" not in names:
        stem = item.callspec.params.get("stem") if hasattr(item, "callspec") else None
        if stem in LAST_NOTEBOOKS:
            return (0, len(FIRST_NOTEBOOKS) + 1 + LAST_NOTEBOOKS.index(stem))
        return (0, FIRST_NOTEBOOKS.index(stem) if stem in FIRST_NOTEBOOKS
                else len(FIRST_NOTEBOOKS))  # the others in between, in their order
    if item.originalname == BOOK_FIRST:
        return (1, 0)
    if "built_book" in names:  # the pages after the other checks of the built book
        return (4, int(item.originalname == "test_book_page_renders_offline"))
    return (2, 0) if item.get_closest_marker("slow") else (3, 0)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("timeout") is None:
            if "built_book" in item.fixturenames:
                item.add_marker(pytest.mark.timeout(BOOK_TIMEOUT))
            elif "executed_notebook" in item.fixturenames:
                item.add_marker(pytest.mark.timeout(NOTEBOOK_TIMEOUT))
    items[:] = _queue(items)


#: a test's expected wall seconds on a busy worker, by kind (from `make test` measured test
#: by test, .ci/cpuacct.py: a slow test about 7 s, another a quarter of a second)
SLOW_S, QUICK_S = 7.0, 0.25
#: the shares of the slow and quick tests' expected time run before the first test of the
#: built book and before its last one: the book takes a minute or more to build after the
#: last notebook (from 0.08, two workers waited for it for most of that minute)
BOOK_START, BOOK_END = 0.15, 0.9


def _queue(items: list) -> list:
    """The tests in :func:`_rank`'s order (stable: each rank keeps the collection's order),
    except that the tests of the built book, which mostly wait on Chromium, are spread
    evenly over the slow and quick tests' expected time, from ``BOOK_START`` to
    ``BOOK_END`` of it: while one worker waits on a page, the others use the cores (run
    last, the pages left a core idle for the last two and a half minutes)."""
    items = sorted(items, key=_rank)
    head = [i for i in items if _rank(i)[0] < 2]
    work = [i for i in items if _rank(i)[0] in (2, 3)]
    book = [i for i in items if _rank(i)[0] == 4]
    if not work or not book:
        return head + work + book
    ends, total = [], 0.0
    for item in work:
        total += SLOW_S if _rank(item) == (2, 0) else QUICK_S
        ends.append(total)
    step = (BOOK_END - BOOK_START) * total / len(book)
    targets = [(BOOK_START * total + (k + 0.5) * step, item) for k, item in enumerate(book)]
    queue, t = list(head), 0
    for end, item in zip(ends, work, strict=True):
        while t < len(targets) and targets[t][0] <= end:
            queue.append(targets[t][1])
            t += 1
        queue.append(item)
    return queue + [item for _, item in targets[t:]]


@pytest.fixture(scope="session")
def chromium() -> str:
    """Debian's headless-capable Chromium (installed with apt-get if missing and root)."""
    exe = find_chromium()
    if exe is None and os.environ.get("LORASCHED_REQUIRE_BROWSER"):
        pytest.fail("chromium not found, and LORASCHED_REQUIRE_BROWSER is set (.ci/run)")
    if exe is None:
        pytest.skip("chromium not found: install Debian's chromium (`sudo apt-get install "
                    "chromium`) to run the browser tests")
    return exe


@pytest.fixture(scope="session")
def playwright():
    """Playwright's driver, one per pytest process (a process runs one at a time)."""
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright (from the dev extra) needed")
    with sync_api.sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(chromium, playwright):
    """Headless Chromium driven by Playwright (one per pytest process), with no network
    (``tests/_browser.py``)."""
    browser = playwright.chromium.launch(executable_path=chromium, headless=True,
                                         args=CHROMIUM_ARGS)
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture(scope="session")
def book_browser(chromium, playwright, built_book, tmp_path_factory):
    """``(context, url)``: the built book served on 127.0.0.1 (``url``, as a static host
    serves it) and a Chromium with its own profile (``context``), one per pytest process
    (``_browser.reader_browser``): plotly.js (4.8 MB) is compiled once, not once a page,
    and each page still opens as on a first visit."""
    with reader_browser(playwright, chromium, built_book,
                        tmp_path_factory.mktemp("chromium-profile")) as opened:
        yield opened


#: how long a test waits for a notebook or the book that another worker is making (s)
WAIT = 1800


@pytest.fixture(scope="session")
def executed_notebook(tmp_path_factory):
    """``executed_notebook("notebooks/<stem>")``: the path of that notebook executed as
    `make book` executes it (``_book.execute_notebook``), once per test run for every
    pytest-xdist worker (``_once.once``). The book (``built_book``) and the notebook checks
    (test_notebooks.py) share this one execution. A cell that raised leaves its error in
    the copy's outputs; a notebook that could not be run at all (a cell over its time
    limit, a dead kernel) fails every test that asks for it."""
    import papermill

    root = run_root(tmp_path_factory)

    def ledger() -> Path:
        """Every figure's cells, then the ledger every page renders its claims from, made
        once before any notebook runs (as `make book` does), so that no notebook's cell
        makes them under its time limit."""
        env = {**os.environ, datafiles.DATA_ENV: str(root / "figure-data")}
        for command in (["reproduce", "--size", "small", "--no-progress"],
                        ["ledger", "--size", "small"]):
            subprocess.run([str(BIN / "lorasched"), *command], env=env, check=True,
                           cwd=ROOT, timeout=WAIT)
        return root / "figure-data" / "small"

    def execute(name: str) -> Path:
        once(root, "ledger", ledger, WAIT)
        try:
            return execute_notebook(name, root / "executed", root / "figure-data")
        except papermill.PapermillExecutionError:  # the error is in the copy's outputs
            return root / "executed" / f"{name}.ipynb"

    def get(name: str) -> Path:
        return once(root, f"notebook-{Path(name).name}", lambda: execute(name), WAIT)

    return get


def raised(path: Path) -> list[str]:
    """The errors an executed notebook holds, as ``Cell N: ename: evalue``."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    return [f"Cell {i}: {o.get('ename')}: {o.get('evalue')}"
            for i, c in enumerate(code) for o in c.get("outputs", [])
            if o.get("output_type") == "error"]


@pytest.fixture(scope="session")
def built_book(tmp_path_factory, executed_notebook):
    """The book built with small parameters, once per test run for every pytest-xdist
    worker (``_once.once``), from the notebooks as ``executed_notebook`` ran them (any not
    yet run are run here).

    ``LORASCHED_BUILT_BOOK``: the site (``<dest>/_build/html``) of a book that
    ``tests/_book.build_book`` built before, reused as it is, for a developer iterating on
    the checks of the built book (never set in CI)."""
    if os.environ.get("LORASCHED_BUILT_BOOK"):
        site = Path(os.environ["LORASCHED_BUILT_BOOK"])
        if not (site / "index.html").is_file():
            pytest.fail(f"LORASCHED_BUILT_BOOK={site} holds no built site (index.html)")
        return site
    root = run_root(tmp_path_factory)

    def build() -> Path:
        errors = [f"{name}.ipynb {e}" for name in toc_notebooks()
                  for e in raised(executed_notebook(name))]
        assert not errors, "notebooks raised, so the book is not built:\n" + "\n".join(errors)
        (root / "book").mkdir()
        return build_site(root / "book" / "book", root / "executed", root / "figure-data")

    return once(root, "book", build, WAIT)
