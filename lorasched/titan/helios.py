"""A public substitute for TITAN's private workload: foundation-model jobs from the Helios trace.

The paper (SoCC'22 sec. 5) draws its workload from a private trace ("FMTrace": jobs of 5 min
to 10 h, more than half of them short), "transform[s] the requested GPU-time to the dataset
scale" and synthesises "320 jobs submitted within first 8 hours", varying the density
(0.5, 1, 1.5, 2) relative to those 320 jobs. FMTrace is not public. :func:`helios_workload`
builds a workload of the same shape from the public SenseTime Helios Venus trace shipped in
``traces/helios_venus_jobs.csv.gz`` (read with :func:`lorasched.model.traces.read_trace`;
provenance and licence in ``traces/README.md``), in the Dataset format of
:func:`lorasched.titan.workload.load_workload`. Every rule below is lorasched's reading:

1. Filter: ``num_gpus >= 1``, ``300 <= duration_s < 36000`` (the paper's 5 min-10 h) and GPU
   time ``duration_s * num_gpus < 100`` GPU-hours (the rule of the authors' generator since
   their first commit). Of the 125,303 Helios jobs 43,312 pass; of these **56.2 %** last
   at most 30 min (``duration_s <= 1800``; the paper: FMTrace has more than 50 % short jobs;
   55.6 % is the share before the GPU-time filter, 56.0 % with the GPU time of the capped
   request). The shipped file's ``status`` is empty (failed and cancelled jobs were dropped
   when it was made), so no status filter applies.
2. Submission: time of day ``t = submit_time_s mod 86400`` on the file's clock (its time of
   day is unknown, ``traces/README.md``); the jobs with ``t < 28800`` (an 8-hour window) are
   the candidates; ``n = round(jobs * density)`` of them are drawn without replacement with
   ``numpy.random.default_rng(seed)``; ``submit_s = t``. Jobs are ordered by ``submit_s``
   (stable over the drawn trace rows in file order). ``ValueError`` naming the counts if
   fewer than ``n`` candidates remain.
3. ``requested_gpus = min(num_gpus, 16, G)``: the authors cap requests at 16 GPUs, and ``G``
   is the largest GPU count with a placement in the LUT (16 in the shipped tables).
4. ``target_batch_size``: the paper's LUT search over its candidate batches,
   ``best_configuration(lut, requested_gpus, paper_batches())[0]``
   (:mod:`lorasched.titan.lut`).
5. GPU time to dataset scale (the paper's transform): the job runs ``duration_s`` on its
   requested GPUs at that batch: ``total_iterations = max(1, round(duration_s /
   step_time(lut, requested_gpus, target_batch_size)))`` and ``total_samples =
   total_iterations * target_batch_size``. ``gpu_time_s = duration_s * requested_gpus``.
6. Scale class by the percentile of GPU time among the ``n`` drawn jobs: with ``F`` the
   empirical CDF of ``gpu_time_s`` (``F(x)`` = share of drawn jobs with GPU time ``<= x``,
   so equal GPU times share a class), ``F <= 0.3`` small, ``F <= 0.9`` medium, else large.
   Then, in submit order and with the same generator (after step 2), each job's dataset is
   drawn uniformly among the model's datasets of its class in ``dataset_class.csv`` (file
   order); ``application = f"{model}@{dataset}"``; ``samples_per_epoch`` from
   ``dataset_scale.csv``.
7. ``name = f"helios-{i}"``, ``i`` the position in submit order.

The same arguments and seed give an identical Dataset.

Dataset scale classes: ``traces/titansched/dataset_class.csv`` (columns
``application,scale_class``, every application of ``vit``, ``vit-large``, ``roberta-base``,
``roberta-large``), data copied from the scale labels of the authors' application table:
source: GitHub gaow0007/TitanSched, HEAD client/application/foundation_model.py, MIT licence.

What the authors' generator does (``trace/calibrate.py`` of the same repository, checked at
f71cf44; read, not copied): it caps ``num_gpus`` at 16 before computing GPU time, keeps
``gpu_time < 100 * 3600`` and ``300 <= duration < 36000``, takes the jobs submitted 08:00-16:00
of each day shifted to [0, 8 h), samples ``num_jobs`` of them, then sets ``small_thr =
sorted(gpu_time)[int(0.3 * num_jobs)]`` and ``medium_thr = sorted(gpu_time)[int(0.9 *
num_jobs)]`` and labels a job small if ``gpu_time <= small_thr``, medium if ``<=
medium_thr``, else large, i.e. <= 30 % small, <= 90 % medium, else large, picking the
application uniformly within the class. This confirms the class rule of step 6 (theirs
puts the job at the 30 % index itself into the lower class, one job more than ``F <= 0.3``).
Differences kept here on purpose: the GPU-time filter uses the trace's GPU count (step 1),
the window is the file clock's first 8 hours (Helios's time of day is unknown), the batch
comes from the LUT search rather than the authors' best hyper-parameters, and large jobs
keep their own GPU count (the authors re-draw it among large jobs).
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
from .tables import read_csv, require_columns
from .workload import _read_scale, titansched_dir

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
    ``folder`` defaulting to :func:`lorasched.titan.workload.titansched_dir`. ``ValueError``
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


def _checked_arguments(jobs, density, seed, gpu, model) -> int:
    """The number of jobs ``round(jobs * density)``, after checking every argument."""
    if isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral) or jobs <= 0:
        raise InputError(f"jobs must be a positive integer, got {jobs!r}")
    if (isinstance(density, bool) or not isinstance(density, numbers.Real)
            or not math.isfinite(density) or density <= 0):
        raise InputError(f"density must be a positive finite number, got {density!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    choices = _lut.available()
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
        :func:`lorasched.titan.lut.available`.
    seed : int
        Seed of ``numpy.random.default_rng`` (sampling and dataset choice).
    trace_file : path, optional
        A trace CSV in the format of :mod:`lorasched.model.traces` with ``duration_s`` and
        ``num_gpus``; default the shipped Helios Venus trace.
    lut : xarray.Dataset, optional
        Throughput LUT; default ``load_lut(gpu, model)``.

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
    n = _checked_arguments(jobs, density, seed, gpu, model)
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
