"""Numbers for people (lorasched.figures.numbers)."""

from __future__ import annotations

import math

import pytest

from lorasched.figures import numbers as n
from lorasched.figures.verdicts import Estimate


@pytest.mark.parametrize(("x", "kwargs", "want"), [
    (2572.09, {}, "2,572"), (0.346, {}, "0.346"), (0.346000, {}, "0.346"),
    (12.345, {}, "12.3"), (1.0, {}, "1"), (0.0, {}, "0"), (1234567.0, {}, "1,234,567"),
    (0.0000123, {}, "0.0000123"), (-0.0012, {}, "-0.0012"), (3.4, {"sign": True}, "+3.4"),
    (math.nan, {}, n.MISSING), (None, {}, n.MISSING), ("x", {}, n.MISSING),
])
def test_num(x, kwargs, want):
    assert n.num(x, **kwargs) == want


def test_pct_usd_and_durations():
    assert n.pct(3.44) == "+3.4 %" and n.pct(-38.2) == "-38 %" and n.pct(5, sign=False) == "5.0 %"
    assert n.usd(236.69) == "$236.69" and n.usd(344326.27) == "$344,326"
    assert n.usd(-5) == "-$5.00" and n.usd(12, cents=False) == "$12"
    assert n.usd(0.0062841, digits=4) == "$0.006284" and n.usd(-0.0062841, digits=2) == "-$0.0063"
    assert n.minutes(41.44) == "41.4 min" and n.seconds(1573.2) == "1,573 s"
    assert n.pct(math.inf) == n.MISSING and n.usd(math.nan) == n.MISSING


def test_interval():
    est = Estimate(84.0, 74.06, 93.94, 3)
    assert n.interval(est, n.signed_pct) == "+84 % (95 %: +74 % to +94 %, 3 seeds)"
    assert n.interval(Estimate.point(2.5)) == "2.5"
    assert n.interval(Estimate(2.5, 2.5, 2.5, 4)) == "2.5 (4 seeds, all equal)"


def test_quote_formats_and_records_only_inside_quoting():
    assert n.quote("a gain, %", 11.79, n.signed_pct) == "+12 %"  # no block open: not kept
    with n.quoting() as rows:
        assert n.quote("Titan's growth, %", 11.789, n.signed_pct) == "+12 %"
        assert n.quote("nodes", 10_000) == "10,000"
        n.quote("missing", math.nan)  # a missing number is printed, never recorded
        with n.quoting() as inner:  # an inner block takes its own rows
            n.quote("inner", 1.5)
    assert rows == [("Titan's growth, %", 11.789, "+12 %"), ("nodes", 10000.0, "10,000")]
    assert inner == [("inner", 1.5, "1.5")]
    assert n.quote("after", 2.0) == "2"


def test_quote_interval_names_the_mean_and_bounds():
    with n.quoting() as rows:
        text = n.quote_interval("change, %", Estimate(9.5, -44.4, 63.5, 2), n.signed_pct)
        point = n.quote_interval("fixed", Estimate.point(3.0))
    assert text == "+9.5 % (95 %: -44 % to +64 %, 2 seeds)" and point == "3"
    assert [r[0] for r in rows] == ["change, %, mean over seeds", "change, %, 95 % low",
                                    "change, %, 95 % high", "fixed"]
    assert [r[1] for r in rows] == [9.5, -44.4, 63.5, 3.0]


def test_one_run_prints_as_its_number_and_repeated_seeds_as_all_equal():
    assert n.interval(Estimate.point(-38.0), n.pct) == "-38 %"
    assert n.interval(Estimate(-38.0, -38.0, -38.0, 10), n.pct) == "-38 % (10 seeds, all equal)"
