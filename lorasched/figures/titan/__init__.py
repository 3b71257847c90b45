"""TITAN's evaluation, page by page: Table 2, Fig. 4, Table 3 (with every other reading and
the switch cost swept), Fig. 5, Table 4, the MILP's solve time (sec. 3), and the same
policies in the setup the authors' code runs (:mod:`.authors`). Table 3, Fig.
5, Table 4 and the solve time share one sweep (workload x density x policy,
:func:`.common.declaration`), so ``lorasched reproduce --system titan`` computes each cell
once."""

from __future__ import annotations

import pandas as pd

from ..base import Figure
from ..catalog import Catalogue
from .authors import AuthorsSetup
from .authors_join import AuthorsJoin
from .common import ALGORITHMS, NAMES, WORKLOADS, declaration, ships, table
from .fig04 import Fig04
from .fig05 import Fig05
from .sensitivity import SENSITIVITY
from .solve import SolveTime
from .table2 import Table2
from .table3 import Table3
from .table4 import Table4

#: the pages in the paper's order (the solve time is claimed in sec. 3, before Table 2),
#: then the authors'-code page
FIGURES: dict[str, Figure] = {f.key: f for f in (SolveTime(), Table2(), Fig04(), Table3(),
                                                  Table4(), Fig05(), AuthorsSetup())}

#: the pages, and the batch that runs their cells (with the sensitivity page's and the
#: authors'-code page's job-by-job join, for all)
CATALOGUE = Catalogue(FIGURES, "TITAN section 5", extra=(SENSITIVITY, AuthorsJoin()),
                      ships=ships)
figure = CATALOGUE.figure
sweeps = CATALOGUE.sweeps
reproduce = CATALOGUE.reproduce

__all__ = ["ALGORITHMS", "CATALOGUE", "FIGURES", "NAMES", "WORKLOADS", "declaration",
           "figure", "reproduce", "summary", "sweeps", "table"]


def summary(size: str = "small", *, seeds: int | None = None, store=None):
    """Every TITAN page's claims in one table, the authors' setup page included: columns
    figure, claim, the pages' variant columns, paper, ours, verdict, why and ``page`` (the
    notebook each row's why lives on), then each row's record (:mod:`..record`)."""
    tables = []
    for fig in FIGURES.values():
        if fig.key in ("table2", "fig04"):
            data = fig.data(size)
        else:
            data = fig.data(size, seeds=seeds, store=store)
        claims = fig.claims(data, readings=True)
        claims["page"] = fig.page
        tables.append(claims)
    return pd.concat(tables, ignore_index=True)
