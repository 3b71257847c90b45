"""Prose that cannot contradict its verdict: a sentence that states a direction or a
magnitude about a claim is written by :func:`says` with the verdict of the claim's own
test, which refuses words another verdict owns; :func:`check_page` reads a built page back
and names every sentence whose words or verdict disagree with the page's claims table."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from ..model.errors import InputError
from .verdicts import (
    CONSISTENT,
    CONTRADICTED,
    DEPENDS,
    INCONCLUSIVE,
    MAGNITUDE_OFF,
    NOT_TESTABLE,
    REPRODUCED,
)

#: the words that say each verdict; a sentence about a claim carries one of its verdict's
#: and none of another's (case-insensitive)
MARKERS = {
    REPRODUCED: ("as the paper reports",),
    CONSISTENT: ("not yet decided",),
    MAGNITUDE_OFF: ("magnitude differs from the paper's",),
    CONTRADICTED: ("unlike the paper",),
    INCONCLUSIVE: ("the seeds cannot tell",),
    NOT_TESTABLE: ("cannot be tested here",),
    DEPENDS: ("depends on the reading",),
}
#: words that assert agreement with the paper's result (patterns): only a reproduced
#: claim's sentence may use them ("as in the paper's evaluation" names a method, not a
#: result)
AGREEMENT = (r"as the paper (?:reports|states|claims|shows|finds)", r"as in the paper\b(?!'s)",
             r"reproduces the paper", r"agrees with the paper", r"matches the paper")
#: the class of the span :func:`says` writes
CLASS = "claim-says"


def _plain(text: str) -> str:
    """``text`` lower-cased, a typographic apostrophe (a built page's) made plain."""
    return text.lower().replace("\u2019", "'")


def _has(text: str, words) -> list[str]:
    low = _plain(text)
    return [w for w in words if w in low]


def _agrees(text: str) -> list[str]:
    low = _plain(text)
    return [m.group(0) for p in AGREEMENT for m in re.finditer(p, low)]


def words_problem(verdict: str, text: str) -> str:
    """Why ``text`` cannot be said of a claim judged ``verdict`` ("" when it can): it
    lacks its verdict's words, or uses another verdict's or agreement's."""
    if verdict not in MARKERS:
        return f"no sentence speaks for the verdict {verdict!r}"
    if not _has(text, MARKERS[verdict]):
        return f"a {verdict} claim's sentence lacks {MARKERS[verdict][0]!r}"
    others = [w for v, ws in MARKERS.items() if v != verdict for w in _has(text, ws)]
    if verdict != REPRODUCED:
        others += _agrees(text)
    if others:
        return f"a {verdict} claim's sentence says {sorted(set(others))}"
    return ""


def says(verdict: str, text: str, claim: str = "", variant: str = "") -> str:
    """``text``, a sentence about ``claim`` (as the claims table names it, with its
    ``variant``) judged ``verdict``, marked for :func:`check_page`. ``InputError`` if the
    words do not fit the verdict (:func:`words_problem`): such a page is not built."""
    problem = words_problem(verdict, text)
    if problem:
        raise InputError(f"{claim or 'a claim'}: {problem}: {text!r}")
    key = html.escape(f"{claim}|{variant}", quote=True)
    return (f'<span class="{CLASS}" data-claim="{key}" data-verdict="{verdict}">'
            f"{text}</span>")


class _Spans(HTMLParser):
    """The marked sentences of a page, and its text outside them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.spans: list[dict] = []
        self.outside: list[str] = []
        self._depth = 0  # inside a marked span: the span nesting below it
        self._skip = 0  # inside <script> or <style>

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "style"):
            self._skip += 1
        elif self._depth:
            self._depth += tag == "span"
        elif tag == "span" and CLASS in (a.get("class") or "").split():
            claim, _, variant = (a.get("data-claim") or "").partition("|")
            self.spans.append({"claim": claim, "variant": variant,
                               "verdict": a.get("data-verdict", ""), "text": ""})
            self._depth = 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        elif self._depth and tag == "span":
            self._depth -= 1

    def handle_data(self, data):
        if self._skip:
            return
        if self._depth:
            self.spans[-1]["text"] += data
        else:
            self.outside.append(data)


def check_page(page_html: str, verdicts: dict | None = None) -> list[str]:
    """Every disagreement on one built page between its prose and its verdicts:

    - a marked sentence whose words do not fit its verdict (:func:`words_problem`);
    - a marked sentence whose verdict is not its claim's in ``verdicts`` (``{(claim,
      variant): verdict}``, the page's claims table; a claim not in it is not compared);
    - words of agreement with the paper (:data:`AGREEMENT`) outside a marked sentence.
    """
    parser = _Spans()
    parser.feed(page_html)
    problems = []
    for s in parser.spans:
        text = re.sub(r"\s+", " ", s["text"]).strip()
        where = f"{s['claim'] or 'a sentence'}" + (f" ({s['variant']})" if s["variant"] else "")
        problem = words_problem(s["verdict"], text)
        if problem:
            problems.append(f"{where}: {problem}: {text!r}")
        got = (verdicts or {}).get((s["claim"], s["variant"]))
        if got is not None and got != s["verdict"]:
            problems.append(f"{where}: the sentence speaks for {s['verdict']!r}, the claims "
                            f"table says {got!r}: {text!r}")
    outside = re.sub(r"\s+", " ", " ".join(parser.outside))
    for sentence in re.split(r"(?<=[.!?])\s+", outside):
        found = _agrees(sentence)
        if found:
            problems.append(f"unmarked prose agrees with the paper ({found[0]!r}): "
                            f"{sentence.strip()[:200]!r}")
    return problems


__all__ = ["AGREEMENT", "CLASS", "MARKERS", "check_page", "says", "words_problem"]
