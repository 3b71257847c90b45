"""The figure pages' shape, read from the notebooks: a reader meets the paper's claim, the
figure, the verdicts and why, then how it was computed; no code is shown without a toggle;
and no number computed from data is typed into markdown."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from lorasched.figures.base import WHY_HEADING

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
FIGURE_PAGES = (sorted(NOTEBOOKS.glob("fig*.ipynb")) + sorted(NOTEBOOKS.glob("titan_*.ipynb"))
                + sorted(NOTEBOOKS.glob("allpass_*.ipynb"))
                + [NOTEBOOKS / "summary.ipynb", NOTEBOOKS / "calibration.ipynb"])
#: the tags that keep a code cell's source behind a toggle (or off the page)
HIDING = {"hide-input", "hide-cell", "remove-input", "remove-cell"}
HOW = "How it was computed"
#: pages that gather other pages' claims (their rows' why lives on those pages)
GATHERING = {"summary.ipynb"}

#: digits allowed in a figure page's markdown after its first code cell: references,
#: the papers' names (ICPP'24, Allpass (2025)) and formulas in TeX ($...$), not data
ALLOWED = re.compile(r"\b(?:Figs?\.|[Ee]qs?\.|Lemma|Theorem|[Ss]ection|Algorithm|Tables?)"
                     r"[ -]\(?\d+[a-z]?\)?|\(\d+\)-\(\d+\)|\$[^$]+\$"
                     r"|\b(?:ICPP|SoCC)'\d\d\b|\(20\d\d\)")


def typed_numbers(nb) -> list[str]:
    """Digits in the markdown cells after the first code cell that are not references
    (``Fig. 8``, ``eq. (14)``, ``Lemma 2``, ...) or TeX formulas."""
    found, code_seen = [], False
    for i, cell in enumerate(nb.cells):
        code_seen = code_seen or cell.cell_type == "code"
        if code_seen and cell.cell_type == "markdown":
            rest = ALLOWED.sub("", cell.source)
            found += [f"cell {i}: ...{rest[max(m.start() - 30, 0):m.end() + 30]}..."
                      for m in re.finditer(r"\d", rest)]
    return found


def tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def shape_problems(nb) -> list[str]:
    """What breaks the figure page's shape: a title cell with prose under it; every code
    cell behind a toggle; the figure before the verdicts; a section "Why ours differs"
    that calls ``.why(`` after the claims; a section "How it was computed" last."""
    problems = []
    cells = nb.cells
    first = cells[0]
    title, _, rest = first.source.partition("\n")
    if first.cell_type != "markdown" or not title.startswith("# ") or not rest.strip():
        problems.append("the first cell is not a '# title' with prose under it")
    shown = [i for i, c in enumerate(cells) if c.cell_type == "code" and not tags(c) & HIDING]
    if shown:
        problems.append(f"code cells {shown} show their source (tag hide-input or hide-cell)")
    params = [c for c in cells if "parameters" in tags(c)]
    if params and not tags(params[0]) & {"hide-cell", "remove-cell"}:
        problems.append("the parameters cell is not behind a toggle (hide-cell)")

    def where(pred) -> list[int]:
        return [i for i, c in enumerate(cells) if pred(c)]

    claims = where(lambda c: c.cell_type == "code" and ".claims(" in c.source)
    shows = where(lambda c: c.cell_type == "code" and "show(" in c.source)
    whys = where(lambda c: c.cell_type == "markdown"
                 and re.search(rf"^##+ {WHY_HEADING}\s*$", c.source, re.M))
    why_calls = where(lambda c: c.cell_type == "code" and ".why(" in c.source)
    hows = where(lambda c: c.cell_type == "markdown"
                 and re.search(rf"^##+ {HOW}\s*$", c.source, re.M))
    if claims:
        if shows and min(shows) > min(claims):
            problems.append("the verdicts come before the figure")
        if not whys or min(whys) < min(claims):
            problems.append(f"no section '{WHY_HEADING}' after the claims")
        elif not why_calls or min(why_calls) < min(whys):
            problems.append(f"the section '{WHY_HEADING}' does not call .why(")
        if not hows or min(hows) < max(claims + why_calls):
            problems.append(f"no section '{HOW}' after the verdicts and why")
    return problems


@pytest.mark.parametrize("path", FIGURE_PAGES, ids=[p.name for p in FIGURE_PAGES])
def test_figure_pages_type_no_numbers_into_markdown(path):
    nb = nbformat.read(path, as_version=4)
    assert typed_numbers(nb) == []
    # the closing prose comes from the figure object
    code = "".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "findings(" in code


def test_typed_numbers_catches_a_typed_gain():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("The paper reports 48.99 % (section 5, Fig. 8)."),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_markdown_cell("See Fig. 12a, eq. (14), Lemma 2, the Lemma-2 constants, "
                                      "Theorem 3, section 5, Algorithm 1, Table 4, (9)-(10) "
                                      "and the formula "
                                      "$v_{\\max}(2^u - 1)$."),
        nbformat.v4.new_markdown_cell("Its gains over EFT are +20 %, +28 %, +36 %.")])
    found = typed_numbers(nb)
    assert len(found) == 6 and all(f.startswith("cell 3:") for f in found)


@pytest.mark.parametrize("path", FIGURE_PAGES, ids=[p.name for p in FIGURE_PAGES])
def test_figure_pages_open_with_the_claim_and_figure_then_verdicts_why_and_method(path):
    problems = shape_problems(nbformat.read(path, as_version=4))
    if path.name in GATHERING:
        problems = [p for p in problems if "claims" not in p and "verdicts" not in p]
    assert problems == []


def _page(**swap):
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = {
        "title": md("# Fig. 1: A figure\n\nThe paper claims a rise."),
        "params": code("size = 'small'", metadata={"tags": ["parameters", "hide-cell"]}),
        "plot": code("plots.show(fig)", metadata={"tags": ["hide-input"]}),
        "claims": code("styled(fig.claims(ds))", metadata={"tags": ["hide-input"]}),
        "why_md": md(f"## {WHY_HEADING}"),
        "why": code("fig.why(ds)", metadata={"tags": ["hide-input"]}),
        "how": md(f"## {HOW}\n\nThe sweep."),
    }
    cells.update(swap)
    return nbformat.v4.new_notebook(cells=list(cells.values()))


def test_shape_check_sees_each_broken_rule():
    assert shape_problems(_page()) == []
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    broken = {
        "title": md("# Fig. 1: A figure"),
        "params": code("size = 'small'", metadata={"tags": ["parameters"]}),
        "plot": code("plots.show(fig)"),
        "why_md": md("## Why"),
        "how": md("## Method"),
    }
    for key, cell in broken.items():
        assert len(shape_problems(_page(**{key: cell}))) >= 1, key
    # the figure after the verdicts
    nb = _page()
    nb.cells[2], nb.cells[3] = nb.cells[3], nb.cells[2]
    assert "the verdicts come before the figure" in shape_problems(nb)


#: markdown that states which size a build ran, which a markdown cell cannot know (a small
#: build would say it ran the full one); the size is printed by ``fig.build_note(size)``
SIZE_CLAIMS = re.compile(r"book runs (this|it)[^.]*(full size|size = \"full\")"
                         r"|seeds 1, 2, 3|defaults are small \(nodes and loads")


@pytest.mark.parametrize("path", FIGURE_PAGES + [NOTEBOOKS / "day.ipynb"],
                         ids=[p.name for p in FIGURE_PAGES] + ["day.ipynb"])
def test_no_markdown_states_the_size_the_page_ran(path):
    nb = nbformat.read(path, as_version=4)
    claims = [m.group(0) for c in nb.cells if c.cell_type == "markdown"
              for m in SIZE_CLAIMS.finditer(" ".join(c.source.split()))]
    assert claims == []
    code = "".join(c.source for c in nb.cells if c.cell_type == "code")
    if "fig.data(size" in code and path.stem not in SIZE_FREE:
        assert "fig.build_note(size" in code  # the size it ran, generated from it


#: figure pages that need no build note: the size changes nothing or the page's own
#: setting paragraph states it
SIZE_FREE = {"titan_table2", "titan_authors", "allpass_fig01", "summary"}
