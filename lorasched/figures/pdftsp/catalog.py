"""Every figure of pdFTSP's section 5, by key, and the batch that runs their cells."""

from __future__ import annotations

from ..base import Figure
from ..catalog import Catalogue
from .calibration import Calibration
from .common import ships
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

#: the pages, and the batch that runs their cells (with the sensitivity page's, for all)
CATALOGUE = Catalogue(FIGURES, "section 5", extra=(SENSITIVITY,), ships=ships)
figure = CATALOGUE.figure
sweeps = CATALOGUE.sweeps
reproduce = CATALOGUE.reproduce
