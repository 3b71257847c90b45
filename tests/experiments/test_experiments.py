"""The experiment engine's pieces not covered by test_sweep.py: declarations written back as
TOML, the system key, and comparing two stores (lorasched.experiments)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lorasched.experiments import Store, Sweep, compare_stores, grid, run_sweep
from lorasched.experiments.declaration import _toml
from lorasched.figures import pdftsp as figures

DECL = {"base": {"nodes": 2, "slots": 12, "load": 2.0}, "algorithms": ["ntm", "eft"],
        "seeds": 2, "axes": {"vendors": [1, 3]}}


@pytest.mark.parametrize("key", sorted(figures.FIGURES))
def test_every_figure_sweep_reads_back_from_its_toml(tmp_path, key):
    for sweep in figures.figure(key).sweeps("full").values():
        path = tmp_path / f"{sweep.name}.toml"
        path.write_text(sweep.to_toml())
        assert Sweep.from_file(path) == sweep


def test_toml_has_no_null():
    with pytest.raises(ValueError, match="TOML has no null"):
        _toml({"alpha": None})


def test_the_system_key_is_declared_and_kept(tmp_path):
    sweep = Sweep.from_dict({**DECL, "system": "pdftsp"})
    assert sweep == Sweep.from_dict(DECL)  # the default
    assert json.loads(sweep.to_json())["system"] == "pdftsp"
    ds = run_sweep(sweep, tmp_path / "r.nc", serial=True, progress=False).dataset
    assert ds.attrs["system"] == "pdftsp"
    assert all(c.params["system"] == "pdftsp" for c in grid.cells(sweep))


def test_compare_stores_matches_cells_by_parameters_not_keys(tmp_path, monkeypatch):
    run_sweep(DECL, store=tmp_path / "a", serial=True, progress=False)
    monkeypatch.setattr(grid, "code_fingerprint", lambda *system: "other-code")
    run_sweep(DECL, store=tmp_path / "b", serial=True, progress=False)
    keys_a = set(Store(tmp_path / "a").done())
    assert keys_a and not keys_a & set(Store(tmp_path / "b").done())  # other keys
    report = compare_stores(tmp_path / "a", tmp_path / "b")
    assert report.identical and report.matched == report.equal == len(keys_a)
    assert "IDENTICAL" in str(report)


def test_compare_stores_finds_a_changed_number_and_missing_cells(tmp_path):
    run_sweep(DECL, store=tmp_path / "a", serial=True, progress=False)
    run_sweep({**DECL, "seeds": 1}, store=tmp_path / "b", serial=True, progress=False)
    path = next((tmp_path / "b" / "done").glob("*.json"))
    record = json.loads(path.read_text())
    record["metrics"]["welfare"] += 1e-12
    record["metrics"]["wall_seconds"] += 5.0  # a timing: ignored
    path.write_text(json.dumps(record))
    report = compare_stores(tmp_path / "a", tmp_path / "b")
    assert not report.identical
    assert [m for _, m, _, _ in report.different] == ["welfare"]
    assert len(report.only_a) == report.matched == 4 and not report.only_b
    assert "DIFFERENT" in str(report)


def test_a_store_written_before_systems_existed_is_read_as_the_default(tmp_path):
    run_sweep(DECL, store=tmp_path / "a", serial=True, progress=False)
    old = tmp_path / "old" / "done"
    old.mkdir(parents=True)
    for path in (tmp_path / "a" / "done").glob("*.json"):
        record = json.loads(path.read_text())
        del record["params"]["system"]
        (old / path.name).write_text(json.dumps(record))
    assert compare_stores(tmp_path / "a", tmp_path / "old").identical


def test_compare_stores_names_a_folder_that_is_no_store(tmp_path):
    with pytest.raises(ValueError, match="is not a cell store"):
        compare_stores(tmp_path, tmp_path)


# --------------------------------------------------------------------------- repeats


def test_repeats_round_trips_through_toml_and_dict(tmp_path):
    """repeats > 1 is kept by to_dict, to_toml and from_file; cells carry it."""
    sweep = Sweep.from_dict({**DECL, "repeats": 3})
    assert sweep.repeats == 3
    assert sweep.to_dict()["repeats"] == 3
    assert "repeats = 3" in sweep.to_toml().splitlines()
    path = tmp_path / "r.toml"
    path.write_text(sweep.to_toml())
    assert Sweep.from_file(path) == sweep
    assert Sweep.from_dict(json.loads(sweep.to_json())) == sweep
    assert all(c.params["repeats"] == 3 for c in grid.cells(sweep))


def test_one_repeat_is_the_default_and_changes_no_cell_key():
    """repeats = 1 is the default: absent from to_dict, to_toml and the cells' params."""
    once = Sweep.from_dict({**DECL, "repeats": 1})
    assert once == Sweep.from_dict(DECL) and once.repeats == 1
    assert "repeats" not in once.to_dict() and "repeats" not in once.to_toml()
    cells = grid.cells(once)
    assert all("repeats" not in c.params for c in cells)
    twice = grid.cells(Sweep.from_dict({**DECL, "repeats": 2}))
    assert not {c.key for c in cells} & {c.key for c in twice}  # other runs, other keys


def test_a_bound_cell_is_not_repeated():
    """Only policy cells carry repeats; the bound cell's params have none."""
    sweep = Sweep.from_dict({**DECL, "repeats": 2, "bound": "lp"})
    bounds = [c for c in grid.cells(sweep) if c.params["algorithm"] is None]
    policies = [c for c in grid.cells(sweep) if c.params["algorithm"] is not None]
    assert bounds and all("repeats" not in c.params for c in bounds)
    assert policies and all(c.params["repeats"] == 2 for c in policies)


@pytest.mark.parametrize("repeats", [0, -1, True, False, 1.5, 2.0, "2", None, [2]])
def test_bad_repeats_are_refused_naming_the_key(repeats):
    """repeats must be a whole number >= 1 (not a bool, float or string)."""
    with pytest.raises(ValueError, match="repeats"):
        Sweep.from_dict({**DECL, "repeats": repeats})


def test_bad_repeats_in_a_file_name_the_file(tmp_path):
    """A file with repeats = 0 is a ValueError naming the file and the key."""
    path = tmp_path / "bad.toml"
    path.write_text("repeats = 0\n" + Sweep.from_dict(DECL).to_toml())
    with pytest.raises(ValueError, match=r"bad\.toml: repeats"):
        Sweep.from_file(path)


def test_repeated_runs_give_the_same_numbers_as_one_run(tmp_path):
    """repeats = 2 gives the same non-timing metrics as repeats = 1, and finite timings."""
    import xarray as xr

    from lorasched.experiments import without_timings

    once = run_sweep(DECL, store=tmp_path / "once", serial=True, progress=False)
    twice = run_sweep({**DECL, "repeats": 2}, store=tmp_path / "twice", serial=True,
                      progress=False)
    assert not once.failed and not twice.failed and twice.computed == once.computed
    xr.testing.assert_equal(without_timings(once.dataset), without_timings(twice.dataset))
    assert (once.dataset["n_admitted"] > 0).all()
    for name in ("wall_seconds", "decision_time_mean", "decision_time_median"):
        values = twice.dataset[name].values
        assert (values > 0).all() and (values < 60).all(), name
    assert json.loads(twice.dataset.attrs["sweep"])["repeats"] == 2


def test_timings_are_the_median_over_the_repeats(monkeypatch):
    """With 3 runs measured 3, 1 and 2 s the cell's time is 2 s; other metrics are kept."""
    import dataclasses
    import itertools

    from lorasched import systems
    from lorasched.experiments import executor

    real = systems.get("pdftsp")
    clock = itertools.cycle([3.0, 1.0, 2.0])

    def measure(scenario, result):
        out = real.measure(scenario, result)
        t = next(clock)
        return {**out, "wall_seconds": t, "decision_time_mean": 10 * t}

    fake = dataclasses.replace(real, measure=measure)
    monkeypatch.setattr(executor.systems, "get", lambda name: fake)
    (cell,) = [c for c in grid.cells(Sweep.from_dict({**DECL, "seeds": 1, "repeats": 3}))
               if c.params["algorithm"] == "ntm" and c.params["scenario"]["vendors"] == 1]
    metrics = executor.run_cell(cell.params)
    assert metrics["wall_seconds"] == 2.0 and metrics["decision_time_mean"] == 20.0
    single = executor.run_cell({**cell.params, "repeats": 1})
    assert single["wall_seconds"] == 3.0  # the cycle restarted: one run, its own time
    assert metrics["welfare"] == single["welfare"]


def test_repeated_runs_that_differ_raise(tmp_path, monkeypatch):
    """A policy whose repeated runs differ fails its cells with 'not deterministic'."""
    import itertools

    from lorasched.experiments import executor
    from lorasched.pdftsp.baselines import ntm
    from lorasched.pdftsp.policies import REGISTRY

    calls = itertools.count()

    def flaky(arrays, rng):
        """NTM that gives every other run away for free (a different revenue)."""
        free = next(calls) % 2 == 1
        return ntm.run(arrays, rng, price_per_sample=0.0 if free else None)

    monkeypatch.setitem(REGISTRY, "flaky", flaky)
    decl = {**DECL, "algorithms": ["flaky"], "seeds": 1, "axes": {}}
    (cell,) = grid.cells(Sweep.from_dict({**decl, "repeats": 2}))
    with pytest.raises(RuntimeError, match="not deterministic") as err:
        executor.run_cell(cell.params)
    assert "revenue" in str(err.value) and "welfare" not in str(err.value)
    report = run_sweep({**decl, "repeats": 2}, store=tmp_path / "s", serial=True,
                       progress=False)
    assert len(report.failed) == 1 and "not deterministic" in report.failed[0][1]
    once = run_sweep(decl, store=tmp_path / "s1", serial=True, progress=False)
    assert not once.failed  # one run cannot disagree with itself


def test_nan_and_inf_metrics_are_standard_json_and_compare_equal(tmp_path):
    """A metric that is NaN or infinite is written as JSON that any reader accepts (null,
    "inf"), read back as the float, and two identical stores compare as identical."""
    cells = {c.key: c for c in grid.cells(Sweep.from_dict(DECL))}
    for name in ("a", "b"):
        run_sweep(DECL, store=tmp_path / name, serial=True, progress=False)
        for path in (tmp_path / name / "done").glob("*.json"):
            record = json.loads(path.read_text())
            assert "seconds" in record
            Store(tmp_path / name).put(cells[record["key"]], {"ok": True, "metrics": {
                **record["metrics"], "welfare": float("nan"), "revenue": float("inf"),
                "value": float("-inf")}})
            text = path.read_text()
            json.loads(text, parse_constant=lambda c: pytest.fail(f"not JSON: {c}"))
            assert '"welfare": null' in text and '"revenue": "inf"' in text
    done = Store(tmp_path / "a").done()
    metrics = next(iter(done.values()))["metrics"]
    assert metrics["welfare"] != metrics["welfare"]  # NaN
    assert metrics["revenue"] == float("inf") and metrics["value"] == float("-inf")
    report = compare_stores(tmp_path / "a", tmp_path / "b")
    assert report.identical, str(report)
    path = next((tmp_path / "b" / "done").glob("*.json"))
    record = json.loads(path.read_text())
    record["metrics"]["welfare"] = 1.0  # NaN against a number: a difference
    path.write_text(json.dumps(record))
    assert [m for _, m, _, _ in compare_stores(tmp_path / "a", tmp_path / "b").different] \
        == ["welfare"]


def test_a_store_reads_only_the_cells_asked_for(tmp_path, monkeypatch):
    """``done(keys)``: a sweep reads its own cells of a shared folder, those finished, and
    no other file; ``done()`` reads them all."""
    run_sweep(DECL, store=tmp_path / "s", serial=True, progress=False)
    store = Store(tmp_path / "s")
    every = store.done()
    some = sorted(every)[:2]
    read = []
    real = Path.read_text
    monkeypatch.setattr(Path, "read_text", lambda p, *a, **k: read.append(p.stem)
                        or real(p, *a, **k))
    got = store.done([*some, some[0], "not-a-cell"])
    assert got == {k: every[k] for k in some}
    assert sorted(read) == sorted([*some, "not-a-cell"])  # each once, no other cell's file
    assert store.done([]) == {}
