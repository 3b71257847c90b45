"""Event-driven simulation of rigid GPU jobs under queue disciplines (no system's names).

The shared job engine of the TITAN (SoCC'22: SRTF and Tiresias baselines, JCT) and Allpass
(2025: EDF, SJF, Tiresias-L) systems.

:mod:`lorasched.jobsim.queues`
    ``JobView``, ``Discipline`` and the disciplines ``FIFO``, ``SJF``, ``SRTF``, ``LAS``,
    ``Tiresias`` (discretised two-queue LAS), ``EDF``; ``DISCIPLINES`` (name -> class) and
    ``discipline(name, **options)``.
:mod:`lorasched.jobsim.engine`
    ``simulate(arrival, gpus, work, total_gpus, discipline, *, deadline, preemptive,
    backfill, overhead)``, the state object ``JobEngine`` (``step``/``run``/``snapshot``/
    ``restore``/``result``), ``JobSimResult``, ``mean_jct``, ``busy_gpus`` and the log
    kinds ``RUN``, ``PREEMPT``, ``FINISH``.
"""

from .engine import FINISH, PREEMPT, RUN, JobEngine, JobSimResult, busy_gpus, mean_jct, simulate
from .queues import (
    DISCIPLINES,
    EDF,
    FIFO,
    LAS,
    SJF,
    SRTF,
    Discipline,
    JobView,
    Tiresias,
    discipline,
)

__all__ = [
    "DISCIPLINES", "EDF", "FIFO", "FINISH", "LAS", "PREEMPT", "RUN", "SJF", "SRTF",
    "Discipline", "JobEngine", "JobSimResult", "JobView", "Tiresias", "busy_gpus",
    "discipline", "mean_jct", "simulate",
]
