"""The readings the claims inventory declares, and the check that holds every row in the
paper's own setting to the reading its claim declares."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from lorasched.figures import inventory, readings, summary
from lorasched.figures.verdicts import (
    BEYOND,
    CONTRADICTED,
    DEPENDS,
    GAIN,
    JUDGE,
    NO_NUMBER,
    NOT_TESTABLE,
    PAPER,
    RATIO,
    REPRODUCED,
)
from lorasched.model.errors import InputError

SYSTEMS = ("pdftsp", "titan", "allpass")


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_claim_of_the_inventory_declares_a_reading(system):
    table = readings.declared(system)
    claims = [c for c, s in inventory.known_cites(system).items()
              if s.kind == inventory.CLAIM]
    assert set(claims) <= set(table)
    for ds in table.values():
        for d in ds:
            assert d.rule in readings.RULES and d.quantity
            if d.rule != readings.NONE:
                assert d.side in (1, -1) and math.isfinite(d.threshold)


def test_a_claim_with_two_readings_names_them_and_a_premise_is_declared_as_one():
    grows = readings.declared("pdftsp")["§5.2m (Titan grows)"]
    assert sorted(d.name for d in grows) == ["across the loads", "within a day"]
    titan = readings.declared("pdftsp")["§5.2g (Titan)"]
    assert [d.role for d in titan] == [readings.CLAIM, readings.PREMISE]
    assert titan[0].rule == readings.TREND and titan[1].scale == GAIN


def _row(**kw) -> dict:
    """A row answering Fig. 4's "K=5: pdFTSP over Titan" (§5.2b (Titan)), judged by its
    declared reading: a gain above 0 against the paper's +30.78 %, band ±25 %."""
    paper = 30.78
    row = {"figure": "Fig. 4", "claim": "K=5: pdFTSP over Titan", "scope": PAPER,
           "sentence": "§5.2b (Titan)", "verdict": CONTRADICTED, "rule": JUDGE,
           "scale": GAIN, "threshold": 0.0, "side": 1.0, "paper number": paper,
           "band low": paper * 0.75, "band high": paper * 1.25, "strict": False}
    return row | kw


def test_a_row_judged_by_its_declared_reading_passes():
    assert readings.problems("pdftsp", pd.DataFrame([_row()])) == []


@pytest.mark.parametrize("change", [{"scale": RATIO}, {"threshold": 1.0}, {"side": -1.0},
                                    {"paper number": 40.0},
                                    {"band low": 20.0, "band high": 40.0},
                                    {"rule": "each"}])
def test_a_row_judged_by_another_reading_is_a_problem(change):
    got = readings.problems("pdftsp", pd.DataFrame([_row(**change)]))
    assert len(got) == 1 and "does not declare" in got[0]


def test_rows_beyond_the_paper_are_not_held_to_the_declaration():
    assert readings.problems("pdftsp", pd.DataFrame([_row(scale=RATIO, scope=BEYOND)])) == []


def test_depends_on_the_reading_needs_two_declared_readings():
    one = _row(verdict=DEPENDS, rule="")
    assert "declares one" in readings.problems("pdftsp", pd.DataFrame([one]))[0]
    two = _row(verdict=DEPENDS, rule="", sentence="§5.2m (Titan grows)")
    assert readings.problems("pdftsp", pd.DataFrame([two])) == []


def test_a_compared_verdict_on_a_claim_with_nothing_to_compare_is_a_problem():
    fmtrace = _row(sentence="§5a", figure="Fig. 4", rule="", verdict=REPRODUCED)
    assert "nothing to compare" in readings.problems("titan", pd.DataFrame([fmtrace]))[0]
    for verdict in (NOT_TESTABLE, NO_NUMBER):
        assert readings.problems("titan", pd.DataFrame([fmtrace | {"verdict": verdict}])) \
            == []


def test_a_row_that_answers_no_declared_claim_is_a_problem():
    got = readings.problems("pdftsp", pd.DataFrame([_row(sentence="§9.9z")]))
    assert "no claim with a declared reading" in got[0]


@pytest.mark.parametrize("entry, message", [
    ({"rule": "guess", "side": "above"}, "rule"),
    ({"rule": "judge", "side": "up"}, "side"),
    ({"rule": "judge", "side": "above", "scale": "cubic"}, "scale"),
    ({"rule": "judge", "side": "above", "role": "hope"}, "role"),
])
def test_a_malformed_declaration_is_refused(entry, message):
    with pytest.raises(InputError, match=message):
        readings._declared("pdftsp", "5.2b", {"quantity": "q", **entry})


def test_the_inventory_table_shows_each_claims_declared_reading():
    rows = pd.DataFrame([_row() | {"system": "pdFTSP"}])
    table = summary.inventory_table(rows, "pdftsp")
    line = table[table["sentence"] == "§5.2b (Titan)"].iloc[0]
    assert "gain scale, above 0" in line["declared reading"]
    assert "paper 30.8" in line["declared reading"]
