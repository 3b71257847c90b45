"""The largest magnitudes lorasched accepts in an input, one table for the three systems; a
value beyond one is refused where it is read, naming the limit (:func:`at_most`). The table:
:doc:`/traces`; why: :doc:`/reference/engine`.
"""

from __future__ import annotations

import numpy as np

from .errors import InputError

#: the latest time an input may name (a submission, a deadline), s: ten years
#: (shipped traces: 1.7e7 s, Helios Venus's last submission)
HORIZON_S = 10 * 365 * 86_400
#: the longest one job may run or ask for (a trace's ``duration_s``, Allpass's ``work_s``),
#: s: one year (shipped traces: 5.2e6 s, Philly's longest job)
MAX_DURATION_S = 365 * 86_400
#: one optimizer step, its synchronisation or a restart (a TITAN LUT's ``step_time``,
#: ``sync_time``, a context switch's ``time_cost``), s: one hour (shipped LUTs: 1.8 s a step,
#: 105 s a context switch)
MAX_STEP_S = 3_600.0
#: optimizer steps (or gradient steps) of one job: 10^9 (shipped workloads: 12 x an epoch)
MAX_ITERATIONS = 10**9
#: the global batch of one job, samples: 10^6 (shipped workloads: 576)
MAX_BATCH = 10**6
#: samples in one epoch of a dataset, or all the samples one pdFTSP task trains on (M_i):
#: 10^12 (shipped scales: 137,344 an epoch; pdFTSP days, synthetic or from traces: 10^5 a task)
MAX_SAMPLES = 10**12
#: samples one GPU processes in one pdFTSP slot (a node's C_kp, a task's s_ik): 2^31 - 1,
#: the kernels' 32-bit speeds (pdFTSP days: 10,758)
MAX_SAMPLES_PER_SLOT = 2**31 - 1
#: GPU memory of a node or of one task, GB: 100,000 (shipped: 80)
MAX_MEMORY_GB = 100_000.0
#: a bid, a vendor's price or an operating cost per sample (pdFTSP's money, any currency):
#: 10^9 (pdFTSP days: bids under 16, vendor prices under 13)
MAX_MONEY = 1e9
#: GPUs of one cluster or asked by one job (TITAN's M, a trace's ``num_gpus``): 100,000
#: (shipped traces: 1,024)
MAX_GPUS = 100_000
#: nodes of a pdFTSP cluster: 100,000 (the paper: 200)
MAX_NODES = 100_000
#: time slots of a pdFTSP horizon: 100,000 (the paper: 144)
MAX_SLOTS = 100_000
#: nodes x slots of a pdFTSP scenario (its per-(node, slot) state): 10^8 (the paper: 28,800)
MAX_NODE_SLOTS = 10**8
#: a price per GPU-hour, USD: 1,000 (shipped tables: under 10)
MAX_PRICE_PER_GPU_H = 1_000.0
#: nesting of a JSON request body to ``lorasched serve`` (a task's body nests 2 deep): 16
MAX_JSON_DEPTH = 16

#: the limits by name, for the book's trace and model pages
LIMITS = {
    "HORIZON_S": (HORIZON_S, "s", "latest submission or deadline"),
    "MAX_DURATION_S": (MAX_DURATION_S, "s", "longest job (duration_s, work_s)"),
    "MAX_STEP_S": (MAX_STEP_S, "s", "an optimizer step or a restart in a LUT"),
    "MAX_ITERATIONS": (MAX_ITERATIONS, "", "optimizer steps of one job"),
    "MAX_BATCH": (MAX_BATCH, "samples", "global batch of one job"),
    "MAX_SAMPLES": (MAX_SAMPLES, "samples", "one epoch of a dataset; one pdFTSP task"),
    "MAX_SAMPLES_PER_SLOT": (MAX_SAMPLES_PER_SLOT, "samples", "a pdFTSP node or task, "
                             "one slot"),
    "MAX_MEMORY_GB": (MAX_MEMORY_GB, "GB", "memory of a node or a task"),
    "MAX_MONEY": (MAX_MONEY, "", "a pdFTSP bid, vendor price or cost per sample"),
    "MAX_GPUS": (MAX_GPUS, "", "GPUs of a cluster or one job"),
    "MAX_NODES": (MAX_NODES, "", "nodes of a pdFTSP cluster"),
    "MAX_SLOTS": (MAX_SLOTS, "", "slots of a pdFTSP horizon"),
    "MAX_NODE_SLOTS": (MAX_NODE_SLOTS, "", "nodes x slots of a pdFTSP scenario"),
    "MAX_PRICE_PER_GPU_H": (MAX_PRICE_PER_GPU_H, "USD", "price per GPU-hour"),
    "MAX_JSON_DEPTH": (MAX_JSON_DEPTH, "", "nesting of a request body to the service"),
}


def at_most(values, limit: float, what: str, item=None) -> None:
    """InputError if any of ``values`` exceeds ``limit``: ``what`` names the file or field
    (e.g. ``"trace.csv, column 'duration_s'"``), ``item(i)`` the i-th item (e.g. ``"line
    5"``; default ``"item i"``). NaN passes (other checks refuse it)."""
    x = np.asarray(values, dtype=float).ravel()
    over = np.flatnonzero(x > limit)
    if over.size:
        i = int(over[0])
        name = item(i) if item is not None else f"item {i}"
        raise InputError(f"{what}, {name}: {x[i]:g} exceeds lorasched's limit of {limit:g} "
                         "(lorasched.model.limits)")
