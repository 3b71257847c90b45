"""Allpass's causes tested: every headline row that is not reproduced, with the
counterfactual its why implies, run on the readings page for Figs. 6-12
(:meth:`.alternative_readings.Readings.causes`), and its effect (:mod:`..causes`); a row
of another page (Fig. 1's traces) "none run here"."""

from __future__ import annotations

import pandas as pd

from ..causes import line, open_rows
from .alternative_readings import HEADLINE_PAGES, Readings
from .catalog import FIGURES


def causes(size: str = "small", *, seeds: int | None = None, store=None) -> pd.DataFrame:
    """The readings page's causes table on the pages' runs, then the rows of the pages
    outside it that are not reproduced (no run of lorasched tests their cause)."""
    page = Readings()
    out = page.causes(page.data(size, seeds=seeds, store=store)).to_dict("records")
    covered = {f.key for f in HEADLINE_PAGES} | {page.key}
    for fig in FIGURES.values():
        if fig.key in covered:
            continue
        rows = fig.claim_rows(fig.data(size, seeds=seeds, store=store))
        out += [{"figure": fig.number} | line(r) for r in open_rows(fig, rows)]
    return pd.DataFrame(out, columns=["figure", "claim", "variant", "verdict", "ours",
                                      "counterfactual", "judged there", "ours there",
                                      "effect"])


__all__ = ["causes"]
