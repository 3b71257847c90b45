"""Allpass's evaluation, page by page: Fig. 1 (the traces' job durations) and Figs. 6-12
(sec. 5 and appendix A). Figs. 6-12 read one set of runs (every policy, both setups,
:func:`.common.runs`), declared as sweeps whose results the engine keeps
(:mod:`.declared`), so ``lorasched reproduce`` computes each run once, in the batch of every
system's cells."""

from __future__ import annotations

import pandas as pd

from . import sequential
from .catalog import CATALOGUE, FIGURES
from .common import ALGORITHMS, NAMES, SETUP_NAMES, SETUPS, runs, seed_list

figure = CATALOGUE.figure
sweeps = CATALOGUE.sweeps
reproduce = CATALOGUE.reproduce


def summary(size: str = "small", *, seeds: int | None = None, store=None) -> pd.DataFrame:
    """Every claim of every Allpass page in one table: the columns of
    :meth:`~lorasched.figures.base.Figure.claims` (the variant column of each page: ``trace``
    for Fig. 1, ``setup`` for the others), ``page``, the notebook of the claim's page, and
    with the pages' own seeds, the sequential design's second look
    (:func:`.sequential.looked`: the columns ``look`` and ``first verdict``)."""
    tables = []
    for fig in FIGURES.values():
        table = fig.claims(fig.data(size, seeds=seeds, store=store))
        tables.append(table.assign(page=fig.page))
    first = pd.concat(tables, ignore_index=True)
    if seeds is not None and int(seeds) != sequential.design(size).first:
        return first  # seeds of the caller's choosing: one look
    return sequential.looked(size, first, store=store)


__all__ = ["ALGORITHMS", "CATALOGUE", "FIGURES", "NAMES", "SETUPS", "SETUP_NAMES", "figure",
           "reproduce", "runs", "seed_list", "summary", "sweeps"]
