"""The built book read back (lorasched.figures.readback): no column without a name, no number
past its precision, no number set against itself, on pages made here that have each, and on
every page of the built small book."""

from __future__ import annotations

import pandas as pd
import pytest

from lorasched.figures import styled
from lorasched.figures.readback import text_problems, unnamed_columns

FRAME = pd.DataFrame({"policy": ["A", "B", "C"], "JCT (h)": [1.0, 2.0, 3.0]})


def test_a_column_without_a_name_is_found():
    assert unnamed_columns(styled(FRAME).to_html()) == []
    # a data column whose header is blank
    blank = unnamed_columns(styled(FRAME.rename(columns={"policy": ""})).to_html())
    assert len(blank) == 1 and "unnamed data (first cell 'A')" in blank[0]
    # a stray index of numbers: what pandas shows when nothing hides it
    stray = unnamed_columns(FRAME.iloc[[0, 2]].style.to_html())
    assert len(stray) == 1 and "unnamed index (first cell '0')" in stray[0]
    # an index that is named, in its own header row, and row labels that are words, pass
    assert unnamed_columns(FRAME.set_index("policy").style.to_html()) == []
    assert unnamed_columns(FRAME.rename_axis("run").style.to_html()) == []
    words = FRAME.set_index("policy").rename_axis(None)
    assert unnamed_columns(words.style.to_html()) == []
    # a markdown table with a blank corner over its row labels is a column without a name
    md = ("<table><thead><tr><th></th><th>paper</th></tr></thead>"
          "<tbody><tr><td>cluster</td><td>64 GPUs</td></tr></tbody></table>")
    assert unnamed_columns(md) and not unnamed_columns(md.replace("<th></th>",
                                                                  "<th>setting</th>"))


@pytest.mark.browser
def test_no_page_of_the_built_book_has_an_unnamed_column_or_a_number_past_its_precision(
        built_book):
    pages = sorted(p for p in built_book.rglob("*.html")
                   if not p.relative_to(built_book).parts[0].startswith(("_", "genindex")))
    assert len(pages) > 30
    found = [f"{p.relative_to(built_book)}: {line}" for p in pages
             for line in unnamed_columns(p.read_text()) + text_problems(p.read_text())]
    assert not found, "what a reader should not see:\n  " + "\n  ".join(found)


@pytest.mark.parametrize(("text", "found"), [
    ("TITAN's JCT is 0.2287 h against 0.2265 h; 5,940 of 5,940 jobs.", None),
    ("the value before rounding, 0.0697156, and arXiv:2510.00206", None),
    ("the interval ± 0.000000000000000117", "past its precision: '0.000000000000000117'"),
    ("an average of 10.000000000000002 workers", "past its precision"),
    ("a share of 0.3333333 of the jobs", "past its precision"),
    ("Ours solves for 320 jobs, not 320.", "set against itself"),
    ("It adds 10 workers, not 11.", None),
    ("<code>10.000000000000002</code> in code is not read", None),
])
def test_a_number_past_its_precision_or_set_against_itself_is_found(text, found):
    problems = text_problems(f"<p>{text}</p>")
    if found is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problems[0].startswith(found)
