"""TITAN's throughput look-up table (sec. 4.1) from measured step times: loading with named
errors (:func:`load_lut`, :func:`from_frames`), the step time with gradient accumulation
(:func:`step_time`), the progress rate and the batch search. The file format:
:doc:`/reference/titan_data`.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from ..model import limits
from ..model.errors import InputError
from ..model.traces import trace_dir
from .tables import read_csv, require_columns

#: GPU types and models of the shipped tables (``traces/titansched/lut/<gpu>/<model>_*.csv``)
GPUS = ("A100", "V100")
MODELS = ("roberta-base", "roberta-large", "vit", "vit-large")
#: provenance of the shipped tables
SOURCE = ("TITAN's authors' measurements: GitHub gaow0007/TitanSched, commit f71cf44 "
          "(2022-11-19), lut/{gpu}/{model}_*.csv, MIT licence, Copyright (c) 2020 WeiGao "
          "(traces/titansched/LICENSE)")
PLACEMENT_COLUMNS = ("placement", "local_bsz", "step_time", "sync_time")
MEMORY_COLUMNS = ("local_bsz", "gpu_memory")
CONTEXT_SWITCH_COLUMNS = ("app", "time_cost")
_PLACEMENT = re.compile(r"^[1-9]+$")
#: how a step's per-GPU micro-batch is rounded (:func:`step_time`): ``"ceil"``, a step of
#: exactly the global batch; ``"floor"``, the authors' simulator's, never past it
MICRO_BATCH = ("ceil", "floor")


def lut_dir() -> Path:
    """Folder of the shipped LUTs: ``traces/titansched/lut`` under the folder of the
    shipped traces (the repository's ``traces/``, or ``$LORASCHED_TRACES`` if set; see
    :func:`lorasched.model.traces.trace_dir`)."""
    return trace_dir() / "titansched" / "lut"


def available(folder=None) -> dict[str, tuple[str, ...]]:
    """The (gpu -> models) pairs in a LUT folder: sub-folders holding at least one
    ``<model>_placements.csv``. ``folder`` defaults to :func:`lut_dir`."""
    folder = _folder(folder)
    found = {}
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        models = tuple(sorted(p.name[: -len("_placements.csv")]
                              for p in sub.glob("*_placements.csv")))
        if models:
            found[sub.name] = models
    return found


def load_lut(gpu: str = "A100", model: str = "vit-large", folder=None) -> xr.Dataset:
    """Read one GPU type's measurements of one model into a LUT Dataset.

    Parameters
    ----------
    gpu, model : str
        A sub-folder of ``folder`` and a model with a ``<model>_placements.csv`` in it
        (shipped: ``A100``/``V100`` x ``vit``, ``vit-large``, ``roberta-base``,
        ``roberta-large``; :func:`available` lists them).
    folder : path, optional
        The LUT folder (format in the module docstring); default :func:`lut_dir`.

    Returns
    -------
    xarray.Dataset
        dims ``placement`` (str), ``local_bsz`` (per-GPU batch, samples); variables
        ``step_time`` and ``sync_time`` (seconds per optimizer step and its gradient
        synchronisation part, NaN where not measured), coords ``gpus`` (GPUs of the
        placement, sum of its digits) and ``nodes`` (its number of digits);
        ``memory`` (GB per GPU) over ``memory_bsz`` if the memory table exists;
        ``context_switch_s`` (seconds) over ``app`` if the context-switch table exists.
        attrs ``gpu``, ``model``, ``source``. Placements are ordered by (gpus, nodes,
        name), local batches ascending.

    Raises
    ------
    ValueError
        unknown gpu or model (listing the choices); a CSV missing a column (naming the
        file and column); a negative or non-finite time, a bad placement or local batch,
        a duplicated row (naming the file, line and column).
    FileNotFoundError
        ``folder`` does not exist.
    """
    folder = _folder(folder)
    choices = available(folder)
    if not isinstance(gpu, str) or gpu not in choices:
        raise InputError(f"gpu {gpu!r} has no LUT in {folder}; choose one of "
                         f"{sorted(choices)}")
    if not isinstance(model, str) or model not in choices[gpu]:
        raise InputError(f"model {model!r} has no LUT for gpu {gpu!r} in {folder}; choose "
                         f"one of {list(choices[gpu])}")
    base = folder / gpu
    placements = read_csv(base / f"{model}_placements.csv", {"placement": str}, required=True)
    memory = read_csv(base / f"{model}_memory.csv", {})
    context_switch = read_csv(base / f"{model}_context_switch.csv", {"app": str})
    source = (SOURCE.format(gpu=gpu, model=model) if folder.resolve() == lut_dir().resolve()
              else f"{base / model}_*.csv")
    return _build(placements, memory, context_switch, gpu=gpu, model=model, source=source,
                  names=(f"{base / model}_{kind}.csv"
                         for kind in ("placements", "memory", "context_switch")),
                  row="line", offset=2)


def from_frames(placements: pd.DataFrame, memory: pd.DataFrame | None = None,
                context_switch: pd.DataFrame | None = None, *, gpu: str, model: str,
                source: str) -> xr.Dataset:
    """Build a LUT Dataset from a user's own measurement tables (same result as
    :func:`load_lut` on CSVs holding the same rows).

    Parameters
    ----------
    placements : pandas.DataFrame
        Columns ``placement, local_bsz, step_time, sync_time`` (seconds; format in the
        module docstring). ``placement`` may be given as strings (``"44"``) or integers.
    memory : pandas.DataFrame, optional
        Columns ``local_bsz, gpu_memory`` (GB per GPU).
    context_switch : pandas.DataFrame, optional
        Columns ``app, time_cost`` (seconds per stop-and-restart).
    gpu, model, source : str
        Stored as attrs: GPU type, model name, provenance of the measurements.

    Raises ``TypeError`` for a table that is not a DataFrame or a non-string attr, and
    ``ValueError`` naming the table, row (0-based position) and column of a bad value.
    """
    for name, value in (("gpu", gpu), ("model", model), ("source", source)):
        if not isinstance(value, str) or not value:
            raise InputError(f"{name} must be a non-empty string, got {value!r}")
    tables = []
    for name, frame, required in (("placements", placements, True),
                                  ("memory", memory, False),
                                  ("context_switch", context_switch, False)):
        if frame is None and not required:
            tables.append(None)
        elif not isinstance(frame, pd.DataFrame):
            raise InputError(f"{name} must be a pandas DataFrame, got "
                            f"{type(frame).__name__}")
        else:
            tables.append(frame.reset_index(drop=True))
    return _build(*tables, gpu=gpu, model=model, source=source,
                  names=("placements table", "memory table", "context_switch table"),
                  row="row", offset=0)


def with_scalability(lut: xr.Dataset, nodes: int, folder=None,
                     gpus_per_node: int = 4) -> xr.Dataset:
    """``lut`` with placements of ``n`` full nodes (``"4" * n``) for ``n`` up to ``nodes``
    that it lacks, from ``<folder>/<gpu>/<model>_scalability.csv``.

    A row ``(num_nodes = n, num_replicas = 4 n)`` is used as measured; a node count without
    one (5 and 7) takes the mean of its two neighbours ``n - 1`` and ``n + 1`` at each
    local batch, the point halfway between them. The authors' simulator interpolates the
    same table linearly over (nodes, replicas, local batch) with scipy's Delaunay-based
    ``LinearNDInterpolator``; its weights at those points depend on the triangulation, so
    lorasched's midpoint is a reading of it. Only ``gpus_per_node=4`` has such rows."""
    _check_lut(lut)
    nodes = _positive_int("nodes", nodes)
    gpu, model = lut.attrs.get("gpu", ""), lut.attrs.get("model", "")
    path = _folder(folder) / gpu / f"{model}_scalability.csv"
    table = read_csv(path, {}, required=True)
    require_columns(table, str(path), ("num_nodes", "num_replicas", "local_bsz", "step_time",
                                       "sync_time"))
    local = lut["local_bsz"].values
    have = {str(p): (lut["step_time"].sel(placement=p).values,
                     lut["sync_time"].sel(placement=p).values)
            for p in lut["placement"].values}

    def measured(n: int):
        name = str(gpus_per_node) * n
        if name in have:
            return have[name]
        rows = table[(table["num_nodes"] == n) & (table["num_replicas"] == gpus_per_node * n)]
        if rows.empty:
            return None
        step = np.full(local.size, np.nan)
        sync = np.full(local.size, np.nan)
        for b, t, y in zip(rows["local_bsz"], rows["step_time"], rows["sync_time"],
                           strict=True):
            hit = np.flatnonzero(local == int(b))
            if hit.size:
                step[hit[0]], sync[hit[0]] = float(t), float(y)
        return step, sync

    extra = {}
    for n in range(2, nodes + 1):
        name = str(gpus_per_node) * n
        if name in have:
            continue
        got = measured(n)
        if got is None:
            lo, hi = measured(n - 1), measured(n + 1)
            if lo is None or hi is None:
                continue
            got = ((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2)
        if np.isfinite(got[0]).any():
            extra[name] = got
            have[name] = got
    if not extra:
        return lut
    names = list(extra)
    add = xr.Dataset(
        {"step_time": (("placement", "local_bsz"), np.array([extra[p][0] for p in names])),
         "sync_time": (("placement", "local_bsz"), np.array([extra[p][1] for p in names]))},
        coords={"placement": ("placement", np.array(names, dtype=object)),
                "local_bsz": local,
                "gpus": ("placement", np.array([sum(map(int, p)) for p in names])),
                "nodes": ("placement", np.array([len(p) for p in names]))})
    out = xr.concat([lut[["step_time", "sync_time"]], add], dim="placement",
                    coords="minimal", compat="override", join="override")
    out = lut.drop_dims("placement").merge(out)
    for var in ("step_time", "sync_time"):
        out[var].attrs = lut[var].attrs
    out.attrs = {**lut.attrs, "source": lut.attrs.get("source", "") + f"; full nodes up to "
                 f"{nodes} from {model}_scalability.csv ({', '.join(names)})"}
    return out


def paper_batches() -> list[int]:
    """The paper's candidate global batch sizes (sec. 5, "Simulator Constructor": 64 to
    512 in base-sqrt(2) exponential steps), rounded to integers:
    ``[64, 91, 128, 181, 256, 362, 512]``."""
    return [round(64 * 2 ** (i / 2)) for i in range(7)]


def measured_gpus(lut: xr.Dataset) -> tuple[int, ...]:
    """The GPU counts of the placements with at least one measured step time, ascending
    (``(1,)`` for a LUT measured on one GPU)."""
    return tuple(sorted({sum(map(int, p)) for p in _tables(lut)["placements"]}))


def compact_placement(lut: xr.Dataset, gpus: int) -> str:
    """The most compact measured placement with ``gpus`` GPUs: the fewest nodes; among
    those, the fullest nodes (per-node counts sorted in decreasing order, the
    lexicographically largest, e.g. ``"14"`` before ``"23"`` for 5 GPUs); then the smallest
    name. Only placements with at least one measured step time count.

    Raises ``ValueError`` listing the GPU counts available if none has ``gpus`` GPUs.
    """
    gpus = _positive_int("gpus", gpus)
    names = list(_tables(lut)["placements"])
    matching = [p for p in names if sum(map(int, p)) == gpus]
    if not matching:
        counts = sorted({sum(map(int, p)) for p in names})
        raise InputError(f"no measured placement has gpus={gpus} GPUs in the LUT of "
                         f"{lut.attrs.get('model')!r} on {lut.attrs.get('gpu')!r}; GPU "
                         f"counts available: {counts}")
    return min(matching, key=lambda p: (len(p), [-int(c) for c in sorted(p, reverse=True)],
                                        p))


def step_time(lut: xr.Dataset, gpus: int, global_batch: int,
              max_local_bsz: int | None = None, micro_batch: str = "ceil") -> float:
    """Seconds per global optimizer step of a job with global batch ``global_batch`` on
    ``gpus`` GPUs (the authors' simulator's rule, module docstring).

    With ``local = ceil(global_batch / gpus)``, ``k = ceil(local / max_local)`` micro-steps
    of ``micro = ceil(local / k)`` samples per GPU, and ``t(b)``, ``y(b)`` the step and
    sync times of :func:`compact_placement` interpolated linearly over the measured local
    batches: ``t(micro) + (k - 1) * (t(micro) - y(micro))`` (accumulation micro-steps skip
    the sync). ``max_local`` is ``max_local_bsz`` if given, else the largest local batch of
    the memory table if the LUT has one, else the placement's largest measured one.

    ``micro_batch`` (:data:`MICRO_BATCH`): ``"ceil"`` (default) as above, a step of
    exactly the global batch; ``"floor"``, as the TITAN authors' simulator computes it
    (``update_local_bsz`` and ``step``, gaow0007/TitanSched f71cf44): the micro-batch is
    also at most ``floor(global_batch / (gpus k))`` and at least the LUT's smallest local
    batch, a step processes ``gpus k micro`` samples, and the time returned is that
    step's per sample times the global batch (RoBERTa-large, batch 128 on one V100: seven
    micro-steps of 18, 126 samples a step, where ``"ceil"`` runs seven of 19).

    Raises ``ValueError`` if no placement has ``gpus`` GPUs (listing those available) or if
    ``micro`` is outside the placement's measured local batches (no extrapolation).
    """
    placement, micro, k, per_step = _plan(lut, gpus, global_batch, max_local_bsz,
                                          micro_batch)
    t, y = _times(lut, placement, micro, global_batch, gpus, k)
    return (t + (k - 1) * (t - y)) * per_step


def estimated_step_time(lut: xr.Dataset, gpus: int, global_batch: int,
                        max_local_bsz: int | None = None, micro_batch: str = "ceil") -> float:
    """The step time the TITAN authors' simulator estimates a job's remaining time with
    (``predict_remaining_time``, gaow0007/TitanSched f71cf44): one accumulation micro-step
    more than :func:`step_time` runs, ``t(micro) + k * (t(micro) - y(micro))``; a job on one
    GPU at global batch 576 (three micro-steps of 192, no sync) is estimated a third longer
    than it runs. Their SRTF orders jobs by it. ``micro_batch`` as in :func:`step_time`."""
    placement, micro, k, per_step = _plan(lut, gpus, global_batch, max_local_bsz,
                                          micro_batch)
    t, y = _times(lut, placement, micro, global_batch, gpus, k)
    return (t + k * (t - y)) * per_step


def throughput(lut: xr.Dataset, gpus: int, global_batch: int, total_iterations) -> float:
    """The paper's T_{i,a} (sec. 3): progress per second of a job of ``total_iterations``
    optimizer steps at global batch ``global_batch`` on ``gpus`` GPUs, i.e. iterations per
    second over total iterations, ``1 / (total_iterations * step_time)`` (fraction of the
    job per second)."""
    if (isinstance(total_iterations, bool) or not isinstance(total_iterations, numbers.Real)
            or not math.isfinite(total_iterations) or total_iterations <= 0):
        raise InputError(f"total_iterations must be a positive finite number, got "
                         f"{total_iterations!r}")
    seconds = step_time(lut, gpus, global_batch)
    if seconds <= 0:
        raise InputError(f"step time for gpus={gpus}, global batch {global_batch} is "
                         f"{seconds} s; throughput needs a positive step time")
    return 1.0 / (total_iterations * seconds)


def best_configuration(lut: xr.Dataset, gpus: int, batch_range: Iterable[int],
                       max_local_bsz: int | None = None) -> tuple[int, float]:
    """The paper's LUT search (sec. 4.1, "searches the LUT to determine the best training
    configuration to minimize the job latency"): among the candidate global batches
    ``batch_range`` (e.g. :func:`paper_batches`), the one minimising the seconds per
    training sample ``step_time / global_batch`` on ``gpus`` GPUs.

    Returns ``(global_batch, seconds_per_sample)``; ties go to the earliest candidate.
    Candidates whose micro-step local batch lies outside the measured range are skipped;
    ``ValueError`` if none is left, if ``batch_range`` is empty or holds a non-positive
    integer, or if no placement has ``gpus`` GPUs. The paper's other dimensions (frozen
    layers, mixed precision, gradient checkpointing) are not in the published measurements
    and are not searched; accumulation steps follow from the batch (:func:`step_time`).
    """
    candidates = list(batch_range) if isinstance(batch_range, Iterable) else None
    if not candidates:
        raise InputError(f"batch_range must be a non-empty iterable of global batch sizes, "
                         f"got {batch_range!r}")
    candidates = [_positive_int(f"batch_range[{i}]", b) for i, b in enumerate(candidates)]
    best = None
    skipped = []
    for batch in candidates:
        placement, micro, _, _ = _plan(lut, gpus, batch, max_local_bsz)
        xs = _measured(lut, placement)[0]
        if not xs[0] <= micro <= xs[-1]:
            skipped.append(f"{batch} (local batch {micro})")
            continue
        per_sample = step_time(lut, gpus, batch, max_local_bsz) / batch
        if best is None or per_sample < best[1]:
            best = (batch, per_sample)
    if best is None:
        raise InputError(f"no candidate global batch fits the measured local_bsz range on "
                         f"gpus={gpus}: {', '.join(skipped)}")
    return best


# --- helpers ------------------------------------------------------------------------------

def _folder(folder) -> Path:
    folder = lut_dir() if folder is None else Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"LUT folder {str(folder)!r} not found")
    return folder


def _numbers(frame, column, name, row, offset, *, integer=False, positive=False,
             maximum=None):
    """Column as floats; the first bad value raises, naming file/table, row and column
    (``maximum``: a declared limit, :mod:`lorasched.model.limits`)."""
    raw = frame[column]
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values <= 0 if positive else values < 0)
    if integer:
        bad |= np.isfinite(values) & (values != np.round(values))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        need = ("a positive integer" if integer else
                "a finite non-negative number" + (" of seconds" if "time" in column else ""))
        raise InputError(f"{name}, {row} {i + offset}, column {column!r}: must be {need}, "
                         f"got {str(raw.iloc[i])!r}")
    if maximum is not None:
        limits.at_most(values, maximum, name, lambda i: f"{row} {i + offset}, column {column!r}")
    return values


def _unique(keys, name, row, offset, what) -> None:
    seen = {}
    for i, key in enumerate(keys):
        if key in seen:
            raise InputError(f"{name}, {row} {i + offset}: duplicate {what} {key!r} (first at "
                             f"{row} {seen[key] + offset})")
        seen[key] = i


def _build(placements, memory, context_switch, *, gpu, model, source, names, row,
           offset) -> xr.Dataset:
    """Validate the tables and assemble the LUT Dataset (shared by load_lut/from_frames)."""
    p_name, m_name, c_name = names
    require_columns(placements, p_name, PLACEMENT_COLUMNS)
    names_ = [str(v).strip() for v in placements["placement"]]
    for i, p in enumerate(names_):
        if not _PLACEMENT.match(p):
            raise InputError(f"{p_name}, {row} {i + offset}, column 'placement': must be a "
                             f"string of digits 1-9 (GPUs per node), got "
                             f"{placements['placement'].iloc[i]!r}")
    bsz = _numbers(placements, "local_bsz", p_name, row, offset, integer=True).astype(np.int64)
    step = _numbers(placements, "step_time", p_name, row, offset,
                    maximum=limits.MAX_STEP_S)
    sync = _numbers(placements, "sync_time", p_name, row, offset,
                    maximum=limits.MAX_STEP_S)
    over = np.flatnonzero(sync > step)
    if over.size:
        i = int(over[0])
        raise InputError(f"{p_name}, {row} {i + offset}, column 'sync_time': {sync[i]} s "
                         f"exceeds step_time {step[i]} s (it is a part of it)")
    _unique(list(zip(names_, bsz.tolist(), strict=True)), p_name, row, offset,
            "(placement, local_bsz)")

    order = sorted(set(names_), key=lambda p: (sum(map(int, p)), len(p), p))
    local = np.array(sorted(set(bsz.tolist())), dtype=np.int64)
    where = {p: j for j, p in enumerate(order)}
    col = {b: j for j, b in enumerate(local.tolist())}
    grid_step = np.full((len(order), len(local)), np.nan)
    grid_sync = np.full_like(grid_step, np.nan)
    for p, b, t, y in zip(names_, bsz.tolist(), step, sync, strict=True):
        grid_step[where[p], col[b]] = t
        grid_sync[where[p], col[b]] = y

    data = {
        "step_time": (("placement", "local_bsz"), grid_step,
                      {"units": "s", "long_name": "seconds per optimizer step (measured)"}),
        "sync_time": (("placement", "local_bsz"), grid_sync,
                      {"units": "s", "long_name": "gradient synchronisation part of "
                                                  "step_time (measured)"}),
    }
    coords = {
        "placement": ("placement", np.array(order, dtype=object),
                      {"long_name": "GPUs per node, one digit per node"}),
        "local_bsz": ("local_bsz", local, {"units": "samples per GPU per micro-step"}),
        "gpus": ("placement", np.array([sum(map(int, p)) for p in order], dtype=np.int64),
                 {"long_name": "GPUs of the placement"}),
        "nodes": ("placement", np.array([len(p) for p in order], dtype=np.int64),
                  {"long_name": "nodes of the placement"}),
    }
    if memory is not None:
        require_columns(memory, m_name, MEMORY_COLUMNS)
        m_bsz = _numbers(memory, "local_bsz", m_name, row, offset, integer=True)
        m_gb = _numbers(memory, "gpu_memory", m_name, row, offset)
        _unique(m_bsz.astype(np.int64).tolist(), m_name, row, offset, "local_bsz")
        sort = np.argsort(m_bsz, kind="stable")
        coords["memory_bsz"] = ("memory_bsz", m_bsz[sort].astype(np.int64),
                                {"units": "samples per GPU"})
        data["memory"] = ("memory_bsz", m_gb[sort],
                          {"units": "GB", "long_name": "GPU memory per GPU (measured)"})
    if context_switch is not None:
        require_columns(context_switch, c_name, CONTEXT_SWITCH_COLUMNS)
        apps = [str(a).strip() for a in context_switch["app"]]
        for i, a in enumerate(apps):
            if not a:
                raise InputError(f"{c_name}, {row} {i + offset}, column 'app': empty name")
        cost = _numbers(context_switch, "time_cost", c_name, row, offset,
                        maximum=limits.MAX_STEP_S)
        _unique(apps, c_name, row, offset, "app")
        coords["app"] = ("app", np.array(apps, dtype=object))
        data["context_switch_s"] = ("app", cost,
                                    {"units": "s", "long_name": "seconds to stop and "
                                                                "restart the job once"})
    return xr.Dataset(data, coords=coords, attrs={"gpu": gpu, "model": model,
                                                  "source": source})


def _check_lut(lut) -> None:
    if not isinstance(lut, xr.Dataset):
        raise InputError(f"lut must be an xarray.Dataset from load_lut/from_frames, got "
                        f"{type(lut).__name__}")
    for name in ("step_time", "sync_time", "gpus", "nodes"):
        if name not in lut.variables:
            raise InputError(f"lut has no {name!r}: build it with load_lut or from_frames")


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise InputError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


#: id(lut) -> (lut, its tables): the LUT read into plain arrays once (the simulator asks
#: for thousands of step times per scenario; an xarray selection each time cost most of a
#: scenario's build)
_TABLES: dict = {}


def _tables(lut: xr.Dataset) -> dict:
    """The LUT, checked, as plain read-only arrays: ``"placements"`` (the placements with at
    least one measured step time, in the LUT's order) and ``"measured"`` (placement ->
    (local batches, step times, sync times) where both times are measured, ascending)."""
    hit = _TABLES.get(id(lut))
    if hit is not None and hit[0] is lut:
        return hit[1]
    _check_lut(lut)
    step = lut["step_time"].transpose("placement", "local_bsz").values
    sync = lut["sync_time"].transpose("placement", "local_bsz").values
    local = lut["local_bsz"].values
    placements, measured = [], {}
    for i, p in enumerate(lut["placement"].values):
        if np.isfinite(step[i]).any():
            placements.append(str(p))
        ok = np.isfinite(step[i]) & np.isfinite(sync[i])
        arrays = (local[ok].copy(), step[i][ok].copy(), sync[i][ok].copy())
        for a in arrays:
            a.setflags(write=False)
        measured[str(p)] = arrays
    if len(_TABLES) >= 64:  # a handful of LUTs per process; never grow without bound
        _TABLES.clear()
    tables = {"placements": tuple(placements), "measured": measured}
    _TABLES[id(lut)] = (lut, tables)
    return tables


def _measured(lut: xr.Dataset, placement: str):
    """(local batches, step times, sync times) measured for a placement, ascending."""
    return _tables(lut)["measured"][str(placement)]


def _plan(lut, gpus, global_batch, max_local_bsz,
          micro_batch: str = "ceil") -> tuple[str, int, int, float]:
    """(placement, micro-step local batch, micro-steps k, global batch over the samples a
    step processes) for a job; validates inputs (``micro_batch``: :func:`step_time`)."""
    if micro_batch not in MICRO_BATCH:
        raise InputError(f"micro_batch must be one of {MICRO_BATCH}, got {micro_batch!r}")
    placement = compact_placement(lut, gpus)
    gpus = int(gpus)
    global_batch = _positive_int("global_batch", global_batch)
    if max_local_bsz is None:
        if "memory" in lut and lut.sizes.get("memory_bsz", 0) > 0:
            max_local = int(lut["memory_bsz"].values.max())
        else:
            max_local = int(_measured(lut, placement)[0].max())
    else:
        max_local = _positive_int("max_local_bsz", max_local_bsz)
    local = -(-global_batch // gpus)
    k = -(-local // max_local)
    micro = -(-local // k)
    if micro_batch == "ceil":
        return placement, micro, k, 1.0
    smallest = int(np.nanmin(lut["local_bsz"].values))
    micro = max(min(micro, global_batch // (gpus * k)), smallest)
    return placement, micro, k, global_batch / (gpus * k * micro)


def _times(lut, placement, micro, global_batch, gpus, k) -> tuple[float, float]:
    """Step and sync seconds of ``placement`` at local batch ``micro``, interpolated over
    the measured local batches; ``ValueError`` outside them (no extrapolation)."""
    xs, ts, ys = _measured(lut, placement)
    if not xs[0] <= micro <= xs[-1]:
        raise InputError(
            f"local batch {micro} (global batch {global_batch} on gpus={gpus}, placement "
            f"{placement!r}, {k} micro-step(s)) is outside the measured local_bsz range "
            f"[{xs[0]}, {xs[-1]}]; the LUT does not extrapolate")
    return float(np.interp(micro, xs, ts)), float(np.interp(micro, xs, ys))
