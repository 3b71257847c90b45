"""Every figure of pdFTSP's section 5, by key, and the batch that runs their cells."""

from __future__ import annotations

from ..base import Figure, figure_sweeps, pick
from ..base import reproduce as _reproduce
from .calibration import Calibration
from .fig04 import Fig04
from .fig05 import Fig05
from .fig06 import Fig06
from .fig07 import Fig07
from .fig08 import Fig08
from .fig09 import Fig09
from .fig10 import Fig10
from .fig11 import Fig11
from .fig12 import Fig12
from .fig13 import Fig13
from .sensitivity import SENSITIVITY

FIGURES: dict[str, Figure] = {f.key: f for f in (
    Fig04(), Fig05(), Fig06(), Fig07(), Fig08(), Fig09(), Fig10(), Fig11(), Fig12(), Fig13(),
    Calibration())}


def figure(key: str) -> Figure:
    """The :class:`Figure` called ``key`` (``"fig04"`` ... ``"fig13"``)."""
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
    """Run the cells of every figure's sweeps (or of ``figures``) as one batch."""
    chosen = [pick(FIGURES, k) for k in figures] if figures else FIGURES
    return _reproduce(chosen, size, store, seeds=seeds, workers=workers,
                      scheduler=scheduler, serial=serial, progress=progress,
                      name=f"section 5 ({size})")
