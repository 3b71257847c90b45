"""Synthetic workloads (section 5.1): :func:`synthetic_scenario` builds a validated, seeded
scenario: cluster, arrivals (Poisson, a series or a trace day), task sizes, valuations,
vendors, deadlines and operating cost. Every modelling choice:
:doc:`/reference/pdftsp_workload`.
"""

from __future__ import annotations

import json
import os
from typing import NamedTuple

import numpy as np
import xarray as xr

from ..model import limits, profiles
from ..model import traces as _traces
from ..model.errors import InputError, real_number, whole_number
from ..model.libm import libm_exp, libm_log
from .node_profile import NodeProfile
from .scenario import SPEED_DTYPE, SPEED_MAX, validate

LOADS = {"light": 30.0, "medium": 50.0, "high": 80.0}
DEADLINE_POLICIES = ("slack", "tight", "loose", "fixed", "end_of_day")
SLACK_RANGES = {"slack": (1.5, 3.0), "tight": (1.0, 1.5), "loose": (3.0, 6.0)}
EPOCHS = (1, 5)
DATASET_SAMPLES = (5_000, 20_000)
VALUE_SPREAD = 2.0  # values per sample lie in [v_ref / 2, 2 v_ref]
VENDOR_DELAY_SLOTS = (1.0, 18.0)
VENDOR_PRICE_SHARE = 0.2  # mid vendor's price ~ this share of a typical task's value
FIXED_DEADLINE_HOURS = 6.0
TASK_SIZES = ("paper", "trace")
#: how the generated scenario stores s_ik (see synthetic_scenario)
SPEED_LAYOUTS = ("type", "node")
#: the largest co-location gain, value ratio and operating-cost scale a scenario accepts
MAX_COLOCATION_GAIN, MAX_VALUE_RATIO, MAX_OPERATING_COST_SCALE = 10.0, 1e4, 100.0
WORK_RANGE = (EPOCHS[0] * DATASET_SAMPLES[0], EPOCHS[1] * DATASET_SAMPLES[1])  # [5k, 100k]


def gpu_types(nodes: int, gpu: str) -> list[str]:
    """The GPU model of each node: all one type, or alternating for ``"mix"``."""
    if gpu == "mix":
        names = list(profiles.GPUS)
        return [names[k % len(names)] for k in range(nodes)]
    name = profiles.GPU_ALIASES.get(gpu, gpu)
    if name not in profiles.GPUS:
        choices = sorted(profiles.GPU_ALIASES) + sorted(profiles.GPUS) + ["mix"]
        raise InputError(f"gpu must be one of {choices}, got {gpu!r}")
    return [name] * nodes


def electricity_price(slots: int, slot_minutes: float) -> np.ndarray:
    """Diurnal electricity price per kWh for each slot (mean ELECTRICITY_USD_PER_KWH)."""
    hours = (np.arange(slots) + 0.5) * slot_minutes / 60.0
    shape = 1.0 + 0.4 * np.sin(2 * np.pi * (hours - 12.0) / 24.0)  # min 06:00, max 18:00
    return profiles.ELECTRICITY_USD_PER_KWH * shape


def reference_value_per_sample(model: profiles.ModelProfile = profiles.GPT2_XL,
                               slot_minutes: float = 10) -> float:
    """v_ref: on-demand A100 price per GPU-hour / samples an A100 processes per hour."""
    a100 = profiles.GPUS["A100-80GB"]
    per_hour = profiles.node_capacity(a100, model, slot_minutes) * 60.0 / slot_minutes
    return profiles.GPU_HOUR_USD / per_hour


def _load_mean(load) -> float:
    mean = LOADS.get(load, load) if isinstance(load, str) else load
    if isinstance(mean, str) or not np.isfinite(mean) or mean < 0:
        raise InputError(f"load must be one of {sorted(LOADS)} or a mean count >= 0, got "
                         f"{load!r}")
    return float(mean)


def _arrival_counts(rng, load, arrivals, slots) -> np.ndarray:
    if arrivals is not None:
        counts = np.asarray(arrivals)
        if counts.ndim != 1 or counts.shape[0] != slots:
            raise InputError(f"arrivals must be a 1-d series of {slots} per-slot counts, got "
                             f"shape {counts.shape}")
        bad = np.flatnonzero(~np.isfinite(counts.astype(float)) | (counts < 0)
                             | (counts != np.round(counts)))
        if bad.size:
            raise InputError(f"arrivals at slot {bad[0]}: {counts[bad[0]]} is not a "
                             "non-negative whole number")
        return counts.astype(np.int64)
    return rng.poisson(_load_mean(load), size=slots)


def _trace_work(day, batch, epochs, model, slot_minutes):
    """Task sizes from the sampled jobs' GPU time (module docstring); clipped shares."""
    if day.duration_s is None or day.num_gpus is None:
        raise InputError(f"task_sizes='trace' needs the columns duration_s and num_gpus, "
                         f"which trace {day.name!r} lacks")
    a100 = profiles.GPUS["A100-80GB"]
    per_second = np.array([profiles.task_speed(a100, b, model, slot_minutes)
                           for b in batch], dtype=float) / (slot_minutes * 60.0)
    raw = day.duration_s * day.num_gpus * per_second
    lo, hi = WORK_RANGE
    n = max(raw.size, 1)
    clipped = (float((raw < lo).sum() / n), float((raw > hi).sum() / n))
    work = np.clip(raw, lo, hi)
    dataset = np.minimum(np.ceil(work / epochs), hi // epochs).astype(np.int64)
    return epochs * dataset, dataset, clipped


class _Cluster(NamedTuple):
    """The nodes and the slots: GPU type, C_kp, C_km, electricity price, op_cost_rate."""

    types: list[str]
    capacity: np.ndarray
    memory: np.ndarray
    price: np.ndarray
    op_cost_rate: np.ndarray


class _Speeds(NamedTuple):
    """s_ik per (task, GPU type) and r_i, from the micro-batch of each task."""

    table: dict  # (GPU type, micro-batch) -> s_ik
    kinds: list[str]  # the cluster's GPU types, sorted: the columns of by_type
    col: np.ndarray  # node k -> the column of its GPU type
    by_type: np.ndarray  # (task, GPU type) s_ik, SPEED_DTYPE
    memory: np.ndarray  # r_i


def _checked_arguments(nodes, slots, vendors, slot_minutes, deadline_policy,
                       preprocessing_share, speed_layout, task_sizes, trace, arrivals):
    """The validated (nodes, slots, vendors, slot_minutes, preprocessing_share)."""
    nodes = whole_number("nodes", nodes, low=1)
    slots = whole_number("slots", slots, low=1)
    vendors = whole_number("vendors", vendors, low=0)
    slot_minutes = real_number("slot_minutes", slot_minutes)
    if slot_minutes <= 0:
        raise InputError(f"slot_minutes must be > 0, got {slot_minutes}")
    limits.at_most([nodes], limits.MAX_NODES, "nodes", lambda i: f"{nodes} nodes")
    limits.at_most([slots], limits.MAX_SLOTS, "slots", lambda i: f"{slots} slots")
    limits.at_most([nodes * slots], limits.MAX_NODE_SLOTS, "nodes x slots",
                   lambda i: f"{nodes} x {slots}")
    if deadline_policy not in DEADLINE_POLICIES:
        raise InputError(f"deadline_policy must be one of {DEADLINE_POLICIES}, got "
                         f"{deadline_policy!r}")
    if preprocessing_share is None:  # nobody needs a vendor when there is none
        preprocessing_share = 0.5 if vendors > 0 else 0.0
    preprocessing_share = real_number("preprocessing_share", preprocessing_share)
    if not 0.0 <= preprocessing_share <= 1.0:
        raise InputError(f"preprocessing_share must be in [0, 1], got {preprocessing_share}")
    if vendors == 0 and preprocessing_share > 0:
        raise InputError("vendors=0 needs preprocessing_share=0 (nobody could pre-process)")
    if speed_layout not in SPEED_LAYOUTS:
        raise InputError(f"speed_layout must be one of {SPEED_LAYOUTS}, got {speed_layout!r}")
    if task_sizes not in TASK_SIZES:
        raise InputError(f"task_sizes must be one of {TASK_SIZES}, got {task_sizes!r}")
    if trace is not None and arrivals is not None:
        raise InputError("give either trace= or arrivals=, not both (a trace sets the "
                         "arrivals)")
    if task_sizes == "trace" and trace is None:
        raise InputError("task_sizes='trace' needs a trace= to take the job sizes from")
    return nodes, slots, vendors, slot_minutes, preprocessing_share


def _colocated_capacity(capacity, alone, gain) -> np.ndarray:
    """C_kp when a full node processes ``gain`` times the samples of its fastest task
    alone (``alone``: max_i s_ik of each node); None keeps ``capacity``."""
    if gain is None:
        return capacity
    return np.floor(gain * np.asarray(alone, dtype=float)).astype(np.int64)


def _checked_model_numbers(colocation_gain, value_ratio, operating_cost_scale):
    """The validated (colocation_gain, value_ratio, operating_cost_scale)."""
    if colocation_gain is not None:
        colocation_gain = real_number("colocation_gain", colocation_gain)
        if not 1.0 <= colocation_gain <= MAX_COLOCATION_GAIN:
            raise InputError(f"colocation_gain must be in [1, {MAX_COLOCATION_GAIN:g}] "
                             f"(a full node's samples per slot over its fastest task's), got "
                             f"{colocation_gain}")
    if value_ratio is not None:
        value_ratio = real_number("value_ratio", value_ratio)
        if not 1.0 <= value_ratio <= MAX_VALUE_RATIO:
            raise InputError(f"value_ratio must be in [1, {MAX_VALUE_RATIO:g}] "
                             f"(v_max / v_min), got {value_ratio}")
    operating_cost_scale = real_number("operating_cost_scale", operating_cost_scale)
    if not 0.0 <= operating_cost_scale <= MAX_OPERATING_COST_SCALE:
        raise InputError(f"operating_cost_scale must be in [0, "
                         f"{MAX_OPERATING_COST_SCALE:g}], got {operating_cost_scale}")
    return colocation_gain, value_ratio, operating_cost_scale


def _cluster(nodes, gpu, model, slots, slot_minutes, node=None, colocation_gain=None,
             operating_cost_scale=1.0) -> _Cluster:
    """GPU types, capacities C_kp and C_km, and op_cost_rate (money per sample); every node
    the ``node`` profile's GPU where it is given. ``colocation_gain`` sets C_kp from the
    fastest task alone (:func:`_colocated_capacity`); ``operating_cost_scale`` multiplies
    the operating cost."""
    price = electricity_price(slots, slot_minutes)
    if node is None:
        types = gpu_types(nodes, gpu)
        gpus = [profiles.GPUS[t] for t in types]
        capacity = np.array([profiles.node_capacity(g, model, slot_minutes) for g in gpus])
        alone = [max(profiles.task_speed(g, b, model, slot_minutes)
                     for b in model.micro_batches) for g in gpus]
        memory_cap = np.array([g.memory_gb for g in gpus])
        power = np.array([profiles.power_kw(g) for g in gpus])
    else:
        types = [node.label] * nodes
        capacity = np.full(nodes, int(node.capacity))
        alone = np.full(nodes, max(int(node.speed[b]) for b in model.micro_batches))
        memory_cap = np.full(nodes, float(node.memory_capacity_gb))
        power = np.full(nodes, node.power_w / 1000.0)
    capacity = _colocated_capacity(capacity, alone, colocation_gain)
    slot_hours = slot_minutes / 60.0
    op_cost_rate = (power * profiles.PUE)[:, None] * price[None, :] * slot_hours
    op_cost_rate = op_cost_rate / capacity[:, None]
    if operating_cost_scale != 1.0:
        op_cost_rate = op_cost_rate * operating_cost_scale
    return _Cluster(types, capacity, memory_cap, price, op_cost_rate)


def _arrivals(rng, load, arrivals, trace, trace_day, slots, slot_minutes):
    """a_i of every task, in slot order, and the trace day (None without a trace)."""
    day = None
    if trace is None:
        counts = _arrival_counts(rng, load, arrivals, slots)
    else:  # the trace day's jobs are sampled from rng first, as trace_day(seed=seed) would
        day = _traces.trace_day(trace, mean=_load_mean(load), day=trace_day, slots=slots,
                                slot_minutes=slot_minutes, seed=rng)
        counts = day.counts
    return np.repeat(np.arange(slots), counts), day


def _task_sizes(rng, n, model, task_sizes, day, slot_minutes):
    """(epochs, dataset, M_i, micro-batch, clipped shares or None) of the n tasks."""
    epochs = rng.integers(EPOCHS[0], EPOCHS[1] + 1, size=n)
    dataset = rng.integers(DATASET_SAMPLES[0], DATASET_SAMPLES[1] + 1, size=n)
    work = epochs * dataset
    batch = rng.choice(np.array(model.micro_batches), size=n)
    clipped = None
    if task_sizes == "trace":
        work, dataset, clipped = _trace_work(day, batch, epochs, model, slot_minutes)
    return epochs, dataset, work, batch, clipped


def _speeds(types, batch, model, slot_minutes, node=None) -> _Speeds:
    """s_ik of every task on every GPU type and r_i, from each task's micro-batch (the
    ``node`` profile's, where it is given)."""
    n = batch.shape[0]
    if node is None:
        speed_table = {(t, b): profiles.task_speed(profiles.GPUS[t], b, model, slot_minutes)
                       for t in set(types) for b in model.micro_batches}
    else:
        speed_table = {(t, b): int(node.speed[b]) for t in set(types)
                       for b in model.micro_batches}
    # s_ik depends on (micro-batch of i, GPU type of k) only: index a small table rather than
    # build n x K Python ints (at K = 2,000 and 115k tasks that list took 45 s and 4 GB)
    batches = np.array(model.micro_batches)
    kinds = sorted(set(types))
    table = np.array([[speed_table[(t, b)] for t in kinds] for b in batches], dtype=np.int64)
    if table.max(initial=0) > SPEED_MAX:
        raise InputError(f"a task speed of {table.max():,} samples per slot exceeds "
                         f"{SPEED_MAX:,}: use shorter slots (slot_minutes)")
    table = table.astype(SPEED_DTYPE)  # s_ik is stored as SPEED_DTYPE: no copy in to_arrays
    memory_of = np.array([_task_memory(b, model, node) for b in batches], dtype=float)
    position = {int(b): j for j, b in enumerate(batches)}
    row = np.fromiter((position[b] for b in batch.tolist()), dtype=np.int64, count=n)
    col = np.array([kinds.index(t) for t in types], dtype=np.int64)
    speed_by_type = table[row]  # (task, gpu): s_ik of every type, kinds' order
    memory = memory_of[row].reshape(n)
    return _Speeds(speed_table, kinds, col, speed_by_type, memory)


def _task_memory(batch: int, model, node=None) -> float:
    """r_i of a task with micro-batch ``batch``: the published model's, or the measured."""
    return profiles.task_memory(batch, model) if node is None else float(node.memory_gb[batch])


def _bids(rng, work, v_min, v_max) -> np.ndarray:
    """b_i = v_i * M_i with the value per sample v_i log-uniform in [v_min, v_max]."""
    log_min, log_max = libm_log([v_min, v_max])  # the C library's: the same on every CPU
    value_density = libm_exp(rng.uniform(log_min, log_max, size=work.shape[0]))
    return value_density * work


def _vendors(rng, dataset, vendors, v_ref):
    """(q_in, h_in): each vendor's price and delay for each task's dataset."""
    n = dataset.shape[0]
    if not vendors:
        return np.zeros((n, 0)), np.zeros((n, 0), dtype=np.int64)
    base_delay = np.geomspace(*VENDOR_DELAY_SLOTS, num=vendors)
    # faster vendors charge more: price ~ 1 / sqrt(delay), mid vendor at the target share
    mean_epochs = (EPOCHS[0] + EPOCHS[1]) / 2
    mid_price = VENDOR_PRICE_SHARE * v_ref * mean_epochs
    base_price = mid_price * np.sqrt(np.sqrt(np.prod(VENDOR_DELAY_SLOTS)) / base_delay)
    size = dataset / np.mean(DATASET_SAMPLES)
    price_noise = rng.uniform(0.8, 1.25, size=(n, vendors))
    delay_noise = rng.uniform(0.8, 1.25, size=(n, vendors))
    vendor_price = dataset[:, None] * base_price[None, :] * price_noise
    vendor_delay = np.ceil(base_delay[None, :] * size[:, None] * delay_noise)
    return vendor_price, vendor_delay.astype(np.int64)


def _deadlines(rng, deadline_policy, arrival, work, speeds, needs, vendors, vendor_delay,
               slots, slot_minutes) -> np.ndarray:
    """d_i by ``deadline_policy`` (module docstring), capped at the last slot."""
    n = arrival.shape[0]
    last = slots - 1
    if deadline_policy in SLACK_RANGES:
        lo, hi = SLACK_RANGES[deadline_policy]
        sigma = rng.uniform(lo, hi, size=n)
        fastest = speeds.by_type[:, np.unique(speeds.col)].max(axis=1)
        delay = np.where(needs & (vendors > 0),
                         np.median(vendor_delay, axis=1) if vendors else 0, 0)
        deadline = arrival + np.ceil(delay + sigma * work / fastest).astype(np.int64)
    elif deadline_policy == "fixed":
        deadline = arrival + int(np.ceil(FIXED_DEADLINE_HOURS * 60.0 / slot_minutes))
    else:
        deadline = np.full(n, last)
    return np.minimum(deadline, last).astype(np.int64)


def _variables(cluster, speeds, tasks, vendor_price, vendor_delay, batch, epochs, dataset,
               speed_layout) -> dict:
    """The scenario's variables (:mod:`lorasched.pdftsp.scenario`), in their stored order."""
    speed = ((("task", "gpu"), speeds.by_type) if speed_layout == "type" else
             (("task", "node"), np.ascontiguousarray(speeds.by_type[:, speeds.col])))
    return {
        "compute_capacity": ("node", cluster.capacity.astype(np.int64)),
        "memory_capacity": ("node", cluster.memory.astype(float)),
        "gpu_type": ("node", np.array(cluster.types, dtype=str)),
        "op_cost_rate": (("node", "slot"), cluster.op_cost_rate),
        **{name: ("task", values) for name, values in tasks.items()},
        "speed": speed,
        "vendor_price": (("task", "vendor"), vendor_price),
        "vendor_delay": (("task", "vendor"), vendor_delay),
        "micro_batch": ("task", batch.astype(np.int64)),
        "epochs": ("task", epochs.astype(np.int64)),
        "dataset_size": ("task", dataset.astype(np.int64)),
        "electricity_price": ("slot", cluster.price),
    }


def _attributes(model, slot_minutes, cluster, slots, work, v_min, v_max, speeds,
                generator, node=None) -> dict:
    """The scenario's attributes: load factor, declared bounds and the generator's arguments
    (and, with a measured ``node``, where its numbers come from)."""
    base = model.base_model_memory_gb if node is None else node.base_model_memory_gb
    return {
        "system": "pdftsp",
        "base_model_memory": round(base, 3),
        "slot_minutes": float(slot_minutes),
        "load_factor": float(work.sum() / (slots * cluster.capacity.sum())),
        "value_density_min": v_min,
        "value_density_max": v_max,
        "task_memory_min": float(min(_task_memory(b, model, node)
                                     for b in model.micro_batches)),
        "speed_per_memory_max": float(max(s / _task_memory(b, model, node)
                                          for (_, b), s in speeds.table.items())),
        "model": model.name,
        "generator": json.dumps(generator, default=str),
        **({} if node is None else {"measured_node": node.source}),
    }


def _trace_attributes(ds, trace, trace_day, day, task_sizes, clipped) -> None:
    """Record the trace, its day and the task-size mode (trace scenarios only)."""
    generator = json.loads(ds.attrs["generator"])
    source = str(trace) if isinstance(trace, str | os.PathLike) else day.name
    generator.update(trace=source, trace_day=trace_day, task_sizes=task_sizes)
    ds.attrs["generator"] = json.dumps(generator, default=str)
    ds.attrs.update(trace=day.name, trace_day=day.day, task_sizes=task_sizes)
    if task_sizes == "trace":
        ds.attrs.update(task_size_clipped_low=clipped[0], task_size_clipped_high=clipped[1])


def synthetic_scenario(nodes: int = 100, gpu: str = "mix", load: str | float = "high",
                       vendors: int = 5, deadline_policy: str = "slack", seed: int = 0,
                       slots: int = 144, slot_minutes: float = 10.0, arrivals=None,
                       preprocessing_share: float | None = None,
                       model: profiles.ModelProfile = profiles.GPT2_XL,
                       trace: str | os.PathLike | None = None,
                       trace_day: int | str = "median",
                       task_sizes: str = "paper", speed_layout: str = "type",
                       measured_gpu: NodeProfile | None = None,
                       colocation_gain: float | None = None,
                       value_ratio: float | None = None,
                       operating_cost_scale: float = 1.0) -> xr.Dataset:
    """A seeded synthetic pdFTSP scenario, as in the paper's section 5.1.

    The same arguments give the same dataset, bit for bit. Every modelling choice:
    :doc:`/reference/pdftsp_workload`.

    Parameters
    ----------
    nodes : int, optional
        GPU nodes in the cluster (default 100).
    gpu : {"mix", "A100", "A40"}, optional
        One GPU type for every node, or ``"mix"`` (alternating; default).
    load : {"light", "medium", "high"} or float, optional
        Mean Poisson arrivals per slot: 30, 50 or 80 (default ``"high"``), or a number.
        With ``trace``, the target mean per slot of the trace day.
    vendors : int, optional
        Pre-processing vendors (default 5).
    deadline_policy : {"slack", "tight", "loose", "fixed", "end_of_day"}, optional
        How deadlines are drawn (default ``"slack"``; :doc:`/reference/pdftsp_workload`).
    seed : int, optional
        Seeds the ``numpy.random.Generator`` every draw comes from (default 0).
    slots : int, optional
        Slots in the horizon (default 144).
    slot_minutes : float, optional
        Length of a slot (default 10: 144 slots are one day).
    arrivals : array-like of int, optional
        An explicit series of arrival counts per slot instead of Poisson draws.
    preprocessing_share : float, optional
        Probability that a task needs a vendor (default 0.5, or 0 when ``vendors`` is 0).
    model : lorasched.model.profiles.ModelProfile, optional
        The model being fine-tuned (default GPT-2 XL): capacities, speeds and memory.
    trace : str or os.PathLike, optional
        One day of a real GPU-cluster trace (a name in ``lorasched.model.traces.TRACES``
        or a CSV path) whose per-slot submissions, scaled to the mean of ``load``, set the
        arrivals.
    trace_day : int or "median", optional
        The trace's day (default ``"median"``, the representative day).
    task_sizes : {"paper", "trace"}, optional
        Task sizes drawn as in the paper (default), or from the GPU time of the trace's
        jobs (needs ``trace``).
    speed_layout : {"type", "node"}, optional
        ``"type"`` (default) stores ``s_ik`` per (task, GPU type), as it is generated
        (dims ``("task", "gpu")``); ``"node"`` as the (task, node) matrix (K times larger).
        Both give the same results.
    measured_gpu : NodeProfile, optional
        A GPU measured for ``model`` (:class:`~lorasched.pdftsp.node_profile.NodeProfile`,
        e.g. ``lorasched.profiling.table.pdftsp_node`` of a ``lorasched profile``
        table): every node is that GPU, with its measured ``s_ik``, ``r_i``, ``r_b``,
        ``C_kp``, memory and power in place of the published model's (``gpu`` is then
        ignored). The values and the vendors stay priced as with the published model; the
        deadlines, drawn from the fastest speed, follow the measured one.
    colocation_gain : float, optional
        The samples per slot of a full node over those of its fastest task alone (the
        largest micro-batch's ``s_ik``): ``C_kp = floor(colocation_gain * max_i s_ik)``,
        >= 1. 1: tasks sharing a node split one task's throughput (measured with
        sequential adapters); 1.3-2.0: fused multi-LoRA kernels
        (``lorasched.model.profiles.COLOCATION_GAINS``). Default None: ``C_kp`` from
        the GPU's profile, 1.5 times the fastest task's speed with the published model.
    value_ratio : float, optional
        ``v_max / v_min`` of the values per sample, centred on ``v_ref`` in log space
        (default None: ``VALUE_SPREAD ** 2`` = 4).
    operating_cost_scale : float, optional
        Multiplies every node's operating cost (default 1; 0: free electricity).

    Returns
    -------
    xarray.Dataset
        A validated scenario (:func:`~lorasched.pdftsp.scenario.validate`)
        whose attribute ``load_factor`` is the offered work over what the cluster can
        process in the horizon (``sum M_i / (T * sum_k C_kp)``): above 1 the cluster
        cannot serve everything. With ``trace``, the attributes ``trace``, ``trace_day``
        (the day used) and ``task_sizes`` record it.

    Raises
    ------
    InputError
        Naming the first argument out of its range or the combination refused (``trace``
        with ``arrivals``, ``task_sizes="trace"`` without a trace, vendors 0 with a
        positive ``preprocessing_share``), or a size past the declared limits.
    """
    nodes, slots, vendors, slot_minutes, preprocessing_share = _checked_arguments(
        nodes, slots, vendors, slot_minutes, deadline_policy, preprocessing_share,
        speed_layout, task_sizes, trace, arrivals)
    node = measured_gpu
    if node is not None:
        node.check(model.micro_batches, slot_minutes)
    colocation_gain, value_ratio, operating_cost_scale = _checked_model_numbers(
        colocation_gain, value_ratio, operating_cost_scale)
    rng = np.random.default_rng(seed)  # every draw below comes from it, in this order
    cluster = _cluster(nodes, gpu, model, slots, slot_minutes, node, colocation_gain,
                       operating_cost_scale)
    arrival, day = _arrivals(rng, load, arrivals, trace, trace_day, slots, slot_minutes)
    n = arrival.shape[0]
    epochs, dataset, work, batch, clipped = _task_sizes(rng, n, model, task_sizes, day,
                                                         slot_minutes)
    speeds = _speeds(cluster.types, batch, model, slot_minutes, node)
    v_ref = reference_value_per_sample(model, slot_minutes)
    spread = VALUE_SPREAD if value_ratio is None else float(np.sqrt(value_ratio))
    v_min, v_max = v_ref / spread, v_ref * spread
    bid = _bids(rng, work, v_min, v_max)
    needs = rng.random(n) < preprocessing_share
    vendor_price, vendor_delay = _vendors(rng, dataset, vendors, v_ref)
    deadline = _deadlines(rng, deadline_policy, arrival, work, speeds, needs, vendors,
                          vendor_delay, slots, slot_minutes)
    tasks = {"arrival": arrival.astype(np.int64), "deadline": deadline, "memory": speeds.memory,
             "work": work.astype(np.int64), "needs_preprocessing": needs, "bid": bid}
    generator = {"nodes": nodes, "gpu": gpu if node is None else node.label, "load": load,
                 "vendors": vendors,
                 "deadline_policy": deadline_policy, "seed": seed, "slots": slots,
                 "slot_minutes": slot_minutes,
                 "arrivals": None if arrivals is None else "series",
                 "preprocessing_share": preprocessing_share,
                 # lorasched's modelling numbers, recorded only where one is changed
                 **{k: v for k, v in (("colocation_gain", colocation_gain),
                                      ("value_ratio", value_ratio),
                                      ("operating_cost_scale", operating_cost_scale))
                    if v is not None and not (k == "operating_cost_scale" and v == 1.0)}}
    ds = xr.Dataset(
        _variables(cluster, speeds, tasks, vendor_price, vendor_delay, batch, epochs, dataset,
                   speed_layout),
        coords={"node": np.arange(nodes), "slot": np.arange(slots), "task": np.arange(n),
                "vendor": np.arange(vendors),
                **({"gpu": np.array(speeds.kinds, dtype=str)} if speed_layout == "type"
                   else {})},
        attrs=_attributes(model, slot_minutes, cluster, slots, work, v_min, v_max, speeds,
                          generator, node))
    if day is not None:  # attributes of trace scenarios only: the others stay as they were
        _trace_attributes(ds, trace, trace_day, day, task_sizes, clipped)
    ds["bid"].attrs["units"] = "USD"
    ds["electricity_price"].attrs["units"] = "USD per kWh"
    validate(ds)
    return ds
