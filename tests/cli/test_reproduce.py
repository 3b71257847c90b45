"""``lorasched reproduce``: every system's cells, Allpass's kept runs included, in one batch
where --workers, --scheduler and --serial say; a second run computes none; the pages then
read the store."""

from __future__ import annotations

import shutil

import pytest

from lorasched import systems
from lorasched.cli import main
from lorasched.cli import reproduce as command
from lorasched.experiments import Store, compare_stores, executor, grid, shipped
from lorasched.figures import allpass
from lorasched.figures.allpass import declared
from lorasched.figures.base import SystemReport, shipped_files


@pytest.fixture()
def nothing_runs(monkeypatch):
    """The batch recorded, not run."""
    calls = {"batch": []}

    class Done:
        interrupted, cells = False, []

    def batch(sweeps_by_system, size, store, **kw):
        calls["batch"].append({"systems": list(sweeps_by_system), **kw})
        return Done(), {name: SystemReport() for name in sweeps_by_system}

    monkeypatch.setattr(command, "reproduce_together", batch)
    return calls


def test_all_systems_run_in_one_batch_where_told(nothing_runs, tmp_path, capsys):
    assert main(["reproduce", "--system", "all", "--size", "small", "--workers", "2",
                 "--store", str(tmp_path), "--no-progress"]) == 0
    shipped_cells = nothing_runs["batch"][0].pop("shipped_cells")  # the small size's files
    assert set(shipped_cells.records) == {k for path in shipped_files("small")
                                          for k in shipped.read(path).records}
    assert nothing_runs["batch"] == [{"systems": ["pdftsp", "titan", "allpass"], "workers": 2,
                                      "scheduler": None, "serial": False, "progress": False}]
    assert "allpass (small): 0 cells computed" in capsys.readouterr().out
    for option, value in (("--scheduler", "tcp://h:1"), ("--serial", None)):
        assert main(["reproduce", "--system", "allpass", "--size", "small", "--store",
                     str(tmp_path), option, *([value] if value else [])]) == 0
    assert [c["systems"] for c in nothing_runs["batch"][1:]] == [["allpass"], ["allpass"]]
    assert nothing_runs["batch"][1]["scheduler"] == "tcp://h:1"
    assert nothing_runs["batch"][2]["serial"] is True


@pytest.mark.slow
def test_allpass_alone_writes_its_kept_runs_once_and_its_pages_read_them(
        tmp_path, capsys, monkeypatch):
    """``--system allpass --serial`` runs every Allpass cell (one seed here: the pages', the
    readings' counterfactual and the sensitivity page's runs) into the store, the CPU report
    lists each part apart; a second run computes none; a page's data is then read from the
    store, nothing simulated."""
    argv = ["reproduce", "--system", "allpass", "--size", "small", "--seeds", "1", "--serial",
            "--store", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    cells = {c.key for s in allpass.sweeps("small", 1) for c in grid.cells(s)}
    assert f"allpass (small): {len(cells)} cells computed, 0 already done" in out
    header = next(line for line in out.splitlines() if line.startswith("  system "))
    column = slice(header.index("policy"), header.index("cells") - 1)  # its width
    policies = {line[column].strip() for line in out.splitlines()
                if line.startswith("  allpass ")}
    for part in ("allpass", "tl_np", "allpass [reading literal]", "allpass [beyond text]",
                 "queue_all_oracle [beyond text]", "tl_p [counterfactual overhead]",
                 "allpass [sensitivity window 10 min]", "tl_p [sensitivity TL limit 4 h]",
                 "hpa [sensitivity cap 8]", "(all)"):
        assert part in policies, (part, sorted(policies))
    assert len(list((tmp_path / "results").glob("*.nc"))) == len(cells)
    assert main(argv) == 0
    assert f"0 cells computed, {len(cells)} already done" in capsys.readouterr().out

    def nothing(*args, **kwargs):
        raise AssertionError("simulated outside the store")

    monkeypatch.setattr(executor, "run", nothing)  # every cell's run
    monkeypatch.setattr(systems, "simulate", nothing)
    declared.clear_cache()
    data = allpass.figure("fig06").data("small", seeds=1, store=tmp_path)
    assert data.seeds == [1] and ("limited", "allpass_literal", 1) in data.results
    assert data.run("limited", "allpass")["jct_s"].size == 40
    readings = allpass.figure("readings")
    assert not readings.causes(readings.data("small", seeds=1, store=tmp_path)).empty
    # a run the store lost would be computed: here, where nothing may run, that fails
    lost = grid.cells(declared.parts("small", 1)[0].sweep)[0].key
    Store(tmp_path).result_file(lost).unlink()
    declared.clear_cache()
    with pytest.raises(RuntimeError, match="1 Allpass run.s. failed"):
        allpass.figure("fig06").data("small", seeds=1, store=tmp_path)


def test_the_report_gives_cpu_seconds_per_system_and_per_policy():
    pdftsp, titan = SystemReport(computed=3, cpu_seconds=12.0), SystemReport(computed=2,
                                                                              cpu_seconds=2.0)
    pdftsp.by_policy = {"titan": [1, 10.0, 20.0], "eft": [2, 2.0, 1.0]}
    titan.by_policy = {"srtf": [2, 2.0, 0.5]}
    lines = command.cpu_report({"titan": titan, "pdftsp": pdftsp}).splitlines()
    assert lines[0].startswith("CPU seconds of the computed cells, per system and per policy")
    # the costliest system first, its costliest policy first, then the system's total; the
    # cost model's expectation beside each
    assert [line.split() for line in lines[2:]] == [
        ["pdftsp", "titan", "1", "10", "10.00", "20"], ["pdftsp", "eft", "2", "2", "1.00", "1"],
        ["pdftsp", "(all)", "3", "12", "21"], ["titan", "srtf", "2", "2", "1.00", "0"],
        ["titan", "(all)", "2", "2", "0"], ["all", "5", "14", "22"]]
    assert "no cell computed" in command.cpu_report({"pdftsp": SystemReport()})
    # a labelled sweep's policy, longer than the column, widens it for every row
    allpass = SystemReport(computed=1, cpu_seconds=1.0)
    allpass.by_policy = {"allpass [sensitivity TL limit 10 min]": [1, 1.0, 0.4]}
    lines = command.cpu_report({"pdftsp": pdftsp, "allpass": allpass}).splitlines()
    assert lines[-3].startswith("  allpass  allpass [sensitivity TL limit 10 min]      1 ")
    assert len({line.index("(all)") for line in lines if "(all)" in line}) == 1
    assert lines[2].split() == ["pdftsp", "titan", "1", "10", "10.00", "20"]


def test_the_report_gives_a_labelled_policy_its_own_line():
    """A labelled sweep's cells (a page's counterfactual) get their own line, as wide as
    the label, beside the policy's own cells."""
    titan = SystemReport(computed=3, cpu_seconds=3.0)
    titan.by_policy = {"srtf": [2, 2.0, 0.5],
                       "srtf [counterfactual: no switch cost]": [1, 1.0, 0.2]}
    lines = command.cpu_report({"titan": titan}).splitlines()
    assert lines[2].split() == ["titan", "srtf", "2", "2", "1.00", "0"]
    assert lines[3].startswith("  titan    srtf [counterfactual: no switch cost] ")
    assert lines[3].split()[-4:] == ["1", "1", "1.00", "0"]
    assert len({len(line) for line in lines[1:6]}) == 1  # one width for every row


def test_a_small_batch_reports_cpu_seconds_and_takes_shipped_cells_apart(tmp_path, capsys):
    here, there = tmp_path / "here", tmp_path / "there"
    argv = ["reproduce", "--size", "small", "--figures", "fig06", "--serial", "--no-progress"]
    assert main([*argv, "--store", str(here), "--no-shipped"]) == 0  # computed here
    out = capsys.readouterr().out
    rows = {tuple(line.split()[:2]): line.split()[2:] for line in out.splitlines()
            if line.startswith("  pdftsp ")}
    # Fig. 6 at the small size: 3 GPU kinds x 5 seeds, pdFTSP twice, Titan on 3 seeds, EFT,
    # NTM and cost-plus untuned and tuned alike
    assert rows[("pdftsp", "pdftsp")][0] == "30" and rows[("pdftsp", "titan:milp")][0] == "9"
    assert rows[("pdftsp", "eft")][0] == "30"
    assert rows[("pdftsp", "(all)")][0] == "129"
    # each policy's CPU seconds, a number; the batch's total at least each policy's (how
    # many seconds is a benchmark's business, not a test's: at this size they round alike)
    seconds = {policy: float(cols[1]) for (_, policy), cols in rows.items()}
    assert all(s >= 0 for s in seconds.values())
    assert seconds["(all)"] >= max(s for p, s in seconds.items() if p != "(all)")
    # Titan's cells shipped; the others found done in the second store
    done = Store(here).done()
    titan = sorted(k for k, r in done.items() if r["params"]["algorithm"] == "titan")
    files = [tmp_path / "one.jsonl", tmp_path / "two.jsonl"]  # two files, taken as one
    for path, keys in zip(files, (titan[:4], titan[4:]), strict=True):
        shipped.write(path, shipped.ship(Store(here), keys, {"made": "t"}))
    shutil.copytree(here, there, ignore=lambda folder, names: [f"{k}.json" for k in titan])
    assert main([*argv, "--store", str(there), "--shipped", *map(str, files)]) == 0
    out = capsys.readouterr().out
    assert f"0 cells computed, 129 already done (9 taken from {files[0]}, {files[1]}," in out
    assert "pdftsp: 9 cells taken from the shipped cells, not computed here" in out
    assert compare_stores(here, there).identical
    assert all(Store(there).done()[k]["shipped"] for k in titan)
    # --no-shipped forgets them and computes them here: the same numbers
    assert main([*argv, "--store", str(there), "--no-shipped"]) == 0
    out = capsys.readouterr().out
    assert "9 cells taken from shipped cells forgotten" in out
    assert "9 cells computed, 120 already done, 0 failed" in out
    assert [line.split()[:3] for line in out.splitlines() if line.startswith("  pdftsp ")][0] \
        == ["pdftsp", "titan:milp", "9"]
    assert not any(r.get("shipped") for r in Store(there).done().values())
    assert compare_stores(here, there).identical


def test_shipped_options_are_checked(nothing_runs, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["reproduce", "--size", "small", "--store", str(tmp_path), "--shipped",
              str(tmp_path / "none.jsonl")])
    assert exc.value.code == 2
    assert "none.jsonl: no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["reproduce", "--size", "small", "--store", str(tmp_path), "--shipped",
              str(tmp_path / "none.jsonl"), "--no-shipped"])
    assert "give one or the other" in capsys.readouterr().err
    assert nothing_runs["batch"] == []


def test_the_shipped_header_says_where_and_with_what():
    header = command.provenance()
    assert set(header) == {"commit", "made", "machine", "python", "numpy", "numba", "highspy"}
    assert header["machine"].endswith(" CPUs") and header["python"].count(".") == 2


def test_ship_cells_writes_one_file_a_system(tmp_path, monkeypatch, capsys):
    from lorasched.experiments.grid import Cell
    store = Store(tmp_path / "store")
    store.done_dir.mkdir(parents=True)
    store.failed_dir.mkdir()
    for key, system in (("aa", "pdftsp"), ("bb", "titan"), ("cc", "titan")):
        store.put(Cell(key, {"system": system, "scenario": {}, "algorithm": "titan",
                             "options": {}, "seed": 1}, ((("seed", 1),),)),
                  {"ok": True, "metrics": {"x": 1.0}, "seconds": 1.0, "cpu_seconds": 2.0})

    class Catalogue:
        def __init__(self, keys):
            self.keys = keys

        def shipped_keys(self, size):
            return self.keys

    monkeypatch.setattr(command, "shipping", lambda: {"pdftsp": Catalogue(["aa"]),
                                                      "titan": Catalogue(["bb", "cc"])})
    monkeypatch.setattr(command, "shipped_file",
                        lambda size, system: tmp_path / f"{system}-{size}.jsonl")
    assert main(["ship-cells", "--store", str(store.folder)]) == 0
    assert "titan: 2 cells (4 CPU-s when computed)" in capsys.readouterr().out
    assert set(shipped.read(tmp_path / "pdftsp-full.jsonl").records) == {"aa"}
    assert set(shipped.read(tmp_path / "titan-full.jsonl").records) == {"bb", "cc"}
    sizes = []  # --size small: the small build's file and the small build's keys
    monkeypatch.setattr(Catalogue, "shipped_keys", lambda self, size: sizes.append(size)
                        or self.keys)
    assert main(["ship-cells", "--size", "small", "--store", str(store.folder),
                 "--system", "titan"]) == 0
    assert sizes == ["small"]
    assert set(shipped.read(tmp_path / "titan-small.jsonl").records) == {"bb", "cc"}
    capsys.readouterr()
    assert main(["ship-cells", "--store", str(store.folder), "--system", "titan", "--to",
                 str(tmp_path / "elsewhere.jsonl")]) == 0
    assert set(shipped.read(tmp_path / "elsewhere.jsonl").records) == {"bb", "cc"}
    with pytest.raises(SystemExit):
        main(["ship-cells", "--store", str(store.folder), "--to", str(tmp_path / "x.jsonl")])
    assert "name one --system" in capsys.readouterr().err
    # --add: the file's cell kept as it was shipped, the store's new one added
    monkeypatch.setattr(command, "shipping", lambda: {"pdftsp": Catalogue(["aa", "bb"])})
    first = shipped.read(tmp_path / "pdftsp-full.jsonl")
    assert main(["ship-cells", "--store", str(store.folder), "--system", "pdftsp",
                 "--add"]) == 0
    assert "1 new, 0 gone" in capsys.readouterr().out
    now = shipped.read(tmp_path / "pdftsp-full.jsonl")
    assert set(now.records) == {"aa", "bb"} and now.records["aa"] == first.records["aa"]
    assert now.header["made"] == first.header["made"] and len(now.header["added"]) == 1
