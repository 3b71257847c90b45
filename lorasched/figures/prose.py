"""Prose that cannot contradict its verdict: a sentence that states a direction or a
magnitude about a claim is written by :func:`says` with the verdict of the claim's own
test, which refuses words another verdict owns (and, for a claim whose verdict the build's
ledger found to depend on lorasched's choice, :func:`composing`, says so and speaks for that
verdict); :func:`check_page` reads a built page back and names every sentence whose words or
verdict disagree with the page's claims table."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from ..model.errors import InputError
from .verdicts import (
    CONSISTENT,
    CONTRADICTED,
    DEPENDS,
    DEPENDS_ON,
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
    DEPENDS_ON: ("depends on lorasched's choice",),
}
#: the verdicts a sentence states two of, each in its own words: it carries its own marker
#: and may carry the markers (and the agreement) of the verdicts it composes
COMPOSED = (DEPENDS_ON,)
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
    others = [w for v, ws in MARKERS.items() if v != verdict and (
        verdict not in COMPOSED or v in COMPOSED) for w in _has(text, ws)]
    if verdict not in (REPRODUCED, *COMPOSED):
        others += _agrees(text)
    if others:
        return f"a {verdict} claim's sentence says {sorted(set(others))}"
    return ""


#: the claims whose sentences :func:`says` composes: ``(claim, variant) -> (verdict under
#: lorasched's choice, the clause that says what else it depends on)``, as the page whose
#: rows the build's ledger renders set it (:func:`composing`)
_COMPOSING: dict = {}


def composing(claims: dict) -> None:
    """From now on (until the next call), a sentence :func:`says` writes about a claim of
    ``claims`` (``(claim, variant) -> (verdict, clause)``) with that claim's ``verdict``
    (its verdict under lorasched's choice) speaks for :data:`~.verdicts.DEPENDS_ON`: its
    words, then ``; <clause>`` (which carries that verdict's marker). The page that renders
    its claims table from the build's ledger sets its own (:func:`.ledger.page`), so that
    its prose gives the verdict its claims table gives."""
    bad = [k for k, (_, clause) in claims.items() if not _has(clause, MARKERS[DEPENDS_ON])]
    if bad:
        raise InputError(f"{bad[0]}: the clause lacks {MARKERS[DEPENDS_ON][0]!r}")
    _COMPOSING.clear()
    _COMPOSING.update(claims)


def composed(verdict: str, claim: str, variant: str = "") -> tuple[str, str]:
    """The verdict a page says of ``claim`` (with its ``variant``) judged ``verdict`` by
    its own test, and the clause it adds: :data:`~.verdicts.DEPENDS_ON` and the clause
    that says both verdicts where the build's ledger found it to depend on lorasched's
    choice (:func:`composing`), else ``verdict`` and ""."""
    hit = _COMPOSING.get((claim, variant))
    if hit is not None and hit[0] == verdict:
        return DEPENDS_ON, hit[1]
    return verdict, ""


def says(verdict: str, text: str, claim: str = "", variant: str = "") -> str:
    """``text``, a sentence about ``claim`` (as the claims table names it, with its
    ``variant``) judged ``verdict``, marked for :func:`check_page`; for a claim whose
    verdict depends on lorasched's choice (:func:`composing`), ``text`` and the clause
    that says so, marked :data:`~.verdicts.DEPENDS_ON`. ``InputError`` if the words do not
    fit the verdict (:func:`words_problem`): such a page is not built."""
    said, clause = composed(verdict, claim, variant)
    if clause:
        problem = words_problem(verdict, text)  # its own words first, then the clause
        if problem:
            raise InputError(f"{claim or 'a claim'}: {problem}: {text!r}")
        verdict, text = said, f"{text}; {clause}"
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


__all__ = ["AGREEMENT", "CLASS", "COMPOSED", "MARKERS", "check_page", "composed", "composing",
           "says", "words_problem"]
