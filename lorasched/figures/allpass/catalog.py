"""Every Allpass page, by key: Fig. 1 and Figs. 6-12 (one module each), and the readings
page; and the one batch of runs that all but Fig. 1 draw from, computed in memory."""

from __future__ import annotations

import time

from ..base import Figure
from ..catalog import Catalogue, Report
from .alternative_readings import Readings
from .common import AllpassFigure, _cache, runs, seed_list
from .fig01 import Fig01
from .fig06 import Fig06
from .fig07 import Fig07
from .fig08 import Fig08
from .fig09 import Fig09
from .fig10 import Fig10
from .fig11 import Fig11
from .fig12 import Fig12

FIGURES: dict[str, Figure] = {f.key: f for f in (
    Fig01(), Fig06(), Fig07(), Fig08(), Fig09(), Fig10(), Fig11(), Fig12(), Readings())}


def _compute(size: str, store, *, seeds: int | None, figures: list, progress: bool) -> Report:
    """Run (and check) every run of the pages' batch (:func:`.common.runs`) into ``store``'s
    batch file, if one of ``figures`` draws from it (Fig. 1 alone draws from none)."""
    start = time.perf_counter()
    if not any(isinstance(fig, AllpassFigure) for fig in figures):
        return Report(computed=0, seconds=time.perf_counter() - start)
    path = _cache(store, size, tuple(seed_list(size, seeds)))
    cached = path is not None and path.is_file()
    done = runs(size, seeds, progress=progress, store=store)
    return Report(computed=0 if cached else len(done), skipped=len(done) if cached else 0,
                  seconds=time.perf_counter() - start)


#: the pages, and their batch of runs (in memory: no cells on workers)
CATALOGUE = Catalogue(FIGURES, "Allpass", compute=_compute)
