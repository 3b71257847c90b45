"""Allpass's evaluation, page by page: Fig. 1 (the traces' job durations) and Figs. 6-12
(sec. 5 and appendix A). Figs. 6-12 read one set of runs (every policy, both setups,
:func:`.common.runs`), declared as sweeps whose results the engine keeps
(:mod:`.declared`), so ``lorasched reproduce`` computes each run once, in the batch of every
system's cells."""

from __future__ import annotations

import pandas as pd

from .catalog import CATALOGUE, FIGURES
from .common import ALGORITHMS, NAMES, SETUP_NAMES, SETUPS, runs, seed_list

figure = CATALOGUE.figure
sweeps = CATALOGUE.sweeps
reproduce = CATALOGUE.reproduce


def summary(size: str = "small", *, seeds: int | None = None, store=None) -> pd.DataFrame:
    """Every claim of every Allpass page in one table: the columns of
    :meth:`~lorasched.figures.base.Figure.claims` with ``readings=True`` (the variant column
    of each page: ``trace`` for Fig. 1, ``setup`` for the others; each row's record and,
    with the pages' own seeds, both looks of the sequential design, :mod:`.looks`) and
    ``page``, the notebook of the claim's page."""
    tables = []
    for fig in FIGURES.values():
        table = fig.claims(fig.data(size, seeds=seeds, store=store), readings=True)
        tables.append(table.assign(page=fig.page))
    return pd.concat(tables, ignore_index=True)


__all__ = ["ALGORITHMS", "CATALOGUE", "FIGURES", "NAMES", "SETUPS", "SETUP_NAMES", "figure",
           "reproduce", "runs", "seed_list", "summary", "sweeps"]
