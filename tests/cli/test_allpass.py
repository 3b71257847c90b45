"""``lorasched simulate --system allpass`` and ``reproduce --system allpass``."""

from __future__ import annotations

import pytest
import xarray as xr

from lorasched import systems
from lorasched.allpass.system import options_of
from lorasched.cli import main

SMALL = ["simulate", "--system", "allpass", "--jobs", "20", "--seed", "1"]


def _simulate(argv, capsys) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def test_allpass_simulate_writes_a_checked_netcdf_and_one_line(tmp_path, capsys):
    out = tmp_path / "run.nc"
    lines = _simulate([*SMALL, "--capacity", "30", "--trace", "helios", "--out", str(out)],
                      capsys).strip().splitlines()
    assert len(lines) == 1
    line = lines[0]
    assert line.startswith("allpass: 20 jobs") and "capacity 30" in line
    for part in ("average JCT", "median", "<= 10 min", "Modal $", "Vast.ai $", "Lambda $",
                 "serverful workers", str(out)):
        assert part in line
    with xr.open_dataset(out) as ds:
        result = ds.load()
    assert result.attrs["system"] == "allpass"
    assert result.attrs["algorithm"] == "allpass"
    assert result.attrs["capacity"] == 30
    assert result.sizes["job"] == 20
    systems.check_result(result)


def test_capacity_none_is_unlimited(tmp_path, capsys):
    out = tmp_path / "run.nc"
    text = _simulate([*SMALL, "--capacity", "none", "--out", str(out)], capsys)
    assert "unlimited capacity" in text
    with xr.open_dataset(out) as ds:
        result = ds.load()
    assert result.attrs["capacity"] == -1
    systems.check_result(result)


@pytest.mark.parametrize("units", ["paper", "slip"])
def test_units_reach_the_policy(units, tmp_path, capsys):
    out = tmp_path / "run.nc"
    text = _simulate([*SMALL, "--units", units, "--out", str(out)], capsys)
    assert text.startswith(f"allpass (units {units}): 20 jobs")
    with xr.open_dataset(out) as ds:
        result = ds.load()
    assert options_of(result) == {"units": units}
    systems.check_result(result)


def test_the_oracle_runs_from_the_command_line(capsys):
    text = _simulate([*SMALL, "--algorithm", "queue-all-oracle", "--capacity", "none"], capsys)
    assert text.startswith("queue-all-oracle: 20 jobs") and "unlimited capacity" in text


@pytest.mark.parametrize("algorithm, stored", [("allpass-fixed60", "allpass_fixed60"),
                                               ("tl-np", "tl_np"), ("sjf_p", "sjf_p")])
def test_hyphenated_algorithms(algorithm, stored, tmp_path, capsys):
    out = tmp_path / "run.nc"
    text = _simulate([*SMALL, "--algorithm", algorithm, "--trace", "mixture",
                      "--sizing", "trace", "--out", str(out)], capsys)
    assert text.startswith(f"{stored.replace('_', '-')}: 20 jobs (mixture, trace sizing")
    with xr.open_dataset(out) as ds:
        result = ds.load()
    assert result.attrs["algorithm"] == stored
    systems.check_result(result)


@pytest.mark.parametrize("argv, message", [
    ([*SMALL, "--algorithm", "magic"], "--algorithm 'magic'"),
    ([*SMALL, "--density", "2"], "--density"),
    ([*SMALL, "--model", "vit"], "--model"),
    ([*SMALL, "--load", "light"], "--load"),
    ([*SMALL, "--nodes", "4"], "--nodes"),
    ([*SMALL, "--trace", "philly"], "--trace"),
    ([*SMALL, "--capacity", "0"], "--capacity"),
    ([*SMALL, "--capacity", "lots"], "--capacity"),
    ([*SMALL, "--sizing", "huge"], "--sizing"),
    ([*SMALL, "--offers", "/no/such/offers.csv"], "--offers"),
    (["simulate", "--system", "titan", "--capacity", "3"], "--capacity"),
    (["simulate", "--system", "titan", "--sizing", "trace"], "--sizing"),
    (["simulate", "--capacity", "3"], "--capacity"),
    (["simulate", "--offers", "book.csv"], "--offers"),
    (["simulate", "--jobs", "20"], "--jobs"),
    ([*SMALL, "--units", "minutes"], "--units"),
    ([*SMALL, "--algorithm", "tl-p", "--units", "slip"], "--units"),
    (["simulate", "--units", "slip"], "--units"),
    (["simulate", "--system", "titan", "--units", "paper"], "--units"),
])
def test_bad_allpass_options_exit_2_naming_the_flag(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_algorithm_help_lists_allpass_policies_hyphenated(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # argparse wraps lines at hyphens
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "allpass (--system allpass)" in text
    assert "allpass: allpass, allpass-fixed60, allpass-fixed600, tl-p, tl-np, sjf-p, " \
           "sjf-np, hpa, modal, queue-all-oracle" in text
    assert "--units {paper,slip}" in text


@pytest.mark.slow
def test_reproduce_allpass(tmp_path, capsys):
    from lorasched.cli import reproduce
    from lorasched.figures import allpass as allpass_figures

    assert reproduce.figure_modules()["allpass"] is allpass_figures
    argv = ["reproduce", "--system", "allpass", "--size", "small", "--seeds", "1",
            "--figures", "fig06", "--store", str(tmp_path), "--no-progress", "--serial"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("allpass (small):") and "0 failed" in out
    assert "27 cells computed" in out  # 9 policies x 2 setups + 4 readings + 2 x 2 + 1, 1 seed
    assert main(argv) == 0                           # the batch file is reused
    assert "0 cells computed, 27 already done" in capsys.readouterr().out
