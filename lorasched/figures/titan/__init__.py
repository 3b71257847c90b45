"""TITAN's evaluation, page by page: Table 2, Fig. 4, Table 3 (with every other reading and
the switch cost swept), Fig. 5, Table 4, the MILP's solve time (sec. 3), and the same
policies in the setup the authors' code runs (:mod:`.authors`). Table 3, Fig.
5, Table 4 and the solve time share one sweep (workload x density x policy,
:func:`.common.declaration`), so ``lorasched reproduce --system titan`` computes each cell
once."""

from __future__ import annotations

import pandas as pd

from ..base import Figure, figure_sweeps, pick
from ..base import reproduce as _reproduce
from .authors import AuthorsSetup
from .common import ALGORITHMS, NAMES, WORKLOADS, declaration, table
from .fig04 import Fig04
from .fig05 import Fig05
from .sensitivity import SENSITIVITY
from .solve import SolveTime
from .table2 import Table2
from .table3 import Table3
from .table4 import Table4

FIGURES: dict[str, Figure] = {f.key: f for f in (Table2(), Fig04(), Table3(), Fig05(),
                                                  Table4(), SolveTime(), AuthorsSetup())}


def figure(key: str) -> Figure:
    """The TITAN page called ``key`` (``table2``, ``fig04``, ``table3``, ``fig05``,
    ``table4``, ``solve``, ``authors``)."""
    return pick(FIGURES, key)


def sweeps(size: str = "full", seeds: int | None = None, figures=None) -> list:
    """The sweeps of every figure (or of ``figures``) at ``size``, and with every figure
    those of the sensitivity page, for a batch shared with other systems
    (:func:`lorasched.figures.base.reproduce_together`)."""
    if figures:
        return figure_sweeps([pick(FIGURES, k) for k in figures], size, seeds)
    return figure_sweeps([*FIGURES.values(), SENSITIVITY], size, seeds)


def reproduce(size: str = "full", store=None, *, seeds: int | None = None, figures=None,
              workers: int | None = None, scheduler: str | None = None,
              serial: bool = False, progress: bool = True):
    """Run the cells of TITAN's pages (or of ``figures``) as one batch."""
    chosen = [pick(FIGURES, k) for k in figures] if figures else FIGURES
    return _reproduce(chosen, size, store, seeds=seeds, workers=workers,
                      scheduler=scheduler, serial=serial, progress=progress,
                      name=f"TITAN section 5 ({size})")


__all__ = ["ALGORITHMS", "FIGURES", "NAMES", "WORKLOADS", "declaration", "figure",
           "reproduce", "summary", "sweeps", "table"]


def summary(size: str = "small", *, seeds: int | None = None, store=None):
    """Every TITAN page's claims in one table, the authors' setup page included: columns
    figure, claim, the pages' variant columns, paper, ours, verdict, why and ``page`` (the
    notebook each row's why lives on)."""
    tables = []
    for fig in FIGURES.values():
        if fig.key in ("table2", "fig04"):
            data = fig.data(size)
        else:
            data = fig.data(size, seeds=seeds, store=store)
        claims = fig.claims(data)
        claims["page"] = fig.page
        tables.append(claims)
    return pd.concat(tables, ignore_index=True)
