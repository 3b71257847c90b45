"""Why a checked Allpass run queued its demoted jobs (:func:`queue_mechanism`), and what the
workload asks of the serverful tier (:func:`demoted_overlap`), for the book's readings page;
see :doc:`/reference/allpass_cluster`.
"""

from __future__ import annotations

import json
import math
import numbers

import numpy as np
import xarray as xr

from ..model.errors import InputError
from .cluster import RESTORE_S
from .pressure import WINDOW_S


def demotion_times(result: xr.Dataset) -> np.ndarray:
    """Per job, when it joined the serverful queue after its demotion (the end of its
    checkpoint on the serverless worker; NaN if never demoted)."""
    kind = result["seg_kind"].values.astype(str)
    job = result["seg_job"].values
    lease = result["seg_lease"].values
    modal = result["lease_provider"].values.astype(str)[lease] == "modal"
    out = np.full(result.sizes["job"], np.nan)
    pick = (kind == "checkpoint") & modal
    np.fmax.at(out, job[pick], result["seg_end_s"].values[pick])
    return out


def queue_mechanism(result: xr.Dataset, window_s: float = WINDOW_S) -> dict[str, float]:
    """``waiting_ticks``: share of ticks with a non-empty serverful queue;
    ``calm_when_waiting``: among those, the share with ``p <= 1``; ``far_queue_share``:
    share of all queueing seconds spent by jobs demoted with their deadline more than
    ``window_s`` away; ``far_demoted``: share of demoted jobs in that case;
    ``deadline_miss``: share of jobs finishing after their soft deadline;
    ``workers_when_waiting`` and ``queue_when_waiting``: mean open serverful workers and
    queued jobs over the waiting ticks. NaN where a share has no denominator."""
    queue = result["queue"].values
    p = result["p"].values
    waiting = queue > 0
    demoted = demotion_times(result)
    far = (result["deadline_s"].values - demoted) > window_s       # False where NaN
    queued = result["queue_s"].values
    was_demoted = np.isfinite(demoted)

    def share(num, den):
        return float(num / den) if den > 0 else float("nan")

    return {
        "waiting_ticks": share(waiting.sum(), queue.size),
        "calm_when_waiting": share((waiting & (p <= 1)).sum(), waiting.sum()),
        "far_queue_share": share(queued[far].sum(), queued.sum()),
        "far_demoted": share((far & was_demoted).sum(), was_demoted.sum()),
        "deadline_miss": float(np.mean(result["finish_s"].values
                                       > result["deadline_s"].values + 1e-9)),
        "workers_when_waiting": float(result["workers"].values[waiting].mean())
        if waiting.any() else float("nan"),
        "queue_when_waiting": float(queue[waiting].mean()) if waiting.any() else float("nan"),
    }


def max_overlap(start, end) -> int:
    """The largest number of the intervals ``[start_i, end_i)`` open at one instant (an
    interval ending at ``t`` is closed before one starting at ``t`` opens; an empty
    interval never counts). ``ValueError`` naming ``start`` or ``end`` on bad input."""
    s = np.asarray(start, dtype=float)
    e = np.asarray(end, dtype=float)
    if s.ndim != 1:
        raise InputError(f"start must be a 1-D array, got shape {s.shape}")
    if e.shape != s.shape:
        raise InputError(f"end must have start's shape {s.shape}, got {e.shape}")
    if not (np.all(np.isfinite(s)) and np.all(np.isfinite(e))):
        raise InputError("start and end must be finite")
    if np.any(e < s):
        raise InputError("end must be >= start")
    keep = e > s
    t = np.concatenate([s[keep], e[keep]])
    step = np.concatenate([np.ones(keep.sum()), -np.ones(keep.sum())])
    if t.size == 0:
        return 0
    order = np.lexsort((step, t))                       # ends before starts at one instant
    return int(np.cumsum(step[order]).max())


def demoted_overlap(result: xr.Dataset, restore_s: float | None = None) -> int:
    """The largest number of demoted jobs that would run at once if each had a serverful
    worker of its own from its demotion, with no start-up: job ``j`` busy over
    ``[q_j, q_j + restore_s + r_j)``, ``q_j`` when it joined the queue
    (:func:`demotion_times`) and ``r_j`` the work it had left (``work_s - serverless_s``).
    ``restore_s``: the run's own (its options, else the cluster's default). Above a cap on
    serverful workers, some of these jobs must queue whatever the provisioning rule; the
    cap of 30 and the paper's 0.4 min of queueing bound how many such jobs the paper's
    workload can have had at once."""
    if restore_s is None:
        restore_s = json.loads(result.attrs.get("options", "{}")).get("restore_s", RESTORE_S)
    if (isinstance(restore_s, bool) or not isinstance(restore_s, numbers.Real)
            or not math.isfinite(restore_s) or restore_s < 0):
        raise InputError(f"restore_s must be a finite number >= 0, got {restore_s!r}")
    q = demotion_times(result)
    demoted = np.isfinite(q)
    left = (result["work_s"].values - result["serverless_s"].values)[demoted]
    return max_overlap(q[demoted], q[demoted] + restore_s + np.maximum(left, 0.0))
