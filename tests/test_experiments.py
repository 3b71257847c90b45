"""The experiment engine's pieces not covered by test_sweep.py: declarations written back as
TOML, the system key, and comparing two stores (lorasched.experiments)."""

from __future__ import annotations

import json

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
    monkeypatch.setattr(grid, "code_fingerprint", lambda: "other-code")
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


def test_the_code_fingerprint_ignores_comments_and_docstrings_not_code():
    base = 'def f(x):\n    """Doc."""\n    return x + 1  # one\n'
    same = 'def f(x):\n    """Other words."""\n\n    return x + 1  # another comment\n'
    other = 'def f(x):\n    """Doc."""\n    return x + 2\n'
    assert grid._code(base) == grid._code(same) != grid._code(other)
    assert grid._code('"""Only a docstring."""\n') == grid._code("")
