"""The rule-table runner every system's checker uses (lorasched.model.rules), on toy rules
over a list of numbers."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from lorasched.model import rules
from lorasched.model.errors import ResultError
from lorasched.model.rules import Rule


def _ctx(*values):
    return SimpleNamespace(values=list(values), n=len(values))


def _fail_if(name, bad):
    def check(c, i=None):
        items = c.values if i is None else [c.values[i]]
        if any(bad(v) for v in items):
            raise ResultError(f"{name}: {items}")
    return check


def _crash(c):
    raise IndexError("cannot run")


TABLE = (
    Rule("positive", _fail_if("positive", lambda v: v <= 0), guard=True),
    Rule("small", _fail_if("small", lambda v: v > 9), option="strict"),
    Rule("even", _fail_if("even", lambda v: v % 2), per="n"),
    Rule("not 4", _fail_if("not 4", lambda v: v == 4), per="n"),
)


def test_check_raises_the_first_broken_rule_with_its_name():
    with pytest.raises(ResultError, match="^small: ") as err:
        rules.check(TABLE, _ctx(2, 12, 3), strict=True)
    assert err.value.rule == "small"
    rules.check(TABLE, _ctx(2, 12), strict=False)  # the option skips its rule
    assert rules.broken(TABLE, _ctx(2, 12, 3), strict=True) == ["small", "even"]


def test_per_item_rules_are_checked_item_by_item():
    """Item 0 is 4 (rule 'not 4'), item 1 odd (rule 'even'): item 0 is checked by both
    rules before item 1, so 'not 4' raises; both are broken."""
    with pytest.raises(ResultError, match=r"^not 4: \[4\]$") as err:
        rules.check(TABLE, _ctx(4, 3), strict=True)
    assert err.value.rule == "not 4"
    assert rules.broken(TABLE, _ctx(4, 3), strict=True) == ["even", "not 4"]


def test_broken_stops_after_a_guard_and_at_a_rule_that_cannot_run():
    assert rules.broken(TABLE, _ctx(-1, 3), strict=True) == ["positive"]
    table = (TABLE[1], Rule("crashes", _crash), TABLE[2])
    assert rules.broken(table, _ctx(12, 3), strict=True) == ["small"]
    with pytest.raises(IndexError):  # nothing broken before it: a bug, not a verdict
        rules.broken(table, _ctx(2), strict=True)
