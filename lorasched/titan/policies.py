"""The TITAN system's policies: name -> ``run(arrays, rng, **options) -> Schedule``.

=================  ======================================================================
``titan``          TITAN (sec. 3-4): the MILP with the task merger, pipeline switch
``titan_nomerge``  TITAN without the task merger (eqs. 1-4 only), pipeline switch
``titan_noswitch`` TITAN with the task merger and the naive context switch
``srtf``           non-preemptive shortest remaining time first on the requested GPUs
                   (sec. 1: "a non-preemptive Shortest Remaining Time First"), naive switch
``tiresias``       Tiresias (NSDI'19) discretised 2D-LAS, two queues, preemptive, on the
                   requested GPUs, naive switch at every (re)start
=================  ======================================================================

The baselines get what the paper gave them: the GPUs each job requested (the trace's
request), the LUT's step time on them, and the switch cost without TITAN's pipeline. SRTF's
"remaining time" is the job's remaining seconds on its requested GPUs, known exactly (as
TITAN's LUT knows it); Tiresias needs no job length (it orders by attained service). Both
run on the shared job engine :mod:`lorasched.jobsim` (first-fit backfilling). Tiresias'
queue threshold is not in the TITAN paper: ``threshold_gpu_s`` defaults to 14,400
GPU-seconds (4 GPU-hours), the value the TITAN authors' simulator hard-codes for its Tiresias
(``queue_limit = [3600 * 4, 1000 * 3600]``, attained service in GPU-seconds; gaow0007/TitanSched
``main.py``, commit f71cf44); lorasched used one GPU-hour, its own choice, before issue 25
(``threshold_gpu_s=3600.0`` gives it back).

A policy of your own is a function ``run(arrays, rng, **options)`` returning a
:class:`~lorasched.titan.schedule.Schedule`, registered with
``lorasched.systems.get("titan").register(name, run)``.
"""

from __future__ import annotations

import numpy as np

from ..jobsim import FINISH, PREEMPT, RUN, Tiresias
from ..jobsim import simulate as jobsim_simulate
from .cluster import run_titan
from .scenario import TitanArrays
from .schedule import Recorder, Schedule
from .switch import switch_seconds

#: Tiresias' first-queue limit, GPU-seconds of attained service: 4 GPU-hours, as in the
#: TITAN authors' simulator (gaow0007/TitanSched ``main.py``: ``queue_limit = [3600 * 4, ...]``)
TIRESIAS_THRESHOLD_GPU_S = 4 * 3600.0


def titan(arrays: TitanArrays, rng: np.random.Generator, *, merge: bool = True,
          switch="pipelined", switch_scale: float = 1.0, preemptive: bool = False,
          constraints: str = "pairwise", candidates: str = "pairs",
          merge_length: str = "log") -> Schedule:
    """TITAN (:mod:`.cluster`): ``merge`` (task merger, eqs. 5-11), ``switch`` (a table
    of :mod:`.switch`: ``"pipelined"``, ``"naive"``, ``"none"`` or ``{gpus: s}``) times
    ``switch_scale``, ``preemptive`` (re-allocate running jobs: the authors' later code),
    ``constraints`` (reading of (9)-(10)), ``candidates`` and ``merge_length`` (how merge
    candidates are formed and how long a merged job runs). Draws no random numbers."""
    for name, flag in (("merge", merge), ("preemptive", preemptive)):
        if not isinstance(flag, bool | np.bool_):
            raise ValueError(f"{name!r} must be True or False, got {flag!r}")
    cost = switch_seconds(arrays.allocations, switch, switch_scale)
    return run_titan(arrays, cost, merge=bool(merge), preemptive=bool(preemptive),
                     constraints=constraints, candidates=candidates,
                     merge_length=merge_length)


def titan_nomerge(arrays: TitanArrays, rng: np.random.Generator, *, switch="pipelined",
                  switch_scale: float = 1.0, preemptive: bool = False) -> Schedule:
    """TITAN without the task merger (Table 3's "w/o task merger")."""
    return titan(arrays, rng, merge=False, switch=switch, switch_scale=switch_scale,
                 preemptive=preemptive)


def titan_noswitch(arrays: TitanArrays, rng: np.random.Generator, *, switch_scale: float = 1.0,
                   preemptive: bool = False, constraints: str = "pairwise",
                   candidates: str = "pairs", merge_length: str = "log") -> Schedule:
    """TITAN with the naive context switch (Table 3's "w/o pipeline switch")."""
    return titan(arrays, rng, merge=True, switch="naive", switch_scale=switch_scale,
                 preemptive=preemptive, constraints=constraints, candidates=candidates,
                 merge_length=merge_length)


def srtf(arrays: TitanArrays, rng: np.random.Generator, *, switch="naive",
         switch_scale: float = 1.0) -> Schedule:
    """Non-preemptive SRTF on the requested GPUs (module docstring)."""
    return _jobsim(arrays, "srtf", False, switch, switch_scale)


def tiresias(arrays: TitanArrays, rng: np.random.Generator, *, switch="naive",
             switch_scale: float = 1.0,
             threshold_gpu_s: float = TIRESIAS_THRESHOLD_GPU_S) -> Schedule:
    """Tiresias' two-queue discretised 2D-LAS, preemptive, on the requested GPUs."""
    return _jobsim(arrays, Tiresias(threshold=threshold_gpu_s, service="gpu_time"), True,
                   switch, switch_scale)


def _jobsim(arrays: TitanArrays, discipline, preemptive: bool, switch,
            switch_scale: float) -> Schedule:
    gpus = arrays.requested_gpus
    work = arrays.iterations * arrays.requested_iter_s
    overhead = switch_seconds(gpus, switch, switch_scale)
    res = jobsim_simulate(arrays.submit, gpus, work, arrays.gpus, discipline,
                          preemptive=preemptive, backfill=True, overhead=overhead)
    return segments_from_log(res.log_time, res.log_job, res.log_kind, gpus, work, overhead)


def segments_from_log(log_time, log_job, log_kind, gpus, work, overhead) -> Schedule:
    """A :class:`Schedule` (one unit per job) from a job-engine log of starts, preemptions
    and finishes, with each start paying ``overhead[j]`` before its work."""
    rec = Recorder()
    for j in range(len(gpus)):
        rec.unit([j])
    since: dict[int, float] = {}
    left = np.ones(len(gpus))
    for t, j, kind in zip(log_time.tolist(), log_job.tolist(), log_kind.tolist(), strict=True):
        if kind == RUN:
            since[j] = t
            continue
        start = since.pop(j)
        switch_end = start + float(overhead[j])
        if kind == FINISH:
            progress = left[j]
        elif kind == PREEMPT:
            progress = min(left[j], max(0.0, t - switch_end) / float(work[j]))
        else:  # pragma: no cover - the engine's log has three kinds
            raise ValueError(f"unknown log kind {kind}")
        left[j] -= progress
        rec.interval(j, int(gpus[j]), start, switch_end, t, progress)
    return rec.schedule(widths="requested")


#: name -> run
REGISTRY = {
    "titan": titan,
    "titan_nomerge": titan_nomerge,
    "titan_noswitch": titan_noswitch,
    "srtf": srtf,
    "tiresias": tiresias,
}
