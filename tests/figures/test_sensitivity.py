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
    alt = sens.Alternative("operating cost", "x0.5", {"operating_cost_scale": 0.5})
    assert alt.label == "operating cost = x0.5" and alt.slug == "operating_cost_x0_5"


def test_the_alternatives_are_listed_with_their_sources():
    alts = [sens.Alternative("operating cost", "x0.5", source="a bracket"),
            sens.Alternative("co-location gain", "1.0", options={"gain": 1.0})]
    table = sens.alternatives_table(alts)
    assert table.to_dict("records") == [
        {"number": "operating cost", "value": "x0.5", "source": "a bracket"},
        {"number": "co-location gain", "value": "1.0", "source": ""}]


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
