"""The two-look sequential design (lorasched.figures.sequential): which rows a second look
takes, what it leaves, and the design's stated error."""

from __future__ import annotations

import pandas as pd
import pytest

from lorasched.figures import sequential as sq
from lorasched.figures import verdicts as v
from lorasched.model.errors import InputError


def _table(rows):
    return pd.DataFrame([{"page": p, "claim": c, "setup": s, "verdict": verdict,
                          "ours": ours, "scope": scope}
                         for p, c, s, verdict, ours, scope in rows])


FIRST = _table([
    ("fig06", "faster", "limited", v.CONSISTENT, "1.2 (95 %: 0.9 to 1.6, 20 seeds)", v.PAPER),
    ("fig06", "faster", "unlimited", v.REPRODUCED, "1.1 (95 %: 1.0 to 1.2, 20 seeds)", v.PAPER),
    ("fig06", "wait", "limited", v.INCONCLUSIVE, "-1 (95 %: -3 to 2, 20 seeds)", v.PAPER),
    ("fig06", "reading", "limited", v.INCONCLUSIVE, "0 (95 %: -1 to 1, 20 seeds)", v.BEYOND),
    ("fig01", "short", "Kalos", v.CONSISTENT, "12 %", v.PAPER),
])
SECOND = _table([
    ("fig06", "faster", "limited", v.REPRODUCED, "1.2 (97.5 %: 1.1 to 1.3, 60 seeds)", v.PAPER),
    ("fig06", "faster", "unlimited", v.CONTRADICTED, "0.9 (97.5 %: 0.8 to 0.95, 60 seeds)",
     v.PAPER),
    ("fig06", "wait", "limited", v.INCONCLUSIVE, "-1 (97.5 %: -2 to 1, 60 seeds)", v.PAPER),
    ("fig06", "reading", "limited", v.CONTRADICTED, "-2 (97.5 %: -3 to -1, 60 seeds)",
     v.BEYOND),
])
KEY = ("page", "claim", "setup")


def test_only_the_papers_undecided_rows_take_the_second_look():
    got = sq.combine(FIRST, SECOND, KEY, where=FIRST["page"] == "fig06")
    assert list(got["look"]) == [2, 1, 2, 1, 1]
    # the undecided row of the paper's setting takes the second look's verdict and ours
    assert got.at[0, "verdict"] == v.REPRODUCED and "60 seeds" in got.at[0, "ours"]
    # a row decided at the first look keeps it, whatever a later look would say
    assert got.at[1, "verdict"] == v.REPRODUCED and "20 seeds" in got.at[1, "ours"]
    # still undecided after both looks: it stays so (no third look)
    assert got.at[2, "verdict"] == v.INCONCLUSIVE and got.at[2, "look"] == 2
    # beyond the paper, or on a page whose seeds cannot be added: the first look's
    assert got.at[3, "verdict"] == v.INCONCLUSIVE and got.at[4, "verdict"] == v.CONSISTENT
    assert list(got["first verdict"]) == list(FIRST["verdict"])
    done = sq.decided(got.rename(columns={"setup": "variant"}))
    assert list(done["decided"]) == [True, False]
    assert list(done["first look"]) == [v.CONSISTENT, v.INCONCLUSIVE]


def test_a_row_the_second_look_lacks_is_an_error_naming_it():
    with pytest.raises(InputError, match="0 rows for .*'wait'"):
        sq.combine(FIRST, SECOND.drop(index=2), KEY, where=FIRST["page"] == "fig06")
    with pytest.raises(InputError, match="key columns"):
        sq.combine(FIRST, SECOND.drop(columns="setup"), KEY)


def test_the_design_states_its_looks_levels_and_error():
    d = sq.Design(20, 60)
    assert d.level == pytest.approx(0.975) and d.error == pytest.approx(0.075)
    text = d.text()
    for words in ("first 20 seeds", "on 60 seeds", "40 more", "97.5 % instead of 95 %",
                  "5 % + 2.5 % = 7.5 %"):
        assert words in text
    for first, cap, level in ((1, 3, 0.975), (20, 20, 0.975), (20, 60, 0.9), (20, 60, 1.0)):
        with pytest.raises(InputError):
            sq.Design(first, cap, level)
