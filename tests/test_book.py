"""Checks of the book: fast consistency checks of the sources and the notebooks (nothing is
executed), and a browser test of the built book (marker ``browser``): every page opened in
headless Chromium through Playwright."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from _book import BOOK, ROOT, toc_files, toc_notebooks, toc_pages
from _browser import ARTIFACTS, PlaywrightError, new_page, screenshot

from lorasched.figures import datafiles

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SUFFIXES = (".md", ".ipynb", ".rst")


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
    entries = toc_files(toc)
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
# a temporary copy of book/, exactly as `make book` does it, then every page is opened in
# headless Chromium driven by Playwright (tests/_browser.py: Debian's Chromium, no
# network), so the pages must render from local files only; every request is recorded.
# ---------------------------------------------------------------------------------------

SHOTS = ARTIFACTS / "book"
# a plotly figure that rendered: its <svg class="main-svg"> holds data traces
TRACE_SELECTOR = "g.trace, g.hm, .heatmaplayer image, .contourlayer g.contour"
#: the pages whose MathJax must typeset without errors (the maths-heavy ones), besides
#: every other page with maths
MATHS_PAGES = ["model.html", "algorithm.html", "notebooks/explorer.html"]


def _figure_pages() -> list[str]:
    """The toc's notebook pages that show a figure (their code calls ``show(``)."""
    pages = []
    for name in toc_notebooks():
        nb = json.loads((ROOT / f"{name}.ipynb").read_text())
        code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        if "show(" in code:
            pages.append(f"{name}.html")
    return pages



_FIGURES_JS = """() => {
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
}""".replace("TRACES", json.dumps(TRACE_SELECTOR))

# MathJax 3: the number of typeset formulas once its first typesetting is done (null
# without MathJax), and the TeX errors it rendered (MathJax 3 draws them, not throws)
_MATHJAX_JS = """async () => {
  if (!window.MathJax || !window.MathJax.startup) return null;
  await window.MathJax.startup.promise;
  return {typeset: document.querySelectorAll('mjx-container').length,
          errors: [...document.querySelectorAll('mjx-merror')].map(e => e.textContent)};
}"""


# every verdict cell of the styled tables (lorasched.figures.styled: the Styler id starts
# with T_claims-), with the colour the browser computed for its text
_VERDICTS_JS = """() => {
  const cells = [];
  for (const table of document.querySelectorAll('table[id^="T_claims-"]')) {
    for (const th of table.querySelectorAll('th.col_heading')) {
      if (!th.textContent.trim().startsWith('verdict')) continue;
      const col = [...th.classList].find(c => /^col[0-9]+$/.test(c));
      for (const td of table.querySelectorAll(`td.data.${col}`))
        cells.push({table: table.id, text: td.textContent.trim(),
                    colour: getComputedStyle(td).color});
    }
  }
  return cells;
}"""
#: the colour figures.styled gives each verdict (any other text: grey)
VERDICT_COLOURS = {"agrees": "rgb(42, 157, 143)", "disagrees": "rgb(231, 111, 81)"}
OTHER_VERDICT_COLOUR = "rgb(108, 117, 125)"
#: the summary page's tables hold at least this many verdicts (41 rows at stop 38)
SUMMARY_VERDICTS = 30


def _verdict_problems(cells: list[dict]) -> list[str]:
    """Verdict cells drawn in another verdict's colour."""
    return [f"verdict {c['text']!r} in {c['table']} drawn {c['colour']}, not "
            f"{VERDICT_COLOURS.get(c['text'], OTHER_VERDICT_COLOUR)}"
            for c in cells
            if c["colour"] != VERDICT_COLOURS.get(c["text"], OTHER_VERDICT_COLOUR)]


def _open_page(page, log, url: str, shot: Path) -> dict:
    """Load ``url``; wait for its figures, MathJax and the network to settle."""
    page.goto(url, wait_until="load")
    log.settle(page)
    try:
        page.wait_for_function(
            "() => [...document.querySelectorAll('.plotly-graph-div')]"
            ".every(d => d.classList.contains('js-plotly-plot'))", timeout=60_000)
    except PlaywrightError:  # reported below as unrendered figures
        pass
    mathjax = page.evaluate(_MATHJAX_JS)
    log.settle(page)  # MathJax's fonts
    figures = page.evaluate(_FIGURES_JS)
    screenshot(page, shot)
    return {"figures": figures, "mathjax": mathjax,
            "maths": page.locator(".math").count(), "verdicts": page.evaluate(_VERDICTS_JS)}


def _page_problems(seen: dict, figure_page: bool) -> list[str]:
    """Everything wrong with one page's figures and maths (console errors, failed and
    remote loads are in its PageLog)."""
    problems = []
    figures = seen["figures"]
    if figures["divs"] and not figures["plotly"]:
        problems.append("window.Plotly is not defined (plotly.min.js did not load)")
    if figure_page and figures["divs"] == 0:
        problems.append("no plotly figure (.plotly-graph-div) on the page")
    elif figures["rendered"] < figures["divs"]:
        problems.append(
            f"{figures['divs'] - figures['rendered']} of {figures['divs']} plotly figures "
            "did not render (no .js-plotly-plot with an svg.main-svg)"
        )
    if figures["divs"] and figures["with_traces"] == 0:
        problems.append(f"no rendered figure has data traces ({TRACE_SELECTOR})")
    if seen["maths"]:
        if seen["mathjax"] is None:
            problems.append("the page has maths but MathJax 3 did not load")
        else:
            if seen["mathjax"]["typeset"] == 0:
                problems.append("MathJax typeset no formula")
            problems += [f"MathJax error: {e}" for e in seen["mathjax"]["errors"]]
    return problems


@pytest.mark.browser
@pytest.mark.xdist_group("book")
def test_book_pages_render_offline(request, browser):
    """Build the book (small parameters) and open every page in headless Chromium: the
    figure pages must show rendered figures, the maths pages typeset formulas, and no
    page may log a console error or load anything from the network.

    One test for all pages, so that the book is built once even under pytest-xdist.
    """
    pages = toc_pages()
    figure_pages = set(_figure_pages())
    assert set(MATHS_PAGES) <= set(pages), f"MATHS_PAGES {MATHS_PAGES} not all in the toc"
    assert len(figure_pages) >= 25, f"only {len(figure_pages)} figure pages found"
    site = request.getfixturevalue("built_book")

    problems = []
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
        if 'class="math' in html and not any("_static/mathjax/tex-chtml.js" in s
                                             for s in scripts):
            problems.append(f"{page}: has maths but no <script> for the local MathJax 3")
        if page in figure_pages and not any("_static/plotly.min.js" in s for s in scripts):
            problems.append(f"{page}: no <script> for _static/plotly.min.js")
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file(), "MathJax 3 not copied"
    # the front page states the versions it was built with, compared with the lock
    intro = (site / "intro.html").read_text()
    assert "lorasched-versions" in intro and "numba" in intro, "no versions on the front page"
    assert "requirements.lock was not found" not in intro

    shots = []
    for name in pages:
        page, log = new_page(browser)
        try:
            shot = SHOTS / Path(name).with_suffix(".png")
            seen = _open_page(page, log, (site / name).as_uri(), shot)
        finally:
            page.context.close()
        shots.append(str(shot.relative_to(ROOT)))
        found = (_page_problems(seen, name in figure_pages) + log.problems
                 + _verdict_problems(seen["verdicts"]))
        if name == "notebooks/summary.html" and len(seen["verdicts"]) < SUMMARY_VERDICTS:
            found.append(f"only {len(seen['verdicts'])} verdict cells found (expected at "
                         f"least {SUMMARY_VERDICTS}): the verdict colours went unchecked")
        if name in MATHS_PAGES and not seen["maths"]:
            found.append("a maths page without maths (.math)")
        problems += [f"{name}: {p}" for p in found]

    listing = "\n  ".join(problems)
    assert not problems, (
        f"the built book ({site}) has problems:\n  {listing}\nscreenshots: {SHOTS}"
    )


@pytest.mark.browser
def test_the_verdict_colour_check_sees_colliding_tables(browser, tmp_path):
    """The check above reads the colour the browser draws: two styled tables that share one
    Styler id (the summary page's bug at stop 37) draw a "disagrees" in "agrees"' colour,
    and it says so; :func:`lorasched.figures.styled` gives each its own id, and it is quiet."""
    import pandas as pd

    from lorasched.figures import styled

    first = pd.DataFrame({"claim": ["a", "b"], "verdict": ["agrees", "not shown"]})
    second = pd.DataFrame({"claim": ["c"], "verdict": ["disagrees"]})

    def page_of(tables) -> list[dict]:
        path = tmp_path / "tables.html"
        path.write_text("<html><body>" + "".join(t.to_html() for t in tables)
                        + "</body></html>")
        page, _ = new_page(browser)
        try:
            page.goto(path.as_uri())
            return page.evaluate(_VERDICTS_JS)
        finally:
            page.context.close()

    # the bug: both tables under one id, the first table's CSS rules colour the second's
    shared = [styled(first), styled(second).set_uuid(styled(first).uuid)]
    cells = page_of(shared)
    assert len(cells) == 3
    problems = _verdict_problems(cells)
    # the later table's rule wins for both cells with the same id: the first table's
    # "agrees" is drawn in "disagrees"' red
    assert problems == [f"verdict 'agrees' in T_{styled(first).uuid} drawn "
                        f"{VERDICT_COLOURS['disagrees']}, not {VERDICT_COLOURS['agrees']}"]
    assert _verdict_problems(page_of([styled(first), styled(second)])) == []


def _page_of(fig) -> tuple[str, bool]:
    """The built page of a figure (the toc notebook whose code names it), and whether it
    shows the figure's claims table."""
    module = f"lorasched.figures.{fig.system}"
    for name in toc_notebooks():
        nb = json.loads((ROOT / f"{name}.ipynb").read_text())
        code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        if module in code and f'fig = figures.figure("{fig.key}")' in code:
            return f"{name}.html", "fig.claims(" in code
    raise AssertionError(f"no page shows {fig}")


@pytest.mark.browser
@pytest.mark.xdist_group("book")
def test_every_figure_page_links_its_data_and_its_claims_come_back_from_it(request):
    """Each figure page links its netCDF file and claims CSV, published in the site with
    their SHA256SUMS; the claims that the figure object computes from the published file
    are the page's: the page shows the table whose id hashes exactly that table
    (figures.styled), and the CSV is that table."""
    from lorasched.figures import FIGURES, styled

    site = request.getfixturevalue("built_book")
    assert datafiles.verify(site) == []
    listed = [line.split("  ")[1]
              for line in (site / "data" / "SHA256SUMS").read_text().splitlines()]
    assert listed == datafiles.expected_files()
    problems = []
    for fig in [f for figs in FIGURES.values() for f in figs.values()]:
        page, shows_claims = _page_of(fig)
        text = (site / page).read_text()
        nc, csv = datafiles.file_names(fig)
        for name in (nc, csv):
            if f'href="../data/{name}"' not in text:
                problems.append(f"{page}: no link to data/{name}")
        claims = fig.claims(datafiles.load(site / "data" / nc))
        if shows_claims and f'id="T_{styled(claims).uuid}"' not in text:
            problems.append(f"{page}: its claims table is not the one computed from "
                            f"data/{nc}")
        if (site / "data" / csv).read_text() != claims.to_csv(index=False):
            problems.append(f"data/{csv}: not the claims computed from data/{nc}")
    assert not problems, "\n".join(problems)
