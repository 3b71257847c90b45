"""The sensitivity table: flips found, broken columns refused, prose from the table."""

from __future__ import annotations

import pytest

from lorasched.figures import sensitivity as sens
from lorasched.figures.verdicts import CONTRADICTED, INCONCLUSIVE, REPRODUCED
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


@pytest.mark.parametrize("column", [_rows(REPRODUCED), _rows(REPRODUCED, "fine", "x"),
                                    _rows(REPRODUCED, REPRODUCED, REPRODUCED),
                                    _rows(REPRODUCED, "not a verdict")])
def test_a_broken_column_is_refused(column):
    with pytest.raises(InputError):
        sens.verdict_table({sens.CHOICE: _rows(REPRODUCED, REPRODUCED), "x = 1": column})


def test_alternative_names():
    alt = sens.Alternative("operating cost", "x0.5", {"operating_cost_scale": 0.5})
    assert alt.label == "operating cost = x0.5" and alt.slug == "operating_cost_x0_5"
