"""Allpass's sequential design (:mod:`..sequential`): its runs cost seconds a seed, so a
headline row the pages' seeds leave undecided is judged again on three times as many, at
the stricter level (:data:`.common.DESIGNS`); the pages' claim rows carry both looks
(:mod:`.looks`)."""

from __future__ import annotations

from ..sequential import Design
from .declared import DESIGNS


def design(size: str) -> Design:
    """The design at ``size``."""
    return DESIGNS[size]


__all__ = ["DESIGNS", "design"]
