"""The verdict rule (lorasched.figures.verdicts): intervals over seeds, each verdict from a
hand-worked case, the worst-of rule, and the refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lorasched.figures import verdicts as v
from lorasched.model.errors import InputError


def test_estimate_is_the_mean_with_a_student_t_interval():
    est = v.estimate([84.0, 80.0, 88.0])
    # mean 84, sd 4, t(2) = 4.303: half-width 4.303 * 4 / sqrt(3)
    assert est.mean == 84.0 and est.n == 3
    assert est.high - est.mean == pytest.approx(4.303 * 4 / math.sqrt(3))
    assert est.low == pytest.approx(2 * est.mean - est.high)
    assert v.estimate([5.0]) == v.Estimate(5.0, 5.0, 5.0, 1)
    assert v.estimate([2.0, 2.0]) == v.Estimate(2.0, 2.0, 2.0, 2)  # no spread
    assert v.estimate([1.0, np.nan, 3.0]).n == 2  # NaN dropped
    with pytest.raises(InputError, match="finite"):
        v.estimate([np.nan])


def test_t_quantiles_never_narrow_the_interval():
    assert v.t975(1) == 12.706 and v.t975(40) == 1.96
    assert v.t975(22) == v.t975(20)  # rounded down to a tabulated df: wider
    with pytest.raises(InputError):
        v.t975(0)


# a sign that holds with a magnitude that does not: TITAN speeding up 84 % of jobs where the
# paper says 19 %, or -72 % where it says -38 %, is the same direction, not a reproduction
@pytest.mark.parametrize(("values", "paper", "kwargs", "want"), [
    ([84, 80, 88], 19, {}, v.SAME_DIRECTION),
    ([-72, -70, -74], -38, {}, v.SAME_DIRECTION),
    ([18, 22, 20], 19, {}, v.REPRODUCED),  # the paper's number inside the interval
    ([23.5, 23.6, 23.7], 19, {}, v.REPRODUCED),  # within 25 % of it
    ([25, 25.1, 25.2], 19, {}, v.SAME_DIRECTION),  # 32 % off, interval excludes it
    ([-5, -6, -4], 19, {}, v.CONTRADICTED),
    ([-5, 10, 20], 19, {}, v.INCONCLUSIVE),  # the interval holds zero
    # a direction only: "no baseline finishes more jobs within ten minutes" (ours minus
    # the best baseline's share, in points; spread near ten points)
    ([0.8, -9.0, 11.0], None, {"side": 1}, v.INCONCLUSIVE),
    ([3.0, 2.5, 3.5], None, {"side": 1}, v.REPRODUCED),
    ([3.0, 2.5, 3.5], None, {"side": -1}, v.CONTRADICTED),
    # a bound: "never reaches the cap" with peak workers 19 under a cap of 30
    ([19, 19, 19], None, {"threshold": 30, "side": -1}, v.REPRODUCED),
    ([30, 30, 30], None, {"threshold": 30, "side": -1}, v.INCONCLUSIVE),
])
def test_each_verdict(values, paper, kwargs, want):
    assert v.judge(v.estimate(values), paper, **kwargs) == want


def test_the_band_is_relative_to_the_paper():
    assert v.judge(v.Estimate.point(1.24), 1.0) == v.REPRODUCED
    assert v.judge(v.Estimate.point(1.26), 1.0) == v.SAME_DIRECTION
    assert v.judge(v.Estimate.point(1.26), 1.0, band=0.3) == v.REPRODUCED


def test_judge_refuses_a_claim_without_a_side():
    with pytest.raises(InputError, match="side"):
        v.judge(v.Estimate.point(3.0))
    with pytest.raises(InputError, match="side"):
        v.judge(v.Estimate.point(3.0), 0.0)
    with pytest.raises(InputError, match="side"):
        v.judge(v.Estimate.point(3.0), None, side=2)
    assert v.judge(v.Estimate(math.nan, math.nan, math.nan), 3.0) == v.INCONCLUSIVE


def test_a_claim_at_every_setting_takes_its_worst_verdict():
    assert v.judge_all([v.REPRODUCED, v.REPRODUCED]) == v.REPRODUCED
    assert v.judge_all([v.REPRODUCED, v.SAME_DIRECTION]) == v.SAME_DIRECTION
    assert v.judge_all([v.SAME_DIRECTION, v.INCONCLUSIVE]) == v.INCONCLUSIVE
    assert v.judge_all([v.INCONCLUSIVE, v.CONTRADICTED, v.REPRODUCED]) == v.CONTRADICTED
    with pytest.raises(InputError):
        v.judge_all([])
    with pytest.raises(InputError):
        v.judge_all([v.NOT_RUN])


def test_an_inconclusive_row_says_its_interval():
    text = v.inconclusive_why(v.estimate([0.8, -9.0, 11.0]))
    assert "3 seeds" in text and "holds 0" in text and "-23.9 to 25.8" in text


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=30),
       st.floats(-1e6, 1e6).filter(lambda p: abs(p) > 1e-3))
def test_the_verdict_is_always_one_of_the_four_and_consistent(values, paper):
    est = v.estimate(values)
    got = v.judge(est, paper)
    assert got in v.COMPARED
    assert est.low <= est.mean <= est.high
    if got == v.CONTRADICTED:
        assert est.mean * paper < 0 and not est.holds(0.0)
    if got == v.INCONCLUSIVE:
        assert est.holds(0.0)
    if est.holds(paper) and not est.holds(0.0):
        assert got == v.REPRODUCED


def test_the_rule_as_stated_names_every_verdict():
    for name in v.VERDICTS:
        assert f"*{name}*" in v.RULE
    assert "25 %" in v.RULE and "95 %" in v.RULE
