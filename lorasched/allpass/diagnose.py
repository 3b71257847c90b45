"""Why a checked Allpass run queued its demoted jobs: measurements of one result, for the
book's readings page.

:func:`queue_mechanism` asks three questions of a run's ticks and jobs:

* when jobs waited in the serverful queue, how often was the pressure ``p <= 1``? At such a
  tick Algorithm 2 adds no worker (eq. 2 says the tier is schedulable), so the queue waits;
* how much of the queueing was done by jobs whose soft deadline lay beyond the largest
  window when they were demoted? Eq. (1) counts none of their work until their deadline
  enters the window;
* how many jobs missed their soft deadline? DBF provisions for deadlines, not for JCT: a
  long queue that meets the deadlines is what the algorithm asks for.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

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
