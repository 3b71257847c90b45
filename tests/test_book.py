"""Checks of the book: fast consistency checks of the sources and the notebooks (nothing is
executed), and a browser test of the built book (marker ``browser``): every page opened in
headless Chromium through Playwright."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import sysconfig
from pathlib import Path

import pytest
import yaml
from _book import BOOK, ROOT, toc_files, toc_notebooks, toc_pages
from _browser import (
    ARTIFACTS,
    LOCAL_SCHEMES,
    PageLog,
    PlaywrightError,
    new_page,
    reader_browser,
    screenshot,
)

from lorasched.figures import datafiles, publish, verdicts

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


@functools.cache
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
def _rgb(hex_colour: str) -> str:
    """A ``#rrggbb`` colour as the browser computes it: ``rgb(r, g, b)``."""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


#: the colour figures.styled gives each compared verdict; a not-compared one is grey
VERDICT_COLOURS = {v: _rgb(c) for v, c in verdicts.COLOURS.items()}
OTHER_VERDICT_COLOUR = _rgb(verdicts.GREY)
#: the summary page's tables hold at least this many verdicts
SUMMARY_VERDICTS = 30


def _verdict_problems(cells: list[dict]) -> list[str]:
    """Verdict cells that are not a verdict of the rule (lorasched.figures.verdicts), or
    drawn in another verdict's colour (one line per table, text and colour, counted)."""
    found: dict[str, int] = {}
    for c in cells:
        want = VERDICT_COLOURS.get(c["text"], OTHER_VERDICT_COLOUR)
        if c["text"] not in verdicts.VERDICTS:
            line = f"{c['text']!r} in {c['table']} is not a verdict of the rule"
            found[line] = found.get(line, 0) + 1
        if c["colour"] != want:
            line = f"verdict {c['text']!r} in {c['table']} drawn {c['colour']}, not {want}"
            found[line] = found.get(line, 0) + 1
    return [line + (f" ({n} cells)" if n > 1 else "") for line, n in found.items()]


# What a reader must not see on a page (the built book's warts), read in the browser:
#
# * papermill's injected-parameters cell (book/_ext/injected.py removes it; MyST-NB gives
#   every cell a class tag_<tag> for each of its tags);
# * after the page's title (its h1), anything but prose or a figure. Prose: a p,
#   blockquote, ul, ol or dl element. A figure: a figure or img element, or a code cell
#   whose code is not shown (hide-input: inside a closed <details>) and whose visible
#   output holds a plot (.plotly-graph-div, img, svg). Anything else fails: a code cell
#   whose code is shown; a hidden cell (hide-cell: the whole cell behind its "Show code
#   cell content" toggle, which is not prose); a cell's output that is no plot (a table,
#   printed text); a section heading; nothing at all;
# * a table cell (td or th) that reads exactly nan, NaN, None, True, False, <NA> or NaT;
# * a dollar amount typeset as maths: "$2.10 of $ a" in markdown is the formula
#   "2.10 of " (book/_config.yml's myst_dmath_allow_digits: false keeps "$2.10 of $3" out
#   of maths, not that). The TeX of every formula MathJax typeset is read back
#   (MathJax.startup.document.math); _is_amount says what counts as an amount.
_READER_JS = """async () => {
  const article = document.querySelector('article') || document.body;
  const visible = (el, sel) => [...el.querySelectorAll(sel)].filter(e => !e.closest('details'));
  const describe = el => {
    if (!el) return 'nothing';
    const tag = el.tagName.toLowerCase();
    if (['p', 'blockquote', 'ul', 'ol', 'dl'].includes(tag)) return 'prose';
    if (tag === 'figure' || tag === 'img') return 'figure';
    if (el.classList.contains('cell')) {
      if (visible(el, '.cell_input').length) return 'a code cell with its code shown';
      const outputs = visible(el, '.cell_output');
      if (!outputs.length) return 'a hidden code cell (its "show code" toggle only)';
      if (outputs.some(o => o.querySelector('.plotly-graph-div, img, svg'))) return 'figure';
      return "a code cell's output that is not a figure";
    }
    if (tag === 'section') {
      const h = el.querySelector('h1, h2, h3, h4');
      return 'a section heading: ' + (h ? h.textContent.replace('#', '').trim() : '');
    }
    return `a <${tag} class="${el.className}">`;
  };
  const h1 = article.querySelector('h1');
  const formulas = [];
  if (window.MathJax && window.MathJax.startup && window.MathJax.startup.promise) {
    await window.MathJax.startup.promise;
    for (const item of window.MathJax.startup.document.math) formulas.push(item.math);
  }
  return {
    injected: article.querySelectorAll('.tag_injected-parameters').length,
    title: h1 ? h1.textContent.replace('#', '').trim() : null,
    opening: h1 ? describe(h1.nextElementSibling) : null,
    cells: [...article.querySelectorAll('table td, table th')]
             .map(c => c.textContent.trim()).filter(t => BAD.includes(t)),
    formulas: formulas,
  };
}"""
#: what no table cell may read: pandas' missing values and Python's literals
BAD_CELLS = ("nan", "NaN", "None", "True", "False", "<NA>", "NaT")
_READER_JS = _READER_JS.replace("BAD", json.dumps(list(BAD_CELLS)))
#: a formula's TeX that is a dollar amount's, not maths: it starts with a digit, and ends
#: in a space (the space before the next "$", as in "$2.10 of $3") or holds a word of two
#: or more letters that is no TeX command ("2.10/GPU-h billed per second, ..."); the
#: content of \text{...}, \mathrm{...} and the like is not counted, and maths that starts
#: with a digit ("1 / \gamma", "80 \times 100", "300 \le") is not an amount
_TEXT_ARGUMENT = re.compile(r"\\(?:text[a-z]*|math[a-z]*|operatorname|mbox)\s*\{[^{}]*\}")
_PLAIN_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")


def _is_amount(tex: str) -> bool:
    """Whether the formula ``tex`` is a dollar amount typeset as maths."""
    if not re.match(r"\s*[0-9]", tex):
        return False
    return tex != tex.rstrip() or bool(_PLAIN_WORD.search(_TEXT_ARGUMENT.sub("", tex)))


def _reader_problems(seen: dict, figure_page: bool) -> list[str]:
    """What a reader must not see on one page (``_READER_JS``'s findings); the opening
    after the title is checked on figure pages only."""
    problems = []
    if seen["injected"]:
        problems.append(f"{seen['injected']} injected-parameters cell(s) shown "
                        "(papermill's; book/_ext/injected.py removes them)")
    if figure_page and seen["opening"] != "prose" and seen["opening"] != "figure":
        problems.append(f"after the title {seen['title']!r} comes {seen['opening']}, "
                        "not prose or a figure")
    problems += [f"a table cell reads {t!r}" for t in dict.fromkeys(seen["cells"])]
    problems += [f"a dollar amount typeset as maths: ${' '.join(tex.split())}$ (write \\$ "
                 "in markdown)" for tex in seen["formulas"] if _is_amount(tex)]
    return problems


def _open_page(page, log, url: str) -> dict:
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
    return {"figures": figures, "mathjax": mathjax,
            "maths": page.locator(".math").count(), "verdicts": page.evaluate(_VERDICTS_JS),
            "reader": page.evaluate(_READER_JS)}


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
def test_the_built_book_loads_only_local_scripts(built_book):
    """Every page of the built book (small parameters) loads its scripts (plotly.js,
    MathJax, the theme's) from local files, and its front page states the versions it was
    built with."""
    site = built_book
    figure_pages = set(_figure_pages())
    problems = []
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
        plotly = any("_static/plotly.min.js" in s for s in scripts)
        if page in figure_pages and not plotly:
            problems.append(f"{page}: no <script> for _static/plotly.min.js")
        if plotly and "Plotly." not in html.split("</head>", 1)[-1]:
            problems.append(f"{page}: loads plotly.min.js but draws nothing with it")
    assert not problems, "\n".join(problems)
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file(), "MathJax 3 not copied"
    # the front page states the versions it was built with, compared with the lock
    intro = (site / "intro.html").read_text()
    assert "lorasched-versions" in intro and "numba" in intro, "no versions on the front page"
    assert "requirements.lock was not found" not in intro


def test_the_toc_has_the_pages_the_browser_checks_need():
    pages = toc_pages()
    assert set(MATHS_PAGES) <= set(pages), f"MATHS_PAGES {MATHS_PAGES} not all in the toc"
    assert len(set(_figure_pages())) >= 25, "fewer than 25 figure pages found"


@pytest.mark.browser
@pytest.mark.parametrize("name", toc_pages())
def test_book_page_renders_offline(book_browser, built_book, name):
    """Open a page of the built book (small parameters), served on 127.0.0.1, in headless
    Chromium: a figure page must show rendered figures, a maths page typeset formulas, and
    no page may log a console error or load anything from beyond the machine. (One test a
    page: the pages are shared between the workers, the book built once for them:
    ``built_book``.)"""
    site = built_book
    context, url = book_browser
    page = context.new_page()
    log = PageLog(allowed=(*LOCAL_SCHEMES, url + "/")).attach(page)
    try:
        seen = _open_page(page, log, f"{url}/{name}")
        figure_page = name in set(_figure_pages())
        found = (_page_problems(seen, figure_page) + log.problems
                 + _verdict_problems(seen["verdicts"])
                 + _reader_problems(seen["reader"], figure_page))
        if name == "notebooks/summary.html" and len(seen["verdicts"]) < SUMMARY_VERDICTS:
            found.append(f"only {len(seen['verdicts'])} verdict cells found (expected at "
                         f"least {SUMMARY_VERDICTS}): the verdict colours went unchecked")
        if name in MATHS_PAGES and not seen["maths"]:
            found.append("a maths page without maths (.math)")
        # a page with problems is shot for the report (a full page's screenshot costs
        # Chromium more than the checks: the pages that pass are not shot)
        shot = (screenshot(page, SHOTS / Path(name).with_suffix(".jpg")) if found
                else None)
    finally:
        page.close()
    listing = "\n  ".join(found)
    assert not found, (f"{name} of the built book ({site}) has problems:\n  {listing}\n"
                       f"screenshot: {shot}")


def _evaluate(browser, path: Path, html: str, script: str):
    """``script``'s value on a page of ``html`` written to ``path``."""
    path.write_text(html)
    page, _ = new_page(browser)
    try:
        page.goto(path.as_uri())
        return page.evaluate(script)
    finally:
        page.context.close()


@pytest.mark.browser
def test_the_reader_browser_sees_each_page_afresh(chromium, playwright, tmp_path):
    """The pages are opened in one Chromium profile served over HTTP
    (``_browser.reader_browser``), whose cache keeps a shared script compiled: a page
    opened after others still logs its own console errors and remote loads, a script it
    shares with them (cached) still runs, and it finds no storage an earlier page left."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "shared.js").write_text("window.shared = (window.shared || 0) + 1;\n" * 2000)
    head = '<html><head><script src="shared.js"></script></head><body>'
    (site / "clean.html").write_text(head + "<script>localStorage.setItem('mode', 'dark')"
                                     "</script></body></html>")
    (site / "broken.html").write_text(
        head + "<script>document.title = String(localStorage.getItem('mode'));"
        "console.error('broken page')</script>"
        '<img src="https://example.org/remote.png"></body></html>')
    with reader_browser(playwright, chromium, site, tmp_path / "profile") as (context, url):
        logs = {}
        for name in ("clean.html", "clean.html", "broken.html"):
            page = context.new_page()
            log = PageLog(allowed=(*LOCAL_SCHEMES, url + "/")).attach(page)
            page.goto(f"{url}/{name}", wait_until="load")
            log.settle(page)
            logs[name] = (log.problems, page.title(), page.evaluate("window.shared"))
            page.close()
    assert logs["clean.html"] == ([], "", 2000)
    problems, title, shared = logs["broken.html"]
    assert title == "null" and shared == 2000, (title, shared)
    assert any("console.error: broken page" in p for p in problems), problems
    assert any("left the machine: https://example.org/remote.png" in p for p in problems), \
        problems


def test_plotly_js_only_on_pages_that_draw_with_it():
    """book/_ext/plotly_pages.py leaves plotly.min.js out of a page's <head> unless its
    body calls plotly; every other script stays, in its order."""
    spec = importlib.util.spec_from_file_location("plotly_pages",
                                                  BOOK / "_ext" / "plotly_pages.py")
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    scripts = ["_static/doctools.js", "_static/plotly.min.js?v=ab5aad05", "_static/x.js"]
    figure = '<div class="plotly-graph-div"></div><script>Plotly.newPlot("a", [])</script>'
    assert ext.scripts_for(scripts, figure) == scripts
    assert ext.scripts_for(scripts, "<p>plotly draws the figures</p>") == [
        "_static/doctools.js", "_static/x.js"]
    assert ext.scripts_for(scripts, "<script>Plotly.react(q('x'), d, l)</script>") == scripts


@pytest.mark.browser
def test_the_verdict_colour_check_sees_colliding_tables(browser, tmp_path):
    """The check above reads the colour the browser draws: two styled tables that share one
    Styler id (a bug the summary page had) draw a "reproduced" in "contradicted"'s colour,
    and it says so; :func:`lorasched.figures.styled` gives each its own id, and it is quiet.
    A verdict that is not one of the rule's is named."""
    import pandas as pd

    from lorasched.figures import styled

    first = pd.DataFrame({"claim": ["a", "b"],
                          "verdict": [verdicts.REPRODUCED, verdicts.NO_NUMBER]})
    second = pd.DataFrame({"claim": ["c"], "verdict": [verdicts.CONTRADICTED]})

    def cells_of(tables) -> list[dict]:
        return _evaluate(browser, tmp_path / "tables.html", "<html><body>"
                         + "".join(t.to_html() for t in tables) + "</body></html>",
                         _VERDICTS_JS)

    # the bug: both tables under one id, the first table's CSS rules colour the second's
    shared = [styled(first), styled(second).set_uuid(styled(first).uuid)]
    cells = cells_of(shared)
    assert len(cells) == 3
    # the later table's rule wins for both cells with the same id: the first table's
    # "reproduced" is drawn in "contradicted"'s colour
    assert _verdict_problems(cells) == [
        f"verdict 'reproduced' in T_{styled(first).uuid} drawn "
        f"{VERDICT_COLOURS[verdicts.CONTRADICTED]}, not {VERDICT_COLOURS[verdicts.REPRODUCED]}"]
    assert _verdict_problems(cells_of([styled(first), styled(second)])) == []
    legacy = styled(pd.DataFrame({"claim": ["d", "e"], "verdict": ["agrees", "agrees"]}))
    assert _verdict_problems(cells_of([legacy])) == [
        f"'agrees' in T_{legacy.uuid} is not a verdict of the rule (2 cells)"]


#: MathJax 3 as the book has it (sphinx-mathjax-offline's copy, the book's settings)
_MATHJAX = (Path(sysconfig.get_paths()["purelib"]) / "sphinx-mathjax-offline" / "static"
            / "mathjax" / "tex-chtml.js")
_MATHJAX_SETTINGS = ('<script>window.MathJax = {"options": {"processHtmlClass": '
                     '"tex2jax_process|mathjax_process|math|output_area"}}</script>')

#: the openings of a figure page after its title, as MyST-NB renders them, and whether the
#: reader check accepts them
OPENINGS = {
    "prose": ("<p>The paper says so.</p>", True),
    "a quote": ("<blockquote><p>We claim it.</p></blockquote>", True),
    "a figure, its code hidden": (
        '<div class="cell tag_hide-input docutils container"><details class="hide '
        'above-input"><summary>Show code cell source</summary><div class="cell_input">'
        '<pre>show(fig)</pre></div></details><div class="cell_output"><div '
        'class="plotly-graph-div"></div></div></div>', True),
    "a code cell, its code shown": (
        '<div class="cell docutils container"><div class="cell_input"><pre>size = "small"'
        '</pre></div></div>', False),
    "a hidden cell": (
        '<div class="cell tag_hide-cell docutils container"><details class="hide '
        'above-input"><summary>Show code cell content</summary><div class="cell_input">'
        '<pre>import lorasched</pre></div></details></div>', False),
    "a table, its code hidden": (
        '<div class="cell tag_hide-input docutils container"><details class="hide '
        'above-input"><summary>Show code cell source</summary><div class="cell_input">'
        '<pre>styled(t)</pre></div></details><div class="cell_output"><table><tr><td>1'
        '</td></tr></table></div></div>', False),
    "a section": ('<section id="s"><h2>The paper beside lorasched</h2></section>', False),
}


def _article(opening: str, rest: str = "", maths: bool = False) -> str:
    """A page as the book's: a title, ``opening`` after it, then ``rest``."""
    head = (_MATHJAX_SETTINGS + f'<script src="{_MATHJAX.as_uri()}"></script>') if maths else ""
    return (f"<html><head>{head}</head><body><article class=\"bd-article\"><section>"
            f"<h1>Fig. 1: A title<a class=\"headerlink\" href=\"#\">#</a></h1>{opening}"
            f"{rest}</section></article></body></html>")


@pytest.mark.browser
@pytest.mark.parametrize("opening", OPENINGS)
def test_the_opening_check_takes_only_prose_or_a_figure_after_the_title(browser, tmp_path,
                                                                       opening):
    html, good = OPENINGS[opening]
    seen = _evaluate(browser, tmp_path / "page.html", _article(html), _READER_JS)
    problems = _reader_problems(seen, figure_page=True)
    if good:
        assert problems == []
    else:
        assert len(problems) == 1 and problems[0].startswith(
            "after the title 'Fig. 1: A title' comes "), problems
    assert _reader_problems(seen, figure_page=False) == []  # other pages: not checked


@pytest.mark.browser
def test_the_reader_checks_see_a_broken_page_and_pass_a_good_one(browser, tmp_path):
    """An injected-parameters cell, table cells reading nan/None/True/False and dollar
    amounts that MathJax typeset as a formula are named; the same page done right (the
    cell removed, styled's yes/no and blanks, the amounts escaped, real maths that starts
    with a digit) passes."""
    assert _MATHJAX.is_file(), f"no MathJax 3 at {_MATHJAX} (sphinx-mathjax-offline)"
    injected = ('<div class="cell tag_injected-parameters docutils container"><div '
                'class="cell_input"><pre>size = "full"</pre></div></div>')
    table = "<table><tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td></tr></table>"
    maths = '<p>{} and <span class="math notranslate nohighlight">\\({}\\)</span>.</p>'
    broken = _article("<p>The paper says so.</p>", injected
                      + table.format("True", "nan", "None", "False")
                      + maths.format("It costs", "2.10 of ")
                      + maths.format("and", "698 at"), maths=True)
    seen = _evaluate(browser, tmp_path / "broken.html", broken, _READER_JS)
    assert seen["formulas"] == ["2.10 of ", "698 at"], "MathJax typeset nothing"
    assert _reader_problems(seen, figure_page=True) == [
        "1 injected-parameters cell(s) shown (papermill's; book/_ext/injected.py removes "
        "them)",
        "a table cell reads 'True'", "a table cell reads 'nan'", "a table cell reads 'None'",
        "a table cell reads 'False'",
        "a dollar amount typeset as maths: $2.10 of$ (write \\$ in markdown)",
        "a dollar amount typeset as maths: $698 at$ (write \\$ in markdown)"]
    good = _article("<p>The paper says so.</p>",
                    table.format("yes", "", "0.346", "no") + "<p>It costs $2.10 of $3.</p>"
                    + maths.format("A bound", "1 / \\gamma")
                    + maths.format("a grid", "80 \\times 100 \\times 20")
                    + maths.format("a range", "300 \\le \\mathit{duration} < 36{,}000"),
                    maths=True)
    seen = _evaluate(browser, tmp_path / "good.html", good, _READER_JS)
    assert len(seen["formulas"]) == 3
    assert _reader_problems(seen, figure_page=True) == []


@pytest.mark.parametrize("tex, amount", [
    ("2.10 of ", True), ("698 at\n", True), ("236.69 (of which ", True),
    ("2.10/GPU-h billed per second, Vast.ai's median ", True),
    ("1 / \\gamma", False), ("1/R", False), ("80 \\times 100 \\times 20", False),
    ("300 \\le", False), ("2 v_i", False), ("1, \\dots, n", False), ("x^2", False),
    ("2 \\cdot \\text{slot minutes}", False)])
def test_a_dollar_amount_is_told_from_maths(tex, amount):
    assert _is_amount(tex) is amount


def _page_of(fig) -> tuple[str, bool]:
    """The built page of a figure (the toc notebook whose code names it), and whether it
    shows the figure's claims table."""
    module = f"lorasched.figures.{fig.system}"
    for name in toc_notebooks():
        nb = json.loads((ROOT / f"{name}.ipynb").read_text())
        code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
        if module in code and f'fig = figures.figure("{fig.key}")' in code:
            return f"{name}.html", "ledger.page(fig" in code
    raise AssertionError(f"no page shows {fig}")


@pytest.mark.browser
def test_every_figure_page_links_its_data_and_its_claims_come_back_from_it(built_book):
    """Each figure page links its netCDF file and claims CSV, published in the site with
    their SHA256SUMS; the page shows its records of the published ledger (the table whose
    id hashes exactly that table, figures.styled), and the CSV is that table; every row a
    first look judged comes back from the published data file, the figure object judging
    it again; and each paper's claims hold its claims inventory
    (lorasched.figures.inventory: a row per claim, none that answers none)."""
    import pandas as pd

    from lorasched.figures import FIGURES, inventory, ledger, styled, summary

    site = built_book
    assert publish.verify(site) == []
    listed = [line.split("  ")[1]
              for line in (site / "data" / "SHA256SUMS").read_text().splitlines()]
    assert listed == publish.expected_files()
    published = ledger.read(site / "data")
    problems, loaded, tables = [], {}, {}
    for fig in [f for figs in FIGURES.values() for f in figs.values()]:
        page, shows_claims = _page_of(fig)
        text = (site / page).read_text()
        nc, csv = datafiles.file_names(fig)
        for name in (nc, csv):
            if f'href="../data/{name}"' not in text:
                problems.append(f"{page}: no link to data/{name}")
        claims = ledger.page_claims(published, fig)
        if shows_claims and f'id="T_{styled(claims).uuid}"' not in text:
            problems.append(f"{page}: its claims table is not its records of the ledger")
        if (site / "data" / csv).read_text() != claims.to_csv(index=False):
            problems.append(f"data/{csv}: not the page's records of the ledger")
        if nc not in loaded:  # Allpass's pages share one file: read it once
            loaded[nc] = datafiles.load(site / "data" / nc)
        again = fig.claims(loaded[nc])
        first = (claims["first look"].eq("") if "first look" in claims
                 else pd.Series(True, index=claims.index))
        # a verdict the ledger composed (depends on lorasched's choice): its verdict at
        # lorasched's choice is the one the page computes
        records = published[(published["system"] == summary.SYSTEMS[fig.system])
                            & (published["page"] == fig.page)]
        depends = claims["verdict"].eq(verdicts.DEPENDS_ON)
        if list(again["verdict"][depends.values]) != list(records[ledger.AT_CHOICE][
                depends.values]):
            problems.append(f"{page}: a verdict that depends on lorasched's choice is not "
                            f"the one computed from data/{nc} at that choice")
        first &= ~depends
        cols = [c for c in again.columns if c != "per seed"]
        if (again[first.values][cols].to_csv(index=False)
                != claims[first][cols].to_csv(index=False)):
            problems.append(f"{page}: the rows of its first look are not the claims "
                            f"computed from data/{nc}")
        tables.setdefault(fig.system, []).append(again)
    # each paper's claims: one row in the paper's own setting per claim of its inventory
    for system, parts in tables.items():
        problems += [f"{system}: {p}" for p in inventory.problems(system, pd.concat(parts))]
    assert not problems, "\n".join(problems)


@pytest.mark.browser
def test_the_published_ledger_counts_again_to_itself_and_to_the_summary(built_book):
    """The recount a reader runs (``lorasched recount DATA_DIR``) over the built book's
    published files finds no difference: every interval from its per-seed values, every
    verdict by its reading, the summary's counts from the records; and the summary page
    shows exactly the counts of the published ledger (the table whose id hashes them)."""
    from lorasched.figures import ledger, styled, summary

    found = ledger.recount(built_book / "data")
    assert found.ok, str(found)
    assert found.records and found.verdicts > found.records / 2
    published = ledger.read(built_book / "data")
    led_table, led_causes = ledger.table(published), ledger.causes(published)
    counts = summary.counts(summary.headline_rows(led_table), led_causes)
    text = (built_book / "notebooks" / "summary.html").read_text()
    assert f'id="T_{styled(counts).uuid}"' in text
    assert counts.equals(ledger.counts(published))


@pytest.mark.browser
def test_a_claim_shows_one_verdict_on_every_page(built_book):
    """Every sentence of every page that speaks for a claim (figures.prose.says) speaks
    for the ledger's final verdict of that claim, on its figure page, its paper's headline,
    the summary and the sensitivity pages alike; and no two records of one claim in one
    setting disagree."""
    from lorasched.figures import ledger, prose

    published = ledger.read(built_book / "data")
    verdicts: dict = {}
    for r in published.itertuples():
        verdicts.setdefault((r.claim, r.setting), set()).add(r.verdict)
    both = {k: v for k, v in verdicts.items() if len(v) > 1}
    unique = {k: next(iter(v)) for k, v in verdicts.items() if len(v) == 1}
    problems = [f"{k}: records disagree: {sorted(v)}" for k, v in both.items()]
    pages = sorted((built_book / "notebooks").glob("*.html"))
    assert pages
    for page in pages:
        problems += [f"{page.name}: {p}" for p in prose.check_page(page.read_text(), unique)
                     if "the claims table says" in p]
    assert not problems, "\n".join(problems)
