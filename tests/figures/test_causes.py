"""Causes tested: a counterfactual's effect on a row that is not reproduced, classified by
the share of the distance to the paper's number (or, for a direction, to the threshold)
that it closes."""

from __future__ import annotations

import pytest

from lorasched.figures import causes
from lorasched.figures.verdicts import (
    CONTRADICTED,
    INCONCLUSIVE,
    MAGNITUDE_OFF,
    RATIO,
    REPRODUCED,
    estimate,
)


def _row(values, verdict, **claim):
    return {"estimate": estimate(values, RATIO), "verdict": verdict, **claim}


def test_a_number_claims_effect_is_the_share_of_the_log_distance_it_closes():
    before = _row([40.0, 45.0], MAGNITUDE_OFF, paper_value=0.4)
    # 42 min against 0.4: a hundredfold; 4 min: tenfold, half the log distance closed
    what, closed = causes.effect(before, _row([4.0, 4.0], MAGNITUDE_OFF))
    assert what == causes.PART_WAY and closed == pytest.approx(0.5, abs=0.02)
    assert causes.effect(before, _row([0.4, 0.41], REPRODUCED)) == (causes.INTO_BAND, 1.0)
    assert causes.effect(before, _row([41.0, 44.0], MAGNITUDE_OFF))[0] == causes.NONE
    what, closed = causes.effect(before, _row([400.0, 410.0], MAGNITUDE_OFF))
    assert what == causes.AWAY and closed < 0


def test_a_direction_claims_effect_measures_the_wrong_sides_distance_only():
    # "Allpass below every baseline": a ratio claimed under 1, measured at 2.6
    before = _row([2.5, 2.7], CONTRADICTED, threshold=1.0, side=-1)
    what, closed = causes.effect(before, _row([1.14, 1.15], CONTRADICTED))
    assert what == causes.PART_WAY and 0.8 < closed < 0.9
    # its centre crosses to the claimed side, the interval still holding the threshold
    assert causes.effect(before, _row([0.5, 1.3], INCONCLUSIVE))[0] == causes.CROSSED
    assert causes.effect(before, _row([0.5, 0.6], REPRODUCED))[0] == causes.DIRECTION
    # a centre already on the claimed side: nothing to close, its spread is the matter
    wide = _row([0.5, 1.3], INCONCLUSIVE, threshold=1.0, side=-1)
    assert causes.effect(wide, _row([0.6, 1.2], INCONCLUSIVE)) == (causes.NONE, 0.0)


def test_a_row_without_a_number_says_how_its_verdict_moved():
    before = {"verdict": INCONCLUSIVE}
    assert causes.effect(before, {"verdict": INCONCLUSIVE})[0] == causes.NONE
    assert causes.effect(before, {"verdict": CONTRADICTED})[0] == \
        "inconclusive to contradicted"


def test_a_centre_moved_past_the_papers_number_is_said_so():
    # TITAN's makespan: -1.4 % against the paper's -12 %, -22 % re-allocating jobs
    before = {"estimate": estimate([-1.0, -1.8], "gain"), "verdict": INCONCLUSIVE,
              "paper_value": -12.0}
    after = {"estimate": estimate([-21.0, -23.0], "gain"), "verdict": MAGNITUDE_OFF}
    assert causes.effect(before, after)[0] == causes.PAST


def test_a_centre_moved_past_the_papers_number_and_across_zero_flipped_its_sign():
    # a saving of 13 % against the paper's 8.5 %, -8.6 % under the counterfactual: past
    # the paper's number, and now ours says the opposite (Allpass costs more)
    before = {"estimate": estimate([12.0, 14.0], "saving"), "verdict": MAGNITUDE_OFF,
              "paper_value": 8.5}
    after = {"estimate": estimate([-8.0, -9.2], "saving"), "verdict": CONTRADICTED}
    assert causes.effect(before, after)[0] == causes.FLIPPED
    assert causes.status(MAGNITUDE_OFF, causes.FLIPPED) == causes.NOT_FOUND
    # the same move stopping at +3 %: past the paper's number, on its side of zero
    after = {"estimate": estimate([2.5, 3.5], "saving"), "verdict": MAGNITUDE_OFF}
    assert causes.effect(before, after)[0] == causes.PAST
    # a ratio flips across 1, not 0
    before = {"estimate": estimate([3.0, 3.2], RATIO), "verdict": MAGNITUDE_OFF,
              "paper_value": 1.9}
    after = {"estimate": estimate([0.8, 0.9], RATIO), "verdict": CONTRADICTED}
    assert causes.effect(before, after)[0] == causes.FLIPPED


def test_a_counterfactual_fitted_to_the_rows_number_is_circular_and_named_so():
    fitted = causes.Intervention("4.7 min per demotion", "charged per demotion",
                                 fitted_to=("demotion overhead",))
    other = causes.Intervention("oracle", "no queue", changes_algorithm=True)
    before = _row([40.0, 40.0], MAGNITUDE_OFF, paper_value=0.4) | {
        "claim": "demotion overhead per job", "ours": "40 min"}
    into = _row([0.4, 0.41], REPRODUCED) | {"ours": "0.4 min"}
    out = causes.line(before, fitted, into)
    assert out["effect"].startswith(causes.CIRCULAR_EFFECT)
    assert causes.status(MAGNITUDE_OFF, out["effect"]) == causes.CIRCULAR
    # on a row whose number it was not fitted to, it is an ordinary counterfactual
    elsewhere = causes.line(before | {"claim": "queueing delay"}, fitted, into)
    assert causes.status(MAGNITUDE_OFF, elsewhere["effect"]) == causes.EXPLAINED
    # beside a fair counterfactual that finds something, the fair one concludes
    both = causes.joined([out, causes.line(before, other, _row([4.0, 4.0], MAGNITUDE_OFF)
                                           | {"ours": "4 min"})])
    assert causes.status(MAGNITUDE_OFF, both["effect"]) == causes.PARTLY
    assert both["counterfactual"] == \
        f"4.7 min per demotion{causes.SEPARATOR}oracle{causes.NOT_THE_PAPERS}"


def test_a_causes_line_says_the_counterfactual_or_that_none_was_run():
    # 40 min against 0.4: a hundredfold; 4 min: tenfold, half the log distance
    before = _row([40.0, 40.0], MAGNITUDE_OFF, paper_value=0.4) | {"claim": "queue",
                                                                  "ours": "40 min"}
    assert causes.line(before) == {"claim": "queue", "variant": "", "verdict": MAGNITUDE_OFF,
                                   "ours": "40 min", "counterfactual": causes.NONE_RUN,
                                   "judged there": "", "ours there": "", "effect": ""}
    after = _row([4.0, 4.0], MAGNITUDE_OFF) | {"ours": "4 min"}
    out = causes.line(before, "queueing removed", after)
    assert out["counterfactual"] == "queueing removed" and out["ours there"] == "4 min"
    assert out["effect"] == "part-way, 50 % of the distance"


def test_a_rows_status_says_whether_its_counterfactual_found_the_cause():
    assert causes.status(CONTRADICTED, causes.INTO_BAND) == causes.EXPLAINED
    # the strict rule: an overshoot acts, and then some; it explains in part only
    assert causes.status(MAGNITUDE_OFF, f"{causes.PAST}, 80 % of the distance") \
        == causes.PARTLY
    assert causes.status(CONTRADICTED, f"{causes.PART_WAY}, 40 % of the distance") \
        == causes.PARTLY
    assert causes.status(INCONCLUSIVE, causes.CROSSED) == causes.PARTLY
    # no run, no effect, or a move away: a disagreement is not explained ...
    for effect in ("", causes.NONE, causes.AWAY, causes.FLIPPED):
        assert causes.status(CONTRADICTED, effect) == causes.NOT_FOUND
        assert causes.status(MAGNITUDE_OFF, effect) == causes.NOT_FOUND
    # ... and a row its seeds leave undecided is undecided, its cause their spread
    assert causes.status(INCONCLUSIVE, causes.NONE) == causes.UNDECIDED


def test_a_row_with_two_mechanisms_shows_both_runs_and_concludes_the_best():
    before = _row([40.0, 40.0], MAGNITUDE_OFF, paper_value=0.4) | {"claim": "queue",
                                                                  "ours": "40 min"}
    lines = [causes.line(before, "lengths", _row([40.0, 40.0], MAGNITUDE_OFF) | {"ours": "a"}),
             causes.line(before, "waits", _row([4.0, 4.0], MAGNITUDE_OFF) | {"ours": "b"})]
    out = causes.joined(lines)
    assert out["counterfactual"] == "lengths; waits" and out["ours there"] == "a; b"
    assert out["effect"] == f"{causes.NONE}; {causes.PART_WAY}, 50 % of the distance"
    assert causes.status(MAGNITUDE_OFF, out["effect"]) == causes.PARTLY
    assert causes.status(MAGNITUDE_OFF, lines[0]["effect"]) == causes.NOT_FOUND
    assert causes.joined(lines[:1]) == lines[0]


def test_a_counterfactual_in_an_unfair_comparison_is_shown_and_never_counted():
    # pdFTSP's constants tuned on data against baselines as the paper ran them: into the
    # band; the same constants against baselines tuned alike: part-way
    tuned_alone = causes.Intervention("prices lowered", "calibrated", changes_algorithm=True,
                                      unfair="its constants tuned, the baselines not")
    alike = causes.Intervention("prices lowered, baselines tuned", "calibrated, tuned alike",
                                changes_algorithm=True)
    before = _row([40.0, 40.0], MAGNITUDE_OFF, paper_value=0.4) | {"claim": "gain",
                                                                  "ours": "40"}
    unfair = causes.line(before, tuned_alone, _row([0.4, 0.41], REPRODUCED) | {"ours": "0.4"})
    assert unfair["effect"] == (f"{causes.UNFAIR_EFFECT} (its constants tuned, the baselines "
                                f"not): {causes.INTO_BAND}")
    assert causes.status(MAGNITUDE_OFF, unfair["effect"]) == causes.NOT_FOUND
    assert causes.uncounted(unfair["effect"]) == causes.INTO_BAND
    fair = causes.line(before, alike, _row([4.0, 4.0], MAGNITUDE_OFF) | {"ours": "4"})
    both = causes.joined([unfair, fair])
    # the fair comparison concludes, the unfair one is what it would have found
    assert causes.status(MAGNITUDE_OFF, both["effect"]) == causes.PARTLY
    assert causes.status(MAGNITUDE_OFF, causes.uncounted(both["effect"])) == causes.EXPLAINED
    assert causes.uncounted(fair["effect"]) == ""
    # the fair one finding nothing leaves the row not explained, whatever the unfair found
    none = causes.line(before, alike, _row([40.0, 41.0], MAGNITUDE_OFF) | {"ours": "40"})
    assert causes.status(MAGNITUDE_OFF, causes.joined([unfair, none])["effect"]) == \
        causes.NOT_FOUND
    assert causes.status(INCONCLUSIVE, unfair["effect"]) == causes.UNDECIDED
