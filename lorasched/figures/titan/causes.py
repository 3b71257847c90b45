"""TITAN's causes tested: every headline row of the paper's setting that is not
reproduced, with the counterfactual its why implies where a page runs one (a page's
``causes`` method: Table 3's, Table 4's, the solve time's) and "none run here" elsewhere
(:mod:`..causes`)."""

from __future__ import annotations

import pandas as pd

from ..causes import line, open_rows
from . import FIGURES

#: the pages whose data come from fixed inputs only (no seeds, no store)
_FIXED = ("table2", "fig04")


def causes(size: str = "small", *, seeds: int | None = None, store=None) -> pd.DataFrame:
    """Every TITAN headline row that is not reproduced, with the counterfactual its page
    runs for it and its effect (:func:`~..causes.line`)."""
    out = []
    for fig in FIGURES.values():
        data = (fig.data(size) if fig.key in _FIXED
                else fig.data(size, seeds=seeds, store=store))
        if hasattr(fig, "causes"):
            table = fig.causes(data)
            out += [{"figure": fig.number} | r for r in table.to_dict("records")]
            continue
        out += [{"figure": fig.number} | line(r)
                for r in open_rows(fig, fig.claim_rows(data))]
    return pd.DataFrame(out, columns=["figure", "claim", "variant", "verdict", "ours",
                                      "counterfactual", "judged there", "ours there",
                                      "effect"])


__all__ = ["causes"]
