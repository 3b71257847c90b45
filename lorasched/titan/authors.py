"""TITAN's evaluation workloads (sec. 5) from TITAN's authors' published files
(:func:`load_workload`): each job's length from its accuracy curve and dataset size, and the
merge candidates (:func:`merge_candidates`). The file formats: :doc:`/reference/titan_data`.
"""

from __future__ import annotations

import json
import math
import numbers
import re
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from ..model import limits
from ..model.errors import InputError
from ..model.traces import trace_dir
from .tables import read_csv, require_columns

#: columns of a workload CSV
WORKLOAD_COLUMNS = ("name", "submission_time", "application", "num_gpus",
                    "target_batch_size", "target_lr", "target_gradient_steps", "target_metric")
#: columns of ``dataset_scale.csv``
SCALE_COLUMNS = ("dataset", "samples_per_epoch")
#: the datasets in the order of the authors' code's lists (``common/applications.py`` at
#: f71cf44: ``CV_Datasets``, then ``NLP_Datasets``; their ``query_index`` reads a name's
#: place in its own list), which orders the two jobs of a merged pair
DATASET_ORDER = {
    "vision": ("Bingsu/Cat_and_Dog", "frgfm/imagenette", "cifar100", "fashion_mnist",
               "mnist", "food101", "imagenet-split-0", "imagenet-split-1",
               "imagenet-split-2"),
    "language": ("wnli", "rte", "mrpc", "stsb", "sst2", "qnli", "qqp", "mnli", "ag_news",
                 "wikitext-103", "snli"),
}


def dataset_index(application: str) -> int:
    """The place of an application's dataset (``model@dataset``, ``#`` for ``/``) in the
    authors' code's list of its kind (:data:`DATASET_ORDER`), or -1 if in neither."""
    dataset = str(application).split("@", 1)[-1].replace("#", "/")
    for names in DATASET_ORDER.values():
        if dataset in names:
            return names.index(dataset)
    return -1


#: epochs of a job whose curve never reaches its target (the authors' rule)
MAX_EPOCHS = 10
#: provenance of the shipped workloads
WORKLOAD_SOURCE = (
    "TITAN's authors' evaluation workloads: GitHub gaow0007/TitanSched, commit f71cf44 "
    "(2022-11-19), workloads/FM-{density}-{model}.csv with curves/hpo_task_info.json and "
    "dataset_scale.csv, MIT licence, Copyright (c) 2020 WeiGao (traces/titansched/LICENSE). "
    "Derived by the authors from a private cluster trace: jobs submitted 08:00-16:00 "
    "shifted to [0, 8 h), GPU requests capped at 16, the dataset picked by the job's "
    "GPU-time percentile (<= 30 % small, <= 90 % medium, else large).")
MERGE_KEY = ("jobs with the same 'application' (model@dataset: same base model and same "
             "dataset) are merge candidates; the paper's dataset-card similarity is not "
             "modelled")
_FILE = re.compile(r"^FM-(\d+(?:\.\d+)?)-(.+)\.csv$")


def titansched_dir() -> Path:
    """Folder of the shipped TitanSched data: ``traces/titansched`` under the folder of the
    shipped traces (see :func:`lorasched.model.traces.trace_dir`)."""
    return trace_dir() / "titansched"


def available_workloads(folder=None) -> dict[float, tuple[str, ...]]:
    """The (density -> models) of the workload files ``<folder>/workloads/FM-{density}-
    {model}.csv``, densities ascending, models sorted. ``folder`` defaults to
    :func:`titansched_dir` (shipped: densities 1, 1.5, 2 x ``roberta-base``,
    ``roberta-large``, ``vit``, ``vit-large``)."""
    return {d: tuple(sorted(models)) for d, models in sorted(_files(_folder(folder)).items())}


#: how a workload's target metric is read: exactly, or as the authors' simulator reads it
TARGET_READINGS = ("exact", "authors")


def pandas1_float(text: str) -> float:
    """A decimal as pandas 1.x's C parser reads it by default (``precise_xstrtod`` of its
    tokenizer: at most 17 digits accumulated in a double, then divided by a power of ten),
    which the TITAN authors' simulator reads its workloads with (pandas 1.5.3): it can be
    one unit in the last place off the exact value (``"0.9031667581914699"`` reads as
    0.90316675819147), so a job whose target is its curve's best value never reaches it
    there."""
    s = str(text).strip()
    negative = s.startswith("-")
    if s[:1] in "+-":
        s = s[1:]
    number, exponent, digits, decimals, i = 0.0, 0, 0, 0, 0
    while i < len(s) and s[i].isdigit():
        if digits < 17:
            number, digits = number * 10.0 + int(s[i]), digits + 1
        else:
            exponent += 1
        i += 1
    if i < len(s) and s[i] == ".":
        i += 1
        while digits < 17 and i < len(s) and s[i].isdigit():
            number, digits, decimals = number * 10.0 + int(s[i]), digits + 1, decimals + 1
            i += 1
        while i < len(s) and s[i].isdigit():
            i += 1
        exponent -= decimals
    if i < len(s) and s[i] in "eE":
        exponent += int(s[i + 1:])
    if i < len(s) and s[i] not in "eE":
        raise InputError(f"not a decimal number: {text!r}")
    if exponent > 0:
        number *= float(f"1e{exponent}")
    elif exponent < 0:
        number /= float(f"1e{-exponent}")
    return -number if negative else number


def load_workload(density=1, model: str = "vit", folder=None,
                  target: str = "exact") -> xr.Dataset:
    """Read one of the authors' workloads with each job's length derived from the curves.

    Parameters
    ----------
    density : int or float
        Workload density (shipped: 1, 1.5, 2), matched by value.
    model : str
        Base model of the workload (shipped: ``vit``, ``vit-large``, ``roberta-base``,
        ``roberta-large``).
    folder : path, optional
        Folder holding ``workloads/``, ``curves/hpo_task_info.json`` and
        ``dataset_scale.csv`` (format in the module docstring); default
        :func:`titansched_dir`.
    target : {"exact", "authors"}, optional
        How the CSV's ``target_metric`` is read: exactly (default), or as the authors'
        simulator reads it (:func:`pandas1_float`), where some jobs whose target is their
        curve's best value run the :data:`MAX_EPOCHS` fallback.

    Returns
    -------
    xarray.Dataset
        over dim ``job`` (0, 1, ... in file order): ``name``, ``application``, ``model``,
        ``dataset`` (str; ``application`` split at ``@``); ``submit_s`` (seconds, the
        CSV's ``submission_time``); ``requested_gpus`` (the CSV's ``num_gpus``, what the
        baselines allocate); ``target_batch_size``, ``target_lr``,
        ``target_gradient_steps``, ``target_metric``; ``metric`` (name of the curve's
        metric, e.g. ``eval_accuracy``); ``epochs`` (float, module docstring);
        ``reached`` (False where ``epochs`` is the :data:`MAX_EPOCHS` fallback);
        ``samples_per_epoch``; ``total_samples``; ``total_iterations``. attrs
        ``density``, ``model``, ``source``, ``merge_key``, ``max_epochs``.

    Raises
    ------
    ValueError
        unknown density or model (listing the choices); a file missing a column; a bad
        value, duplicate job name, or a learning rate or gradient steps with no curve
        (naming the file, job and column); an application whose model or dataset has no
        curve or no dataset scale (naming the application).
    FileNotFoundError
        ``folder`` or one of its files does not exist.
    """
    if target not in TARGET_READINGS:
        raise InputError(f"target must be one of {TARGET_READINGS}, got {target!r}")
    folder = _folder(folder)
    density, path = _workload_file(folder, density, model)
    curves_path = folder / "curves" / "hpo_task_info.json"
    curves = _read_curves(curves_path)
    scale_path = folder / "dataset_scale.csv"
    scale = _read_scale(scale_path)
    jobs = _read_jobs(path)
    if target == "authors":
        frame = read_csv(path, str, required=True)
        jobs["target_metric"] = [pandas1_float(v) for v in frame["target_metric"]]
    metric, epochs, reached, samples = [], [], [], []
    for i, row in enumerate(jobs.itertuples(index=False)):
        where = f"{path}, line {i + 2} (job {row.name!r})"
        name, epoch, hit, per_epoch = _job_length(row, where, curves, curves_path, scale,
                                                  scale_path)
        metric.append(name)
        epochs.append(epoch)
        reached.append(hit)
        samples.append(per_epoch)
    source = (WORKLOAD_SOURCE.replace("{density}", f"{density:g}").replace("{model}", model)
              if folder.resolve() == titansched_dir().resolve() else str(path))
    return xr.Dataset(_variables(jobs, metric, epochs, reached, samples),
                      coords={"job": np.arange(len(jobs), dtype=np.int64)},
                      attrs={"density": density, "model": model, "source": source,
                             "merge_key": MERGE_KEY, "max_epochs": MAX_EPOCHS,
                             "target_reading": target})


def merge_candidates(ds: xr.Dataset) -> list[tuple[int, ...]]:
    """Groups of at least two job positions sharing an ``application`` (same base model and
    dataset: the merge candidates, module docstring), each ascending, the groups in the
    order of their first job. Raises ``TypeError`` / ``ValueError`` if ``ds`` is not a
    Dataset with ``application`` over ``job``."""
    if not isinstance(ds, xr.Dataset):
        raise InputError(f"ds must be an xarray.Dataset from load_workload, got "
                        f"{type(ds).__name__}")
    if "application" not in ds or ds["application"].dims != ("job",):
        raise InputError("ds has no 'application' over 'job': build it with load_workload")
    groups: dict[str, list[int]] = {}
    for i, app in enumerate(ds["application"].values.tolist()):
        groups.setdefault(str(app), []).append(i)
    return [tuple(g) for g in groups.values() if len(g) >= 2]


# --- helpers ------------------------------------------------------------------------------

def _workload_file(folder: Path, density, model) -> tuple[float, Path]:
    """(density as the file names it, path) of the workload file of ``density`` and
    ``model`` in ``folder``; ``ValueError`` listing the choices if there is none."""
    files = _files(folder)
    if isinstance(density, bool) or not isinstance(density, numbers.Real):
        raise InputError(f"density must be a number, one of {sorted(files)}; got "
                         f"{density!r}")
    match = [d for d in files if math.isclose(d, float(density), rel_tol=1e-9)]
    if not match:
        raise InputError(f"density {density!r} has no workload in {folder / 'workloads'}; "
                         f"choose one of {sorted(files)}")
    density = match[0]
    if not isinstance(model, str) or model not in files[density]:
        raise InputError(f"model {model!r} has no workload at density {density:g} in "
                         f"{folder / 'workloads'}; choose one of {sorted(files[density])}")
    return density, files[density][model]


def _dataset_curves(row, where: str, curves: dict, curves_path: Path, scale: dict,
                    scale_path: Path) -> dict:
    """The curves of the job's (model, dataset) by learning rate; ``ValueError`` if the
    application has no curve or no dataset scale."""
    model_curves = curves.get(row.model)
    if model_curves is None or row.dataset not in model_curves:
        raise InputError(
            f"{where}, column 'application': application {row.application!r} has no "
            f"curve in {curves_path} (models {sorted(curves)}"
            + (f"; datasets of {row.model!r}: {sorted(model_curves)}" if model_curves
               else "") + ")")
    if row.dataset not in scale:
        raise InputError(f"{where}, column 'application': application "
                         f"{row.application!r} has no dataset scale for "
                         f"{row.dataset!r} in {scale_path} (datasets "
                         f"{sorted(scale)})")
    return model_curves[row.dataset]


def _job_length(row, where: str, curves: dict, curves_path: Path, scale: dict,
                scale_path: Path) -> tuple[str, float, bool, int]:
    """(metric, epochs, reached, samples_per_epoch) of one job: the first epoch of its
    curve reaching ``target_metric``, else :data:`MAX_EPOCHS` (module docstring)."""
    by_lr = _dataset_curves(row, where, curves, curves_path, scale, scale_path)
    lr_key = _match(by_lr, row.target_lr, float)
    if lr_key is None:
        raise InputError(f"{where}, column 'target_lr': learning rate "
                         f"{row.target_lr:g} has no curve for {row.application!r} in "
                         f"{curves_path} (learning rates {list(by_lr)})")
    by_steps = by_lr[lr_key]
    steps_key = _match(by_steps, row.target_gradient_steps, float)
    if steps_key is None:
        raise InputError(f"{where}, column 'target_gradient_steps': gradient steps "
                         f"{row.target_gradient_steps} have no curve for "
                         f"{row.application!r} at learning rate {lr_key!r} in "
                         f"{curves_path} (gradient steps {list(by_steps)})")
    name, values, points = _curve(by_steps[steps_key], curves_path,
                                  (row.model, row.dataset, lr_key, steps_key))
    hit = [e for v, e in zip(values, points, strict=True) if v >= row.target_metric]
    return (name, float(min(hit)) if hit else float(MAX_EPOCHS), bool(hit),
            scale[row.dataset])


def _variables(jobs: pd.DataFrame, metric, epochs, reached, samples) -> dict:
    """The workload's variables over ``job``, with total_samples = epochs x
    samples_per_epoch and total_iterations = ceil(total_samples / target_batch_size)."""
    epochs = np.array(epochs, dtype=float)
    samples = np.array(samples, dtype=np.int64)
    total = epochs * samples
    batch = jobs["target_batch_size"].to_numpy(dtype=np.int64)
    iterations = np.ceil(np.round(total / batch, 9)).astype(np.int64)

    def text(column):
        return ("job", np.array(jobs[column].tolist(), dtype=object))

    return {
        "name": text("name"),
        "submit_s": ("job", jobs["submission_time"].to_numpy(dtype=float),
                     {"units": "s", "long_name": "submission time"}),
        "application": text("application"),
        "model": text("model"),
        "dataset": text("dataset"),
        "requested_gpus": ("job", jobs["num_gpus"].to_numpy(dtype=np.int64),
                           {"long_name": "GPUs requested (the CSV's num_gpus)"}),
        "target_batch_size": ("job", batch, {"units": "samples per optimizer step"}),
        "target_lr": ("job", jobs["target_lr"].to_numpy(dtype=float)),
        "target_gradient_steps": ("job", jobs["target_gradient_steps"].to_numpy(
            dtype=np.int64)),
        "target_metric": ("job", jobs["target_metric"].to_numpy(dtype=float)),
        "metric": ("job", np.array(metric, dtype=object)),
        "epochs": ("job", epochs, {"long_name": "epochs to reach target_metric "
                                                f"({MAX_EPOCHS} if never reached)"}),
        "reached": ("job", np.array(reached, dtype=bool)),
        "samples_per_epoch": ("job", samples),
        "total_samples": ("job", total, {"long_name": "epochs x samples_per_epoch"}),
        "total_iterations": ("job", iterations,
                             {"long_name": "ceil(total_samples / target_batch_size)"}),
    }


def _folder(folder) -> Path:
    folder = titansched_dir() if folder is None else Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"TitanSched folder {str(folder)!r} not found")
    return folder


def _files(folder: Path) -> dict[float, dict[str, Path]]:
    sub = folder / "workloads"
    if not sub.is_dir():
        raise FileNotFoundError(f"workload folder {str(sub)!r} not found")
    found: dict[float, dict[str, Path]] = {}
    for path in sorted(sub.glob("FM-*.csv")):
        m = _FILE.match(path.name)
        if m:
            found.setdefault(float(m.group(1)), {})[m.group(2)] = path
    return found


def _numbers(frame, column, path, names, *, integer=False, positive=False, minimum=None,
             maximum=None):
    """Column as floats; the first bad value raises, naming file, line, job and column
    (``maximum``: a declared limit, :mod:`lorasched.model.limits`)."""
    raw = frame[column]
    values = pd.to_numeric(raw.str.strip(), errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if positive:
        bad |= values <= 0
    if minimum is not None:
        bad |= values < minimum
    if integer:
        bad |= np.isfinite(values) & (values != np.round(values))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        need = ("a positive integer" if integer and positive else
                "a positive number" if positive else
                f"a finite number >= {minimum:g}" if minimum is not None else
                "a finite number")
        job = f" (job {names[i]!r})" if names is not None else ""
        raise InputError(f"{path}, line {i + 2}{job}, column {column!r}: must be {need}, "
                         f"got {raw.iloc[i]!r}")
    if maximum is not None:
        limits.at_most(values, maximum, str(path), lambda i: (
            f"line {i + 2}" + (f" (job {names[i]!r})" if names is not None else "")
            + f", column {column!r}"))
    return values


def _read_jobs(path: Path) -> pd.DataFrame:
    frame = read_csv(path, str, required=True)
    require_columns(frame, path, WORKLOAD_COLUMNS)
    names = [str(v).strip() for v in frame["name"]]
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if not name:
            raise InputError(f"{path}, line {i + 2}, column 'name': empty job name")
        if name in seen:
            raise InputError(f"{path}, line {i + 2} (job {name!r}), column 'name': duplicate "
                             f"job name (first at line {seen[name] + 2})")
        seen[name] = i
    out = pd.DataFrame({"name": names})
    out["submission_time"] = _numbers(frame, "submission_time", path, names, minimum=0,
                                      maximum=limits.HORIZON_S)
    apps = [str(v).strip() for v in frame["application"]]
    models, datasets = [], []
    for i, app in enumerate(apps):
        parts = app.split("@")
        if len(parts) != 2 or not all(parts):
            raise InputError(f"{path}, line {i + 2} (job {names[i]!r}), column "
                             f"'application': must be 'model@dataset', got {app!r}")
        models.append(parts[0])
        datasets.append(parts[1])
    out["application"], out["model"], out["dataset"] = apps, models, datasets
    for column, maximum in (("num_gpus", limits.MAX_GPUS),
                            ("target_batch_size", limits.MAX_BATCH),
                            ("target_gradient_steps", limits.MAX_ITERATIONS)):
        out[column] = _numbers(frame, column, path, names, integer=True, positive=True,
                               maximum=maximum).astype(np.int64)
    out["target_lr"] = _numbers(frame, "target_lr", path, names, positive=True)
    out["target_metric"] = _numbers(frame, "target_metric", path, names)
    return out


def _read_scale(path: Path) -> dict[str, int]:
    frame = read_csv(path, str, required=True)
    require_columns(frame, path, SCALE_COLUMNS)
    values = _numbers(frame, "samples_per_epoch", path, None, integer=True, positive=True,
                      maximum=limits.MAX_SAMPLES)
    scale: dict[str, int] = {}
    for i, (name, value) in enumerate(zip(frame["dataset"], values, strict=True)):
        name = str(name).strip()
        if not name:
            raise InputError(f"{path}, line {i + 2}, column 'dataset': empty dataset name")
        if name in scale:
            raise InputError(f"{path}, line {i + 2}, column 'dataset': duplicate dataset "
                             f"{name!r}")
        scale[name] = int(value)
    return scale


def _read_curves(path: Path) -> dict:
    if not path.is_file():
        raise FileNotFoundError(f"curves file {str(path)!r} not found")
    try:
        curves = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: not readable JSON ({err})") from err
    if not isinstance(curves, dict) or not all(
            isinstance(by_dataset, dict) and all(
                isinstance(by_lr, dict) and all(isinstance(s, dict) for s in by_lr.values())
                for by_lr in by_dataset.values())
            for by_dataset in curves.values()):
        raise InputError(f"{path}: must map model -> dataset -> learning rate -> gradient "
                         f"steps -> {{<metric>: [...], <metric>_epoch: [...]}}")
    return curves


def _match(mapping: dict, value: float, convert) -> str | None:
    """The key of ``mapping`` whose numeric value equals ``value`` (None if none does)."""
    for key in mapping:
        try:
            number = convert(key)
        except ValueError:
            continue
        if math.isclose(number, value, rel_tol=1e-9):
            return key
    return None


def _curve(entry, path: Path, keys) -> tuple[str, list[float], list[float]]:
    """(metric name, values, epochs) of one curve entry, validated."""
    at = f"{path}, curve {' -> '.join(keys)}"
    names = [k for k in entry if not k.endswith("_epoch")] if isinstance(entry, dict) else []
    if len(names) != 1 or f"{names[0]}_epoch" not in entry:
        raise InputError(f"{at}: must hold one <metric> list and its <metric>_epoch list, "
                         f"has keys {list(entry) if isinstance(entry, dict) else entry!r}")
    name = names[0]
    values, epochs = entry[name], entry[f"{name}_epoch"]
    if not isinstance(values, list) or not isinstance(epochs, list) or len(values) != len(
            epochs):
        raise InputError(f"{at}: {name!r} and {name + '_epoch'!r} must be lists of equal "
                         f"length")
    for label, seq in ((name, values), (f"{name}_epoch", epochs)):
        for j, v in enumerate(seq):
            if (isinstance(v, bool) or not isinstance(v, numbers.Real)
                    or not math.isfinite(v)):
                raise InputError(f"{at}, {label}[{j}]: must be a finite number, got {v!r}")
    return name, [float(v) for v in values], [float(e) for e in epochs]
