"""Event-driven simulation of rigid GPU jobs under queue disciplines (no system's names), shared
by TITAN's and Allpass's baselines: :mod:`.queues` (FIFO, SJF, SRTF, LAS, Tiresias, EDF) and
:mod:`.engine` (:func:`~.engine.simulate`, :class:`~.engine.JobEngine`); see
:doc:`/reference/jobsim`.
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
