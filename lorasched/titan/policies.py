"""The TITAN system's policies, name -> ``run(arrays, rng, **options) -> Schedule``
(:data:`REGISTRY`): ``titan``, its ablations ``titan_nomerge`` and ``titan_noswitch``
(:data:`PRESETS`), ``srtf``, ``tiresias``, ``fifo`` and the floor ``random``, with defaults
per setup (:data:`SETUP_DEFAULTS`); see :doc:`/reference/titan_scheduler`.
"""

from __future__ import annotations

import numpy as np

from ..jobsim import FINISH, PREEMPT, RUN, SRTF, Tiresias
from ..jobsim import simulate as jobsim_simulate
from ..model.docfill import filler
from ..model.errors import InputError
from ..model.presets import Preset, build_all
from .cluster import run_titan
from .decisions import Recorder, Schedule
from .env import AllocationProblem
from .scenario import TitanArrays
from .switch import switch_seconds

#: Tiresias' first-queue limit in GPU-seconds of attained service, 4 GPU-hours, as in the
#: TITAN authors' simulator (gaow0007/TitanSched ``main.py``: ``queue_limit = [3600 * 4, ...]``)
TIRESIAS_THRESHOLD_GPU_S = 4 * 3600.0

#: The defaults of TITAN's options and of the baselines', per setup (module docstring).
SETUP_DEFAULTS = {
    "paper": {
        "titan": {"switch": "pipelined", "preemptive": False, "tick_s": 0.0, "keep": "all",
                  "estimate": "exact", "placement": "pooled"},
        "baselines": {"switch": "naive", "tick_s": 0.0, "placement": "pooled",
                      "estimate": "exact", "attained": "work"},
    },
    "authors_code": {
        "titan": {"switch": "measured", "preemptive": True, "tick_s": 120.0,
                  "keep": "shortest", "estimate": "authors", "placement": "fewest_nodes"},
        "baselines": {"switch": "measured", "tick_s": 300.0, "placement": "fewest_nodes",
                      "estimate": "authors", "attained": "work_and_switches"},
    },
}
#: the baselines' behaviours that tell the authors' simulator from the paper's text, each
#: an option: its values (the paper's first) and what the authors' code does
BASELINE_OPTIONS = {
    "placement": (("pooled", "fewest_nodes"), "a job starts only on the fewest nodes its "
                  "width needs (their consolidating placement), else waits"),
    "estimate": (("exact", "authors"), "SRTF orders jobs by the authors' estimate of their "
                 "remaining time, one accumulation micro-step per iteration too long "
                 "(lorasched.titan.lut.estimated_step_time)"),
    "attained": (("work", "work_and_switches"), "Tiresias counts the seconds of context "
                 "switches as attained service"),
}
# The numpydoc fragments the policies' docstrings share, each written once: a docstring
# line that is only ``%(name)s`` is filled with fragment ``name`` (lorasched.model.docfill).
_DOCS = {
    "arrays": """
    arrays : TitanArrays
        The scenario.
    """,
    "rng": """
    rng : numpy.random.Generator
        Accepted for the common interface; draws no random numbers.
    """,
    "switch": """
    switch : {"pipelined", "naive", "none", "measured"} or dict, optional
        The switch cost of every start: a table of ``lorasched.titan.switch``, a user's
        table ``{gpus: seconds}``, or ``"measured"`` (the scenario's ``restart_s`` at every
        width, setup ``"authors_code"``). ``None`` (default): the setup's
        (:data:`SETUP_DEFAULTS`).
    """,
    "switch_scale": """
    switch_scale : float, optional
        Multiplies every switch cost (default 1).
    """,
    "tick_s": """
    tick_s : float, optional
        Decide only at multiples of ``tick_s`` seconds (0: event-driven). ``None``
        (default): the setup's.
    """,
    "returns": """
    Returns
    -------
    ~lorasched.titan.decisions.Schedule
        The run segments of every job (one unit per job).
    """,
    "raises": """
    Raises
    ------
    InputError
        Naming the first option out of its choices or range.
    """,
}
_doc = filler(_DOCS)



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


def cluster_options(arrays: TitanArrays, *, switch=None, switch_scale: float = 1.0,
                    preemptive: bool | None = None, tick_s: float | None = None,
                    keep: str | None = None, estimate: str | None = None,
                    placement: str | None = None) -> dict:
    """The options of TITAN's loop that a setup decides, resolved as :func:`titan` does.

    Parameters
    ----------
    arrays : TitanArrays
        The scenario (its ``setup`` gives the defaults, :data:`SETUP_DEFAULTS`).
    switch, switch_scale, preemptive, tick_s, keep, estimate, placement : optional
        As in :func:`titan`; ``None``: the setup's.

    Returns
    -------
    dict
        ``switch_s`` (seconds per allocation of ``arrays.allocations``), ``preemptive``,
        ``tick_s``, ``keep``, ``estimate`` and ``placement``: keywords of TITAN's loop
        (``TitanCluster``)
        and :class:`~lorasched.titan.env.AllocationProblem`.

    Raises
    ------
    InputError
        If ``preemptive`` is not a bool, or the switch table or its scale is invalid.
    """
    if not isinstance(arrays, TitanArrays):
        raise InputError(f"arrays must be TitanArrays (lorasched.titan.to_arrays), got "
                         f"{type(arrays).__name__}")
    o = _defaults(arrays, "titan", switch=switch, preemptive=preemptive, tick_s=tick_s,
                  keep=keep, estimate=estimate, placement=placement)
    if not isinstance(o["preemptive"], bool | np.bool_):
        raise InputError(f"'preemptive' must be True or False, got {o['preemptive']!r}")
    return {"switch_s": _switch(arrays, arrays.allocations, o["switch"], switch_scale),
            "preemptive": bool(o["preemptive"]), "tick_s": o["tick_s"], "keep": o["keep"],
            "estimate": o["estimate"], "placement": o["placement"]}


@_doc
def titan(arrays: TitanArrays, rng: np.random.Generator, *, merge: bool = True,
          switch=None, switch_scale: float = 1.0, preemptive: bool | None = None,
          constraints: str = "pairwise", candidates: str = "pairs",
          merge_length: str = "log", restart_cost: bool = True,
          tick_s: float | None = None, keep: str | None = None,
          objective: str = "paper", width: str = "elastic",
          estimate: str | None = None, placement: str | None = None) -> Schedule:
    """The policy ``titan``: TITAN's MILP scheduler with the task merger (sections 3-4).

    The event-driven loop of ``lorasched.titan.cluster``, whose docstring details every
    option. An option given as ``None`` takes the setup's default
    (:data:`SETUP_DEFAULTS`). Draws no random numbers.

    Parameters
    ----------
    %(arrays)s
    %(rng)s
    merge : bool, optional
        The task merger, eqs. 5-11 (default True).
    %(switch)s
    %(switch_scale)s
    preemptive : bool, optional
        Re-allocate running jobs (the authors' later code); ``None``: the setup's.
    constraints : {"pairwise", "literal"}, optional
        The reading of the merger's constraints (9)-(10) (default ``"pairwise"``).
    candidates : {"pairs", "all_pairs", "application", "cross_dataset"}, optional
        How merge candidates are formed (default ``"pairs"``).
    merge_length : {"log", "sum", "first", "authors"}, optional
        How long a merged job runs (default ``"log"``).
    restart_cost : bool, optional
        Preemptive only: the MILP weighs what a restart costs (default True).
    %(tick_s)s
    keep : {"all", "shortest"}, optional
        Offer the MILP every candidate, or only the ``M`` with the least work left (the
        authors' code); ``None``: the setup's.
    objective : {"paper", "authors_fair"}, optional
        Eq. (1) (default) or the objective of the authors' code.
    width : {"elastic", "requested"}, optional
        ``"elastic"`` (default, the paper): the MILP picks any allocation of the set A;
        ``"requested"``: each job (a merged one: its members' largest request) only the
        allocation nearest the GPUs it requested, as SRTF and Tiresias run it, so that
        TITAN changes when jobs start and which merge, not how wide they run (a
        counterfactual, not the paper's TITAN).
    estimate : {"exact", "authors"}, optional
        The remaining times ``keep="shortest"`` ranks by and ``objective="authors_fair"``
        weighs: the true ones, or the authors' simulator's estimate (one accumulation
        micro-step per iteration too many, whole seconds:
        ``lorasched.titan.lut.estimated_step_time``; setup ``"authors_code"``). ``None``
        (default): the setup's.
    placement : {"pooled", "fewest_nodes"}, optional
        Where a started job's GPUs come from: one pool (the paper's), or nodes, the widest
        start first, each only on the fewest nodes its width needs, else waiting for the
        next decision (the authors' code's consolidating placement; setup
        ``"authors_code"``). ``None`` (default): the setup's.

    Returns
    -------
    ~lorasched.titan.decisions.Schedule
        The run segments of every job.

    %(raises)s
    """
    o = _defaults(arrays, "titan", switch=switch, preemptive=preemptive, tick_s=tick_s,
                  keep=keep, estimate=estimate, placement=placement)
    for name, flag in (("merge", merge), ("preemptive", o["preemptive"]),
                       ("restart_cost", restart_cost)):
        if not isinstance(flag, bool | np.bool_):
            raise InputError(f"{name!r} must be True or False, got {flag!r}")
    cost = _switch(arrays, arrays.allocations, o["switch"], switch_scale)
    return run_titan(arrays, cost, merge=bool(merge), preemptive=bool(o["preemptive"]),
                     constraints=constraints, candidates=candidates,
                     merge_length=merge_length, restart_cost=bool(restart_cost),
                     tick_s=o["tick_s"], keep=o["keep"], objective=objective, width=width,
                     estimate=o["estimate"], placement=o["placement"])


#: The ablations of Table 3, :func:`titan` with an option fixed, one
#: :class:`~lorasched.model.presets.Preset` each: their functions below, docstrings and
#: registry entries are made from it. ``held``: options they do not offer, left at
#: :func:`titan`'s defaults.
PRESETS = (
    Preset("titan_nomerge", titan, {"merge": False}, label="w/o task merger",
           source="Table 3", description="TITAN without the task merger",
           held=("constraints", "candidates", "merge_length", "width")),
    Preset("titan_noswitch", titan, {"switch": "naive"}, label="w/o pipeline switch",
           source="Table 3", description="TITAN with the naive context switch",
           held=("merge", "objective", "width")),
)
titan_nomerge, titan_noswitch = build_all(PRESETS, __name__)


@_doc
def srtf(arrays: TitanArrays, rng: np.random.Generator, *, switch=None,
         switch_scale: float = 1.0, tick_s: float | None = None, placement: str | None = None,
         estimate: str | None = None) -> Schedule:
    """The baseline ``srtf``: non-preemptive shortest remaining time first.

    Each job runs on the GPUs it requested; its remaining time is its remaining seconds on
    them, known exactly (module docstring).

    Parameters
    ----------
    %(arrays)s
    %(rng)s
    %(switch)s
    %(switch_scale)s
    %(tick_s)s
    placement : {"pooled", "fewest_nodes"}, optional
        One pool of GPUs (the paper's), or nodes, a job starting only on the fewest its
        width needs (the authors' simulator; :data:`BASELINE_OPTIONS`). ``None``: the
        setup's.
    estimate : {"exact", "authors"}, optional
        The remaining time SRTF orders by: the true one (the paper's), or the authors'
        simulator's estimate. ``None``: the setup's.

    %(returns)s
    """
    o = _defaults(arrays, "baselines", estimate=estimate)
    _choice("estimate", o["estimate"])
    factor = (None if o["estimate"] == "exact" else
              tuple((arrays.estimated_iter_s / arrays.requested_iter_s).tolist()))
    return _jobsim(arrays, SRTF(estimate=factor), False, switch, switch_scale, tick_s,
                   placement)


@_doc
def tiresias(arrays: TitanArrays, rng: np.random.Generator, *, switch=None,
             switch_scale: float = 1.0,
             threshold_gpu_s: float = TIRESIAS_THRESHOLD_GPU_S,
             tick_s: float | None = None, placement: str | None = None,
             attained: str | None = None) -> Schedule:
    """The baseline ``tiresias``: Tiresias' two-queue discretised 2D-LAS, preemptive.

    Each job runs on the GPUs it requested, ordered by attained service (it needs no job
    length).

    Parameters
    ----------
    %(arrays)s
    %(rng)s
    %(switch)s
    %(switch_scale)s
    threshold_gpu_s : float, optional
        The first queue's limit, GPU-seconds of attained service (default
        :data:`TIRESIAS_THRESHOLD_GPU_S`, 4 GPU-hours).
    %(tick_s)s
    placement : {"pooled", "fewest_nodes"}, optional
        As in :func:`srtf`.
    attained : {"work", "work_and_switches"}, optional
        The attained service: the work done (Tiresias' own), or with the seconds of
        context switches (the authors' simulator). ``None``: the setup's.

    %(returns)s
    """
    o = _defaults(arrays, "baselines", attained=attained)
    _choice("attained", o["attained"])
    return _jobsim(arrays, Tiresias(threshold=threshold_gpu_s, service="gpu_time",
                                    switches=o["attained"] == "work_and_switches"), True,
                   switch, switch_scale, tick_s, placement)


@_doc
def fifo(arrays: TitanArrays, rng: np.random.Generator, *, switch=None,
         switch_scale: float = 1.0, tick_s: float | None = None) -> Schedule:
    """The reference ``fifo``: non-preemptive first come, first served.

    Each job runs on the GPUs it requested. Not in the paper: a reference that isolates the
    baselines' order (module docstring).

    Parameters
    ----------
    %(arrays)s
    %(rng)s
    %(switch)s
    %(switch_scale)s
    %(tick_s)s

    %(returns)s
    """
    return _jobsim(arrays, "fifo", False, switch, switch_scale, tick_s)


@_doc
def random(arrays: TitanArrays, rng: np.random.Generator, *, merge: bool = True,
           switch=None, switch_scale: float = 1.0, preemptive: bool | None = None,
           candidates: str = "pairs", merge_length: str = "log",
           tick_s: float | None = None, keep: str | None = None) -> Schedule:
    """The floor ``random``: a random feasible allocation at every event of TITAN's loop.

    The floor of the benchmark suite: at each event at which TITAN's MILP would run, the
    candidates it would be offered (jobs, and merge candidates with ``merge``) get the
    GPUs of :meth:`~lorasched.titan.env.AllocationProblem.random_action` instead (each slot
    in random order draws uniformly among its feasible allocations, none included, and
    at least one candidate starts when one can). Same seed, same run.

    Parameters
    ----------
    %(arrays)s
    rng : numpy.random.Generator
        Draws every choice.
    merge, switch, switch_scale, preemptive, candidates, merge_length, tick_s, keep : optional
        As in :func:`titan` (``None``: the setup's, :data:`SETUP_DEFAULTS`).

    Returns
    -------
    ~lorasched.titan.decisions.Schedule
        The run segments of every unit.

    %(raises)s
    """
    problem = AllocationProblem(
        arrays, rng, merge=merge, candidates=candidates, merge_length=merge_length,
        **cluster_options(arrays, switch=switch, switch_scale=switch_scale,
                          preemptive=preemptive, tick_s=tick_s, keep=keep))
    while not problem.done:
        problem.step(problem.random_action())
    return problem.output()


def _choice(name: str, value) -> None:
    """Refuse a value of a baseline option of :data:`BASELINE_OPTIONS` outside its
    choices."""
    choices = BASELINE_OPTIONS[name][0]
    if value not in choices:
        raise InputError(f"{name} must be one of {choices}, got {value!r}")


def _jobsim(arrays: TitanArrays, discipline, preemptive: bool, switch,
            switch_scale: float, tick_s, placement: str | None = None) -> Schedule:
    o = _defaults(arrays, "baselines", switch=switch, tick_s=tick_s, placement=placement)
    _choice("placement", o["placement"])
    per_node = None
    if o["placement"] == "fewest_nodes":
        if arrays.gpus_per_node <= 0:
            raise InputError("placement='fewest_nodes' needs a scenario that records its "
                             "'gpus_per_node'")
        per_node = arrays.gpus_per_node
    gpus = arrays.requested_gpus
    work = arrays.iterations * arrays.requested_iter_s
    overhead = _switch(arrays, gpus, o["switch"], switch_scale)
    res = jobsim_simulate(arrays.submit, gpus, work, arrays.gpus, discipline,
                          preemptive=preemptive, backfill=True, overhead=overhead,
                          tick_s=o["tick_s"], gpus_per_node=per_node)
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


#: The policies by name, each ``run(arrays, rng, **options)`` returning a Schedule; the
#: TITAN system's registry (:class:`~lorasched.model.system.System`).
REGISTRY = {
    "titan": titan,
    "titan_nomerge": titan_nomerge,
    "titan_noswitch": titan_noswitch,
    "srtf": srtf,
    "tiresias": tiresias,
    "fifo": fifo,
    "random": random,
}
