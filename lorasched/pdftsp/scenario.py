"""The scenario: every input of the pdFTSP model (section 2.1) as one ``xarray.Dataset``, its
validation with named errors (:func:`validate`) and its plain arrays
(:func:`to_arrays`). The variables: :doc:`/model`; units and slots:
:doc:`/reference/pdftsp_online`.
"""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import numpy as np
import xarray as xr

from ..model import limits
from ..model.errors import InputError

DIMS = ("node", "slot", "task", "vendor")

#: The variables of a scenario, name -> (dims, kind, meaning with unit and paper symbol).
SCHEMA: dict[str, tuple[tuple[str, ...], str, str]] = {
    "compute_capacity": (("node",), "int", "C_kp: samples a node can process per slot"),
    "memory_capacity": (("node",), "float", "C_km: GPU memory of a node, GB"),
    "gpu_type": (("node",), "str", "GPU model of a node, e.g. 'A100-80GB'"),
    "op_cost_rate": (("node", "slot"), "float", "operating cost per sample processed"),
    "arrival": (("task",), "int", "a_i: arrival slot"),
    "deadline": (("task",), "int", "d_i: last slot the task may run in"),
    "memory": (("task",), "float", "r_i: GPU memory the task needs while it runs, GB"),
    "work": (("task",), "int", "M_i: samples to process (epochs x dataset size)"),
    "needs_preprocessing": (("task",), "bool", "f_i: the data must go to a vendor first"),
    "bid": (("task",), "float", "b_i: the bid, money"),
    "speed": (("task", "node"), "int", "s_ik: samples per slot of task i on node k"),
    "vendor_price": (("task", "vendor"), "float", "q_in: vendor n's price for task i"),
    "vendor_delay": (("task", "vendor"), "int", "h_in: vendor n's delay for task i, slots"),
}

#: ``speed`` may instead be stored per GPU type: dims (task, gpu), the ``gpu`` coordinate
#: naming the types and ``gpu_type`` naming each node's (a 20,000-node cluster's
#: per-node matrix would not fit in memory); :func:`node_speed` and :class:`NodeSpeed` give
#: the per-node view
TYPED_SPEED_DIMS = ("task", "gpu")
#: attributes a scenario must carry
#: GB of slack in memory comparisons, so that tasks that exactly fill a node (0.3 + 2.5 GB
#: on a 2.8 GB node) are not lost to floating-point rounding; the kernels use the same value
MEMORY_TOLERANCE = 1e-9
#: relative slack of the declared value densities: a bid drawn at v_min times the work,
#: divided back by the work, may land an ulp below v_min
DENSITY_TOLERANCE = 1e-9

#: dtype of ``s_ik`` in :class:`ScenarioArrays`: speeds are samples per slot, far below 2**31,
#: and the matrix is the largest array of a scenario (task x node: at 10x the paper's day,
#: 115k x 2,000 cells are 0.92 GB as int32, 1.84 GB as int64); every kernel computes in int64
SPEED_DTYPE = np.int32
SPEED_MAX = int(np.iinfo(SPEED_DTYPE).max)

REQUIRED_ATTRS = {"base_model_memory": "r_b: GPU memory of the shared base model, GB"}


class ScenarioArrays(NamedTuple):
    """A validated scenario as plain numpy arrays: everything an algorithm needs.

    The arrays are C-contiguous with fixed dtypes, so that no algorithm reads the Dataset
    or its attributes. K nodes, T slots, I tasks, N vendors; build one with
    :func:`to_arrays`.

    Parameters
    ----------
    compute_capacity : numpy.ndarray
        int64[K], ``C_kp``: samples a node can process per slot.
    memory_capacity : numpy.ndarray
        float64[K], ``C_km``: GPU memory of a node, GB.
    base_model_memory : float
        ``r_b``: GPU memory of the shared base model, GB.
    op_cost_rate : numpy.ndarray
        float64[K, T]: operating cost per sample processed.
    arrival : numpy.ndarray
        int64[I], ``a_i``: arrival slot.
    deadline : numpy.ndarray
        int64[I], ``d_i``: last slot the task may run in.
    memory : numpy.ndarray
        float64[I], ``r_i``: GPU memory the task needs while it runs, GB.
    work : numpy.ndarray
        int64[I], ``M_i``: samples to process.
    needs_preprocessing : numpy.ndarray
        bool[I], ``f_i``: the data must go to a vendor first.
    bid : numpy.ndarray
        float64[I], ``b_i``: the bid, money.
    speed : numpy.ndarray or NodeSpeed
        ``s_ik``, samples per slot: int32[I, K] (``SPEED_DTYPE``), or stored per GPU
        type and read as that matrix.
    vendor_price : numpy.ndarray
        float64[I, N], ``q_in``: vendor n's price for task i.
    vendor_delay : numpy.ndarray
        int64[I, N], ``h_in``: vendor n's delay for task i, slots.
    value_density_min, value_density_max : float or None, optional
        ``v_min``, ``v_max``: declared bounds on the value density ``b_i / M_i``, money
        per sample.
    task_memory_min : float or None, optional
        ``r_min``: declared lower bound on the task memory ``r_i``, GB.
    speed_per_memory_max : float or None, optional
        Declared upper bound on ``s_ik / r_i`` over the cluster's GPU types and the
        model's micro-batches, samples per slot per GB.

    Notes
    -----
    The declared bounds (``DECLARED_ATTRS``) are the scenario's optional attributes of the
    same names, what an operator would post: :mod:`lorasched.pdftsp.auction` derives alpha
    and beta of eqs. (7)-(8) from them, ``lorasched.pdftsp.pricing`` the baselines'
    posted price; ``None`` where the scenario declares none.
    """

    #: optional scenario attributes carried as fields of the same name (name -> meaning)
    DECLARED_ATTRS = {
        "value_density_min": "v_min: declared lower bound on the value density b_i / M_i, "
                             "money per sample",
        "value_density_max": "v_max: declared upper bound on the value density b_i / M_i, "
                             "money per sample",
        "task_memory_min": "r_min: declared lower bound on the task memory r_i, GB",
        "speed_per_memory_max": "declared upper bound on s_ik / r_i over the cluster's GPU "
                                "types and the model's micro-batches, samples per slot per GB",
    }

    compute_capacity: np.ndarray  # int64[K]
    memory_capacity: np.ndarray  # float64[K]
    base_model_memory: float  # r_b, GB
    op_cost_rate: np.ndarray  # float64[K, T]
    arrival: np.ndarray  # int64[I]
    deadline: np.ndarray  # int64[I]
    memory: np.ndarray  # float64[I]
    work: np.ndarray  # int64[I]
    needs_preprocessing: np.ndarray  # bool[I]
    bid: np.ndarray  # float64[I]
    speed: np.ndarray | NodeSpeed  # int32[I, K] (SPEED_DTYPE), or stored per GPU type
    vendor_price: np.ndarray  # float64[I, N]
    vendor_delay: np.ndarray  # int64[I, N]
    value_density_min: float | None = None  # v_min, money per sample (DECLARED_ATTRS)
    value_density_max: float | None = None  # v_max, money per sample
    task_memory_min: float | None = None  # r_min, GB
    speed_per_memory_max: float | None = None  # max s_ik / r_i, samples per slot per GB

    @property
    def n_nodes(self) -> int:
        """K, the number of nodes."""
        return self.compute_capacity.shape[0]

    @property
    def n_slots(self) -> int:
        """T, the number of slots."""
        return self.op_cost_rate.shape[1]

    @property
    def n_tasks(self) -> int:
        """I, the number of tasks."""
        return self.arrival.shape[0]

    @property
    def n_vendors(self) -> int:
        """N, the number of vendors."""
        return self.vendor_price.shape[1]

    @property
    def usable_memory(self) -> np.ndarray:
        """The memory left to LoRA tasks on each node, ``C_km - r_b`` (4g), float64[K]."""
        return self.memory_capacity - self.base_model_memory

    def op_cost(self, task, node, slot):
        """Operating cost ``e_ikt = s_ik * op_cost_rate[k, t]`` of task ``i`` in cell ``(k, t)``.

        Parameters
        ----------
        task, node, slot : int or numpy.ndarray
            The indices; arrays broadcast (numpy broadcasting), e.g. a schedule's cells.

        Returns
        -------
        float or numpy.ndarray
            ``e_ikt``, money.
        """
        return self.speed[task, node] * self.op_cost_rate[node, slot]

    def residual(self) -> tuple[np.ndarray, np.ndarray]:
        """Fresh residual capacities of the empty cluster.

        Returns
        -------
        compute : numpy.ndarray
            int64[K, T], ``C_kp`` in every slot, samples (4f).
        memory : numpy.ndarray
            float64[K, T], ``C_km - r_b`` in every slot, GB (4g).
        """
        T = self.n_slots
        compute = np.repeat(np.asarray(self.compute_capacity, dtype=np.int64)[:, None], T,
                            axis=1)
        memory = np.repeat(np.asarray(self.usable_memory, dtype=np.float64)[:, None], T,
                           axis=1)
        return compute, memory


def _first_bad(mask: np.ndarray, dims: tuple[str, ...]) -> str:
    """Describe the first True entry of ``mask`` as 'task 3, node 1'."""
    idx = np.argwhere(mask)[0]
    return ", ".join(f"{d} {int(j)}" for d, j in zip(dims, idx, strict=True))


def _fail(name: str, mask: np.ndarray, dims: tuple[str, ...], what: str) -> None:
    if mask.any():
        n = int(mask.sum())
        more = f" ({n} items in all)" if n > 1 else ""
        raise InputError(f"scenario variable '{name}' at {_first_bad(mask, dims)}: {what}{more}")


def validate(ds: xr.Dataset) -> None:
    """Check that ``ds`` is a well-formed pdFTSP scenario.

    Parameters
    ----------
    ds : xarray.Dataset
        The scenario: the variables of :data:`SCHEMA` on the dimensions ``node``,
        ``slot``, ``task`` and ``vendor``, and the attribute ``base_model_memory``.

    Raises
    ------
    InputError
        A ``ValueError`` whose message names the variable and the first offending item
        (e.g. ``task 17``), so a bad row in a user's trace can be found and fixed without
        losing the rest: a missing variable or attribute, wrong dims, a value out of
        range or past the declared limits, repeated task ids, tasks out of arrival
        order, a bid outside the declared value densities.
    """
    if not isinstance(ds, xr.Dataset):
        raise InputError(f"a scenario must be an xarray.Dataset, got {type(ds).__name__}")
    for attr, meaning in REQUIRED_ATTRS.items():
        if attr not in ds.attrs:
            raise InputError(f"scenario attribute '{attr}' is missing ({meaning})")
    r_b = ds.attrs["base_model_memory"]
    try:
        r_b = float(r_b)
    except (TypeError, ValueError):
        raise InputError(
            f"scenario attribute 'base_model_memory' must be a number, got {r_b!r}") from None
    if not np.isfinite(r_b) or r_b < 0:
        raise InputError(f"scenario attribute 'base_model_memory' must be a finite number "
                         f">= 0, got {r_b}")

    for dim, limit in (("node", limits.MAX_NODES), ("slot", limits.MAX_SLOTS)):
        limits.at_most([ds.sizes.get(dim, 0)], limit, f"scenario dimension {dim!r}",
                       lambda i: "its size")
    limits.at_most([ds.sizes.get("node", 0) * ds.sizes.get("slot", 0)],
                   limits.MAX_NODE_SLOTS, "scenario dimensions 'node' x 'slot'",
                   lambda i: "their product")
    for name, (dims, kind, meaning) in SCHEMA.items():
        if name not in ds:
            raise InputError(f"scenario variable '{name}' is missing ({meaning})")
        var = ds[name]
        if name == "speed" and var.dims == TYPED_SPEED_DIMS:
            dims = TYPED_SPEED_DIMS
            _check_gpu_coordinate(ds)
        if var.dims != dims:
            raise InputError(
                f"scenario variable '{name}' has dims {var.dims}, expected {dims} ({meaning})"
            )
        values = var.values
        if kind == "str":
            continue
        if kind == "bool":
            if values.dtype != bool and not np.isin(values, (0, 1)).all():
                _fail(name, ~np.isin(values, (0, 1)), dims, "must be 0/1 or boolean")
            continue
        if not np.issubdtype(values.dtype, np.number):
            raise InputError(f"scenario variable '{name}' must be numeric, got {values.dtype}")
        if np.issubdtype(values.dtype, np.complexfloating):  # astype(float) drops the imag
            raise InputError(f"scenario variable '{name}' must be real, got {values.dtype}")
        if np.issubdtype(values.dtype, np.integer):  # finite and whole already: no float copy
            # (s_ik at 10x scale is 0.9 GB: the item-by-item mask is built only on failure)
            if values.size and values.min() < 0:
                _fail(name, values < 0, dims, "is negative")
            if kind == "int" and not np.issubdtype(values.dtype, np.signedinteger):
                _fail(name, values >= np.uint64(2**63), dims, "is too large for a 64-bit integer")
            if name == "speed" and values.size and values.max() > SPEED_MAX:
                _fail(name, values > SPEED_MAX, dims,
                      f"is too large (at most {SPEED_MAX:,} samples per slot)")
            continue
        values = values.astype(float)
        _fail(name, ~np.isfinite(values), dims, "is NaN or infinite")
        _fail(name, values < 0, dims, "is negative")
        if kind == "int":
            _fail(name, values != np.round(values), dims, "must be a whole number")
            if not np.issubdtype(var.dtype, np.signedinteger):  # floats, uint64: cast safely
                _fail(name, values >= 2.0**63, dims, "is too large for a 64-bit integer")
            if name == "speed":
                _fail(name, values > SPEED_MAX, dims,
                      f"is too large (at most {SPEED_MAX:,} samples per slot)")

    n_slots = ds.sizes["slot"]
    task = ("task",)
    arrival = ds["arrival"].values.astype(np.int64)
    deadline = ds["deadline"].values.astype(np.int64)
    _fail("arrival", arrival >= n_slots, task, f"is past the last slot ({n_slots - 1})")
    _fail("deadline", deadline < arrival, task, "is before the task's arrival")
    _fail("deadline", deadline >= n_slots, task, f"is past the last slot ({n_slots - 1})")
    _fail("arrival", np.diff(arrival, prepend=arrival[:1]) < 0, task,
          "tasks must be ordered by arrival")
    _fail("work", ds["work"].values <= 0, task, "must be positive")
    _fail("compute_capacity", ds["compute_capacity"].values <= 0, ("node",), "must be positive")

    usable = ds["memory_capacity"].values.astype(float) - r_b
    _fail("memory_capacity", usable < 0, ("node",),
          f"is smaller than the base model (base_model_memory = {r_b} GB)")
    memory = ds["memory"].values.astype(float)
    _fail("memory", memory > usable.max(initial=-np.inf) + MEMORY_TOLERANCE, task,
          "plus the base model exceeds the memory of every node")
    speed = ds["speed"].values  # none is negative: zero everywhere <=> its largest is 0
    if ds["speed"].dims == TYPED_SPEED_DIMS:  # only the GPU types some node has count
        speed = speed[:, np.unique(_node_types(ds))]
    _fail("speed", speed.max(axis=1, initial=0) <= 0, task, "is zero on every node")
    _check_ids(ds)
    _check_limits(ds)
    _check_declared(ds)


#: variable -> the limit of :mod:`lorasched.model.limits` its every value stays within
LIMITED = {"compute_capacity": limits.MAX_SAMPLES_PER_SLOT,
           "memory_capacity": limits.MAX_MEMORY_GB, "op_cost_rate": limits.MAX_MONEY,
           "memory": limits.MAX_MEMORY_GB, "work": limits.MAX_SAMPLES,
           "bid": limits.MAX_MONEY, "vendor_price": limits.MAX_MONEY,
           "vendor_delay": limits.MAX_SLOTS}


def outside_densities(bid, work, lo: float, hi: float) -> np.ndarray:
    """True where a positive bid's value density ``b_i / M_i`` lies outside the declared
    ``[lo, hi]`` (relative slack :data:`DENSITY_TOLERANCE`); a bid of 0 asks for nothing."""
    bid = np.asarray(bid, dtype=float)
    density = bid / np.asarray(work, dtype=float)
    return (bid > 0) & ((density < lo * (1 - DENSITY_TOLERANCE))
                        | (density > hi * (1 + DENSITY_TOLERANCE)))


def _check_ids(ds: xr.Dataset) -> None:
    """Task ids (the ``task`` coordinate) name one task each."""
    if "task" not in ds.coords:
        return
    ids = ds["task"].values
    _, first, counts = np.unique(ids, return_index=True, return_counts=True)
    if (counts > 1).any():
        dup = int(np.sort(first[counts > 1])[0])
        later = int(np.flatnonzero(ids == ids[dup])[1])
        raise InputError(f"scenario coordinate 'task' at task {later}: id {ids[dup].item()!r} "
                         f"repeats task {dup}'s (task ids must be unique)")


def _check_limits(ds: xr.Dataset) -> None:
    """Every magnitude within its declared limit (:data:`LIMITED`), before any work."""
    for name, limit in LIMITED.items():
        values = ds[name].values
        if values.size and values.max() > limit:
            limits.at_most(values, limit, f"scenario variable {name!r}",
                           _item_name(ds[name].dims, values.shape))


def _item_name(dims: tuple[str, ...], shape: tuple[int, ...]):
    """``item(i)`` naming the i-th value of a flattened array as 'task 3, vendor 1'."""
    def item(i: int) -> str:
        return ", ".join(f"{d} {int(j)}" for d, j in
                         zip(dims, np.unravel_index(i, shape), strict=True))
    return item


def _check_declared(ds: xr.Dataset) -> None:
    """The declared bounds (:attr:`ScenarioArrays.DECLARED_ATTRS`) are positive finite
    numbers, ``value_density_min <= value_density_max``, and every positive bid's value
    density ``b_i / M_i`` lies within them."""
    declared = {}
    for name in ScenarioArrays.DECLARED_ATTRS:
        if name not in ds.attrs:
            continue
        v = ds.attrs[name]
        if (isinstance(v, bool) or not isinstance(v, numbers.Real | np.number)
                or not math.isfinite(float(v)) or float(v) <= 0):
            raise InputError(f"scenario attribute {name!r} must be a positive finite number, "
                             f"got {v!r}")
        declared[name] = float(v)
    lo, hi = declared.get("value_density_min"), declared.get("value_density_max")
    if lo is None or hi is None:
        return
    if lo > hi:
        raise InputError(f"scenario attributes 'value_density_min' ({lo:g}) and "
                         f"'value_density_max' ({hi:g}): the minimum exceeds the maximum")
    _fail("bid", outside_densities(ds["bid"].values, ds["work"].values, lo, hi),
          ("task",), f"bid / work lies outside the declared value densities "
                     f"[{lo:.6g}, {hi:.6g}] (attributes 'value_density_min', "
                     f"'value_density_max')")


def _node_types(ds: xr.Dataset) -> np.ndarray:
    """int64[K]: each node's position in the ``gpu`` coordinate of a typed-speed scenario."""
    names = [str(g) for g in ds["gpu"].values]
    where = {g: j for j, g in enumerate(names)}
    return np.fromiter((where[str(t)] for t in ds["gpu_type"].values), dtype=np.int64,
                       count=ds.sizes["node"])


def _check_gpu_coordinate(ds: xr.Dataset) -> None:
    """A typed-speed scenario names every node's GPU type in its ``gpu`` coordinate, once."""
    if "gpu" not in ds.coords:
        raise InputError("scenario variable 'speed' has dims ('task', 'gpu') but the scenario "
                         "has no 'gpu' coordinate naming the GPU types")
    names = [str(g) for g in ds["gpu"].values]
    if len(set(names)) != len(names):
        raise InputError(f"scenario coordinate 'gpu' names a GPU type twice: {names}")
    known = set(names)
    for k, t in enumerate(ds["gpu_type"].values):
        if str(t) not in known:
            raise InputError(f"scenario variable 'gpu_type' at node {k}: {str(t)!r} is not in "
                             f"the 'gpu' coordinate of 'speed' ({', '.join(names)})")


def node_speed(ds: xr.Dataset) -> xr.DataArray:
    """``s_ik`` of a scenario (or result) as a (task, node) array, whichever layout the
    scenario stores (:data:`TYPED_SPEED_DIMS` or per node). Builds the whole matrix: for
    large scenarios index :attr:`ScenarioArrays.speed` instead."""
    speed = ds["speed"]
    if speed.dims != TYPED_SPEED_DIMS:
        return speed
    values = speed.values[:, _node_types(ds)]
    return xr.DataArray(values, dims=("task", "node"),
                        coords={"task": ds["task"], "node": ds["node"]})


class NodeSpeed:
    """``s_ik`` stored per (task, GPU type) and read as the (task, node) matrix the
    algorithms index: ``by_type[i, g]`` with ``node_type[k]`` the type of node k.

    Indexing returns numpy arrays exactly as the matrix would: ``speed[i]`` (task i on every
    node; read-only, shared by the tasks of one class), ``speed[i, nodes]``,
    ``speed[tasks, nodes]`` (pairs), ``speed[:, k]``; ``np.asarray(speed)`` builds the
    whole matrix (small instances only: at K = 20,000 nodes and 1.15 M tasks it would take
    92 GB, the table 1.15 M x the number of types)."""

    __slots__ = ("by_type", "node_type", "_rows")
    ndim = 2
    #: at most this many distinct rows are kept (:meth:`__getitem__`)
    ROW_CACHE = 256

    def __init__(self, by_type: np.ndarray, node_type: np.ndarray):
        self.by_type = by_type
        self.node_type = node_type
        self._rows: dict[bytes, np.ndarray] = {}

    def _row(self, i) -> np.ndarray:
        """Task i's per-node speeds, read-only: tasks with the same speed per type (one
        class of model and micro-batch) share one array, so building the O(K) row happens
        once per class, not once per decision."""
        key = self.by_type[i].tobytes()
        row = self._rows.get(key)
        if row is None:
            row = self.by_type[i][self.node_type]
            if len(self._rows) < self.ROW_CACHE:
                row.flags.writeable = False
                self._rows[key] = row
        return row

    @property
    def shape(self) -> tuple[int, int]:
        return (self.by_type.shape[0], self.node_type.shape[0])

    @property
    def dtype(self):
        return self.by_type.dtype

    @property
    def size(self) -> int:
        return self.shape[0] * self.shape[1]

    def __len__(self) -> int:
        return self.by_type.shape[0]

    def __getitem__(self, key):
        if isinstance(key, tuple):
            if len(key) != 2:
                raise IndexError(f"speed takes (task, node) indices, got {len(key)}")
            tasks, nodes = key
            return self.by_type[tasks, self.node_type[nodes]]
        if isinstance(key, (int, np.integer)):
            return self._row(key)
        return self.by_type[key][..., self.node_type]

    def __array__(self, dtype=None, copy=None):
        out = self.by_type[:, self.node_type]
        return out if dtype is None else out.astype(dtype)

    def max(self, axis=None, **kwargs):
        """As ``ndarray.max`` of the matrix (only the types some node has count)."""
        used = self.by_type[:, np.unique(self.node_type)]
        if axis in (1, -1) or axis is None:
            return used.max(axis=axis, **kwargs)
        return np.asarray(self).max(axis=axis, **kwargs)


#: :func:`validate`, under a name that :func:`to_arrays`'s argument ``validate`` does not hide
_validate = validate


def to_arrays(ds: xr.Dataset, validate: bool = True) -> ScenarioArrays:
    """A scenario's plain-array form, validated first.

    Parameters
    ----------
    ds : xarray.Dataset
        A pdFTSP scenario.
    validate : bool, optional
        Run :func:`validate` first (default True).

    Returns
    -------
    ScenarioArrays
        The arrays, with the declared bounds taken from the scenario's attributes
        (``None`` where absent).

    Raises
    ------
    InputError
        If ``validate`` and the scenario breaks its schema (:func:`validate`).
    """
    if validate:
        _validate(ds)

    def arr(name, dtype):
        return np.ascontiguousarray(ds[name].values, dtype=dtype)

    declared = {name: float(ds.attrs[name]) if name in ds.attrs else None
                for name in ScenarioArrays.DECLARED_ATTRS}
    return ScenarioArrays(
        compute_capacity=arr("compute_capacity", np.int64),
        memory_capacity=arr("memory_capacity", np.float64),
        base_model_memory=float(ds.attrs["base_model_memory"]),
        op_cost_rate=arr("op_cost_rate", np.float64),
        arrival=arr("arrival", np.int64),
        deadline=arr("deadline", np.int64),
        memory=arr("memory", np.float64),
        work=arr("work", np.int64),
        needs_preprocessing=arr("needs_preprocessing", np.bool_),
        bid=arr("bid", np.float64),
        speed=(arr("speed", SPEED_DTYPE)  # no copy when the dataset holds int32
               if ds["speed"].dims != TYPED_SPEED_DIMS
               else NodeSpeed(arr("speed", SPEED_DTYPE), _node_types(ds))),
        vendor_price=arr("vendor_price", np.float64),
        vendor_delay=arr("vendor_delay", np.int64),
        **declared,
    )
