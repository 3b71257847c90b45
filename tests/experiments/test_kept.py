"""Kept results: a sweep with ``keep`` stores each cell's whole checked result beside its
metrics, read back exactly (Store.result), computed again where its file was lost, the same
serially and on Dask."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import xarray as xr

from lorasched import systems
from lorasched.experiments import Store, Sweep, grid, kept, run_sweep, run_sweeps
from lorasched.experiments.progress import policy
from lorasched.model.errors import InputError

KEPT = {"name": "kept", "system": "allpass", "base": {"jobs": 12},
        "axes": {"setup": {"limited": {"capacity": 30}}}, "algorithms": ["allpass", "tl_p"],
        "seeds": [1], "keep": True, "label": "look 2"}


def same_data(a: xr.Dataset, b: xr.Dataset) -> None:
    """Every variable of ``a`` and ``b`` equal bit for bit, dtypes included."""
    assert list(a.variables) == list(b.variables)
    for name in a.variables:
        assert a[name].dtype == b[name].dtype, name
        assert a[name].dims == b[name].dims, name
        assert a[name].values.tobytes() == b[name].values.tobytes(), name


def unmeasured(attrs: dict) -> str:
    """A result's attributes but its measured time, as JSON (NaN equal to NaN)."""
    return json.dumps({k: v for k, v in attrs.items() if k != "wall_seconds"})


def test_keep_and_label_are_declared_and_written_back():
    sweep = Sweep.from_dict(KEPT)
    assert sweep.keep is True and sweep.label == "look 2"
    again = Sweep.from_dict(json.loads(sweep.to_json()))
    assert (again.keep, again.label) == (True, "look 2")
    assert "keep = true" in sweep.to_toml() and 'label = "look 2"' in sweep.to_toml()
    plain = Sweep.from_dict({k: v for k, v in KEPT.items() if k not in ("keep", "label")})
    assert (plain.keep, plain.label) == (False, "")
    assert "keep" not in plain.to_dict() and "keep" not in plain.to_toml()
    for bad in ({"keep": "yes"}, {"keep": 1}, {"label": " x"}, {"label": 3}):
        with pytest.raises(InputError, match=next(iter(bad))):
            Sweep.from_dict({**KEPT, **bad})


def test_keep_is_in_the_key_and_the_label_is_not(tmp_path):
    kept_cells = grid.cells(Sweep.from_dict(KEPT))
    unlabelled = grid.cells(Sweep.from_dict({**KEPT, "label": ""}))
    metrics_only = grid.cells(Sweep.from_dict({**KEPT, "keep": False, "label": ""}))
    assert [c.key for c in kept_cells] == [c.key for c in unlabelled]
    assert not {c.key for c in kept_cells} & {c.key for c in metrics_only}
    assert all(c.params["keep"] and c.params["label"] == "look 2" for c in kept_cells)
    assert all("keep" not in c.params and "label" not in c.params for c in metrics_only)
    assert policy(kept_cells[0].params) == f"{kept_cells[0].params['algorithm']} [look 2]"
    assert policy(metrics_only[0].params) == metrics_only[0].params["algorithm"]


def test_a_kept_result_is_the_run_bit_for_bit(tmp_path):
    report = run_sweep(KEPT, store=tmp_path, serial=True, progress=False)
    assert report.computed == 2 and not report.failed
    store = Store(tmp_path)
    system = systems.get("allpass")
    for cell in grid.cells(Sweep.from_dict(KEPT)):
        got = store.result(cell.key)
        p = cell.params
        scenario = system.build_scenario(**p["scenario"], seed=p["seed"])
        want = system.simulate(scenario, p["algorithm"], seed=p["seed"], **p["options"])
        same_data(got, want)
        assert unmeasured(got.attrs) == unmeasured(want.attrs)
        assert got.attrs["capacity"] == 30 and isinstance(got.attrs["book_inventory"], list)
        system.check_result(got)  # whole: the checker finds every variable it reads
        # its metrics are the record's, bit for bit
        recorded = store.done([cell.key])[cell.key]["metrics"]
        for m, v in system.measure(got, got).items():
            assert m in system.timings or v == recorded[m] or (math.isnan(v)
                                                               and math.isnan(recorded[m]))


@pytest.mark.parametrize("fault", ["missing", "truncated", "empty"])
def test_a_lost_result_is_computed_again(tmp_path, fault):
    """A cell whose record is done but whose result file is missing or broken (a disk
    filled, a copy cut short) is not done: the next run computes it, and only it."""
    run_sweep(KEPT, store=tmp_path, serial=True, progress=False)
    store = Store(tmp_path)
    key = grid.cells(Sweep.from_dict(KEPT))[0].key
    before = store.result(key)
    path = store.result_file(key)
    if fault == "missing":
        path.unlink()
    elif fault == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    else:
        path.write_bytes(b"")
    assert key not in store.done()
    with pytest.raises(InputError, match=key):
        store.result(key)
    again = run_sweep(KEPT, store=tmp_path, serial=True, progress=False)
    assert (again.computed, again.skipped) == (1, 1)
    same_data(store.result(key), before)


def test_a_changed_result_file_is_refused_by_name(tmp_path):
    run_sweep(KEPT, store=tmp_path, serial=True, progress=False)
    store = Store(tmp_path)
    key = grid.cells(Sweep.from_dict(KEPT))[0].key
    data = bytearray(store.result_file(key).read_bytes())
    data[-1] ^= 0xFF  # the same size and signature: only every byte tells
    store.result_file(key).write_bytes(bytes(data))
    with pytest.raises(InputError, match=f"{key}.*not the one recorded"):
        store.result(key)


def test_a_cell_without_a_kept_result_is_refused_by_name(tmp_path):
    sweep = {**KEPT, "keep": False, "algorithms": ["allpass"]}
    run_sweep(sweep, store=tmp_path, serial=True, progress=False)
    key = grid.cells(Sweep.from_dict(sweep))[0].key
    assert not Store(tmp_path).result_file(key).exists()
    with pytest.raises(InputError, match=f"{key}: its sweep does not keep results"):
        Store(tmp_path).result(key)
    with pytest.raises(InputError, match="0123: not finished"):
        Store(tmp_path).result("0123")


def test_attributes_and_dtypes_netcdf_cannot_hold_travel_exactly(tmp_path):
    ds = xr.Dataset(
        {"flag": ("x", np.array([True, False, True])), "name": ("x", np.array(["a", "bb", "c"])),
         "none": ("y", np.array([], dtype=str)), "n": ("x", np.arange(3, dtype=np.int32)),
         "v": ("x", np.array([1.5, np.nan, -np.inf]), {"units": "s", "note": None})},
        coords={"x": ["p", "q", "r"]},
        attrs={"absent": None, "table": {"a": 1, "b": [1, 2]}, "yes": True, "big": 2**40,
               "list": [1, 2], "nan": float("nan"), "text": "é"})
    path = tmp_path / "r.nc"
    path.write_bytes(kept.encode(ds))
    back = kept.decode(path)
    same_data(back, ds)
    assert back["v"].attrs == {"units": "s", "note": None}
    assert json.dumps(back.attrs) == json.dumps(ds.attrs)
    assert back["flag"].dtype == bool and back["x"].dtype == ds["x"].dtype
    path.write_bytes(b"\x89HDF\r\n\x1a\n")  # not a kept result: named
    with pytest.raises((InputError, OSError)):
        kept.decode(path)


def test_the_direct_reader_and_xarray_s_read_one_dataset(tmp_path):
    """decode reads with the netCDF4 library directly, and through xarray where a file holds
    a character array (bytes): both give the Dataset encoded, non-index coordinates
    included."""
    ds = xr.Dataset({"v": ("x", np.array([1.0, 2.0])), "n": ((), np.int64(3))},
                    coords={"x": [10, 20], "label": ("x", np.array(["a", "b"]))},
                    attrs={"k": 1})
    path = tmp_path / "r.nc"
    path.write_bytes(kept.encode(ds))
    back = kept.decode(path)
    assert back.identical(ds) and "label" in back.coords
    assert kept._decode_xarray(path).identical(back)
    with_bytes = ds.assign(b=("x", np.array([b"p", b"qq"])))
    path.write_bytes(kept.encode(with_bytes))
    back = kept.decode(path)  # through xarray
    same_data(back, with_bytes)
    assert "label" in back.coords


@pytest.mark.slow
def test_serial_and_dask_keep_the_same_results(tmp_path):
    serial = run_sweeps([KEPT], tmp_path / "serial", serial=True, progress=False)
    dask = run_sweeps([KEPT], tmp_path / "dask", workers=2, progress=False)
    assert serial.computed == dask.computed == 2 and not dask.failed
    for cell in grid.cells(Sweep.from_dict(KEPT)):
        a, b = Store(tmp_path / "serial").result(cell.key), Store(tmp_path / "dask").result(
            cell.key)
        same_data(a, b)
        assert unmeasured(a.attrs) == unmeasured(b.attrs)


@pytest.mark.slow
def test_encoding_under_a_dask_client_takes_no_cluster_wide_lock(monkeypatch):
    """A kept cell is encoded on a Dask worker, where a Client is the default: the write
    must not ask the scheduler for a lock (a round trip at every write, 0.37 CPU-s a cell
    where the lock of this process takes 0.05)."""
    import distributed

    def refused(self, *args, **kwargs):
        raise AssertionError("a cluster-wide lock was asked for")

    monkeypatch.setattr(distributed.Lock, "acquire", refused)
    ds = xr.Dataset({"v": ("x", np.arange(4.0))}, attrs={"k": 1})
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1,
                            dashboard_address=None):
        data = kept.encode(ds)
    assert data.startswith(b"\x89HDF")
