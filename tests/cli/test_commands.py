"""The ``lorasched`` command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import xarray as xr

import lorasched
from lorasched.cli import main
from lorasched.experiments import calibrate as calibration


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
    from lorasched.bench import pdftsp as bench

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
    from lorasched.bench import pdftsp as bench

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


@pytest.mark.slow
@pytest.mark.xdist_group("full-calibration")  # with tests/figures/test_pdftsp.py's
def test_the_example_sweep_files_are_the_figure_objects_declarations(tmp_path):
    """notebooks/sweeps/ holds exactly what `lorasched export-sweeps` writes from the
    figure objects: a declaration edited in one place only fails here."""
    assert main(["export-sweeps", str(tmp_path)]) == 0
    shipped = Path(__file__).resolve().parents[2] / "notebooks" / "sweeps"
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


TINY = ["--nodes", "3", "--slots", "12", "--load", "4", "--vendors", "2"]


def test_calibrate_writes_constants_that_simulate_reads(tmp_path, capsys):
    """calibrate scans alpha x beta and writes the best; simulate --constants uses it."""
    out = tmp_path / "constants.toml"
    assert main(["calibrate", *TINY, "--alpha", "1", "2", "--beta", "0", "100", "--serial",
                 "--no-progress", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "alpha=1" in text and "alpha=2" in text and "beta=100" in text
    assert text.strip().splitlines()[-1].endswith(f"-> {out}")
    data = calibration.read_constants(out)
    assert (data["system"], data["algorithm"], data["metric"]) == ("pdftsp", "pdftsp",
                                                                   "welfare")
    assert data["seeds"] == [calibration.CALIBRATION_SEED]
    assert data["grid"] == {"alpha": [1.0, 2.0], "beta": [0.0, 100.0]}
    assert data["scenario"]["nodes"] == 3 and data["scenario"]["load"] == 4.0
    alpha, beta = data["options"]["alpha"], data["options"]["beta"]
    assert alpha in (1.0, 2.0) and beta in (0.0, 100.0)
    assert (tmp_path / "constants.toml.cells" / "done").is_dir()  # the default store

    run = tmp_path / "run.nc"
    assert main(["simulate", *TINY, "--seed", "1", "--constants", str(out), "--out",
                 str(run)]) == 0
    assert capsys.readouterr().out.startswith("pdftsp:")
    result = xr.load_dataset(run)
    lorasched.check_result(result)
    assert (result.attrs["pdftsp_alpha"], result.attrs["pdftsp_beta"]) == (alpha, beta)
    assert result.attrs["pdftsp_constants"] == "explicit"
    # --alpha overrides the file's alpha, the file's beta stays
    override = tmp_path / "override.nc"
    assert main(["simulate", *TINY, "--seed", "1", "--constants", str(out), "--alpha", "7",
                 "--out", str(override)]) == 0
    result = xr.load_dataset(override)
    assert (result.attrs["pdftsp_alpha"], result.attrs["pdftsp_beta"]) == (7.0, beta)


def test_simulate_with_the_vmax_constants(tmp_path, capsys):
    """simulate --constants vmax runs pdFTSP with alpha = 1 and beta = speed_per_memory_max."""
    run = tmp_path / "run.nc"
    assert main(["simulate", *TINY, "--constants", "vmax", "--out", str(run)]) == 0
    assert "welfare" in capsys.readouterr().out
    result = xr.load_dataset(run)
    lorasched.check_result(result)
    assert result.attrs["pdftsp_constants"] == "vmax"
    assert result.attrs["pdftsp_alpha"] == 1.0
    assert result.attrs["pdftsp_beta"] == pytest.approx(result.attrs["speed_per_memory_max"])
    default = lorasched.simulate(lorasched.synthetic_scenario(nodes=3, slots=12, load=4.0,
                                                              vendors=2, seed=1), seed=1)
    assert default.attrs["pdftsp_constants"] == "lemma2"
    assert default.attrs["pdftsp_alpha"] > 1.0


@pytest.mark.parametrize("argv, message", [
    (["simulate", "--algorithm", "eft", "--constants", "vmax"], "--constants"),
    (["simulate", "--algorithm", "ntm", "--alpha", "1"], "--alpha"),
    (["simulate", "--algorithm", "titan", "--beta", "1"], "--beta"),
    (["simulate", "--constants", "lemma3"], "--constants"),
    (["simulate", "--constants", "/no/such/constants.toml"], "--constants"),
    (["calibrate", "--trace-day", "3"], "--trace-day needs --trace"),
    (["calibrate", "--alpha"], "--alpha"),
])
def test_bad_constants_exit_2_with_a_message(argv, message, capsys):
    """Constants for a policy without them, or an unknown rule or file, exit 2."""
    with pytest.raises(SystemExit) as exc:
        main([*argv[:1], *TINY, *argv[1:]])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_simulate_refuses_constants_calibrated_for_another_policy(tmp_path, capsys):
    """A constants file for another algorithm is an error, exit 2, naming the file."""
    path = tmp_path / "titan.toml"
    path.write_text('system = "pdftsp"\nalgorithm = "titan"\n[options]\nmip_max_nodes = 0\n')
    with pytest.raises(SystemExit) as exc:
        main(["simulate", *TINY, "--constants", str(path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "titan.toml" in err and "pdftsp/titan" in err


def test_sweep_with_constants_adds_the_calibrated_options(tmp_path, capsys):
    """sweep --constants adds the file's options to the calibrated algorithm's options."""
    constants = tmp_path / "c.toml"
    constants.write_text('system = "pdftsp"\nalgorithm = "pdftsp"\n[options]\nalpha = 1.5\n'
                         'beta = 25.0\n')
    decl = tmp_path / "s.toml"
    decl.write_text('algorithms = ["pdftsp", "ntm"]\nseeds = 1\n[base]\nnodes = 2\n'
                    'slots = 12\nload = 2.0\n[options.pdftsp]\npayment = "paper"\n')
    out = tmp_path / "s.nc"
    assert main(["sweep", str(decl), "--constants", str(constants), "--out", str(out),
                 "--serial", "--no-progress"]) == 0
    assert "2 cells computed" in capsys.readouterr().out
    ds = xr.load_dataset(out)
    options = json.loads(ds.attrs["sweep"])["options"]
    assert options == {"pdftsp": {"payment": "paper", "alpha": 1.5, "beta": 25.0}}
    scenario = lorasched.synthetic_scenario(nodes=2, slots=12, load=2.0, seed=1)
    direct = lorasched.simulate(scenario, "pdftsp", seed=1, alpha=1.5, beta=25.0,
                                payment="paper")
    assert ds["welfare"].sel(algorithm="pdftsp", seed=1).item() == direct.attrs["welfare"]


def test_sweep_with_constants_for_an_algorithm_it_does_not_run_exits_2(tmp_path, capsys):
    """sweep --constants with a sweep that does not run the calibrated algorithm exits 2."""
    constants = tmp_path / "c.toml"
    constants.write_text('system = "pdftsp"\nalgorithm = "pdftsp"\n[options]\nalpha = 1.5\n')
    decl = tmp_path / "s.toml"
    decl.write_text('algorithms = ["eft", "ntm"]\nseeds = 1\n[base]\nnodes = 2\nslots = 12\n')
    out = tmp_path / "s.nc"
    with pytest.raises(SystemExit) as exc:
        main(["sweep", str(decl), "--constants", str(constants), "--out", str(out),
              "--serial", "--no-progress"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--constants" in err and "does not run" in err
    assert not out.exists() and not (tmp_path / "s.nc.cells").exists()
    with pytest.raises(SystemExit) as exc:
        main(["sweep", str(decl), "--constants", str(tmp_path / "none.toml"), "--out",
              str(out)])
    assert exc.value.code == 2
    assert "none.toml does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["colour = 1.0", 'alpha = "big"'])
def test_simulate_with_a_bad_option_in_the_constants_file_exits_2(tmp_path, capsys, option):
    """A constants file whose option pdFTSP cannot take is an error, exit 2, naming it."""
    path = tmp_path / "c.toml"
    path.write_text(f'system = "pdftsp"\nalgorithm = "pdftsp"\n[options]\n{option}\n')
    with pytest.raises(SystemExit) as exc:
        main(["simulate", *TINY, "--constants", str(path)])
    assert exc.value.code == 2
    assert option.split(" =")[0] in capsys.readouterr().err


@pytest.mark.parametrize("algorithm", ["titan", "titan-nomerge", "titan-noswitch", "srtf",
                                       "tiresias"])
def test_simulate_titan_writes_a_checked_result(algorithm, tmp_path, capsys):
    out = tmp_path / "run.nc"
    assert main(["simulate", "--system", "titan", "--algorithm", algorithm, "--jobs", "20",
                 "--density", "1", "--trace", "helios", "--seed", "1", "--out",
                 str(out)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"{algorithm}: 20 jobs (helios workload") and "average JCT" in line
    result = xr.open_dataset(out).load()
    lorasched.check_result(result)
    assert result.attrs["algorithm"] == algorithm.replace("-", "_")
    again = lorasched.simulate(lorasched.titan_scenario(workload="helios", jobs=20, seed=1),
                               algorithm)
    assert result.attrs["avg_jct_h"] == pytest.approx(again.attrs["avg_jct_h"], rel=1e-12)
    assert (result["finish_s"].values == again["finish_s"].values).all()


def test_simulate_titan_default_is_the_authors_workload(capsys):
    assert main(["simulate", "--system", "titan", "--algorithm", "srtf"]) == 0
    assert "160 jobs (authors workload, density 1" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["simulate", "--system", "titan", "--load", "light"], "--load is pdFTSP's"),
    (["simulate", "--system", "titan", "--trace", "philly"], "--trace"),
    (["simulate", "--system", "titan", "--algorithm", "magic"], "unknown algorithm 'magic'"),
    (["simulate", "--jobs", "5"], "--jobs is TITAN's"),
    (["simulate", "--preemptive"], "--preemptive is TITAN's"),
    (["simulate", "--gpu", "V100"], "--gpu V100"),
    (["simulate", "--system", "nosuch"], "--system"),
])
def test_bad_titan_options_exit_2_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_reproduce_titan_small_fills_the_store(tmp_path, capsys):
    store = tmp_path / "store"
    assert main(["reproduce", "--system", "titan", "--figures", "fig05", "--size", "small",
                 "--seeds", "1", "--store", str(store), "--serial", "--no-progress",
                 "--no-shipped"]) == 0
    assert "titan (small): 40 cells computed" in capsys.readouterr().out


# ------------------------------------------------------------------ the error contract (28)


@pytest.mark.parametrize("argv, message", [
    (["simulate", "--seed", "-1"], "argument --seed: must be a whole number >= 0"),
    (["simulate", "--system", "allpass", "--capacity", "-1"],
     "argument --capacity: must be a positive whole number or none"),
    (["simulate", "--system", "allpass", "--capacity", "-5"],
     "argument --capacity: must be a positive whole number or none"),
    (["simulate", "--load", "nan"], "argument --load: must be a finite number"),
    (["explore", "--load", "-3"], "argument --load: must be a finite number > 0"),
    (["simulate", "--system", "titan", "--solver", "exact"],
     "--solver is pdFTSP's; --system titan has no such setting"),
    (["simulate", "--system", "titan", "--work-resolution", "4"], "--work-resolution is pdFTSP's"),
    (["simulate", "--system", "titan", "--deadline-policy", "tight"],
     "--deadline-policy is pdFTSP's"),
    (["simulate", "--system", "titan", "--candidate-cells", "scan"],
     "--candidate-cells is pdFTSP's"),
    (["simulate", "--system", "titan", "--trace-day", "3"], "--trace-day is pdFTSP's"),
    (["simulate", "--system", "allpass", "--oversize", "cap"], "--oversize is TITAN's"),
    (["simulate", "--oversize", "drop"], "--oversize is TITAN's"),
    (["simulate", "--trace-day", "3"], "--trace-day needs --trace"),
    (["simulate", "--system", "titan", "--nodes", "1", "--gpus-per-node", "2", "--jobs", "20",
      "--trace", "helios"], "exceeds the cluster's 2 GPUs (oversize='cap'"),
])
def test_a_refused_input_is_one_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert "Traceback" not in err


def test_out_naming_a_folder_or_an_unreadable_file_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--nodes", "2", "--slots", "6", "--load", "1", "--out",
              str(tmp_path)])
    assert exc.value.code == 2
    assert f"--out: {tmp_path} is a folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:  # a folder where the sweep file belongs
        main(["sweep", str(tmp_path), "--out", str(tmp_path / "r.nc")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"{tmp_path}: is a folder, not a sweep file" in err and len(err.splitlines()) == 1


def test_a_sweep_file_that_is_not_utf8_names_itself(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_bytes(b'name = "x"\nalgorithms = ["ntm"]\n# \xff\xfe\n')
    with pytest.raises(SystemExit) as exc:
        main(["sweep", str(path), "--out", str(tmp_path / "r.nc")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"{path} line 3: byte 0xff is not UTF-8" in err and "Traceback" not in err


def test_trace_day_picks_the_day_of_the_trace(capsys):
    assert main(["simulate", "--nodes", "2", "--slots", "12", "--load", "2", "--trace",
                 "mlaas", "--trace-day", "3"]) == 0
    assert "trace mlaas day 3" in capsys.readouterr().out


def test_titan_oversize_caps_or_drops_the_jobs_too_big_for_the_cluster():
    small = dict(workload="helios", jobs=20, nodes=1, gpus_per_node=2, seed=1)
    with pytest.raises(lorasched.InputError, match="exceeds the cluster's 2 GPUs"):
        lorasched.titan_scenario(**small)
    capped = lorasched.titan_scenario(**small, oversize="cap")
    dropped = lorasched.titan_scenario(**small, oversize="drop")
    assert capped.sizes["job"] == 20 and capped["requested_gpus"].values.max() == 2
    n_over = capped.attrs["oversize_jobs"]
    assert n_over > 0 and dropped.attrs["oversize_jobs"] == n_over
    assert dropped.sizes["job"] == 20 - n_over
    assert dropped["requested_gpus"].values.max() <= 2
    with pytest.raises(lorasched.InputError, match="oversize must be one of"):
        lorasched.titan_scenario(**small, oversize="shrink")
    lorasched.check_result(lorasched.simulate(dropped, "srtf"))


def test_export_sweeps_creates_its_folder(tmp_path):
    from lorasched.cli import export_sweeps

    paths = export_sweeps(tmp_path / "new" / "sweeps", "small")
    assert paths and all(p.is_file() for p in paths)


def test_a_closed_pipe_ends_the_command_quietly():
    import subprocess
    import sys

    proc = subprocess.run(f"{sys.executable} -m lorasched.cli profiles | head -1", shell=True,
                          capture_output=True, text=True, check=False)
    assert proc.stdout.strip() and "Traceback" not in proc.stderr
    assert "BrokenPipe" not in proc.stderr


def test_a_scheduler_that_does_not_answer_is_named_after_a_bounded_wait(tmp_path, monkeypatch):
    import socket

    from lorasched.experiments import executor

    monkeypatch.setattr(executor, "SCHEDULER_TIMEOUT_S", 2.0)
    with socket.socket() as sock:  # a port with nothing listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    decl = tmp_path / "s.toml"
    decl.write_text('name = "s"\nalgorithms = ["ntm"]\nseeds = 1\n[base]\nnodes = 2\n'
                    'slots = 6\nload = 1.0\n')
    with pytest.raises(lorasched.InputError, match=f"--scheduler tcp://127.0.0.1:{port}: no "
                       "Dask scheduler answered within 2 s"):
        lorasched.run_sweep(decl, tmp_path / "r.nc", scheduler=f"tcp://127.0.0.1:{port}",
                            progress=False)


def test_python_dash_m_lorasched_is_the_command():
    """``python -m lorasched`` runs the same command (its errors too: one line, exit 2)."""
    import subprocess
    import sys

    ok = subprocess.run([sys.executable, "-m", "lorasched", "profiles"], capture_output=True,
                        text=True)
    assert ok.returncode == 0 and "sources:" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "lorasched", "simulate", "--seed", "-1"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--seed" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize("argv, message", [
    (["simulate", "--nodes", "0"], "lorasched simulate: error: argument --nodes: must be >= 1"),
    (["simulate", "--system", "titan", "--setup", "nope"], "argument --setup: invalid choice"),
    (["nope"], "lorasched: error: argument command: invalid choice: 'nope'"),
    (["bench"], "lorasched bench: error: the following arguments are required: bench"),
])
def test_a_flag_s_error_is_one_line_naming_it(argv, message, capsys):
    """argparse's errors too are one line on stderr, exit 2 (not the usage block first)."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and message in err, err
    assert "--help)" in err


def test_lorasched_alone_prints_its_commands(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "simulate" in err and "reproduce" in err and "serve" in err
