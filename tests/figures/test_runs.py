"""lorasched.figures.runs: the single runs a page reads whole are kept cells of the one
batch, read back from the store and never simulated by the page."""

import numpy as np
import pytest

from lorasched import systems
from lorasched.experiments import Store, executor, grid
from lorasched.figures import base, runs
from lorasched.figures.pdftsp import CATALOGUE as PDFTSP
from lorasched.figures.titan import CATALOGUE as TITAN
from lorasched.model.errors import InputError


def _nothing(*args, **kwargs):
    raise AssertionError("simulated outside the store")


def test_one_run_is_a_kept_sweep_of_one_cell_named_by_what_it_runs():
    a = runs.one_run("titan", {"workload": "authors", "jobs": 10}, "titan", seed=1, label="x")
    (cell,) = grid.cells(a)
    assert cell.params["keep"] and cell.params["label"] == "x"
    same = runs.one_run("titan", {"jobs": 10, "workload": "authors"}, "titan", seed=1,
                        label="another label")
    assert same.name == a.name and grid.cells(same)[0].key == cell.key
    other = runs.one_run("titan", {"workload": "authors", "jobs": 10}, "titan", seed=2,
                         label="x")
    assert other.name != a.name and grid.cells(other)[0].key != cell.key


def test_every_page_run_joins_its_systems_batch():
    for catalogue in (PDFTSP, TITAN):
        batch = {c.key for s in catalogue.sweeps("small") for c in grid.cells(s)}
        declared = {c.key for fig in [*catalogue.figures.values(), *catalogue.extra]
                    for s in fig.runs("small").values() for c in grid.cells(s)}
        assert declared and declared <= batch, catalogue
    names = {(f.system, f.key): sorted(f.runs("small"))
             for c in (PDFTSP, TITAN) for f in c.figures.values() if f.runs("small")}
    assert names == {("pdftsp", "fig10"): ["day"], ("pdftsp", "fig11"): ["day"],
                     ("titan", "table3"): ["gantt"], ("titan", "authors"): ["gantt"],
                     ("titan", "solve"): ["authors", "helios"]}


def test_a_page_reads_its_run_from_the_store_and_never_simulates_it(tmp_path, monkeypatch):
    fig = TITAN.figure("table3")
    first = fig.run("gantt", "small", store=tmp_path)  # computed into the store
    monkeypatch.setattr(executor, "run", _nothing)
    monkeypatch.setattr(systems, "simulate", _nothing)
    again = fig.run("gantt", "small", store=tmp_path)
    assert again.identical(first)
    (cell,) = grid.cells(fig.runs("small")["gantt"])
    Store(tmp_path).result_file(cell.key).unlink()  # lost: computed again, which fails here
    with pytest.raises(RuntimeError, match="failed"):
        fig.run("gantt", "small", store=tmp_path)


def test_figs_10_and_11_share_one_kept_day(tmp_path, monkeypatch):
    f10, f11 = PDFTSP.figure("fig10"), PDFTSP.figure("fig11")
    assert f10.runs("small")["day"].name == f11.runs("small")["day"].name
    result, tasks = f11.data("small", store=tmp_path)
    monkeypatch.setattr(executor, "run", _nothing)
    monkeypatch.setattr(systems, "simulate", _nothing)
    again, same = f11.data("small", store=tmp_path)
    np.testing.assert_array_equal(tasks, same)
    assert again.identical(result)


def test_an_unknown_run_is_named():
    with pytest.raises(InputError, match=r"run must be one of \['gantt'\]"):
        TITAN.figure("table3").run("gant", "small", store=False)
    assert base.Figure().runs("small") == {}
