"""Sweeps: declaration, serial == Dask, resume after a crash, failing cells."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from lorasched.cli import main
from lorasched.experiments import (
    Sweep,
    default_store,
    grid,
    run_sweep,
    run_sweeps,
    without_timings,
)

SMALL = {
    "name": "small",
    "base": {"nodes": 3, "slots": 12, "vendors": 2},
    "axes": {"load": [2, 5], "alpha": {"a1": {"alpha": 1.0}, "a2": {"alpha": 2.0}}},
    "algorithms": ["pdftsp", "eft", "ntm"],
    "seeds": [1, 2],
    "bound": "lp",
}

TOML = """
name = "resume"
algorithms = ["pdftsp", "eft"]
seeds = 3

[base]
nodes = 12
slots = 48
gpu = "A40"

[axes]
load = [8, 12, 16]
"""


@pytest.mark.slow
def test_serial_equals_local_cluster_with_two_workers(tmp_path):
    serial = run_sweep(SMALL, tmp_path / "serial.nc", serial=True, progress=False)
    dask = run_sweep(SMALL, tmp_path / "dask.nc", workers=2, progress=False)
    assert dask.computed == serial.computed > 0 and not dask.failed
    a = without_timings(xr.load_dataset(tmp_path / "serial.nc"))
    b = without_timings(xr.load_dataset(tmp_path / "dask.nc"))
    assert a.identical(b)
    assert np.isfinite(a["welfare"]).all() and np.isfinite(a["competitive_ratio"]).all()
    # every metric of the system is there, over the declared dims
    assert a["welfare"].dims == ("load", "alpha", "algorithm", "seed")
    for name in ("user_utility", "provider_utility", "revenue", "n_admitted",
                 "operating_cost", "vendor_cost", "competitive_ratio"):
        assert name in a
    assert "decision_time_mean" in xr.load_dataset(tmp_path / "dask.nc")
    assert json.loads(a.attrs["sweep"]) == Sweep.from_dict(SMALL).to_dict()


def test_results_match_direct_simulation(tmp_path):
    import lorasched

    ds = run_sweep(SMALL, tmp_path / "r.nc", serial=True, progress=False).dataset
    sc = lorasched.synthetic_scenario(nodes=3, slots=12, vendors=2, load=5, seed=2)
    for alg, opts in (("pdftsp", {"alpha": 2.0}), ("ntm", {})):
        r = lorasched.simulate(sc, alg, seed=2, **opts)
        cell = ds.sel(load=5, alpha="a2", algorithm=alg, seed=2)
        assert cell["welfare"].item() == r.attrs["welfare"]
        assert cell["n_admitted"].item() == r.attrs["n_admitted"]
        assert cell["revenue"].item() == r.attrs["revenue"]
    ub = lorasched.pdftsp.offline_upper_bound(sc)
    assert ds["bound"].sel(load=5, alpha="a2", seed=2).item() == ub.bound
    ratio = ds["competitive_ratio"].sel(load=5, alpha="a2", algorithm="ntm", seed=2).item()
    assert ratio == pytest.approx(ub.bound / ds["welfare"].sel(
        load=5, alpha="a2", algorithm="ntm", seed=2).item())


def test_an_axis_an_algorithm_ignores_is_computed_once():
    sweep = Sweep.from_dict(SMALL)
    cells = grid.cells(sweep)
    # per (load, seed): pdftsp x 2 alphas, eft, ntm, bound -> 5 cells, not 2 x 4
    assert len(cells) == 2 * 2 * 5
    eft = [c for c in cells if c.params["algorithm"] == "eft"]
    assert all(len(c.where) == 2 for c in eft)  # one run fills both alpha labels


def _default_sigint():
    # a shell without job control starts background commands with SIGINT ignored, and
    # Python keeps an ignored SIGINT (no KeyboardInterrupt); tests run that way (e.g.
    # `make test &`) must still be able to interrupt the sweep
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cli(args, cwd, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "lorasched.cli", *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint, **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["kill", "interrupt"])
def test_sweep_killed_midway_resumes_to_the_same_dataset(tmp_path, how):
    (tmp_path / "s.toml").write_text(TOML)
    ref = _cli(["sweep", "s.toml", "--out", "ref.nc", "--serial", "--no-progress"], tmp_path)
    assert ref.wait(timeout=300) == 0, ref.stderr.read()
    cells = len(grid.cells(Sweep.from_file(tmp_path / "s.toml")))

    done = default_store(tmp_path / "run.nc") / "done"
    args = ["sweep", "s.toml", "--out", "run.nc", "--no-progress"]
    proc = _cli(args + (["--serial"] if how == "kill" else ["--workers", "2"]), tmp_path)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        finished = len(list(done.glob("*.json"))) if done.is_dir() else 0
        if finished >= 2 or proc.poll() is not None:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the sweep finished before it could be stopped"
    proc.send_signal(signal.SIGKILL if how == "kill" else signal.SIGINT)
    rc = proc.wait(timeout=120)
    assert rc == (-signal.SIGKILL if how == "kill" else 130), proc.stderr.read()
    kept = len(list(done.glob("*.json")))
    assert 2 <= kept < cells
    assert not (tmp_path / "run.nc").exists()

    resumed = _cli(args + ["--serial"], tmp_path)
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert f"{cells - kept} cells computed, {kept} already done" in out
    a = without_timings(xr.load_dataset(tmp_path / "ref.nc"))
    b = without_timings(xr.load_dataset(tmp_path / "run.nc"))
    assert a.identical(b)


def test_a_failing_cell_is_reported_and_the_others_finish(tmp_path, capsys):
    decl = {"name": "fails", "base": {"slots": 12, "load": 3}, "algorithms": ["pdftsp", "eft"],
            "axes": {"nodes": [3, 0]}, "seeds": [1]}
    (tmp_path / "f.json").write_text(json.dumps(decl))
    out = tmp_path / "f.nc"
    rc = main(["sweep", str(tmp_path / "f.json"), "--out", str(out), "--serial",
               "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 1
    assert "pdftsp [nodes=0, algorithm=pdftsp, seed=1]: InputError: nodes must be" in err
    assert "eft [nodes=0, algorithm=eft, seed=1]" in err
    ds = xr.load_dataset(out)
    assert np.isfinite(ds["welfare"].sel(nodes=3)).all()
    assert np.isnan(ds["welfare"].sel(nodes=0)).all()
    failed = json.loads(ds.attrs["failed_cells"])
    assert len(failed) == 2 and all("nodes must be" in f["error"] for f in failed)
    records = [json.loads(p.read_text()) for p in (default_store(out) / "failed").glob("*")]
    assert sorted(r["params"]["algorithm"] for r in records) == ["eft", "pdftsp"]
    assert all(r["params"]["scenario"]["nodes"] == 0 and "Traceback" in r["traceback"]
               for r in records)
    # a rerun skips the finished cells and retries only the failed ones
    rc = main(["sweep", str(tmp_path / "f.json"), "--out", str(out), "--serial",
               "--no-progress"])
    captured = capsys.readouterr()
    assert rc == 1 and "0 cells computed, 2 already done, 2 failed" in captured.out


def test_a_failing_cell_on_dask_does_not_stop_the_others(tmp_path):
    decl = {"base": {"slots": 12, "load": 3}, "algorithms": ["ntm"],
            "axes": {"nodes": [2, 0, 3]}, "seeds": [1, 2]}
    report = run_sweep(decl, tmp_path / "d.nc", workers=2, progress=False)
    assert report.computed == 4 and len(report.failed) == 2
    assert np.isnan(report.dataset["welfare"].sel(nodes=0)).all()
    assert np.isfinite(report.dataset["welfare"].sel(nodes=[2, 3])).all()


def test_a_grown_sweep_reuses_finished_cells(tmp_path):
    first = dict(SMALL, bound=None, seeds=[1])
    run_sweep(first, tmp_path / "g.nc", serial=True, progress=False)
    report = run_sweep(dict(first, seeds=[1, 2]), tmp_path / "g.nc", serial=True,
                       progress=False)
    assert report.skipped == len(grid.cells(Sweep.from_dict(first)))
    assert report.computed == report.skipped


def test_an_expensive_policy_runs_only_its_first_seeds(tmp_path):
    decl = dict(SMALL, bound=None, seeds=[1, 2, 3], seed_limit={"eft": 1})
    sweep = Sweep.from_dict(decl)
    assert sweep.seeds_of("eft") == (1,) and sweep.seeds_of("ntm") == (1, 2, 3)
    ran = {(c.params["algorithm"], c.params["seed"]) for c in grid.cells(sweep)}
    assert ("eft", 1) in ran and ("eft", 2) not in ran and ("ntm", 3) in ran
    ds = run_sweep(decl, tmp_path / "l.nc", serial=True, progress=False).dataset
    welfare = ds["welfare"].sel(algorithm="eft")
    assert welfare.sel(seed=1).notnull().all() and welfare.sel(seed=[2, 3]).isnull().all()
    assert ds["welfare"].sel(algorithm="ntm").notnull().all()
    # the limit survives a round trip through a file; all seeds is no limit at all
    (tmp_path / "l.toml").write_text(sweep.to_toml())
    assert Sweep.from_file(tmp_path / "l.toml") == sweep
    assert Sweep.from_dict(dict(decl, seed_limit={"eft": 3})).seed_limit == {}


def test_toml_yaml_and_dict_declarations_agree(tmp_path):
    (tmp_path / "s.toml").write_text(TOML)
    (tmp_path / "s.yaml").write_text(
        "name: resume\nalgorithms: [pdftsp, eft]\nseeds: 3\n"
        "base: {nodes: 12, slots: 48, gpu: A40}\naxes: {load: [8, 12, 16]}\n")
    a = Sweep.from_file(tmp_path / "s.toml")
    b = Sweep.from_file(tmp_path / "s.yaml")
    assert a == b and a.seeds == (1, 2, 3)
    assert [c.key for c in grid.cells(a)] == [c.key for c in grid.cells(b)]


@pytest.mark.parametrize("change, message", [
    ({"algorithms": ["pdftsp", "gurobi"]}, "unknown algorithm 'gurobi'"),
    ({"colour": 1}, "unknown sweep key(s) ['colour']"),
    ({"base": {"node": 3}}, "base: 'node' is not a scenario parameter"),
    ({"axes": {"gamma": [1, 2]}}, "axes.gamma: 'gamma' is neither a scenario parameter"),
    ({"axes": {"load": []}}, "axes.load: expected a non-empty list"),
    ({"axes": {"load": [1, 1]}}, "axes.load: a value is listed twice"),
    ({"options": {"eft": {"alpha": 1}}}, "options.eft: unknown option 'alpha'"),
    ({"options": {"titan": {}}}, "options.titan: 'titan' is not among"),
    ({"seeds": 0}, "seeds: a count must be >= 1"),
    ({"seeds": [1, "x"]}, "seeds must be a count or a non-empty list of integers"),
    ({"bound": "exact"}, "bound must be one of"),
    ({"bound_options": {"time_limit": 5}, "bound": None}, "bound_options given but no"),
    ({"axes": {"seed": [1, 2]}}, "axes: 'seed' is a dimension"),
    ({"seed_limit": {"titan": 1}}, "seed_limit.titan: 'titan' is not among"),
    ({"seed_limit": {"eft": 3}}, "seed_limit.eft must be a whole number from 1 to the "
                                 "sweep's 2 seeds, got 3"),
    ({"seed_limit": {"eft": 0}}, "seed_limit.eft must be a whole number"),
])
def test_bad_declarations_name_the_key(change, message):
    with pytest.raises(ValueError) as err:
        Sweep.from_dict({**SMALL, **change})
    assert message in str(err.value)


def test_bad_files_name_the_file(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("algorithms = [pdftsp\n")
    with pytest.raises(ValueError, match="bad.toml"):
        Sweep.from_file(bad)
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('algorithms = ["eft"]\n[base]\nnodez = 3\n')
    with pytest.raises(SystemExit) as exc:
        main(["sweep", str(wrong), "--out", str(tmp_path / "x.nc")])
    assert exc.value.code == 2
    assert "wrong.toml: base: 'nodez' is not a scenario parameter" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["sweep", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "x.nc")])
    assert exc.value.code == 2
    assert "missing.toml does not exist" in capsys.readouterr().err


def test_dry_run_lists_cells_and_what_is_done(tmp_path, capsys):
    (tmp_path / "s.toml").write_text(TOML)
    out = str(tmp_path / "d.nc")
    assert main(["sweep", str(tmp_path / "s.toml"), "--out", out, "--dry-run"]) == 0
    text = capsys.readouterr().out
    assert "18 distinct cells, 0 already done" in text
    assert text.count("to do ") == 18
    assert not os.path.exists(out)
    assert not Path(out + ".cells").exists()


def test_an_existing_scheduler_runs_the_same_sweep(tmp_path):
    from distributed import LocalCluster

    decl = {"base": {"slots": 12, "load": 3, "nodes": 2}, "algorithms": ["pdftsp", "ntm"],
            "axes": {"vendors": [0, 2]}, "seeds": [1, 2]}
    serial = run_sweep(decl, tmp_path / "s.nc", serial=True, progress=False)
    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None) as cluster:
        remote = run_sweep(decl, tmp_path / "r.nc", scheduler=cluster.scheduler_address,
                           progress=False)
    assert remote.computed == 8 and not remote.failed
    assert without_timings(serial.dataset).identical(without_timings(remote.dataset))


def test_the_embedded_workers_keep_glibcs_adaptive_malloc_and_one_blas_thread(tmp_path,
                                                                               monkeypatch):
    """distributed's MALLOC_TRIM_THRESHOLD_ makes a pdFTSP day 2-2.5 times as costly: a
    sweep's embedded cluster is started under WORKER_ENVIRON, whose workers have no such
    variable (unless the user set it) and still one BLAS thread."""
    import dask.config
    from distributed import Client, LocalCluster

    from lorasched.experiments import executor, sweep

    seen = []

    def no_cluster(pending, record, **where):
        seen.append(dict(dask.config.get("distributed.nanny.pre-spawn-environ")))

    monkeypatch.setattr(executor, "_run_dask", no_cluster)
    run_sweep({"base": {"slots": 12, "load": 3, "nodes": 2}, "algorithms": ["ntm"],
               "seeds": 1}, tmp_path / "w.nc", workers=1, progress=False)
    assert seen and seen[0]["MALLOC_TRIM_THRESHOLD_"] is None
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    with dask.config.set(sweep.WORKER_ENVIRON), LocalCluster(
            n_workers=1, threads_per_worker=1, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        (env,) = client.run(lambda: {k: os.environ.get(k) for k in (
            "MALLOC_TRIM_THRESHOLD_", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}).values()
    assert env == {"MALLOC_TRIM_THRESHOLD_": None, "OMP_NUM_THREADS": "1",
                   "OPENBLAS_NUM_THREADS": "1"}


def test_cells_computed_by_other_code_are_not_reused(tmp_path, monkeypatch):
    decl = {"base": {"slots": 12, "load": 3, "nodes": 2}, "algorithms": ["ntm"], "seeds": 2}
    first = run_sweep(decl, tmp_path / "c.nc", serial=True, progress=False)
    assert first.computed == 2
    assert run_sweep(decl, tmp_path / "c.nc", serial=True, progress=False).skipped == 2
    monkeypatch.setattr(grid, "code_fingerprint", lambda *system: "edited-code")
    again = run_sweep(decl, tmp_path / "c.nc", serial=True, progress=False)
    assert again.computed == 2 and again.skipped == 0
    assert again.dataset.attrs["code_fingerprint"] == "edited-code"


def test_run_sweeps_runs_shared_cells_once_and_fills_every_sweep(tmp_path):
    a = Sweep.from_dict({**SMALL, "name": "a", "bound": None, "axes": {"load": [2, 5]}})
    b = Sweep.from_dict({**SMALL, "name": "b", "bound": None, "axes": {"load": [5, 8]}})
    keys = {c.key for c in grid.cells(a)} | {c.key for c in grid.cells(b)}
    shared = {c.key for c in grid.cells(a)} & {c.key for c in grid.cells(b)}
    assert shared  # load 5 is in both
    report = run_sweeps([a, b], tmp_path / "store", serial=True, progress=False)
    assert report.computed == len(keys) < len(grid.cells(a)) + len(grid.cells(b))
    assert not report.failed
    for s in (a, b):
        again = run_sweep(s, store=tmp_path / "store", serial=True, progress=False)
        assert again.computed == 0 and again.skipped == len(grid.cells(s))
        alone = run_sweep(s, store=tmp_path / f"alone-{s.name}", serial=True, progress=False)
        xr.testing.assert_identical(without_timings(again.dataset),
                                    without_timings(alone.dataset))


def test_run_sweeps_hands_out_cells_in_rank_order_then_by_cost(tmp_path):
    a = Sweep.from_dict({**SMALL, "name": "a", "bound": None, "axes": {"load": [2, 5, 8]}})
    by_cost = []
    report = run_sweeps([a], tmp_path / "cost", serial=True, progress=False,
                        on_cell=lambda cell, outcome: by_cost.append(cell.params))
    loads = [p["scenario"]["load"] for p in by_cost]
    assert loads == sorted(loads, reverse=True)  # pdFTSP's cost hint: high load first
    ranked = []
    run_sweeps([a], tmp_path / "rank", serial=True, progress=False,
               on_cell=lambda cell, outcome: ranked.append(cell.params),
               rank=lambda params: params["scenario"]["load"])  # low load first
    loads = [p["scenario"]["load"] for p in ranked]
    assert loads == sorted(loads) and len(set(loads)) == 3
    assert len(report.cells) == len(grid.cells(a))
    records = [json.loads(p.read_text()) for p in (tmp_path / "cost" / "done").glob("*.json")]
    assert len(records) == len(grid.cells(a))
    assert all(r["seconds"] > 0 for r in records)  # each cell's time on its worker


def test_the_progress_bar_counts_cpu_seconds_and_cells(tmp_path, capsys):
    from lorasched.experiments import progress
    from lorasched.pdftsp.system import expected_seconds as pdftsp_seconds

    decl = {"base": {"slots": 24, "load": 50, "nodes": 100}, "algorithms": ["pdftsp", "eft"],
            "axes": {"vendors": [1, 5]}, "seeds": [1]}
    cells = grid.cells(Sweep.from_dict(decl))
    weights = [progress.expected_seconds(c.params) for c in cells]
    assert weights == [pdftsp_seconds(c.params) for c in cells]
    run_sweep(decl, tmp_path / "p.nc", serial=True, progress=True)
    err = capsys.readouterr().err
    # the bar opens at the cells' expected CPU seconds and ends at those they took; the
    # cells are counted beside it
    assert f"0/{sum(weights):.0f} CPU-s" in err and "cells=4/4" in err
    took = sum(json.loads(p.read_text())["cpu_seconds"]
               for p in (tmp_path / "p.nc.cells" / "done").glob("*.json"))
    assert f"{took:.0f}/{took:.0f} CPU-s" in err
    run_sweep(decl, tmp_path / "p.nc", serial=True, progress=True)  # every cell found done
    assert "0/0 CPU-s" in capsys.readouterr().err


def test_expected_seconds_rank_the_cells_as_measured():
    from lorasched.pdftsp.system import expected_seconds

    def cell(algorithm, nodes=100, load="medium", **options):
        return {"system": "pdftsp", "algorithm": algorithm, "options": options,
                "scenario": {"nodes": nodes, "load": load, "slots": 144}}

    titan = expected_seconds(cell("titan"))
    # measured: a K = 200 day about 3 times a K = 100 day, a high-load day 2.6 times, a
    # Philly day 16 times (412 CPU-s a day on average against the synthetic days' 26)
    assert 2.5 < expected_seconds(cell("titan", nodes=200)) / titan < 4
    assert 2 < expected_seconds(cell("titan", load="high")) / titan < 3.5
    philly = {**cell("titan"), "scenario": {"nodes": 100, "load": "medium", "trace": "philly"}}
    assert 12 < expected_seconds(philly) / titan < 20
    assert expected_seconds(cell("titan", solver="columns")) < titan
    assert 50 < titan / expected_seconds(cell("pdftsp")) < 150
