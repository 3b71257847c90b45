"""The TITAN system's policies, name -> ``run(arrays, rng, **options) -> Schedule``
(:data:`REGISTRY`): ``titan``, ``titan_nomerge``, ``titan_noswitch``, ``srtf``, ``tiresias``
and ``fifo``, with defaults per setup (:data:`SETUP_DEFAULTS`); see
:doc:`/reference/titan_scheduler`.
"""

from __future__ import annotations

import numpy as np

from ..jobsim import FINISH, PREEMPT, RUN, Tiresias
from ..jobsim import simulate as jobsim_simulate
from ..model.errors import InputError
from .cluster import run_titan
from .scenario import TitanArrays
from .schedule import Recorder, Schedule
from .switch import switch_seconds

#: Tiresias' first-queue limit, GPU-seconds of attained service: 4 GPU-hours, as in the
#: TITAN authors' simulator (gaow0007/TitanSched ``main.py``: ``queue_limit = [3600 * 4, ...]``)
TIRESIAS_THRESHOLD_GPU_S = 4 * 3600.0

#: per setup, the defaults of TITAN's options and of the baselines' (module docstring)
SETUP_DEFAULTS = {
    "paper": {
        "titan": {"switch": "pipelined", "preemptive": False, "tick_s": 0.0, "keep": "all"},
        "baselines": {"switch": "naive", "tick_s": 0.0},
    },
    "authors_code": {
        "titan": {"switch": "measured", "preemptive": True, "tick_s": 120.0,
                  "keep": "shortest"},
        "baselines": {"switch": "measured", "tick_s": 300.0},
    },
}


def _defaults(arrays: TitanArrays, who: str, **given):
    """The options ``given``, with each ``None`` replaced by the setup's default."""
    table = SETUP_DEFAULTS[arrays.setup][who]
    return {k: table[k] if v is None else v for k, v in given.items()}


def _switch(arrays: TitanArrays, gpus, switch, scale: float) -> np.ndarray:
    """Seconds per start: a :mod:`.switch` table, or ``"measured"`` (the scenario's
    ``restart_s`` at every width, setup ``"authors_code"``)."""
    if isinstance(switch, str) and switch == "measured":
        if not np.isfinite(arrays.restart_s):
            raise InputError("switch='measured' needs a scenario built with "
                             "setup='authors_code' (its 'restart_s')")
        switch = {1: float(arrays.restart_s)}
    return switch_seconds(gpus, switch, scale)


def titan(arrays: TitanArrays, rng: np.random.Generator, *, merge: bool = True,
          switch=None, switch_scale: float = 1.0, preemptive: bool | None = None,
          constraints: str = "pairwise", candidates: str = "pairs",
          merge_length: str = "log", restart_cost: bool = True,
          tick_s: float | None = None, keep: str | None = None,
          objective: str = "paper") -> Schedule:
    """TITAN (:mod:`.cluster`): ``merge`` (task merger, eqs. 5-11), ``switch`` (a table
    of :mod:`.switch`: ``"pipelined"``, ``"naive"``, ``"none"``, ``{gpus: s}`` or
    ``"measured"``) times ``switch_scale``, ``preemptive`` (re-allocate running jobs: the
    authors' later code), ``constraints`` (reading of (9)-(10)), ``candidates`` and
    ``merge_length`` (how merge candidates are formed and how long a merged job runs),
    ``restart_cost``, ``tick_s``, ``keep`` and ``objective`` (:mod:`.cluster`). ``None``
    takes the setup's default (:data:`SETUP_DEFAULTS`). Draws no random numbers."""
    o = _defaults(arrays, "titan", switch=switch, preemptive=preemptive, tick_s=tick_s,
                  keep=keep)
    for name, flag in (("merge", merge), ("preemptive", o["preemptive"]),
                       ("restart_cost", restart_cost)):
        if not isinstance(flag, bool | np.bool_):
            raise InputError(f"{name!r} must be True or False, got {flag!r}")
    cost = _switch(arrays, arrays.allocations, o["switch"], switch_scale)
    return run_titan(arrays, cost, merge=bool(merge), preemptive=bool(o["preemptive"]),
                     constraints=constraints, candidates=candidates,
                     merge_length=merge_length, restart_cost=bool(restart_cost),
                     tick_s=o["tick_s"], keep=o["keep"], objective=objective)


def titan_nomerge(arrays: TitanArrays, rng: np.random.Generator, *, switch=None,
                  switch_scale: float = 1.0, preemptive: bool | None = None,
                  restart_cost: bool = True, tick_s: float | None = None,
                  keep: str | None = None, objective: str = "paper") -> Schedule:
    """TITAN without the task merger (Table 3's "w/o task merger")."""
    return titan(arrays, rng, merge=False, switch=switch, switch_scale=switch_scale,
                 preemptive=preemptive, restart_cost=restart_cost, tick_s=tick_s,
                 keep=keep, objective=objective)


def titan_noswitch(arrays: TitanArrays, rng: np.random.Generator, *, switch_scale: float = 1.0,
                   preemptive: bool | None = None, constraints: str = "pairwise",
                   candidates: str = "pairs", merge_length: str = "log",
                   restart_cost: bool = True, tick_s: float | None = None,
                   keep: str | None = None) -> Schedule:
    """TITAN with the naive context switch (Table 3's "w/o pipeline switch")."""
    return titan(arrays, rng, merge=True, switch="naive", switch_scale=switch_scale,
                 preemptive=preemptive, constraints=constraints, candidates=candidates,
                 merge_length=merge_length, restart_cost=restart_cost, tick_s=tick_s,
                 keep=keep)


def srtf(arrays: TitanArrays, rng: np.random.Generator, *, switch=None,
         switch_scale: float = 1.0, tick_s: float | None = None) -> Schedule:
    """Non-preemptive SRTF on the requested GPUs (module docstring)."""
    return _jobsim(arrays, "srtf", False, switch, switch_scale, tick_s)


def tiresias(arrays: TitanArrays, rng: np.random.Generator, *, switch=None,
             switch_scale: float = 1.0,
             threshold_gpu_s: float = TIRESIAS_THRESHOLD_GPU_S,
             tick_s: float | None = None) -> Schedule:
    """Tiresias' two-queue discretised 2D-LAS, preemptive, on the requested GPUs."""
    return _jobsim(arrays, Tiresias(threshold=threshold_gpu_s, service="gpu_time"), True,
                   switch, switch_scale, tick_s)


def fifo(arrays: TitanArrays, rng: np.random.Generator, *, switch=None,
         switch_scale: float = 1.0, tick_s: float | None = None) -> Schedule:
    """Non-preemptive FIFO on the requested GPUs (module docstring: a reference)."""
    return _jobsim(arrays, "fifo", False, switch, switch_scale, tick_s)


def _jobsim(arrays: TitanArrays, discipline, preemptive: bool, switch,
            switch_scale: float, tick_s) -> Schedule:
    o = _defaults(arrays, "baselines", switch=switch, tick_s=tick_s)
    gpus = arrays.requested_gpus
    work = arrays.iterations * arrays.requested_iter_s
    overhead = _switch(arrays, gpus, o["switch"], switch_scale)
    res = jobsim_simulate(arrays.submit, gpus, work, arrays.gpus, discipline,
                          preemptive=preemptive, backfill=True, overhead=overhead,
                          tick_s=o["tick_s"])
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
            raise InputError(f"unknown log kind {kind}")
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
    "fifo": fifo,
}
