"""What each claims row was judged on, as columns a reader can judge again: the estimate
(its per-seed values, scale, level, centre and interval, and how the interval was made)
and the reading (:class:`~.verdicts.Reading`: the rule, the paper's number and band, the
threshold and side). :meth:`~.base.Figure.claims` adds them with ``readings=True``;
:mod:`.ledger` publishes them and :func:`recount` repeats every interval and verdict."""

from __future__ import annotations

import json
import math

import numpy as np

from .verdicts import (
    EACH,
    JUDGE,
    POINT,
    SIGN_TEST,
    STUDENT_T,
    WILSON,
    Estimate,
    Reading,
    at_level,
    estimate,
    rejudge,
    share_of,
)

#: the estimate's columns
ESTIMATE_COLUMNS = ["n", "level", "scale", "method", "values", "centre", "low", "high"]
#: the reading's columns
READING_COLUMNS = ["rule", "paper number", "band low", "band high", "threshold", "side",
                   "strict"]
RECORD_COLUMNS = ESTIMATE_COLUMNS + READING_COLUMNS
#: how close a recounted number must come to the published one (relative): the published
#: file holds every number to 17 significant digits, so only rounding in the last may differ
RTOL = 1e-9


def blank() -> dict:
    """A row's record columns with nothing in them (a row judged without an estimate or a
    rule: a verdict that is not compared, or one a page composes from others)."""
    return {c: (math.nan if c not in ("scale", "method", "values", "rule") else "")
            for c in RECORD_COLUMNS} | {"strict": False}


def of(est: Estimate | None, verdict: str, log: list, instances=None) -> dict:
    """The record columns of a row whose estimate is ``est`` and verdict ``verdict``, with
    the reading of the judgement in ``log`` (:func:`~.verdicts.recording`) that judged this
    very estimate to this verdict (the last one, where a page judged it twice), or that
    judged its ``instances`` one by one (:func:`~.verdicts.judge_each`: the row's own
    values, or its estimate's)."""
    out = blank()
    each = tuple(float(v) for v in (instances if instances is not None
                                    else (est.values if est is not None else ())))
    if est is not None:
        out.update({"n": est.n, "level": est.level, "scale": est.scale,
                    "method": est.method, "values": json.dumps(list(est.values)),
                    "centre": est.mean, "low": est.low, "high": est.high})
    for judged, reading, got in reversed(log):
        if got != verdict:
            continue
        if (reading.rule == JUDGE and judged is est) or (
                reading.rule == EACH and each and judged == each):
            out.update(reading_columns(reading))
            if reading.rule == EACH:
                out["values"] = json.dumps(list(judged))
            break
    return out


def look_columns(row: dict, first: dict | None) -> dict:
    """A row's look columns: ``look`` 2 and the first look's verdict, ours and record
    (prefixed ``first``) where an earlier look judged it (``first``: that look's row, as
    a page's claim rows give it), else ``look`` 1."""
    if first is None:
        return {"look": 1, "first verdict": row["verdict"]}
    then = of(first.get("estimate"), first["verdict"], [])
    return ({"look": 2, "first verdict": first["verdict"], "first ours": first["ours"]}
            | {f"first {c}": then[c] for c in ESTIMATE_COLUMNS})


def reading_columns(reading: Reading) -> dict:
    """A :class:`~.verdicts.Reading` as record columns."""
    return {"rule": reading.rule, "paper number": reading.paper, "band low": reading.band_low,
            "band high": reading.band_high, "threshold": reading.threshold,
            "side": reading.side, "strict": reading.strict}


def _float(v) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _values(row) -> tuple:
    text = row.get("values", "")
    if not isinstance(text, str) or not text:
        return ()
    return tuple(float(v) for v in json.loads(text))


def remade(row) -> Estimate | None:
    """The estimate of a record row made again from its per-seed values, the way its
    ``method`` says (None where the method cannot be repeated from the row: an interval
    not made from the values, e.g. a fitted slope)."""
    method, values = row.get("method", ""), _values(row)
    n, level, scale = int(_float(row.get("n")) or 0), _float(row.get("level")), row["scale"]
    if method in (STUDENT_T, SIGN_TEST) and values:  # the values' shape picks which
        return estimate(values, scale, level)
    if method == POINT and values:
        return Estimate.point(values[0])
    if method == WILSON and n:
        with at_level(level):
            return share_of(round(_float(row["centre"]) * n / 100), n)
    return None


def published(row) -> Estimate | None:
    """The estimate a record row publishes (its centre and interval as written)."""
    if not isinstance(row.get("scale"), str) or not row["scale"]:
        return None
    return Estimate(_float(row["centre"]), _float(row["low"]), _float(row["high"]),
                    int(_float(row["n"]) or 0), row["scale"], _values(row),
                    _float(row["level"]), row.get("method", ""))


def _close(a: float, b: float) -> bool:
    if math.isnan(a) and math.isnan(b):
        return True
    return bool(np.isclose(a, b, rtol=RTOL, atol=1e-12))


def recount(row) -> list[str]:
    """What differs when a record row is counted again from its own columns: its interval
    made again from its values (where its method can be repeated; the method too, since
    the values' shape picks it), then its verdict judged
    again on that interval by its reading (where it has one). An empty list: nothing."""
    out = []
    est = published(row)
    again = remade(row) if est is not None else None
    if again is not None:
        if again.method != est.method:
            out.append(f"method {est.method!r} published, {again.method!r} recounted")
        for name, a, b in (("centre", again.mean, est.mean), ("low", again.low, est.low),
                           ("high", again.high, est.high)):
            if not _close(a, b):
                out.append(f"{name} {b!r} published, {a!r} recounted")
    rule = row.get("rule", "")
    if isinstance(rule, str) and rule:
        paper = _float(row.get("paper number"))
        reading = Reading(rule, None if math.isnan(paper) else paper, _float(row["band low"]),
                          _float(row["band high"]), _float(row["threshold"]),
                          int(_float(row["side"])), str(row.get("strict")) in ("True", "1"))
        verdict = rejudge(reading, again or est, _values(row))
        if verdict != row["verdict"]:
            out.append(f"verdict {row['verdict']!r} published, {verdict!r} recounted")
    return out


def recountable(row) -> str:
    """How much of a record row can be counted again: "interval and verdict", "verdict",
    "interval" or "" (a verdict that is not compared, or composed by its page from other
    rows' verdicts)."""
    est = published(row)
    interval = est is not None and remade(row) is not None
    rule = isinstance(row.get("rule"), str) and bool(row.get("rule"))
    return {(True, True): "interval and verdict", (False, True): "verdict",
            (True, False): "interval", (False, False): ""}[(interval, rule)]
