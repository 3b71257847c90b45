"""Checks of the book: fast consistency checks of the sources and the notebooks (nothing is
executed), and a browser test of the built book (marker ``browser``)."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SUFFIXES = (".md", ".ipynb", ".rst")


def _toc_files(node) -> list[str]:
    """Every ``root``/``file`` entry of a Jupyter Book 1.x ``_toc.yml``, recursively."""
    found: list[str] = []
    if isinstance(node, dict):
        for key in ("root", "file"):
            if key in node:
                found.append(str(node[key]))
        for value in node.values():
            if isinstance(value, dict | list):
                found.extend(_toc_files(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_toc_files(item))
    return found


def _source(entry: str) -> Path | None:
    """The source file a toc entry refers to, or None if none exists."""
    path = BOOK / entry
    if path.suffix in SUFFIXES:
        return path if path.is_file() else None
    for suffix in SUFFIXES:
        if path.with_name(path.name + suffix).is_file():
            return path.with_name(path.name + suffix)
    return None


def _book_notebook_source(entry: str) -> Path | None:
    """Executed notebooks under book/notebooks/ are made by `make book` from notebooks/."""
    path = Path(entry)
    if path.parts[:1] == ("notebooks",):
        name = path.name if path.suffix else path.name + ".ipynb"
        source = ROOT / "notebooks" / name
        return source if source.is_file() else None
    return None


def test_toc_lists_only_existing_files():
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    assert toc.get("format") == "jb-book"
    entries = _toc_files(toc)
    assert entries, "_toc.yml lists no files"
    missing = [e for e in entries if _source(e) is None and _book_notebook_source(e) is None]
    assert not missing, f"_toc.yml lists files that do not exist: {missing}"


def test_notebooks_exist():
    assert NOTEBOOKS, "no notebooks in notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_parameters_and_no_outputs(path: Path):
    nb = json.loads(path.read_text())
    assert nb.get("nbformat") == 4
    cells = nb["cells"]
    tagged = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name}: {len(tagged)} cells tagged 'parameters', want 1"
    assert tagged[0]["cell_type"] == "code"
    # outputs are stored only where nbval compares them (tag nbval-check-output)
    with_outputs = [
        i
        for i, c in enumerate(cells)
        if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))
        and "nbval-check-output" not in c.get("metadata", {}).get("tags", [])
    ]
    assert not with_outputs, f"{path.name}: cells {with_outputs} have stored outputs"
    checked = [c for c in cells
               if "nbval-check-output" in c.get("metadata", {}).get("tags", [])]
    assert all(c.get("outputs") for c in checked), (
        f"{path.name}: a cell tagged nbval-check-output has no stored output to compare")


# ---------------------------------------------------------------------------------------
# Browser test of the built book (marker `browser`, registered in conftest.py).
#
# The book is built once per session with SMALL parameters (each notebook's defaults) into
# a temporary copy of book/, exactly as `make book` does it, then figure pages are opened
# in headless Chromium driven over the DevTools protocol (no chromedriver, no selenium).
# Chromium runs with all name resolution mapped to nothing and an unusable proxy, so the
# pages must render from local files only; every request the pages make is recorded too.
# ---------------------------------------------------------------------------------------

# The figure pages the browser test opens (paths of the built HTML, relative to the site
# root); each must be in book/_toc.yml.
FIGURE_PAGES = ["notebooks/fig04_scale.html", "notebooks/fig08_load.html",
                "notebooks/titan_fig05.html"]

ARTIFACTS = ROOT / "test-artifacts" / "book"
WINDOW = (1280, 1000)  # Chromium's window; screenshots are this wide and the page's height
BIN = Path(sys.executable).parent
# schemes a page may load from; anything else (http:, https:, ws:, ...) left the machine
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")
# a plotly figure that rendered: its <svg class="main-svg"> holds data traces
TRACE_SELECTOR = "g.trace, g.hm, .heatmaplayer image, .contourlayer g.contour"


def _toc_notebooks() -> list[str]:
    """The notebooks the toc lists, as ``notebooks/<name>`` (no suffix)."""
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    names = []
    for entry in _toc_files(toc):
        path = Path(entry)
        if path.parts[:1] == ("notebooks",) and path.suffix in ("", ".ipynb"):
            names.append(path.with_suffix("").as_posix())
    return names


def _build_book(dest: Path) -> Path:
    """Build the book like `make book`, with each notebook's default parameters.

    Returns the built site (``dest/_build/html``).  Steps: copy the book sources; execute
    every notebook the toc lists with papermill; copy plotly.min.js into _static/;
    ``jupyter-book build -W -n --keep-going``; copy MathJax into the built _static/.
    """
    import jupyter_server_mathjax
    import papermill
    import plotly

    # 1. the sources, without the build outputs of `make book`
    shutil.copytree(
        BOOK,
        dest,
        ignore=lambda d, names: (
            ({"_build", "notebooks"} & set(names) if Path(d) == BOOK else set())
            | ({"plotly.min.js"} & set(names) if Path(d) == BOOK / "_static" else set())
        ),
    )
    # 2. the notebooks, default parameters; the python3 kernel spec runs `python`, so the
    #    venv must come first on PATH (as in the Makefile)
    (dest / "notebooks").mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
        for name in _toc_notebooks():
            papermill.execute_notebook(
                str(ROOT / f"{name}.ipynb"),
                str(dest / f"{name}.ipynb"),
                kernel_name="python3",
                cwd=str(ROOT),
                progress_bar=False,
            )
    # 3. plotly.js, loaded by every page from _static/ (html_js_files)
    (dest / "_static").mkdir(exist_ok=True)
    shutil.copyfile(
        Path(plotly.__file__).parent / "package_data" / "plotly.min.js",
        dest / "_static" / "plotly.min.js",
    )
    # 4. the build; warnings are errors
    proc = subprocess.run(
        [str(BIN / "jupyter-book"), "build", str(dest), "-W", "-n", "--keep-going"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    output = f"{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}"
    assert proc.returncode == 0, f"jupyter-book build failed:\n{output}"
    site = dest / "_build" / "html"
    # 5. MathJax 2.7, into the built site
    shutil.copytree(
        Path(jupyter_server_mathjax.__file__).parent / "static", site / "_static" / "mathjax"
    )
    return site


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> Path:
    """The book built with small parameters (once per pytest process)."""
    return _build_book(tmp_path_factory.mktemp("book") / "book")


@pytest.fixture(scope="session")
def chromium() -> str:
    """Debian's headless-capable Chromium; installed with apt-get if missing and root."""
    exe = shutil.which("chromium")
    if exe is None and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        install = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]
        if subprocess.run(install, env=env, capture_output=True).returncode != 0:
            subprocess.run(["apt-get", "update"], env=env, capture_output=True)
            subprocess.run(install, env=env, capture_output=True)
        exe = shutil.which("chromium")
    if exe is None:
        pytest.skip(
            "chromium not found: install Debian's chromium (`sudo apt-get install chromium`) "
            "to run the browser test of the book"
        )
    return exe


class _DevTools:
    """A minimal Chrome DevTools Protocol client for one page target (websocket-client)."""

    def __init__(self, ws_url: str):
        import websocket  # websocket-client, a dependency of jupyter_server

        self._ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self._next_id = 0
        self.events: list[dict] = []

    def close(self) -> None:
        self._ws.close()

    def _receive(self, timeout: float) -> dict | None:
        import websocket

        self._ws.settimeout(timeout)
        try:
            message = json.loads(self._ws.recv())
        except websocket.WebSocketTimeoutException:
            return None
        if "method" in message:
            self.events.append(message)
        return message

    def call(self, method: str, **params) -> dict:
        self._next_id += 1
        call_id = self._next_id
        self._ws.send(json.dumps({"id": call_id, "method": method, "params": params}))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            message = self._receive(max(deadline - time.monotonic(), 0.01))
            if message is not None and message.get("id") == call_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
        raise TimeoutError(f"no answer to {method}")

    def pump(self, seconds: float) -> None:
        """Collect events for ``seconds``."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self._receive(left)

    def wait_for_event(self, method: str, timeout: float) -> bool:
        seen = len(self.events)
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            if any(e["method"] == method for e in self.events[seen:]):
                return True
            self._receive(left)
        return any(e["method"] == method for e in self.events[seen:])

    def evaluate(self, expression: str, await_promise: bool = False):
        result = self.call(
            "Runtime.evaluate",
            expression=expression,
            returnByValue=True,
            awaitPromise=await_promise,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluating {expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")


@contextlib.contextmanager
def _browser(chromium: str, profile: Path):
    """Headless Chromium with no network; yields a DevTools client attached to its page."""
    args = [
        chromium,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--remote-debugging-port=0",
        "--remote-allow-origins=*",
        f"--user-data-dir={profile}",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
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
        # and no network at all: every host name resolves to nothing, every proxy fails
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=http://127.0.0.1:9",
        "--proxy-bypass-list=<-loopback>",
        "about:blank",
    ]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    client = None
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.is_file() and len(port_file.read_text().split()) >= 2):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"chromium did not start: {proc.stderr.read().decode()[-3000:]}")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as r:
            targets = json.load(r)
        page = next(t for t in targets if t.get("type") == "page")
        client = _DevTools(page["webSocketDebuggerUrl"])
        for domain in ("Page", "Runtime", "Log", "Network"):
            client.call(f"{domain}.enable")
        yield client
    finally:
        if client is not None:
            client.close()
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


_FIGURES_JS = """(() => {
  const divs = [...document.querySelectorAll('.plotly-graph-div')];
  return {
    divs: divs.length,
    plotly: typeof window.Plotly === 'object' && window.Plotly !== null,
    rendered: divs.filter(d => d.classList.contains('js-plotly-plot')
                               && d.querySelector('svg.main-svg')).length,
    with_traces: divs.filter(d => d.classList.contains('js-plotly-plot')
                               && [...d.querySelectorAll('svg.main-svg')]
                                    .some(s => s.querySelector(TRACES))).length,
  };
})()""".replace("TRACES", json.dumps(TRACE_SELECTOR))

_MATHJAX_DONE_JS = """new Promise(resolve => {
  if (!window.MathJax || !window.MathJax.Hub) { resolve(false); return; }
  window.MathJax.Hub.Queue(() => resolve(true));
})"""


def _open_page(client: _DevTools, url: str, screenshot: Path) -> dict:
    """Load ``url``, wait for its figures (and MathJax) and the network to settle."""
    client.events.clear()
    client.call("Page.navigate", url=url)
    assert client.wait_for_event("Page.loadEventFired", 60), f"{url} did not finish loading"
    deadline = time.monotonic() + 60
    figures = client.evaluate(_FIGURES_JS)
    while figures["rendered"] < figures["divs"] and time.monotonic() < deadline:
        client.pump(0.25)
        figures = client.evaluate(_FIGURES_JS)
    mathjax = client.evaluate(_MATHJAX_DONE_JS, await_promise=True)
    # let late requests (MathJax fonts, ...) and errors arrive, until nothing is pending
    while time.monotonic() < deadline:
        client.pump(0.5)
        started = {
            e["params"]["requestId"]
            for e in client.events
            if e["method"] == "Network.requestWillBeSent"
        }
        ended = {
            e["params"]["requestId"]
            for e in client.events
            if e["method"] in ("Network.loadingFinished", "Network.loadingFailed")
        }
        if started <= ended:
            break
    figures = client.evaluate(_FIGURES_JS)
    # a full-page screenshot: a viewport as tall as the page, so nothing scrolls
    height = client.call("Page.getLayoutMetrics")["cssContentSize"]["height"]
    client.call(
        "Emulation.setDeviceMetricsOverride",
        width=WINDOW[0],
        height=min(int(height) + 1, 16000),
        deviceScaleFactor=1,
        mobile=False,
    )
    client.pump(1.0)  # responsive figures re-layout
    shot = client.call("Page.captureScreenshot", format="png")
    client.call("Emulation.clearDeviceMetricsOverride")
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    screenshot.write_bytes(base64.b64decode(shot["data"]))
    return {"figures": figures, "mathjax": mathjax, "events": list(client.events)}


def _page_problems(page: str, seen: dict) -> list[str]:
    """Everything wrong with one page: figures, JavaScript errors, failed or remote loads."""
    problems = []
    figures = seen["figures"]
    if not figures["plotly"]:
        problems.append("window.Plotly is not defined (plotly.min.js did not load)")
    if figures["divs"] == 0:
        problems.append("no plotly figure (.plotly-graph-div) on the page")
    elif figures["rendered"] < figures["divs"]:
        problems.append(
            f"{figures['divs'] - figures['rendered']} of {figures['divs']} plotly figures "
            "did not render (no .js-plotly-plot with an svg.main-svg)"
        )
    if figures["divs"] and figures["with_traces"] == 0:
        problems.append(f"no rendered figure has data traces ({TRACE_SELECTOR})")
    for event in seen["events"]:
        method, params = event["method"], event["params"]
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            problems.append(f"uncaught exception: {text} ({details.get('url', '')})")
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            problems.append(f"console.{params['type']}: {text}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            entry = params["entry"]
            problems.append(f"logged error: {entry['text']} {entry.get('url', '')}".strip())
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            url = next(
                (
                    e["params"]["request"]["url"]
                    for e in seen["events"]
                    if e["method"] == "Network.requestWillBeSent"
                    and e["params"]["requestId"] == params["requestId"]
                ),
                "?",
            )
            problems.append(f"failed to load {url}: {params.get('errorText')}")
        elif method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            if not url.startswith(LOCAL_SCHEMES):
                problems.append(f"request left the machine: {url}")
    return [f"{page}: {p}" for p in problems]


@pytest.mark.browser
def test_book_figures_render_offline(request, chromium, tmp_path):
    """Build the book (small parameters) and open the figure pages in headless Chromium.

    One test for all pages, so that the book is built once even under pytest-xdist.
    """
    toc_pages = {f"{name}.html" for name in _toc_notebooks()}
    pages = [p for p in FIGURE_PAGES if p in toc_pages]
    missing = [p for p in FIGURE_PAGES if p not in toc_pages]
    assert pages, f"none of FIGURE_PAGES {FIGURE_PAGES} is in book/_toc.yml"
    pytest.importorskip("websocket", reason="websocket-client (from the book extra) needed")
    site = request.getfixturevalue("built_book")

    problems = [f"{p}: not in book/_toc.yml" for p in missing]
    # every page loads its scripts (plotly.js, MathJax, the theme's) from local files
    for path in sorted(site.rglob("*.html")):
        if "_static" in path.relative_to(site).parts:
            continue
        page = path.relative_to(site).as_posix()
        html = path.read_text()
        scripts = re.findall(r"<script[^>]*\ssrc=\"([^\"]+)\"", html)
        problems += [
            f"{page}: <script> loads a remote URL: {s}"
            for s in scripts
            if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:|//", s)
        ]
        if 'class="math' in html and not any("_static/mathjax/MathJax.js" in s for s in scripts):
            problems.append(f"{page}: has maths but no <script> for the local MathJax")
        if page in pages and not any("_static/plotly.min.js" in s for s in scripts):
            problems.append(f"{page}: no <script> for _static/plotly.min.js")

    shots = []
    with _browser(chromium, tmp_path / "chromium-profile") as client:
        for page in pages:
            screenshot = ARTIFACTS / Path(page).with_suffix(".png")
            seen = _open_page(client, (site / page).as_uri(), screenshot)
            shots.append(str(screenshot.relative_to(ROOT)))
            problems += _page_problems(page, seen)

    listing = "\n  ".join(problems)
    assert not problems, (
        f"the built book ({site}) has problems:\n  {listing}\nscreenshots: {', '.join(shots)}"
    )
