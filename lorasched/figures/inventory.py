"""The claims inventory: each paper's claim sentences, quoted with their section
(``sentences/<system>.toml``), and the checks that hold the claims tables to them -- one
row per claim a sentence states, in the paper's own setting, and no row that answers none.

A row cites what it answers in its ``sentence`` column (:func:`cite`: ``"§5.2b (EFT)"``,
the sentence's id and, where it states several quantities, the part)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pandas as pd

from ..model.errors import InputError
from .verdicts import FITTED

#: the kinds of sentence: a claim of the evaluation, or a worked example (arithmetic the
#: paper shows to explain its design: a check of the implementation, counted apart)
CLAIM, WORKED = "claim", "worked"
_FOLDER = Path(__file__).with_name("sentences")
_CITE = re.compile(r"^§(?P<id>\S+)(?: \((?P<part>.+)\))?$")


@dataclass(frozen=True)
class Sentence:
    """One sentence of a paper: its id (section and letter, ``"5.2b"``), the figure or
    table it speaks of, its words as printed, the quantities it states (``parts``; one
    unnamed part when it states one), its kind, and the earlier sentence whose claim it
    says again (``repeats``, a :func:`cite` without its ``§``), if any."""

    system: str
    id: str
    figure: str
    quote: str
    parts: tuple[str, ...] = ("",)
    kind: str = CLAIM
    repeats: str = ""

    @property
    def section(self) -> str:
        """The paper's section: the id without its letter."""
        return self.id.rstrip("abcdefghijklmnopqrstuvwxyz")

    def cites(self) -> list[str]:
        """What a claims row cites to answer each part (:func:`cite`)."""
        return [cite(self.id, p) for p in self.parts]


def cite(sentence: str, part: str = "") -> str:
    """The ``sentence`` column of a claims row that answers ``part`` of sentence
    ``sentence`` (its id)."""
    return f"§{sentence}" + (f" ({part})" if part else "")


def parse(cited: str) -> tuple[str, str]:
    """``(id, part)`` of a :func:`cite`; InputError on anything else."""
    m = _CITE.match(cited or "")
    if not m:
        raise InputError(f"{cited!r} does not cite a sentence: expected '§<id>' or "
                         "'§<id> (<part>)'")
    return m["id"], m["part"] or ""


@cache
def sentences(system: str) -> tuple[Sentence, ...]:
    """The inventory of ``system`` (``"pdftsp"``, ``"titan"``, ``"allpass"``), in the
    paper's order."""
    path = _FOLDER / f"{system}.toml"
    if not path.exists():
        raise InputError(f"no claims inventory for {system!r}: "
                         f"{sorted(p.stem for p in _FOLDER.glob('*.toml'))}")
    raw = tomllib.loads(path.read_text())
    out = []
    for e in raw["sentence"]:
        kind = e.get("kind", CLAIM)
        if kind not in (CLAIM, WORKED):
            raise InputError(f"{path.name}: sentence {e['id']} has kind {kind!r}")
        out.append(Sentence(system, e["id"], e["figure"], " ".join(e["quote"].split()),
                            tuple(e.get("parts", ("",))), kind, e.get("repeats", "")))
    ids = [s.id for s in out]
    if len(set(ids)) != len(ids):
        raise InputError(f"{path.name}: a sentence id twice")
    return tuple(out)


def known_cites(system: str) -> dict[str, Sentence]:
    """Every part a row may cite in ``system``'s inventory, to its sentence (a sentence
    that repeats another is answered by that one's row and cites nothing of its own)."""
    return {c: s for s in sentences(system) if not s.repeats for c in s.cites()}


def check_cite(system: str, cited: str) -> str:
    """``cited`` if it names a part of ``system``'s inventory (or is empty); InputError
    naming the sentence's parts otherwise -- what a claims table calls on each row."""
    if not cited:
        return cited
    sid, _ = parse(cited)
    if cited not in known_cites(system):
        parts = [c for c, s in known_cites(system).items() if s.id == sid]
        raise InputError(f"{cited!r} is not a claim of {system}'s inventory"
                         + (f"; that sentence's parts: {parts}" if parts else ""))
    return cited


def problems(system: str, rows: pd.DataFrame, *, paper="paper", worked="worked example"
             ) -> list[str]:
    """What breaks the inventory in ``system``'s claims table ``rows`` (columns
    ``sentence``, ``scope``, ``verdict``, ``figure``, ``claim``): a row in the paper's
    own setting (scope ``paper``, or a fitted one: :data:`~.verdicts.FITTED`) or a
    worked example's that cites nothing, or a sentence of the other kind; a part two such
    rows answer (said first when their verdicts differ); a part of the inventory no such
    row answers. Empty when the table holds."""
    known = known_cites(system)
    out = []
    counted = rows[rows["scope"].isin([paper, worked, *FITTED])]
    by_part: dict[str, list] = {}
    for r in counted.to_dict("records"):
        name = f"{r['figure']}: {r['claim']!r}"
        cited = r.get("sentence") or ""
        if not cited:
            out.append(f"{name} cites no sentence of the paper")
            continue
        if cited not in known:
            out.append(f"{name} cites {cited!r}, not in the inventory")
            continue
        want = WORKED if r["scope"] == worked else CLAIM
        if known[cited].kind != want:
            out.append(f"{name} is counted as a {r['scope']!r} row but cites a "
                       f"{known[cited].kind} sentence, {cited}")
        by_part.setdefault(cited, []).append(r)
    for cited, rs in by_part.items():
        if len(rs) > 1:
            verdicts = sorted({r["verdict"] for r in rs})
            names = "; ".join(f"{r['figure']}: {r['claim']!r} ({r['verdict']})" for r in rs)
            out.append(f"{cited} answered by {len(rs)} rows"
                       + (f" with different verdicts {verdicts}" if len(verdicts) > 1 else "")
                       + f": {names}")
    for cited, s in known.items():
        if cited not in by_part:
            out.append(f"{cited} ({s.figure}: {s.quote[:60]}...) has no row")
    return out


def table(system: str, rows: pd.DataFrame, *, paper="paper", worked="worked example"
          ) -> pd.DataFrame:
    """The inventory beside ``system``'s claims table ``rows``: one line per part of each
    sentence, with the row in the paper's own setting (or the worked example's) that
    answers it and its verdict (a sentence that repeats another points to that one's row,
    whose verdict answers both)."""
    counted = rows[rows["scope"].isin([paper, worked, *FITTED])]
    verdict = dict(zip(counted["sentence"], counted["verdict"], strict=True))
    claim = dict(zip(counted["sentence"], counted["claim"], strict=True))
    out = []
    for s in sentences(system):
        for i, part in enumerate(s.parts):
            c = cite(s.id, part)
            answer = cite(*parse("§" + s.repeats)) if s.repeats else c
            out.append({"sentence": c, "figure": s.figure, "kind": s.kind,
                        "quote": s.quote if i == 0 else "〃",
                        "row": (f"answered by §{s.repeats}" if s.repeats
                                else claim.get(c, "")),
                        "verdict": verdict.get(answer, "")})
    return pd.DataFrame(out)


def counts(system: str) -> dict[str, int]:
    """The inventory's size: claim sentences, the claims they state (parts, a repeat
    left out), worked-example sentences and their checks."""
    ss = sentences(system)
    claims = [s for s in ss if s.kind == CLAIM]
    worked = [s for s in ss if s.kind == WORKED]
    return {"sentences": len(claims), "repeats": sum(bool(s.repeats) for s in claims),
            "claims": sum(len(s.parts) for s in claims if not s.repeats),
            "worked sentences": len(worked), "worked checks": sum(len(s.parts) for s in worked)}


__all__ = ["CLAIM", "WORKED", "Sentence", "check_cite", "cite", "counts", "known_cites",
           "parse", "problems", "sentences", "table"]
