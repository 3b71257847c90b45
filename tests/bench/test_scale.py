"""``lorasched bench scale``: the table, its JSON, its comparison and its plot (on tiny
sizes: the real sizes are a benchmark, not a test)."""

from __future__ import annotations

import contextlib
import itertools
import json

import numpy as np
import pytest

from lorasched.bench import scale as bench_scale
from lorasched.bench import titan_per_slot as bench_titan
from lorasched.cli import main
from lorasched.pdftsp.baselines import titan_per_slot as titan

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
    assert len(bench_scale.decision_figure(saved, saved).data) == 2
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


def _figures(bound_s, day_s, peak, dec_us, titan_s):
    day = {"nodes": 2000, "load": 800.0, "algorithm": "pdftsp", "tasks": 100_000,
           "seconds": day_s, "peak_gb": peak, "decision_median_us": dec_us}
    return {"machine": {"cpu": "test", "cores": 2, "memory_gb": 8.0, "python": "3.11",
                        "platform": "linux"}, "date": "2026-11-23 08:00", "code": "abc",
            "rows": {"bound": {"seconds": bound_s, "bound": 14069.6, "nodes": 100,
                               "load": "high"},
                     "day10x": day,
                     "decision": {"100": {"decision_median_us": 30.0}, "2000": day},
                     "titan": {"seconds": titan_s, "slots_hit_limit": 140, "welfare": 5e3,
                               "nodes": 100, "load": "high"},
                     "series": [dict(day, algorithm=a) for a in ("pdftsp", "eft", "ntm")]}}


def test_findings_table_and_plot_say_what_was_measured():
    before = _figures(494.0, 128.0, 5.9, 438.0, 1896.0)
    now = _figures(100.0, 70.0, 2.4, 440.0, 1896.0)
    text = bench_scale.findings(now, before)
    assert "**offline_upper_bound, K=100 high**: 100 s against a goal of 120 s: goal met, " \
           "4.9x faster than before (494 s)" in text
    assert "**peak memory**: 2.4 GB against a goal of 1 GB: goal NOT met, before 5.9 GB" in text
    table = bench_scale.table(now, before)
    assert list(table.columns) == ["what", "before", "now", "unit", "goal", "met"]
    row = table.set_index("what").loc["Titan day, K=100 high, default limits"]
    assert (row["before"], row["now"], row["goal"], row["met"]) == ("1896", "1896", "300", "no")
    assert "about the same as before (1896 s)" in text
    assert "pdFTSP decision median, K=2000**: 440 us against a goal of 100 us: goal NOT met, " \
           "about the same as before" in text
    fig = bench_scale.series_figure(now, before)
    names = {t.name for t in fig.data}
    assert names == {"pdftsp (now)", "eft (now)", "ntm (now)", "pdftsp (before)"}
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis2.type == "log"
    assert "2 cores" in bench_scale.describe(now)


# --------------------------------------------------------------------------- bench titan
TINY_TITAN = {"kind": "day", "nodes": 3, "load": 4.0, "slots": 12, "algorithm": "titan"}


def test_titan_gaps_measure_both_readings_beside_pdftsp(in_process, tmp_path):
    path = tmp_path / "gaps.json"
    bench_titan.titan_gaps((3,), (1,), day={"kind": "day", "load": 4.0, "slots": 12},
                           out_path=path, progress=lambda *a: None)
    saved = json.loads(path.read_text())
    assert [r["reading"] for r in saved["rows"]] == ["pdFTSP", "converged", "budget-limited"]
    converged, limited = saved["rows"][1:]
    assert converged["solver"] == "milp" and limited["solver"] == "columns"
    assert converged["gap_max"] <= titan.MILP_REL_GAP + 1e-9 or converged["slots_hit_limit"]
    assert all(r["cpu_seconds"] > 0 for r in saved["rows"])


def test_titan_settings_measures_each_setting_and_seed(in_process, tmp_path):
    path = tmp_path / "titan.json"
    table = bench_titan.titan_settings(("root", "rounding"), (1, 2), day=TINY_TITAN,
                                       out_path=path, progress=lambda *a: None)
    saved = json.loads(path.read_text())
    assert saved["command"] == "lorasched bench titan"
    assert [(r["setting"], r["seed"]) for r in saved["rows"]] == [
        ("root", 1), ("root", 2), ("rounding", 1), ("rounding", 2)]
    assert all(r["mip"] == r["setting"] for r in saved["rows"])
    assert all(-1e-9 <= r["gap_mean"] <= r["gap_max"] + 1e-9 <= 1 for r in saved["rows"])
    assert len(table) == 4
    shown = bench_titan.titan_table(saved)
    assert list(shown.index) == ["root node only (default)",
                                 "HiGHS's LP completion (earlier)"]
    assert "measured" in bench_scale.describe(saved) and "bench titan" in bench_scale.describe(
        saved)
    # measuring one setting again with merge keeps the other's rows and says whence
    bench_titan.titan_settings(("rens",), (1,), day=TINY_TITAN, out_path=path, merge=True,
                               progress=lambda *a: None)
    merged = json.loads(path.read_text())
    assert [(r["setting"], r["seed"]) for r in merged["rows"]] == [
        ("rens", 1), ("root", 1), ("root", 2), ("rounding", 1), ("rounding", 2)]
    assert sorted(merged["notes"]) == ["root", "rounding"]
    assert saved["date"] in merged["notes"]["root"]
    # without merge the file holds what was measured now
    bench_titan.titan_settings(("rens",), (1,), day=TINY_TITAN, out_path=path,
                               progress=lambda *a: None)
    assert [r["setting"] for r in json.loads(path.read_text())["rows"]] == ["rens"]


def _row(setting, seed, seconds, welfare, admitted):
    return {"setting": setting, "seed": seed, "run_seconds": seconds, "welfare": welfare,
            "admitted": admitted, "slots_hit_limit": 3, "gap_mean": 0.1, "gap_max": 0.2}


def test_titan_findings_take_every_number_from_the_data():
    data = {"rows": [_row("root", 1, 200.0, 100.0, 50), _row("root", 2, 250.0, 200.0, 60),
                     _row("nodes1000", 1, 2000.0, 105.0, 52)]}
    text = bench_titan.titan_findings(data)
    assert "200-250 s on seeds 1, 2" in text and "goal of 300 s is met" in text
    # only the seed both ran is compared: +5 % welfare, +2 tasks, 10 times the time
    assert "on seed 1: welfare +5.0 % to +5.0 %" in text and "+2 to +2 admitted" in text
    assert "10-10 times its time." in text
    # rows kept from another run (bench titan --merge) say that their time ratio mixes runs
    kept = bench_titan.titan_findings({**data, "notes": {"nodes1000": "kept from ..."}})
    assert "10-10 times its time (one of the two comes from another run" in kept
    root_kept = bench_titan.titan_findings({**data, "notes": {"root": "kept from ..."}})
    assert "(one of the two comes from another run" in root_kept
    # the figures' setting against the one before, when both were measured in one run
    both = {"rows": data["rows"] + [_row("rens", 1, 80.0, 99.0, 49),
                                    _row("rens_pscost", 1, 60.0, 98.01, 47)]}
    text = bench_titan.titan_findings(both)
    assert ("Against `rens`, measured in the same run, `rens_pscost` takes 0.75-0.75 times "
            "its time on seed 1, with -2 to -2 admitted tasks and welfare -1.0 % to -1.0 %"
            in text)
    assert "Against `rens`" not in bench_titan.titan_findings(
        {**both, "notes": {"rens": "kept from ..."}})
    # and the figures' setting now against rens_pscost, each pair on its own
    three = {"rows": both["rows"] + [_row("rens_lean", 1, 30.0, 98.01, 48)]}
    text = bench_titan.titan_findings(three)
    assert ("Against `rens_pscost`, measured in the same run, `rens_lean` takes 0.50-0.50 "
            "times its time on seed 1, with +1 to +1 admitted tasks and welfare +0.0 % to "
            "+0.0 %" in text)
    assert "Against `rens`, measured in the same run, `rens_pscost`" in text
    data["rows"][1]["run_seconds"] = 301.0
    assert "goal of 300 s is not met" in bench_titan.titan_findings(data)
    summ = bench_titan.titan_summary(data)
    assert summ.loc["root", "seconds"] == pytest.approx(250.5)
    assert summ.loc["root", "seeds"] == "1 2"


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



def test_decision_findings_name_the_measured_numbers(in_process, tmp_path):
    figures = bench_scale.run(("series", "provider"), specs=TINY, series_nodes=(100, 200),
                              provider_nodes=(300,), progress=lambda s: None)
    text = bench_scale.decision_findings(figures, figures)
    points = bench_scale.decision_points(figures)
    big = figures["rows"]["provider"][0]
    assert "at K = 100 and" in text and f"at K = {points[-1][0]:,}" in text
    assert f"slope of {bench_scale.decision_slope(figures):.2f}" in text
    assert f"K = 300 with {big['tasks']:,} tasks" in text
    assert "With the scan" in text
