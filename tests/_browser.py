"""Headless Chromium driven by Playwright, for the browser tests (test_book, test_app).

Debian's Chromium (``/usr/bin/chromium``; installed with apt-get when missing and root) is
launched by Playwright with ``executable_path``: no browser is downloaded. It runs with no
network: every host name resolves to nothing and every proxy fails, so a page must load
from local files or the loopback interface; :class:`PageLog` records every request that
would have left the machine, every console error, uncaught exception and failed load.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError  # noqa: F401 - for the tests

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
WINDOW = (1280, 1000)  # the viewport; full-page screenshots are this wide
#: schemes a page may load from; anything else (http:, https:, ws:, ...) left the machine,
#: unless it is the loopback address of a server the test started
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--allow-file-access-from-files",
    # no background traffic of Chromium's own (updates, metrics, safe browsing, ...)
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--metrics-recording-only",
    "--no-pings",
    # and no network beyond the loopback address (where a test's own server listens):
    # every host name resolves to nothing, and every other address goes to a dead proxy
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--proxy-server=http://127.0.0.1:9",
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args) -> None:  # noqa: A002 - the base class's name
        pass

    def do_GET(self) -> None:
        # Chromium asks every HTTP host for /favicon.ico, which no page of the book names:
        # answered with no content rather than a 404 logged as the page's console error
        if self.path == "/favicon.ico":
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


@contextmanager
def served(site: Path) -> Iterator[str]:
    """``site`` (a folder) served over HTTP on a free port of 127.0.0.1 by a thread of
    this process, as a static host serves the published book; yields its base URL (no
    trailing slash)."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


#: run in every page before its own scripts: each page opens as on a first visit (no
#: stored theme mode, nothing a page before it stored), as in a fresh browser context
FIRST_VISIT_JS = "try { localStorage.clear(); sessionStorage.clear(); } catch (e) {}"


@contextmanager
def reader_browser(playwright, chromium: str, site: Path, profile: Path):
    """``(context, url)``: ``site`` served on 127.0.0.1 (``url``, :func:`served`) and a
    headless Chromium with its own profile in ``profile`` (``context``), as a reader's
    browser: its disk cache keeps what V8 compiled, so a script several pages load is
    compiled once. Each page still opens as on a first visit (``FIRST_VISIT_JS``)."""
    with served(site) as url:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=chromium, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": WINDOW[0], "height": WINDOW[1]})
        try:
            context.add_init_script(FIRST_VISIT_JS)
            yield context, url
        finally:
            context.close()


def find_chromium() -> str | None:
    """Debian's Chromium; installed with apt-get if missing and this is root."""
    exe = shutil.which("chromium")
    if exe is None and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        install = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]
        if subprocess.run(install, env=env, capture_output=True).returncode != 0:
            subprocess.run(["apt-get", "update"], env=env, capture_output=True)
            subprocess.run(install, env=env, capture_output=True)
        exe = shutil.which("chromium")
    return exe


@dataclass
class PageLog:
    """What went wrong on a page: console errors, exceptions, failed and remote loads."""

    allowed: tuple[str, ...] = LOCAL_SCHEMES
    problems: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    pending: set = field(default_factory=set)  # requests not yet finished or failed

    def attach(self, page) -> PageLog:
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"uncaught exception: {error}"))
        page.on("requestfailed", self._failed)
        page.on("request", self._request)
        page.on("requestfinished", lambda request: self.pending.discard(request))
        return self

    def settle(self, page, quiet: float = 0.5, timeout: float = 30.0) -> None:
        """Wait until no request has been pending for ``quiet`` seconds (Playwright's
        "networkidle" never comes for file: pages)."""
        deadline = time.monotonic() + timeout
        calm_since = None
        while time.monotonic() < deadline:
            page.wait_for_timeout(100)
            if self.pending:
                calm_since = None
            elif calm_since is None:
                calm_since = time.monotonic()
            elif time.monotonic() - calm_since >= quiet:
                return
        self.problems.append(f"requests still pending after {timeout:g} s: "
                             f"{[r.url for r in self.pending][:5]}")

    def _console(self, message) -> None:
        if message.type in ("error", "assert"):
            where = message.location.get("url", "")
            self.problems.append(f"console.{message.type}: {message.text} {where}".strip())

    def _failed(self, request) -> None:
        self.pending.discard(request)
        failure = request.failure or ""
        if "ERR_ABORTED" in failure:  # a navigation or fetch the page itself cancelled
            return
        self.problems.append(f"failed to load {request.url}: {failure}")

    def _request(self, request) -> None:
        self.pending.add(request)
        self.requests.append(request.url)
        if not request.url.startswith(self.allowed):
            self.problems.append(f"request left the machine: {request.url}")


def new_page(browser, allowed: tuple[str, ...] = LOCAL_SCHEMES, height: int = WINDOW[1]):
    """A fresh page (its own context, a viewport ``height`` pixels tall) and the
    :class:`PageLog` attached to it."""
    context = browser.new_context(viewport={"width": WINDOW[0], "height": height})
    page = context.new_page()
    return page, PageLog(allowed=allowed).attach(page)


#: JPEG's largest height in pixels; a taller page is shot as PNG
JPEG_MAX = 65_000


def screenshot(page, path: Path) -> str:
    """A full-page screenshot at ``path`` (PNG, or JPEG at quality 80 where ``path`` ends
    in ``.jpg``: a long page's PNG takes seconds to encode, its JPEG a fraction; a page
    taller than JPEG allows is shot as PNG, beside it); its path relative to the
    repository."""
    jpeg = {"type": "jpeg", "quality": 80} if path.suffix == ".jpg" else {}
    if jpeg and page.evaluate("() => document.documentElement.scrollHeight") > JPEG_MAX:
        path, jpeg = path.with_suffix(".png"), {}
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True, **jpeg)
    return str(path.relative_to(ROOT))


#: a plotly figure's data as plain JSON (typed arrays, also nested, become lists)
PLOT_DATA_JS = """el => {
  const plain = v => (ArrayBuffer.isView(v) || Array.isArray(v)) ? Array.from(v, plain) : v;
  if (!el.data) return null;  // a plot div whose first draw has not set its data yet
  return el.data.map(t => Object.fromEntries(
    Object.entries(t).filter(([k]) => ['x', 'y', 'z', 'base', 'name', 'type'].includes(k))
      .map(([k, v]) => [k, plain(v)])));
}"""
