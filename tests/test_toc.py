"""The book's shape, held from ``book/_toc.yml``: the verdicts first, then one part per
paper in the same order (headline, model and algorithm, baselines, figures in the paper's
order, the readings or authors'-code page, sensitivity), then what serves all three
systems, then the reference; each page of a paper's part titled with its paper."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from _book import BOOK

from lorasched.figures import allpass, pdftsp, titan

#: the parts, in order, by caption
PARTS = ("The verdicts", "pdFTSP (ICPP'24)", "TITAN (SoCC'22)", "Allpass (2025)",
         "For all three systems", "Reference", "API reference")
#: each paper's part: its caption, its name in titles, its catalogue (figure pages in the
#: paper's order, the readings page last) and the chapters of its model and baselines
PAPERS = {
    "pdftsp": ("pdFTSP (ICPP'24)", "pdFTSP", pdftsp.CATALOGUE,
               ("model.md", "algorithm.md", "notebooks/day.ipynb", "baselines.md")),
    "titan": ("TITAN (SoCC'22)", "TITAN", titan.CATALOGUE, ("titan_model.md",)),
    "allpass": ("Allpass (2025)", "Allpass", allpass.CATALOGUE, ("allpass_model.md",)),
}
#: what serves all three systems, in the order a reader meets it
SHARED = ("notebooks/explorer.ipynb", "notebooks/own_policy.ipynb", "traces.md",
          "notebooks/gym.ipynb", "suite.md", "scale.md", "notebooks/scale_bench.ipynb",
          "notebooks/service.ipynb", "notebooks/data.ipynb", "notebooks/measured_h200.ipynb")


def parts(toc: dict) -> dict[str, list[str]]:
    """``{caption: [file, ...]}`` of a Jupyter Book 1.x toc, in order."""
    return {p["caption"]: [c["file"] for c in p["chapters"]] for p in toc["parts"]}


def expected(system: str) -> list[str]:
    """A paper's part as it must read: headline, model and baselines, the figure pages in
    the paper's order and the readings page (the catalogue's order), sensitivity."""
    _, _, catalogue, model = PAPERS[system]
    figures = [f"notebooks/{fig.page}.ipynb" for fig in catalogue.figures.values()]
    return [f"notebooks/headline_{system}.ipynb", *model, *figures,
            f"notebooks/sensitivity_{system}.ipynb"]


def first_difference(got: list[str], want: list[str]) -> str:
    """Where a part's pages first depart from what they must be, in words."""
    for i, (g, w) in enumerate(zip(got, want, strict=False)):
        if g != w:
            return f"page {i + 1} is {g}, where {w} belongs"
    if len(got) > len(want):
        return f"{got[len(want)]} does not belong"
    return f"{want[len(got)]} is missing" if len(got) < len(want) else "in order"


def shape_problems(toc: dict) -> list[str]:
    """Every way ``toc`` departs from the book's shape (none: it holds)."""
    found = parts(toc)
    problems = []
    if toc.get("root") != "intro":
        problems.append(f"the root is {toc.get('root')!r}, not the introduction")
    if tuple(found) != PARTS:
        problems.append(f"parts {list(found)}, expected {list(PARTS)}")
    if found.get("The verdicts") != ["notebooks/summary.ipynb"]:
        problems.append(f"the verdicts part is {found.get('The verdicts')}")
    for system, (caption, *_) in PAPERS.items():
        got = found.get(caption, [])
        if got != expected(system):
            problems.append(f"{caption}: {first_difference(got, expected(system))}")
    if tuple(found.get("For all three systems", ())) != SHARED:
        problems.append(f"the shared part is {found.get('For all three systems')}")
    return problems


def title(file: str) -> str:
    """A page's title: the first ``# `` heading of its markdown (a notebook's first cell)."""
    path = BOOK / file
    if path.suffix == ".ipynb":
        path = Path(__file__).resolve().parents[1] / "notebooks" / path.name
        text = "".join(json.loads(path.read_text())["cells"][0]["source"])
    else:
        text = path.read_text()
    m = re.search(r"^# (.+)$", text, flags=re.M)
    return m[1] if m else ""


@pytest.fixture(scope="module")
def toc() -> dict:
    return yaml.safe_load((BOOK / "_toc.yml").read_text())


def test_the_book_has_its_shape(toc):
    assert shape_problems(toc) == []


def test_a_moved_page_breaks_the_shape(toc):
    # TITAN's Table 4 after its Fig. 5, as the book had it; pdFTSP's model in a shared part
    moved = json.loads(json.dumps(toc))
    chapters = moved["parts"][2]["chapters"]
    files = [c["file"] for c in chapters]
    i, j = files.index("notebooks/titan_table4.ipynb"), files.index("notebooks/titan_fig05.ipynb")
    chapters[i], chapters[j] = chapters[j], chapters[i]
    problems = shape_problems(moved)
    assert len(problems) == 1 and problems[0].startswith("TITAN (SoCC'22)")
    first = json.loads(json.dumps(toc))
    first["parts"] = [first["parts"][1], first["parts"][0], *first["parts"][2:]]
    assert any(p.startswith("parts ") for p in shape_problems(first))


@pytest.mark.parametrize("system", PAPERS)
def test_each_page_of_a_paper_is_titled_with_its_paper(system):
    caption, name, *_ = PAPERS[system]
    untitled = [f"{f}: {title(f)!r}" for f in expected(system) if name not in title(f)]
    assert not untitled, f"{caption} pages whose title does not name {name}: {untitled}"


def test_no_two_pages_share_a_title(toc):
    titles = [title(f) for files in parts(toc).values() for f in files
              if (BOOK / f).suffix in (".md", ".ipynb")]
    assert len(set(titles)) == len(titles), sorted(t for t in titles if titles.count(t) > 1)
