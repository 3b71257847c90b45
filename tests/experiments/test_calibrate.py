"""Calibrating a policy's constants on held-out data (lorasched.experiments.calibrate): the
scan, the choice of the best setting, and the constants file."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import lorasched
from lorasched.experiments import calibrate as calibration
from lorasched.experiments import executor

SCENARIO = {"nodes": 3, "slots": 12, "load": 4.0, "vendors": 2}
GRID = {"alpha": [1.0, 2.0], "beta": [0.0, 100.0]}


def hand_made(**changes):
    """A Calibration built by hand (no scan), for the file functions."""
    surface = xr.DataArray([[1.0, 2.0], [3.0, 0.5]], dims=("alpha", "beta"),
                           coords={"alpha": [1.0, 2.0], "beta": [0.0, 100.0]})
    fields = dict(system="pdftsp", algorithm="pdftsp", metric="welfare",
                  options={"alpha": 2.0, "beta": 0.0, "payment": "paper"}, value=3.0,
                  seeds=(101, 102), scenario={"nodes": 3, "load": "high", "gpu": "A40"},
                  grid=dict(GRID), surface=surface)
    return calibration.Calibration(**{**fields, **changes})


def test_calibrate_chooses_the_argmax_of_its_surface(tmp_path):
    """The chosen alpha and beta are where the returned surface is largest, and the surface
    holds the mean welfare of the calibration seed over the grid."""
    cal = calibration.calibrate("pdftsp", "pdftsp", SCENARIO, GRID, store=tmp_path / "s",
                                serial=True, progress=False)
    surface = cal.surface
    assert surface.dims == ("alpha", "beta") and surface.shape == (2, 2)
    assert surface["alpha"].values.tolist() == GRID["alpha"]
    assert surface["beta"].values.tolist() == GRID["beta"]
    assert np.isfinite(surface.values).all()
    best = surface.where(surface == surface.max(), drop=True)
    assert cal.options == {"alpha": best["alpha"].item(), "beta": best["beta"].item()}
    assert cal.value == surface.max().item()
    assert cal.seeds == (calibration.CALIBRATION_SEED,) == (101,)
    assert cal.scenario == SCENARIO and cal.grid == GRID
    assert (cal.system, cal.algorithm, cal.metric) == ("pdftsp", "pdftsp", "welfare")
    # a point of the surface is the welfare of a direct run on the calibration seed
    scenario = lorasched.synthetic_scenario(**SCENARIO, seed=101)
    direct = lorasched.simulate(scenario, "pdftsp", seed=101, alpha=2.0, beta=0.0)
    assert surface.sel(alpha=2.0, beta=0.0).item() == direct.attrs["welfare"]
    assert "alpha = " in calibration.describe(cal) and "seed(s) 101" in calibration.describe(cal)


def test_a_second_calibration_with_the_same_store_computes_nothing(tmp_path, monkeypatch):
    """Rerunning a calibration into its store only assembles: no cell runs again."""
    store = tmp_path / "s"
    first = calibration.calibrate("pdftsp", "pdftsp", SCENARIO, GRID, seeds=[101, 102],
                                  store=store, serial=True, progress=False)
    done = sorted((store / "done").glob("*.json"))
    assert len(done) == 2 * 2 * 2  # alpha x beta x seeds
    stamps = {p.name: p.stat().st_mtime_ns for p in done}

    def no_cell(params):
        raise AssertionError(f"cell recomputed: {params}")

    monkeypatch.setattr(executor, "guarded", no_cell)
    again = calibration.calibrate("pdftsp", "pdftsp", SCENARIO, GRID, seeds=[101, 102],
                                  store=store, serial=True, progress=False)
    assert {p.name: p.stat().st_mtime_ns for p in (store / "done").glob("*.json")} == stamps
    assert again.options == first.options and again.value == first.value
    xr.testing.assert_identical(again.surface, first.surface)
    assert again.seeds == (101, 102)


def test_fixed_options_are_kept_in_the_chosen_setting(tmp_path):
    """Options held fixed in the scan are part of the calibrated options."""
    cal = calibration.calibrate("pdftsp", "pdftsp", SCENARIO, {"alpha": [1.0]},
                                options={"beta": 0.0, "payment": "paper"},
                                store=tmp_path / "s", serial=True, progress=False)
    assert cal.options == {"alpha": 1.0, "beta": 0.0, "payment": "paper"}
    scenario = lorasched.synthetic_scenario(**SCENARIO, seed=101)
    direct = lorasched.simulate(scenario, "pdftsp", seed=101, alpha=1.0, beta=0.0,
                                payment="paper")
    assert cal.value == direct.attrs["welfare"]


def test_a_calibration_with_failed_cells_raises(tmp_path):
    """A scan with failed cells is no calibration: RuntimeError naming the cells."""
    with pytest.raises(RuntimeError, match="calibration cell"):
        calibration.calibrate("pdftsp", "pdftsp", {**SCENARIO, "nodes": 0}, {"alpha": [1.0]},
                              store=tmp_path / "s", serial=True, progress=False)


def test_calibrate_needs_a_store():
    """calibrate() without store= is a ValueError naming store."""
    with pytest.raises(ValueError, match="store"):
        calibration.calibrate("pdftsp", "pdftsp", SCENARIO, GRID, serial=True, progress=False)


@pytest.mark.parametrize("grid, message", [
    ({}, "grid"),
    ({"alpha": []}, "grid.alpha"),
    ({"alpha": 1.0}, "grid.alpha"),
    ({"gamma": [1.0]}, "gamma"),
])
def test_calibration_sweep_rejects_a_bad_grid(grid, message):
    """A bad grid is refused before anything runs, naming the key."""
    with pytest.raises(ValueError, match=message):
        calibration.calibration_sweep("pdftsp", "pdftsp", SCENARIO, grid)


def test_calibration_sweep_is_a_sweep_of_the_grid():
    """The scan has one axis per option, the calibration seeds and the fixed options."""
    sweep = calibration.calibration_sweep("pdftsp", "pdftsp", SCENARIO, GRID, seeds=[7, 8],
                                          options={"payment": "paper"})
    assert list(sweep.axes) == ["alpha", "beta"]
    assert sweep.algorithms == ("pdftsp",) and sweep.seeds == (7, 8)
    assert sweep.options == {"pdftsp": {"payment": "paper"}} and sweep.base == SCENARIO


def test_best_setting_ties_go_to_the_first_in_grid_order():
    """Equal maxima: the first in C order of the grid wins, and values come back plain."""
    surface = xr.DataArray([[1.0, 3.0], [3.0, 0.0]], dims=("alpha", "beta"),
                           coords={"alpha": [1.0, 2.0], "beta": [0, 100]})
    chosen, value = calibration.best_setting(surface)
    assert chosen == {"alpha": 1.0, "beta": 100} and value == 3.0
    assert type(chosen["alpha"]) is float and type(chosen["beta"]) is int
    flipped = surface.transpose("beta", "alpha")  # grid order is now beta first
    assert calibration.best_setting(flipped) == ({"beta": 0, "alpha": 2.0}, 3.0)


def test_best_setting_skips_missing_and_infinite_values():
    """NaN and infinite values are never chosen; an all-NaN surface raises."""
    surface = xr.DataArray([[np.nan, 2.0], [np.inf, 1.0]], dims=("alpha", "beta"),
                           coords={"alpha": [1.0, 2.0], "beta": [0.0, 100.0]})
    assert calibration.best_setting(surface) == ({"alpha": 1.0, "beta": 100.0}, 2.0)
    with pytest.raises(ValueError, match="finite"):
        calibration.best_setting(xr.full_like(surface, np.nan))


def test_surface_of_names_an_unknown_metric(tmp_path):
    """Calibrating on a metric the sweep does not produce is a ValueError naming it."""
    with pytest.raises(ValueError, match="metric 'happiness'"):
        calibration.calibrate("pdftsp", "pdftsp", SCENARIO, {"alpha": [1.0]},
                              metric="happiness", store=tmp_path / "s", serial=True,
                              progress=False)


def test_constants_file_round_trip(tmp_path):
    """write_constants then read_constants gives back every table of the calibration."""
    cal = hand_made()
    path = calibration.write_constants(tmp_path / "c.toml", cal)
    assert path == tmp_path / "c.toml"
    data = calibration.read_constants(path)
    assert data == {"system": "pdftsp", "algorithm": "pdftsp", "metric": "welfare",
                    "value": 3.0, "seeds": [101, 102], "options": cal.options,
                    "scenario": cal.scenario, "grid": cal.grid}
    assert calibration.options_from(path, "pdftsp", "pdftsp") == cal.options


def test_constants_file_leaves_out_unset_scenario_parameters(tmp_path):
    """A None scenario parameter (TOML has no null) is left out of the file."""
    cal = hand_made(scenario={"nodes": 3, "trace": None})
    calibration.write_constants(tmp_path / "c.toml", cal)
    assert calibration.read_constants(tmp_path / "c.toml")["scenario"] == {"nodes": 3}


def test_write_constants_needs_an_existing_folder(tmp_path):
    """Writing into a missing folder is a ValueError naming the folder."""
    with pytest.raises(ValueError, match="does not exist"):
        calibration.write_constants(tmp_path / "nope" / "c.toml", hand_made())


GOOD = ('system = "pdftsp"\nalgorithm = "pdftsp"\n\n[options]\nalpha = 1.0\nbeta = 100.0\n')


@pytest.mark.parametrize("text, message", [
    ('algorithm = "pdftsp"\n[options]\nalpha = 1.0\n', "missing key(s) ['system']"),
    ('system = "pdftsp"\nalgorithm = "pdftsp"\n', "missing key(s) ['options']"),
    ('colour = "red"\n' + GOOD, "unknown key(s) ['colour']"),
    (GOOD.replace("alpha = 1.0\nbeta = 100.0\n", ""), "[options] must be a non-empty table"),
    ('system = "pdftsp"\nalgorithm = "pdftsp"\noptions = 3\n', "[options] must be"),
    (GOOD.replace("alpha = 1.0", "alpha = [1.0, 2.0]"), "options.alpha"),
    ("system = pdftsp\n", "c.toml"),
])
def test_read_constants_errors_name_the_file_and_the_key(tmp_path, text, message):
    """A malformed constants file is a ValueError naming the file and the key."""
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ValueError) as err:
        calibration.read_constants(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_read_constants_names_a_missing_file(tmp_path):
    """A missing constants file is a FileNotFoundError naming it."""
    with pytest.raises(FileNotFoundError, match="missing.toml"):
        calibration.read_constants(tmp_path / "missing.toml")


def test_options_from_refuses_a_file_for_another_policy(tmp_path):
    """Options calibrated for one algorithm are not handed to another."""
    path = tmp_path / "c.toml"
    path.write_text(GOOD)
    assert calibration.options_from(path, "pdftsp", "pdftsp") == {"alpha": 1.0, "beta": 100.0}
    with pytest.raises(ValueError, match="calibrates pdftsp/pdftsp, not pdftsp/eft"):
        calibration.options_from(path, "pdftsp", "eft")
    with pytest.raises(ValueError, match="not titan/pdftsp"):
        calibration.options_from(path, "titan", "pdftsp")
