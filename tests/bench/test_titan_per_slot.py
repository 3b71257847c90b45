"""``lorasched bench titan``: Titan-per-slot's day under each per-slot MILP setting, both
readings beside pdFTSP, and the speed page's table and words about them (on tiny days)."""

from __future__ import annotations

import json

import pytest

from lorasched.bench import scale as bench_scale
from lorasched.bench import scale_page as page
from lorasched.bench import titan_per_slot as bench_titan
from lorasched.pdftsp.baselines import titan_per_slot as titan


@pytest.fixture()
def in_process(monkeypatch):
    """Measure in this process (test_scale.py runs the fresh process)."""
    monkeypatch.setattr(bench_scale, "measure", bench_scale._child)


TINY_TITAN = {"kind": "day", "nodes": 3, "load": 4.0, "slots": 12, "algorithm": "titan"}


def test_titan_gaps_measure_both_readings_beside_pdftsp(in_process, tmp_path):
    path = tmp_path / "gaps.json"
    bench_titan.titan_gaps((3,), (1,), day={"kind": "day", "load": 4.0, "slots": 12},
                           out_path=path, progress=lambda *a: None)
    saved = json.loads(path.read_text())
    assert [r["reading"] for r in saved["rows"]] == [
        "pdFTSP", "converged", "converged, HiGHS alone", "budget-limited"]
    converged, alone, limited = saved["rows"][1:]
    assert converged["solver"] == alone["solver"] == "milp" and limited["solver"] == "columns"
    for row in (converged, alone):
        assert row["gap_max"] <= titan.MILP_REL_GAP + 1e-9 or row["slots_hit_limit"]
        assert row["slots_over_gap"] <= row["slots_hit_limit"]
        assert len(row["stages"]) == 3
    assert sum(converged["stages"]) == sum(alone["stages"])  # the same slots solved
    assert "stages" not in limited
    assert all(r["cpu_seconds"] > 0 for r in saved["rows"])


def test_the_gaps_command_takes_the_load_and_the_readings(monkeypatch):
    """``lorasched bench titan --gaps --load high --readings converged`` measures that."""
    from lorasched.cli import main

    seen = {}
    monkeypatch.setattr(bench_titan, "titan_gaps",
                        lambda nodes, seeds, **kw: seen.update(nodes=nodes, seeds=seeds, **kw))
    assert main(["bench", "titan", "--gaps", "--nodes", "100", "--seeds", "1", "2",
                 "--load", "high", "--readings", "converged"]) == 0
    assert seen["nodes"] == [100] and seen["seeds"] == [1, 2]
    assert seen["day"] == {"kind": "day", "load": "high"}
    assert seen["readings"] == ("converged",)


def _cell(folder, key, algorithm, scenario, seed, cpu, gap, stopped, system="pdftsp"):
    """One finished cell of a sweep store, as ``lorasched reproduce`` writes it."""
    (folder / "done").mkdir(parents=True, exist_ok=True)
    record = {"key": key, "params": {"system": system, "algorithm": algorithm,
                                     "scenario": scenario, "seed": seed},
              "cpu_seconds": cpu, "metrics": {"max_gap": gap, "slots_hit_limit": stopped}}
    (folder / "done" / f"{key}.json").write_text(json.dumps(record))


def test_titan_cells_sum_a_stores_titan_cells_per_setting(tmp_path, capsys):
    """``lorasched bench titan --store``: per setting (named by what differs from the
    common scenario) the seeds, CPU seconds and each seed's largest gap; other cells
    left out."""
    from lorasched.cli import main

    base = {"nodes": 100, "load": "medium"}
    _cell(tmp_path, "a", "titan", base, 1, 10.0, 0.002, 0)
    _cell(tmp_path, "b", "titan", base, 2, 30.0, 0.004, 0)
    _cell(tmp_path, "c", "titan", {**base, "trace": "philly"}, 1, 300.0, 0.19, 2)
    _cell(tmp_path, "d", "titan", {**base, "nodes": 200}, 1, 70.0, 0.003, 1)
    _cell(tmp_path, "e", "pdftsp", base, 1, 1.0, 0.0, 0)
    _cell(tmp_path, "f", "titan", base, 1, 5.0, 0.0, 0, system="titan")
    table = bench_titan.titan_cells(tmp_path)
    rows = table.set_index("setting")
    assert list(rows.index) == ["common", "nodes=200", "trace=philly"]
    assert rows.loc["common", "seeds"] == "1 2"
    assert (rows.loc["common", "cpu_min"], rows.loc["common", "cpu_max"],
            rows.loc["common", "cpu_sum"]) == (10.0, 30.0, 40.0)
    assert rows.loc["common", "gap_max"] == "0.2 / 0.4"
    assert rows.loc["trace=philly", "slots_hit_limit"] == 2
    assert table.attrs["common"] == base
    assert main(["bench", "titan", "--store", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "4 Titan cells, 410 CPU-seconds in all" in out
    assert "load=medium, nodes=100" in out.splitlines()[0]


def test_titan_cells_refuse_a_store_without_titan(tmp_path):
    from lorasched.model.errors import InputError

    _cell(tmp_path, "e", "pdftsp", {"nodes": 100}, 1, 1.0, 0.0, 0)
    with pytest.raises(InputError, match="no Titan cell"):
        bench_titan.titan_cells(tmp_path)


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
    assert "measured" in page.describe(saved) and "bench titan" in page.describe(
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
