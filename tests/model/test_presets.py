"""Presets as data (lorasched.model.presets): a row makes a function whose signature is the
base's less what the row fixes or holds, which refuses those options, calls the base with
the fixed ones, and carries a numpydoc docstring made from the base's; the consistency check
sees a module that disagrees with its table; every system's presets agree with their table
and are listed on its API page."""

from __future__ import annotations

import importlib
import inspect
import pickle
import re
import sys
from types import SimpleNamespace

import pytest
from _book import BOOK

from lorasched import systems
from lorasched.model.errors import InputError
from lorasched.model.presets import Preset, build, build_all, docstring, documented, problems


def base(arrays, rng, *, a: int = 1, b: str = "x", c=None, d: float = 0.5):
    """Give back what it got.

    Parameters
    ----------
    arrays : list
        The input.
    rng : numpy.random.Generator
        Unused.
    a, b : optional
        The first two options.
    c : optional
        The third.
    d : float, optional
        The fourth.

    Returns
    -------
    tuple
        ``(arrays, a, b, c, d)``.
    """
    return arrays, a, b, c, d


ROW = Preset("base_a2", base, {"a": 2.0}, label="A-2", source="Figure 1",
             description="the base with a at 2", held=("c",))
base_a2, = build_all([ROW], __name__)  # a module attribute, so that pickle finds it
REGISTRY = {"base": base, "base_a2": base_a2}
PRESETS = (ROW,)


def test_the_function_is_the_base_with_the_option_fixed():
    assert base_a2([1], None) == ([1], 2.0, "x", None, 0.5)
    assert base_a2([1], None, b="y", d=1.0) == base([1], None, a=2.0, b="y", d=1.0)
    assert base_a2(arrays=[1], rng=None) == ([1], 2.0, "x", None, 0.5)


def test_its_signature_names_and_pickle_are_a_functions():
    assert list(inspect.signature(base_a2).parameters) == ["arrays", "rng", "b", "d"]
    assert inspect.signature(base_a2).parameters["d"].default == 0.5
    assert inspect.isfunction(base_a2)
    assert (base_a2.__name__, base_a2.__qualname__, base_a2.__module__) == (
        "base_a2", "base_a2", __name__)
    assert base_a2.preset is ROW
    assert pickle.loads(pickle.dumps(base_a2)) is base_a2


@pytest.mark.parametrize("given", [{"a": 2.0}, {"a": 3}, {"c": 1}, {"a": 1, "b": "y"}])
def test_a_fixed_or_held_option_given_is_refused(given):
    with pytest.raises(InputError, match=r"'base_a2' fixes option\(s\) \['a'|\['c'\]"):
        base_a2([1], None, **given)


def test_what_no_function_of_its_signature_takes_is_a_type_error():
    with pytest.raises(TypeError, match=r"base_a2\(\) got an unexpected keyword .*'e'"):
        base_a2([1], None, e=1)
    with pytest.raises(TypeError, match=r"base_a2\(\) .*too many positional"):
        base_a2([1], None, "y")
    with pytest.raises(TypeError, match=r"base_a2\(\) missing .*'rng'"):
        base_a2([1])


def test_the_docstring_says_what_it_fixes_and_lists_the_rest():
    doc = inspect.getdoc(base_a2)
    lines = doc.splitlines()
    assert lines[0] == 'The policy ``base_a2``: the base with a at 2 (Figure 1\'s "A-2").'
    assert not lines[1]
    assert (":func:`base` with ``a=2``; the options are its, less ``c``, which keeps its "
            "default.") in " ".join(doc.split())
    assert documented(doc) == ["arrays", "rng", "b", "d"]
    assert "b : optional\n    The first two options." in doc  # "a, b" lost its a
    assert "Returns\n-------\ntuple\n    ``(arrays, a, b, c, d)``." in doc
    assert "Raises\n------\nInputError\n    If given an option it fixes (``a`` or ``c``)" in doc
    assert doc == inspect.cleandoc(docstring(ROW))


@pytest.mark.parametrize(("row", "match"), [
    (Preset("bad", base, {"e": 1}, "E", "Figure 1", "no such option"), r"\['e'\]"),
    (Preset("bad", base, {"a": 1}, "A", "Figure 1", "a twice", held=("a",)), "distinct"),
    (Preset("bad", base, {"arrays": 1}, "X", "Figure 1", "not an option"), r"\['arrays'\]"),
    (Preset("bad name", base, {"a": 1}, "A", "Figure 1", "a bad name"), "identifier"),
])
def test_a_row_that_fixes_no_option_of_its_base_is_refused(row, match):
    with pytest.raises(InputError, match=match):
        build(row, __name__)


def test_the_check_passes_here_and_sees_each_disagreement():
    here = sys.modules[__name__]
    assert problems(here) == []
    other = build(ROW, __name__)  # the same row, another function
    unregistered = SimpleNamespace(__name__=__name__, PRESETS=PRESETS, base_a2=base_a2,
                                   REGISTRY={"base": base, "base_a2": other})
    assert problems(unregistered) == ["base_a2: REGISTRY['base_a2'] is not its function"]
    stray = build(Preset("base_a3", base, {"a": 3}, "A-3", "Figure 1", "a at 3"), __name__)
    extra = SimpleNamespace(**vars(unregistered) | {"REGISTRY": {**REGISTRY, "x": stray}})
    assert problems(extra) == ["x: registered as a preset but not in PRESETS"]
    swapped = SimpleNamespace(**vars(unregistered) | {"base_a2": stray})
    assert problems(swapped) == ["base_a2: the module's base_a2 is not made from this row"]
    moved = SimpleNamespace(**vars(unregistered) | {"__name__": "elsewhere",
                                                      "REGISTRY": REGISTRY})
    assert problems(moved) == [f"base_a2: named {__name__}.base_a2"]


@pytest.mark.parametrize("system", sorted(systems.SYSTEMS))
def test_each_systems_presets_agree_with_its_table_and_are_on_its_api_page(system):
    module = importlib.import_module(f"lorasched.{system}.policies")
    rows = getattr(module, "PRESETS", ())
    assert problems(module) == [] if rows else not any(
        hasattr(run, "preset") for run in module.REGISTRY.values())
    page = (BOOK / "api" / f"{system}.md").read_text()
    listed = set(re.findall(r"^   (\w+)$", page, re.MULTILINE))
    documented_ = set(re.findall(r"^\.\. autofunction:: (\w+)$", page, re.MULTILINE))
    names = {p.name for p in rows}
    assert names <= listed and names <= documented_, names - (listed & documented_)
    assert not rows or ("PRESETS" in listed and ".. autodata:: PRESETS\n" in page)
