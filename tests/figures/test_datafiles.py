"""lorasched.figures.datafiles: the data behind each figure written as files, read back
identical. (Their publishing: test_publish.py; that every figure page's claims come back
from its published file is checked on the built book: tests/test_book.py.)"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import lorasched
from lorasched.allpass.workload import allpass_scenario
from lorasched.figures import FIGURES, datafiles
from lorasched.figures.allpass.common import AllpassData


def _same(a, b) -> None:
    """``a`` and ``b`` hold the same data, of the same types."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, xr.Dataset):
        xr.testing.assert_identical(a, b)
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, AllpassData):
        assert a.size == b.size and a.seeds == b.seeds
        _same(a.results, b.results)
        xr.testing.assert_identical(a.metrics, b.metrics)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, tuple | list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    else:  # pragma: no cover - the tests give no other type
        raise TypeError(type(a))


def _dataset(seed: int = 0) -> xr.Dataset:
    rng = np.random.default_rng(seed)
    ds = xr.Dataset(
        {"welfare": (("load", "seed"), rng.normal(size=(3, 2))),
         "admitted": (("load", "seed"), rng.integers(0, 2, size=(3, 2)).astype(bool)),
         "name": ("load", np.array(["light", "medium", "high"], dtype=object))},
        coords={"load": [30, 50, 80], "seed": [1, 2]})
    # attributes netCDF cannot hold travel as JSON
    ds.attrs = {"algorithm": "pdftsp", "alpha": 4.0, "exact": True, "note": None,
                "grid": [[1, 2], [3]], "n": np.int64(7), "betas": np.array([0.5, 1.0])}
    ds["welfare"].attrs = {"units": "USD", "checked": False}
    return ds


@pytest.mark.parametrize("data", [
    _dataset(),
    {"lp": _dataset(1), "opt": _dataset(2), "tasks": np.arange(5)},
    (_dataset(3), np.array([4, 8, 15], dtype=np.int64)),
    {("limited", "allpass", 1): _dataset(4), ("unlimited", "tl_np", 2): _dataset(5)},
    pd.DataFrame({"case": ["Case 1", "Case 2"], "A (min)": [10.0, np.nan],
                  "jobs": [2, 3]}),
    pd.DataFrame({"gpus": [1, 4]}, index=pd.Index(["a", "b"], name="workload")),
    {"Helios Venus (all rows)": np.linspace(0, 1, 7), "fitted": np.ones(3)},
], ids=["dataset", "dict", "tuple", "tuple-keys", "frame", "indexed-frame", "arrays"])
def test_every_kind_of_figure_data_reads_back_identical(tmp_path, data):
    path = datafiles.write(data, tmp_path / "fig.nc", figure="pdftsp/test", size="small")
    back = datafiles.read(path)
    _same(data, back)
    assert datafiles.digest(back) == datafiles.digest(data) == datafiles.written_digest(path)


def test_allpass_runs_read_back_with_their_metrics(tmp_path):
    run = lorasched.simulate(allpass_scenario(jobs=5, seed=1), "allpass", seed=1)
    data = AllpassData("small", {("limited", "allpass", 1): run,
                                 ("limited", "tl_np", 1): run})
    back = datafiles.read(datafiles.write(data, tmp_path / "runs.nc"))
    _same(data, back)


def test_a_large_variable_repeated_across_runs_is_written_once(tmp_path):
    """Allpass's offer book is the same in every run of a seed: the file holds it once
    (the Allpass pages' file was 47.6 MB with a copy per run, 7.2 MB with this and
    compression, at the small size)."""
    book = np.random.default_rng(0).normal(size=(1440, 60))  # 691 kB, incompressible
    runs = {f"run{i}": xr.Dataset({"price": (("minute", "offer"), book),
                                   "cost": ("x", np.full(3, float(i)))}) for i in range(6)}
    one = datafiles.write({"run0": runs["run0"]}, tmp_path / "one.nc").stat().st_size
    six = datafiles.write(runs, tmp_path / "six.nc").stat().st_size
    assert six < 1.2 * one, (one, six)
    _same(runs, datafiles.read(tmp_path / "six.nc"))


def test_load_by_key_or_path_and_its_errors(tmp_path):
    fig = FIGURES["titan"]["table2"]
    data = fig.data("small")
    paths = datafiles.write_page_files(fig, data, "small", folder=tmp_path)
    assert paths == [tmp_path / "titan" / "table2.nc", tmp_path / "titan" / "table2_claims.csv"]
    _same(data, datafiles.load("titan/table2", tmp_path))
    _same(data, datafiles.load(tmp_path / "titan" / "table2.nc"))
    pd.testing.assert_frame_equal(fig.claims(datafiles.load("titan/table2", tmp_path)),
                                  fig.claims(data))
    assert (tmp_path / "titan" / "table2_claims.csv").read_text() == \
        fig.claims(data).to_csv(index=False)
    with pytest.raises(lorasched.InputError, match="'titan/fig99': not a figure"):
        datafiles.load("titan/fig99", tmp_path)
    with pytest.raises(lorasched.InputError, match="no such figure data file"):
        datafiles.load("titan/fig04", tmp_path)
    (tmp_path / "text.nc").write_text("not netCDF")
    with pytest.raises(lorasched.InputError, match="text.nc: not a netCDF file"):
        datafiles.load(tmp_path / "text.nc")
    xr.Dataset({"x": ("i", [1.0, 2.0])}).to_netcdf(tmp_path / "other.nc")
    with pytest.raises(lorasched.InputError, match="other.nc: a netCDF file, but not"):
        datafiles.load(tmp_path / "other.nc")
    with pytest.raises(lorasched.InputError, match="is a folder"):
        datafiles.read(tmp_path)


def test_a_page_that_quotes_derived_numbers_writes_their_table(tmp_path):
    fig = FIGURES["titan"]["fig04"]
    assert fig.quotes and not FIGURES["titan"]["table2"].quotes
    data = fig.data("small")
    paths = datafiles.write_page_files(fig, data, "small", folder=tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in paths] == datafiles.page_files(fig) \
        == ["titan/fig04.nc", "titan/fig04_claims.csv", "titan/fig04_quoted.csv"]
    assert datafiles.quoted_name(fig) == "titan/fig04_quoted.csv"
    assert datafiles.quoted_name(FIGURES["titan"]["table2"]) is None
    written = pd.read_csv(tmp_path / "titan" / "fig04_quoted.csv")
    pd.testing.assert_frame_equal(written, fig.quoted(data))
    assert len(written) >= 2 and all(q in fig.findings(data) for q in written["as quoted"])
    given = written.iloc[:1]  # the page's own table, when it computed it already
    datafiles.write_page_files(fig, data, "small", folder=tmp_path, quoted=given)
    assert len(pd.read_csv(tmp_path / "titan" / "fig04_quoted.csv")) == 1


def test_pages_sharing_data_share_one_file_written_once(tmp_path):
    """Allpass's pages draw from the same runs: one file, rewritten only when they
    change."""
    run = lorasched.simulate(allpass_scenario(jobs=5, seed=1), "allpass", seed=1)
    data = AllpassData("small", {("limited", "allpass", 1): run})
    first, second = FIGURES["allpass"]["fig06"], FIGURES["allpass"]["fig07"]
    assert datafiles.file_names(first)[0] == datafiles.file_names(second)[0] == \
        "allpass/runs.nc"
    datafiles.write_page_files(first, data, "small", folder=tmp_path)
    path = tmp_path / "allpass" / "runs.nc"
    stamp = path.stat().st_mtime_ns
    datafiles.write_page_files(second, data, "small", folder=tmp_path)
    assert path.stat().st_mtime_ns == stamp  # the same data: not written again
    other = AllpassData("small", {("limited", "allpass", 2): run})
    datafiles.write_page_files(second, other, "small", folder=tmp_path)
    _same(other, datafiles.read(path))
    assert {p.name for p in (tmp_path / "allpass").iterdir()
            if not p.name.startswith(".")} == {"runs.nc", "fig06_claims.csv", "fig07_claims.csv",
                                                "fig06_quoted.csv"}  # Fig. 6 quotes numbers


def test_a_stale_digest_note_is_not_trusted(tmp_path):
    """The digest noted beside a file counts only while the file is the one it noted: a
    file replaced behind the note's back is read for its own digest."""
    a = {"run": xr.Dataset({"x": ("t", np.arange(5.0))})}
    b = {"run": xr.Dataset({"x": ("t", np.arange(6.0))})}
    path = datafiles.write(a, tmp_path / "runs.nc")
    assert (tmp_path / ".runs.nc.digest").is_file()
    assert datafiles.written_digest(path) == datafiles.digest(a)
    other = datafiles.write(b, tmp_path / "other.nc")
    os.replace(other, path)  # the note still says a's digest, for a's size and time
    assert datafiles.written_digest(path) == datafiles.digest(b)
    (tmp_path / ".runs.nc.digest").write_text("not json")
    assert datafiles.written_digest(path) == datafiles.digest(b)


def _page_writes(folder, data, done):
    datafiles.write_page_files(FIGURES["allpass"]["fig07"], data, "small", folder=folder)
    done.set()


def test_a_page_waits_for_the_page_writing_its_shared_file(tmp_path):
    """Two pages sharing a file at once (make book runs two notebooks at a time): the
    second waits for the first's write, then finds the file written and leaves it."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    run = lorasched.simulate(allpass_scenario(jobs=5, seed=1), "allpass", seed=1)
    data = AllpassData("small", {("limited", "allpass", 1): run})
    path = tmp_path / "allpass" / "runs.nc"
    done = ctx.Event()
    with datafiles.locked(path):
        child = ctx.Process(target=_page_writes, args=(tmp_path, data, done))
        child.start()
        assert not done.wait(2.0)  # held up by the lock
        datafiles.write(data, path)
        stamp = path.stat().st_mtime_ns
    child.join(120)
    assert child.exitcode == 0 and done.is_set()
    assert path.stat().st_mtime_ns == stamp  # found written: not written again


def _write_many(path, barrier, times):
    data = {f"run{i}": xr.Dataset({"x": ("t", np.random.default_rng(i).normal(size=50_000))})
            for i in range(8)}
    barrier.wait()
    for _ in range(times):
        datafiles.write(data, path)


def test_two_processes_writing_one_shared_file_at_once_do_not_collide(tmp_path):
    """`make book` runs two Allpass pages at once, and both write allpass/runs.nc: a
    shared temporary name made the second fail (HDF5's lock: PermissionError)."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(2)
    path = tmp_path / "runs.nc"
    procs = [ctx.Process(target=_write_many, args=(path, barrier, 5)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    assert len(datafiles.read(path)) == 8
    # no temporary left; the digest noted beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == [".runs.nc.digest", "runs.nc"]


def test_the_data_folder_is_the_environment_s_else_the_checkout_s(monkeypatch, tmp_path):
    monkeypatch.setenv(datafiles.DATA_ENV, str(tmp_path))
    assert datafiles.data_folder("small") == tmp_path / "small"
    monkeypatch.delenv(datafiles.DATA_ENV)
    checkout = Path(datafiles.__file__).resolve().parents[2]
    assert datafiles.data_folder() == checkout / "build" / "figure-data" / "full"
    with pytest.raises(lorasched.InputError, match="size must be one of"):
        datafiles.data_folder("medium")


def test_a_pages_unpublished_variables_stay_out_of_its_file(tmp_path):
    fig = type(FIGURES["titan"]["table2"])()
    data = fig.data("small")
    dropped = list(data.columns)[-1]
    fig.unpublished = (dropped, "not_a_column")
    datafiles.write_page_files(fig, data, "small", folder=tmp_path)
    written = datafiles.load(tmp_path / "titan" / "table2.nc")
    assert list(written.columns) == [c for c in data.columns if c != dropped]
    assert dropped in data.columns  # the page's own data keeps it
    grid = xr.Dataset({"a": ("i", [1.0]), "b": ("i", [2.0])})
    assert list(datafiles.without({"x": grid}, ("b",))["x"].data_vars) == ["a"]
    # the authors' setup page publishes no measured time
    assert {"solve_time_mean", "wall_seconds"} <= set(FIGURES["titan"]["authors"].unpublished)
