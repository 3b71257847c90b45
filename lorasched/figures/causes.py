"""Causes tested, not only told: a claim that is not reproduced is judged again on the
runs of the counterfactual its "why" implies (the mechanism removed, or set to the paper's
assumption), and the effect on its number is classified -- into the band, part-way (how
much of the distance to the paper's number it closes), past the paper's number, the sign
flipped, none (the cause ruled out) or away from the paper. One strict rule concludes
(:func:`status`): only a counterfactual whose row is reproduced there explains it; one
that stops short or overshoots explains it in part; one fitted to the paper's number is
circular, a calibration and never a cause."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .verdicts import (
    COMPARED,
    CONTRADICTED,
    GAIN,
    LINEAR,
    MAGNITUDE_OFF,
    PAPER,
    RATIO,
    REPRODUCED,
    SAVING,
    Estimate,
    _to,
)

#: the effects a counterfactual can have on a row
INTO_BAND, PART_WAY, NONE, AWAY, DIRECTION, CROSSED, PAST, FLIPPED = (
    "into the band", "part-way", "none (ruled out)", "away from the paper",
    "direction now holds", "to the paper's side, undecided", "past the paper's number",
    "the sign flipped")
#: what a line says of a counterfactual whose parameter was fitted to the row's own number
CIRCULAR_EFFECT = "fitted to the paper's number"
#: what a line says first of a counterfactual measured in an unfair comparison
#: (:attr:`Intervention.unfair`): shown, never counted by :func:`status`
UNFAIR_EFFECT = "not counted"
#: what a counterfactual that runs another algorithm than the paper's adds to its label
NOT_THE_PAPERS = " (not the paper's algorithm)"
#: the share of the distance to the paper's number below which a move counts as none
NEGLIGIBLE = 0.1


@dataclass(frozen=True)
class Intervention:
    """A counterfactual run: its label and what it changes (the mechanism it removes or
    sets to the paper's assumption).

    Parameters
    ----------
    label, what : str
        Its name in a causes table, and what it changes.
    changes_algorithm : bool
        It runs another algorithm than the paper describes (made preemptive, an oracle,
        another payment or other constants): its label says so (:data:`NOT_THE_PAPERS`).
    fitted_to : tuple of str
        The claims (by the start of their names) whose paper number its parameter was
        chosen to meet: on those rows it is circular (:data:`CIRCULAR`), a calibration.
    unfair : str
        Why its comparison is not a fair one, where it is not ("" where it is): its
        policy tuned on data and the rivals it is measured against not, say. Its effect is
        shown, marked :data:`UNFAIR_EFFECT` and the reason, and no conclusion counts it
        (:func:`status`).
    """

    label: str
    what: str
    changes_algorithm: bool = False
    fitted_to: tuple = ()
    unfair: str = ""

    @property
    def shown(self) -> str:
        """Its label as a causes table shows it."""
        return self.label + (NOT_THE_PAPERS if self.changes_algorithm else "")

    def circular_for(self, claim: str) -> bool:
        """Whether its parameter was fitted to the number of ``claim``."""
        return any(claim.startswith(c) for c in self.fitted_to)


#: the value of each scale at which a quantity changes sign: no effect (a share has none)
_NULL = {RATIO: 1.0, GAIN: 0.0, SAVING: 0.0, LINEAR: 0.0}


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
    its band is *past* it, and where it then lies across the scale's null from the
    paper's number, ours says the opposite: *the sign flipped*); for a direction, the
    distance of a centre on the wrong side to the threshold (a centre on the paper's side
    is none: what keeps such a row undecided is its spread, which the share does not
    measure)."""
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
        null = _NULL.get(a_est.scale)
        if null is not None and (a_est.mean - null) * (target - null) < 0:
            return FLIPPED, closed  # ... so far that ours now says the opposite
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
#: the columns of a causes table's line (:func:`line`)
LINE_COLUMNS = ["claim", "variant", "verdict", "ours", "counterfactual", "judged there",
                "ours there", "effect"]


def line(before: dict, counterfactual: Intervention | str | None = None,
         after: dict | None = None) -> dict:
    """One line of a page's causes table: the row as judged (``before``: its claim, its
    variant where it has one, verdict and ours), and, for a ``counterfactual`` (an
    :class:`Intervention`, or a label) and the row judged on its runs (``after``), its
    verdict and ours there and the effect (:func:`effect`, with the share of the distance
    it closes where it is part-way, and how far beyond the paper's number it ends, as a
    share of the distance it started from, where it passed it; :data:`CIRCULAR_EFFECT`
    first where the intervention was fitted to this row's number, and before all
    :data:`UNFAIR_EFFECT` with its reason where its comparison is unfair); without one,
    :data:`NONE_RUN`."""
    out = {"claim": before["claim"], "variant": before.get("variant", ""),
           "verdict": before["verdict"], "ours": before["ours"],
           "counterfactual": NONE_RUN, "judged there": "", "ours there": "", "effect": ""}
    if after is not None:
        what, closed = effect(before, after)
        text = what + (f", {100 * closed:.0f} % of the distance" if what == PART_WAY
                       else f", by {100 * (1 - closed):.0f} % of the distance"
                       if what in (PAST, FLIPPED) else "")
        label = counterfactual
        if isinstance(counterfactual, Intervention):
            label = counterfactual.shown
            if counterfactual.circular_for(before["claim"]):
                text = f"{CIRCULAR_EFFECT}: {text}"
            if counterfactual.unfair:
                text = f"{UNFAIR_EFFECT} ({counterfactual.unfair}): {text}"
        out.update({"counterfactual": label, "judged there": after["verdict"],
                    "ours there": after["ours"], "effect": text})
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
EXPLAINED, PARTLY, NOT_FOUND, UNDECIDED, CIRCULAR = (
    "explained", "partly explained", "not explained", "undecided", "circular (a calibration)")
#: the effects that explain a row: its counterfactual's own verdict is reproduced
_WHOLLY = (INTO_BAND, DIRECTION)
#: the effects that explain it in part: a move toward the paper that stops short or
#: overshoots (on the paper's side of the null)
_IN_PART = (PART_WAY, CROSSED, PAST)


def status(verdict: str, effect_text: str) -> str:
    """What a causes table's line concludes of its row, by the strict rule:
    :data:`EXPLAINED` only where the counterfactual's own verdict is reproduced (the row
    comes into the band, or its direction now holds); :data:`PARTLY` where it moves the
    row toward the paper's number but stops short, overshoots it, or moves a direction's
    centre to the paper's side, undecided; :data:`CIRCULAR` where the counterfactual's
    parameter was fitted to this row's number (whatever it moved: a calibration, not a
    cause); otherwise (none run, no effect, a move away, the sign flipped)
    :data:`NOT_FOUND` for a row that disagrees with the paper (*contradicted*, *magnitude
    off*) and :data:`UNDECIDED` for one its seeds leave undecided (*consistent, not
    decided*, *inconclusive*), whose cause is their spread. A line of several
    counterfactuals (:func:`joined`) concludes what the best of them finds, a circular
    one counting only where no other finds anything; one measured in an unfair comparison
    (:data:`UNFAIR_EFFECT`) never counts (:func:`uncounted` gives what it would find)."""
    effects = [e for e in effect_text.split(SEPARATOR)  # several counterfactuals: the best
               if not e.startswith(UNFAIR_EFFECT)]
    fair = [e for e in effects if not e.startswith(CIRCULAR_EFFECT)]
    if any(e.startswith(_WHOLLY) for e in fair):
        return EXPLAINED
    if any(e.startswith(_IN_PART) for e in fair):
        return PARTLY
    if len(fair) < len(effects):
        return CIRCULAR
    return NOT_FOUND if verdict in (CONTRADICTED, MAGNITUDE_OFF) else UNDECIDED


def uncounted(effect_text: str) -> str:
    """The effects of a line's counterfactuals measured in an unfair comparison, their mark
    (:data:`UNFAIR_EFFECT` and its reason) taken off, joined as :func:`joined` joins them
    ("" where it has none): what :func:`status` would conclude of them, were they counted,
    is ``status(verdict, uncounted(effect_text))``."""
    return SEPARATOR.join(e.split("): ", 1)[1] for e in effect_text.split(SEPARATOR)
                          if e.startswith(UNFAIR_EFFECT + " ("))


__all__ = ["AWAY", "CIRCULAR", "CIRCULAR_EFFECT", "CROSSED", "DIRECTION", "EXPLAINED",
           "FLIPPED", "INTO_BAND", "LINE_COLUMNS", "NEGLIGIBLE", "NONE", "NONE_RUN", "NOT_FOUND",
           "NOT_THE_PAPERS", "PART_WAY", "PARTLY", "PAST", "SEPARATOR", "UNDECIDED",
           "UNFAIR_EFFECT", "Intervention", "effect", "joined", "line", "open_rows", "status",
           "uncounted"]
