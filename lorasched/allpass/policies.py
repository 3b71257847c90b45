"""The Allpass system's policies, name -> ``run(arrays, rng, **options) -> Run``
(:data:`REGISTRY`): Allpass, its fixed-F variants (:data:`PRESETS`), TL-P/TL-NP,
SJF-P/SJF-NP, HPA, Modal, the queue-all oracle and the random floor. What each is and
gets: :doc:`/reference/allpass_cluster`. A policy of your own:
``lorasched.systems.get("allpass").register(name, run)``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..model.docfill import filler
from ..model.errors import InputError
from ..model.presets import Preset, build_all
from .cluster import (
    CHECKPOINT_S,
    HPA_TARGET,
    HPA_WINDOW_S,
    QUANTUM_S,
    RESTORE_S,
    TIRESIAS_THRESHOLD_S,
    AllpassCluster,
)
from .decisions import Run
from .env import MAX_STEP, ProvisioningProblem
from .pressure import RULES, UNITS, WINDOW_S
from .scalers import F0, READINGS, ServerlessScaler
from .scenario import AllpassArrays

# The numpydoc fragments the policies' docstrings share, each written once: a docstring
# line that is only ``%(name)s`` is filled with fragment ``name`` (lorasched.model.docfill).
_DOCS = {
    "arrays": """
    arrays : AllpassArrays
        The scenario.
    """,
    "rng": """
    rng : numpy.random.Generator
        Draws the providers' start-up delays.
    """,
    "reading": """
    reading : {"evident", "literal"}, optional
        The reading of Algorithm 2 (default ``"evident"``; ``lorasched.allpass.scalers``).
    """,
    "overdue": """
    overdue : bool, optional
        Count jobs past their deadline in D (eq. 1; default True); False is the literal
        window ``(t, t + T]`` (``lorasched.allpass.pressure``).
    """,
    "units": """
    units : {"paper", "slip"}, optional
        ``"slip"``: D's seconds against ``C_t T`` in minutes, ``p`` 60 times larger (a
        hypothesis about the authors' code, never the default; ``lorasched.allpass.pressure``).
    """,
    "overheads": """
    checkpoint_s, restore_s : float, optional
        Seconds of the checkpoint and the restore of a demotion or a preemption (default
        42 + 42 = the paper's 1.4 min).
    """,
    "returns": """
    Returns
    -------
    Run
        What the run decided.
    """,
    "raises": """
    Raises
    ------
    InputError
        Naming the first option out of its choices or range.
    """,
}
_doc = filler(_DOCS)


def _seconds(name: str, value, *, positive: bool = False) -> float:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not math.isfinite(value) or value < 0 or (positive and value == 0)):
        raise InputError(f"{name!r} must be a {'positive' if positive else 'non-negative'} "
                         f"finite number, got {value!r}")
    return float(value)


def _overheads(checkpoint_s, restore_s) -> dict:
    return {"checkpoint_s": _seconds("checkpoint_s", checkpoint_s),
            "restore_s": _seconds("restore_s", restore_s)}


def _run(arrays: AllpassArrays, rng: np.random.Generator, **settings) -> Run:
    cluster = AllpassCluster(arrays.submit, arrays.work, arrays.deadline, arrays.offers,
                             arrays.capacity, rng, **settings)
    cluster.run()
    return cluster.result()


@_doc
def allpass(arrays: AllpassArrays, rng: np.random.Generator, *, F0: float = F0,
            G_up: float = 10.0, R_up: float = 100.0, G_dn: float = 2.0, R_dn: float = 30.0,
            reading: str = "evident", overdue: bool = True, demand: str = "deadline",
            units: str = "paper", checkpoint_s: float = CHECKPOINT_S,
            restore_s: float = RESTORE_S, window_s: float = WINDOW_S) -> Run:
    """The policy ``allpass``: Allpass as its section 3 describes it.

    Serverless first with the adaptive threshold F (Algorithm 1), an EDF serverful queue,
    and DBF-driven workers (Algorithm 2).

    Parameters
    ----------
    %(arrays)s
    %(rng)s
    F0 : float, optional
        The initial serverless threshold, s (sec. 5.1's 300).
    G_up, R_up, G_dn, R_dn : float, optional
        The gains of Algorithm 1 (sec. 5.1's values: 10, 100, 2, 30).
    %(reading)s
    %(overdue)s
    demand : {"deadline", "laxity"}, optional
        ``"laxity"``: the work each window must deliver for the deadlines to be met
        instead of eq. (1) (lorasched's option, not the paper's;
        ``lorasched.allpass.pressure``); default ``"deadline"``.
    %(units)s
    %(overheads)s
    window_s : float, optional
        The largest window T of eq. (2), s (default sec. 5.1's 30 min); the windows are
        every tick up to it (``lorasched.allpass.pressure.window_set``).

    %(returns)s

    %(raises)s
    """
    _check_dbf(reading, overdue, demand, units)
    scaler = ServerlessScaler(G_up=G_up, R_up=R_up, G_dn=G_dn, R_dn=R_dn,
                              F0=_seconds("F0", F0))
    return _run(arrays, rng, serverless="adaptive", F=F0, scaler=scaler, discipline="edf",
                provision="dbf", reading=reading, overdue=bool(overdue), demand=demand,
                units=units, window_s=_seconds("window_s", window_s, positive=True),
                **_overheads(checkpoint_s, restore_s))


def _check_dbf(reading, overdue, demand="deadline", units="paper") -> None:
    """``ValueError`` naming the first bad option of the DBF provisioning."""
    if demand not in RULES:
        raise InputError(f"'demand' must be one of {RULES}, got {demand!r}")
    if reading not in READINGS:
        raise InputError(f"'reading' must be one of {READINGS}, got {reading!r}")
    if not isinstance(overdue, bool | np.bool_):
        raise InputError(f"'overdue' must be True or False, got {overdue!r}")
    if units not in UNITS:
        raise InputError(f"'units' must be one of {UNITS}, got {units!r}")


@_doc
def allpass_fixed(arrays: AllpassArrays, rng: np.random.Generator, *, F: float = 60.0,
                  reading: str = "evident", overdue: bool = True, units: str = "paper",
                  checkpoint_s: float = CHECKPOINT_S, restore_s: float = RESTORE_S) -> Run:
    """Allpass with a fixed serverless threshold ``F``; Algorithm 2 as in Allpass.

    Parameters
    ----------
    %(arrays)s
    %(rng)s
    F : float, optional
        The serverless threshold, s (default 60).
    %(reading)s
    %(overdue)s
    %(units)s
    %(overheads)s

    %(returns)s

    %(raises)s
    """
    _check_dbf(reading, overdue, units=units)
    return _run(arrays, rng, serverless="fixed", F=_seconds("F", F), discipline="edf",
                provision="dbf", reading=reading, overdue=bool(overdue), units=units,
                **_overheads(checkpoint_s, restore_s))


#: The policies that are another policy with an option fixed, one
#: :class:`~lorasched.model.presets.Preset` each: their functions below, docstrings, registry
#: entries and :data:`LABELS` are made from it.
PRESETS = (
    Preset("allpass_fixed60", allpass_fixed, {"F": 60.0}, label="Fixed-60s",
           source="Figure 11", description="Allpass with F fixed at 60 s"),
    Preset("allpass_fixed600", allpass_fixed, {"F": 600.0}, label="Fixed-600s",
           source="Figure 11", description="Allpass with F fixed at 600 s"),
)
allpass_fixed60, allpass_fixed600 = build_all(PRESETS, __name__)


def _serverful(arrays, rng, discipline, *, preemptive=False, share="none",
               provision="on-demand", checkpoint_s=CHECKPOINT_S, restore_s=RESTORE_S,
               **extra) -> Run:
    return _run(arrays, rng, serverless="none", discipline=discipline,
                preemptive=preemptive, share=share, provision=provision,
                **_overheads(checkpoint_s, restore_s), **extra)


@_doc
def tl_p(arrays, rng, *, threshold_s: float = TIRESIAS_THRESHOLD_S,
         checkpoint_s: float = CHECKPOINT_S, restore_s: float = RESTORE_S) -> Run:
    """The baseline ``tl_p``: Tiresias-L, preemptive, serverful only.

    A job that reaches ``threshold_s`` of attained service drops to the low queue; a
    high-queue job preempts a low-queue one. Workers are rented on demand under the cap.

    Parameters
    ----------
    %(arrays)s
    %(rng)s
    threshold_s : float, optional
        The first queue's limit, seconds of attained service. Not in the Allpass paper:
        one hour, lorasched's choice (default 3600; TITAN's Tiresias uses the TITAN
        authors' four GPU-hours).
    %(overheads)s

    %(returns)s

    %(raises)s
    """
    return _serverful(arrays, rng, "tiresias", preemptive=True,
                      tiresias_threshold_s=_seconds("threshold_s", threshold_s, positive=True),
                      checkpoint_s=checkpoint_s, restore_s=restore_s)


@_doc
def tl_np(arrays, rng, *, threshold_s: float = TIRESIAS_THRESHOLD_S,
          checkpoint_s: float = CHECKPOINT_S, restore_s: float = RESTORE_S) -> Run:
    """The baseline ``tl_np``: Tiresias-L without preemption, serverful only.

    A placed job runs to its end (every queued job has attained nothing, so the order is
    arrival order: head-of-line blocking, sec. 5.2).

    Parameters
    ----------
    %(arrays)s
    %(rng)s
    threshold_s : float, optional
        The first queue's limit, seconds of attained service (default 3600).
    %(overheads)s

    %(returns)s

    %(raises)s
    """
    return _serverful(arrays, rng, "tiresias", preemptive=False,
                      tiresias_threshold_s=_seconds("threshold_s", threshold_s, positive=True),
                      checkpoint_s=checkpoint_s, restore_s=restore_s)


@_doc
def sjf_p(arrays, rng, *, quantum_s: float = QUANTUM_S, checkpoint_s: float = CHECKPOINT_S,
          restore_s: float = RESTORE_S) -> Run:
    """The baseline ``sjf_p``: SJF with proportional share, serverful only; an oracle.

    Stride scheduling (sec. 5.2 cites Waldspurger & Weihl) with tickets proportional to
    1 / work: it knows every job's work in advance.

    Parameters
    ----------
    %(arrays)s
    %(rng)s
    quantum_s : float, optional
        Re-decided every ``quantum_s`` seconds (lorasched's choice, 10 min; the paper
        names no quantum).
    %(overheads)s

    %(returns)s

    %(raises)s
    """
    return _serverful(arrays, rng, "sjf", share="stride",
                      quantum_s=_seconds("quantum_s", quantum_s, positive=True),
                      checkpoint_s=checkpoint_s, restore_s=restore_s)


@_doc
def sjf_np(arrays, rng, *, checkpoint_s: float = CHECKPOINT_S,
           restore_s: float = RESTORE_S) -> Run:
    """The baseline ``sjf_np``: non-preemptive SJF on each job's true work.

    An oracle, as in the paper; serverful only.

    Parameters
    ----------
    %(arrays)s
    %(rng)s
    %(overheads)s

    %(returns)s
    """
    return _serverful(arrays, rng, "sjf", checkpoint_s=checkpoint_s, restore_s=restore_s)


@_doc
def hpa(arrays, rng, *, target: float = HPA_TARGET, window_s: float = HPA_WINDOW_S) -> Run:
    """The baseline ``hpa``: Kubernetes HPA on the serverful tier, FIFO queue.

    ``desired = ceil(I u / target)`` every tick, downscale stabilised over ``window_s``
    (``lorasched.allpass.cluster``'s docstring).

    Parameters
    ----------
    %(arrays)s
    %(rng)s
    target : float, optional
        The target GPU utilisation, in (0, 1] (default 0.7).
    window_s : float, optional
        The downscale stabilisation window, s (default 300).

    %(returns)s

    %(raises)s
    """
    if (isinstance(target, bool) or not isinstance(target, numbers.Real)
            or not 0 < target <= 1):
        raise InputError(f"'target' must be in (0, 1], got {target!r}")
    return _serverful(arrays, rng, "fifo", provision="hpa", hpa_target=float(target),
                      hpa_window_s=_seconds("window_s", window_s))


@_doc
def modal(arrays, rng) -> Run:
    """The baseline ``modal``: every job on a Modal worker of its own, start to end.

    Parameters
    ----------
    %(arrays)s
    %(rng)s

    %(returns)s
    """
    return _run(arrays, rng, serverless="all", discipline="fifo", provision="on-demand")


@_doc
def queue_all_oracle(arrays, rng, *, F: float = F0, checkpoint_s: float = CHECKPOINT_S,
                     restore_s: float = RESTORE_S) -> Run:
    """The oracle ``queue_all_oracle``: a worker for every queued job at once (lorasched's).

    An **oracle** baseline, not the paper's: Allpass's serverless front with the threshold
    fixed at ``F``, the EDF serverful queue, and a worker rented for every queued job the
    instant it is queued, up to the scenario's cap (the ``"on-demand"`` provisioning of
    ``lorasched.allpass.cluster``; no cap in the unlimited setup). It sees the whole queue
    at every event and rents with no feedback lag (no tick, no pressure, no gain): what
    its jobs still queue is set by the workload, the cap and the providers' start-up
    times, a floor under any provisioning rule.

    Parameters
    ----------
    %(arrays)s
    %(rng)s
    F : float, optional
        The serverless threshold, s (default sec. 5.1's ``F0`` = 300).
    %(overheads)s

    %(returns)s

    %(raises)s
    """
    return _run(arrays, rng, serverless="fixed", F=_seconds("F", F), discipline="edf",
                provision="on-demand", **_overheads(checkpoint_s, restore_s))


@_doc
def random(arrays: AllpassArrays, rng: np.random.Generator, *,
           max_step: int = MAX_STEP) -> Run:
    """The policy ``random``: uniformly random provisioning each minute, the suite's floor.

    Allpass with Algorithm 2 replaced by a random change in serverful workers each tick,
    drawn uniformly from the changes possible without clipping (at most ``max_step``
    either way, no more releases than idle ready workers, no more additions than the
    cap's room) through :class:`lorasched.allpass.env.ProvisioningProblem`. It finishes
    every job: it releases only idle ready workers, and the liveness rule adds a worker
    whenever none is open and jobs wait. A floor for learned and hand-written policies,
    not a baseline of the paper.

    Parameters
    ----------
    %(arrays)s
    rng : numpy.random.Generator
        Draws the actions and the providers' start-up delays (same seed, same run).
    max_step : int, optional
        The largest change per tick (default 4).

    %(returns)s

    Raises
    ------
    InputError
        If ``max_step`` is not an integer >= 1.
    """
    problem = ProvisioningProblem(arrays, rng, max_step=max_step)
    actions = problem.actions()
    while not problem.done:
        problem.step(int(rng.choice(actions[problem.valid_actions()])))
    return problem.output()


#: The policies by name, each ``run(arrays, rng, **options)`` returning a Run; the Allpass
#: system's registry (:class:`~lorasched.model.system.System`).
REGISTRY = {
    "allpass": allpass,
    "allpass_fixed60": allpass_fixed60,
    "allpass_fixed600": allpass_fixed600,
    "tl_p": tl_p,
    "tl_np": tl_np,
    "sjf_p": sjf_p,
    "sjf_np": sjf_np,
    "hpa": hpa,
    "modal": modal,
    "queue_all_oracle": queue_all_oracle,
    "random": random,
}
#: The paper's label of each policy.
LABELS = {"allpass": "Allpass", **{p.name: p.label for p in PRESETS},
          "tl_p": "TL-P", "tl_np": "TL-NP",
          "sjf_p": "SJF-P", "sjf_np": "SJF-NP", "hpa": "HPA", "modal": "Modal",
          "queue_all_oracle": "Queue-all (oracle)",
          "random": "Random"}
