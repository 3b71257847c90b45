"""The sensitivity table: flips found, broken columns refused, prose from the table."""

from __future__ import annotations

import pytest

from lorasched.figures import sensitivity as sens
from lorasched.figures.verdicts import (
    CONSISTENT,
    CONTRADICTED,
    DEPENDS_ON,
    INCONCLUSIVE,
    MAGNITUDE_OFF,
    REPRODUCED,
)
from lorasched.model.errors import InputError


def _rows(*verdicts):
    return [{"figure": "Fig. 1", "claim": f"claim {i}", "setting": "", "verdict": v}
            for i, v in enumerate(verdicts)]


def test_a_flip_is_found_and_said():
    table = sens.verdict_table({sens.CHOICE: _rows(REPRODUCED, CONTRADICTED),
                                "x = 1": _rows(REPRODUCED, INCONCLUSIVE),
                                "x = 2": _rows(REPRODUCED, CONTRADICTED)})
    flipped = sens.flip_rows(table)
    assert flipped[["claim", "alternative", "verdict", "becomes"]].values.tolist() == [
        ["claim 1", "x = 1", CONTRADICTED, INCONCLUSIVE]]
    text = sens.findings(table, 3)
    assert "1 keep their verdict under all 2 alternatives" in text
    assert f"*{INCONCLUSIVE}* under x = 1" in text
    steady = sens.verdict_table({sens.CHOICE: _rows(REPRODUCED), "x = 1": _rows(REPRODUCED)})
    assert sens.findings(steady, 3).endswith("no verdict flips.")


def test_a_reversal_is_told_from_a_move_to_undecided():
    table = sens.verdict_table({sens.CHOICE: _rows(REPRODUCED, CONTRADICTED, INCONCLUSIVE),
                                "x = 1": _rows(CONTRADICTED, INCONCLUSIVE, REPRODUCED)})
    assert sens.reversals(table)["x = 1"].tolist() == [True, False, False]
    assert sens.flips(table)["x = 1"].tolist() == [True, True, True]
    text = sens.findings(table, 3)
    assert "Of the 3 flipped verdicts, 1 turns one decided verdict" in text
    assert "2 of the 3 claims see no such reversal" in text


def test_the_headline_says_what_flips_claim_by_claim():
    table = sens.verdict_table({sens.CHOICE: _rows(REPRODUCED, CONTRADICTED, INCONCLUSIVE),
                                "x = 1": _rows(CONTRADICTED, CONTRADICTED, REPRODUCED),
                                "x = 2": _rows(REPRODUCED, CONTRADICTED, REPRODUCED)})
    text = sens.what_flips(table, 5, "sensitivity_x")
    assert text.startswith("The [sensitivity page](sensitivity_x.ipynb) re-tests 3 claims on "
                           "5 seeds (1, 2, 3, 4 and 5), paired, under 2 other values")
    assert ("1 keeps its verdict under every one and 2 flip, 1 of them from one decided "
            "verdict") in text
    assert "the alternative that flips most: x = 1 (2 of 3)." in text
    assert (f"\n- Fig. 1, claim 0: *{REPRODUCED}*, becomes *{CONTRADICTED}* under x = 1 "
            "(a reversal).") in text
    assert (f"\n- Fig. 1, claim 2: *{INCONCLUSIVE}*, becomes *{REPRODUCED}* under x = 1, "
            "x = 2.") in text
    calm = sens.verdict_table({sens.CHOICE: _rows(INCONCLUSIVE), "x = 1": _rows(REPRODUCED)})
    assert "1 flips, none of them from one decided verdict" in sens.what_flips(calm, 3, "s")
    assert "claim 1" not in text
    steady = sens.verdict_table({sens.CHOICE: _rows(REPRODUCED), "x = 1": _rows(REPRODUCED)})
    assert sens.what_flips(steady, 1, "s").endswith(
        "on 1 seed (1), paired, under 1 other value of the numbers lorasched chose where the paper "
        "is silent: it keeps its verdict under every alternative.")


@pytest.mark.parametrize("column", [_rows(REPRODUCED), _rows(REPRODUCED, "fine", "x"),
                                    _rows(REPRODUCED, REPRODUCED, REPRODUCED),
                                    _rows(REPRODUCED, "not a verdict")])
def test_a_broken_column_is_refused(column):
    with pytest.raises(InputError):
        sens.verdict_table({sens.CHOICE: _rows(REPRODUCED, REPRODUCED), "x = 1": column})


def test_alternative_names():
    alt = sens.Alternative("operating cost", "x0.5", {"operating_cost_scale": 0.5},
                           kind=sens.CHOSEN)
    assert alt.label == "operating cost = x0.5" and alt.slug == "operating_cost_x0_5"


def test_the_alternatives_are_listed_with_their_kinds_and_sources():
    alts = [sens.Alternative("operating cost", "x0.5", source="a bracket", kind=sens.CHOSEN),
            sens.Alternative("cap", "8", {"capacity": 8}, kind=sens.SETTING)]
    table = sens.alternatives_table(alts)
    assert table.to_dict("records") == [
        {"number": "operating cost", "value": "x0.5",
         "kind": "a number lorasched chose where the paper is silent", "source": "a bracket"},
        {"number": "cap", "value": "8", "kind": "a setting other than the paper's",
         "source": ""}]


@pytest.mark.parametrize("kind", ["", "a choice", None])
def test_an_alternative_must_name_its_kind(kind):
    with pytest.raises(InputError, match="kind must be one of"):
        sens.Alternative("cap", "8", kind=kind)


def test_every_alternative_of_the_three_papers_names_its_kind():
    """Only a number the paper leaves open is lorasched's choice: Tiresias-L's first queue
    limit is; Allpass's cap (the paper's 30) and its DBF window (the paper's 30 min), TITAN's
    switch cost (the paper's Fig. 3) and its LUT's GPU are settings; one fixed trace is a
    reading of how the paper ran."""
    from lorasched.figures import summary

    kinds = {(system, a.label): a.kind for system in summary.SYSTEMS
             for a in summary.sensitivity_page(system).alternatives}
    assert set(kinds.values()) <= set(sens.KINDS)
    assert kinds["allpass", "Tiresias-L's first queue limit = 10 min"] == sens.CHOSEN
    assert kinds["allpass", "serverful cap (limited setup) = 8"] == sens.SETTING
    assert kinds["allpass", "DBF window T = 10 min"] == sens.SETTING
    assert kinds["allpass", "the jobs a seed draws = one fixed trace (seed 1's)"] == \
        sens.READING
    assert {k for (s, _), k in kinds.items() if s == "titan"} == {sens.SETTING}
    assert {k for (s, _), k in kinds.items() if s == "pdftsp"} == {sens.CHOSEN}


#: the reviewer's case: a limit lorasched chose reverses a claim, a contention setting
#: reverses another
LIMIT = sens.Alternative("first queue limit", "10 min", kind=sens.CHOSEN)
CAP = sens.Alternative("cap", "8", kind=sens.SETTING)
CHOSEN = {"first queue limit": "60 min (lorasched's)"}


def _reversed():
    return sens.verdict_table({
        sens.CHOICE: _rows(CONTRADICTED, REPRODUCED, MAGNITUDE_OFF, CONSISTENT, REPRODUCED),
        LIMIT.label: _rows(REPRODUCED, REPRODUCED, CONTRADICTED, REPRODUCED, INCONCLUSIVE),
        CAP.label: _rows(CONTRADICTED, CONTRADICTED, MAGNITUDE_OFF, CONSISTENT, REPRODUCED)})


def test_a_choice_that_turns_a_decided_verdict_into_another_makes_the_claim_depend():
    """A decided verdict turned into another decided one by a number lorasched chose: the
    claim depends on it. A move to or from an undecided verdict does not (claims 3 and 4),
    nor does a setting's reversal (claim 1, under the cap)."""
    got = sens.dependent(_reversed(), [LIMIT, CAP])
    assert got == {("Fig. 1", "claim 0", ""): (CONTRADICTED, [(LIMIT.label, REPRODUCED)],
                                               CONTRADICTED),
                   ("Fig. 1", "claim 2", ""): (MAGNITUDE_OFF, [(LIMIT.label, CONTRADICTED)],
                                               MAGNITUDE_OFF)}
    assert sens.moves(CONTRADICTED, REPRODUCED) and not sens.moves(CONSISTENT, REPRODUCED)
    assert not sens.moves(REPRODUCED, INCONCLUSIVE) and not sens.moves(REPRODUCED, REPRODUCED)


def test_a_setting_or_a_reading_never_makes_a_claim_depend():
    trace = sens.Alternative("the jobs a seed draws", "one fixed trace", kind=sens.READING)
    table = sens.verdict_table({sens.CHOICE: _rows(CONTRADICTED, REPRODUCED),
                                CAP.label: _rows(REPRODUCED, CONTRADICTED),
                                trace.label: _rows(REPRODUCED, MAGNITUDE_OFF)})
    assert sens.dependent(table, [CAP, trace]) == {}
    assert sens.depends_text(table, [CAP, trace]).startswith(
        "None of these alternatives is a number lorasched chose where the paper is silent, "
        "so no claim's verdict here depends on lorasched's choice")
    with pytest.raises(InputError, match="kind is unknown"):
        sens.dependent(table, [CAP])  # the trace's column: no alternative says its kind


def test_a_claim_that_depends_says_both_verdicts_with_the_alternative_s_label():
    clause = sens.depends_clause(CONTRADICTED, [(LIMIT.label, REPRODUCED)], [LIMIT, CAP],
                                 CHOSEN)
    assert clause == ("its verdict depends on lorasched's choice: contradicted at "
                      "lorasched's first queue limit, 60 min (lorasched's); reproduced at "
                      "first queue limit = 10 min")
    other = sens.Alternative("value spread", "2", kind=sens.CHOSEN)
    assert sens.depends_clause(CONTRADICTED, [(LIMIT.label, REPRODUCED), (other.label,
                                                                         MAGNITUDE_OFF)],
                               [LIMIT, other], CHOSEN) == (
        "its verdict depends on lorasched's choice: contradicted at lorasched's values of the "
        "first queue limit (60 min (lorasched's)) and the value spread; reproduced at first "
        "queue limit = 10 min; magnitude off at value spread = 2")
    text = sens.depends_text(_reversed(), [LIMIT, CAP], CHOSEN)
    assert text.startswith("For 2 claims another value of a number lorasched chose where "
                           "the paper is silent turns a decided verdict")
    assert f"*{DEPENDS_ON}*" in text
    assert "\n- Fig. 1, claim 2: its verdict depends on lorasched's choice: magnitude off " \
           "at lorasched's first queue limit, 60 min (lorasched's); contradicted at first " \
           "queue limit = 10 min." in text
    steady = sens.verdict_table({sens.CHOICE: _rows(REPRODUCED), LIMIT.label: _rows(
        INCONCLUSIVE), CAP.label: _rows(CONTRADICTED)})
    assert sens.depends_text(steady, [LIMIT, CAP]).startswith(
        "No claim's verdict depends on lorasched's choice: for none does another value of a "
        "number lorasched chose where the paper is silent turn a decided verdict")


def test_the_pages_prose_counts_the_kinds_and_names_what_depends():
    table = _reversed()
    text = sens.what_flips(table, 3, "s", [LIMIT, CAP], CHOSEN)
    assert "paired, under 2 alternatives (1 other value of a number lorasched chose where " \
           "the paper is silent, 1 setting other than the paper's): " in text
    assert "- Fig. 1, claim 0: its verdict depends on lorasched's choice: contradicted" in text
    page = sens.findings(table, 3, [LIMIT, CAP], CHOSEN)
    assert "under all 2 alternatives (1 other value" in page
    assert "For 2 claims another value" in page
    assert "depends on lorasched's choice" not in sens.findings(table, 3)  # no kinds given


def test_the_styled_table_names_its_verdict_columns_and_shades_each_flip():
    table = sens.verdict_table({sens.CHOICE: _rows(REPRODUCED, CONTRADICTED),
                                "x = 1": _rows(REPRODUCED, INCONCLUSIVE),
                                "x = 2": _rows(CONTRADICTED, INCONCLUSIVE)})
    shown = sens.styled_table(table)
    assert list(shown.data.columns) == ["figure", "claim", "setting",
                                        f"verdict: {sens.CHOICE}", "verdict: x = 1",
                                        "verdict: x = 2"]
    shown._compute()
    shaded = {(r, c) for (r, c), styles in shown.ctx.items()
              if ("background-color", "#fde2b8") in styles}
    assert shaded == {(1, 4), (0, 5), (1, 5)}  # the flipped cells, by row and column


@pytest.mark.parametrize("system", ["pdftsp", "titan"])
@pytest.mark.parametrize("size", ["small", "full"])
def test_the_alternatives_run_on_the_headlines_seeds(system, size):
    """lorasched's choice's column reads the figures' own cells: on as many seeds as the
    headline judges, so that the column gives the headline's verdicts (pdFTSP's cheap
    cells, TITAN's every policy)."""
    import importlib

    page = importlib.import_module(f"lorasched.figures.{system}.sensitivity").SENSITIVITY
    common = importlib.import_module(f"lorasched.figures.{system}.common")
    assert page.seeds(size) == common._SEEDS[size]
    for sweep in page.sweeps(size).values():
        assert len(sweep.seeds) == common._SEEDS[size]


def test_the_headline_s_verdicts_the_ledger_adds_are_what_the_alternatives_move():
    """The ledger's column of the headline's verdicts (every look taken) is no alternative's:
    the flips ignore it, the styled table shows it last. An alternative is compared with it
    (claim 3: consistent on the first look, reproduced on the second; the limit makes it
    contradicted), and the prose says which claims that depend the headline counts (claim
    2 it does not: blank)."""
    table = _reversed().assign(**{sens.HEADLINE: [CONTRADICTED, REPRODUCED, "", REPRODUCED,
                                                  REPRODUCED]})
    table.loc[3, LIMIT.label] = CONTRADICTED
    assert sens.verdict_columns(table) == [sens.CHOICE, LIMIT.label, CAP.label]
    shown = sens.styled_table(table).data
    assert list(shown.columns)[-1] == sens.HEADLINE_SHOWN  # not a column of verdicts only
    assert shown[sens.HEADLINE_SHOWN].tolist()[2] == sens.NOT_COUNTED
    assert not any(c.startswith("verdict") and sens.HEADLINE in c for c in shown.columns)
    got = sens.dependent(table, [LIMIT, CAP])
    assert got["Fig. 1", "claim 3", ""] == (REPRODUCED, [(LIMIT.label, CONTRADICTED)],
                                            CONSISTENT)
    text = sens.depends_text(table, [LIMIT, CAP], CHOSEN)
    assert "the headline counts 2 of them, each as *depends on lorasched's choice*" in text
    assert "contradicted at first queue limit = 10 min (a claim the headline does not " \
           "count)." in text
    one = table[table["claim"] == "claim 0"]
    assert "the headline counts it as *depends on lorasched's choice*, with both" in \
        sens.depends_text(one, [LIMIT, CAP])
    assert "the headline does not count it (" in sens.depends_text(
        one.assign(**{sens.HEADLINE: ""}), [LIMIT, CAP])
    assert "reproduced at lorasched's first queue limit, 60 min (lorasched's), consistent, " \
           "not decided on the alternatives' own seeds; contradicted at first queue limit " \
           "= 10 min." in text
