"""The three papers' summary (lorasched.figures.summary): common columns, counts that add
up, links to each row's why, and prose whose numbers are the counts'."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from lorasched.figures import styled, summary
from lorasched.figures import verdicts as v
from lorasched.figures.base import WHY_ANCHOR
from lorasched.figures.tables import FOLD_AFTER


def _system(rows, variant="variant"):
    return pd.DataFrame([{"figure": f, "claim": c, variant: s, "paper": "+1 %", "ours": "+2 %",
                          "per seed": "1, 3", "verdict": verdict, "why": why,
                          "scope": v.BEYOND if s == "calibrated" or verdict == v.NOT_RUN
                          else v.PAPER, "sentence": "", "page": page}
                         for f, c, s, verdict, why, page in rows])


P = _system([("Fig. 5", "rise", "Lemma 2", v.REPRODUCED, "", "fig05_vendors"),
             ("Fig. 5", "rise", "calibrated", v.MAGNITUDE_OFF, "eq. (14) prices out 4 %",
              "fig05_vendors"),
             ("Fig. 8", "gain", "Lemma 2", v.NOT_RUN, v.REASONS[v.NOT_RUN], "fig08_load")])
T = _system([("Table 3", "faster", "FM-1", v.CONTRADICTED, v.NOT_EXPLAINED, "titan_table3"),
             ("Table 3", "faster", "", v.INCONCLUSIVE, "interval holds 0", "titan_table3")],
            variant="workload")


def test_tidy_joins_each_system_s_variant_columns_into_a_setting():
    got = summary.tidy("titan", T)
    assert list(got.columns) == summary.COLUMNS
    assert list(got["setting"]) == ["FM-1", ""] and set(got["system"]) == {"TITAN"}
    with pytest.raises(KeyError, match="why"):
        summary.tidy("pdftsp", P.drop(columns="why"))


def test_counts_add_up_by_system_and_count_the_unexplained():
    table = pd.concat([summary.tidy("pdftsp", P), summary.tidy("titan", T)])
    c = summary.counts(table)
    assert list(c.index) == ["pdFTSP", "TITAN", "all"]
    assert c.loc["pdFTSP", "claims"] == 3 and c.loc["TITAN", "claims"] == 2
    assert c.loc["all", v.NOT_EXPLAINED] == 1 and c.loc["pdFTSP", v.NOT_EXPLAINED] == 0
    verdict_columns = [col for col in c.columns if col in v.VERDICTS]
    assert (c[verdict_columns].sum(axis=1) == c["claims"]).all()
    assert verdict_columns == [x for x in v.VERDICTS if x in verdict_columns]  # rule order


def test_linked_rows_point_at_their_page_s_why_section():
    out = summary.linked(summary.tidy("pdftsp", P))
    assert "page" not in out.columns and "scope" not in out.columns
    assert out["figure"].iloc[0] == "[Fig. 5](fig05_vendors.ipynb)"
    assert out["why"].iloc[0] == ""  # reproduced: no why
    assert out["why"].iloc[1] == ("[eq. (14) prices out 4 %]"
                                  f"(fig05_vendors.ipynb#{WHY_ANCHOR})")


def _cells(table: pd.DataFrame, column: str) -> list[str]:
    """The HTML of ``column``'s cells as :func:`~lorasched.figures.styled` shows
    ``table``."""
    page = styled(table).to_html()
    col = list(table.columns).index(column)
    return [c.strip() for c in re.findall(rf'<td[^>]*class="data row\d+ col{col}"[^>]*>'
                                          r"(.*?)</td>", page, re.S)]


def test_a_summary_why_shows_as_one_link_to_its_page_s_why_section():
    """The why and figure cells of the summary's tables, as the page shows them: HTML
    links (not their tags escaped into text), each why whole (not folded into a teaser
    and the full text again), a long one as well as a short one."""
    long = ("Admission prices exclude the <small> deadline-critical jobs & the cheapest "
            "long-running ones [a reading], so the load never reaches the paper's band. The "
            "rest is on the page.")
    table = summary.tidy("pdftsp", P)
    table.loc[1, "why"] = long
    out = summary.linked(table)
    why, figure = _cells(out, "why"), _cells(out, "figure")
    short = ("Admission prices exclude the &lt;small&gt; deadline-critical jobs &amp; the "
             "cheapest long-running ones [a reading], …")
    assert why[1] == f'<a href="fig05_vendors.html#{WHY_ANCHOR}">{short}</a>'
    assert len(summary.short_why(long)) > FOLD_AFTER  # it would fold, were it not one link
    assert why[2] == (f'<a href="fig08_load.html#{WHY_ANCHOR}">'
                      f"{summary.short_why(v.REASONS[v.NOT_RUN])}</a>")
    assert why[0] == ""
    assert figure == ['<a href="fig05_vendors.html">Fig. 5</a>',
                      '<a href="fig05_vendors.html">Fig. 5</a>',
                      '<a href="fig08_load.html">Fig. 8</a>']
    # a row with no page: its words, escaped, no link
    bare = summary.linked(table.assign(page=["", "", ""]))
    assert "<a " not in "".join(_cells(bare, "why")) and short in _cells(bare, "why")[1]
    assert _cells(bare, "figure") == ["Fig. 5", "Fig. 5", "Fig. 8"]


def test_findings_count_the_papers_claims_apart_from_what_lies_beyond():
    table = pd.concat([summary.tidy("pdftsp", P), summary.tidy("titan", T)])
    text = summary.findings(table)
    # the paper's own claims: Fig. 5 Lemma 2 and the two TITAN rows
    assert text.startswith("**The papers' own claims, in their own settings, each counted "
                           "once:** 3. 3 have a number or a direction to compare: "
                           "1 reproduced, 1 contradicted, 1 inconclusive.")
    assert "pdFTSP: 1 of 1 compared claims reproduced." in text
    assert "TITAN: 0 of 2 compared claims reproduced (1 contradicted, 1 inconclusive)" in text
    assert "**Beyond the papers**" in text and ": 2 rows, 1 magnitude off, 1 not run by " \
        "the paper. They are not counted above." in text
    assert ('Of all 4 rows that are not reproduced, 1 has nothing to compare and says why; '
            'of the other 3, 1 says "not explained"') in text
    explained = pd.concat([summary.tidy("pdftsp", P)])
    assert "every one carries a reason" in summary.findings(explained)
    assert len(summary.headline_rows(table)) + len(summary.beyond_rows(table)) == len(table)
    # a worked example (TITAN's Table 2) is counted apart from both
    worked = T.iloc[:1].assign(scope=v.WORKED, verdict=v.REPRODUCED, figure="Table 2")
    both = pd.concat([table, summary.tidy("titan", worked)])
    text = summary.findings(both)
    assert "**Worked examples**" in text and ": 1 row, 1 reproduced. They are not counted " \
        "above either." in text
    # a claim whose number lorasched fitted is judged, and counted apart from the paper's
    fit = T.iloc[:1].assign(scope=v.CALIBRATION, verdict=v.REPRODUCED, claim="price")
    fitted = pd.concat([table, summary.tidy("titan", fit)])
    text = summary.findings(fitted)
    assert text.startswith("**The papers' own claims, in their own settings, each counted "
                           "once:** 3.")
    assert "**Claims a fit decides**" in text and "1 calibration check, or that depend " \
        "on such a fit, 0 not independent): 1 row, 1 reproduced." in text
    assert len(summary.calibration_rows(fitted)) == 1
    assert text.startswith("**The papers' own claims, in their own settings, each counted "
                           "once:** 3.")
    assert len(summary.worked_rows(both)) == 1


def test_a_parts_headline_comes_from_its_rows():
    table = pd.concat([summary.tidy("pdftsp", P), summary.tidy("titan", T)])
    text = summary.headline(table, "titan")
    # the abbreviations it prints are spelled out first (FM-1: a foundation model's)
    assert text.startswith("Abbreviations below: FM (foundation model). Of TITAN's 2 claims "
                           "that this build compares in the paper's own setting (each "
                           "counted once), 0 reproduce; 1 contradicted, 1 inconclusive.")
    assert "Table 3, faster (FM-1), is contradicted: paper +1 %, ours +2 %." in text
    assert "Measured reason: not explained" in text
    assert summary.headline(table, "allpass").startswith("None of Allpass's own claims")


def test_a_parts_headline_counts_and_names_what_depends_on_lorasched_s_choice():
    """A row whose verdict a number lorasched chose decides: counted as such, apart from
    the contradicted ones, and named with both its verdicts (its why's first sentence)."""
    why = ("Its verdict depends on lorasched's choice: contradicted at lorasched's limit, 60 "
           "min; reproduced at limit = 10 min. TL-P never preempts within the hour.")
    rows = _system([("Fig. 6", "TL-P finishes more", "limited", v.DEPENDS_ON, why,
                     "allpass_fig06"),
                    ("Fig. 6", "SJF-P finishes fewer", "limited", v.CONTRADICTED, "waits",
                     "allpass_fig06")], variant="setup")
    table = summary.tidy("allpass", rows)
    text = summary.headline(table, "allpass")
    assert "0 reproduce; 1 contradicted, 1 depends on lorasched's choice." in text
    assert ("Fig. 6, TL-P finishes more (limited): its verdict depends on lorasched's "
            "choice: contradicted at lorasched's limit, 60 min; reproduced at limit = 10 "
            "min.") in text
    assert "SJF-P finishes fewer (limited), is contradicted" in text
    assert "TL-P finishes more (limited), is contradicted" not in text
    c = summary.counts(table)
    assert c.loc["Allpass", v.DEPENDS_ON] == 1 and c.loc["Allpass", v.CONTRADICTED] == 1
    assert "1 depends on lorasched's choice" in summary.findings(table)


def test_the_summary_shows_a_short_why_and_links_to_the_rest():
    long = ("With 1 vendor: pdFTSP admits 41.5 of 228 tasks ($3.53 of welfare per admitted "
            "task), EFT 70.5 ($3.18). Then more.")
    assert summary.short_why(long) == ("With 1 vendor: pdFTSP admits 41.5 of 228 tasks "
                                       "($3.53 of welfare per admitted …")
    assert summary.short_why("eq. (14) prices out 4 %") == "eq. (14) prices out 4 %"
    assert summary.short_why("Short reason.") == "Short reason"


def test_the_rule_is_the_verdicts_module_s():
    assert summary.rule() == v.RULE


def _causes(rows):
    from lorasched.figures import causes as c
    return pd.DataFrame([{"system": s, "figure": "Fig. 1", "claim": claim, "verdict": verdict,
                          "ours": "", "counterfactual": run or c.NONE_RUN,
                          "judged there": "", "ours there": "", "effect": effect,
                          "cause": c.status(verdict, effect)}
                         for s, claim, verdict, run, effect in rows])


def test_the_causes_counts_and_the_unexplained_come_from_the_causes_tables():
    from lorasched.figures import causes as c
    causes = _causes([("pdFTSP", "a", v.CONTRADICTED, "prices lowered", c.INTO_BAND),
                      ("pdFTSP", "b", v.MAGNITUDE_OFF, "prices lowered", c.NONE),
                      ("TITAN", "faster", v.CONTRADICTED, None, ""),
                      ("TITAN", "c", v.INCONCLUSIVE, None, ""),
                      ("Allpass", "d", v.MAGNITUDE_OFF, "4.7 min",
                       f"{c.CIRCULAR_EFFECT}: {c.INTO_BAND}")])
    got = summary.cause_counts(causes)
    assert list(got.index) == ["pdFTSP", "TITAN", "Allpass", "all"]
    assert got.loc["pdFTSP"].to_dict() == {
        "rows not reproduced": 2, "counterfactual run": 2, c.EXPLAINED: 1, c.PARTLY: 0,
        c.NOT_FOUND: 1, c.UNDECIDED: 0, c.CIRCULAR: 0}
    # a counterfactual fitted to the row's number explains nothing: counted apart
    assert got.loc["Allpass", c.CIRCULAR] == 1 and got.loc["Allpass", c.EXPLAINED] == 0
    assert got.loc["TITAN", "counterfactual run"] == 0 and got.loc["TITAN", c.UNDECIDED] == 1
    # the claims counts take their "not explained" from the causes, not from the whys:
    # TITAN's row whose why says so and pdFTSP's whose counterfactual moved nothing
    table = pd.concat([summary.tidy("pdftsp", P), summary.tidy("titan", T)])
    assert summary.counts(table, causes).loc["pdFTSP", v.NOT_EXPLAINED] == 1
    assert summary.counts(table).loc["pdFTSP", v.NOT_EXPLAINED] == 0
    allpass = pd.DataFrame([{"system": "Allpass", "verdict": v.MAGNITUDE_OFF, "why": "",
                             "claim": "d"}])
    assert summary.counts(allpass, causes).loc["Allpass", v.NOT_EXPLAINED] == 1
    text = summary.causes_findings(causes)
    assert "pdFTSP: of 2 headline rows compared and not reproduced, 2 have a " \
           "counterfactual run; 1 explained, 1 not explained." in text
    assert "TITAN: of 2 headline rows compared and not reproduced, 0 have a counterfactual " \
           "run; 1 not explained, 1 undecided." in text


def _looked():
    """An Allpass-like table after a second look: a row it reproduced, one it found off,
    one it left undecided, one decided at the first look."""
    a = _system([("Fig. 6", "faster", "limited", v.REPRODUCED, "", "allpass_fig06"),
                 ("Fig. 8", "queue", "limited", v.MAGNITUDE_OFF, "queueing", "allpass_fig08"),
                 ("Fig. 9", "saves", "limited", v.CONSISTENT, "spread", "allpass_fig09"),
                 ("Fig. 9", "saves", "unlimited", v.REPRODUCED, "", "allpass_fig09")],
                variant="setup")
    a["look"] = [2, 2, 2, 1]
    a["first verdict"] = [v.CONSISTENT, v.INCONCLUSIVE, v.CONSISTENT, v.REPRODUCED]
    return pd.concat([summary.tidy("allpass", a), summary.tidy("pdftsp", P)],
                     ignore_index=True)


def test_the_second_look_is_counted_from_its_rows():
    table = _looked()
    assert "look" not in summary.linked(table).columns  # a summary table shows one verdict
    got = summary.second_look(table, "allpass")
    assert list(got["first look"]) == [v.CONSISTENT, v.INCONCLUSIVE, v.CONSISTENT]
    assert list(got["second look"]) == [v.REPRODUCED, v.MAGNITUDE_OFF, v.CONSISTENT]
    assert summary.second_look(table, "pdftsp").empty  # no design: no second look
    text = summary.looks_findings(table, "allpass", "full")
    assert ("The first look left 3 of the 4 headline rows undecided; the 40 added seeds "
            "decided 2 of them (1 reproduced and 1 magnitude off), so 1 of the 4 remains "
            "undecided.") in text
    assert "on 60 seeds" in text


def test_a_causes_row_takes_its_second_look_and_leaves_when_reproduced(monkeypatch):
    from lorasched.figures import causes as c
    table = _looked()
    rows = [("Fig. 6", "faster", "limited", v.CONSISTENT), ("Fig. 8", "queue", "limited",
                                                           v.INCONCLUSIVE),
            ("Fig. 9", "saves", "limited", v.CONSISTENT)]
    found = pd.DataFrame([{"figure": f, "claim": claim, "variant": s, "verdict": verdict,
                           "ours": "20 seeds", "counterfactual": c.NONE_RUN,
                           "judged there": "", "ours there": "", "effect": ""}
                          for f, claim, s, verdict in rows])
    monkeypatch.setitem(summary._CAUSES, "allpass", lambda size, **kw: found.copy())
    got = summary.causes("small", systems=("allpass",), table=table)
    # the reproduced row leaves; the one found off is now not explained, not undecided
    assert list(got["claim"]) == ["queue", "saves"]
    assert list(got["verdict"]) == [v.MAGNITUDE_OFF, v.CONSISTENT]
    assert list(got["cause"]) == [c.NOT_FOUND, c.UNDECIDED]
    before = summary.causes("small", systems=("allpass",))  # without the table: first look
    assert list(before["cause"]) == [c.UNDECIDED] * 3
