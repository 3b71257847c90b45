"""Every Allpass page, by key: Fig. 1 and Figs. 6-12 (one module each), and the readings
page; and the sweeps of the kept runs they read (:func:`sweeps`): what all but Fig. 1 draw
from, the readings page's counterfactual scenarios, the sequential design's added seeds and
the sensitivity page's alternatives."""

from __future__ import annotations

from ..base import Figure
from ..catalog import Catalogue
from .alternative_readings import SCENARIOS, Readings, counterfactual_label
from .common import AllpassFigure
from .declared import DESIGNS, look_parts, parts, seed_list
from .fig01 import Fig01
from .fig06 import Fig06
from .fig07 import Fig07
from .fig08 import Fig08
from .fig09 import Fig09
from .fig10 import Fig10
from .fig11 import Fig11
from .fig12 import Fig12
from .sensitivity import SENSITIVITY, alternative_sweep
from .sensitivity import sweeps as sensitivity_sweeps

FIGURES: dict[str, Figure] = {f.key: f for f in (
    Fig01(), Fig06(), Fig07(), Fig08(), Fig09(), Fig10(), Fig11(), Fig12(), Readings())}


def sweeps(size: str = "full", seeds: int | None = None, figures=None) -> list:
    """The sweeps of the kept runs the pages called ``figures`` read (None: every run of
    Allpass's part of the book): the pages' runs (:func:`.declared.parts`) if one of them
    draws from them (Fig. 1 alone draws from none), the readings page's counterfactual
    scenarios, and for the whole part the sensitivity page's alternatives and, with the
    pages' own seeds, the sequential design's added seeds (:func:`.declared.look_parts`).

    Parameters
    ----------
    size : str
        ``"small"`` or ``"full"``.
    seeds : int, optional
        Seeds per setting (default: the pages').
    figures : list of str, optional
        Keys of :data:`FIGURES`.

    Returns
    -------
    list of Sweep
    """
    chosen = CATALOGUE.chosen(figures)
    whole = not figures
    out = []
    if any(isinstance(f, AllpassFigure) for f in chosen):
        out += [p.sweep for p in parts(size, seeds)]
    if whole:
        if seeds is None or int(seeds) == DESIGNS[size].first:
            out += [p.sweep for p in look_parts(size)]
        out += sensitivity_sweeps(size, seeds)
    if whole or "readings" in [f.key for f in chosen]:  # one the sensitivity page runs: once
        out += [alternative_sweep(size, alt, seed_list(size, seeds),
                                  counterfactual_label(key)).sweep
                for key, alt in SCENARIOS.items()
                if not (whole and alt in SENSITIVITY.alternatives)]
    return out


#: the pages, and the sweeps of the runs they read (with the sensitivity page's, for all)
CATALOGUE = Catalogue(FIGURES, "Allpass", extra=(SENSITIVITY,),
                      runs=lambda size, seeds, figures: sweeps(size, seeds, figures))
