"""The verdict on a paper's claim beside ours, one rule for the three systems (:func:`judge`
on an :class:`Estimate`): an equivalence test against a stated band around the paper's
number, or why nothing compares. The rule, as the book states it: :data:`RULE`."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from ..model.errors import InputError
from .intervals import LEVEL, TIED_LEAST, TIED_SHARE, mass, sign_p, t_quantile
from .intervals import t975 as t975  # named here too, where the pages take it
from .numbers import num

#: the relative band around the paper's number within which ours is *reproduced*
BAND = 0.25

REPRODUCED = "reproduced"
#: the paper's number (or part of its band) lies inside our interval, but our interval is
#: wider than the band: consistent with the paper, not yet shown to reproduce it
CONSISTENT = "consistent, not decided"
#: the direction holds, the magnitude lies outside the band (the row gives ours / paper)
MAGNITUDE_OFF = "magnitude off"
CONTRADICTED = "contradicted"
INCONCLUSIVE = "inconclusive"
#: the paper's sentence admits two readings, declared before the results, and they give
#: different verdicts: the row shows both (:func:`either`)
DEPENDS = "depends on the reading"
#: a headline claim whose verdict a number lorasched chose where the paper is silent decides:
#: another reasonable value of it (a sensitivity page's alternative) turns its decided verdict
#: into another decided one; the row shows both (:mod:`.sensitivity`, the ledger's build)
DEPENDS_ON = "depends on lorasched's choice"
#: the setting lacks the claim's precondition (no contention, a cap never approached)
NOT_TESTABLE = "not testable here"
#: the paper states the claim without a number or a direction we can test
NO_NUMBER = "no number in the paper"
#: the paper did not run this (an oracle, a reading or a setting of lorasched's)
NOT_RUN = "not run by the paper"
#: the paper shows this as a plot only, with no claim in its text
PLOT_ONLY = "plot only"

COMPARED = (REPRODUCED, CONSISTENT, MAGNITUDE_OFF, CONTRADICTED, INCONCLUSIVE, DEPENDS,
            DEPENDS_ON)
NOT_COMPARED = (NOT_TESTABLE, NO_NUMBER, NOT_RUN, PLOT_ONLY)
VERDICTS = COMPARED + NOT_COMPARED
#: the colour of each verdict in the book's tables (a not-compared verdict is grey)
COLOURS = {REPRODUCED: "#2a9d8f", CONSISTENT: "#4c78a8", MAGNITUDE_OFF: "#b08900",
           CONTRADICTED: "#e76f51", INCONCLUSIVE: "#5e60ce", DEPENDS: "#8d6e63",
           DEPENDS_ON: "#c2185b"}
GREY = "#6c757d"
#: what a row that is not reproduced says when its page measures no reason
NOT_EXPLAINED = "not explained"
#: the reason a not-compared verdict gives by itself
REASONS = {NO_NUMBER: "The paper states this without a number to compare.",
           NOT_RUN: "The paper did not run this; it is shown for context.",
           PLOT_ONLY: "The paper shows this as a plot only, with no claim in its text."}

#: where a claim is counted: the paper's own claim in the paper's own setting (the
#: summary's headline table, each claim once), a worked example (arithmetic the paper
#: shows to explain its design, checked as a test of the implementation and counted
#: apart), or anything else (a reading, an oracle, the authors' code's setup, lorasched's
#: constants or settings, a repeat of a cell another figure counts)
PAPER = "paper"
WORKED = "worked example"
BEYOND = "beyond the paper"
#: the paper's own claim in its own setting whose number lorasched fitted to the paper's
#: (it checks the fit; it reproduces nothing), and one whose number depends on such a fit:
#: each judged as the others, counted apart from them (:attr:`~.base.Figure.fitted`)
CALIBRATION = "calibration check"
DEPENDENT = "not independent"
FITTED = (CALIBRATION, DEPENDENT)
SCOPES = (PAPER, WORKED, BEYOND, *FITTED)
#: the scopes of the paper's own claims in its own setting, each answering a claim of the
#: inventory once
OWN = (PAPER, *FITTED)

# ------------------------------------------------------------------------------ scales
#: an unbounded quantity (a difference, a slope): the interval on the quantity itself
LINEAR = "linear"
#: a positive quantity (a ratio "2.5x", a time, a bill): the interval of its logarithm,
#: its centre the geometric mean
RATIO = "ratio"
#: a relative change in percent, 100 (r - 1) with r > 0: the interval of log r, so it
#: never reaches below -100 %
GAIN = "gain"
#: a share in percent (0 to 100): the interval of its logit, so it stays inside 0-100 %
SHARE = "share"
#: a saving (a reduction) in percent, 100 (1 - r) with r > 0: the interval of log r, so it
#: never reaches above 100 %
SAVING = "saving"
SCALES = (LINEAR, RATIO, GAIN, SHARE, SAVING)
#: how far from 0 and 100 % a share is held before its logit is taken
_SHARE_EPS = 0.1


def _to(scale: str, x: np.ndarray) -> np.ndarray:
    if scale == RATIO:
        return np.log(x)
    if scale == GAIN:
        return np.log1p(x / 100.0)
    if scale == SHARE:
        p = np.clip(x, _SHARE_EPS, 100.0 - _SHARE_EPS) / 100.0
        return np.log(p / (1.0 - p))
    if scale == SAVING:  # decreasing: the interval's ends swap back
        return np.log1p(-x / 100.0)
    return x


def _back(scale: str, y: float) -> float:
    if scale == RATIO:
        return float(math.exp(y))
    if scale == GAIN:
        return float(100.0 * math.expm1(y))
    if scale == SHARE:
        return float(100.0 / (1.0 + math.exp(-y)))
    if scale == SAVING:
        return float(-100.0 * math.expm1(y))
    return float(y)


def _in_domain(scale: str, x: np.ndarray) -> bool:
    if scale == RATIO:
        return bool((x > 0).all())
    if scale == GAIN:
        return bool((x > -100.0).all())
    if scale == SHARE:
        return bool(((x >= 0) & (x <= 100)).all())
    if scale == SAVING:
        return bool((x < 100.0).all())
    return True


#: the lower end of each scale's support, where a value can lie outside its domain
#: (a ratio of 0, a gain of -100 %): the interval is then on the quantity, cut there
_FLOOR = {RATIO: 0.0, GAIN: -100.0, SHARE: 0.0}

#: how an :class:`Estimate`'s interval was made: Student's t on its scale
#: (:func:`estimate`); for tied per-seed values (:func:`~.intervals.mass`), Student's t
#: widened to reach the value they are tied at wherever the exact sign test of the seeds
#: off it cannot tell their side (:func:`estimate`); Wilson's score interval of one
#: sample's share (:func:`share_of`); a single number (:meth:`Estimate.point`)
STUDENT_T, SIGN_TEST, WILSON, POINT = "t", "t+sign", "wilson", "point"
METHODS = (STUDENT_T, SIGN_TEST, WILSON, POINT)

#: the level of the intervals :func:`estimate` and :func:`share_of` make where none is
#: given: :data:`LEVEL`, or another inside :func:`at_level`
_LEVEL: ContextVar[float] = ContextVar("lorasched_level", default=LEVEL)


@contextmanager
def at_level(level: float) -> Iterator[None]:
    """Inside the block, every interval made without a level is made at ``level`` (a
    sequential design's later look, judged at a stricter level)."""
    if not 0.0 < level < 1.0:
        raise InputError(f"a level must lie between 0 and 1, got {level}")
    token = _LEVEL.set(float(level))
    try:
        yield
    finally:
        _LEVEL.reset(token)


@dataclass(frozen=True)
class Estimate:
    """Our number for a claim: the centre over ``n`` runs (seeds) and its interval
    ``[low, high]`` at ``level`` (95 %), on the quantity's ``scale`` (:data:`SCALES`), with
    the per-seed ``values`` it was made from; a single run (or a deterministic quantity) has
    ``low == high``."""

    mean: float
    low: float
    high: float
    n: int = 1
    scale: str = LINEAR
    values: tuple = ()
    level: float = LEVEL
    #: how the interval was made from ``values``, so that a reader can make it again
    #: (:data:`METHODS`; "" where it was not made from them: a fitted slope, a transform)
    method: str = field(default="", compare=False)

    @classmethod
    def point(cls, x: float) -> Estimate:
        """A number without spread (a deterministic run, a count)."""
        x = float(x)
        return cls(x, x, x, 1, LINEAR, (x,), method=POINT)

    def map(self, f) -> Estimate:
        """The estimate under a monotone increasing ``f`` (a unit change, a percentage)."""
        return Estimate(float(f(self.mean)), float(f(self.low)), float(f(self.high)), self.n,
                        self.scale, tuple(float(f(v)) for v in self.values), self.level)

    def negated(self) -> Estimate:
        """The estimate of minus the quantity (a fall told as a positive number)."""
        return Estimate(-self.mean, -self.high, -self.low, self.n, LINEAR,
                        tuple(-v for v in self.values), self.level)

    @property
    def spread(self) -> bool:
        return self.high > self.low

    def holds(self, threshold: float) -> bool:
        """Whether the interval holds ``threshold`` (closed at both ends)."""
        return self.low <= threshold <= self.high

    def t(self) -> float:
        """The Student-t quantile of the interval (0 for a single run)."""
        return t_quantile(self.n - 1, self.level) if self.n > 1 else 0.0


def estimate(values: Iterable[float], scale: str = LINEAR,
             level: float | None = None) -> Estimate:
    """The centre of ``values`` (one per seed; NaNs dropped) with its interval at ``level``
    (default: 95 %, or :func:`at_level`'s) on ``scale`` (:data:`SCALES`).

    The interval is Student's t of the transformed values' mean, transformed back, so
    that it stays inside the quantity's support (:data:`STUDENT_T`). Values outside the
    scale's domain (a gain of -100 %, a ratio of 0) fall back to the interval on the
    quantity itself, cut at the support's end. Where the values are tied
    (:func:`~.intervals.mass`: a quarter of the seeds or more give one and the same
    number), the exact sign test of the seeds off that number decides too: where it
    cannot tell their side at ``level`` the interval is widened to reach the number
    (:data:`SIGN_TEST`), so that a few seeds off a point mass never decide a sign the
    t interval's normal approximation alone would give them. One value gives a point.
    ``InputError`` if none is finite or the scale is unknown."""
    level = _LEVEL.get() if level is None else float(level)
    if scale not in SCALES:
        raise InputError(f"scale must be one of {SCALES}, got {scale!r}")
    x = np.asarray(list(values) if not isinstance(values, np.ndarray) else values,
                   dtype=float).ravel()
    x = x[np.isfinite(x)]
    if x.size == 0:
        raise InputError("an estimate needs at least one finite value")
    kept = tuple(float(v) for v in x)
    if x.size == 1 or np.ptp(x) == 0:
        m = float(x.mean())
        return Estimate(m, m, m, int(x.size), scale, kept, level, STUDENT_T)
    centre, low, high = _t_interval(x, scale, level)
    at = mass(x)
    if at is None:
        return Estimate(centre, low, high, int(x.size), scale, kept, level, STUDENT_T)
    if sign_p(x, at) >= 1.0 - level:  # the sign test cannot tell: the interval reaches it
        low, high = min(low, at), max(high, at)
    return Estimate(centre, low, high, int(x.size), scale, kept, level, SIGN_TEST)


def _t_interval(x: np.ndarray, scale: str, level: float) -> tuple[float, float, float]:
    """The centre of ``x`` (finite, not all equal) and its Student-t interval on
    ``scale`` (:func:`estimate`)."""
    t = t_quantile(x.size - 1, level)
    if _in_domain(scale, x):
        y = _to(scale, x)
        centre = float(y.mean())
        half = t * float(y.std(ddof=1)) / math.sqrt(x.size)
        ends = sorted((_back(scale, centre - half), _back(scale, centre + half)))
        return _back(scale, centre), ends[0], ends[1]
    mean = float(x.mean())
    half = t * float(x.std(ddof=1)) / math.sqrt(x.size)
    low, high = mean - half, mean + half
    floor = _FLOOR.get(scale)
    if floor is not None and (x >= floor).all():
        low = max(low, floor)
    if scale in (SHARE, SAVING) and (x <= 100.0).all():
        high = min(high, 100.0)
    return mean, low, high


def share_of(k: int, n: int) -> Estimate:
    """The share in percent of ``k`` hits in ``n`` draws of one sample (a workload's jobs),
    with its 95 % Wilson score interval: the sampling error of a single draw, where there
    are no seeds to spread over. ``n`` is the estimate's count (of draws, not seeds)."""
    if n < 1 or not 0 <= k <= n:
        raise InputError(f"a share needs 0 <= k <= n and n >= 1, got k={k}, n={n}")
    level = _LEVEL.get()
    z = 1.96 if level == LEVEL else NormalDist().inv_cdf(0.5 + level / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return Estimate(100 * p, 100 * max(centre - half, 0.0), 100 * min(centre + half, 1.0),
                    int(n), SHARE, (), level, WILSON)


def per_seed(est: Estimate, fmt: Callable = num) -> str:
    """The per-seed values of ``est``, in seed order, each by ``fmt``: "+12 %, +30 %"."""
    return ", ".join(fmt(v) for v in est.values)


# ------------------------------------------------------------------------------ the rule
def band_of(paper: float, band: float | tuple = BAND) -> tuple[float, float]:
    """The band around the paper's number: ``paper`` ± ``band`` relative (a float), or the
    absolute ``(low, high)`` given (e.g. from the paper's rounding: :func:`rounding`)."""
    if isinstance(band, tuple):
        lo, hi = float(band[0]), float(band[1])
        if not lo <= paper <= hi:
            raise InputError(f"the band {band} does not hold the paper's number {paper}")
        return lo, hi
    if band <= 0:
        raise InputError(f"a relative band must be > 0, got {band}")
    half = band * abs(paper)
    return paper - half, paper + half


def rounding(paper: float, digits: int) -> tuple[float, float]:
    """The band a number printed with ``digits`` decimals stands for (2.9 -> 2.85 to
    2.95)."""
    half = 0.5 * 10.0 ** (-digits)
    return paper - half, paper + half


def printed(paper: float, digits: int, band: float = BAND) -> tuple[float, float]:
    """The band of a number the paper prints with ``digits`` decimals: the relative band
    (:func:`band_of`) or, where it is wider, the number's rounding (:func:`rounding`), so
    that a number printed as 0.1 stands for anything from 0.05 to 0.15."""
    lo, hi = band_of(paper, band)
    r_lo, r_hi = rounding(paper, digits)
    return min(lo, r_lo), max(hi, r_hi)


@dataclass(frozen=True)
class Reading:
    """What a verdict was judged against, as :func:`judge` or :func:`judge_each` took it:
    the ``rule`` (:data:`JUDGE` or :data:`EACH`), the paper's number (None for a direction)
    and its band's ends, the threshold and the side of it the paper claims, and for
    :data:`EACH`, whether lying on the threshold fails (``strict``). With the estimate's
    per-seed values, it is all a reader needs to judge the claim again (:func:`rejudge`)."""

    rule: str
    paper: float | None
    band_low: float
    band_high: float
    threshold: float
    side: int
    strict: bool = False


#: the rules a :class:`Reading` names: an equivalence test on an estimate (:func:`judge`),
#: or a bound checked instance by instance (:func:`judge_each`)
JUDGE, EACH = "judge", "each"
#: while :func:`recording`, every judgement: ``(what was judged, Reading, verdict)``
_RECORD: ContextVar[list | None] = ContextVar("lorasched_readings", default=None)


@contextmanager
def recording() -> Iterator[list]:
    """Inside the block, every :func:`judge` and :func:`judge_each` appends ``(what it
    judged, its Reading, its verdict)`` to the list this yields: an :class:`Estimate`
    (its object, so that a claims row finds the judgement of its own estimate) or, for
    :func:`judge_each`, the tuple of values."""
    token = _RECORD.set([])
    try:
        yield _RECORD.get()
    finally:
        _RECORD.reset(token)


def replay(entries: list) -> None:
    """Append ``entries`` (judgements a :func:`recording` caught before, e.g. of rows made
    once and kept) to the recording now open, if any: a row judged earlier still finds its
    reading."""
    log = _RECORD.get()
    if log is not None:
        log.extend(entries)


def _noted(judged, reading: Reading, verdict: str) -> str:
    log = _RECORD.get()
    if log is not None:
        log.append((judged, reading, verdict))
    return verdict


def judge(ours: Estimate, paper: float | None = None, *, threshold: float = 0.0,
          side: int | None = None, band: float | tuple = BAND) -> str:
    """The verdict (:data:`RULE`) on ``ours`` against the paper's claim (recorded while
    :func:`recording`).

    ``paper``: the paper's number, or None when it claims a direction only; ``threshold``:
    what the sign or ordering is measured from (0 for a gain or a difference, 1 for a
    ratio, a bound for "at most" claims); ``side``: +1 when the paper claims ours lies above
    the threshold, -1 below (default: the side of ``paper``); ``band``: relative (a float)
    or absolute ``(low, high)`` (:func:`band_of`)."""
    if side is None:
        if paper is None or paper == threshold:
            raise InputError("judge needs the paper's side of the threshold (side=+1 or "
                             "-1) when the paper gives no number off the threshold")
        side = 1 if paper > threshold else -1
    if side not in (1, -1):
        raise InputError(f"side must be +1 or -1, got {side!r}")
    lo, hi = band_of(paper, band) if paper is not None else (math.nan, math.nan)
    reading = Reading(JUDGE, None if paper is None else float(paper), lo, hi,
                      float(threshold), int(side))
    return _noted(ours, reading, _judged(ours, reading))


def _judged(ours: Estimate, reading: Reading) -> str:
    """:func:`judge`'s rule on ``ours`` and a :class:`Reading`."""
    threshold, side = reading.threshold, reading.side
    if not all(math.isfinite(v) for v in (ours.mean, ours.low, ours.high)):
        return INCONCLUSIVE
    if ours.holds(threshold):
        return INCONCLUSIVE
    if (ours.mean - threshold) * side < 0:
        return CONTRADICTED
    if reading.paper is None:
        return REPRODUCED
    if reading.band_low <= ours.low and ours.high <= reading.band_high:
        return REPRODUCED
    if ours.high < reading.band_low or ours.low > reading.band_high:
        return MAGNITUDE_OFF
    return CONSISTENT


def rejudge(reading: Reading, ours: Estimate | None = None, values=()) -> str:
    """The verdict a :class:`Reading` gives: on the estimate ``ours`` (:data:`JUDGE`) or on
    the instances ``values`` (:data:`EACH`). What a reader's recount runs."""
    if reading.rule == JUDGE:
        if ours is None:
            raise InputError("a judge reading needs the estimate it judges")
        return _judged(ours, reading)
    if reading.rule == EACH:
        return _each(values, reading)
    raise InputError(f"unknown rule {reading.rule!r}; expected {JUDGE!r} or {EACH!r}")


def judge_each(values: Iterable[float], threshold: float, side: int,
               strict: bool = False) -> str:
    """The verdict on a claim made of every instance (a bound: "the ratio is at most 3 in
    every instance"), checked instance by instance: *reproduced* when every instance lies
    on ``side`` of ``threshold`` (or on it, unless ``strict``), *contradicted* when any
    lies on the other side. NaNs are left out; none finite is *inconclusive*."""
    if side not in (1, -1):
        raise InputError(f"side must be +1 or -1, got {side!r}")
    values = tuple(float(v) for v in values)
    reading = Reading(EACH, None, math.nan, math.nan, float(threshold), int(side),
                      bool(strict))
    return _noted(values, reading, _each(values, reading))


def _each(values, reading: Reading) -> str:
    """:func:`judge_each`'s rule on ``values`` and a :class:`Reading`."""
    x = np.asarray(list(values), dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return INCONCLUSIVE
    d = (x - reading.threshold) * reading.side
    ok = (d > 0).all() if reading.strict else (d >= 0).all()
    return REPRODUCED if ok else CONTRADICTED


def ratio_to_paper(ours: Estimate, paper: float) -> float:
    """Ours over the paper's number (our centre / theirs; NaN when the paper's is 0)."""
    return ours.mean / paper if paper else math.nan


def magnitude_note(ours: Estimate, paper: float | None, verdict: str) -> str:
    """For a *magnitude off* row, "ours / paper = 4.6x" (else "")."""
    if verdict != MAGNITUDE_OFF or paper is None or not paper:
        return ""
    return f"ours / paper = {num(ratio_to_paper(ours, paper))}x"


#: how :func:`judge_all` ranks verdicts: the worst one decides
_WORST = (CONTRADICTED, INCONCLUSIVE, MAGNITUDE_OFF, CONSISTENT, REPRODUCED)


def judge_all(verdicts: Iterable[str]) -> str:
    """One verdict for a claim made "at every setting": the worst of its settings'
    (contradicted, inconclusive, magnitude off, consistent, reproduced)."""
    got = set(verdicts)
    if not got or not got <= set(_WORST):
        raise InputError(f"judge_all takes compared verdicts {_WORST}, got {sorted(got)}")
    return next(v for v in _WORST if v in got)


def either(verdicts: Iterable[str]) -> str:
    """One verdict for a claim judged under each reading the paper's sentence admits
    (declared before the results): their common verdict, or :data:`DEPENDS` where they
    differ, so that no row shows the favourable reading alone."""
    got = list(dict.fromkeys(verdicts))
    if not got or not set(got) <= set(COMPARED) - {DEPENDS}:
        raise InputError(f"either takes compared verdicts, got {got}")
    return got[0] if len(got) == 1 else DEPENDS


def inconclusive_why(ours: Estimate, threshold: float = 0.0, fmt=None,
                     unit: str = "seeds") -> str:
    """The measured reason of an *inconclusive* verdict: the interval, what it holds, how
    many seeds lie on each side, and what its width comes from: the t-quantile (so that
    a wide interval from few seeds reads as such) or, for tied values
    (:data:`SIGN_TEST`), the exact sign test of the seeds off the value they are tied
    at."""
    fmt = fmt or num
    if not ours.spread and ours.n == 1:
        return f"The one run gives {fmt(ours.mean)}, the threshold {fmt(threshold)} itself."
    if not ours.spread:
        return (f"Every one of the {ours.n} {unit} gives {fmt(ours.mean)}, the threshold "
                f"{fmt(threshold)} itself.")
    head = (f"The {100 * ours.level:g} % interval over {ours.n} {unit}, {fmt(ours.low)} to "
            f"{fmt(ours.high)}, holds {fmt(threshold)}")
    vals = np.asarray(ours.values, dtype=float)
    sides = ""
    if vals.size == ours.n:
        above, below = int((vals > threshold).sum()), int((vals < threshold).sum())
        sides = f"{above} of the {ours.n} lie above it and {below} below"
    if ours.method == SIGN_TEST and vals.size == ours.n and _by_sign(ours, threshold):
        at = mass(vals)
        on = int((vals == at).sum())
        up, down = int((vals > at).sum()), int((vals < at).sum())
        others = "the one other" if up + down == 1 else f"the {up + down} others"
        return (f"{head}: {sides}; {on} of the {ours.n} {unit} give exactly {fmt(at)}, and "
                f"the exact sign test of {others} ({up} above {fmt(at)}, {down} below) "
                f"cannot tell their side (p = {sign_p(vals, at):.2g}), so the interval "
                f"holds {fmt(at)} whatever Student's t gives.")
    sides += ", and " if sides else ""
    return (f"{head}: {sides}with {ours.n} {unit} the interval reaches {ours.t():.3g} "
            "standard errors either side of the centre.")


def _by_sign(ours: Estimate, threshold: float) -> bool:
    """Whether the sign test of tied values (:data:`SIGN_TEST`) is what makes ``ours``
    hold ``threshold``: the threshold is the value they are tied at, or Student's t alone
    would leave it out."""
    x = np.asarray(ours.values, dtype=float)
    at = mass(x)
    if at is None or sign_p(x, at) < 1.0 - ours.level or not ours.holds(threshold):
        return False
    _, low, high = _t_interval(x, ours.scale, ours.level)
    return at == threshold or not low <= threshold <= high


#: the rule as the book's summary page states it (markdown)
RULE = f"""\
**The unit of replication is the seed**: one seed is one independently drawn workload
(arrivals, jobs, bids) run under every policy, so that every comparison between two
policies is paired on the seed. Every claim is judged on our centre over seeds and its
{LEVEL * 100:.0f} % interval (Student's t), each on a scale that respects the quantity's
support: a ratio, a time or a bill on the log scale (its centre the geometric mean); a
relative gain or a saving on the log of the ratio (a gain never below -100 %, a saving
never above +100 %); a share on the logit scale (inside 0-100 %); a difference or a slope as
it is. Where the seeds are **tied** (at least {TIED_SHARE * 100:.0f} % of them, and at least
{TIED_LEAST}, give one and the same number, such as a difference of zero wherever two
policies agree), the exact sign test of the seeds off that number decides too: where it
cannot tell their side at the same level, the interval reaches the number. A few seeds off
a point mass are a sample of a few, not of all the seeds: measured on such samples with no
difference, Student's t alone, and a bootstrap more often still, gives them a sign more
often than its level allows, where the sign test keeps to its level. A setting that no
seed changes (a fixed trace run by policies that draw nothing) is one run, not many. The
verdict, in this order:

- *{INCONCLUSIVE}*: our interval holds the claim's threshold (zero for a gain, one for a
  ratio, the bound of an "at most" claim), so the seeds cannot tell the sign; its reason
  gives the interval, how many seeds lie on each side, and its t-quantile or sign test;
- *{CONTRADICTED}*: our centre lies on the other side of the threshold than the paper's;
- *{REPRODUCED}*: our whole interval lies inside the **band** around the paper's number,
  ±{BAND * 100:.0f} % of it (relative) or, where the paper prints its number to fewer digits
  than that, the number's rounding (0.1 printed stands for 0.05 to 0.15);
  for a claim the paper makes as a direction only, the direction holds beyond our interval;
  for a claim made of *every instance* (a bound), every instance holds, checked one by one;
- *{CONSISTENT}*: the direction holds and our interval overlaps the band, but is wider than
  it or reaches outside it: consistent with the paper's number, not yet shown equal to it;
- *{MAGNITUDE_OFF}*: the direction holds but our whole interval lies outside the band; the
  row gives ours / paper;
- *{DEPENDS}*: the paper's sentence admits two readings, declared before the results, and
  they give different verdicts; the row shows both, never the favourable one alone;
- *{DEPENDS_ON}*: a claim of the paper's own setting whose decided verdict (reproduced,
  magnitude off, contradicted) another reasonable value of a number lorasched chose where
  the paper is silent turns into another decided one (the sensitivity pages' alternatives,
  paired on the seeds); the row shows both. A move to *{INCONCLUSIVE}* or *{CONSISTENT}*
  does not count: the seeds cannot tell there, which contradicts neither verdict.

A claim made "at every setting" takes the worst verdict of its settings. A claim with
nothing to compare says why instead: *{NOT_TESTABLE}* (the setting lacks the claim's
precondition, measured: no contention between the policies, a cap never approached),
*{NO_NUMBER}*, *{NOT_RUN}* (an oracle or a reading of lorasched's, shown for context) or
*{PLOT_ONLY}*. Every row that is not reproduced says why on its own page, in its section
"Why ours differs": a mechanism the page measures, or the words "{NOT_EXPLAINED}".
"""
