"""Queue disciplines, the order in which the job engine offers GPUs to the jobs: FIFO, SJF,
SRTF, LAS, Tiresias and EDF (:data:`DISCIPLINES`, :func:`discipline`). Their keys:
:doc:`/reference/jobsim`.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np

from ..model.errors import InputError

SERVICES = ("time", "gpu_time")


class JobView(NamedTuple):
    """The jobs in the system at one instant (one entry per job, plain arrays).

    ``arrival`` (s), ``gpus``, ``work`` (s on its GPUs), ``remaining`` (s of ``work`` left
    now), ``deadline`` (s, or ``None`` when the simulation has no deadlines),
    ``switched`` (s each job has spent in context switches so far, or ``None``) and
    ``index`` (each job's position in the engine's input, or ``None``).
    """

    arrival: np.ndarray
    gpus: np.ndarray
    work: np.ndarray
    remaining: np.ndarray
    deadline: np.ndarray | None = None
    switched: np.ndarray | None = None
    index: np.ndarray | None = None

    @property
    def attained(self) -> np.ndarray:
        """Seconds of service received so far: ``work - remaining``."""
        return self.work - self.remaining


def _service(jobs: JobView, seconds: np.ndarray, service: str) -> np.ndarray:
    return seconds * jobs.gpus if service == "gpu_time" else seconds


def _check_service(cls: str, service) -> None:
    if service not in SERVICES:
        raise InputError(f"{cls}: 'service' must be one of {SERVICES}, got {service!r}")


def _check_seconds(cls: str, name: str, value, *, optional: bool = False) -> None:
    if optional and value is None:
        return
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not math.isfinite(value) or not value > 0):
        raise InputError(f"{cls}: {name!r} must be a positive finite number, got {value!r}")


@dataclass(frozen=True)
class Discipline:
    """Base class: ``key(jobs)`` orders the jobs (smaller first); see the module docstring."""

    name: ClassVar[str] = ""
    needs_deadline: ClassVar[bool] = False

    def key(self, jobs: JobView) -> np.ndarray:
        raise NotImplementedError

    def review_in(self, jobs: JobView, running: np.ndarray) -> float:
        """Seconds from now until the order may change with no arrival or completion.

        ``running`` is a boolean mask over ``jobs``. ``math.inf`` (the default): never.
        """
        return math.inf


@dataclass(frozen=True)
class FIFO(Discipline):
    """First in, first out: key = arrival time."""

    name: ClassVar[str] = "fifo"

    def key(self, jobs: JobView) -> np.ndarray:
        return np.asarray(jobs.arrival, dtype=np.float64)


@dataclass(frozen=True)
class SJF(Discipline):
    """Shortest job first: key = total size (``work``, times ``gpus`` for ``"gpu_time"``)."""

    service: str = "time"
    name: ClassVar[str] = "sjf"

    def __post_init__(self):
        _check_service("SJF", self.service)

    def key(self, jobs: JobView) -> np.ndarray:
        return _service(jobs, jobs.work, self.service)


@dataclass(frozen=True)
class SRTF(Discipline):
    """Shortest remaining time first: key = remaining work (times ``gpus`` for ``"gpu_time"``).

    Run with ``preemptive=False`` this is TITAN's non-preemptive SRTF baseline (sec. 1).
    ``estimate`` (one factor per job, in the engine's job order; default none): the key
    is the remaining work times the job's factor, a scheduler that misjudges each job's
    length by that factor (the TITAN authors' simulator's, see
    :func:`lorasched.titan.lut.estimate_factor`).
    """

    service: str = "time"
    estimate: tuple | None = None
    name: ClassVar[str] = "srtf"

    def __post_init__(self):
        _check_service("SRTF", self.service)
        if self.estimate is not None:
            e = np.asarray(self.estimate, dtype=float)
            if e.ndim != 1 or not np.all(np.isfinite(e) & (e > 0)):
                raise InputError("SRTF: 'estimate' must be positive finite factors, one per "
                                 "job")

    def key(self, jobs: JobView) -> np.ndarray:
        left = jobs.remaining
        if self.estimate is not None:
            if jobs.index is None:
                raise InputError("SRTF with 'estimate' needs the jobs' 'index'")
            left = left * np.asarray(self.estimate, dtype=float)[jobs.index]
        return _service(jobs, left, self.service)


@dataclass(frozen=True)
class LAS(Discipline):
    """Least attained service: key = ``work - remaining`` (times ``gpus`` for ``"gpu_time"``).

    Without ``quantum_s`` the order is revisited only at arrivals and completions, so a
    job that starts keeps its GPUs until one of those. With ``quantum_s`` a preemptive
    engine also re-decides every ``quantum_s`` seconds while some job waits: jobs with equal
    attained service then take turns (ties go to the earlier arrival), as in round robin.
    """

    service: str = "time"
    quantum_s: float | None = None
    name: ClassVar[str] = "las"

    def __post_init__(self):
        _check_service("LAS", self.service)
        _check_seconds("LAS", "quantum_s", self.quantum_s, optional=True)

    def key(self, jobs: JobView) -> np.ndarray:
        return _service(jobs, jobs.attained, self.service)

    def review_in(self, jobs: JobView, running: np.ndarray) -> float:
        return math.inf if self.quantum_s is None else float(self.quantum_s)


@dataclass(frozen=True)
class Tiresias(Discipline):
    """Tiresias' discretised two-queue LAS (Gu et al., NSDI'19, sec. 3.2).

    Key 0 (high-priority queue) while the attained service is below ``threshold`` (s, or
    GPU-s for ``service="gpu_time"``, the default: Tiresias' 2D-LAS), else 1; jobs of a
    queue go in arrival order (the engine's tie-break). A preemptive engine re-decides
    when a running job reaches the threshold (:meth:`review_in`). ``switches=True``
    counts the seconds spent in context switches as attained service too (the TITAN
    authors' simulator does; Tiresias' paper counts the service a job received).
    """

    threshold: float
    service: str = "gpu_time"
    switches: bool = False
    name: ClassVar[str] = "tiresias"

    def __post_init__(self):
        _check_seconds("Tiresias", "threshold", self.threshold)
        _check_service("Tiresias", self.service)
        if not isinstance(self.switches, bool | np.bool_):
            raise InputError(f"Tiresias: 'switches' must be True or False, got "
                             f"{self.switches!r}")

    def _attained(self, jobs: JobView) -> np.ndarray:
        seconds = jobs.attained
        if self.switches and jobs.switched is not None:  # the authors' simulator's count
            seconds = seconds + jobs.switched
        return _service(jobs, seconds, self.service)

    def _tolerance(self) -> float:  # round-off of work - remaining at the threshold
        return 1e-9 * max(1.0, float(self.threshold))

    def key(self, jobs: JobView) -> np.ndarray:
        demoted = self._attained(jobs) >= self.threshold - self._tolerance()
        return demoted.astype(np.float64)

    def review_in(self, jobs: JobView, running: np.ndarray) -> float:
        gap = self.threshold - self._attained(jobs)
        rising = running & (gap > self._tolerance())
        if not rising.any():
            return math.inf
        rate = jobs.gpus[rising] if self.service == "gpu_time" else 1.0
        return float(np.min(gap[rising] / rate))


@dataclass(frozen=True)
class EDF(Discipline):
    """Earliest deadline first: key = deadline (needs the engine's ``deadline``)."""

    name: ClassVar[str] = "edf"
    needs_deadline: ClassVar[bool] = True

    def key(self, jobs: JobView) -> np.ndarray:
        if jobs.deadline is None:
            raise InputError("EDF: the jobs have no 'deadline'")
        return np.asarray(jobs.deadline, dtype=np.float64)


#: name -> discipline class, for :func:`discipline`
DISCIPLINES: dict[str, type[Discipline]] = {
    cls.name: cls for cls in (FIFO, SJF, SRTF, LAS, Tiresias, EDF)
}


def discipline(spec: str | Discipline, **options) -> Discipline:
    """A :class:`Discipline` from its name in :data:`DISCIPLINES` and options, or as is."""
    if isinstance(spec, Discipline):
        if options:
            raise InputError(f"options {sorted(options)} given with a ready-made discipline "
                             f"{spec!r}")
        return spec
    if not isinstance(spec, str) or spec.lower() not in DISCIPLINES:
        raise InputError(f"discipline must be one of {sorted(DISCIPLINES)} or a Discipline, "
                         f"got {spec!r}")
    cls = DISCIPLINES[spec.lower()]
    try:
        return cls(**options)
    except TypeError as err:
        raise InputError(f"discipline {spec!r}: bad options {options} ({err})") from None
