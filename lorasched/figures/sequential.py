"""A two-look sequential design for claims whose runs are cheap: a row of the paper's
setting that the first look's seeds leave undecided is judged once more on more seeds, at a
stricter level, and takes that verdict; a row decided at the first look keeps it. The
design, as the book states it: :func:`Design.text`."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..model.errors import InputError
from .numbers import num
from .verdicts import CONSISTENT, INCONCLUSIVE, LEVEL, OWN

#: the verdicts a second look is for: the interval overlaps the band without lying inside
#: it, or holds the claim's threshold
UNDECIDED = (CONSISTENT, INCONCLUSIVE)


@dataclass(frozen=True)
class Design:
    """Two looks: ``first`` seeds at :data:`~.verdicts.LEVEL`, then, for the rows still
    undecided, ``cap`` seeds (the first ones and more) at ``level``."""

    first: int
    cap: int
    level: float = 1 - (1 - LEVEL) / 2

    def __post_init__(self):
        if not 1 < self.first < self.cap:
            raise InputError(f"a second look needs 1 < first < cap seeds, got first="
                             f"{self.first}, cap={self.cap}")
        if not LEVEL <= self.level < 1:
            raise InputError(f"the second look's level must lie between {LEVEL} and 1, "
                             f"got {self.level}")

    @property
    def error(self) -> float:
        """The most a row's chance of a wrong decision can be over both looks (Bonferroni:
        a decision is wrong only where the interval of the look that made it misses the
        true value)."""
        return (1 - LEVEL) + (1 - self.level)

    def text(self) -> str:
        """The design in words (markdown)."""
        return (
            f"**Seeds added where they decide.** A row of the paper's setting that the first "
            f"{num(self.first)} seeds leave undecided (*{CONSISTENT}*: its interval overlaps "
            f"the band without lying inside it; *{INCONCLUSIVE}*: it holds the claim's "
            f"threshold) is judged once more, on {num(self.cap)} seeds (the first "
            f"{num(self.first)} and {num(self.cap - self.first)} more), with its interval at "
            f"{100 * self.level:g} % instead of {100 * LEVEL:g} %, and takes that verdict, "
            "whichever it is; a row decided at the first look keeps its verdict, and no row "
            "is looked at a third time. A verdict is wrong only where the interval of the "
            "look that made it misses the true value, so a row's chance of a wrong decision "
            f"over both looks is at most {100 * (1 - LEVEL):g} % + "
            f"{100 * (1 - self.level):g} % = {100 * self.error:g} % (Bonferroni), against "
            f"{100 * (1 - LEVEL):g} % for a row judged once.")


def undecided(table: pd.DataFrame) -> pd.Series:
    """The rows of a claims table a second look is for: the paper's own setting, their
    verdict undecided (:data:`UNDECIDED`); one a fit decides too (:data:`~.verdicts.OWN`)."""
    return table["scope"].isin(OWN) & table["verdict"].isin(UNDECIDED)


def combine(first: pd.DataFrame, second: pd.DataFrame, key=("page", "claim"),
            where: pd.Series | None = None) -> pd.DataFrame:
    """The claims after both looks: ``first``'s rows, each undecided one (:func:`undecided`;
    of those, the ones ``where`` marks, where given: a page whose seeds cannot be added)
    replaced by the row of ``second`` (the same claims judged on the design's ``cap`` seeds
    at its level) with the same ``key``; with the columns ``look`` (1 or 2) and ``first
    verdict``. ``InputError`` if such a row has no row in ``second``, or two."""
    key = list(key)
    missing = [c for c in key if c not in first.columns or c not in second.columns]
    if missing:
        raise InputError(f"both looks' tables need the key columns {missing}")
    again = undecided(first) if where is None else undecided(first) & where
    out = first.copy()
    out["look"] = 1
    out["first verdict"] = first["verdict"]
    index = {}
    for i in second.index:
        index.setdefault(_key(second, i, key), []).append(i)
    for i in first.index[again]:
        k = _key(first, i, key)
        hits = index.get(k, [])
        if len(hits) != 1:
            raise InputError(f"the second look has {len(hits)} rows for {k}, not one")
        for c in first.columns:
            if c in second.columns and c not in key:
                out.at[i, c] = second.at[hits[0], c]
        out.at[i, "look"] = 2
    return out


def _key(table: pd.DataFrame, i, key: list) -> tuple:
    """Row ``i``'s values in ``key``'s columns, a missing one as "" (a column only some
    pages have)."""
    return tuple("" if pd.isna(table.at[i, c]) else table.at[i, c] for c in key)


def decided(combined: pd.DataFrame) -> pd.DataFrame:
    """The rows the second look took (:func:`combine`'s ``look`` 2), with their verdict at
    each look and whether the added seeds decided them."""
    rows = combined[combined["look"] == 2]
    out = rows[[c for c in ("figure", "claim", "variant") if c in rows.columns]].copy()
    out["first look"] = rows["first verdict"]
    out["second look"] = rows["verdict"]
    out["ours"] = rows["ours"]
    out["decided"] = ~rows["verdict"].isin(UNDECIDED)
    return out.reset_index(drop=True)


__all__ = ["UNDECIDED", "Design", "combine", "decided", "undecided"]
