"""What explains a TITAN result beyond its JCTs: the GPUs each job ran on
(:func:`mean_gpus`), how often it got on GPUs (:func:`starts_per_job`) and how busy the
pool was (:func:`utilisation`); :func:`.system.measure` reports each. See
:doc:`/reference/titan_scheduler`.
"""

from __future__ import annotations

import numpy as np
import xarray as xr


def mean_gpus(result: xr.Dataset) -> float:
    """GPUs each job runs on, weighted by its run time (a member of a merged job counts
    the merged job's GPUs), averaged over jobs."""
    seg = result["part_segment"].values
    length = (result["seg_end_s"] - result["seg_start_s"]).values[seg]
    gpus = result["seg_gpus"].values[seg]
    job = result["part_job"].values
    n = result.sizes["job"]
    seconds = np.bincount(job, weights=length, minlength=n)
    return float(np.mean(np.bincount(job, weights=length * gpus, minlength=n) / seconds))


def starts_per_job(result: xr.Dataset) -> float:
    """Stays on GPUs per job: a stay begins with a switch segment, or with a run segment
    that does not follow its unit's switch (free switches); a merged unit's stay counts
    once for each member."""
    unit = result["seg_unit"].values
    start, end = result["seg_start_s"].values, result["seg_end_s"].values
    kind = result["seg_kind"].values
    order = np.lexsort((start, unit))
    u, s0, s1, k = unit[order], start[order], end[order], kind[order]
    follows = np.r_[False, (u[1:] == u[:-1]) & (k[:-1] == 1) & (s0[1:] == s1[:-1])]
    begins = (k == 1) | ((k == 0) & ~follows)
    size = result["unit_size"].values
    n = result.sizes["job"]
    return float(size[u[begins]].sum() / n) if n else 0.0


def utilisation(result: xr.Dataset) -> float:
    """GPU-seconds of all segments (runs and switches) over M x makespan."""
    busy = float(((result["seg_end_s"] - result["seg_start_s"]) * result["seg_gpus"]).sum())
    span = float(result["seg_end_s"].max() - result["submit_s"].min())
    return busy / (int(result.attrs["gpus"]) * span)
