"""A public substitute for TITAN's private workload: foundation-model jobs drawn from the
Helios Venus trace, GPU time converted to dataset scale (:func:`helios_workload`). Every
rule, and the authors' generator beside it: :doc:`/reference/titan_data`.
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path

import numpy as np
import xarray as xr

from ..model.errors import InputError
from ..model.traces import read_trace
from . import lut as _lut
from .authors import _read_scale, titansched_dir
from .tables import read_csv, require_columns

#: columns of ``dataset_class.csv``
CLASS_COLUMNS = ("application", "scale_class")
#: scale classes, smallest first, and the upper percentile of GPU time of each
SCALE_CLASSES = ("small", "medium", "large")
CLASS_BOUNDS = (0.3, 0.9)
#: the paper's job count at density 1 and its 8-hour submission window (s)
PAPER_JOBS = 320
WINDOW_S = 8 * 3600
#: the paper's job lengths, 5 min to 10 h (s), and the authors' GPU-time limit (GPU-s)
MIN_DURATION_S = 300
MAX_DURATION_S = 36_000
MAX_GPU_TIME_S = 100 * 3600
#: the authors' cap on a job's GPU request
GPU_CAP = 16
#: a short job lasts at most this long (s)
SHORT_S = 1800
DAY_S = 86_400
HELIOS_SOURCE = (
    "SenseTime Helios Venus trace (traces/helios_venus_jobs.csv.gz, CC BY 4.0, provenance in "
    "traces/README.md), filtered to 5 min-10 h and < 100 GPU-hours, submissions in the first "
    "8 h of the file's day, GPU time transformed to dataset scale with TITAN's LUT "
    "(lorasched.titan.helios); scale classes from GitHub gaow0007/TitanSched, HEAD "
    "client/application/foundation_model.py, MIT licence")


def dataset_classes(folder=None) -> dict[str, dict[str, list[str]]]:
    """model -> scale class -> datasets (file order) from ``<folder>/dataset_class.csv``,
    ``folder`` defaulting to :func:`lorasched.titan.authors.titansched_dir`. ``ValueError``
    naming the file, line and column for a malformed row."""
    path = Path(titansched_dir() if folder is None else folder) / "dataset_class.csv"
    frame = read_csv(path, str, required=True)
    require_columns(frame, path, CLASS_COLUMNS)
    out: dict[str, dict[str, list[str]]] = {}
    seen = set()
    for i, (app, cls) in enumerate(zip(frame["application"], frame["scale_class"],
                                       strict=True)):
        app, cls = str(app).strip(), str(cls).strip()
        parts = app.split("@")
        if len(parts) != 2 or not all(parts):
            raise InputError(f"{path}, line {i + 2}, column 'application': must be "
                             f"'model@dataset', got {app!r}")
        if cls not in SCALE_CLASSES:
            raise InputError(f"{path}, line {i + 2}, column 'scale_class': must be one of "
                             f"{list(SCALE_CLASSES)}, got {cls!r}")
        if app in seen:
            raise InputError(f"{path}, line {i + 2}, column 'application': duplicate "
                             f"application {app!r}")
        seen.add(app)
        out.setdefault(parts[0], {c: [] for c in SCALE_CLASSES})[cls].append(parts[1])
    return out


def filtered_jobs(trace_file=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, submit_time_s, duration_s, num_gpus)`` of the trace's jobs passing step 1 of
    the module docstring (``trace_file``: a path, or the shipped Helios trace if None)."""
    trace = read_trace("helios" if trace_file is None else trace_file)
    if trace.duration_s is None or trace.num_gpus is None:
        raise InputError(f"trace_file {str(trace.path)!r} needs the columns 'duration_s' and "
                         "'num_gpus'")
    d = trace.duration_s.astype(float)
    g = trace.num_gpus.astype(np.int64)
    keep = (g >= 1) & (d >= MIN_DURATION_S) & (d < MAX_DURATION_S) & (d * g < MAX_GPU_TIME_S)
    rows = np.flatnonzero(keep)
    return rows, trace.submit_s[rows], d[rows], g[rows]


def short_job_fraction(trace_file=None, short_s: float = SHORT_S) -> float:
    """Share of the filtered jobs (step 1, before sampling) lasting at most ``short_s``
    seconds (Helios: 0.562)."""
    duration = filtered_jobs(trace_file)[2]
    return float(np.mean(duration <= short_s))


def _checked_arguments(jobs, density, seed, gpu, model, own_lut: bool) -> int:
    """The number of jobs ``round(jobs * density)``, after checking every argument (``gpu``
    and ``model`` against the shipped LUTs unless the caller gives its own)."""
    if isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral) or jobs <= 0:
        raise InputError(f"jobs must be a positive integer, got {jobs!r}")
    if (isinstance(density, bool) or not isinstance(density, numbers.Real)
            or not math.isfinite(density) or density <= 0):
        raise InputError(f"density must be a positive finite number, got {density!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    if own_lut:
        for name, value in (("gpu", gpu), ("model", model)):
            if not isinstance(value, str):
                raise InputError(f"{name} must be a string, got {value!r}")
    choices = {gpu: (model,)} if own_lut else _lut.available()
    if not isinstance(gpu, str) or gpu not in choices:
        raise InputError(f"gpu {gpu!r} has no LUT; choose one of {sorted(choices)}")
    if not isinstance(model, str) or model not in choices[gpu]:
        raise InputError(f"model {model!r} has no LUT on {gpu}; choose one of "
                         f"{list(choices[gpu])}")
    n = int(round(jobs * density))
    if n < 1:
        raise InputError(f"density {density!r} x jobs {jobs} rounds to {n} jobs; need >= 1")
    return n


def _candidates(trace_file, n, jobs, density):
    """Steps 1-2: the filtered jobs' time of day ``t``, the positions of those submitted in
    the window, and their ``duration_s`` and ``num_gpus``; ``ValueError`` if fewer than
    ``n``."""
    _, submit, duration, trace_gpus = filtered_jobs(trace_file)
    t = np.mod(submit.astype(float), DAY_S)
    window = np.flatnonzero(t < WINDOW_S)
    if window.size < n:
        raise InputError(f"{n} jobs requested (jobs={jobs} x density={density:g}) but only "
                         f"{window.size} filtered trace jobs are submitted in the first "
                         f"{WINDOW_S} s of a day")
    return t, window, duration, trace_gpus


def _draw(rng, n, t, window, duration, trace_gpus):
    """Step 2: ``n`` candidates drawn without replacement, in submit order:
    (submit_s, duration_s, num_gpus)."""
    pick = np.sort(rng.choice(window, size=n, replace=False))
    pick = pick[np.argsort(t[pick], kind="stable")]
    return t[pick], duration[pick], trace_gpus[pick]


def _lengths(lut, duration, trace_gpus):
    """Steps 3-5: (the GPU cap, requested_gpus, target_batch_size, total_iterations)."""
    measured = np.isfinite(lut["step_time"].values).any(axis=1)
    top = int(lut["gpus"].values[measured].max())
    requested = np.minimum(trace_gpus, min(GPU_CAP, top)).astype(np.int64)
    plan = {}
    for a in np.unique(requested).tolist():
        batch = _lut.best_configuration(lut, a, _lut.paper_batches())[0]
        plan[a] = (batch, _lut.step_time(lut, a, batch))
    batch = np.array([plan[a][0] for a in requested.tolist()], dtype=np.int64)
    step = np.array([plan[a][1] for a in requested.tolist()], dtype=float)
    iterations = np.maximum(1, np.round(duration / step)).astype(np.int64)
    return min(GPU_CAP, top), requested, batch, iterations


def _scale_classes(gpu_time, n) -> np.ndarray:
    """Step 6: the class of each job (0 small, 1 medium, 2 large) by its GPU-time
    percentile among the n drawn jobs."""
    share = np.searchsorted(np.sort(gpu_time), gpu_time, side="right") / n
    return np.where(share <= CLASS_BOUNDS[0], 0, np.where(share <= CLASS_BOUNDS[1], 1, 2))


def _datasets(rng, cls, classes, scale, model) -> list[str]:
    """Step 6: each job's dataset, drawn in submit order among its class's datasets."""
    datasets = []
    for c in cls.tolist():
        options = classes[SCALE_CLASSES[c]]
        if not options:
            raise InputError(f"model {model!r} has no {SCALE_CLASSES[c]} dataset in "
                             f"{titansched_dir() / 'dataset_class.csv'}")
        datasets.append(options[int(rng.integers(len(options)))])
    missing = sorted(set(datasets) - set(scale))
    if missing:
        raise InputError(f"dataset {missing[0]!r} of model {model!r} has no dataset scale in "
                         f"{titansched_dir() / 'dataset_scale.csv'}")
    return datasets


def _text(values):
    """A text variable over ``job``."""
    return ("job", np.array(values, dtype=object))


def _variables(model, submit_s, datasets, scale, cap, requested, batch, iterations,
               duration, trace_gpus, gpu_time, cls) -> dict:
    """The workload's variables over ``job`` (step 7 names the jobs)."""
    n = len(datasets)
    return {
        "name": _text([f"helios-{i}" for i in range(n)]),
        "submit_s": ("job", submit_s, {"units": "s", "long_name": "submission time"}),
        "application": _text([f"{model}@{d}" for d in datasets]),
        "model": _text([model] * n),
        "dataset": _text(datasets),
        "requested_gpus": ("job", requested,
                           {"long_name": f"GPUs requested (trace's, capped at {cap})"}),
        "target_batch_size": ("job", batch, {"units": "samples per optimizer step"}),
        "samples_per_epoch": ("job", np.array([scale[d] for d in datasets], dtype=np.int64)),
        "total_samples": ("job", iterations * batch,
                          {"long_name": "total_iterations x target_batch_size"}),
        "total_iterations": ("job", iterations,
                             {"long_name": "round(duration_s / step time)"}),
        "duration_s": ("job", duration, {"units": "s", "long_name": "trace duration"}),
        "trace_gpus": ("job", trace_gpus.astype(np.int64),
                       {"long_name": "trace's num_gpus"}),
        "gpu_time_s": ("job", gpu_time, {"units": "GPU-s",
                                         "long_name": "duration_s x requested_gpus"}),
        "scale_class": _text([SCALE_CLASSES[c] for c in cls.tolist()]),
    }


def helios_workload(jobs=PAPER_JOBS, density=1.0, model: str = "vit-large",
                    gpu: str = "V100", seed=0, trace_file=None, lut=None) -> xr.Dataset:
    """A TITAN workload of ``round(jobs * density)`` Helios jobs (rules in the module docstring).

    Parameters
    ----------
    jobs : int
        Jobs at density 1 (the paper: 320).
    density : float
        Workload density (the paper: 0.5, 1, 1.5, 2).
    model, gpu : str
        Base model of every job and GPU type of the LUT, a pair of
        :func:`lorasched.titan.lut.available` (any pair with ``lut``).
    seed : int
        Seed of ``numpy.random.default_rng`` (sampling and dataset choice).
    trace_file : path, optional
        A trace CSV in the format of :mod:`lorasched.model.traces` with ``duration_s`` and
        ``num_gpus``; default the shipped Helios Venus trace.
    lut : xarray.Dataset, optional
        Throughput LUT; default ``load_lut(gpu, model)``. Requests are capped at its
        largest measured GPU count (1 for a LUT measured on one GPU).

    Returns
    -------
    xarray.Dataset
        over dim ``job`` (submit order): ``name``, ``submit_s`` (s), ``application``,
        ``model``, ``dataset``, ``requested_gpus``, ``target_batch_size``,
        ``samples_per_epoch``, ``total_samples``, ``total_iterations``, ``duration_s`` and
        ``trace_gpus`` (the trace's), ``gpu_time_s`` (``duration_s * requested_gpus``),
        ``scale_class``. attrs ``density``, ``model``, ``gpu``, ``source``, ``seed``,
        ``merge_key`` (``"application"``), ``workload`` (``"helios"``).

    Raises
    ------
    ValueError
        a bad argument (naming it); fewer candidate jobs than requested (naming both
        counts); a model with no dataset of a needed class or no dataset scale.
    """
    n = _checked_arguments(jobs, density, seed, gpu, model, lut is not None)
    if lut is None:
        lut = _lut.load_lut(gpu, model)
    classes = dataset_classes().get(model)
    if classes is None:
        raise InputError(f"model {model!r} has no application in "
                         f"{titansched_dir() / 'dataset_class.csv'}")
    scale = _read_scale(titansched_dir() / "dataset_scale.csv")
    t, window, duration, trace_gpus = _candidates(trace_file, n, jobs, density)  # 1-2
    rng = np.random.default_rng(int(seed))
    submit_s, duration, trace_gpus = _draw(rng, n, t, window, duration, trace_gpus)  # 2
    cap, requested, batch, iterations = _lengths(lut, duration, trace_gpus)  # 3-5
    gpu_time = duration * requested
    cls = _scale_classes(gpu_time, n)  # 6
    datasets = _datasets(rng, cls, classes, scale, model)  # 6
    data = _variables(model, submit_s, datasets, scale, cap, requested, batch, iterations,
                      duration, trace_gpus, gpu_time, cls)
    source = HELIOS_SOURCE if trace_file is None else str(trace_file)
    return xr.Dataset(data, coords={"job": np.arange(n, dtype=np.int64)},
                      attrs={"density": float(density), "model": model, "gpu": gpu,
                             "source": source, "seed": int(seed),
                             "merge_key": "application", "workload": "helios"})
