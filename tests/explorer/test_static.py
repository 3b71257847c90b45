"""lorasched.explorer.static: the explorer in the built book, with no kernel and no network.

The browser test opens the explorer page of the small book (``built_book``) from its file
URL, moves its controls and reads what the page shows against the library's own numbers
(:class:`~lorasched.pdftsp.mechanism.AuctionReplay`, :func:`lorasched.simulate`).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from _browser import ARTIFACTS, new_page, screenshot

from lorasched.allpass.workload import allpass_scenario
from lorasched.explorer import data, static
from lorasched.pdftsp.mechanism import AuctionReplay
from lorasched.pdftsp.workload import synthetic_scenario
from lorasched.systems import SYSTEMS, simulate
from lorasched.titan.workload import titan_scenario

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "explorer.ipynb"
SHOTS = ARTIFACTS / "static-explorer"
PAGE = "notebooks/explorer.html"
#: the page may weigh this much (the data of every control's every position included)
MAX_BYTES = 5_000_000
RTOL = 1e-9


def _parameters() -> dict:
    """The explorer notebook's parameters (its cell tagged ``parameters``): the page of
    the built book was run with them."""
    nb = json.loads(NOTEBOOK.read_text())
    cell = next(c for c in nb["cells"] if "parameters" in c["metadata"].get("tags", []))
    found: dict = {}
    exec("".join(cell["source"]), {}, found)
    return found


@pytest.fixture(scope="module")
def shown() -> dict:
    """What the page shows, computed here by the library: the replay, the first step and
    task, and every TITAN and Allpass policy's run on the explorer's scenarios."""
    p = _parameters()
    replay = AuctionReplay(synthetic_scenario(nodes=p["nodes"], load=p["load"],
                                              slots=p["slots"], seed=p["seed"]))
    task = (replay.pick_task(min(p["step"], replay.n_tasks - 1)) if p["task"] < 0
            else p["task"])
    titan = {policy: simulate(titan_scenario(**data.SCENARIOS["titan"]), policy, seed=1)
             for policy in SYSTEMS["titan"].policies}
    allpass = {policy: simulate(allpass_scenario(**data.SCENARIOS["allpass"]), policy, seed=1)
               for policy in SYSTEMS["allpass"].policies}
    return {"replay": replay, "step": p["step"], "task": task, "titan": titan,
            "allpass": allpass}


# --------------------------------------------------------------------------- reading the page

_SET_RANGE_JS = """([selector, value]) => {
  const el = document.querySelector(selector);
  el.value = String(value);
  el.dispatchEvent(new Event('input', {bubbles: true}));
  return Number(el.value);
}"""
_CELLS_JS = """([name, cells]) => {
  const gd = document.querySelector('.lorasched-static-pdftsp .lorasched-' + name);
  return {z: cells.map(([k, t]) => gd.data[0].z[k][t]), title: gd.layout.title.text};
}"""
_PANEL_JS = """() => {
  const panel = document.querySelector('.lorasched-static-pdftsp .lorasched-panel');
  return {text: panel.innerText, values: Object.fromEntries([...panel.querySelectorAll(
    'span[data-key]')].map(s => [s.dataset.key, s.dataset.value]))};
}"""
_SUMMARY_JS = """(system) => {
  const root = document.querySelector('.lorasched-static-' + system);
  const summary = root.querySelector('.lorasched-summary');
  const values = Object.fromEntries([...summary.querySelectorAll('span[data-key]')]
    .map(s => [s.dataset.key, Number(s.dataset.value)]));
  const titles = [...root.querySelectorAll('.js-plotly-plot')]
    .map(d => (d.layout.title || {}).text);
  return {text: summary.innerText, values, titles};
}"""


def _shot(page, name: str) -> None:
    """A screenshot of the pdFTSP explorer alone, under :data:`SHOTS`."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".lorasched-static-pdftsp").screenshot(path=str(SHOTS / name))


def _close(seen: float, want: float) -> bool:
    return seen == want or math.isclose(seen, want, rel_tol=RTOL, abs_tol=0.0)


def _cells(replay: AuctionReplay) -> list[tuple[int, int]]:
    """Three cells whose prices rise during the day: the dearest at its end."""
    end = replay.prices_after(replay.n_tasks)["lambda"].transpose("node", "slot").values
    flat = end.ravel().argsort()[::-1][:3]
    return [(int(i) // end.shape[1], int(i) % end.shape[1]) for i in flat]


def _tasks(replay: AuctionReplay) -> list[int]:
    """One task of each outcome at its own bid (admitted, negative surplus, no feasible
    schedule), the first of each."""
    first: dict[str, int] = {}
    for i in range(replay.n_tasks):
        first.setdefault(replay.what_if(i).reason, i)
    return [first[r] for r in data.REASONS if r in first]


def check_arrivals(page, replay: AuctionReplay, task: int, shots: list[int]) -> None:
    """Move the arrivals control to five positions; at each, the heatmaps' lambda and phi
    at three cells and their titles against ``replay``. Screenshots at ``shots``."""
    n = replay.n_tasks
    cells = _cells(replay)
    for step in (0, n // 4, n // 2, 3 * n // 4, n):
        assert page.evaluate(_SET_RANGE_JS, [".lorasched-static-pdftsp .lorasched-step",
                                             step]) == step
        want = replay.prices_after(step)
        for name, which in (("lam", "lambda"), ("phi", "phi")):
            seen = page.evaluate(_CELLS_JS, [name, cells])
            z = want[which].transpose("node", "slot").values
            for (k, t), value in zip(cells, seen["z"], strict=True):
                assert _close(value, float(z[k, t])), (
                    f"{which} at node {k}, slot {t} after {step} arrivals: the page shows "
                    f"{value!r}, AuctionReplay gives {float(z[k, t])!r}")
            assert f"after {step} of {n} arrivals" in seen["title"], seen["title"]
        if step in shots:
            _shot(page, f"arrivals-{step}.png")


def check_bids(page, replay: AuctionReplay, shots: dict[int, list[int]]) -> None:
    """For three tasks, move the bid control to five values; at each, the panel (its text,
    and the numbers behind it: admitted, payment, critical bid, utility) against
    ``replay.what_if``. Screenshots for the tasks and bid positions in ``shots``."""
    for task in _tasks(replay):
        page.select_option(".lorasched-static-pdftsp .lorasched-task", str(task))
        bids = data.explorer_bids(replay, task)
        for j in (0, 25, 50, 75, 100):
            page.evaluate(_SET_RANGE_JS, [".lorasched-static-pdftsp .lorasched-bid", j])
            seen = page.evaluate(_PANEL_JS)
            w = replay.what_if(task, float(bids[j]))
            assert seen["text"] == w.describe(), (
                f"task {task} at bid {bids[j]!r}: the page shows {seen['text']!r}, "
                f"AuctionReplay gives {w.describe()!r}")
            v = seen["values"]
            assert v["admitted"] == str(int(w.admitted))
            for key in ("payment", "utility", "critical_bid", "bid"):
                want = getattr(w, key)
                if not math.isfinite(want):
                    assert v[key] == "", (task, key, v[key])
                    continue
                assert _close(float(v[key]), float(want)), (
                    f"task {task} at bid {bids[j]!r}: {key} {v[key]} on the page, "
                    f"{want!r} from AuctionReplay")
            if j in shots.get(task, []):
                _shot(page, f"task-{task}-bid-{j}.png")


def check_policies(page, system: str, runs: dict) -> None:
    """Pick every policy of ``system``: its summary and its timeline's title show the
    policy's average JCT (and for Allpass its cost), as :func:`lorasched.simulate` gives."""
    for policy, result in runs.items():
        page.select_option(f".lorasched-static-{system} .lorasched-policy", policy)
        seen = page.evaluate(_SUMMARY_JS, system)
        a = result.attrs
        jct = a["avg_jct_h"] if system == "titan" else a["avg_jct_s"] / 60
        assert _close(seen["values"]["avg_jct"], jct), (system, policy, seen, jct)
        shown_jct = (f"average JCT {jct:.3f} h" if system == "titan"
                     else f"average JCT {jct:.1f} min")
        assert seen["text"].startswith(f"{policy}:") and shown_jct in seen["text"], seen
        assert shown_jct in seen["titles"][0], (policy, seen["titles"])
        if system == "allpass":
            assert _close(seen["values"]["cost"], a["cost_usd"]), (policy, seen)
            assert f"cost ${a['cost_usd']:.2f}" in seen["text"], seen


def open_explorer(browser, url: str):
    """The page at ``url`` once its three explorers have drawn, and its log; the window
    is tall enough to show the whole pdFTSP explorer (for its screenshots)."""
    page, log = new_page(browser, height=3600)
    page.goto(url)
    for kind in ("pdftsp", "titan", "allpass"):
        page.wait_for_selector(f".lorasched-static-{kind}.lorasched-ready", timeout=60_000)
    return page, log


# --------------------------------------------------------------------------- the tests


def test_embedded_data_cannot_close_their_script_element():
    text = static.embed({"a": "</script><script>alert(1)</script>", "b": [1.5, None]})
    assert "</" not in text
    assert json.loads(text) == {"a": "</script><script>alert(1)</script>", "b": [1.5, None]}


def test_the_page_script_is_shipped_with_the_package():
    assert "window.loraschedExplorer" in static.SCRIPT
    assert "fetch(" not in static.SCRIPT and "http" not in static.SCRIPT


@pytest.mark.browser
@pytest.mark.parametrize("x", [0.0, 1.0, 0.5657123, 1234.5, 1235.5, 12345.0, 12355.0,
                               12345.678, 9999.5, 99995.0, 1e-5, 0.00012345, 0.000123456,
                               -0.8025, 3.0e-4, 2.5e10, 123456789.0, 0.1 + 0.2, -1e-7, 0.5,
                               0.03125, 1.0625, 5e-324, 1.7976931348623157e308, 1e21,
                               float("inf"), -float("inf"), 0.99995, 0.00099995])
def test_the_page_formats_numbers_as_python_does(browser, x):
    page, _ = new_page(browser)
    try:
        page.set_content(f"<script>{static.SCRIPT}</script>")
        assert page.evaluate("x => window.loraschedExplorer.g4(x)", x) == f"{x:.4g}"
    finally:
        page.context.close()


@pytest.mark.browser
def test_the_explorer_is_alive_in_the_built_book(browser, built_book, shown):
    site = built_book
    path = site / PAGE
    size = path.stat().st_size
    assert size < MAX_BYTES, f"{PAGE} weighs {size:,} bytes"
    page, log = open_explorer(browser, path.as_uri())
    try:
        replay = shown["replay"]
        screenshot(page, SHOTS / "page.png")
        check_arrivals(page, replay, shown["task"], shots=[replay.n_tasks // 4,
                                                           replay.n_tasks])
        admitted = _tasks(replay)[0]
        check_bids(page, replay, shots={admitted: [25, 75]})
        check_policies(page, "titan", shown["titan"])
        check_policies(page, "allpass", shown["allpass"])
        log.settle(page)
    finally:
        page.context.close()
    assert not log.problems, "\n".join(log.problems)
    # nothing but the page's own files and the book's local scripts: no request at all
    # beyond file: URLs (PageLog records any as a problem above)
    assert all(u.startswith(("file:", "data:", "blob:", "about:")) for u in log.requests)


_DATA = re.compile(r'(<script type="application/json" class="lorasched-data">)(.*?)'
                   r"(</script>)", re.S)


def _stale_copy(site: Path, dest: Path, shift) -> Path:
    """The built explorer page with its pdFTSP data passed through ``shift`` (a function
    of the data), beside links to the site's own files (so that it loads as the page
    does)."""
    html = (site / PAGE).read_text()
    first = _DATA.search(html)
    stale = shift(json.loads(first.group(2).replace("<\\/", "</")))
    html = html[:first.start(2)] + static.embed(stale) + html[first.end(2):]
    for entry in site.iterdir():
        if entry.name != "notebooks":
            (dest / entry.name).symlink_to(entry)
    (dest / "notebooks").mkdir()
    (dest / PAGE).write_text(html)
    return dest / PAGE


def _shift_prices(d: dict) -> dict:
    for which in ("lambda", "phi"):
        for change in d["prices"]["changes"][which]:
            change[1] = [v * (1 + 1e-6) for v in change[1]]
    return d


def _shift_payments(d: dict) -> dict:
    for t in d["tasks"]:
        t["payment"] = [p * (1 + 1e-6) for p in t["payment"]]
    return d


@pytest.mark.browser
@pytest.mark.parametrize("shift, check, match", [
    (_shift_prices, "arrivals", "lambda at node"),
    (_shift_payments, "bids", "payment"),
])
def test_the_check_fails_on_a_page_with_stale_data(browser, built_book, shown, tmp_path, shift,
                                                   check, match):
    site = built_book
    page, _ = open_explorer(browser, _stale_copy(site, tmp_path, shift).as_uri())
    try:
        with pytest.raises(AssertionError, match=match):
            if check == "arrivals":
                check_arrivals(page, shown["replay"], shown["task"], shots=[])
            else:
                check_bids(page, shown["replay"], shots={})
    finally:
        page.context.close()
