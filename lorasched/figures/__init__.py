"""One object per figure or table of each paper (:mod:`.base`), by system: the ``FIGURES`` of
:mod:`.pdftsp`, :mod:`.titan` and :mod:`.allpass`, and :func:`load`, which reads a page's data
file back (:mod:`.datafiles`; a page's links to its files and their publishing:
:mod:`.publish`). See :doc:`/reference/figures`.
"""

from . import allpass, datafiles, pdftsp, publish, titan
from .base import Figure, Prose, default_store, reproduce
from .datafiles import FIGURES, load
from .publish import data_files
from .tables import quoted_table, styled

__all__ = ["FIGURES", "Figure", "Prose", "allpass", "data_files", "datafiles",
           "default_store", "load", "pdftsp", "publish", "quoted_table", "reproduce",
           "styled", "titan"]
