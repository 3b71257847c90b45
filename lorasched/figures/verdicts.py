"""The verdict on a paper's claim beside ours, one rule for the three systems (:func:`judge` on
an :class:`Estimate`): inconclusive, contradicted, reproduced or same direction, or why
nothing compares. The rule: :doc:`/reference/figures`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..model.errors import InputError
from .numbers import num

#: the relative band around the paper's number within which ours is *reproduced*
BAND = 0.25
#: the level of every interval
LEVEL = 0.95

REPRODUCED = "reproduced"
SAME_DIRECTION = "same direction"
CONTRADICTED = "contradicted"
INCONCLUSIVE = "inconclusive"
#: the paper states the claim without a number or a direction we can test
NO_NUMBER = "no number in the paper"
#: the paper did not run this (an oracle, a reading or a setting of lorasched's)
NOT_RUN = "not run by the paper"
#: the paper shows this as a plot only, with no claim in its text
PLOT_ONLY = "plot only"

COMPARED = (REPRODUCED, SAME_DIRECTION, CONTRADICTED, INCONCLUSIVE)
NOT_COMPARED = (NO_NUMBER, NOT_RUN, PLOT_ONLY)
VERDICTS = COMPARED + NOT_COMPARED
#: the colour of each verdict in the book's tables (a not-compared verdict is grey)
COLOURS = {REPRODUCED: "#2a9d8f", SAME_DIRECTION: "#b08900", CONTRADICTED: "#e76f51",
           INCONCLUSIVE: "#5e60ce"}
GREY = "#6c757d"
#: what a row that is not reproduced says when its page measures no reason
NOT_EXPLAINED = "not explained"
#: the reason a not-compared verdict gives by itself
REASONS = {NO_NUMBER: "The paper states this without a number to compare.",
           NOT_RUN: "The paper did not run this; it is shown for context.",
           PLOT_ONLY: "The paper shows this as a plot only, with no claim in its text."}

#: two-sided 95 % quantiles of Student's t by degrees of freedom (1.96 beyond 30)
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
         9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
         16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 25: 2.060, 30: 2.042}


def t975(df: int) -> float:
    """The two-sided 95 % quantile of Student's t with ``df`` degrees of freedom (rounded
    down to a tabulated ``df``: a slightly wider interval, never a narrower one)."""
    if df < 1:
        raise InputError(f"degrees of freedom must be >= 1, got {df}")
    if df > 30:
        return 1.96
    return _T975[max(d for d in _T975 if d <= df)]


@dataclass(frozen=True)
class Estimate:
    """Our number for a claim: the mean over ``n`` runs (seeds) and its 95 % interval
    ``[low, high]``; a single run (or a deterministic quantity) has ``low == high``."""

    mean: float
    low: float
    high: float
    n: int = 1

    @classmethod
    def point(cls, x: float) -> Estimate:
        """A number without spread (a deterministic run, a count)."""
        x = float(x)
        return cls(x, x, x, 1)

    def map(self, f) -> Estimate:
        """The estimate under a monotone increasing ``f`` (a unit change, a percentage)."""
        return Estimate(float(f(self.mean)), float(f(self.low)), float(f(self.high)), self.n)

    @property
    def spread(self) -> bool:
        return self.high > self.low

    def holds(self, threshold: float) -> bool:
        """Whether the interval holds ``threshold`` (closed at both ends)."""
        return self.low <= threshold <= self.high


def estimate(values: Iterable[float]) -> Estimate:
    """The mean of ``values`` (one per seed; NaNs dropped) with its 95 % Student-t
    interval; one value gives a point. ``InputError`` if none is finite."""
    x = np.asarray(list(values) if not isinstance(values, np.ndarray) else values,
                   dtype=float).ravel()
    x = x[np.isfinite(x)]
    if x.size == 0:
        raise InputError("an estimate needs at least one finite value")
    mean = float(x.mean())
    if x.size == 1 or np.ptp(x) == 0:
        return Estimate(mean, mean, mean, int(x.size))
    half = t975(x.size - 1) * float(x.std(ddof=1)) / math.sqrt(x.size)
    return Estimate(mean, mean - half, mean + half, int(x.size))


def judge(ours: Estimate, paper: float | None = None, *, threshold: float = 0.0,
          side: int | None = None, band: float = BAND) -> str:
    """The verdict (the module's rule) on ``ours`` against the paper's claim.

    ``paper``: the paper's number, or None when it claims a direction only; ``threshold``:
    what the sign or ordering is measured from (0 for a gain or a difference, a bound for
    "at most" claims); ``side``: +1 when the paper claims ours lies above the threshold,
    -1 below (default: the side of ``paper``)."""
    if side is None:
        if paper is None or paper == threshold:
            raise InputError("judge needs the paper's side of the threshold (side=+1 or "
                             "-1) when the paper gives no number off the threshold")
        side = 1 if paper > threshold else -1
    if side not in (1, -1):
        raise InputError(f"side must be +1 or -1, got {side!r}")
    if not all(math.isfinite(v) for v in (ours.mean, ours.low, ours.high)):
        return INCONCLUSIVE
    if ours.holds(threshold):
        return INCONCLUSIVE
    if (ours.mean - threshold) * side < 0:
        return CONTRADICTED
    if paper is None:
        return REPRODUCED
    if ours.holds(paper) or abs(ours.mean - paper) <= band * abs(paper):
        return REPRODUCED
    return SAME_DIRECTION


#: how :func:`judge_all` ranks verdicts: the worst one decides
_WORST = (CONTRADICTED, INCONCLUSIVE, SAME_DIRECTION, REPRODUCED)


def judge_all(verdicts: Iterable[str]) -> str:
    """One verdict for a claim made "at every setting": the worst of its settings'
    (contradicted, then inconclusive, then same direction, then reproduced)."""
    got = set(verdicts)
    if not got or not got <= set(_WORST):
        raise InputError(f"judge_all takes compared verdicts {_WORST}, got {sorted(got)}")
    return next(v for v in _WORST if v in got)


def inconclusive_why(ours: Estimate, threshold: float = 0.0, fmt=None) -> str:
    """The measured reason of an *inconclusive* verdict: the interval and what it holds."""
    fmt = fmt or num
    return (f"The 95 % interval over {ours.n} seeds, {fmt(ours.low)} to {fmt(ours.high)}, "
            f"holds {fmt(threshold)}: the spread between seeds is larger than the effect.")


#: the rule as the book's summary page states it (markdown)
RULE = f"""\
Every claim is judged on our mean over seeds and its {LEVEL * 100:.0f} % interval (Student's t),
against the paper's number, or against the side of a threshold the paper claims (a sign, an
ordering, a bound), in this order:

- *{INCONCLUSIVE}*: our interval holds the threshold, so the seeds cannot tell the sign;
- *{CONTRADICTED}*: our mean lies on the other side of the threshold than the paper's;
- *{REPRODUCED}*: the paper's number lies inside our interval, or our mean lies within
  {BAND * 100:.0f} % of it (relative); for a claim the paper makes as a direction only (no
  number), the direction holds beyond our interval;
- *{SAME_DIRECTION}*: the sign or ordering holds but the magnitude lies outside that band.

A claim made "at every setting" takes the worst verdict of its settings. A claim with
nothing to compare says why instead: *{NO_NUMBER}*, *{NOT_RUN}* (an oracle or a reading of
lorasched's, shown for context) or *{PLOT_ONLY}*. Every row that is not reproduced says
why on its own page, in its section "Why ours differs": a mechanism the page measures, or
the words "{NOT_EXPLAINED}".
"""
