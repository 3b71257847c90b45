"""Causes tested, not only told: a claim that is not reproduced is judged again on the
runs of the counterfactual its "why" implies (the mechanism removed, or set to the paper's
assumption), and the effect on its number is classified -- into the band, part-way (how
much of the distance to the paper's number it closes), none (the cause ruled out) or away
from the paper."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .verdicts import COMPARED, CONTRADICTED, MAGNITUDE_OFF, PAPER, REPRODUCED, Estimate, _to

#: the effects a counterfactual can have on a row
INTO_BAND, PART_WAY, NONE, AWAY, DIRECTION, CROSSED, PAST = (
    "into the band", "part-way", "none (ruled out)", "away from the paper",
    "direction now holds", "to the paper's side, undecided", "past the paper's number")
#: the share of the distance to the paper's number below which a move counts as none
NEGLIGIBLE = 0.1


@dataclass(frozen=True)
class Intervention:
    """A counterfactual run: its label and what it changes (the mechanism it removes or
    sets to the paper's assumption)."""

    label: str
    what: str


def _distance(est: Estimate, paper: float) -> float:
    """How far ``est``'s centre lies from the paper's number, on the estimate's scale (the
    log of a ratio, the logit of a share)."""
    a, b = (float(_to(est.scale, np.array([v]))[0]) for v in (est.mean, paper))
    return abs(a - b)


def effect(before: dict, after: dict) -> tuple[str, float | None]:
    """The effect of a counterfactual on one claims row: ``before`` and ``after`` are the
    row as judged on the runs and on the counterfactual's runs (``verdict``, ``estimate``,
    and the paper's number ``paper_value`` or, for a claim of a direction, the
    ``threshold`` its side is measured from and the ``side`` the paper claims, +1 above
    or -1 below). Returns the effect and the share of the
    distance it closes (1: all of it; negative: it moved away): for a number, the distance
    of our centre to the paper's (a centre moved to the paper's other side and not into
    its band is *past* it); for a direction, the distance of a centre on the wrong
    side to the threshold (a centre on the paper's side is none: what keeps such a row
    undecided is its spread, which the share does not measure)."""
    if after["verdict"] == REPRODUCED:
        return (INTO_BAND if before.get("paper_value") is not None else DIRECTION), 1.0
    b_est, a_est = before.get("estimate"), after.get("estimate")
    target = before.get("paper_value", before.get("threshold"))
    if b_est is None or a_est is None or target is None or not all(
            math.isfinite(v) for v in (b_est.mean, a_est.mean)):
        return (NONE if after["verdict"] == before["verdict"] else
                f"{before['verdict']} to {after['verdict']}"), None
    d0, d1 = _distance(b_est, target), _distance(a_est, target)
    if "paper_value" not in before:  # a direction: the wrong side's distance only
        side = before.get("side", 1)
        d0 = d0 if (b_est.mean - target) * side < 0 else 0.0
        d1 = d1 if (a_est.mean - target) * side < 0 else 0.0
    if d0 == 0:
        return NONE, 0.0
    if "paper_value" not in before and d1 == 0:  # its centre crossed the threshold
        return CROSSED, 1.0
    closed = (d0 - d1) / d0
    if "paper_value" in before and (b_est.mean - target) * (a_est.mean - target) < 0 \
            and closed < 1 - NEGLIGIBLE:  # it overshot: the mechanism acts, and then some
        return PAST, closed
    if abs(closed) < NEGLIGIBLE:
        return NONE, closed
    return (PART_WAY if closed > 0 else AWAY), closed


def open_rows(fig, rows: list[dict]) -> list[dict]:
    """The rows of page ``fig`` a causes table takes: the paper's own setting, compared,
    not reproduced."""
    return [r for r in rows if r.get("scope", fig.scope(r)) == PAPER
            and r["verdict"] in COMPARED and r["verdict"] != REPRODUCED]


#: what a causes table says of a row whose cause no run of its page can test
NONE_RUN = "none run here"


def line(before: dict, label: str | None = None, after: dict | None = None) -> dict:
    """One line of a page's causes table: the row as judged (``before``: its claim, its
    variant where it has one, verdict and ours), and, for a counterfactual ``label`` and
    the row judged on its runs (``after``), its verdict and ours there and the effect
    (:func:`effect`, with the share of the distance where it is part-way); without one,
    :data:`NONE_RUN`."""
    out = {"claim": before["claim"], "variant": before.get("variant", ""),
           "verdict": before["verdict"], "ours": before["ours"],
           "counterfactual": NONE_RUN, "judged there": "", "ours there": "", "effect": ""}
    if after is not None:
        what, closed = effect(before, after)
        out.update({"counterfactual": label, "judged there": after["verdict"],
                    "ours there": after["ours"],
                    "effect": what + (f", {100 * closed:.0f} % of the distance"
                                      if what == PART_WAY else "")})
    return out


#: how :func:`joined` separates the counterfactuals of one row
SEPARATOR = "; "


def joined(lines: list[dict]) -> dict:
    """One line for a row whose why names several mechanisms, each tested by its own
    counterfactual: the :func:`line` of each, their counterfactuals, verdicts, ours and
    effects side by side (separated by :data:`SEPARATOR`), in the why's order."""
    if len(lines) == 1:
        return lines[0]
    out = dict(lines[0])
    for key in ("counterfactual", "judged there", "ours there", "effect"):
        out[key] = SEPARATOR.join(str(x[key]) for x in lines)
    return out


#: what a causes table concludes of a row (:func:`status`)
EXPLAINED, PARTLY, NOT_FOUND, UNDECIDED = ("explained", "partly explained", "not explained",
                                           "undecided")
#: the effects that find a row's cause, wholly or in part
_WHOLLY = (INTO_BAND, DIRECTION, PAST)


def status(verdict: str, effect_text: str) -> str:
    """What a causes table's line concludes of its row: :data:`EXPLAINED` where the
    counterfactual brings the row into the band, makes its direction hold or passes the
    paper's number; :data:`PARTLY` where it closes part of the distance (or moves a
    direction's centre to the paper's side, undecided);
    otherwise (none run, no effect, a move away) :data:`NOT_FOUND` for a row that
    disagrees with the paper (*contradicted*, *magnitude off*) and :data:`UNDECIDED` for
    one its seeds leave undecided (*consistent, not decided*, *inconclusive*), whose
    cause is their spread. A line of several counterfactuals (:func:`joined`) concludes
    what the best of them finds."""
    effects = effect_text.split(SEPARATOR)  # a row with several counterfactuals: the best
    if any(e.startswith(_WHOLLY) for e in effects):
        return EXPLAINED
    if any(e.startswith((PART_WAY, CROSSED)) for e in effects):
        return PARTLY
    return NOT_FOUND if verdict in (CONTRADICTED, MAGNITUDE_OFF) else UNDECIDED


__all__ = ["AWAY", "CROSSED", "DIRECTION", "EXPLAINED", "INTO_BAND", "NEGLIGIBLE", "NONE",
           "NONE_RUN", "NOT_FOUND", "PART_WAY", "PARTLY", "PAST", "SEPARATOR", "UNDECIDED",
           "Intervention", "effect", "joined", "line", "open_rows", "status"]
