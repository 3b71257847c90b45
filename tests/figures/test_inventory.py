"""The claims inventory: the papers' claim sentences, and the checks that hold each claims
table to one row per claim."""

from __future__ import annotations

import pandas as pd
import pytest

from lorasched.figures import inventory, summary
from lorasched.figures.verdicts import BEYOND, PAPER, WORKED
from lorasched.model.errors import InputError

SYSTEMS = ("pdftsp", "titan", "allpass")


def _rows(system: str) -> pd.DataFrame:
    """A claims table that answers every part of ``system``'s inventory once."""
    rows = [{"figure": s.figure, "claim": f"claim {c}", "verdict": "reproduced",
             "sentence": c, "scope": WORKED if s.kind == inventory.WORKED else PAPER}
            for c, s in inventory.known_cites(system).items()]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("system", SYSTEMS)
def test_each_inventory_loads_with_unique_ids_and_sections(system):
    ss = inventory.sentences(system)
    assert ss and len({s.id for s in ss}) == len(ss)
    for s in ss:
        assert s.quote and s.figure and s.section and s.section[0].isalnum()
        for c in s.cites():
            assert inventory.parse(c)[0] == s.id
        if s.repeats:  # a repeat points to a claim the inventory holds
            assert inventory.cite(*inventory.parse("§" + s.repeats)) in \
                inventory.known_cites(system)


def test_cite_and_parse_round_trip_and_refuse_what_is_not_a_cite():
    assert inventory.cite("5.2b", "EFT") == "§5.2b (EFT)"
    assert inventory.parse("§5.2b (EFT)") == ("5.2b", "EFT")
    assert inventory.parse("§5.2a") == ("5.2a", "")
    with pytest.raises(InputError, match="does not cite"):
        inventory.parse("5.2b EFT")


def test_a_cite_outside_the_inventory_is_refused_with_the_sentences_parts():
    assert inventory.check_cite("pdftsp", "§5.2b (EFT)") == "§5.2b (EFT)"
    assert inventory.check_cite("pdftsp", "") == ""
    with pytest.raises(InputError, match=r"parts: \['§5.2b \(Titan\)'"):
        inventory.check_cite("pdftsp", "§5.2b (Oracle)")
    with pytest.raises(InputError, match="not a claim"):
        inventory.check_cite("pdftsp", "§9.9z")


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_table_answering_each_part_once_has_no_problem(system):
    assert inventory.problems(system, _rows(system)) == []


def test_two_rows_on_one_sentence_with_different_verdicts_fail():
    rows = _rows("allpass")
    cap = rows[rows["sentence"] == "§5.2f"].iloc[0].to_dict()
    # the cap claim judged twice on the same data, once per figure: Fig. 7 and Fig. 10
    rows = pd.concat([rows, pd.DataFrame([cap | {"figure": "Fig. 10",
                                                 "verdict": "consistent, not decided"}])])
    out = inventory.problems("allpass", rows)
    assert len(out) == 1
    assert out[0].startswith("§5.2f answered by 2 rows with different verdicts")


def test_a_sentence_of_the_inventory_with_no_row_fails():
    rows = _rows("titan")
    rows = rows[rows["sentence"] != "§5d (JCT, Tiresias)"]
    out = inventory.problems("titan", rows)
    assert out == [o for o in out if "§5d (JCT, Tiresias)" in o and "has no row" in o]
    assert len(out) == 1


def test_a_row_that_answers_no_sentence_fails_and_beyond_rows_are_free():
    rows = _rows("pdftsp")
    extra = {"figure": "Fig. 5", "claim": "pdFTSP best for every vendor count",
             "verdict": "contradicted", "sentence": "", "scope": PAPER}
    out = inventory.problems("pdftsp", pd.concat([rows, pd.DataFrame([extra])]))
    assert out == ["Fig. 5: 'pdFTSP best for every vendor count' cites no sentence of the "
                   "paper"]
    # the same row beyond the paper (a reading, lorasched's setting) is not counted
    assert inventory.problems("pdftsp", pd.concat(
        [rows, pd.DataFrame([extra | {"scope": BEYOND}])])) == []


def test_a_worked_example_counted_as_a_claim_fails():
    rows = _rows("titan")
    rows.loc[rows["sentence"] == "§4.2b", "scope"] = PAPER
    out = inventory.problems("titan", rows)
    assert len(out) == 1 and "cites a worked sentence, §4.2b" in out[0]


def test_the_summary_counts_the_inventory_beside_its_rows():
    """The summary's inventory counts and table, on claims tables that answer each part
    once (the built book's own tables are held to their inventories where the book's
    test recomputes them from its published data)."""
    table = pd.concat([_rows(s).assign(system=n) for s, n in summary.SYSTEMS.items()])
    counts = summary.inventory_counts(table)
    assert (counts["problems"] == 0).all()
    assert (counts["claims stated"] == counts["rows (paper's setting)"]).all()
    assert (counts["rows a fit decides"] == 0).all()
    # a claim a fit decides still answers its part of the inventory, counted apart
    fitted = table.copy()
    fitted.loc[fitted["sentence"] == "§A.2a (price)", "scope"] = "calibration check"
    again = summary.inventory_counts(fitted)
    assert again.loc["Allpass", "problems"] == 0 and again.loc["Allpass", "rows a fit decides"] == 1
    assert again.loc["Allpass", "rows (paper's setting)"] == \
        counts.loc["Allpass", "rows (paper's setting)"] - 1
    assert counts.loc["TITAN", "worked rows"] == counts.loc["TITAN", "worked checks"] > 0
    assert counts.loc["Allpass", "of them repeats"] > 0
    inv = summary.inventory_table(table, "allpass")
    repeat = inv[inv["sentence"] == "§5.5d"].iloc[0]
    # a repeat reads the verdict of the row that answers both
    assert repeat["row"] == "answered by §5.2f" and repeat["verdict"] == "reproduced"
    modal = inv[inv["sentence"] == "§5.4e"].iloc[0]
    assert modal["row"] == "answered by §A.2a (Modal)" and modal["verdict"] == "reproduced"
    assert inv["quote"].iloc[0].startswith("Fine-tuning workloads")
    broken = table[table["sentence"] != "§5.2b (EFT)"]
    assert summary.inventory_counts(broken).loc["pdFTSP", "problems"] == 1
