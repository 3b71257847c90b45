"""The suite's definition: its hash pinned to its version, its sweeps valid for every
system and size, and the policy selection with its errors."""

from __future__ import annotations

import copy

import pytest

from lorasched import systems
from lorasched.model.errors import InputError
from lorasched.suite import scenarios, selection

#: the definition's hash of every version released. Changing DEFINITION fails
#: test_the_definition_is_the_one_its_version_names: bump SUITE_VERSION and add the new
#: version's hash here; never edit a released version's line.
PINNED = {"1": "055c799b71e4b8a2", "2": "69ce73d4f3eccb0b"}


def test_the_definition_is_the_one_its_version_names():
    assert scenarios.definition_hash() == PINNED[scenarios.SUITE_VERSION], (
        "the suite's definition changed: bump SUITE_VERSION and pin the new hash")
    assert len(set(PINNED.values())) == len(PINNED)


@pytest.mark.parametrize("change", [
    lambda d: d["pdftsp"]["sizes"]["small"]["seeds"].append(4),
    lambda d: d["titan"]["sizes"]["full"]["axes"]["density"].pop(),
    lambda d: d["allpass"]["metrics"].remove("p90_jct_min"),
    lambda d: d["pdftsp"].update(bound=None),
])
def test_any_change_to_the_definition_changes_its_hash(change):
    changed = copy.deepcopy(scenarios.DEFINITION)
    change(changed)
    assert scenarios.definition_hash(changed) != scenarios.definition_hash()


@pytest.mark.parametrize("size", scenarios.SIZES)
@pytest.mark.parametrize("system", sorted(scenarios.DEFINITION))
def test_every_sweep_is_valid_and_its_metrics_are_the_systems(system, size):
    sweep = scenarios.sweep(system, size, list(systems.get(system).policies))
    part = scenarios.DEFINITION[system]
    assert len(sweep.seeds) >= 3 and len(sweep.axes) >= 2
    known = set(systems.get(system).metrics) | {"bound"}
    for name in [*part["metrics"], *part["timings"]]:
        assert name in known or name in part["ratios"]
    for top, bottom, _ in part["ratios"].values():
        assert {top, bottom} <= known
    assert set(part["timings"]) <= set(systems.get(system).timings)
    assert sweep.bound == part["bound"]
    assert sweep.options == part["options"]  # every option a policy of the registry takes


def test_a_policys_options_come_only_with_the_policy():
    assert scenarios.sweep("pdftsp", "small", ["eft"]).options == {}
    assert scenarios.sweep("pdftsp", "small", ["eft", "titan"]).options == {
        "titan": {"solver": "columns", "mip": "rens_lean"}}


def test_an_unknown_size_or_system_is_refused():
    with pytest.raises(InputError, match="size must be one of"):
        scenarios.sweep("titan", "huge", ["srtf"])
    with pytest.raises(InputError, match="'nope' is not in the suite"):
        scenarios.declaration("nope", "small", ["srtf"])


def test_the_default_selection_is_every_registered_policy():
    chosen = selection.parse_policies(None)
    assert chosen == {s: tuple(systems.get(s).policies) for s in scenarios.DEFINITION}


def test_a_selection_names_systems_and_policies():
    chosen = selection.parse_policies(["titan:all", "pdftsp:eft,pdftsp"])
    assert chosen == {"pdftsp": ("eft", "pdftsp"),
                      "titan": tuple(systems.get("titan").policies)}
    assert selection.parse_policies(["allpass"]) == {
        "allpass": tuple(systems.get("allpass").policies)}


@pytest.mark.parametrize("specs, message", [
    (["titan:magic"], "unknown policy 'magic' for system 'titan'"),
    (["nope:eft"], "system 'nope' is not in the suite"),
    (["titan:srtf", "titan:fifo"], "named twice"),
    (["titan:srtf,srtf"], "named twice"),
    (["titan:all,srtf"], "takes every policy"),
    ([""], "expected SYSTEM:NAME"),
])
def test_a_bad_selection_is_a_clear_error(specs, message):
    with pytest.raises(InputError, match=message):
        selection.parse_policies(specs)


def test_a_plug_in_policy_has_its_module_and_fingerprint():
    def mine(arrays, rng):
        return systems.get("titan").policy("srtf")(arrays, rng)

    titan = systems.get("titan")
    titan.register("suite_test_mine", mine)
    try:
        assert "suite_test_mine" in selection.parse_policies(["titan"])["titan"]
        got = selection.origin("titan", "suite_test_mine")
    finally:
        titan.unregister("suite_test_mine")
    assert got["origin"] == selection.PLUG_IN and got["module"] == mine.__module__
    assert len(got["fingerprint"]) == 16
    built_in = selection.origin("titan", "srtf")
    assert built_in == {"name": "srtf", "origin": selection.BUILT_IN,
                        "module": "lorasched.titan.policies", "fingerprint": ""}
