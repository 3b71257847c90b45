"""Shared docstring fragments (lorasched.model.docfill): a line ``%(name)s`` becomes the
fragment, indented as the line; a name that is no fragment, or a placeholder that is not
alone on its line, fails at import rather than rendering; every system's policies carry
filled docstrings whose Parameters are their signatures, and no fragment goes unused."""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

from lorasched import systems
from lorasched.model.docfill import fill, filler
from lorasched.model.errors import InputError
from lorasched.model.presets import documented

FRAGMENTS = {
    "x": """
    x : int
        The first line of x.

        A second paragraph.
    """,
    "returns": "Returns\n-------\nint\n    Its ``x``, 100% of it.",
}
#: the modules whose docstrings are filled from a ``_DOCS`` of their own
FILLED = ("lorasched.allpass.policies", "lorasched.titan.policies")
PLACEHOLDER = re.compile(r"%\(\w*\)s")


def test_a_placeholder_line_becomes_the_fragment_indented_as_it():
    doc = """Use x, {as} a set: 5%.

    Parameters
    ----------
    %(x)s

    %(returns)s
    """
    assert fill(doc, FRAGMENTS) == """Use x, {as} a set: 5%.

    Parameters
    ----------
    x : int
        The first line of x.

        A second paragraph.

    Returns
    -------
    int
        Its ``x``, 100% of it.
    """


def test_the_decorator_fills_in_place_and_leaves_a_stripped_docstring_alone():
    doc = filler(FRAGMENTS)

    def f(x):
        """Give ``x``.

        Parameters
        ----------
        %(x)s
        """
        return x

    def g(x):
        return x

    assert doc(f) is f and f(3) == 3
    assert inspect.getdoc(f) == ("Give ``x``.\n\nParameters\n----------\nx : int\n"
                                 "    The first line of x.\n\n    A second paragraph.")
    assert doc(g) is g and g.__doc__ is None  # python -OO


@pytest.mark.parametrize(("doc", "match"), [
    ("Use y.\n\n    %(y)s\n", r"fragment 'y' is not one of \['returns', 'x'\]"),
    ("Use x.\n\n    %(x)s and more\n", r"placeholder '%\(x\)s' is not alone"),
    ("Use %(x)s.\n", r"placeholder '%\(x\)s' is not alone"),
    ("Use x.\n\n    %()s\n", r"placeholder '%\(\)s' is not alone"),
])
def test_an_unknown_or_misplaced_placeholder_fails_loudly(doc, match):
    with pytest.raises(InputError, match=match):
        fill(doc, FRAGMENTS)

    def f():
        pass

    f.__doc__ = doc
    with pytest.raises(InputError, match=match):
        filler(FRAGMENTS)(f)


@pytest.mark.parametrize("system", sorted(systems.SYSTEMS))
def test_no_policy_keeps_a_placeholder(system):
    for name, run in systems.SYSTEMS[system].policies.items():
        assert not PLACEHOLDER.search(run.__doc__ or ""), (system, name)
        assert not PLACEHOLDER.search(inspect.getdoc(run) or ""), (system, name)


@pytest.mark.parametrize("module", FILLED)
def test_filled_policies_document_their_signatures_and_use_every_fragment(module):
    mod = importlib.import_module(module)
    for name, run in mod.REGISTRY.items():
        assert documented(run.__doc__) == list(inspect.signature(run).parameters), name
    source = inspect.getsource(mod)
    unused = [k for k in mod._DOCS if f"%({k})s" not in source]
    assert not unused, unused
