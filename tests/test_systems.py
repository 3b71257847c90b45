"""The systems registry, simulate's dispatch on a scenario's ``system``, and policies that a
user registers (lorasched.systems, lorasched.model.system)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import lorasched
from lorasched import systems
from lorasched.experiments import Sweep, grid, run_sweep
from lorasched.model.system import policy_options, source_fingerprint, timed_run
from lorasched.pdftsp.decisions import Decisions

PDFTSP = systems.get("pdftsp")


@pytest.fixture(scope="module")
def scenario():
    return lorasched.synthetic_scenario(nodes=3, load=2.0, slots=12, seed=1)


def test_a_scenario_names_its_system(scenario):
    assert scenario.attrs["system"] == "pdftsp"
    assert systems.of(scenario) is PDFTSP


def test_simulate_dispatches_on_the_system_attribute(scenario):
    direct = PDFTSP.simulate(scenario, "eft", seed=3)
    via = lorasched.simulate(scenario, "eft", seed=3)
    for r in (direct, via):  # measured times differ between runs
        for attr in ("wall_seconds", "median_decision_time", "mean_decision_time"):
            r.attrs.pop(attr, None)
    assert direct.drop_vars("decision_time").identical(via.drop_vars("decision_time"))
    assert lorasched.simulate(scenario).attrs["algorithm"] == "pdftsp"  # the system's own


def test_a_scenario_saved_before_systems_existed_is_pdftsp(scenario):
    old = scenario.copy()
    del old.attrs["system"]
    assert systems.of(old) is PDFTSP
    assert lorasched.simulate(old, "ntm", seed=1).attrs["n_tasks"] == scenario.sizes["task"]


@pytest.mark.parametrize("value", ["nosuch", 3])
def test_an_unknown_system_is_named(scenario, value):
    bad = scenario.copy()
    bad.attrs["system"] = value
    with pytest.raises(ValueError, match="scenario attribute 'system': unknown system"):
        lorasched.simulate(bad)
    with pytest.raises(ValueError, match="unknown system"):
        Sweep.from_dict({"system": value, "algorithms": ["eft"]})


def test_simulate_names_an_unknown_algorithm_and_option(scenario):
    with pytest.raises(ValueError, match="unknown algorithm 'nope'"):
        lorasched.simulate(scenario, "nope")
    with pytest.raises(ValueError, match="unknown option"):
        lorasched.simulate(scenario, "eft", alpha=1.0)
    with pytest.raises(ValueError, match="must be an xarray.Dataset"):
        lorasched.simulate({"not": "a dataset"})


def _reject_all(arrays, rng, *, note: str = "x"):
    """A policy that admits nobody."""
    return Decisions.empty(arrays.n_tasks, arrays.n_nodes, arrays.n_slots)


def test_a_registered_policy_runs_in_simulate_and_sweeps(tmp_path, scenario):
    PDFTSP.register("reject_all", _reject_all)
    try:
        result = lorasched.simulate(scenario, "reject_all", seed=1)
        lorasched.check_result(result)
        assert result.attrs["n_admitted"] == 0 and result.attrs["welfare"] == 0
        sweep = Sweep.from_dict({"base": {"nodes": 2, "slots": 12, "load": 2.0},
                                 "algorithms": ["reject_all", "eft"], "seeds": 2,
                                 "options": {"reject_all": {"note": "y"}}})
        ds = run_sweep(sweep, store=tmp_path, serial=True, progress=False).dataset
        assert (ds["n_admitted"].sel(algorithm="reject_all") == 0).all()
        assert (ds["n_admitted"].sel(algorithm="eft") > 0).all()
        with pytest.raises(ValueError, match="unknown option 'nope'"):
            Sweep.from_dict({"algorithms": ["reject_all"],
                             "options": {"reject_all": {"nope": 1}}})
    finally:
        PDFTSP.unregister("reject_all")
    assert "reject_all" not in PDFTSP.policies


def test_register_validates_and_refuses_silent_redefinition():
    with pytest.raises(ValueError, match="identifier"):
        PDFTSP.register("not a name", _reject_all)
    with pytest.raises(ValueError, match=r"\(arrays, rng\)"):
        PDFTSP.register("bad", lambda scenario, seed: None)
    with pytest.raises(ValueError, match="already registered"):
        PDFTSP.register("eft", _reject_all)
    assert policy_options(_reject_all) == {"note"}


def test_a_user_policy_s_source_is_in_its_cell_keys():
    def one(arrays, rng):
        return Decisions.empty(arrays.n_tasks, arrays.n_nodes, arrays.n_slots)

    def two(arrays, rng):
        out = Decisions.empty(arrays.n_tasks, arrays.n_nodes, arrays.n_slots)
        return out

    assert source_fingerprint(lorasched.pdftsp.baselines.eft.run) == ""
    assert source_fingerprint(one) != source_fingerprint(two) != ""
    decl = {"base": {"nodes": 2, "slots": 12, "load": 2.0}, "algorithms": ["mine"]}
    keys = []
    for run in (one, two):
        PDFTSP.register("mine", run, replace=True)
        try:
            keys.append(grid.cells(Sweep.from_dict(decl))[0].key)
        finally:
            PDFTSP.unregister("mine")
    assert keys[0] != keys[1]


def test_cell_keys_name_the_system():
    cell = grid.cells(Sweep.from_dict({"algorithms": ["eft"]}))[0]
    assert cell.params["system"] == "pdftsp"
    assert Sweep.from_dict({"algorithms": ["eft"]}).system == systems.DEFAULT == "pdftsp"


def test_the_system_measures_what_it_declares(scenario):
    result = lorasched.simulate(scenario, "pdftsp")
    metrics = PDFTSP.measure(scenario, result)
    # Titan per slot's certified gaps and its solve times' growth are measured for Titan alone
    titan_only = {"max_gap", "slots_hit_limit", "slot_elasticity"}
    assert set(metrics) == set(PDFTSP.metrics) - titan_only
    titan = PDFTSP.measure(scenario, lorasched.simulate(scenario, "titan"))
    assert set(titan) == set(PDFTSP.metrics)
    assert all(isinstance(v, float) and np.isfinite(v) for v in metrics.values())
    assert set(PDFTSP.timings) <= set(PDFTSP.metrics)
    assert isinstance(result, xr.Dataset)


def test_timed_run_checks_options_and_seeds_the_generator():
    def run(arrays, rng, *, scale=1.0):
        return arrays * scale + rng.random()

    a, seconds = timed_run(run, "mine", 2.0, 7, {"scale": 3.0})
    b, _ = timed_run(run, "mine", 2.0, 7, {"scale": 3.0})
    assert a == b == 6.0 + np.random.default_rng(7).random() and seconds >= 0
    with pytest.raises(ValueError, match=r"'mine' got unknown option\(s\) \['speed'\]"):
        timed_run(run, "mine", 2.0, 7, {"speed": 1})


# --- load_scenario: a netCDF file, validated by its system --------------------------------

def test_load_scenario_reads_back_each_systems_scenario_and_a_result(tmp_path):
    from lorasched.allpass.workload import allpass_scenario
    from lorasched.titan.workload import titan_scenario

    made = {"pdftsp": lorasched.synthetic_scenario(nodes=3, slots=12, load=2.0, seed=1),
            "titan": titan_scenario(jobs=6, workload="helios", seed=1),
            "allpass": allpass_scenario(jobs=5, book_hours=1, seed=1)}
    for name, ds in made.items():
        path = tmp_path / f"{name}.nc"
        ds.to_netcdf(path)
        back = lorasched.load_scenario(path)
        assert back.attrs["system"] == name and back.sizes == ds.sizes
    result = lorasched.simulate(made["pdftsp"], algorithm="pdftsp", seed=1)
    result.to_netcdf(tmp_path / "result.nc")
    assert lorasched.load_scenario(tmp_path / "result.nc").sizes["task"] == result.sizes["task"]


def test_load_scenario_names_the_file_and_what_makes_it_no_scenario(tmp_path):
    from lorasched.titan.workload import titan_scenario

    with pytest.raises(lorasched.InputError, match=r"a folder, not a scenario file"):
        lorasched.load_scenario(tmp_path)
    with pytest.raises(lorasched.InputError, match=r"none\.nc: no such scenario file"):
        lorasched.load_scenario(tmp_path / "none.nc")
    junk = tmp_path / "junk.nc"
    junk.write_bytes(b"not netcdf at all\x00\xff" * 10)
    with pytest.raises(lorasched.InputError, match=r"junk\.nc: not a netCDF file xarray can "
                                                   r"read"):
        lorasched.load_scenario(junk)
    other = tmp_path / "other.nc"
    xr.Dataset({"x": ("i", [1.0, 2.0])}).to_netcdf(other)
    with pytest.raises(lorasched.InputError, match=r"other\.nc: not a valid pdftsp scenario: "
                                                   r"scenario attribute '.*' is missing"):
        lorasched.load_scenario(other)
    xr.Dataset({"x": ("i", [1.0])}, attrs={"system": "slurm"}).to_netcdf(tmp_path / "s.nc")
    with pytest.raises(lorasched.InputError, match=r"s\.nc: attribute 'system' = 'slurm' is "
                                                   r"not a lorasched system"):
        lorasched.load_scenario(tmp_path / "s.nc")
    bad = titan_scenario(jobs=6, workload="helios", seed=1)
    bad["submit_s"].values[4] = 1e18
    bad.to_netcdf(tmp_path / "late.nc")
    with pytest.raises(lorasched.InputError, match=r"late\.nc: not a valid titan scenario: "
                                                   r"scenario variable 'submit_s', job 4"):
        lorasched.load_scenario(tmp_path / "late.nc")
