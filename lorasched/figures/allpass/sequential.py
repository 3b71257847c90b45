"""Allpass's claims under the two-look sequential design (:mod:`..sequential`): its runs
cost seconds a seed, so a headline row the pages' seeds leave undecided is judged again on
three times as many, at the stricter level (:data:`DESIGNS`); the added seeds' runs are
kept sweeps of their own (:func:`.declared.look_parts`)."""

from __future__ import annotations

import pandas as pd

from ..sequential import Design, combine, decided, undecided
from ..verdicts import at_level
from .catalog import FIGURES
from .common import AllpassData, AllpassFigure, runs
from .declared import DESIGNS, kept_runs, look_parts


def design(size: str) -> Design:
    """The design at ``size``."""
    return DESIGNS[size]


def _seeded_pages(first: pd.DataFrame) -> list:
    """The pages drawn from the shared runs (more seeds are more runs) with a row the
    second look is for."""
    again = set(first.loc[undecided(first), "page"])
    return [f for f in FIGURES.values() if isinstance(f, AllpassFigure) and f.page in again]


def second_look(size: str, pages, *, store=None, plan: Design | None = None) -> pd.DataFrame:
    """The claims of ``pages`` judged on the design's ``cap`` seeds (the first look's and
    the added ones, :func:`.declared.look_parts`, read from ``store``'s kept results and
    computed first where it lacks them) at its level; ``plan``: a design other than the
    size's (:data:`DESIGNS`)."""
    d = plan or design(size)
    results = {**runs(size, d.first, False, store),
               **kept_runs(look_parts(size, d), size, store)}
    data = AllpassData(size, results, store)
    with at_level(d.level):
        tables = [f.claims(data).assign(page=f.page) for f in pages]
    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()


def looked(size: str, first: pd.DataFrame, *, store=None,
           plan: Design | None = None) -> pd.DataFrame:
    """``first`` (every page's claims on the first look's seeds,
    :func:`~lorasched.figures.allpass.summary`'s columns) after the second look
    (:func:`..sequential.combine`: the columns ``look`` and ``first verdict`` added);
    ``plan``: a design other than the size's."""
    pages = _seeded_pages(first)
    if not pages:
        return combine(first, first, where=first["page"].isin([]))
    second = second_look(size, pages, store=store, plan=plan)
    where = first["page"].isin([f.page for f in pages])
    return combine(first, second, key=("page", "claim", "setup"), where=where)


def decided_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The rows the second look took, with their verdicts at both looks
    (:func:`..sequential.decided`)."""
    return decided(table.rename(columns={"setup": "variant"}))


__all__ = ["DESIGNS", "decided_rows", "design", "looked", "second_look"]
