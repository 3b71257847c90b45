"""Tables as people read them (:func:`styled`): a page's claims, summary and quoted
numbers with their index hidden where it means nothing, verdicts coloured, numbers to
significant digits, markdown links made HTML links, long whys and per-seed values folded;
:func:`md_link` writes the links. See :doc:`/reference/figures`.
"""

from __future__ import annotations

import hashlib
import html
import math
import re

import numpy as np
import pandas as pd

from ..model.errors import InputError
from . import numbers
from .base import Prose
from .verdicts import COLOURS, GREY


def _cell(v):
    """One cell for people: a float to significant digits (:func:`.numbers.num`), True and
    False as yes and no, a missing value blank."""
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return ""
    if isinstance(v, bool | np.bool_):
        return "yes" if v else "no"
    if isinstance(v, float | np.floating):
        return numbers.num(v)
    return v


#: a markdown link, ``[words](target)``; a bracket in its words is escaped (``\[``,
#: ``\]``: :func:`md_link`)
_MD_LINK = re.compile(r"\[((?:\\[\[\]]|\\(?![\[\]])|[^\[\]\\])+)\]\(([^)\s]+)\)")


def md_link(text: str, target: str) -> str:
    """``text`` as a markdown link to ``target`` (``page.ipynb#anchor``), its brackets
    escaped; a table shown by :func:`styled` turns it into an HTML link. A target that is
    empty or holds a space or a ``)`` (no markdown link can hold it) is an InputError."""
    if not isinstance(target, str) or not re.fullmatch(r"[^)\s]+", target):
        raise InputError(f"target must be a page and anchor with no space or ')', "
                         f"got {target!r}")
    words = str(text).replace("[", "\\[").replace("]", "\\]")
    return f"[{words}]({target})"


def _links(v):
    """A cell's text escaped for HTML, its markdown links ``[words](page.ipynb#anchor)``
    as HTML links (a target ``page.ipynb`` is the built ``page.html``)."""
    if not isinstance(v, str):
        return _cell(v)
    return _MD_LINK.sub(
        lambda m: f'<a href="{re.sub(r".ipynb(?=#|$)", ".html", m.group(2))}">'
                  f"{_words(m)}</a>", html.escape(v, quote=False))


def _words(link: re.Match) -> str:
    """A markdown link's words, its escaped brackets as brackets."""
    return re.sub(r"\\([\[\]])", r"\1", link.group(1))


#: a why longer than this (characters, as read) is folded: its first words show, the rest
#: opens on a click, so that a claims table stays one line a row
FOLD_AFTER = 80
#: how many words of a folded why show
FOLD_WORDS = 8


def _linked(v):
    """A why for a table: its markdown links as HTML links (:func:`_links`); a why longer
    than :data:`FOLD_AFTER` characters folded in a ``<details>`` whose summary is its first
    :data:`FOLD_WORDS` words, unless the why is one link and nothing else (the summary's
    short why, cut to its words already: :func:`.summary.linked`), which shows whole, a
    link to where the rest is."""
    if not isinstance(v, str):
        return _cell(v)
    linked = _links(v)
    if _MD_LINK.fullmatch(v.strip()):
        return linked
    plain = _MD_LINK.sub(_words, v)  # as read
    if len(plain) <= FOLD_AFTER:
        return linked
    teaser = html.escape(" ".join(plain.split()[:FOLD_WORDS]).rstrip(",;:"), quote=False)
    return f'<details class="why"><summary>{teaser} …</summary>{linked}</details>'


#: how many of a row's per-seed values show before the rest folds
FOLD_SEEDS = 3


def _seeds_folded(v):
    """A claims row's per-seed values (``"a, b, c, ..."``): the first :data:`FOLD_SEEDS`
    shown, all of them on a click, so that the column does not make the row screen-tall."""
    if not isinstance(v, str):
        return _cell(v)
    values = v.split(", ")  # ", " joins them (verdicts.per_seed); "2,572" is one value
    if len(values) <= FOLD_SEEDS:
        return html.escape(v, quote=False)
    shown = ", ".join(values[:FOLD_SEEDS])
    return (f'<details class="seeds"><summary>{html.escape(shown, quote=False)} … '
            f"({len(values)})</summary>{html.escape(v, quote=False)}</details>")


def styled(table):
    """A table for display: its index hidden when it is unnamed whole numbers (pandas'
    default 0, 1, 2, ..., or what is left of it after rows were taken: it means nothing)
    and kept when it labels the rows, text left-aligned, and every column
    whose name starts with ``verdict`` coloured by verdict (claims and summary tables);
    floats to significant digits, True/False as yes/no, a missing value blank. A Series is
    shown as a one-column table; anything else is returned as it is."""

    def colour(v):
        return f"color: {COLOURS.get(v, GREY)}; font-weight: bold"

    if isinstance(table, pd.Series):
        table = table.to_frame()
    if not isinstance(table, pd.DataFrame):
        return table
    # a uuid of the table's content: the same HTML on every run (nbval compares it), and
    # another for every other table, so that two tables on one page do not share CSS rules
    # (they did: a verdict of one table was drawn in another's colour)
    uuid = "claims-" + hashlib.sha256(table.to_csv().encode()).hexdigest()[:10]
    out = table.style.set_uuid(uuid)
    index = table.index
    if (index.nlevels == 1 and index.name is None
            and pd.api.types.is_integer_dtype(index.dtype)):
        out = out.hide(axis="index")
    verdicts = [c for c in table.columns if str(c).startswith("verdict")]
    if verdicts:
        out = out.map(colour, subset=verdicts)
    # a missing value means "does not apply" (a summary's rows come from figures with
    # other variant columns): blank, never "nan" or "None"
    out = out.format(_cell)
    if "why" in table.columns:  # a why's markdown link to where a mechanism is measured
        out = out.format(_linked, subset=["why"])
    if "figure" in table.columns:  # a figure's markdown link to its page (the summary's)
        out = out.format(_links, subset=["figure"])
    if "per seed" in table.columns:
        out = out.format(_seeds_folded, subset=["per seed"])
    out = out.format_index(_cell, axis="index")
    return out.set_properties(**{"text-align": "left"})


def quoted_table(table: pd.DataFrame):
    """A page's table of quoted numbers (:meth:`Figure.quoted`) for display: each value
    to six significant digits beside the number as the prose prints it; a sentence when
    the prose quotes none."""
    if table.empty:
        return Prose("The prose above quotes no number beyond its tables and its data.")
    out = table.copy()
    out["value"] = [f"{v:,.6g}" for v in out["value"]]
    return styled(out).set_table_styles([{"selector": "td, th",
                                          "props": "padding: 0.1em 1.2em 0.1em 0"}])
