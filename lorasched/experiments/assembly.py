"""From finished cells to the sweep's ``xarray.Dataset`` and its netCDF file: one variable per
metric over ``axes + (algorithm, seed)``, the bound and its ratio, and the declaration and
provenance as attributes (:doc:`/reference/engine`).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
import xarray as xr

from .. import systems
from . import grid
from .declaration import Sweep
from .grid import Cell, coords, dims

#: per grid point and seed, with a bound
BOUND_METRICS = ("bound", "bound_converged", "bound_seconds")


def package_version() -> str:
    try:
        return version("lorasched")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown"


def timings(sweep: Sweep) -> tuple[str, ...]:
    """The variables of ``sweep``'s dataset that are measured times."""
    return (*systems.get(sweep.system).timings, "bound_seconds")


def assemble_results(sweep: Sweep, cells: list[Cell], finished: dict,
                     failed: dict | None = None) -> xr.Dataset:
    """The results Dataset from finished cells (NaN where a cell is missing or failed)."""
    system = systems.get(sweep.system)
    labels = coords(sweep)
    all_dims = dims(sweep)
    shape = tuple(len(labels[d]) for d in all_dims)
    index = {d: {v.item(): j for j, v in enumerate(labels[d])} for d in all_dims}
    data = {m: np.full(shape, np.nan) for m in system.metrics}
    bound_dims = tuple(d for d in all_dims if d != "algorithm")
    bounds = {m: np.full(tuple(len(labels[d]) for d in bound_dims), np.nan)
              for m in BOUND_METRICS}
    for cell in cells:
        rec = finished.get(cell.key)
        if rec is None:
            continue
        for where in cell.where:
            pos = dict(where)
            if cell.params["algorithm"] is None:
                at = tuple(index[d][pos[d]] for d in bound_dims)
                for m in BOUND_METRICS:
                    bounds[m][at] = rec["metrics"][m]
            else:
                at = tuple(index[d][pos[d]] for d in all_dims)
                for m in system.metrics:
                    data[m][at] = rec["metrics"].get(m, math.nan)
    ds = xr.Dataset({m: (all_dims, v) for m, v in data.items()}, coords=labels)
    long_names = dict(system.metrics)
    if sweep.bound is not None:
        for m, v in bounds.items():
            ds[m] = (bound_dims, v)
        long_names.update(
            bound=system.bounds[sweep.bound].description,
            bound_converged="1 if the bound is exact (an LP optimum, a proven optimum)",
            bound_seconds="wall time of the bound, s")
        if system.bound_metric is not None:
            metric = ds[system.bound_metric].where(ds[system.bound_metric] > 0)
            ds[system.ratio_name] = (ds["bound"] / metric).transpose(*all_dims)
            long_names[system.ratio_name] = (f"bound / online {system.bound_metric} (>= the "
                                             "true competitive ratio OPT/ALG)")
    measured = timings(sweep)
    for m, text in long_names.items():
        ds[m].attrs["long_name"] = text
        if m in measured:
            ds[m].attrs["timing"] = 1
    ds.attrs["sweep"] = sweep.to_json()
    ds.attrs["name"] = sweep.name
    ds.attrs["system"] = sweep.system
    ds.attrs["cells"] = len(cells)
    ds.attrs["cells_done"] = sum(1 for c in cells if c.key in finished)
    ds.attrs["failed_cells"] = json.dumps([{"cell": d, "error": e}
                                           for d, e in (failed or {}).values()])
    ds.attrs["lorasched_version"] = package_version()
    ds.attrs["code_fingerprint"] = grid.code_fingerprint(sweep.system)
    return ds


def write_netcdf(ds: xr.Dataset, out: Path) -> None:
    """Write ``ds`` to ``out`` atomically (a temporary file, then a rename)."""
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    os.close(fd)
    try:
        ds.to_netcdf(tmp)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def without_timings(ds: xr.Dataset) -> xr.Dataset:
    """``ds`` without the measured times: what must agree between any two runs."""
    return ds.drop_vars([v for v in ds.data_vars if ds[v].attrs.get("timing")])
