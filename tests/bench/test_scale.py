"""``lorasched bench scale``: its measurements, the table, its JSON and its comparison (on
tiny sizes: the real sizes are a benchmark, not a test). The speed page that shows them:
test_scale_page.py."""

from __future__ import annotations

import contextlib
import itertools
import json

import numpy as np
import pytest

from lorasched.bench import scale as bench_scale
from lorasched.cli import main

TINY = {
    "bound": {"kind": "bound", "nodes": 2, "load": 1.5, "slots": 12},
    "day10x": {"kind": "day", "nodes": 3, "load": bench_scale.SERIES_LOAD * 3,
               "algorithm": "pdftsp", "slots": 12},
    "decision": {"1": {"kind": "day", "nodes": 1, "load": 0.5, "algorithm": "pdftsp",
                       "slots": 12}},
    "titan": {"kind": "day", "nodes": 2, "load": 1.5, "algorithm": "titan", "slots": 12},
}


@pytest.fixture()
def in_process(monkeypatch):
    """Measure in this process (the fresh process is tested once, below)."""
    monkeypatch.setattr(bench_scale, "measure", bench_scale._child)


@pytest.mark.slow
def test_scale_prints_the_table_writes_json_and_compares(in_process, tmp_path, capsys):
    path = tmp_path / "now.json"
    figures = bench_scale.scale(bench_scale.DEFAULT_ROWS, out_path=path, specs=TINY,
                                series_nodes=(2, 3), provider_nodes=(4, 6))
    saved = json.loads(path.read_text())
    assert saved["rows"].keys() == {"bound", "day10x", "decision", "titan", "series",
                                    "provider"}
    assert [p["nodes"] for p in saved["rows"]["provider"]] == [4, 6]
    # the slope of log decision time on log K over the pdFTSP points of K <= 2,000
    points = bench_scale.decision_points(saved)
    assert [k for k, _ in points] == [2, 3, 4, 6]
    assert bench_scale.decision_slope(saved) is None  # no point in K = 100 ... 2,000
    slope = bench_scale.decision_slope(saved, lo=2, hi=3)
    x, y = np.log([2, 3]), np.log([us for _, us in points[:2]])
    assert slope == pytest.approx((y[1] - y[0]) / (x[1] - x[0]))
    assert bench_scale.decision_slope(saved, lo=2, hi=2) is None
    assert saved == json.loads(json.dumps(figures))
    assert saved["rows"]["bound"]["bound"] > 0 and saved["rows"]["bound"]["converged"]
    assert saved["rows"]["titan"]["slots_hit_limit"] >= 0
    # the 10x day doubles as a decision row and, at 0.4 K arrivals, as a series point
    assert sorted(saved["rows"]["decision"]) == ["1", "3"]
    assert [(p["nodes"], p["algorithm"]) for p in saved["rows"]["series"]] == [
        (k, a) for k in (2, 3) for a in bench_scale.SERIES_ALGORITHMS]
    assert saved["rows"]["series"][3] == saved["rows"]["day10x"]
    text = capsys.readouterr().out
    for line in ("offline_upper_bound, K=2 1.5", "10x day, pdFTSP", "peak memory",
                 "pdFTSP decision median, K=3", "Titan day, K=2 1.5", f"wrote {path}",
                 "pdFTSP day, K=6",
                 "peak memory, K=6", "decision median, K=4"):
        assert line in text, line
    assert figures["machine"]["cores"] >= 1 and figures["code"]

    bench_scale.report(saved, baseline=saved)  # compared with itself: every ratio is 1
    lines = [ln for ln in capsys.readouterr().out.splitlines() if " s " in ln]
    assert lines and all(ln.rstrip().endswith("1.00") for ln in lines)


@pytest.mark.slow
def test_measure_runs_each_row_in_a_fresh_process():
    got = bench_scale.measure(TINY["day10x"])
    assert got["algorithm"] == "pdftsp" and got["tasks"] > 0 and got["nodes"] == 3
    assert 0.05 < got["peak_gb"] < 50 and got["seconds"] >= got["run_seconds"] > 0
    with pytest.raises(RuntimeError, match="no_such_algorithm"):
        bench_scale.measure({**TINY["day10x"], "algorithm": "no_such_algorithm"})


def test_unknown_rows_are_named(capsys):
    with pytest.raises(ValueError, match="'speed'"):
        bench_scale.run(("bound", "speed"))
    with pytest.raises(SystemExit) as exc:
        main(["bench", "scale", "--rows", "speed"])
    assert exc.value.code == 2 and "speed" in capsys.readouterr().err


def test_book_row_reads_each_system_and_the_rebuilds(monkeypatch, tmp_path):
    """The book row times the venv and make book apart, reads each system's line of
    `lorasched reproduce` from make's output, and makes the book twice more after appending
    a function to Allpass's package and to a presentation module; the table shows it all."""
    calls = []
    printed = iter([
        "pdftsp (full): 700 cells computed, 0 already done, 0 failed; its cells ran 3000 s in "
        "all -> x\n"
        "titan (full): 192 cells computed, 0 already done, 0 failed; its cells ran 300 s in "
        "all -> x\n"
        "pdftsp + titan (full): one batch of 892 cells in 1660 s -> x\n"
        "allpass (full): 60 cells computed, 0 already done, 0 failed in 30 s -> x\n",
        "pdftsp (full): 0 cells computed, 700 already done, 0 failed; its cells ran 0 s in "
        "all -> x\n"
        "titan (full): 0 cells computed, 192 already done, 0 failed; its cells ran 0 s in "
        "all -> x\n"
        "pdftsp + titan (full): one batch of 892 cells in 3 s -> x\n"
        "allpass (full): 60 cells computed, 0 already done, 0 failed in 31 s -> x\n",
        "titan (full): 0 cells computed, 192 already done, 0 failed in 2 s -> x\n"])

    class Done:
        returncode = 0
        stderr = ""

        def __init__(self, stdout=""):
            self.stdout = stdout

    def fake_run(cmd, cwd=None, **kw):
        calls.append((cmd, cwd))
        if cmd[:2] == ["git", "clone"]:
            for module in bench_scale.REBUILDS.values():
                path = tmp_path / "clone" / module
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("x = 1\n")
            return Done()
        return Done(next(printed) if cmd == ["make", "book"] else "")

    monkeypatch.setattr(bench_scale.subprocess, "run", fake_run)
    monkeypatch.setattr(bench_scale.tempfile, "TemporaryDirectory",
                        lambda: contextlib.nullcontext(str(tmp_path)))
    clock = itertools.count(0.0, 10.0)  # every reading of the clock 10 s later
    monkeypatch.setattr(bench_scale.time, "perf_counter", lambda: next(clock))
    got = bench_scale._book_seconds(tmp_path)
    assert got["venv_seconds"] == 10.0 and got["seconds"] == 20.0  # venv + make book
    assert [c[0] for c in calls] == [["git", "clone", "-q", str(tmp_path),
                                      str(tmp_path / "clone")], ["make", ".venv"],
                                     ["make", "book"], ["make", "book"], ["make", "book"]]
    assert got["systems"]["titan"] == {"computed": 192, "done": 0, "failed": 0,
                                       "cell_seconds": 300.0}
    assert got["systems"]["allpass"]["seconds"] == 30.0
    assert got["batches"] == [{"systems": ["pdftsp", "titan"], "cells": 892, "seconds": 1660.0}]
    assert got["other_seconds"] == 10.0 - 1660.0 - 30.0  # make book's 10 s, less the cells'
    assert got["rebuilds"]["presentation"]["systems"]["titan"]["seconds"] == 2.0
    assert got["rebuilds"]["allpass"]["systems"]["pdftsp"]["computed"] == 0
    assert got["rebuilds"]["allpass"]["systems"]["allpass"]["computed"] == 60
    for module in bench_scale.REBUILDS.values():
        assert "def _bench_rebuild_" in (tmp_path / "clone" / module).read_text()
    lines = {what.strip(): value for what, value, _, _ in
             bench_scale.summary({"rows": {"book": got}})}
    assert lines["titan's cells (192 computed), summed"] == 300.0
    assert lines["pdftsp + titan's cells, one batch"] == 1660.0
    assert lines["allpass's cells (60 computed)"] == 30.0
    assert lines["make book again after a change to allpass"] >= 0
    assert "make book again after a change to presentation" in lines


def _series(us_by_k: dict) -> dict:
    return {"rows": {"series": [{"nodes": k, "algorithm": a, "decision_median_us": us}
                                for k, us in us_by_k.items() for a in ("pdftsp", "eft")],
                     "provider": []}}


def test_decision_slope_fits_the_pdftsp_points_of_k_100_to_2000():
    figures = _series({50: 1.0, 100: 10.0, 400: 20.0, 1600: 40.0, 5000: 1e6})
    # only pdFTSP's points, each once, sorted by K
    assert bench_scale.decision_points(figures) == [
        (50, 1.0), (100, 10.0), (400, 20.0), (1600, 40.0), (5000, 1e6)]
    # 10 -> 20 -> 40 us as K grows 4x each time: slope log 2 / log 4 = 0.5, the points
    # outside K = 100 ... 2,000 left out
    assert bench_scale.decision_slope(figures) == pytest.approx(0.5)
    assert bench_scale.decision_slope(_series({100: 10.0})) is None
    # the slope is a line of the table, with its goal
    line = [row for row in bench_scale.summary(figures) if row[0].startswith("slope")]
    assert line == [("slope of log decision time on log K", pytest.approx(0.5), "",
                     bench_scale.GOALS["decision_slope"])]


def test_numbers_are_printed_as_the_table_prints_them():
    assert [bench_scale.fmt(v) for v in (None, 150, 1234.5, 0.12345, 3.0, 2e6)] == [
        "-", "150", "1,234.5", "0.123", "3", "2,000,000.0"]
    figures = _series({100: 10.0, 400: 20.0})
    assert bench_scale.baseline_value(figures, "slope of log decision time on log K") == \
        pytest.approx(0.5)
    assert bench_scale.baseline_value(figures, "no such line") is None
    assert bench_scale.baseline_value(None, "slope of log decision time on log K") is None
