"""One object per figure or table of each paper (:mod:`.base`), by system.

``lorasched.figures.pdftsp.FIGURES`` holds pdFTSP's section 5,
``lorasched.figures.titan.FIGURES`` TITAN's. A figure object gives its
sweep declaration, its claims (paper, ours, verdict) and its closing prose, all computed
from data; the notebooks call them.
"""

from . import pdftsp, titan
from .base import Figure, Prose, default_store, reproduce, styled

#: system -> {figure key -> Figure}
FIGURES = {"pdftsp": pdftsp.FIGURES, "titan": titan.FIGURES}

__all__ = ["FIGURES", "Figure", "Prose", "default_store", "pdftsp", "reproduce", "styled",
           "titan"]
