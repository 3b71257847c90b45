"""A kept cell's result Dataset as netCDF bytes and back, exactly: what a sweep with
``keep`` stores beside a cell's metrics (``<store>/results/<key>.nc``, :doc:`/reference/engine`).

netCDF holds neither a ``None``, a dict nor a boolean as an attribute, turns a list into an
array and a Python int into a numpy one, and may read a string variable back as objects, so
the attributes of the Dataset and of each variable travel as one JSON text each
(``ATTRS``) and each variable's dtype is recorded (``DTYPES``) and restored. Numeric
variables are compressed (zlib, level 1, lossless): a result that carries its scenario's
price book (most of its bytes) takes about a third of its size in memory.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import dask
import netCDF4
import numpy as np
import xarray as xr

from ..model.errors import InputError
from .declaration import json_default

#: the attribute holding a Dataset's (and each variable's) own attributes as JSON
ATTRS = "lorasched_attrs"
#: the Dataset attribute holding every variable's dtype (``numpy.dtype.str``) as JSON
DTYPES = "lorasched_dtypes"
#: the Dataset attribute naming this format and its version
FORMAT = "lorasched_kept"
VERSION = 1
#: zlib level of the numeric variables: level 1 takes most of what higher levels take
COMPLEVEL = 1


def encode(result: xr.Dataset) -> bytes:
    """``result`` as the bytes of a netCDF-4 file that :func:`decode` reads back equal.

    Parameters
    ----------
    result : xarray.Dataset
        A checked result; its attributes plain data (what ``json`` writes, numpy scalars
        and arrays included).

    Returns
    -------
    bytes
    """
    out = result.copy()
    dtypes = {}
    encoding = {}
    for name, var in out.variables.items():
        dtypes[name] = var.dtype.str
        var.attrs = {ATTRS: json.dumps(var.attrs, default=json_default)} if var.attrs else {}
        var.encoding = {}
        if var.dtype.kind in "fiu" and var.size and name not in out.dims:
            encoding[name] = {"zlib": True, "complevel": COMPLEVEL}
    out.attrs = {ATTRS: json.dumps(result.attrs, default=json_default),
                 DTYPES: json.dumps(dtypes), FORMAT: VERSION}
    # through a file: netCDF-4 written to memory comes back padded to 64 KiB blocks. The
    # synchronous scheduler gives the write a lock of this process: in a Dask worker,
    # xarray otherwise asks the scheduler for a cluster-wide lock at every write, and a
    # result of 300 kB took 0.37 CPU-s to encode instead of 0.05
    with (dask.config.set(scheduler="synchronous"),
          tempfile.TemporaryDirectory(prefix="lorasched-kept-") as tmp):
        path = Path(tmp) / "result.nc"
        out.to_netcdf(path, engine="netcdf4", encoding=encoding)
        return path.read_bytes()


def decode(path) -> xr.Dataset:
    """The Dataset that :func:`encode` wrote into the file ``path``, loaded into memory.

    The file is read with the netCDF4 library directly (a page reads hundreds of kept
    results: two thirds of the time xarray's own reader takes); a file holding what that
    reading does not cover (a character array) is read through xarray instead, to the
    same Dataset.

    Parameters
    ----------
    path : str or os.PathLike
        A kept result file.

    Returns
    -------
    xarray.Dataset

    Raises
    ------
    InputError
        If the file is not a kept result of this format, naming it.
    """
    path = Path(path)
    with netCDF4.Dataset(path, "r") as nc:
        if _attr(nc, FORMAT) != VERSION:
            raise InputError(f"{path}: not a kept result of format {VERSION}")
        variables = nc.variables
        if any(v.dtype == "S1" or "_Encoding" in v.ncattrs() for v in variables.values()):
            return _decode_xarray(path)
        nc.set_auto_maskandscale(False)
        dtypes = json.loads(_attr(nc, DTYPES))  # in the result's order of variables
        restored, coords = {}, set(str(_attr(nc, "coordinates") or "").split())
        for name, dtype in dtypes.items():
            var = variables[name]
            values = np.asarray(var[...])
            if values.dtype.str != dtype:
                values = values.astype(dtype)
            attrs = json.loads(var.getncattr(ATTRS)) if ATTRS in var.ncattrs() else {}
            restored[name] = xr.Variable(var.dimensions, values, attrs)
            coords.update(str(_attr(var, "coordinates") or "").split())
        attrs = json.loads(_attr(nc, ATTRS))
    out = xr.Dataset(restored, attrs=attrs)
    return out.set_coords(sorted(c for c in coords if c in out and c not in out.coords))


def _attr(obj, name: str):
    """The netCDF attribute ``name`` of a file or variable, None where it has none."""
    return obj.getncattr(name) if name in obj.ncattrs() else None


def _decode_xarray(path: Path) -> xr.Dataset:
    """:func:`decode` through xarray's reader."""
    ds = xr.load_dataset(path, engine="netcdf4", decode_times=False,
                         decode_timedelta=False)
    dtypes = json.loads(ds.attrs[DTYPES])  # in the result's order of variables
    restored = {}
    for name, dtype in dtypes.items():
        var = ds.variables[name]
        values = var.values if var.dtype.str == dtype else var.values.astype(dtype)
        attrs = json.loads(var.attrs[ATTRS]) if ATTRS in var.attrs else {}
        restored[name] = xr.Variable(var.dims, values, attrs)
    out = xr.Dataset(restored, attrs=json.loads(ds.attrs[ATTRS]))
    return out.set_coords([name for name in ds.coords if name not in out.coords])
