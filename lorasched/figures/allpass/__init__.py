"""Allpass's evaluation, page by page: Fig. 1 (the traces' job durations) and Figs. 6-12
(sec. 5 and appendix A). Figs. 6-12 share one batch of runs (every policy, both setups,
:func:`.common.runs`), so ``lorasched reproduce --system allpass`` computes each run once."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import pandas as pd

from ..base import Figure, check_size, pick
from .catalog import FIGURES
from .common import ALGORITHMS, NAMES, SETUP_NAMES, SETUPS, _cache, runs, seed_list


def figure(key: str) -> Figure:
    """The Allpass page called ``key`` (``fig01``, ``fig06`` ... ``fig12``)."""
    return pick(FIGURES, key)


@dataclass
class Report:
    """What :func:`reproduce` did, in the shape of a sweep report."""

    computed: int
    skipped: int = 0
    failed: list = field(default_factory=list)
    interrupted: bool = False
    seconds: float = 0.0


def reproduce(size: str = "full", store=None, *, seeds: int | None = None, figures=None,
              workers=None, scheduler=None, serial: bool = False, progress: bool = True):
    """Run (and check) every run of Allpass's pages at ``size`` into ``store``'s batch
    file (:func:`.common.runs`; ``workers``, ``scheduler`` and ``serial`` are accepted
    for the common signature); ``figures`` only validates the keys given."""
    check_size(size)
    for key in figures or ():
        pick(FIGURES, key)
    start = time.perf_counter()
    path = _cache(store, size, tuple(seed_list(size, seeds)))
    cached = path is not None and path.is_file()
    done = runs(size, seeds, progress=progress, store=store)
    return Report(computed=0 if cached else len(done), skipped=len(done) if cached else 0,
                  seconds=time.perf_counter() - start)


def summary(size: str = "small", *, seeds: int | None = None, store=None) -> pd.DataFrame:
    """Every claim of every Allpass page in one table: the columns of
    :meth:`~lorasched.figures.base.Figure.claims` (the variant column of each page: ``trace``
    for Fig. 1, ``setup`` for the others) and ``page``, the notebook of the claim's page."""
    tables = []
    for fig in FIGURES.values():
        table = fig.claims(fig.data(size, seeds=seeds, store=store))
        tables.append(table.assign(page=fig.page))
    return pd.concat(tables, ignore_index=True)


__all__ = ["ALGORITHMS", "FIGURES", "NAMES", "SETUPS", "SETUP_NAMES", "figure", "reproduce",
           "runs", "seed_list", "summary"]
