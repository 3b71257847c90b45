"""A result checker as a table of named rules, the shape of every system's ``check_result``.

A :class:`Rule` checks one constraint on a context decoded once from a result and raises
:class:`~.errors.ResultError` if it is broken. :func:`check` runs a table as a checker does
(the first broken rule raises); :func:`broken` names every rule a result breaks.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .errors import ResultError


@dataclass(frozen=True)
class Rule:
    """One named check of a result.

    ``check(context)`` raises :class:`ResultError` when the rule is broken; with ``per`` set,
    ``check(context, i)`` checks item ``i`` for ``i < getattr(context, per)``, and the rules
    with the same ``per`` next to each other in a table are checked item by item together
    (item 0 by each, then item 1, ...). ``option``: the keyword of ``check_result`` that,
    when false, skips the rule. ``guard``: later rules index with what this rule checks, so
    :func:`broken` runs none of them once it is broken.
    """

    name: str
    check: Callable[..., None]
    option: str | None = None
    guard: bool = False
    per: str | None = None


def _enabled(rules: Sequence[Rule], options: dict) -> list[Rule]:
    return [rule for rule in rules if rule.option is None or options[rule.option]]


def check(rules: Sequence[Rule], context, **options) -> None:
    """Run ``rules`` in order on ``context``; the first broken one raises its
    :class:`ResultError` (its ``rule`` attribute is the rule's name). ``options``: the
    values of the rules' ``option`` keywords."""
    for per, group in itertools.groupby(_enabled(rules, options), key=lambda r: r.per):
        group = list(group)
        items = [None] if per is None else range(getattr(context, per))
        for i in items:
            for rule in group:
                try:
                    if per is None:
                        rule.check(context)
                    else:
                        rule.check(context, i)
                except ResultError as err:
                    err.rule = rule.name  # the message stays the rule's own
                    raise


def broken(rules: Sequence[Rule], context, **options) -> list[str]:
    """The names of the rules in ``rules`` that ``context`` breaks, in table order.

    Stops after a broken ``guard`` rule, and at a rule that fails otherwise than with a
    :class:`ResultError` once some rule is broken (it cannot run on what that rule let
    through); such a failure before any rule is broken propagates."""
    names = []
    for rule in _enabled(rules, options):
        try:
            if rule.per is None:
                rule.check(context)
            else:
                for i in range(getattr(context, rule.per)):
                    rule.check(context, i)
        except ResultError:
            names.append(rule.name)
            if rule.guard:
                break
        except Exception:
            if not names:
                raise
            break
    return names
