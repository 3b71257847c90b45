"""Allpass's claims after both looks of its sequential design (:mod:`..sequential`): a row
of the paper's setting that the pages' seeds leave undecided takes the verdict of the same
claim judged on the design's ``cap`` seeds at its stricter level, and keeps its first
look's row beside it. Every page's claims, prose, headline and summary read these rows, so
a claim shows one verdict everywhere."""

from __future__ import annotations

from ..sequential import UNDECIDED
from ..verdicts import OWN, at_level, recording, replay


def undecided(fig, row: dict) -> bool:
    """Whether ``row`` (a page's claim row) is one a second look is for: the paper's own
    setting (one a fit decides too), its verdict undecided
    (:data:`..sequential.UNDECIDED`)."""
    scope = row.get("scope") or fig.scope(row)
    return scope in OWN and row["verdict"] in UNDECIDED


def final_rows(fig, data, first: list[dict], design, second_data) -> list[dict]:
    """``first`` (``fig``'s claim rows on ``data``, the first look) with each undecided row
    replaced by the same claim's row judged on ``second_data()`` (the design's ``cap``
    seeds: an ``AllpassData``) at ``design.level``, carrying the first look's row as
    ``first``. ``design`` None: the rows as they are (seeds of the caller's choosing, an
    alternative's runs: one look)."""
    if design is None or not any(undecided(fig, r) for r in first):
        return first
    again, judged = data.cached(("second look", fig.key),
                                lambda: _second(fig, second_data(), design.level))
    replay(judged)  # the rows' readings, wherever the rows were first made
    by_key = {}
    for r in again:
        by_key.setdefault((r["claim"], r.get("variant", "")), []).append(r)
    out = []
    for r in first:
        if not undecided(fig, r):
            out.append(r)
            continue
        hits = by_key.get((r["claim"], r.get("variant", "")), [])
        if len(hits) != 1:
            raise RuntimeError(f"{fig.number}: the second look has {len(hits)} rows for "
                               f"{r['claim']!r} ({r.get('variant', '')}), not one")
        out.append(dict(hits[0]) | {"first": r})
    return out


def _second(fig, data, level: float) -> tuple[list[dict], list]:
    """``fig``'s rows judged on ``data`` at ``level``, and the judgements that made them."""
    with recording() as judged, at_level(level):
        rows = fig.first_rows(data)
    return rows, list(judged)
