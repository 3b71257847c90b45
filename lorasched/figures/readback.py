"""The built book's tables read back as a reader sees them: a column without a name (a data
column whose header is blank, or a bare row index of numbers) is a generator's wart, found
here page by page (:func:`unnamed_columns`)."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser


class _Tables(HTMLParser):
    """Each table of a page as (header rows of texts, rows of (tag, text) cells)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[tuple[list[list[str]], list[list[tuple[str, str]]]]] = []
        self._depth = 0
        self._part = None
        self._cell = None
        self._row: list[tuple[str, str]] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self._depth += 1
            if self._depth == 1:
                self.tables.append(([], []))
        elif self._depth == 1 and tag in ("thead", "tbody"):
            self._part = tag
        elif self._depth == 1 and tag == "tr":
            self._row = []
        elif self._depth == 1 and tag in ("th", "td") and self._row is not None:
            self._cell = [tag, ""]

    def handle_endtag(self, tag):
        if tag == "table":
            self._depth -= 1
        elif self._depth == 1 and tag in ("th", "td") and self._cell is not None:
            self._row.append((self._cell[0], " ".join(self._cell[1].split())))
            self._cell = None
        elif self._depth == 1 and tag == "tr" and self._row is not None:
            head, body = self.tables[-1]
            if self._part == "thead":
                head.append([text for _, text in self._row])
            elif self._part != "thead":
                body.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1] += data


#: a row label that is only a number: a frame's default index shown
_NUMBER = re.compile(r"^-?\d+$")


def unnamed_columns(page_html: str) -> list[str]:
    """Each column of the page's tables that has no name: a blank header over data cells
    (``<td>``), or a blank header over row labels that are all whole numbers (an index the
    generator forgot to hide). A column is named by any of its header rows (a frame's
    index names stand in a row of their own); row labels that are words under a blank
    corner are a named table's rows, not a column, and pass. One line per column found,
    naming its table by its first header and the column's first cell."""
    parser = _Tables()
    parser.feed(page_html)
    found = []
    for rows, body in parser.tables:
        if not rows or not body:
            continue
        head = rows[0]
        for c in range(len(head)):
            if any(c < len(r) and html.unescape(r[c]).strip() for r in rows):
                continue
            cells = [row[c] for row in body if c < len(row)]
            if not cells:
                continue
            data = any(tag == "td" for tag, _ in cells)
            numbers = all(_NUMBER.match(text) for _, text in cells)
            if data or numbers:
                named = [h for h in head if h.strip()]
                found.append(f"column {c} of the table headed {named[:3]}: unnamed "
                             f"{'data' if data else 'index'} (first cell {cells[0][1]!r})")
    return found



#: a decimal: its digits after any sign (not an identifier's, as arXiv:2510.00206)
_DECIMAL = re.compile(r"(?<![\w.,:])[-+−±]?(\d[\d,]*)\.(\d+)(?![\w.])")
#: significant digits a decimal may print (the quoted-numbers tables give six)
MAX_DIGITS = 6
#: decimal places a number may print, however few of them count (0.000000000000000117)
MAX_PLACES = 9
#: "for 320 jobs, not 320": a number set against itself
_CONTRAST = re.compile(r"(?<![\w.,])(\d[\d,.]*\d|\d)\b([^.;:!?]{0,40}?),? not \1(?![\w.,]\d)")


def page_text(page_html: str) -> str:
    """The prose and table text of a page, without its scripts, styles and code."""
    text = re.sub(r"<(script|style|pre|code)\b.*?</\1>", " ", page_html, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def text_problems(page_html: str) -> list[str]:
    """The page's numbers printed past their precision (a decimal with more than
    :data:`MAX_DIGITS` significant digits or :data:`MAX_PLACES` places) and its sentences
    that set a number against itself ("for 320 jobs, not 320"); code is not read."""
    text = page_text(page_html)
    found = []
    for m in _DECIMAL.finditer(text):
        whole, places = m.group(1).replace(",", ""), m.group(2)
        digits = (whole + places).lstrip("0")
        if len(digits) > MAX_DIGITS or len(places) > MAX_PLACES:
            found.append(f"past its precision: {m.group(0)!r} in "
                         f"'…{text[max(0, m.start() - 50):m.end() + 20]}…'")
    for m in _CONTRAST.finditer(text):
        found.append(f"set against itself: '…{text[max(0, m.start() - 30):m.end()]}…'")
    return found


__all__ = ["MAX_DIGITS", "MAX_PLACES", "page_text", "text_problems", "unnamed_columns"]
