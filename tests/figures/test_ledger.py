"""The ledger and its recount (lorasched.figures.ledger, lorasched.figures.record): every
row's record judges again to its verdict, the published files count again to the same
intervals, verdicts and counts, and a file changed by hand is caught."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from lorasched.cli import main
from lorasched.figures import ledger, prose, record, summary
from lorasched.figures import sensitivity as sens
from lorasched.figures import verdicts as v
from lorasched.figures.base import Figure


class _Page(Figure):
    """A page with one claim of each kind the record knows."""

    system, key, page, number = "titan", "table3", "titan_table3", "Table 3"

    def claim_rows(self, data):
        ratio = v.estimate([1.8, 2.1, 2.4, 2.0], v.RATIO)
        gain = v.estimate([12.0, -3.0, 8.0], v.GAIN)
        share = v.share_of(31, 50)
        bound = [0.8, 0.9, 0.95]
        return [
            {"claim": "faster", "variant": "FM-1", "paper": "2.1x", "ours": "2.05x",
             "estimate": ratio, "verdict": v.judge(ratio, 2.1, threshold=1.0)},
            {"claim": "a gain", "variant": "", "paper": "yes", "ours": "+5 %",
             "estimate": gain, "verdict": v.judge(gain, None, side=1)},
            {"claim": "most short", "variant": "", "paper": "> 50 %", "ours": "62 %",
             "estimate": share, "verdict": v.judge(share, None, threshold=50.0, side=1)},
            {"claim": "below one", "variant": "", "paper": "≤ 1", "ours": "0.95",
             "instances": bound, "verdict": v.judge_each(bound, 1.0, side=-1)},
            {"claim": "not run", "variant": "", "paper": "", "ours": "",
             "verdict": v.NOT_RUN, "scope": v.BEYOND},
        ]


def _ledger() -> pd.DataFrame:
    table = _Page().claims(None, readings=True).rename(columns={"variant": "setting"})
    table.insert(0, "system", "TITAN")
    table["page"] = "titan_table3"
    table["id"] = table["claim"]
    for c in ["counterfactual", "judged there", "ours there", "effect", "cause"]:
        table[c] = ""
    table.loc[table["claim"] == "a gain", ["counterfactual", "effect", "cause"]] = [
        "a run", "none", "not explained"]
    return table


def test_a_row_s_record_is_what_its_verdict_was_judged_on():
    table = _ledger().set_index("claim")
    assert table.loc["faster", "rule"] == v.JUDGE and table.loc["faster", "paper number"] == 2.1
    assert (table.loc["faster", "band low"], table.loc["faster", "band high"]) == \
        pytest.approx(v.band_of(2.1))
    assert table.loc["faster", "method"] == v.STUDENT_T and table.loc["faster", "n"] == 4
    assert json.loads(table.loc["faster", "values"]) == [1.8, 2.1, 2.4, 2.0]
    assert table.loc["most short", "method"] == v.WILSON
    assert table.loc["below one", "rule"] == v.EACH
    assert table.loc["not run", "rule"] == "" and table.loc["not run", "scale"] == ""
    assert set(table["look"]) == {1}


def test_the_published_ledger_counts_again_to_itself(tmp_path):
    ledger.write(_ledger(), tmp_path, size="small")
    found = ledger.recount(tmp_path)
    assert found.ok, str(found)
    assert (found.records, found.intervals, found.verdicts) == (5, 3, 4)
    assert main(["recount", str(tmp_path)]) == 0


def test_a_value_changed_by_hand_is_caught(tmp_path, capsys):
    """Each kind of tampering fails the recount: a per-seed value, a verdict, a band, a
    count of the summary."""
    ledger.write(_ledger(), tmp_path, size="small")
    path = tmp_path / ledger.LEDGER
    good = pd.read_csv(path, dtype=str, keep_default_na=False)

    def tampered(column, claim, value):
        bad = good.copy()
        bad.loc[bad["claim"] == claim, column] = value
        bad.to_csv(path, index=False)
        return ledger.recount(tmp_path).differences

    assert any("high" in d for d in tampered("values", "faster", "[1.8, 2.1, 2.4, 3.0]"))
    assert any("verdict" in d for d in tampered("verdict", "a gain", v.REPRODUCED))
    assert any("verdict" in d for d in tampered("band high", "faster", "2.2"))
    assert any("verdict" in d for d in tampered("values", "below one", "[0.8, 1.2]"))
    good.to_csv(path, index=False)
    counts = pd.read_csv(tmp_path / ledger.COUNTS, index_col=0)
    counts.iloc[0, 0] += 1
    counts.to_csv(tmp_path / ledger.COUNTS)
    found = ledger.recount(tmp_path)
    assert [d for d in found.differences if d.startswith("count")]
    assert main(["recount", str(tmp_path)]) == 1
    assert "difference" in capsys.readouterr().out


def test_the_counts_are_the_summary_s_from_the_ledger():
    led = _ledger()
    got = ledger.counts(led)
    want = summary.counts(led[led["scope"] == v.PAPER], ledger.causes(led))
    pd.testing.assert_frame_equal(got, want)
    assert got.loc["TITAN", summary.NOT_EXPLAINED] == 1  # the one cause not found


def test_a_cause_test_that_matches_no_claim_stops_the_build(monkeypatch):
    """A causes table whose rows lose their setting (a page's variant column dropped) would
    vanish from the ledger's join: the build refuses it, naming the row."""
    table = _ledger().drop(columns=["counterfactual", "judged there", "ours there",
                                    "effect", "cause", "id"])
    tested = _ledger()[_ledger()["cause"] != ""][summary.CAUSE_COLUMNS].copy()
    monkeypatch.setattr(summary, "claims", lambda *a, **k: table)
    monkeypatch.setattr(summary, "causes", lambda *a, **k: tested)
    monkeypatch.setattr(ledger, "sensitivity_tables", lambda *a, **k: {})
    assert len(ledger.build("small")) == len(table)  # every cause test found its claim
    tested["setting"] = "FM-1"  # "a gain" has no setting
    with pytest.raises(RuntimeError, match="TITAN/Table 3/a gain/FM-1"):
        ledger.build("small")


def test_a_page_s_claims_come_back_from_the_ledger_as_the_page_computes_them(tmp_path):
    ledger.write(_ledger(), tmp_path, size="small")
    got = ledger.page_claims(ledger.read(tmp_path), _Page())
    want = _Page().claims(None)
    assert got.to_csv(index=False) == want.to_csv(index=False)


def test_a_record_without_its_rule_is_counted_as_composed(tmp_path):
    led = _ledger()
    led.loc[led["claim"] == "faster", "rule"] = ""
    ledger.write(led, tmp_path, size="small")
    found = ledger.recount(tmp_path)
    assert found.ok and found.verdicts == 3 and found.composed == 1 and found.not_compared == 1
    assert record.recountable(led.iloc[0].to_dict()) == "interval"


def test_a_row_made_before_the_recording_still_finds_its_reading():
    """A row kept from an earlier call (Allpass's second look, made once per data) finds
    its reading in a later recording: the judgements are replayed with it."""
    est = v.estimate([1.0, 2.0, 3.0], v.RATIO)
    with v.recording() as first:
        v.judge(est, 2.0)
    with v.recording() as later:
        v.replay(first)
    assert record.of(est, v.CONSISTENT, later)["rule"] == v.JUDGE
    assert record.of(est, v.CONSISTENT, [])["rule"] == ""  # without it, no reading


def test_a_page_without_claims_gets_an_empty_table_in_its_columns(tmp_path):
    class _Quiet(_Page):
        page, key = "calibration", "calibration"

        def claim_rows(self, data):
            return []

    ledger.write(_ledger(), tmp_path, size="small")
    got = ledger.page_claims(ledger.read(tmp_path), _Quiet())
    assert got.empty and list(got.columns) == list(_Quiet().claims(None).columns)


def test_a_row_judged_by_a_reading_its_claim_does_not_declare_stops_the_build(monkeypatch):
    """The ledger holds every row in the paper's own setting to the reading its claim
    declares in the inventory: a row judged on another scale stops the build."""
    row = {"system": "pdFTSP", "figure": "Fig. 4", "claim": "K=5: pdFTSP over Titan",
           "setting": "Lemma 2", "scope": v.PAPER, "sentence": "§5.2b (Titan)",
           "verdict": v.CONTRADICTED, "rule": v.JUDGE, "scale": v.GAIN, "threshold": 0.0,
           "side": 1.0, "paper number": 30.78, "band low": 23.085, "band high": 38.475,
           "strict": False, "page": "fig04"}
    tested = pd.DataFrame(columns=summary.CAUSE_COLUMNS)
    monkeypatch.setattr(summary, "causes", lambda *a, **k: tested)
    monkeypatch.setattr(summary, "claims", lambda *a, **k: pd.DataFrame([row]))
    monkeypatch.setattr(ledger, "sensitivity_tables", lambda *a, **k: {})
    assert len(ledger.build("small")) == 1
    monkeypatch.setattr(summary, "claims",
                        lambda *a, **k: pd.DataFrame([row | {"scale": v.RATIO}]))
    with pytest.raises(RuntimeError, match="does not declare"):
        ledger.build("small")


def test_a_tied_row_is_recounted_with_the_sign_test_it_was_made_with():
    """A row of tied seeds publishes its method, and the recount makes the same interval
    again by it; a row that claims Student's t for them is caught."""
    with v.recording() as log:
        est = v.estimate([0.0] * 56 + [-0.5] * 4)
        verdict = v.judge(est, 5.0)
    row = record.of(est, verdict, log) | {"verdict": verdict}
    assert row["method"] == v.SIGN_TEST and row["high"] == 0.0
    assert verdict == v.INCONCLUSIVE and record.recount(row) == []
    assert record.recountable(row) == "interval and verdict"
    as_t = row | {"method": v.STUDENT_T, "high": -0.0015080097040996304,
                  "verdict": v.CONTRADICTED}  # what Student's t alone gave
    found = record.recount(as_t)
    assert "method 't' published, 't+sign' recounted" in found
    assert any(d.startswith("high") for d in found) and any("verdict" in d for d in found)


# ------------------------------------------------------------------ survival
#: a number lorasched chose where the paper is silent, and a setting other than the paper's
LIMIT = sens.Alternative("first queue limit", "10 min", kind=sens.CHOSEN)
CAP = sens.Alternative("cap", "8", kind=sens.SETTING)


class _Sensitivity(sens.SensitivityPage):
    alternatives = (LIMIT, CAP)

    def choices(self):
        return {"first queue limit": "60 min (lorasched's)"}


def _table(limit: dict, cap: dict) -> dict:
    """TITAN's sensitivity table over :func:`_ledger`'s claims: lorasched's choice is each
    record's verdict; the limit and the cap change the verdicts of the claims they name."""
    rows = _ledger()
    choice = [{"figure": "Table 3", "claim": r["claim"], "setting": r["setting"],
               "verdict": r["verdict"]} for _, r in rows.iterrows()]
    return {ledger.sensitivity_name("titan"): sens.verdict_table({
        sens.CHOICE: choice,
        LIMIT.label: [r | {"verdict": limit.get(r["claim"], r["verdict"])} for r in choice],
        CAP.label: [r | {"verdict": cap.get(r["claim"], r["verdict"])} for r in choice]})}


@pytest.fixture
def survived(monkeypatch):
    """:func:`_ledger` after survival: the limit reverses "faster" and "below one" (the
    latter only to an undecided verdict) and the row not run; the cap reverses "below one"."""
    monkeypatch.setattr(summary, "sensitivity_page", lambda system: _Sensitivity())
    tables = _table(limit={"faster": v.CONTRADICTED, "below one": v.INCONCLUSIVE},
                    cap={"below one": v.CONTRADICTED})
    return ledger.survive(_ledger(), tables)


def test_a_headline_verdict_a_choice_of_lorasched_s_reverses_depends_on_it(survived):
    """The reviewer's case: under another value of the limit lorasched chose, a reproduced
    row is contradicted: the record reads *depends on lorasched's choice*, keeps its verdict
    under lorasched's choice and says both in its why; the counts count it so."""
    got = survived.set_index("claim")
    assert got.loc["faster", "verdict"] == v.DEPENDS_ON
    assert got.loc["faster", ledger.AT_CHOICE] == v.REPRODUCED
    assert got.loc["faster", "why"] == (
        "Its verdict depends on lorasched's choice: reproduced at lorasched's first queue "
        "limit, 60 min (lorasched's); contradicted at first queue limit = 10 min.")
    assert got.loc["faster", ledger.CLAUSE] == ("its verdict depends on lorasched's choice: "
                                                 "reproduced at lorasched's first queue limit, "
                                                 "60 min (lorasched's); contradicted at first "
                                                 "queue limit = 10 min")
    counts = ledger.counts(survived)
    assert counts.loc["TITAN", v.DEPENDS_ON] == 1 and counts.loc["TITAN", v.REPRODUCED] == 1
    assert counts.loc["TITAN", "claims"] == 4


def test_a_setting_or_an_undecided_verdict_never_moves_a_headline_record(survived):
    """"below one" is contradicted under the cap (a setting other than the paper's) and
    inconclusive under the limit (undecided): it keeps its verdict, as does every record
    that no alternative moves."""
    got = survived.set_index("claim")
    assert got.loc["below one", "verdict"] == v.REPRODUCED
    assert got.loc["below one", ledger.AT_CHOICE] == ""
    unmoved = survived[survived["claim"] != "faster"]
    pd.testing.assert_frame_equal(unmoved.drop(columns=[ledger.AT_CHOICE, ledger.CLAUSE]),
                                  _ledger()[_ledger()["claim"] != "faster"])


def test_a_verdict_a_second_look_decided_is_compared_with_the_alternatives(monkeypatch):
    """The reviewer's case: undecided on the first look's seeds under lorasched's limit,
    contradicted on the second look's; the paper's direction holds (magnitude off) under the
    other limit on the first look's seeds. The headline's verdict is the one compared: the
    record depends on the limit, and says what lorasched's choice gives on the alternatives'
    own seeds."""
    monkeypatch.setattr(summary, "sensitivity_page", lambda system: _Sensitivity())
    led = _ledger()
    led.loc[led["claim"] == "a gain", "verdict"] = v.CONTRADICTED  # the second look's
    tables = _table(limit={"a gain": v.MAGNITUDE_OFF, "most short": v.REPRODUCED}, cap={})
    got = ledger.survive(led, tables).set_index("claim")
    assert got.loc["a gain", "verdict"] == v.DEPENDS_ON
    assert got.loc["a gain", ledger.AT_CHOICE] == v.CONTRADICTED
    assert got.loc["a gain", "why"].startswith(
        "Its verdict depends on lorasched's choice: contradicted at lorasched's first queue "
        "limit, 60 min (lorasched's), inconclusive on the alternatives' own seeds; "
        "magnitude off at first queue limit = 10 min. ")
    # undecided under lorasched's choice at every look: it decides nothing to reverse
    assert got.loc["most short", "verdict"] == v.INCONCLUSIVE


def test_a_verdict_that_depends_is_recounted_at_lorasched_s_choice(survived, tmp_path):
    """The recount judges the record again by its reading and finds its verdict under
    lorasched's choice, not a difference; a verdict under lorasched's choice changed by hand
    is caught."""
    ledger.write(survived, tmp_path, size="small")
    found = ledger.recount(tmp_path)
    assert found.ok, str(found)
    assert (found.depends, found.verdicts, found.composed) == (1, 4, 0)
    assert "1 composed by the ledger from lorasched's choice" in str(found)
    path = tmp_path / ledger.LEDGER
    bad = pd.read_csv(path, dtype=str, keep_default_na=False)
    bad.loc[bad["claim"] == "faster", ledger.AT_CHOICE] = v.CONTRADICTED
    bad.to_csv(path, index=False)
    assert any("verdict 'contradicted' published, 'reproduced' recounted" in d
               for d in ledger.recount(tmp_path).differences)
    bad.loc[bad["claim"] == "faster", ledger.AT_CHOICE] = v.INCONCLUSIVE
    bad.to_csv(path, index=False)
    assert any("no decided verdict" in d for d in ledger.recount(tmp_path).differences)


def test_the_page_and_its_prose_give_the_ledger_s_verdict(survived, monkeypatch):
    """The page renders the record (its claims table reads *depends on lorasched's
    choice*), and a sentence its prose says of the claim with the verdict under
    lorasched's choice speaks for the record's verdict, with the clause that says both."""
    monkeypatch.setattr(ledger, "load", lambda *a, **k: survived)
    claims = ledger.page(_Page(), None, "small")
    assert claims.set_index("claim").loc["faster", "verdict"] == v.DEPENDS_ON
    said = prose.says(v.REPRODUCED, "TITAN is 2.05x faster, as the paper reports", "faster",
                      "FM-1")
    assert f'data-verdict="{v.DEPENDS_ON}"' in said
    assert ("as the paper reports; its verdict depends on lorasched's choice: reproduced at "
            "lorasched's first queue limit") in said
    keys = zip(claims["claim"], claims["variant"], strict=True)
    verdicts = dict(zip(keys, claims["verdict"], strict=True))
    assert prose.check_page(said, verdicts) == []
    # the page's section "Why ours differs" lists it with that verdict and both verdicts
    assert ("- **faster (FM-1)**: *depends on lorasched's choice*. Its verdict depends on "
            "lorasched's choice: reproduced at lorasched's first queue limit") in \
        _Page().why(None)
    # a page run on seeds of its own renders no ledger: its prose says the verdict it judged
    ledger.page(_Page(), None, "small", seeds=3)
    assert f'data-verdict="{v.REPRODUCED}"' in prose.says(
        v.REPRODUCED, "It is faster, as the paper reports", "faster", "FM-1")
    assert "faster (FM-1)" not in _Page().why(None)


def test_the_published_sensitivity_table_gives_the_headline_s_verdicts(survived):
    """Beside the alternatives' verdicts, the verdict the headline judged under lorasched's
    choice (of a claim that depends, its verdict at that choice), blank for a claim the
    headline does not count."""
    tables = ledger.headlined(_table(limit={"faster": v.CONTRADICTED}, cap={}), survived)
    got = tables["titan"].set_index("claim")[sens.HEADLINE]
    assert got.to_dict() == {"faster": v.REPRODUCED, "a gain": v.INCONCLUSIVE,
                             "most short": v.INCONCLUSIVE, "below one": v.REPRODUCED,
                             "not run": ""}


def test_the_build_applies_survival_once_on_the_tables_it_publishes(monkeypatch):
    """:func:`ledger.build` judges the claims, then makes each record a choice of
    lorasched's reverses depend on it: the ledger every page renders carries the verdict."""
    table = _ledger().drop(columns=["counterfactual", "judged there", "ours there",
                                    "effect", "cause", "id"])
    monkeypatch.setattr(summary, "claims", lambda *a, **k: table)
    monkeypatch.setattr(summary, "causes", lambda *a, **k: _ledger()[
        _ledger()["cause"] != ""][summary.CAUSE_COLUMNS])
    monkeypatch.setattr(summary, "sensitivity_page", lambda system: _Sensitivity())
    tables = _table(limit={"faster": v.CONTRADICTED}, cap={})
    monkeypatch.setattr(ledger, "sensitivity_tables", lambda *a, **k: tables)
    built = ledger.build("small").set_index("claim")
    assert built.loc["faster", "verdict"] == v.DEPENDS_ON
    assert ledger.build("small", tables={}).set_index("claim").loc["faster", "verdict"] == \
        v.REPRODUCED
