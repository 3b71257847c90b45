"""Student's t quantile at 95 % by table, for intervals over a few seeds: the book's
verdicts (:mod:`lorasched.figures.intervals`) and the learned policies' tables
(:mod:`lorasched.gym.learn`) take it from here.
"""

from __future__ import annotations

from .errors import InputError

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
