"""What every figure page shares (lorasched.figures.base): the claims' verdicts and why,
the prose's escaped dollars, the quoted numbers and atomic data files."""

from __future__ import annotations

import pytest

from lorasched.figures import quoted_table
from lorasched.figures import verdicts as v
from lorasched.figures.base import Figure, Prose
from lorasched.figures.numbers import pct, quote
from lorasched.model.errors import InputError


def test_prose_escapes_dollar_amounts_but_not_maths():
    text = Prose("It costs $236.69 (of which $18.02 idle), and $\\alpha$ is kept.")
    md = text._repr_markdown_()
    assert "\\$236.69" in md and "\\$18.02" in md and "$\\alpha$" in md
    assert Prose("already \\$5")._repr_markdown_() == "already \\$5"


class _Page(Figure):
    key, number, title, page = "figx", "Fig. X", "A test figure", "figx_page"

    def __init__(self, rows):
        self.rows = rows

    def claim_rows(self, data):
        return [dict(r) for r in self.rows]


def test_a_row_with_its_estimate_shows_its_seeds_and_ours_over_the_papers():
    est = v.estimate([80.0, 84.0, 88.0])
    rows = [{"claim": "b", "paper": "+19 %", "ours": "+84 %", "verdict": v.MAGNITUDE_OFF,
             "why": "TITAN merges 41 % of jobs.", "estimate": est, "paper_value": 19.0,
             "fmt": lambda x: f"{x:.0f} %"},
            {"claim": "e", "paper": "+19 %", "ours": "+20 %", "verdict": v.REPRODUCED,
             "estimate": v.estimate([19.0, 21.0]), "scope": v.BEYOND}]
    table = _Page(rows).claims(None)
    assert list(table["per seed"]) == ["80 %, 84 %, 88 %", "19, 21"]
    assert table.loc[0, "ours"] == "+84 %; ours / paper = 4.42x"
    assert table.loc[1, "ours"] == "+20 %" and table.loc[1, "scope"] == v.BEYOND
    with pytest.raises(InputError, match="scope"):
        _Page([{**rows[1], "scope": "elsewhere"}]).claims(None)


def test_claims_fill_why_and_count_a_missing_one_as_not_explained():
    rows = [
        {"claim": "a", "paper": "+19 %", "ours": "+20 %", "verdict": v.REPRODUCED,
         "why": "ignored"},
        {"claim": "b", "paper": "+19 %", "ours": "+84 %", "verdict": v.MAGNITUDE_OFF,
         "why": "TITAN merges 41 % of jobs."},
        {"claim": "c", "paper": "+19 %", "ours": "-5 %", "verdict": v.CONTRADICTED},
        {"claim": "d", "paper": "not run", "ours": "+3 %", "verdict": v.NOT_RUN},
    ]
    table = _Page(rows).claims(None)
    assert list(table.columns) == ["figure", "claim", "variant", "paper", "ours", "per seed",
                                   "verdict", "why", "scope", "sentence"]
    assert list(table["sentence"]) == [""] * 4  # a row that cites no sentence
    assert list(table["why"]) == ["", "TITAN merges 41 % of jobs.", v.NOT_EXPLAINED,
                                  v.REASONS[v.NOT_RUN]]
    # what the paper did not run is beyond it; the rest is the paper's claim
    assert list(table["scope"]) == [v.PAPER, v.PAPER, v.PAPER, v.BEYOND]
    why = _Page(rows).why(None)
    assert why.count("\n- ") == 2 and "**b**" in why and "not explained" in why
    assert "Every claim" in _Page(rows[:1]).why(None)
    with pytest.raises(InputError, match="verdict"):
        _Page([{"claim": "e", "paper": "", "ours": "", "verdict": "fine"}]).claims(None)


def test_a_row_cites_its_sentence_by_the_start_of_its_name_or_its_own():
    """A page's :attr:`~lorasched.figures.base.Figure.sentences` gives each row the part of
    the paper's sentence it answers, the longest start of its claim's name deciding; a
    row's own cite stands; a cite outside the system's inventory is refused."""
    page = _Page([{"claim": "gain over EFT at K=50", "paper": "", "ours": "",
                   "verdict": v.REPRODUCED},
                  {"claim": "gain over NTM", "paper": "", "ours": "", "verdict": v.REPRODUCED,
                   "sentence": "§5.2b (NTM)"},
                  {"claim": "welfare", "paper": "", "ours": "", "verdict": v.REPRODUCED}])
    page.system = "pdftsp"
    page.sentences = {"gain over": "§5.2b (Titan)", "gain over EFT": "§5.2b (EFT)"}
    assert list(page.claims(None)["sentence"]) == ["§5.2b (EFT)", "§5.2b (NTM)", ""]
    page.sentences = {"welfare": "§5.2b (Oracle)"}
    with pytest.raises(InputError, match="not a claim of pdftsp's inventory"):
        page.claims(None)


def test_atomic_file_lets_overlapping_writers_finish_and_leaves_nothing_on_failure(tmp_path):
    """Two writers of one file at once each get their own temporary file; a failed write
    leaves no file behind."""
    from lorasched.figures.base import atomic_file

    path = tmp_path / "runs.pkl"
    with atomic_file(path) as first, atomic_file(path) as second:
        assert first != second
        first.write_bytes(b"first")
        second.write_bytes(b"second")
    assert path.read_bytes() == b"first"  # the outer block ends last
    with pytest.raises(RuntimeError), atomic_file(tmp_path / "broken.pkl") as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("interrupted")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.pkl"]


class _Quoting(Figure):
    """A page whose findings derive a gain and whose why quotes a constant."""

    number = "Fig. 0"

    def claim_rows(self, data):
        return [{"claim": "a", "paper": "+19 %", "ours": "+84 %", "verdict": v.MAGNITUDE_OFF,
                 "why": f"TITAN merges {quote('merged share, %', data['merged'])} of jobs."}]

    def findings(self, data, at: str = "K = 5"):
        return Prose(f"At {at} Titan grows by {quote(f'growth at {at}, %', data['g'], pct)}"
                     f" and again by {quote(f'growth at {at}, %', data['g'], pct)}.")


def test_quoted_lists_each_number_the_findings_and_why_derive_once():
    page, data = _Quoting(), {"g": 11.789, "merged": 41.2}
    table = page.quoted(data, at="K = 20")
    assert list(table.columns) == ["quantity", "value", "as quoted"]
    assert table.values.tolist() == [["growth at K = 20, %", 11.789, "+12 %"],
                                     ["merged share, %", 41.2, "41.2"]]
    assert "+12 %" in page.findings(data) and "41.2" in page.why(data)
    assert _Page([]).quoted(None).empty
    shown = quoted_table(table).to_html()
    assert "11.789" in shown and "+12 %" in shown
    assert "quotes no number" in quoted_table(_Page([]).quoted(None))


def test_a_small_build_says_it_is_small_with_its_scale_and_the_papers_setting():
    import lorasched.figures.allpass as allpass
    import lorasched.figures.pdftsp as pdftsp
    import lorasched.figures.titan as titan

    note = pdftsp.figure("fig06").build_note("small")
    assert note.startswith('This page is a small build (`size = "small"`)')
    assert "K = 10 compute nodes" in note and "48 ten-minute slots" in note
    assert "3 (light), 5 (medium) and 8 (high) tasks" in note
    assert ("5 seeds (1, 2, 3, 4 and 5) (Titan with either objective, each slot's "
            "mixed-integer linear program (MILP) solved to a certified gap, and the bounds") in note
    assert "the first 3)" in note and "seeds 1, 2, 3" not in note
    # at the full size Titan runs on every seed of the figure: no "first" clause
    assert note.endswith("K = 100 compute nodes where a figure does not vary K, 30 (light), "
                         "50 (medium) and 80 (high) tasks arriving per slot on average at "
                         "the three loads, 144 ten-minute slots, 10 seeds (1 to 10).")
    assert "1 seed (1)" in pdftsp.figure("fig10").build_note("small", seeds=1)
    for key in ("fig04", "fig08", "fig13"):  # Titan on every seed of these, at the full size
        assert pdftsp.figure(key).build_note("full").endswith(
            "144 ten-minute slots, 10 seeds (1 to 10).")
        assert "the first 3)" in pdftsp.figure(key).build_note("small")
    full = pdftsp.figure("calibration").build_note("full")
    assert full.startswith("This page runs the paper's setting") and "small" not in full
    assert "40 jobs per run at density one on 16 nodes of 4 GPUs, 5 seeds" in (
        titan.figure("table3").build_note("small"))
    assert "40 jobs per run, 5 seeds (1, 2, 3, 4 and 5) per setup" in (
        allpass.figure("fig06").build_note("small"))
    assert "320 jobs" in titan.figure("fig05").build_note("full", seeds=3)
