"""One task as the service receives it: a JSON object, validated against the cluster and the
declared limits (:class:`ServiceInputError` names the field). The fields:
:doc:`/reference/service`.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..model import limits
from ..model.errors import InputError
from ..pdftsp.scenario import SPEED_DTYPE, ScenarioArrays, node_speed, outside_densities

FIELDS = ("id", "arrival", "deadline", "work", "memory", "speed", "bid",
          "needs_preprocessing", "vendor_price", "vendor_delay")
_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_SPEED_MAX = int(np.iinfo(SPEED_DTYPE).max)


class ServiceInputError(InputError):
    """A request the service refuses; the HTTP API answers it 422 and changes nothing.

    An :class:`~lorasched.model.errors.InputError`.

    Parameters
    ----------
    field : str
        Names what is wrong.
    message : str
        ``str(error)``: the task and the rule.
    """

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def _fail(field: str, task: str, rule: str):
    raise ServiceInputError(field, f"task {task!r}, field {field!r}: {rule}")


def _real(v) -> float | None:
    """``v`` as a finite float; None for a bool, text, null, a container, a non-finite
    number or a whole number beyond a float's range (JSON allows any number of digits)."""
    if type(v) is not int and type(v) is not float:
        return None
    try:
        x = float(v)
    except OverflowError:
        return None
    return x if math.isfinite(x) else None


def _whole(payload: dict, field: str, task: str, low: int, high: int) -> int:
    v = payload.get(field)
    x = _real(v)
    if x is None or not x.is_integer():
        _fail(field, task, f"must be a whole number, got {_show(v)}")
    n = int(v)
    if not low <= n <= high:
        _fail(field, task, f"must be in {low}..{high:,}, got {_show(v)}")
    return n


def _number(payload: dict, field: str, task: str, low: float, high: float, *,
            strict: bool) -> float:
    v = payload.get(field)
    x = _real(v)
    if x is None:
        _fail(field, task, f"must be a finite number, got {_show(v)}")
    if x < low or (strict and x == low):
        _fail(field, task, f"must be {'>' if strict else '>='} {low:g}, got {x:g}")
    if x > high:
        _fail(field, task, f"must be at most {high:g} (lorasched.model.limits), got {x:g}")
    return x


def _vector(payload: dict, field: str, task: str, n: int, high: float,
            whole: bool) -> np.ndarray:
    v = payload.get(field)
    if not isinstance(v, list) or len(v) != n:
        _fail(field, task, f"must be a list of {n} numbers (one per vendor), got {_show(v)}")
    for k, item in enumerate(v):
        x = _real(item)
        if x is None or x < 0 or x > high or (whole and not x.is_integer()):
            _fail(field, task, f"item {k} must be a {'whole ' if whole else ''}number in "
                               f"0..{high:g}, got {_show(item)}")
    return np.array(v, dtype=np.int64 if whole else np.float64)


def _show(v) -> str:
    """``repr(v)``, cut to 80 characters (a refused value may be long)."""
    try:
        text = repr(v)
    except ValueError:  # a whole number of more digits than Python prints
        text = "a number of thousands of digits"
    return text if len(text) <= 80 else text[:77] + "..."


def parse_task(payload, cluster: ScenarioArrays, gpu_types: np.ndarray) -> tuple[str, dict]:
    """``(id, fields)`` of a request body, validated (module docstring); ``fields`` holds
    the task's values as the arrays of a one-task scenario (see :func:`one_task`)."""
    if not isinstance(payload, dict):
        raise ServiceInputError("body", f"the body must be a JSON object, got "
                                        f"{type(payload).__name__}")
    unknown = sorted(set(payload) - set(FIELDS))
    task = payload.get("id")
    if not isinstance(task, str) or not _ID.fullmatch(task):
        raise ServiceInputError("id", f"field 'id': must be 1-128 characters of A-Z a-z "
                                      f"0-9 . _ : -, got {_show(task)}")
    if unknown:
        _fail(unknown[0], task, f"unknown field (known: {', '.join(FIELDS)})")
    T, N = cluster.n_slots, cluster.vendor_price.shape[1]
    arrival = _whole(payload, "arrival", task, 0, T - 1)
    deadline = _whole(payload, "deadline", task, arrival, T - 1)
    work = _whole(payload, "work", task, 1, limits.MAX_SAMPLES)
    memory = _number(payload, "memory", task, 0.0, limits.MAX_MEMORY_GB, strict=True)
    if cluster.task_memory_min is not None and memory < cluster.task_memory_min:
        _fail("memory", task, f"{memory:g} GB is below the cluster's declared "
                              f"task_memory_min {cluster.task_memory_min:g} GB")
    bid = _number(payload, "bid", task, 0.0, limits.MAX_MONEY, strict=False)
    lo, hi = cluster.value_density_min, cluster.value_density_max
    if lo is not None and hi is not None and outside_densities(bid, work, lo, hi):
        _fail("bid", task, f"bid / work = {bid / work:.6g} per sample lies outside the "
                           f"cluster's declared value densities [{lo:.6g}, {hi:.6g}]")
    speed = _speed(payload.get("speed"), task, gpu_types)
    cap = cluster.speed_per_memory_max
    if cap is not None and speed.max() / memory > cap * (1 + 1e-12):
        _fail("speed", task, f"speed / memory = {speed.max() / memory:.6g} exceeds the "
                             f"cluster's declared speed_per_memory_max {cap:g}")
    pre = payload.get("needs_preprocessing", False)
    if not isinstance(pre, bool):
        _fail("needs_preprocessing", task, f"must be true or false, got {pre!r}")
    if pre and N > 0 or "vendor_price" in payload or "vendor_delay" in payload:
        price = _vector(payload, "vendor_price", task, N, limits.MAX_MONEY, whole=False)
        delay = _vector(payload, "vendor_delay", task, N, limits.MAX_SLOTS, whole=True)
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
                             f"object {{gpu_type: samples}}, got {_show(value)}")
    numeric = all(type(x) is int or type(x) is float for x in value)  # no text, no bool
    try:  # vectorised: the list has one entry per node
        raw = np.array(value, dtype=np.float64) if numeric else None
    except OverflowError:  # a whole number beyond a float's range
        raw = None
    if raw is None:
        bad = np.array([(x := _real(v)) is None or x < 0 or x > _SPEED_MAX
                        or not x.is_integer() for v in value])
    else:
        bad = ~np.isfinite(raw) | (raw < 0) | (raw != np.floor(raw)) | (raw > _SPEED_MAX)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        _fail("speed", task, f"node {k}: must be a whole number of samples per slot in "
                             f"0..{_SPEED_MAX:,}, got {_show(value[k])}")
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
