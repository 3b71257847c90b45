"""Calibrating a policy's constants on held-out data: a scan that is a sweep
(:func:`calibrate`), and the small TOML file of the chosen constants that ``--constants``
reads (:func:`write_constants`, :func:`read_constants`). See :doc:`/reference/engine`.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import xarray as xr

from ..model.errors import InputError, read_text
from .declaration import Sweep, _key, _toml, plain
from .sweep import run_sweep

#: the calibration seed used by default: apart from the evaluation seeds 1, 2, 3, ...
CALIBRATION_SEED = 101
FILE_KEYS = {"system", "algorithm", "metric", "value", "seeds", "options", "scenario", "grid"}


@dataclass(frozen=True)
class Calibration:
    """The outcome of a scan: the best ``options`` and the whole ``surface``."""

    system: str
    algorithm: str
    metric: str
    options: dict  # the chosen setting of the scanned options, plain floats/ints/strs
    value: float  # the metric's mean over the calibration seeds at ``options``
    seeds: tuple[int, ...]
    scenario: dict  # the calibration scenario's parameters (the sweep's base)
    grid: dict  # option -> the scanned values
    surface: xr.DataArray = field(repr=False)  # mean metric over seeds, one dim per option


def calibration_sweep(system: str, algorithm: str, scenario: dict, grid: dict, *,
                      seeds=(CALIBRATION_SEED,), options: dict | None = None,
                      name: str = "calibration") -> Sweep:
    """The scan as a :class:`Sweep`: ``algorithm`` of ``system`` on the scenario
    ``scenario`` (builder arguments), one axis per option in ``grid`` (option -> list of
    values), seeds ``seeds``, fixed ``options``. Errors name the offending key."""
    if not isinstance(grid, dict) or not grid:
        raise InputError("grid: give at least one option and its values, e.g. "
                         "{'alpha': [1, 2], 'beta': [0, 100]}")
    for opt, values in grid.items():
        if not isinstance(values, list | tuple) or not values:
            raise InputError(f"grid.{opt}: expected a non-empty list of values, got {values!r}")
    return Sweep.from_dict({
        "name": name, "system": system, "description": f"calibration of {algorithm}",
        "base": dict(scenario), "axes": {k: list(v) for k, v in grid.items()},
        "algorithms": [algorithm], "seeds": list(seeds),
        "options": {algorithm: dict(options)} if options else {}})


def best_setting(surface: xr.DataArray) -> tuple[dict, float]:
    """The coordinates of the largest finite value of ``surface`` and that value; ties go
    to the first in grid order (so the choice is deterministic)."""
    values = np.asarray(surface.values, dtype=float)
    if not np.isfinite(values).any():
        raise InputError("calibration: no finished cell has a finite value")
    flat = int(np.nanargmax(np.where(np.isfinite(values), values, -np.inf)))
    where = np.unravel_index(flat, values.shape)
    chosen = {d: plain(surface[d].values[i], f"grid.{d}")
              for d, i in zip(surface.dims, where, strict=True)}
    return chosen, float(values[where])


def surface_of(ds: xr.Dataset, algorithm: str, grid: dict, metric: str) -> xr.DataArray:
    """The mean of ``metric`` over seeds, one dimension per scanned option."""
    if metric not in ds:
        raise InputError(f"metric {metric!r} is not a result of the sweep; choose from "
                         f"{sorted(v for v in ds.data_vars)}")
    da = ds[metric].sel(algorithm=algorithm, drop=True).mean("seed")
    extra = [d for d in da.dims if d not in grid]
    if extra:
        raise InputError(f"calibration: the scan has dimensions {extra} besides the grid")
    return da.transpose(*grid)


def calibrate(system: str, algorithm: str, scenario: dict, grid: dict, *,
              seeds=(CALIBRATION_SEED,), options: dict | None = None,
              metric: str = "welfare", store=None, scheduler: str | None = None,
              workers: int | None = None, serial: bool = False,
              progress: bool = True) -> Calibration:
    """Run the scan of :func:`calibration_sweep` into ``store`` (finished cells are kept:
    a rerun only assembles) and pick the setting with the largest mean ``metric``.

    Raises ``RuntimeError`` naming the failed cells (a scan with holes is not a
    calibration), ``KeyboardInterrupt`` if interrupted (finished cells stay)."""
    if store is None:
        raise InputError("calibrate needs store= (a folder for the scan's cells)")
    sweep = calibration_sweep(system, algorithm, scenario, grid, seeds=seeds, options=options)
    report = run_sweep(sweep, store=store, scheduler=scheduler, workers=workers,
                       serial=serial, progress=progress)
    if report.interrupted:
        raise KeyboardInterrupt
    if report.failed:
        lines = "\n".join(f"  {d}: {e}" for d, e in report.failed)
        raise RuntimeError(f"{len(report.failed)} calibration cell(s) failed:\n{lines}")
    surface = surface_of(report.dataset, algorithm, sweep.axes, metric)
    chosen, value = best_setting(surface)
    return Calibration(system=sweep.system, algorithm=algorithm, metric=metric,
                       options={**dict(options or {}), **chosen}, value=value,
                       seeds=tuple(sweep.seeds), scenario=dict(sweep.base),
                       grid={k: [p[k] for p in v.values()] for k, v in sweep.axes.items()},
                       surface=surface)


def write_constants(path, cal: Calibration) -> Path:
    """Save ``cal`` as TOML: the chosen ``options`` and where they come from."""
    path = Path(path)
    if not path.parent.is_dir():
        raise InputError(f"constants file: folder {path.parent} does not exist")
    lines = ["# written by `lorasched calibrate`: the options below maximise the mean "
             f"{cal.metric} over the calibration seeds",
             f"system = {_toml(cal.system)}", f"algorithm = {_toml(cal.algorithm)}",
             f"metric = {_toml(cal.metric)}", f"value = {_toml(cal.value)}",
             f"seeds = {_toml(list(cal.seeds))}"]
    for table, content in (("options", cal.options), ("scenario", cal.scenario),
                           ("grid", cal.grid)):
        lines += ["", f"[{table}]"] + [f"{_key(k)} = {_toml(v)}" for k, v in content.items()
                                        if v is not None]  # TOML has no null
    path.write_text("\n".join(lines) + "\n")
    return path


def read_constants(path) -> dict:
    """Read a file written by :func:`write_constants`; returns its tables as a dict (the
    policy's options are ``["options"]``). Errors name the file and the key."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"constants file {path} does not exist")
    try:
        data = tomllib.loads(read_text(path, "constants file"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"constants file {path}: {exc}") from None
    missing = sorted({"system", "algorithm", "options"} - set(data))
    if missing:
        raise InputError(f"constants file {path}: missing key(s) {missing}")
    unknown = sorted(set(data) - FILE_KEYS)
    if unknown:
        raise InputError(f"constants file {path}: unknown key(s) {unknown}; allowed: "
                         f"{sorted(FILE_KEYS)}")
    if not isinstance(data["options"], dict) or not data["options"]:
        raise InputError(f"constants file {path}: [options] must be a non-empty table")
    for k, v in data["options"].items():
        plain(v, f"constants file {path}: options.{k}")
    return data


def options_from(path, system: str, algorithm: str) -> dict:
    """The options a constants file holds for ``algorithm`` of ``system``; ``ValueError``
    if the file was calibrated for another policy."""
    data = read_constants(path)
    if (data["system"], data["algorithm"]) != (system, algorithm):
        raise InputError(f"constants file {path} calibrates {data['system']}/"
                         f"{data['algorithm']}, not {system}/{algorithm}")
    return dict(data["options"])


def describe(cal: Calibration) -> str:
    """One line: what was chosen, on what."""
    chosen = ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                       for k, v in cal.options.items())
    return (f"{cal.system}/{cal.algorithm}: {chosen} maximises the mean {cal.metric} "
            f"({cal.value:.6g}) over seed(s) {', '.join(map(str, cal.seeds))} of "
            + json.dumps(cal.scenario, sort_keys=True))
