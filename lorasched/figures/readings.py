"""The readings the claims inventory declares: for each claim the paper states, what is
measured, on which scale, against which threshold and on which side, the paper's number and
band, the setting, and the premise the claim needs (``[[sentence.reading]]`` beside its
sentence in ``sentences/<system>.toml``), declared before the results; and the check that
every row was judged by a reading its claim declares (:func:`problems`)."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from functools import cache

import pandas as pd

from ..model.errors import InputError
from .inventory import _FOLDER, cite, known_cites
from .numbers import num
from .verdicts import COMPARED, DEPENDS, EACH, JUDGE, OWN, SCALES, band_of

#: a claim judged from a fitted slope's interval (its sign: "grows", "rises")
TREND = "trend"
#: a claim made "at every setting": the worst of its settings' verdicts, each judged by the
#: reading's scale, threshold and side
WORST = "every setting"
#: a claim whose sentence admits two readings, each declared (``name``): their common
#: verdict, or *depends on the reading*
EITHER = "either reading"
#: a claim with nothing to judge: the paper gives no number, or lorasched cannot run its data
NONE = "none"
#: the rules a recorded row names (:class:`~.verdicts.Reading`) and those a page composes
RECORDED, COMPOSED = (JUDGE, EACH), (TREND, WORST, EITHER)
RULES = (*RECORDED, *COMPOSED, NONE)
#: a reading of the claim itself, or of the premise it needs (judged, and deciding the row,
#: where the premise fails: an "improvement" where ours loses)
CLAIM, PREMISE = "claim", "premise"
_SIDES = {"above": 1, "below": -1}
#: how close a recorded number must come to the declared one (relative): the inventory
#: states derived numbers (a ratio of the paper's table) to six significant digits
RTOL = 1e-5


@dataclass(frozen=True)
class Declared:
    """One declared reading of one claim (a part of a sentence, :func:`~.inventory.cite`).

    ``rule``: :data:`RULES`; ``scale``: the interval's scale (:data:`~.verdicts.SCALES`);
    ``threshold`` and ``side`` (+1: the paper claims ours lies above it, -1 below);
    ``paper``: the paper's number (None: a direction only); ``band``: the band's ends where
    they are not :func:`~.verdicts.band_of`'s (the paper's rounding); ``strict``: lying on
    the threshold fails (a bound checked instance by instance); ``role``: :data:`CLAIM` or
    :data:`PREMISE`; ``name``: which reading, where a claim declares two."""

    cite: str
    quantity: str
    rule: str
    scale: str = ""
    threshold: float = math.nan
    side: int = 0
    paper: float | None = None
    band: tuple | None = None
    strict: bool = False
    setting: str = ""
    premise: str = ""
    role: str = CLAIM
    name: str = ""

    def text(self) -> str:
        """The reading in a few words, as the inventory's table shows it."""
        if self.rule == NONE:
            return f"{self.quantity}: not compared"
        where = {1: "above", -1: "below"}.get(self.side, "")
        what = (f"{self.quantity}: {self.rule}, {self.scale or 'linear'} scale, {where} "
                f"{num(self.threshold)}")
        if self.paper is not None:
            lo, hi = self.band or band_of(self.paper)
            what += f", paper {num(self.paper)} (band {num(lo)} to {num(hi)})"
        if self.setting:
            what += f"; {self.setting}"
        if self.premise:
            what += f"; needs {self.premise}"
        return (f"{self.name}: " if self.name else "") + (
            "premise: " if self.role == PREMISE else "") + what


def _declared(system: str, sid: str, e: dict) -> Declared:
    where = f"{system}.toml, sentence {sid}"
    rule = e.get("rule", "")
    if rule not in RULES:
        raise InputError(f"{where}: rule {rule!r} is not one of {RULES}")
    scale = e.get("scale", "")
    if scale and scale not in SCALES:
        raise InputError(f"{where}: scale {scale!r} is not one of {SCALES}")
    side = e.get("side", "")
    if rule != NONE and side not in _SIDES:
        raise InputError(f"{where}: side must be one of {tuple(_SIDES)}, got {side!r}")
    role = e.get("role", CLAIM)
    if role not in (CLAIM, PREMISE):
        raise InputError(f"{where}: role {role!r} is not {CLAIM!r} or {PREMISE!r}")
    band = tuple(float(b) for b in e["band"]) if "band" in e else None
    return Declared(cite(sid, e.get("part", "")), e.get("quantity", ""), rule, scale,
                    float(e.get("threshold", math.nan)), _SIDES.get(side, 0),
                    float(e["paper"]) if "paper" in e else None, band,
                    bool(e.get("strict", False)), e.get("setting", ""), e.get("premise", ""),
                    role, e.get("name", ""))


@cache
def declared(system: str) -> dict[str, tuple[Declared, ...]]:
    """Each claim of ``system``'s inventory (its :func:`~.inventory.cite`) to the readings
    its sentence declares, in order. ``InputError`` where a reading names no part of its
    sentence, or a claim declares none."""
    raw = tomllib.loads((_FOLDER / f"{system}.toml").read_text())
    known = known_cites(system)
    out: dict[str, list[Declared]] = {}
    for e in raw["sentence"]:
        for r in e.get("reading", ()):
            d = _declared(system, e["id"], r)
            if d.cite not in known:
                raise InputError(f"{system}.toml: a reading of {d.cite!r}, which is not a "
                                 "claim of the inventory (a part of its sentence)")
            out.setdefault(d.cite, []).append(d)
    lacking = [c for c in known if known[c].kind == "claim" and c not in out]
    if lacking:
        raise InputError(f"{system}.toml: no reading declared for {lacking}")
    return {c: tuple(v) for c, v in out.items()}


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=RTOL, abs_tol=1e-9)


def _number(x) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def matches(d: Declared, row) -> bool:
    """Whether a claims row's recorded reading (its record columns: ``rule``, ``scale``,
    ``threshold``, ``side``, ``paper number``, ``band low``/``band high``) is ``d``."""
    # a trend is judged as an estimate is: its slope's interval against the threshold
    if (JUDGE if d.rule == TREND else d.rule) != row.get("rule", ""):
        return False
    if d.scale and row.get("scale", "") and d.scale != row["scale"]:
        return False
    paper = _number(row.get("paper number"))
    if not (_close(d.threshold, _number(row.get("threshold")))
            and d.side == int(_number(row.get("side")) or 0) and _close(d.paper, paper)):
        return False
    if d.paper is not None:
        lo, hi = d.band or band_of(d.paper)
        if not (_close(lo, _number(row.get("band low")))
                and _close(hi, _number(row.get("band high")))):
            return False
    return d.strict == (str(row.get("strict")) in ("True", "1", "true"))


def problems(system: str, rows: pd.DataFrame) -> list[str]:
    """Where ``system``'s claims rows in the paper's own setting (scopes
    :data:`~.verdicts.OWN`) leave the readings their claims declare: a row judged by a
    recorded reading (:data:`RECORDED`) that matches none of its claim's; a compared row
    whose claim declares nothing to compare (:data:`NONE`); a row that *depends on the
    reading* whose claim declares fewer than two. Empty when every row holds."""
    table = declared(system)
    out = []
    own = rows[rows["scope"].isin(OWN)]
    for r in own.to_dict("records"):
        cited = r.get("sentence", "")
        if not cited:  # a row that cites nothing: the inventory's own check says so
            continue
        ds = table.get(cited, ())
        name = f"{r['figure']}: {r['claim']!r} ({cited})"
        if not ds:
            out.append(f"{name} answers no claim with a declared reading")
            continue
        rule = r.get("rule", "")
        if isinstance(rule, str) and rule:
            if not any(matches(d, r) for d in ds):
                got = (f"{rule}, {r.get('scale') or 'no'} scale, threshold "
                       f"{r.get('threshold')}, side {r.get('side')}, paper "
                       f"{r.get('paper number') or 'none'}")
                out.append(f"{name} was judged by ({got}), which its claim does not "
                           f"declare: {'; '.join(d.text() for d in ds)}")
        elif r["verdict"] in COMPARED and all(d.rule == NONE for d in ds):
            out.append(f"{name} is {r['verdict']!r}, but its claim declares nothing to "
                       "compare")
        if r["verdict"] == DEPENDS and sum(d.role == CLAIM for d in ds) < 2:
            out.append(f"{name} depends on the reading, but its claim declares one")
    return out


def table(system: str) -> pd.DataFrame:
    """The declared readings of ``system``, one line each: the claim (its cite), the
    reading's name and role, and the reading in words (:meth:`Declared.text`)."""
    return pd.DataFrame([{"sentence": c, "reading": d.text()}
                         for c, ds in declared(system).items() for d in ds])


def text(system: str) -> dict[str, str]:
    """Each claim's declared readings in words, joined (what the inventory's table shows)."""
    return {c: " | ".join(d.text() for d in ds) for c, ds in declared(system).items()}


__all__ = ["CLAIM", "COMPOSED", "EITHER", "NONE", "PREMISE", "RECORDED", "RULES", "TREND",
           "WORST", "Declared", "declared", "matches", "problems", "table", "text"]
