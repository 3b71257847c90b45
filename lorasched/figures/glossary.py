"""The book's abbreviations and the check that each is defined where a page first uses it.

:data:`ABBREVIATIONS` maps each abbreviation the book uses to the phrases that define it;
:func:`undefined` reads a page's text and names every abbreviation whose first use has
none of its phrases nearby and is not a link to the book's glossary (``book/glossary.md``):
a MyST ``{term}`` role or a markdown link whose target names the glossary. The book's tests
run it on every page.
"""

from __future__ import annotations

import re

#: each abbreviation (and the few names that need a word of explanation) the book uses,
#: with the phrases that count as its definition (any one of them, case-insensitive)
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    # pdFTSP's baselines and solvers
    "EFT": ("earliest finish time",),
    "NTM": ("no task merging",),
    "MILP": ("mixed-integer linear program", "mixed-integer program"),
    "MIP": ("mixed-integer program", "mixed-integer linear program"),
    "LP": ("linear program", "linear relaxation"),
    "DP": ("dynamic program",),
    "RENS": ("relaxation enforced neighbourhood search",
             "relaxation enforced neighborhood search"),
    "RINS": ("relaxation induced neighbourhood search",
             "relaxation induced neighborhood search"),
    "HiGHS": ("solver",),
    "rens_lean": ("relaxation enforced neighbourhood search",),
    "rens_pscost": ("relaxation enforced neighbourhood search",),
    # pdFTSP's symbols
    "ρ": ("Lemma 3",),
    "OPT": ("optimum", "optimal welfare"),
    "ALG": ("algorithm's welfare",),
    # TITAN
    "JCT": ("job completion time", "completion time"),
    "SRTF": ("shortest remaining time first", "shortest-remaining-time-first"),
    "FIFO": ("first in, first out", "first-in, first-out", "first in first out"),
    "LUT": ("look-up table", "lookup table"),
    "FM": ("foundation model", "foundation-model"),
    "FMTrace": ("foundation model", "foundation-model"),
    "vCPU": ("virtual CPU",),
    # Allpass
    "DBF": ("demand bound function",),
    "TL": ("Tiresias-L",),
    "TL-NP": ("Tiresias-L",),
    "TL-P": ("Tiresias-L",),
    "SJF": ("shortest job first", "shortest-job-first"),
    "SJF-NP": ("shortest job first", "shortest-job-first"),
    "SJF-P": ("shortest job first", "shortest-job-first"),
    "HPA": ("Horizontal Pod Autoscaler",),
    "P50": ("median", "50th percentile"),
    "P90": ("90th percentile",),
    "p99": ("99th percentile",),
    # traces and the rest
    "MLaaS": ("Machine Learning as a Service", "machine-learning-as-a-service"),
    "PAI": ("Platform for AI", "Platform for Artificial Intelligence",
            "Platform of Artificial Intelligence"),
    "LoRA": ("low-rank adaptation", "low-rank adapter"),
    "FLOPs": ("floating-point operations",),
    "WAL": ("write-ahead log",),
    "CLI": ("command line", "command-line"),
}

#: characters of context shown on each side of an undefined first use
CONTEXT = 60

#: what :func:`reader_text` puts after a use that links to the glossary (an invisible
#: separator, U+2063): such a use is defined there
LINKED = "\u2063"

#: a MyST glossary reference, ``{term}`JCT``` or ``{term}`the JCT <JCT>```
_TERM = re.compile(r"\{term\}`([^`<]*?)\s*(?:<([^>`]+)>)?`")
#: a markdown link into the glossary, ``[JCT](../glossary.md#term-JCT)``
_GLOSSARY_LINK = re.compile(r"\[([^\]]+)\]\(([^)]*glossary[^)]*)\)")


def _pattern(abbreviation: str) -> re.Pattern[str]:
    """An abbreviation as a word: not part of a longer word or of a longer abbreviation
    ("TL" not in "TL-NP", "LP" not in "MILP", "SJF" not in "SJF-NP"); a plural "s", a
    lower-case prefix ("sub-MILP") and a lower-case or numeric suffix after a hyphen
    ("FM-1.5-roberta-base", "MILP-based") are allowed."""
    return re.compile(r"(?<!\w)(?<![A-Z0-9]-)" + re.escape(abbreviation)
                      + r"s?(?![\w]|-[A-Z])")


_PATTERNS = {a: _pattern(a) for a in ABBREVIATIONS}


def _without_code_blocks(markdown: str) -> str:
    """``markdown`` without its fenced code blocks; a MyST directive's fences
    (```` ```{note} ````) are left out but its text kept."""
    kept: list[str] = []
    open_directives, in_code = 0, False
    for line in markdown.splitlines():
        fence = re.match(r"\s*```+\s*(.*)$", line)
        if fence is None:
            if not in_code:
                kept.append(line)
        elif in_code:
            in_code = bool(fence[1])
        elif fence[1].startswith("{"):
            open_directives += 1
        elif not fence[1] and open_directives:
            open_directives -= 1
        else:
            in_code = True
    return "\n".join(kept)


def reader_text(markdown: str) -> str:
    """``markdown`` as a reader reads it, in one line: headings (lines starting with
    ``#``), fenced code blocks, inline code, link targets and markdown emphasis (``*``, ``_``)
    left out, escaped dollars plain, whitespace runs one space. A glossary reference (a
    ``{term}`` role or a link into the glossary) is its text followed by :data:`LINKED`."""
    text = re.sub(r"^[ \t]{0,3}#.*$", " ", _without_code_blocks(markdown), flags=re.M)
    text = _TERM.sub(lambda m: (m[1] or m[2]).strip() + LINKED, text)
    text = _GLOSSARY_LINK.sub(lambda m: m[1] + LINKED, text)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = text.replace("\\$", "$").replace("*", "")
    text = re.sub(r"(?<!\w)_+|_+(?!\w)", "", text)
    return " ".join(text.split())


def undefined(text: str, window: int = 200) -> list[tuple[str, str]]:
    """The abbreviations of ``text`` that are not defined where they first appear.

    Parameters
    ----------
    text : str
        A page's reader-visible markdown in reading order (it is read with
        :func:`reader_text`: headings, inline code and link targets do not count; a use
        that links to the glossary is defined there).
    window : int
        A first use is defined when one of its phrases (:data:`ABBREVIATIONS`) lies
        within this many characters before or after it (in :func:`reader_text`'s text).

    Returns
    -------
    list of (str, str)
        ``(abbreviation, context)`` for each abbreviation whose first use is undefined, in
        the order of those uses; the context is the text around the use.
    """
    plain = reader_text(text)
    found: list[tuple[int, str, str]] = []
    for abbreviation, phrases in ABBREVIATIONS.items():
        m = _PATTERNS[abbreviation].search(plain)
        if m is None or plain.startswith(LINKED, m.end()):
            continue
        near = plain[max(0, m.start() - window):m.end() + window].casefold()
        if any(p.casefold() in near for p in phrases):
            continue
        context = plain[max(0, m.start() - CONTEXT):m.end() + CONTEXT]
        found.append((m.start(), abbreviation, context))
    return [(a, c) for _, a, c in sorted(found)]


def spelled_out(text: str) -> str:
    """The abbreviations ``text`` uses, in the order of their first use, each with its
    defining phrase: "EFT (earliest finish time), SRTF (shortest remaining time first)"
    ("" if it uses none). A page that prints generated text puts this before it."""
    plain = reader_text(text)
    used = sorted((m.start(), a) for a in ABBREVIATIONS
                  if (m := _PATTERNS[a].search(plain)) is not None)
    return ", ".join(f"{a} ({ABBREVIATIONS[a][0]})" for _, a in used)
