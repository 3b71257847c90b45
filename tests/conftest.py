"""Shared pytest configuration."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _book import build_book
from _browser import CHROMIUM_ARGS, find_chromium


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "browser: opens pages in headless Chromium (the built book, the live explorer) "
        "(select with `-m browser`, leave out with `-m 'not browser'`)",
    )


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
def browser(chromium):
    """Headless Chromium driven by Playwright (one per pytest process), with no network
    (``tests/_browser.py``)."""
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright (from the dev extra) needed")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True,
                                             args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def built_book(tmp_path_factory):
    """The book built with small parameters (once per pytest process: the tests that use
    it share the xdist group "book", so that one worker builds it).

    ``LORASCHED_BUILT_BOOK``: the site (``<dest>/_build/html``) of a book that
    ``tests/_book.build_book`` built before, reused as it is, for a developer iterating on
    the checks of the built book (never set in CI)."""
    if os.environ.get("LORASCHED_BUILT_BOOK"):
        site = Path(os.environ["LORASCHED_BUILT_BOOK"])
        if not (site / "index.html").is_file():
            pytest.fail(f"LORASCHED_BUILT_BOOK={site} holds no built site (index.html)")
        return site
    return build_book(tmp_path_factory.mktemp("book") / "book")
