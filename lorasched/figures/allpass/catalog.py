"""Every Allpass page, by key: Fig. 1 and Figs. 6-12 (one module each), and the readings
page."""

from __future__ import annotations

from ..base import Figure
from .alternative_readings import Readings
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
