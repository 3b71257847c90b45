"""The ``lorasched`` command line."""

from __future__ import annotations

from pathlib import Path

import pytest
import xarray as xr

import lorasched
from lorasched.cli import main


def test_simulate_writes_a_valid_netcdf_and_one_line(tmp_path, capsys):
    out = tmp_path / "run.nc"
    assert main(["simulate", "--nodes", "4", "--slots", "24", "--load", "3", "--seed", "2",
                 "--out", str(out)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1 and "welfare" in lines[0] and "load factor" in lines[0]
    result = xr.open_dataset(out).load()
    lorasched.check_result(result)
    assert result.attrs["algorithm"] == "pdftsp"
    again = lorasched.simulate(lorasched.synthetic_scenario(nodes=4, slots=24, load=3.0,
                                                            seed=2), seed=2)
    assert result.attrs["welfare"] == pytest.approx(again.attrs["welfare"])
    assert (result["admitted"].values == again["admitted"].values).all()


@pytest.mark.parametrize("argv, message", [
    (["simulate", "--load", "extreme"], "--load"),
    (["simulate", "--nodes", "0"], "--nodes"),
    (["simulate", "--algorithm", "magic"], "--algorithm"),
    (["simulate", "--out", "/no/such/folder/run.nc"], "does not exist"),
    (["simulate", "--nodes", "2", "--slots", "4", "--vendors", "-1"], "vendors"),
])
def test_bad_options_exit_2_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_bench_decision_prints_its_figures(capsys):
    from lorasched.present import bench

    figures = bench.decision(nodes=3, slots=24, vendors=2, load=2.0, seed=0, python_tasks=3)
    text = capsys.readouterr().out
    assert "median" in text and "speed-up" in text
    assert figures["sample_tasks"] == 3 and figures["median_us"] > 0


def test_profiles_lists_sources(capsys):
    assert main(["profiles"]) == 0
    text = capsys.readouterr().out
    assert "A100-80GB" in text and "a100-datasheet" in text and "assumption" in text


@pytest.mark.parametrize("algorithm", ["titan", "eft", "ntm"])
def test_simulate_every_algorithm_from_the_command_line(algorithm, tmp_path, capsys):
    out = tmp_path / f"{algorithm}.nc"
    assert main(["simulate", "--algorithm", algorithm, "--nodes", "3", "--slots", "12",
                 "--load", "2", "--seed", "1", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"{algorithm}:")
    result = xr.open_dataset(out).load()
    lorasched.check_result(result)
    assert result.attrs["algorithm"] == algorithm


def test_bench_compare_and_runtime_print_every_algorithm(capsys):
    from lorasched.present import bench

    figures = bench.compare(nodes=2, slots=12, load=2.0, seed=0)
    text = capsys.readouterr().out
    for name in ("pdftsp", "titan", "eft", "ntm", "offline LP bound"):
        assert name in text
    assert figures["bound"]["welfare"] >= max(f["welfare"] for k, f in figures.items()
                                              if k != "bound") - 1e-9
    rows = bench.runtime(nodes=(2, 3), slots=12, load=2.0, seed=0)
    assert [r["nodes"] for r in rows] == [2, 3]
    assert all(r["titan_mean_s"] > 0 and r["pdftsp_mean_s"] > 0 for r in rows)
    assert "Titan/pdFTSP" in capsys.readouterr().out


def test_simulate_a_trace_day(tmp_path, capsys):
    out = tmp_path / "trace.nc"
    assert main(["simulate", "--nodes", "4", "--trace", "philly", "--load", "2",
                 "--task-sizes", "trace", "--out", str(out)]) == 0
    assert "trace philly day 84" in capsys.readouterr().out
    result = xr.open_dataset(out).load()
    assert result.attrs["trace"] == "philly" and result.attrs["task_sizes"] == "trace"
    assert result.sizes["task"] == 2 * 144
    lorasched.check_result(result)
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--nodes", "4", "--trace", str(tmp_path / "nope.csv")])
    assert exc.value.code == 2
    assert "nope.csv" in capsys.readouterr().err


def test_the_example_sweep_files_are_the_figure_objects_declarations(tmp_path):
    """notebooks/sweeps/ holds exactly what `lorasched export-sweeps` writes from the
    figure objects: a declaration edited in one place only fails here."""
    assert main(["export-sweeps", str(tmp_path)]) == 0
    shipped = Path(__file__).resolve().parents[1] / "notebooks" / "sweeps"
    fresh = {p.name: p.read_text() for p in tmp_path.glob("*.toml")}
    assert fresh and {p.name: p.read_text() for p in shipped.glob("*.toml")} == fresh


def test_compare_stores_command(tmp_path, capsys):
    decl = tmp_path / "s.toml"
    decl.write_text('algorithms = ["ntm"]\nseeds = 1\n[base]\nnodes = 2\nslots = 12\n'
                    'load = 2.0\n')
    for name in ("a", "b"):
        assert main(["sweep", str(decl), "--out", str(tmp_path / f"{name}.nc"), "--serial",
                     "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["compare-stores", str(tmp_path / "a.nc.cells"),
                 str(tmp_path / "b.nc.cells")]) == 0
    assert "IDENTICAL" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["compare-stores", str(tmp_path / "a.nc.cells"), str(tmp_path / "nope")])
