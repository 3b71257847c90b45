"""Allpass's policies (lorasched.allpass.policies): the fixed-F presets are made from their
table, are importable by name and registered under it, refuse the F they fix and run exactly
as allpass_fixed with that F (the API page's listing: tests/model/test_presets.py)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from lorasched import simulate
from lorasched.allpass import policies
from lorasched.allpass.policies import (
    LABELS,
    PRESETS,
    REGISTRY,
    allpass_fixed,
    allpass_fixed60,
    allpass_fixed600,
)
from lorasched.allpass.scenario import to_arrays
from lorasched.allpass.workload import allpass_scenario
from lorasched.model.errors import InputError
from lorasched.model.presets import problems

OPTIONS = ["arrays", "rng", "reading", "overdue", "units", "checkpoint_s", "restore_s"]


@pytest.fixture(scope="module")
def arrays():
    return to_arrays(allpass_scenario(jobs=30, seed=2, capacity=4, book_hours=2))


def test_the_table_the_functions_the_registry_and_the_labels_agree():
    assert problems(policies) == []
    assert {p.name: (p.base, dict(p.fixed), p.held) for p in PRESETS} == {
        "allpass_fixed60": (allpass_fixed, {"F": 60.0}, ()),
        "allpass_fixed600": (allpass_fixed, {"F": 600.0}, ())}
    assert (REGISTRY["allpass_fixed60"], REGISTRY["allpass_fixed600"]) == (
        allpass_fixed60, allpass_fixed600)
    assert list(REGISTRY)[:3] == list(LABELS)[:3] == [
        "allpass", "allpass_fixed60", "allpass_fixed600"]
    assert [LABELS[p.name] for p in PRESETS] == ["Fixed-60s", "Fixed-600s"]


@pytest.mark.parametrize("row", PRESETS, ids=lambda p: p.name)
def test_a_preset_is_a_function_of_the_base_options_less_F(row):
    run = getattr(policies, row.name)
    assert inspect.isfunction(run) and run.__module__ == "lorasched.allpass.policies"
    assert list(inspect.signature(run).parameters) == OPTIONS
    base = inspect.signature(allpass_fixed).parameters
    assert all(p == base[n] for n, p in inspect.signature(run).parameters.items())
    doc = " ".join(inspect.getdoc(run).split())
    assert (f":func:`allpass_fixed` with ``F={int(row.fixed['F'])}``; the options are its."
            in doc)
    assert f'(Figure 11\'s "{row.label}")' in doc


@pytest.mark.parametrize("row", PRESETS, ids=lambda p: p.name)
def test_the_F_a_preset_fixes_is_refused(arrays, row):
    run = getattr(policies, row.name)
    with pytest.raises(InputError, match=r"fixes option\(s\) \['F'\].*'allpass_fixed'"):
        run(arrays, np.random.default_rng(0), F=row.fixed["F"])
    scenario = allpass_scenario(jobs=4, seed=2, capacity=4, book_hours=1)
    with pytest.raises(InputError, match=r"unknown option\(s\) \['F'\]"):
        simulate(scenario, row.name, F=30.0)


def _runs_equal(a, b) -> bool:
    return all(np.array_equal(x, y, equal_nan=np.asarray(x).dtype.kind == "f")
               for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("options", [{}, {"reading": "literal", "checkpoint_s": 10.0},
                                     {"overdue": False, "units": "slip"}])
def test_a_preset_runs_as_allpass_fixed_with_its_F(arrays, options):
    runs = {}
    for row in PRESETS:
        runs[row.name] = REGISTRY[row.name](arrays, np.random.default_rng(7), **options)
        want = allpass_fixed(arrays, np.random.default_rng(7), **row.fixed, **options)
        assert _runs_equal(runs[row.name], want), row.name
    # the comparison can fail: the two presets' runs differ
    assert not _runs_equal(runs["allpass_fixed60"], runs["allpass_fixed600"])

