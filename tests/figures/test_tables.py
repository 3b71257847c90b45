"""Tables as people read them (lorasched.figures.tables): the index hidden where it means
nothing, verdicts coloured, links made HTML links, long whys and per-seed values folded."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from lorasched.figures import styled
from lorasched.figures import verdicts as v
from lorasched.figures.tables import FOLD_AFTER, md_link
from lorasched.model.errors import InputError


def test_styled_tables_hide_the_default_index_colour_verdicts_and_read_as_people_write():
    table = pd.DataFrame({"claim": ["a", "b", "c", "d"], "case": ["Case 1", np.nan, None, ""],
                          "ours": [1.5, np.nan, 2572.09, 0.346000],
                          "moved": [True, False, np.bool_(True), False],
                          "verdict": [v.REPRODUCED, v.CONTRADICTED, v.MAGNITUDE_OFF,
                                      v.NOT_RUN]})
    page = styled(table).to_html()
    assert 'class="row_heading' not in page  # no 0, 1, 2 column
    # nor what is left of it after rows were taken (a summary's rows of one system)
    assert 'class="row_heading' not in styled(table.iloc[[1, 3]]).to_html()
    named = table.iloc[[1, 3]].rename_axis("seed")
    assert 'class="row_heading' in styled(named).to_html()  # a named index labels rows
    for verdict in (v.REPRODUCED, v.CONTRADICTED, v.MAGNITUDE_OFF):
        assert f"color: {v.COLOURS[verdict]}" in page
    assert f"color: {v.GREY}" in page  # a not-compared verdict
    text = {c.strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", page, re.S)}
    assert not text & {"nan", "None", "True", "False", "NaN"}, text
    assert {"2,572", "0.346", "1.5", "yes", "no"} <= text
    labelled = styled(table.set_index("claim")).to_html()
    assert 'class="row_heading' in labelled  # an index that labels rows is kept
    other = table.assign(claim=["w", "x", "y", "z"])
    assert styled(table).uuid != styled(other).uuid  # one id per table: no shared CSS
    assert styled(table).uuid == styled(table.copy()).uuid  # and the same on every run
    assert list(styled(table["claim"]).data.columns) == ["claim"]  # a Series: one column
    assert styled("text") == "text"


def test_a_long_why_is_folded_behind_its_first_words_and_keeps_its_links():
    long = ("TITAN merges 41 % of jobs, far more than the paper's pairs, because "
            "[the merger](titan_table2.ipynb#merging) pairs any two datasets & p < 1.")
    table = pd.DataFrame({"claim": ["a", "b"], "why": ["Merges 41 %.", long]})
    page = styled(table).to_html()
    cells = re.findall(r"<td[^>]*>(.*?)</td>", page, re.S)
    short_cell, long_cell = cells[1].strip(), cells[3].strip()
    assert short_cell == "Merges 41 %."  # short: as it is
    assert long_cell.startswith('<details class="why"><summary>TITAN merges 41 % of jobs, far '
                                "more …</summary>")
    assert '<a href="titan_table2.html#merging">the merger</a>' in long_cell
    assert "&amp; p &lt; 1." in long_cell and long_cell.endswith("</details>")


def _why_cells(whys: list[str]) -> list[str]:
    page = styled(pd.DataFrame({"why": whys})).to_html()
    return [c.strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", page, re.S)]


def test_a_why_that_is_one_link_shows_whole_as_that_link():
    """The summary's why (a short why, all of it one link to the page's why section) is
    never folded: folded, its link showed as a teaser and again in full; a long why with a
    link inside still folds, and its teaser never cuts an escaped character in two."""
    words = ("eq. (14) prices out the small jobs & most of the long ones, so the load "
             "never reaches …")
    assert len(words) > FOLD_AFTER
    one, folded = _why_cells([f"[{words}](fig05_vendors.ipynb#why-ours-differs)",
                              "one two three four five six seven & eight nine ten eleven "
                              "twelve thirteen [fourteen](fig05_vendors.ipynb) fifteen."])
    assert one == ('<a href="fig05_vendors.html#why-ours-differs">eq. (14) prices out the '
                   "small jobs &amp; most of the long ones, so the load never reaches …</a>")
    assert folded.startswith('<details class="why"><summary>one two three four five six '
                             "seven &amp; …</summary>one two")
    assert '<a href="fig05_vendors.html">fourteen</a> fifteen.</details>' in folded


def test_a_link_s_words_keep_their_brackets():
    link = md_link("the [0, 1] band", "fig05_vendors.ipynb#why-ours-differs")
    assert link == "[the \\[0, 1\\] band](fig05_vendors.ipynb#why-ours-differs)"
    assert _why_cells([link, f"Because {link}."]) == [
        '<a href="fig05_vendors.html#why-ours-differs">the [0, 1] band</a>',
        'Because <a href="fig05_vendors.html#why-ours-differs">the [0, 1] band</a>.']
    for bad in ("", "page one.ipynb", "f(x).ipynb", None):
        with pytest.raises(InputError, match="target"):
            md_link("words", bad)


def test_per_seed_values_beyond_three_fold_behind_the_first_three():
    table = pd.DataFrame({"claim": ["a", "b"],
                          "per seed": ["+12 %, +30 %", "2,572, 2,601, -41 %, -40 %, -39 %"]})
    cells = [c.strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", styled(table).to_html(),
                                           re.S)]
    assert cells[1] == "+12 %, +30 %"
    assert cells[3] == ('<details class="seeds"><summary>2,572, 2,601, -41 % … (5)</summary>'
                        "2,572, 2,601, -41 %, -40 %, -39 %</details>")
