"""One object per figure or table of each paper (:mod:`.base`), by system.

``lorasched.figures.pdftsp.FIGURES`` holds pdFTSP's section 5,
``lorasched.figures.titan.FIGURES`` TITAN's, ``lorasched.figures.allpass.FIGURES``
Allpass's. A figure object gives its sweep declaration, its claims (paper, ours, verdict)
and its closing prose, all computed from data; the notebooks call them, and write the data
behind each page as files (:mod:`.datafiles`) that :func:`load` reads back.
"""

from . import allpass, datafiles, pdftsp, titan
from .base import Figure, Prose, default_store, quoted_table, reproduce, styled
from .datafiles import FIGURES, data_files, load

__all__ = ["FIGURES", "Figure", "Prose", "allpass", "data_files", "datafiles",
           "default_store", "load", "pdftsp", "quoted_table", "reproduce", "styled",
           "titan"]
