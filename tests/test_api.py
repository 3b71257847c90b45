"""The package's front door (lorasched/__init__.py): the top level holds what the three
systems share, and the pdFTSP names that moved off it still answer, for one release, with a
DeprecationWarning naming their new place."""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import pytest

import lorasched
from lorasched import systems

ROOT = Path(__file__).resolve().parents[1]

#: the front door: what every system shares
SHARED = {"SYSTEMS", "InputError", "ResultError", "Sweep", "allpass_scenario", "check_result",
          "load_scenario", "run_sweep", "run_sweeps", "simulate", "synthetic_scenario",
          "titan_scenario"}


def test_the_top_level_holds_only_what_the_systems_share():
    assert set(lorasched.__all__) == SHARED
    for name in lorasched.__all__:
        assert getattr(lorasched, name) is not None
    builders = {s.build_scenario for s in systems.SYSTEMS.values()}
    assert {lorasched.synthetic_scenario, lorasched.titan_scenario,
            lorasched.allpass_scenario} == builders
    assert lorasched.simulate is systems.simulate


@pytest.mark.parametrize("old", sorted(lorasched.MOVED))
def test_a_moved_name_still_works_and_its_warning_names_the_new_place(old):
    module, new = lorasched.MOVED[old]
    with pytest.warns(DeprecationWarning, match=rf"lorasched\.{old} .*use "
                                                rf"{re.escape(module)}\.{new}\b"):
        value = getattr(lorasched, old)
    assert value is getattr(importlib.import_module(module), new)
    assert old not in lorasched.__all__


def test_from_import_of_a_moved_name_warns_too():
    with pytest.warns(DeprecationWarning, match=r"use lorasched\.pdftsp\.to_arrays"):
        from lorasched import to_arrays  # noqa: F401


def test_the_new_places_do_not_warn_and_an_unknown_name_is_an_attribute_error():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from lorasched.pdftsp import OnlineAuction, to_arrays, validate  # noqa: F401
        from lorasched.pdftsp.schedule import schedule  # noqa: F401
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        lorasched.nothing_here  # noqa: B018


#: a moved name used from lorasched's top level, in code a reader runs (notebooks, the
#: example plug-in, the book's code): ``lorasched.to_arrays`` or ``from lorasched import``
def moved_uses(text: str) -> list[str]:
    moved = "|".join(sorted(lorasched.MOVED))
    found = re.findall(rf"(?<![\w.])lorasched\.(?:{moved})\b", text)
    for names in re.findall(r"from lorasched import \(?([\w, \n]+)\)?", text):
        found += [n for n in re.split(r"[,\s]+", names) if n in lorasched.MOVED]
    return found


def test_no_notebook_example_or_page_uses_a_moved_name():
    where = [*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("examples/**/*.py"),
             *ROOT.glob("book/**/*.md"), ROOT / "README.md"]
    uses = {str(p.relative_to(ROOT)): u for p in where
            if not {"_build", "build"} & set(p.parts)
            and (u := moved_uses(p.read_text()))}
    assert uses == {}
    assert moved_uses("x = lorasched.to_arrays(s)\nfrom lorasched import simulate, "
                      "OnlineAuction") == ["lorasched.to_arrays", "OnlineAuction"]
