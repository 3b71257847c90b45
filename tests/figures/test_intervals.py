"""What an interval is made of (lorasched.figures.intervals): the tied values' mass and the
exact sign test of the values off it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lorasched.figures import intervals as iv


def test_values_are_tied_where_a_quarter_of_them_and_three_give_one_number():
    assert iv.mass([0.0] * 19 + [-0.5]) == 0.0
    assert iv.mass([0.0] * 5 + list(range(1, 16))) == 0.0  # 5 of 20: a quarter
    assert iv.mass([0.0] * 4 + list(range(1, 17))) is None  # 4 of 20: fewer
    assert iv.mass([2.0, 2.0, 2.0, 1.0, 5.0]) == 2.0  # 3 of 5
    assert iv.mass([2.0, 2.0, 1.0, 5.0]) is None  # 2: too few to be a mass
    assert iv.mass([1.0, 1.0, 1.0, 2.0, 2.0, 2.0]) == 1.0  # a tie of ties: the smaller
    assert iv.mass([3.0] * 6) is None  # all equal: a point, not a mass and others
    assert iv.mass([0.0, 0.0, 0.0, np.nan, 1.0]) == 0.0  # NaNs left out
    assert iv.mass(np.random.default_rng(1).normal(size=60)) is None  # continuous


def test_the_sign_test_counts_the_values_off_the_mass_only():
    assert iv.sign_p([0.0] * 56 + [-0.5] * 4, 0.0) == pytest.approx(2 / 16)
    assert iv.sign_p([0.0] * 14 + [-1.0] * 6, 0.0) == pytest.approx(2 / 64)
    assert iv.sign_p([0.0] * 19 + [2.0], 0.0) == 1.0
    assert iv.sign_p([0.0] * 5, 0.0) == 1.0  # none off it
    # 7 above and 3 below: 2 P(B <= 3) for B ~ binomial(10, 1/2)
    want = 2 * sum(math.comb(10, i) for i in range(4)) / 2 ** 10
    assert iv.sign_p([1.0] * 7 + [-1.0] * 3 + [np.nan], 0.0) == pytest.approx(want)
