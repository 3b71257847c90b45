"""Prose that cannot contradict its verdict (lorasched.figures.prose): a sentence about a
claim is marked with its test's verdict and must use that verdict's words; the built small
book's figure pages are read back against their claims tables, and an edited page fails."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from lorasched.figures import prose
from lorasched.figures import verdicts as v
from lorasched.model.errors import InputError

CLAIM = "pdFTSP best for every vendor count"
INCONCLUSIVE_TEXT = ("Whether with the Lemma-2 constants pdFTSP is the best at every vendor "
                     "count the seeds cannot tell: with 1 vendor its margin over the best "
                     "baseline, -35 % on average, holds zero within the seeds' 95 % interval.")
# the reviewer's case: a direction stated beside an inconclusive verdict
EDITED_TEXT = "With the Lemma-2 constants pdFTSP is below Titan and EFT at every K."


def _page(text=INCONCLUSIVE_TEXT, verdict=v.INCONCLUSIVE, rest=""):
    span = (f'<span class="claim-says" data-claim="{CLAIM}|Lemma 2" '
            f'data-verdict="{verdict}">{text}</span>')
    return f"<html><body><section><p>{span} {rest}</p></section></body></html>"


def test_says_marks_a_sentence_with_its_verdict():
    out = prose.says(v.INCONCLUSIVE, INCONCLUSIVE_TEXT, CLAIM, "Lemma 2")
    assert out.startswith('<span class="claim-says" data-claim="pdFTSP best for every '
                          'vendor count|Lemma 2" data-verdict="inconclusive">')
    assert prose.check_page(out, {(CLAIM, "Lemma 2"): v.INCONCLUSIVE}) == []


@pytest.mark.parametrize(("verdict", "text", "message"), [
    (v.INCONCLUSIVE, EDITED_TEXT, "lacks 'the seeds cannot tell'"),
    (v.INCONCLUSIVE, "The seeds cannot tell whether it grows, as the paper reports.",
     "says ['as the paper reports']"),
    (v.CONTRADICTED, "It is the best at every K, as the paper reports.",
     "lacks 'unlike the paper'"),
    (v.REPRODUCED, "Unlike the paper, it is below Titan, as the paper reports.",
     "says ['unlike the paper']"),
    (v.CONSISTENT, "It grows, as in the paper; not yet decided.", "as in the paper"),
    ("same direction", "It grows.", "no sentence speaks"),
])
def test_says_refuses_words_another_verdict_owns(verdict, text, message):
    with pytest.raises(InputError) as err:
        prose.says(verdict, text, CLAIM)
    assert message in str(err.value)
    assert message in prose.words_problem(verdict, text)


def test_a_page_edited_to_state_a_direction_its_verdict_does_not_support_fails():
    table = {(CLAIM, "Lemma 2"): v.INCONCLUSIVE}
    assert prose.check_page(_page(), table) == []
    edited = prose.check_page(_page(EDITED_TEXT), table)
    assert len(edited) == 1 and "lacks 'the seeds cannot tell'" in edited[0]
    assert CLAIM in edited[0] and "below Titan and EFT" in edited[0]
    # a sentence that speaks for another verdict than its claim's row
    wrong = prose.check_page(_page("Unlike the paper, it is not the best.",
                                   v.CONTRADICTED), table)
    assert len(wrong) == 1 and "the claims table says 'inconclusive'" in wrong[0]
    # agreement stated outside any marked sentence
    loose = prose.check_page(_page(rest="It is the best at every K, as the paper reports."),
                             table)
    assert len(loose) == 1 and "unmarked prose agrees" in loose[0]
    # a method named after the paper is no agreement with its result
    assert prose.check_page(_page(rest="Durations are scaled as in the paper's "
                                       "evaluation."), table) == []


def test_a_sentence_about_a_claim_that_depends_on_lorasched_s_choice_says_both():
    """A claim whose verdict the ledger found to depend on lorasched's choice: its sentence,
    written with the verdict under lorasched's choice, carries that verdict's words and the
    clause, and speaks for the composed verdict; its words are still checked, and a sentence
    of any other verdict may not borrow the composed verdict's marker."""
    clause = ("its verdict depends on lorasched's choice: contradicted at lorasched's limit, "
              "60 min; reproduced at limit = 10 min")
    try:
        prose.composing({(CLAIM, "Lemma 2"): (v.CONTRADICTED, clause)})
        out = prose.says(v.CONTRADICTED, "Unlike the paper, it is not the best", CLAIM,
                         "Lemma 2")
        assert f'data-verdict="{v.DEPENDS_ON}"' in out
        assert out.endswith(f"Unlike the paper, it is not the best; {clause}</span>")
        assert prose.check_page(out, {(CLAIM, "Lemma 2"): v.DEPENDS_ON}) == []
        assert "the claims table says 'contradicted'" in prose.check_page(
            out, {(CLAIM, "Lemma 2"): v.CONTRADICTED})[0]
        with pytest.raises(InputError, match="lacks 'unlike the paper'"):
            prose.says(v.CONTRADICTED, "It is not the best", CLAIM, "Lemma 2")
        # another verdict of the same claim (a page judged on other seeds) is said as it is
        plain = prose.says(v.INCONCLUSIVE, INCONCLUSIVE_TEXT, CLAIM, "Lemma 2")
        assert f'data-verdict="{v.INCONCLUSIVE}"' in plain and clause not in plain
        with pytest.raises(InputError, match="lacks \"depends on lorasched's choice\""):
            prose.composing({(CLAIM, "Lemma 2"): (v.CONTRADICTED, "it depends")})
    finally:
        prose.composing({})
    assert "says [\"depends on lorasched's choice\"]" in prose.words_problem(
        v.CONTRADICTED, "Unlike the paper, it is low; it depends on lorasched's choice.")
    assert prose.words_problem(v.DEPENDS_ON, "It is low, as the paper reports.") == (
        "a depends on lorasched's choice claim's sentence lacks \"depends on lorasched's "
        "choice\"")


# ------------------------------------------------------------------ the built book


def page_verdicts(page_html: str, site: Path) -> dict | None:
    """``{(claim, variant): verdict}`` from the claims CSV a built page links (None: the
    page has no claims table)."""
    links = sorted(set(re.findall(r'href="\.\./data/([^"]+_claims\.csv)"', page_html)))
    if not links:
        return None
    out = {}
    for link in links:
        table = pd.read_csv(site / "data" / link, keep_default_na=False)
        variant = table.columns[2] if table.columns[2] != "paper" else None
        for r in table.to_dict("records"):
            out[(str(r["claim"]), str(r[variant]) if variant else "")] = r["verdict"]
    return out


def book_problems(site: Path) -> tuple[dict, int, set]:
    """Every prose problem of every figure page of a built site, the pages read and the
    pages with marked sentences."""
    problems, pages, spans = {}, 0, set()
    for path in sorted((site / "notebooks").glob("*.html")):
        text = path.read_text()
        verdicts = page_verdicts(text, site)
        if verdicts is None:
            continue
        pages += 1
        if f'class="{prose.CLASS}"' in text:
            spans.add(path.stem)
        found = prose.check_page(text, verdicts)
        if found:
            problems[path.stem] = found
    return problems, pages, spans


@pytest.mark.browser
def test_every_figure_page_of_the_built_book_says_only_what_its_verdicts_support(built_book):
    problems, pages, spans = book_problems(built_book)
    assert pages >= 25, f"only {pages} figure pages with a claims table"
    # the pages whose prose states where pdFTSP stands or how a trend goes
    marked = {"fig04_scale", "fig05_vendors", "fig06_capacity", "fig07_traces", "fig08_load",
              "fig09_deadlines", "fig13_runtime"}
    assert marked <= spans, f"pages whose prose lost its marks: {sorted(marked - spans)}"
    listing = "\n".join(f"{page}: {p}" for page, found in problems.items() for p in found)
    assert not problems, f"prose that its verdicts do not support:\n{listing}"


@pytest.mark.browser
def test_the_built_book_check_fails_on_an_edited_page(built_book, tmp_path):
    page = built_book / "notebooks" / "fig05_vendors.html"
    text = page.read_text()
    assert prose.check_page(text, page_verdicts(text, built_book)) == []
    # replace the first marked sentence's words by a bare direction, which no verdict's
    # words support, and then a sentence's verdict by another
    marked = re.search(r'(<span class="claim-says"[^>]*data-verdict=")([^"]+)(">)(.*?)'
                       r"(</span>)", text, flags=re.S)
    assert marked, "fig05_vendors.html has no marked sentence"
    edited = text[:marked.start(4)] + EDITED_TEXT + text[marked.end(4):]
    found = prose.check_page(edited, page_verdicts(text, built_book))
    assert found and any("below Titan and EFT" in p for p in found)
    other = v.CONTRADICTED if marked.group(2) != v.CONTRADICTED else v.INCONCLUSIVE
    relabelled = text[:marked.start(2)] + other + text[marked.end(2):]
    found = prose.check_page(relabelled, page_verdicts(text, built_book))
    assert any("the claims table says" in p or "lacks" in p for p in found)
