"""One object per figure or table of each paper (:mod:`.base`), by system: the ``FIGURES`` of
:mod:`.pdftsp`, :mod:`.titan` and :mod:`.allpass`, and :func:`load`, which reads a page's data
file back (:mod:`.datafiles`). See :doc:`/reference/figures`.
"""

from . import allpass, datafiles, pdftsp, titan
from .base import Figure, Prose, default_store, quoted_table, reproduce, styled
from .datafiles import FIGURES, data_files, load

__all__ = ["FIGURES", "Figure", "Prose", "allpass", "data_files", "datafiles",
           "default_store", "load", "pdftsp", "quoted_table", "reproduce", "styled",
           "titan"]
