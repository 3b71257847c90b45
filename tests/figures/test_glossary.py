"""Every abbreviation is defined where a page first uses it (lorasched.figures.glossary).

A page's text is what a reader reads, in order: a chapter's markdown; a notebook's markdown
cells (not those tagged ``remove-cell``) and the markdown its code cells showed (the prose
that ``fig.findings`` and ``fig.why`` write). Headings, inline code and link targets do not
count. The chapters are read from the sources; the notebooks from the executed copies of
the built small book (marker ``browser``, in the xdist group "book": it shares test_book's
build).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from _book import BOOK, toc_files, toc_notebooks

from lorasched.figures import glossary
from lorasched.figures.glossary import ABBREVIATIONS, reader_text, undefined


def page_text(notebook: dict) -> str:
    """An executed notebook's text as its page shows it: each markdown cell (not those
    tagged ``remove-cell``) and each code cell's ``text/markdown`` outputs, in order."""
    parts = []
    for cell in notebook["cells"]:
        if "remove-cell" in cell.get("metadata", {}).get("tags", []):
            continue
        if cell["cell_type"] == "markdown":
            parts.append("".join(cell["source"]))
        for output in cell.get("outputs", []):
            markdown = output.get("data", {}).get("text/markdown")
            if markdown:
                parts.append("".join(markdown))
    return "\n\n".join(parts)


def listing(found: list[tuple[str, str, str]]) -> str:
    return "\n  ".join(f"{page}: {abbr} in \"…{context}…\"" for page, abbr, context in found)


# ------------------------------------------------------------------- the check itself


def test_a_defined_first_use_passes_in_either_order():
    text = ("The paper compares pdFTSP with Titan, EFT (earliest finish time) and no task "
            "merging (NTM). Later EFT and NTM need no definition.")
    assert undefined(text) == []


def test_an_undefined_first_use_is_named_with_its_context():
    text = ("The paper compares pdFTSP with Titan and EFT. " + "More words. " * 20
            + "EFT (earliest finish time) wins.")
    found = undefined(text)
    assert [a for a, _ in found] == ["EFT"]
    assert "compares pdFTSP with Titan and EFT" in found[0][1]


def test_an_abbreviation_inside_a_longer_one_is_not_a_use():
    # TL-NP and SJF-NP are used, TL and SJF are not; MILP holds no LP
    found = undefined("TL-NP waits less than SJF-NP. The MILP and the MILPs are solved.")
    assert [a for a, _ in found] == ["TL-NP", "SJF-NP", "MILP"]
    assert undefined("Tiresias-L (*TL*, least-attained-service first): TL-NP, TL-P.") == []
    assert undefined("a mixed-integer linear program (MILP), a sub-MILP, MILP-based") == []
    # a numeric or lower-case suffix keeps the abbreviation: FM-1.5-roberta-base uses FM
    assert [a for a, _ in undefined("On FM-1.5-roberta-base TITAN wins.")] == ["FM"]


def test_a_heading_inline_code_and_link_targets_do_not_count():
    text = ("# Fig. 6: JCT under limited capacity\n\n" + "Some words. " * 30
            + "A job's completion time (JCT) is its finish minus its submission; "
            "`EFT` and [the page](fig_EFT.ipynb) name no abbreviation.")
    assert undefined(text) == []
    assert "JCT under" not in reader_text(text)


def test_a_definition_beyond_the_window_fails():
    far = "EFT " + "word " * 50 + "(earliest finish time)"
    assert [a for a, _ in undefined(far)] == ["EFT"]
    assert undefined(far, window=400) == []


def test_every_abbreviation_has_phrases_and_is_found_as_itself():
    for abbreviation, phrases in ABBREVIATIONS.items():
        assert phrases and all(p.strip() for p in phrases), abbreviation
        assert [a for a, _ in undefined(f"Here {abbreviation} is used.")] == [abbreviation]


def test_a_use_that_links_to_the_glossary_is_defined_there():
    far = "word " * 60
    assert undefined(f"The {{term}}`JCT` falls.{far} JCT again.") == []
    assert undefined(f"The {{term}}`TL-NP <TL>` waits.{far} TL-NP again.") == []
    # a term linked under other words does not introduce the abbreviation
    assert [a for a, _ in undefined(f"Its {{term}}`time <JCT>` falls.{far} JCT.")] == ["JCT"]
    assert undefined("The [JCT](../glossary.md#term-JCT) falls.") == []
    # a link elsewhere, or a glossary link after the first use, defines nothing
    assert [a for a, _ in undefined("The [JCT](fig05.ipynb) falls.")] == ["JCT"]
    assert [a for a, _ in undefined(f"The JCT falls.{far} {{term}}`JCT`")] == ["JCT"]


def glossary_terms() -> list[str]:
    """The terms of ``book/glossary.md``'s glossary directives, in order."""
    terms, inside = [], False
    for line in (BOOK / "glossary.md").read_text().splitlines():
        if line.startswith("```{glossary}"):
            inside = True
        elif line.startswith("```"):
            inside = False
        elif inside and line.strip() and not line.startswith(" "):
            terms.append(line.strip())
    return terms


def test_the_book_has_one_glossary_with_every_abbreviation_once():
    terms = glossary_terms()
    assert len(terms) == len(set(terms)), sorted(t for t in terms if terms.count(t) > 1)
    missing = [a for a in ABBREVIATIONS if a not in terms]
    assert not missing, f"abbreviations missing from book/glossary.md: {missing}"
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    assert "glossary.md" in toc_files(toc)


def definitions(paragraph: str) -> set[str]:
    """The abbreviations a paragraph defines in words (one of its phrases is in it)."""
    text = paragraph.casefold()
    return {a for a, phrases in ABBREVIATIONS.items() if any(p.casefold() in text
                                                             for p in phrases)}


def repeated_glossaries(pages: dict[str, str]) -> dict[str, list[str]]:
    """The paragraphs that define four or more abbreviations in words and stand on more
    than two pages (``{page: markdown}``): a glossary written again, where a link to the
    book's would do."""
    seen: dict[str, list[str]] = {}
    for page, markdown in pages.items():
        for paragraph in markdown.split("\n\n"):
            if len(definitions(paragraph)) >= 4:
                seen.setdefault(paragraph, []).append(page)
    return {p[:80]: names for p, names in seen.items() if len(names) > 2}


def test_a_glossary_written_on_three_pages_is_found():
    paragraph = ("A job's JCT is its completion time; the DBF is the demand bound function; "
                 "Tiresias-L (TL) and shortest job first (SJF) are the baselines.")
    pages = {"a": paragraph, "b": f"Other words.\n\n{paragraph}", "c": paragraph}
    assert list(repeated_glossaries(pages).values()) == [["a", "b", "c"]]
    assert repeated_glossaries({"a": paragraph, "b": paragraph}) == {}


def test_no_page_repeats_a_glossary():
    pages = {}
    for path in sorted((BOOK.parent / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        pages[path.stem] = "\n\n".join("".join(c["source"]) for c in cells
                                        if c["cell_type"] == "markdown")
    repeated = repeated_glossaries(pages)
    assert not repeated, f"definitions repeated on more than two pages: {repeated}"


# ------------------------------------------------------------------- the book's pages


def test_every_chapter_defines_its_abbreviations_at_first_use():
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    chapters = [f for f in toc_files(toc) if not f.startswith("notebooks/")]
    found = []
    for chapter in chapters:
        path = BOOK / (chapter if Path(chapter).suffix else f"{chapter}.md")
        found += [(chapter, a, c) for a, c in undefined(path.read_text())]
    assert len(chapters) >= 8
    assert not found, f"abbreviations not defined at their first use:\n  {listing(found)}"


@pytest.mark.browser
def test_every_notebook_page_of_the_built_book_defines_its_abbreviations_at_first_use(
        built_book):
    site = built_book
    notebooks = site.parents[1] / "notebooks"
    names = toc_notebooks()
    found = []
    for name in names:
        notebook = json.loads((notebooks / f"{Path(name).name}.ipynb").read_text())
        found += [(name, a, c) for a, c in undefined(page_text(notebook))]
    assert len(names) >= 25, f"only {len(names)} notebooks in the toc"
    assert not found, f"abbreviations not defined at their first use:\n  {listing(found)}"


# ------------------------------------------------------------------- names and symbols


def test_a_sweep_page_says_in_words_which_milp_setting_titan_ran():
    import xarray as xr

    import lorasched.figures.pdftsp as figures
    from lorasched.pdftsp.baselines.titan_per_slot import MIP_SETTINGS

    ds = xr.Dataset({"load_factor": (("nodes", "seed"), [[1.0, 1.0]]),
                     "n_tasks": (("nodes", "seed"), [[100.0, 100.0]])},
                    coords={"nodes": [10], "seed": [1, 2], "algorithm": ["pdftsp", "titan"]})
    ds.attrs["sweep"] = json.dumps({"description": "A sweep", "base": {"slots": 48},
                                    "axes": {"nodes": [10]},
                                    "options": {"titan": dict(figures.TITAN_OPTIONS)}})
    text = figures.figure("fig04").describe(ds)
    assert ("Titan: each slot's mixed-integer linear program (MILP) in compact form solved to "
            "a certified 1 % gap") in text
    assert undefined(text) == []
    # the budget-limited reading, where a sweep runs it, in words
    ds.attrs["sweep"] = json.dumps({"description": "A sweep", "base": {"slots": 48},
                                    "axes": {"nodes": [10]},
                                    "options": {"titan": dict(figures.TITAN_BUDGET_OPTIONS)}})
    text = figures.figure("fig04").describe(ds)
    assert "mip = rens_lean (relaxation enforced neighbourhood search (RENS) over" in text
    assert "at most 10,000 branch-and-bound nodes" in text
    assert undefined(text) == []
    assert set(figures.titan_words.MIP_WORDS) == set(MIP_SETTINGS)  # every setting has words


def test_generated_text_gets_its_abbreviations_spelled_out_first():
    text = "Fig. 4, pdFTSP over EFT, is contradicted; TITAN's JCT against SRTF shrinks."
    terms = glossary.spelled_out(text)
    assert terms == ("EFT (earliest finish time), JCT (job completion time), SRTF (shortest "
                     "remaining time first)")
    assert glossary.undefined(text) and not glossary.undefined(f"{terms}. {text}")
    assert glossary.spelled_out("No abbreviation here.") == ""
