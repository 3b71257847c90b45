"""One task as the service receives it: a JSON object, validated against the cluster.

Fields (``POST /v1/tasks``; the scenario's names, :mod:`lorasched.pdftsp.scenario`):

=======================  ================================================================
``id``                   the client's id: 1-128 characters of ``A-Z a-z 0-9 . _ : -``
``arrival``              a_i, the slot it arrives in (whole, ``0 <= arrival < T``)
``deadline``             d_i, its last slot (whole, ``arrival <= deadline < T``)
``work``                 M_i, samples to train (whole, ``>= 1``)
``memory``               r_i, GB (``> 0``; at least the cluster's declared
                         ``task_memory_min``)
``speed``                s_ik, samples per slot: one whole number per node, or an object
                         ``{gpu_type: samples}`` covering every GPU type of the cluster
``bid``                  b_i (``>= 0``; ``bid / work`` within the cluster's declared value
                         densities)
``needs_preprocessing``  true or false (default false)
``vendor_price``         q_in, one per vendor of the cluster (``>= 0``; needed when the
                         task needs pre-processing and the cluster has vendors)
``vendor_delay``         h_in, slots, one whole number ``>= 0`` per vendor (same)
=======================  ================================================================

A bad field raises :class:`ServiceInputError` (a ``ValueError``) whose message names the
field, the task and the rule; the HTTP layer answers 422 with it and changes nothing.
"""

from __future__ import annotations

import math
import numbers
import re

import numpy as np

from ..model.errors import InputError
from ..pdftsp.scenario import SPEED_DTYPE, ScenarioArrays, node_speed

FIELDS = ("id", "arrival", "deadline", "work", "memory", "speed", "bid",
          "needs_preprocessing", "vendor_price", "vendor_delay")
_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_SPEED_MAX = int(np.iinfo(SPEED_DTYPE).max)


class ServiceInputError(InputError):
    """A request the service refuses: ``field`` names what is wrong (``str(error)`` says
    the task and the rule)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def _fail(field: str, task: str, rule: str):
    raise ServiceInputError(field, f"task {task!r}, field {field!r}: {rule}")


def _whole(payload: dict, field: str, task: str, low: int, high: int | None = None) -> int:
    v = payload.get(field)
    if (isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v)
            or float(v) != int(v)):
        _fail(field, task, f"must be a whole number, got {v!r}")
    v = int(v)
    if v < low or (high is not None and v > high):
        _fail(field, task, f"must be in {low}..{high if high is not None else 'inf'}, "
                           f"got {v}")
    return v


def _number(payload: dict, field: str, task: str, low: float, *, strict: bool) -> float:
    v = payload.get(field)
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
        _fail(field, task, f"must be a finite number, got {v!r}")
    v = float(v)
    if v < low or (strict and v == low):
        _fail(field, task, f"must be {'>' if strict else '>='} {low:g}, got {v:g}")
    return v


def _vector(payload: dict, field: str, task: str, n: int, whole: bool) -> np.ndarray:
    v = payload.get(field)
    if not isinstance(v, list) or len(v) != n:
        _fail(field, task, f"must be a list of {n} numbers (one per vendor), got {v!r}")
    out = []
    for k, x in enumerate(v):
        if (isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(x)
                or x < 0 or (whole and float(x) != int(x))):
            _fail(field, task, f"item {k} must be a {'whole ' if whole else ''}number "
                               f">= 0, got {x!r}")
        out.append(x)
    return np.array(out, dtype=np.int64 if whole else np.float64)


def parse_task(payload, cluster: ScenarioArrays, gpu_types: np.ndarray) -> tuple[str, dict]:
    """``(id, fields)`` of a request body, validated (module docstring); ``fields`` holds
    the task's values as the arrays of a one-task scenario (see :func:`one_task`)."""
    if not isinstance(payload, dict):
        raise ServiceInputError("body", f"the body must be a JSON object, got "
                                        f"{type(payload).__name__}")
    unknown = sorted(set(payload) - set(FIELDS))
    task = payload.get("id")
    if not isinstance(task, str) or not _ID.match(task):
        raise ServiceInputError("id", f"field 'id': must be 1-128 characters of A-Z a-z "
                                      f"0-9 . _ : -, got {task!r}")
    if unknown:
        _fail(unknown[0], task, f"unknown field (known: {', '.join(FIELDS)})")
    T, N = cluster.n_slots, cluster.vendor_price.shape[1]
    arrival = _whole(payload, "arrival", task, 0, T - 1)
    deadline = _whole(payload, "deadline", task, arrival, T - 1)
    work = _whole(payload, "work", task, 1)
    memory = _number(payload, "memory", task, 0.0, strict=True)
    if cluster.task_memory_min is not None and memory < cluster.task_memory_min:
        _fail("memory", task, f"{memory:g} GB is below the cluster's declared "
                              f"task_memory_min {cluster.task_memory_min:g} GB")
    bid = _number(payload, "bid", task, 0.0, strict=False)
    density = bid / work
    lo, hi = cluster.value_density_min, cluster.value_density_max
    if bid > 0 and lo is not None and hi is not None and not lo <= density <= hi:
        _fail("bid", task, f"bid / work = {density:.6g} per sample lies outside the cluster's "
                           f"declared value densities [{lo:.6g}, {hi:.6g}]")
    speed = _speed(payload.get("speed"), task, gpu_types)
    cap = cluster.speed_per_memory_max
    if cap is not None and speed.max() / memory > cap * (1 + 1e-12):
        _fail("speed", task, f"speed / memory = {speed.max() / memory:.6g} exceeds the "
                             f"cluster's declared speed_per_memory_max {cap:g}")
    pre = payload.get("needs_preprocessing", False)
    if not isinstance(pre, bool):
        _fail("needs_preprocessing", task, f"must be true or false, got {pre!r}")
    if pre and N > 0 or "vendor_price" in payload or "vendor_delay" in payload:
        price = _vector(payload, "vendor_price", task, N, whole=False)
        delay = _vector(payload, "vendor_delay", task, N, whole=True)
    else:
        price, delay = np.zeros(N), np.zeros(N, dtype=np.int64)
    return task, {"arrival": arrival, "deadline": deadline, "work": work, "memory": memory,
                  "speed": speed, "bid": bid, "needs_preprocessing": pre,
                  "vendor_price": price, "vendor_delay": delay}


def _speed(value, task: str, gpu_types: np.ndarray) -> np.ndarray:
    K = gpu_types.size
    if isinstance(value, dict):
        unknown = sorted(set(value) - set(gpu_types.tolist()))
        if unknown:
            _fail("speed", task, f"unknown GPU type {unknown[0]!r} (the cluster's: "
                                 f"{', '.join(sorted(set(gpu_types.tolist())))})")
        missing = sorted(set(gpu_types.tolist()) - set(value))
        if missing:
            _fail("speed", task, f"gives no speed for GPU type {missing[0]!r} (types: "
                                 f"{', '.join(sorted(set(gpu_types.tolist())))})")
        value = [value[g] for g in gpu_types.tolist()]
    if not isinstance(value, list) or len(value) != K:
        _fail("speed", task, f"must be a list of {K} whole numbers (one per node) or an "
                             f"object {{gpu_type: samples}}, got {value!r}")
    try:  # vectorised: the list has one entry per node
        if any(isinstance(x, bool) for x in value):
            raise TypeError
        raw = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raw = None
    bad = (np.ones(K, dtype=bool) if raw is None else
           ~np.isfinite(raw) | (raw < 0) | (raw != np.floor(raw)) | (raw > _SPEED_MAX))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        _fail("speed", task, f"node {k}: must be a whole number of samples per slot "
                             f">= 0, got {value[k]!r}")
    speed = np.array(value, dtype=SPEED_DTYPE)
    if speed.max() <= 0:
        _fail("speed", task, "is zero on every node: the task can run nowhere")
    return speed


def one_task(cluster: ScenarioArrays, fields: dict) -> ScenarioArrays:
    """The cluster's arrays with one task, ``fields`` (from :func:`parse_task`), as task 0."""
    return cluster._replace(
        arrival=np.array([fields["arrival"]], dtype=np.int64),
        deadline=np.array([fields["deadline"]], dtype=np.int64),
        memory=np.array([fields["memory"]], dtype=np.float64),
        work=np.array([fields["work"]], dtype=np.int64),
        needs_preprocessing=np.array([fields["needs_preprocessing"]], dtype=bool),
        bid=np.array([fields["bid"]], dtype=np.float64),
        speed=np.ascontiguousarray(fields["speed"][None, :]),
        vendor_price=np.ascontiguousarray(fields["vendor_price"][None, :]),
        vendor_delay=np.ascontiguousarray(fields["vendor_delay"][None, :]))


def scenario_requests(ds) -> list[dict]:
    """The tasks of a pdFTSP scenario Dataset as request bodies, ids ``task-<index>``, in
    the scenario's order (what ``lorasched loadgen`` sends)."""
    out = []
    speed = node_speed(ds).values
    for i in range(ds.sizes["task"]):
        body = {"id": f"task-{i}", "arrival": int(ds["arrival"].values[i]),
                "deadline": int(ds["deadline"].values[i]), "work": int(ds["work"].values[i]),
                "memory": float(ds["memory"].values[i]),
                "speed": [int(x) for x in speed[i]],
                "bid": float(ds["bid"].values[i]),
                "needs_preprocessing": bool(ds["needs_preprocessing"].values[i])}
        if ds.sizes.get("vendor", 0):
            body["vendor_price"] = [float(x) for x in ds["vendor_price"].values[i]]
            body["vendor_delay"] = [int(x) for x in ds["vendor_delay"].values[i]]
        out.append(body)
    return out
