"""Job tables: a trace's jobs as arrays (:class:`JobTable`, :func:`job_table`), a time window
of them (:func:`job_window`), a filter (:func:`filter_jobs`) and a seeded sample
(:func:`sample_jobs`); see :doc:`/reference/traces`.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .traces import DAY_SECONDS, DAY_START_S, read_trace, representative_day

FIELDS = ("job", "submit_s", "duration_s", "num_gpus")


@dataclass(frozen=True, eq=False)
class JobTable:
    """Jobs as read-only arrays of one length, sorted by ``submit_s``.

    ``job`` (int64): row of the source trace; ``submit_s`` (float64, s): submission time
    from ``origin_s``; ``duration_s`` (float64, s): run time on its GPUs; ``num_gpus``
    (int64): GPUs the job asks for. ``name``: the trace's short name; ``origin_s``: the
    trace-clock time of ``submit_s == 0``.
    """

    name: str
    origin_s: float
    job: np.ndarray
    submit_s: np.ndarray
    duration_s: np.ndarray
    num_gpus: np.ndarray

    def __post_init__(self):
        if np.ndim(self.job) != 1:
            raise InputError(f"JobTable: 'job' must be 1-d, got shape {np.shape(self.job)}")
        n = np.shape(self.job)[0]
        for field, dtype in zip(FIELDS, (np.int64, np.float64, np.float64, np.int64),
                                strict=True):
            values = np.array(getattr(self, field), dtype=dtype)  # a copy: the table owns it
            if values.shape != (n,):
                raise InputError(f"JobTable: {field!r} has shape {values.shape}, 'job' has "
                                 f"({n},)")
            values.setflags(write=False)
            object.__setattr__(self, field, values)
        if n and (np.diff(self.submit_s) < 0).any():
            raise InputError("JobTable: rows must be sorted by 'submit_s'")

    def __len__(self) -> int:
        return int(self.job.shape[0])

    def take(self, rows) -> JobTable:
        """The rows ``rows`` (indices or a boolean mask), re-sorted by submission (stable)."""
        rows = np.arange(len(self))[np.asarray(rows)]
        rows = rows[np.argsort(self.submit_s[rows], kind="stable")]
        return JobTable(self.name, self.origin_s, self.job[rows], self.submit_s[rows],
                        self.duration_s[rows], self.num_gpus[rows])


def job_table(trace) -> JobTable:
    """All jobs of ``trace`` (a :class:`Trace`, short name or path), on the trace clock."""
    trace = read_trace(trace)
    for column in ("duration_s", "num_gpus"):
        if getattr(trace, column) is None:
            raise InputError(f"{trace.path}: trace {trace.name!r} has no column {column!r}; "
                             "a job table needs 'submit_time_s', 'duration_s' and 'num_gpus'")
    return JobTable(trace.name, 0.0, np.arange(trace.submit_s.size), trace.submit_s,
                    trace.duration_s, trace.num_gpus)


def _real(name: str, value, *, positive: bool = False) -> float:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not math.isfinite(value) or (positive and not value > 0)):
        kind = "a positive finite number" if positive else "a finite number"
        raise InputError(f"{name!r} must be {kind} of seconds, got {value!r}")
    return float(value)


def job_window(trace, start_s, length_s: float = DAY_SECONDS) -> JobTable:
    """The jobs submitted in ``[start_s, start_s + length_s)``, times re-based to ``start_s``.

    ``trace``: a :class:`JobTable` (window on its own clock) or anything :func:`job_table`
    reads. ``start_s``: seconds, or ``"median"`` for the start of the representative day
    (then ``trace`` must not be a :class:`JobTable`). ``length_s``: positive seconds.
    """
    if isinstance(start_s, str):
        if start_s != "median":
            raise InputError(f"'start_s' must be a number of seconds or 'median', got "
                             f"{start_s!r}")
        if isinstance(trace, JobTable):
            raise InputError("'start_s' = 'median' needs a trace (name, path or Trace), not a "
                             "JobTable: the representative day is a property of the trace")
        trace = read_trace(trace)
        start_s = DAY_START_S.get(trace.name, 0) + representative_day(trace) * DAY_SECONDS
    start = _real("start_s", start_s)
    length = _real("length_s", length_s, positive=True)
    table = trace if isinstance(trace, JobTable) else job_table(trace)
    lo = int(np.searchsorted(table.submit_s, start, side="left"))
    hi = int(np.searchsorted(table.submit_s, start + length, side="left"))
    rows = slice(lo, hi)
    return JobTable(table.name, table.origin_s + start, table.job[rows],
                    table.submit_s[rows] - start, table.duration_s[rows],
                    table.num_gpus[rows])


def filter_jobs(table: JobTable, *, duration_s=(0.0, math.inf),
                num_gpus=(0, math.inf)) -> JobTable:
    """The jobs with ``lo <= duration_s <= hi`` and ``lo <= num_gpus <= hi`` (inclusive)."""
    if not isinstance(table, JobTable):
        raise InputError(f"'table' must be a JobTable, got {type(table).__name__}")
    keep = np.ones(len(table), dtype=bool)
    for field, bounds in (("duration_s", duration_s), ("num_gpus", num_gpus)):
        try:
            lo, hi = (float(b) for b in bounds)
        except (TypeError, ValueError):
            raise InputError(f"{field!r} must be a (low, high) pair of numbers, got "
                             f"{bounds!r}") from None
        if math.isnan(lo) or math.isnan(hi) or lo > hi:
            raise InputError(f"{field!r} = {bounds!r} must satisfy low <= high")
        values = getattr(table, field)
        keep &= (values >= lo) & (values <= hi)
    return table.take(keep)


def sample_jobs(table: JobTable, n: int, rng) -> JobTable:
    """``n`` jobs of ``table``, in submission order (module docstring for the draw rule).

    ``rng``: a ``numpy.random.Generator`` (used as is) or an integer seed.
    """
    if not isinstance(table, JobTable):
        raise InputError(f"'table' must be a JobTable, got {type(table).__name__}")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise InputError(f"'n' must be a whole number of jobs >= 0, got {n!r}")
    if not (isinstance(rng, np.random.Generator)
            or (isinstance(rng, numbers.Integral) and not isinstance(rng, bool))):
        raise InputError(f"'rng' must be a numpy.random.Generator or an integer seed, got "
                         f"{rng!r}")
    n, size = int(n), len(table)
    if n > 0 and size == 0:
        raise InputError(f"cannot sample {n} jobs from an empty job table ({table.name!r})")
    rng = np.random.default_rng(rng)
    if n <= size:
        rows = rng.choice(size, size=n, replace=False)
    else:
        rows = np.concatenate([np.arange(size), rng.choice(size, size=n - size, replace=True)])
    return table.take(np.sort(rows))
