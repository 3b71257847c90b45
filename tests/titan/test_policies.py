"""TITAN's policies (lorasched.titan.policies): Table 3's ablations are made from their
table, are importable by name and registered under it, refuse the options they fix or hold
and run exactly as titan with the fixed option."""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest

import lorasched
from lorasched.model.errors import InputError
from lorasched.model.presets import problems
from lorasched.titan import policies
from lorasched.titan.policies import PRESETS, REGISTRY, titan, titan_nomerge, titan_noswitch
from lorasched.titan.scenario import to_arrays
from lorasched.titan.workload import titan_scenario

#: the options each took before the table (those it does not take are held at titan's)
OPTIONS = {
    "titan_nomerge": ["switch", "switch_scale", "preemptive", "restart_cost", "tick_s",
                      "keep", "objective", "estimate", "placement"],
    "titan_noswitch": ["switch_scale", "preemptive", "constraints", "candidates",
                       "merge_length", "restart_cost", "tick_s", "keep", "estimate",
                       "placement"],
}


@pytest.fixture(scope="module")
def scenario():
    return titan_scenario(workload="helios", jobs=30, seed=1)


def test_the_table_the_functions_and_the_registry_agree():
    assert problems(policies) == []
    assert {p.name: (p.base, dict(p.fixed)) for p in PRESETS} == {
        "titan_nomerge": (titan, {"merge": False}),
        "titan_noswitch": (titan, {"switch": "naive"})}
    assert (REGISTRY["titan_nomerge"], REGISTRY["titan_noswitch"]) == (
        titan_nomerge, titan_noswitch)
    assert list(REGISTRY)[:3] == ["titan", "titan_nomerge", "titan_noswitch"]


@pytest.mark.parametrize("row", PRESETS, ids=lambda p: p.name)
def test_a_preset_takes_titans_options_less_those_it_fixes_or_holds(row):
    run = getattr(policies, row.name)
    assert inspect.isfunction(run) and run.__module__ == "lorasched.titan.policies"
    params = inspect.signature(run).parameters
    assert list(params) == ["arrays", "rng", *OPTIONS[row.name]]
    assert all(p == inspect.signature(titan).parameters[n] for n, p in params.items())
    doc = " ".join(inspect.getdoc(run).split())
    option, value = next(iter(row.fixed.items()))
    shown = f'"{value}"' if isinstance(value, str) else repr(value)
    assert f":func:`titan` with ``{option}={shown}``; the options are its, less " in doc
    assert f'(Table 3\'s "{row.label}")' in doc


@pytest.mark.parametrize("row", PRESETS, ids=lambda p: p.name)
def test_what_a_preset_fixes_or_holds_is_refused(scenario, row):
    run, arrays = getattr(policies, row.name), to_arrays(scenario)
    for option in row.refused:
        with pytest.raises(InputError, match=rf"fixes option\(s\) \['{option}'\]"):
            run(arrays, None, **{option: inspect.signature(titan).parameters[option].default})
    with pytest.raises(InputError, match=r"unknown option\(s\) \['width'\]"):
        lorasched.simulate(scenario, row.name, width="requested")


def _schedules_equal(a, b) -> bool:
    """Every field but the solver's wall times."""
    return all(np.array_equal(getattr(a, f.name), getattr(b, f.name))
               for f in dataclasses.fields(a) if f.name != "decision_seconds")


@pytest.mark.parametrize("options", [{}, {"switch_scale": 2.0, "tick_s": 60.0}])
def test_a_preset_runs_as_titan_with_its_option(scenario, options):
    arrays, runs = to_arrays(scenario), {}
    for row in PRESETS:
        runs[row.name] = REGISTRY[row.name](arrays, None, **options)
        assert _schedules_equal(runs[row.name], titan(arrays, None, **row.fixed, **options))
    # the comparison can fail: the two ablations' schedules differ
    assert not _schedules_equal(runs["titan_nomerge"], runs["titan_noswitch"])

