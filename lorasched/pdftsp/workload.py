"""Synthetic workloads: arrivals, task sizes, deadlines, valuations, vendors, operating cost.

:func:`synthetic_scenario` builds a validated scenario (section 5.1 of the paper) from a
seeded ``numpy.random.Generator``; the same arguments give the same dataset, bit for bit.
Every modelling choice is a named argument or a constant documented here.

* Cluster: ``nodes`` GPUs of one type (``"A100"``, ``"A40"``) or ``"mix"`` (alternating).
  Capacities, speeds, memory and base-model size come from ``lorasched.model.profiles``.
* Time: ``slots`` slots of ``slot_minutes`` (144 x 10 min = one day).
* Arrivals: Poisson per slot with mean 30 / 50 / 80 for ``load`` light / medium / high
  (or a number), or an explicit series of counts per slot (``arrivals=``), or one day of a
  real GPU-cluster trace (``trace=``: MLaaS / Philly / Helios / Acme or a CSV path, paper
  sec. 5.1) whose per-slot submissions are scaled to the mean of ``load``, keeping the
  trace's shape; ``trace_day`` picks the day ("median" = the representative day). The rules
  (day, slot binning, scaling, job sampling) are in ``lorasched.model.traces``.
* Task size (paper, sec. 5.1, ``task_sizes="paper"``): epochs uniform in 1..5, dataset size
  uniform in [5k, 20k] samples, ``M_i = epochs * dataset``. Micro-batch uniform in (1, 2, 4)
  sets the task's memory and per-node speed. ``task_sizes="trace"`` (with a trace) keeps
  epochs and micro-batch but sizes the task by the GPU time of the real job sampled for it:
  ``M_i = duration_s * num_gpus * s_i(A100) / slot seconds``, i.e. the samples the task
  would process alone on A100s in that time, clipped to the paper's range [5k, 100k]; then
  ``dataset = ceil(M_i / epochs)`` (capped so that ``epochs * dataset <= 100k``) and
  ``M_i = epochs * dataset``. The shares clipped at each end are attributes
  ``task_size_clipped_low`` / ``task_size_clipped_high``. The paper dataset size is drawn
  (and discarded) in this mode too, so both modes consume the generator alike.
* Valuation: value per sample ``v_i`` log-uniform in [v_ref / 2, 2 v_ref], ``b_i = v_i * M_i``,
  with ``v_ref`` the on-demand cloud price of the samples an A100 processes
  (``lorasched.model.profiles.GPU_HOUR_USD``). The declared bounds go into the attributes
  ``value_density_min``/``value_density_max`` (what an operator would post), beside
  ``task_memory_min`` and ``speed_per_memory_max`` (the largest ``s_ik / r_i`` over the
  cluster's GPU types and the model's micro-batches), all known before any task arrives.
* Pre-processing: each task needs it with probability ``preprocessing_share`` (default 0.5,
  or 0 when there are no vendors). Vendor n
  has a base delay spread geometrically over [1, 18] slots and a price per dataset sample
  inversely related to its speed; per task both vary by +-25 % and scale with the dataset
  (``vendor_price = dataset * price_n * noise``, ``vendor_delay = ceil(delay_n * size * noise)``).
  Assumption: the mid-priced vendor's cost is about 20 % of a typical task's value.
* Deadlines (``deadline_policy``): ``"slack"`` (default) ``d = a + h + ceil(sigma * M /
  s_fast)`` with sigma ~ U[1.5, 3], ``s_fast`` the task's speed on the fastest node and
  ``h`` the median vendor delay (0 without pre-processing); ``"tight"`` sigma ~ U[1, 1.5];
  ``"loose"`` sigma ~ U[3, 6]; ``"fixed"``: 6 hours after arrival; ``"end_of_day"``: the
  last slot. Always capped at the last slot.
* Operating cost: ``e_ikt = s_ik * op_cost_rate[k, t]`` with ``op_cost_rate = GPU power *
  PUE * electricity price(t) * slot hours / C_kp`` (money per sample at full load); the
  price follows a diurnal curve with mean ``ELECTRICITY_USD_PER_KWH``, low at night and
  peaking in the early evening (assumed shape, +-40 %).
"""

from __future__ import annotations

import json
import os

import numpy as np
import xarray as xr

from ..model import limits, profiles
from ..model import traces as _traces
from ..model.errors import InputError, real_number, whole_number
from .scenario import SPEED_DTYPE, SPEED_MAX, validate_scenario

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


def synthetic_scenario(nodes: int = 100, gpu: str = "mix", load: str | float = "high",
                       vendors: int = 5, deadline_policy: str = "slack", seed: int = 0,
                       slots: int = 144, slot_minutes: float = 10.0, arrivals=None,
                       preprocessing_share: float | None = None,
                       model: profiles.ModelProfile = profiles.GPT2_XL,
                       trace: str | os.PathLike | None = None,
                       trace_day: int | str = "median",
                       task_sizes: str = "paper", speed_layout: str = "type") -> xr.Dataset:
    """A seeded synthetic pdFTSP scenario, as in the paper's section 5.1.

    The same arguments give the same dataset, bit for bit. The module docstring states
    every modelling choice.

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
        How deadlines are drawn (default ``"slack"``; module docstring).
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
        (dims ``("task", "gpu")``); ``"node"`` as the (task, node) matrix (K times larger;
        the earlier layout, kept as an option). Both give the same results.

    Returns
    -------
    xarray.Dataset
        A validated scenario (:func:`~lorasched.pdftsp.scenario.validate_scenario`)
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
    rng = np.random.default_rng(seed)

    # cluster
    types = gpu_types(nodes, gpu)
    gpus = [profiles.GPUS[t] for t in types]
    capacity = np.array([profiles.node_capacity(g, model, slot_minutes) for g in gpus])
    memory_cap = np.array([g.memory_gb for g in gpus])
    price = electricity_price(slots, slot_minutes)
    power = np.array([profiles.power_kw(g) for g in gpus])
    slot_hours = slot_minutes / 60.0
    op_cost_rate = (power * profiles.PUE)[:, None] * price[None, :] * slot_hours
    op_cost_rate = op_cost_rate / capacity[:, None]

    # arrivals and tasks
    day = None
    if trace is None:
        counts = _arrival_counts(rng, load, arrivals, slots)
    else:  # the trace day's jobs are sampled from rng first, as trace_day(seed=seed) would
        day = _traces.trace_day(trace, mean=_load_mean(load), day=trace_day, slots=slots,
                                slot_minutes=slot_minutes, seed=rng)
        counts = day.counts
    arrival = np.repeat(np.arange(slots), counts)
    n = arrival.shape[0]
    epochs = rng.integers(EPOCHS[0], EPOCHS[1] + 1, size=n)
    dataset = rng.integers(DATASET_SAMPLES[0], DATASET_SAMPLES[1] + 1, size=n)
    work = epochs * dataset
    batch = rng.choice(np.array(model.micro_batches), size=n)
    if task_sizes == "trace":
        work, dataset, clipped = _trace_work(day, batch, epochs, model, slot_minutes)
    speed_table = {(t, b): profiles.task_speed(profiles.GPUS[t], b, model, slot_minutes)
                   for t in set(types) for b in model.micro_batches}
    # s_ik depends on (micro-batch of i, GPU type of k) only: index a small table rather than
    # build n x K Python ints (at K = 2,000 and 115k tasks that list took 45 s and 4 GB)
    batches = np.array(model.micro_batches)
    kinds = sorted(set(types))
    table = np.array([[speed_table[(t, b)] for t in kinds] for b in batches], dtype=np.int64)
    if table.max(initial=0) > SPEED_MAX:
        raise InputError(f"a task speed of {table.max():,} samples per slot exceeds "
                         f"{SPEED_MAX:,}: use shorter slots (slot_minutes)")
    table = table.astype(SPEED_DTYPE)  # s_ik is stored as SPEED_DTYPE: no copy in to_arrays
    memory_of = np.array([profiles.task_memory(b, model) for b in batches], dtype=float)
    position = {int(b): j for j, b in enumerate(batches)}
    row = np.fromiter((position[b] for b in batch.tolist()), dtype=np.int64, count=n)
    col = np.array([kinds.index(t) for t in types], dtype=np.int64)
    speed_by_type = table[row]  # (task, gpu): s_ik of every type, kinds' order
    memory = memory_of[row].reshape(n)

    v_ref = reference_value_per_sample(model, slot_minutes)
    v_min, v_max = v_ref / VALUE_SPREAD, v_ref * VALUE_SPREAD
    value_density = np.exp(rng.uniform(np.log(v_min), np.log(v_max), size=n))
    bid = value_density * work

    needs = rng.random(n) < preprocessing_share
    if vendors:
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
        vendor_delay = vendor_delay.astype(np.int64)
    else:
        vendor_price = np.zeros((n, 0))
        vendor_delay = np.zeros((n, 0), dtype=np.int64)

    # deadlines
    last = slots - 1
    if deadline_policy in SLACK_RANGES:
        lo, hi = SLACK_RANGES[deadline_policy]
        sigma = rng.uniform(lo, hi, size=n)
        fastest = speed_by_type[:, np.unique(col)].max(axis=1)
        delay = np.where(needs & (vendors > 0),
                         np.median(vendor_delay, axis=1) if vendors else 0, 0)
        deadline = arrival + np.ceil(delay + sigma * work / fastest).astype(np.int64)
    elif deadline_policy == "fixed":
        deadline = arrival + int(np.ceil(FIXED_DEADLINE_HOURS * 60.0 / slot_minutes))
    else:
        deadline = np.full(n, last)
    deadline = np.minimum(deadline, last).astype(np.int64)

    load_factor = float(work.sum() / (slots * capacity.sum()))
    ds = xr.Dataset(
        {
            "compute_capacity": ("node", capacity.astype(np.int64)),
            "memory_capacity": ("node", memory_cap.astype(float)),
            "gpu_type": ("node", np.array(types, dtype=str)),
            "op_cost_rate": (("node", "slot"), op_cost_rate),
            "arrival": ("task", arrival.astype(np.int64)),
            "deadline": ("task", deadline),
            "memory": ("task", memory),
            "work": ("task", work.astype(np.int64)),
            "needs_preprocessing": ("task", needs),
            "bid": ("task", bid),
            "speed": ((("task", "gpu"), speed_by_type) if speed_layout == "type" else
                      (("task", "node"), np.ascontiguousarray(speed_by_type[:, col]))),
            "vendor_price": (("task", "vendor"), vendor_price),
            "vendor_delay": (("task", "vendor"), vendor_delay),
            "micro_batch": ("task", batch.astype(np.int64)),
            "epochs": ("task", epochs.astype(np.int64)),
            "dataset_size": ("task", dataset.astype(np.int64)),
            "electricity_price": ("slot", price),
        },
        coords={"node": np.arange(nodes), "slot": np.arange(slots), "task": np.arange(n),
                "vendor": np.arange(vendors),
                **({"gpu": np.array(kinds, dtype=str)} if speed_layout == "type" else {})},
        attrs={
            "system": "pdftsp",
            "base_model_memory": round(model.base_model_memory_gb, 3),
            "slot_minutes": float(slot_minutes),
            "load_factor": load_factor,
            "value_density_min": v_min,
            "value_density_max": v_max,
            "task_memory_min": float(min(profiles.task_memory(b, model)
                                         for b in model.micro_batches)),
            "speed_per_memory_max": float(max(s / profiles.task_memory(b, model)
                                              for (_, b), s in speed_table.items())),
            "model": model.name,
            "generator": json.dumps({"nodes": nodes, "gpu": gpu, "load": load,
                                     "vendors": vendors, "deadline_policy": deadline_policy,
                                     "seed": seed, "slots": slots,
                                     "slot_minutes": slot_minutes,
                                     "arrivals": None if arrivals is None else "series",
                                     "preprocessing_share": preprocessing_share},
                                    default=str),
        },
    )
    if day is not None:  # attributes of trace scenarios only: the others stay as they were
        generator = json.loads(ds.attrs["generator"])
        source = str(trace) if isinstance(trace, str | os.PathLike) else day.name
        generator.update(trace=source, trace_day=trace_day, task_sizes=task_sizes)
        ds.attrs["generator"] = json.dumps(generator, default=str)
        ds.attrs.update(trace=day.name, trace_day=day.day, task_sizes=task_sizes)
        if task_sizes == "trace":
            ds.attrs.update(task_size_clipped_low=clipped[0], task_size_clipped_high=clipped[1])
    ds["bid"].attrs["units"] = "USD"
    ds["electricity_price"].attrs["units"] = "USD per kWh"
    validate_scenario(ds)
    return ds
