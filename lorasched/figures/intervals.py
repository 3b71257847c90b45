"""What an interval over seeds is made of: Student's t quantiles (:func:`t_quantile`) and,
for *tied* per-seed values (many seeds giving one and the same number, such as a
difference of 0 wherever two policies agree: :func:`mass`), the exact sign test of the
seeds off that number (:func:`sign_p`), which tells whether they lie on one side of it."""

from __future__ import annotations

import math

import numpy as np

from ..model.errors import InputError
from ..model.student import t975 as t975  # the table, where the pages take it

#: the level of every interval
LEVEL = 0.95


def _t_within(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with integer ``df`` degrees of freedom, in closed form
    (Abramowitz and Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2:  # odd
        term, acc = math.cos(theta), 0.0
        for k in range(1, (df - 1) // 2 + 1):  # cos, (2/3) cos^3, (2*4)/(3*5) cos^5, ...
            acc += term
            term *= c2 * (2 * k) / (2 * k + 1)
        return 2.0 / math.pi * (theta + s * acc)
    term, acc = 1.0, 0.0
    for k in range(1, df // 2 + 1):  # 1, (1/2) cos^2, (1*3)/(2*4) cos^4, ...
        acc += term
        term *= c2 * (2 * k - 1) / (2 * k)
    return s * acc


def t_quantile(df: int, level: float = LEVEL) -> float:
    """The two-sided ``level`` quantile of Student's t with ``df`` degrees of freedom: at
    the book's :data:`LEVEL`, :func:`t975`'s table; at another level (a sequential
    design's second look) the closed-form distribution inverted by bisection."""
    if not 0.0 < level < 1.0:
        raise InputError(f"a level must lie between 0 and 1, got {level}")
    if level == LEVEL:
        return t975(df)
    if df < 1:
        raise InputError(f"degrees of freedom must be >= 1, got {df}")
    lo, hi = 0.0, 1.0
    while _t_within(hi, df) < level:
        hi *= 2.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _t_within(mid, df) < level else (lo, mid)
    return hi


# ------------------------------------------------------------------------ tied values
#: per-seed values are *tied* when their most frequent value is shared by at least this
#: share of them, and by at least :data:`TIED_LEAST` of them (:func:`mass`)
TIED_SHARE = 0.25
TIED_LEAST = 3


def mass(values) -> float | None:
    """The value that the finite ``values`` are tied at, or None where they are not tied:
    their most frequent value where at least :data:`TIED_SHARE` of them, and at least
    :data:`TIED_LEAST`, give exactly it and the others do not all give it too (19 seeds of
    20 at 0 and one off it: a point mass and a few others, which a mean's t interval
    reads as a normal spread)."""
    y = np.asarray(values, dtype=float).ravel()
    y = y[np.isfinite(y)]
    if y.size < TIED_LEAST or np.ptp(y) == 0:
        return None
    at, count = np.unique(y, return_counts=True)
    i = int(np.argmax(count))  # the smallest of equally frequent values: deterministic
    return float(at[i]) if count[i] >= max(TIED_LEAST, TIED_SHARE * y.size) else None


def sign_p(values, at: float) -> float:
    """The exact two-sided sign test of the finite ``values`` that differ from ``at``:
    the chance, were each as likely above ``at`` as below, of a split at least as uneven
    as theirs, ``2 P(B <= min(above, below))`` for ``B`` binomial(k, 1/2) over the ``k``
    values off ``at`` (those on it are left out, as the test's ties are); 1 where none
    differs."""
    y = np.asarray(values, dtype=float).ravel()
    y = y[np.isfinite(y)]
    above, below = int((y > at).sum()), int((y < at).sum())
    return _sign_p(above, below)


def _sign_p(above: int, below: int) -> float:
    k = above + below
    if k == 0:
        return 1.0
    tail = sum(math.comb(k, i) for i in range(min(above, below) + 1))
    return min(1.0, 2.0 * tail / 2.0 ** k)
