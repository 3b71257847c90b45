"""Real GPU-cluster traces as per-slot task arrivals for one simulated day: reading
(:func:`read_trace`), days, active and representative days, slot binning, scaling
(:func:`scale_counts`) and job sampling (:func:`trace_day`). The rules: :doc:`/traces` and
:doc:`/reference/traces`.
"""

from __future__ import annotations

import csv
import functools
import gzip
import math
import numbers
import os
import re
import zlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from . import limits
from .errors import InputError

#: short name -> file in :func:`trace_dir` (MLaaS = Alibaba PAI, NSDI'22)
TRACES = {
    "mlaas": "alibaba_pai_thinned_jobs.csv.gz",
    "philly": "philly_jobs.csv.gz",
    "helios": "helios_venus_jobs.csv.gz",
    "acme": "acme_kalos_subset_jobs.csv.gz",
}
#: traces whose clock time is known: seconds from the origin to the next local midnight
DAY_START_S = {"philly": 33 * 60}  # origin 2017-08-14 23:27 local -> 00:00
REQUIRED_COLUMNS = ("submit_time_s",)
OPTIONAL_COLUMNS = ("duration_s", "num_gpus")
DAY_SECONDS = 86_400
ACTIVE_FRACTION = 0.1  # an active day has >= this share of the median full-day count
_MAX_DIGITS = 18  # int64 holds every 18-digit number
SECONDS_COLUMNS = ("submit_time_s", "duration_s")  # real numbers; the others are integers
#: a non-negative decimal number as written in a CSV (after stripping blanks and a '+')
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class Trace(NamedTuple):
    """One job table. Read-only arrays, one entry per row, sorted by submission.

    ``num_gpus`` is int64; ``submit_s`` and ``duration_s`` (s) are int64 when every value
    of their column is written as an integer (as in the shipped traces), else float64.
    ``duration_s`` and ``num_gpus`` are ``None`` when the file lacks the column.
    ``name`` is the short name, or the file name for a trace read from a path.
    """

    name: str
    path: Path
    submit_s: np.ndarray
    duration_s: np.ndarray | None
    num_gpus: np.ndarray | None


class TraceDay(NamedTuple):
    """One day of a trace as per-slot arrivals (see the module docstring).

    ``counts``/``raw_counts`` are int64[slots]: scaled and real submissions per slot;
    ``job`` (row of the trace), ``duration_s`` (s, of the trace's dtype) and ``num_gpus``
    have one entry per scaled task, ordered by slot (``None`` when the trace lacks that
    column);
    ``day_start_s`` is the start of the day's window on the trace clock (s).
    """

    name: str
    day: int
    day_start_s: int
    counts: np.ndarray
    raw_counts: np.ndarray
    job: np.ndarray
    duration_s: np.ndarray | None
    num_gpus: np.ndarray | None


def trace_dir() -> Path:
    """Folder of the shipped traces: ``$LORASCHED_TRACES`` if set, else the checkout's
    ``traces/``, else the copy an installed package carries (``lorasched/_traces``)."""
    env = os.environ.get("LORASCHED_TRACES")
    if env:
        return Path(env)
    checkout = Path(__file__).resolve().parents[2] / "traces"
    return checkout if checkout.is_dir() else Path(__file__).resolve().parents[1] / "_traces"


def _resolve(name_or_path) -> tuple[str, Path]:
    if isinstance(name_or_path, str) and name_or_path in TRACES:
        return name_or_path, trace_dir() / TRACES[name_or_path]
    if not isinstance(name_or_path, str | os.PathLike):
        raise InputError(f"trace must be one of {sorted(TRACES)} or a path, got "
                        f"{type(name_or_path).__name__}")
    path = Path(name_or_path)
    if not path.is_file():
        raise FileNotFoundError(
            f"trace file {str(path)!r} not found; known traces are {sorted(TRACES)} (in "
            f"{trace_dir()}), or give the path of a .csv / .csv.gz file")
    return path.name, path


def read_trace(name_or_path) -> Trace:
    """Read a trace by short name (:data:`TRACES`) or path to a ``.csv`` / ``.csv.gz`` file.

    Raises ``FileNotFoundError`` (naming the path and the known traces) for a missing file
    and ``ValueError`` naming the file, the 1-based line and the column for a malformed
    one. Results are cached per file (and its modification time) and read-only.
    """
    if isinstance(name_or_path, Trace):
        return name_or_path
    name, path = _resolve(name_or_path)
    path = path.resolve()
    stat = path.stat()
    return _read_cached(name, path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _read_cached(name: str, path: Path, mtime_ns: int, size: int) -> Trace:
    columns = _parse(path)
    for values in columns.values():
        values.setflags(write=False)
    return Trace(name, path, columns["submit_time_s"], columns.get("duration_s"),
                 columns.get("num_gpus"))


def _parse(path: Path) -> dict[str, np.ndarray]:
    try:
        raw = path.read_bytes()
        if path.name.endswith(".gz"):
            raw = gzip.decompress(raw)
        text = raw.decode("utf-8-sig")
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as err:
        raise InputError(f"{path}: cannot read the file as "
                         f"{'gzip-compressed ' if path.name.endswith('.gz') else ''}"
                         f"UTF-8 CSV ({err})") from err
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise InputError(f"{path}: empty file; expected a header line with the columns "
                         f"{list(REQUIRED_COLUMNS + OPTIONAL_COLUMNS)}")
    header = [h.strip() for h in next(csv.reader(lines[:1]))]
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise InputError(f"{path} line 1: missing column {missing[0]!r} (header: {header}); "
                         f"expected {list(REQUIRED_COLUMNS)} and optionally "
                         f"{list(OPTIONAL_COLUMNS)}")
    if len(set(header)) != len(header):
        dup = next(h for h in header if header.count(h) > 1)
        raise InputError(f"{path} line 1: column {dup!r} appears twice")
    body = lines[1:]
    if not body:
        raise InputError(f"{path}: no data rows after the header")
    wanted = [c for c in REQUIRED_COLUMNS + OPTIONAL_COLUMNS if c in header]
    out = _fast_columns(body, header, wanted)
    if out is None:  # something is off: find it row by row and name it
        out = _strict_columns(body, header, wanted, path)
    submit = out["submit_time_s"]
    bad = np.flatnonzero(np.diff(submit) < 0)
    if bad.size:
        i = int(bad[0]) + 1
        raise InputError(f"{path} line {i + 2}: column 'submit_time_s' = {submit[i]} is "
                         f"before the previous row's {submit[i - 1]}; rows must be sorted "
                         "by submit_time_s")
    for column, limit in (("submit_time_s", limits.HORIZON_S),
                          ("duration_s", limits.MAX_DURATION_S),
                          ("num_gpus", limits.MAX_GPUS)):
        if column in out:
            limits.at_most(out[column], limit, str(path),
                           lambda i, c=column: f"line {i + 2}, column {c!r}")
    return out


def _fast_columns(body: list[str], header: list[str], wanted: list[str]):
    """numpy's C parser for a well-formed file, or None (then :func:`_strict_columns`).

    All columns as int64 in one pass (the shipped traces); failing that, column by column:
    int64, or float64 for a time column that is not all integers.
    """
    if sum(line.count(",") for line in body) != (len(header) - 1) * len(body):
        return None  # a row with too few / many fields, or quoted commas
    try:
        table = _load(body, [header.index(c) for c in wanted], np.int64)
    except ValueError:
        table = None
    if table is not None:
        if table.shape[0] != len(body) or (table < 0).any():
            return None
        return {c: np.ascontiguousarray(table[:, j]) for j, c in enumerate(wanted)}
    out = {}
    for c in wanted:
        dtypes = (np.int64, np.float64) if c in SECONDS_COLUMNS else (np.int64,)
        for dtype in dtypes:
            try:
                column = _load(body, [header.index(c)], dtype)[:, 0]
                break
            except ValueError:
                continue
        else:
            return None
        # NaN, infinity and negatives (-0.0 too, as the strict parser refuses any '-')
        if column.shape[0] != len(body) or not np.all(np.isfinite(column) & ~np.signbit(column)):
            return None
        out[c] = np.ascontiguousarray(column)
    return out


def _load(body: list[str], usecols: list[int], dtype) -> np.ndarray:
    return np.loadtxt(body, delimiter=",", comments=None, dtype=dtype, ndmin=2,
                      usecols=usecols)


def _strict_columns(body: list[str], header: list[str], wanted: list[str], path: Path):
    """Parse row by row; a ValueError names the first bad line and column."""
    rows = list(csv.reader(body))
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    bad = np.flatnonzero(lengths != len(header))
    if bad.size:
        i = int(bad[0])
        raise InputError(f"{path} line {i + 2}: {lengths[i]} fields, the header has "
                         f"{len(header)}")
    fields = list(zip(*rows, strict=True))
    parse = {c: _seconds if c in SECONDS_COLUMNS else _integers for c in wanted}
    return {c: parse[c](fields[header.index(c)], path, c) for c in wanted}


def _text(values: tuple[str, ...]) -> np.ndarray:
    return np.char.lstrip(np.char.strip(np.array(values, dtype=str)), "+")  # as np.loadtxt


def _whole(text: np.ndarray) -> np.ndarray | None:
    """int64 of decimal integers of at most 18 ASCII digits, or None if one is not."""
    if not (np.char.isdigit(text) & (np.char.str_len(text) <= _MAX_DIGITS)).all():
        return None
    try:
        return text.astype(np.int64)
    except ValueError:  # non-ASCII digits
        return None


def _integers(values: tuple[str, ...], path: Path, column: str) -> np.ndarray:
    """Non-negative decimal integers, or a ValueError naming the first bad line."""
    text = _text(values)
    whole = _whole(text)
    if whole is not None:
        return whole
    ok = np.char.isdigit(text) & (np.char.str_len(text) <= _MAX_DIGITS)
    ok &= np.array([v.isascii() for v in text])
    i = int(np.flatnonzero(~ok)[0])
    raise InputError(f"{path} line {i + 2}: column {column!r} = {values[i]!r} is not a "
                     "non-negative integer")


def _seconds(values: tuple[str, ...], path: Path, column: str) -> np.ndarray:
    """Finite non-negative real numbers (int64 if all are integers), else a ValueError
    naming the first bad line."""
    text = _text(values)
    whole = _whole(text)
    if whole is not None:
        return whole
    ok = np.array([_NUMBER.fullmatch(v) is not None for v in text.tolist()], dtype=bool)
    number = np.full(text.shape, np.nan)
    number[ok] = text[ok].astype(np.float64)
    ok &= np.isfinite(number)  # '1e999'
    if ok.all():
        return number
    i = int(np.flatnonzero(~ok)[0])
    raise InputError(f"{path} line {i + 2}: column {column!r} = {values[i]!r} is not a "
                     f"non-negative number{_why(values[i])}")


def _why(value: str) -> str:
    """' (NaN)', ' (infinite)', ' (negative)', ' (empty)' or '' for a refused number."""
    if not value.strip():
        return " (empty)"
    try:
        x = float(value)
    except ValueError:
        return ""
    if math.isnan(x):
        return " (NaN)"
    if math.isinf(x):
        return " (infinite)"
    return " (negative)" if x < 0 else ""


# ----------------------------------------------------------------------------------------
# days
# ----------------------------------------------------------------------------------------


def _day_start(trace: Trace, day_start_s) -> int:
    if day_start_s is None:
        return DAY_START_S.get(trace.name, 0)
    if (isinstance(day_start_s, bool) or not isinstance(day_start_s, numbers.Real)
            or not float(day_start_s).is_integer()):
        raise InputError(f"day_start_s must be a whole number of seconds, got {day_start_s!r}")
    return int(day_start_s)


def daily_counts(trace, day_start_s: int | None = None) -> np.ndarray:
    """Submissions per 24-h day ``0 .. last day with a submission`` (int64).

    ``trace`` is a :class:`Trace`, a short name or a path; ``day_start_s`` (s, on the trace
    clock) is the start of day 0, by default the trace's known midnight or 0.
    """
    trace = read_trace(trace)
    start = _day_start(trace, day_start_s)
    t = trace.submit_s[trace.submit_s >= start] - start
    if t.size == 0:
        raise InputError(f"{trace.path}: no submission at or after day_start_s = {start} s")
    return np.bincount((t // DAY_SECONDS).astype(np.int64)).astype(np.int64)


def active_days(trace, day_start_s: int | None = None) -> np.ndarray:
    """Indices of the active days (full days without lead-in/tail ramps; module docstring)."""
    trace = read_trace(trace)
    start = _day_start(trace, day_start_s)
    counts = daily_counts(trace, start)
    days = np.arange(counts.size)
    first, last = trace.submit_s[0], trace.submit_s[-1]  # int64 or float64 s
    begin = start + days * DAY_SECONDS
    full = days[(begin >= first) & (begin + DAY_SECONDS <= last)]
    if full.size == 0:
        raise InputError(f"{trace.path}: the trace spans no full day from day_start_s = "
                         f"{start} s; pick a day explicitly")
    busy = full[counts[full] >= ACTIVE_FRACTION * np.median(counts[full])]
    busy = busy[counts[busy] > 0]
    if busy.size == 0:
        raise InputError(f"{trace.path}: no full day has any submission")
    return full[(full >= busy[0]) & (full <= busy[-1])]


def representative_day(trace, day_start_s: int | None = None) -> int:
    """The earliest active day whose count is the lower median of the active days' counts."""
    trace = read_trace(trace)
    counts = daily_counts(trace, day_start_s)
    days = active_days(trace, day_start_s)
    target = np.sort(counts[days])[(days.size - 1) // 2]
    return int(days[np.flatnonzero(counts[days] == target)[0]])


# ----------------------------------------------------------------------------------------
# one day as per-slot arrivals
# ----------------------------------------------------------------------------------------


def scale_counts(raw, mean: float) -> np.ndarray:
    """Largest-remainder scaling of per-slot counts ``raw`` to ``round(mean * len(raw))``.

    Slot ``t`` gets ``floor(e_t)`` or ``ceil(e_t)`` tasks, ``e_t = raw_t * mean / mean(raw)``;
    the extra ones go to the largest remainders (ties: earlier slot). Empty slots stay empty.
    """
    raw = np.asarray(raw)
    if raw.ndim != 1 or raw.size == 0 or (raw < 0).any() or (raw != np.round(raw)).any():
        raise InputError("raw counts must be a non-empty 1-d series of whole numbers >= 0")
    mean = _check_mean(mean)
    total = int(round(mean * raw.size))
    if total == 0:
        return np.zeros(raw.size, dtype=np.int64)
    if raw.sum() == 0:
        raise InputError("cannot scale an all-zero series of counts to a positive mean")
    expected = raw * (total / raw.sum())
    counts = np.floor(expected).astype(np.int64)
    remainder = np.where(raw > 0, expected - counts, -1.0)
    extra = total - int(counts.sum())
    if extra > 0:  # extra <= number of non-empty slots; the guard is for float round-off
        order = np.argsort(-remainder, kind="stable")[:extra]
        counts[order[raw[order] > 0]] += 1
    counts[np.argmax(raw)] += total - int(counts.sum())  # exact total even after round-off
    return counts


def _check_mean(mean) -> float:
    if (isinstance(mean, bool) or not isinstance(mean, numbers.Real)
            or not math.isfinite(mean) or mean < 0):
        raise InputError(f"mean must be a finite number of tasks per slot >= 0, got {mean!r}")
    return float(mean)


def trace_day(name_or_path, *, mean: float = 80.0, day: int | str = "median",
              slots: int = 144, slot_minutes: float = 10.0, seed=0,
              day_start_s: int | None = None) -> TraceDay:
    """One day of a trace as ``slots`` per-slot arrival counts scaled to ``mean`` per slot.

    ``name_or_path``: short name (:data:`TRACES`), path or :class:`Trace`; ``day``: a day
    index (:func:`daily_counts`) or ``"median"`` (:func:`representative_day`); ``seed``: int
    or ``numpy.random.Generator`` for sampling each task's job. See the module docstring.
    """
    trace = read_trace(name_or_path)
    mean = _check_mean(mean)
    if isinstance(slots, bool) or not isinstance(slots, numbers.Integral) or slots < 1:
        raise InputError(f"slots must be a positive integer, got {slots!r}")
    if not (isinstance(slot_minutes, numbers.Real) and math.isfinite(slot_minutes)
            and slot_minutes > 0):
        raise InputError(f"slot_minutes must be a positive number, got {slot_minutes!r}")
    slots = int(slots)
    start = _day_start(trace, day_start_s)
    per_day = daily_counts(trace, start)
    if isinstance(day, str):
        if day != "median":
            raise InputError(f"day must be a day index or 'median', got {day!r}")
        day = representative_day(trace, start)
    elif (isinstance(day, bool) or not isinstance(day, numbers.Real)
          or not float(day).is_integer() or not 0 <= day < per_day.size):
        raise InputError(f"day must be 'median' or a whole number in [0, {per_day.size - 1}] "
                         f"(the days of {trace.name}), got {day!r}")
    day = int(day)
    begin = start + day * DAY_SECONDS
    slot_s = slot_minutes * 60.0
    lo = int(np.searchsorted(trace.submit_s, begin, side="left"))
    hi = int(np.searchsorted(trace.submit_s, begin + slots * slot_s, side="left"))
    slot_of = ((trace.submit_s[lo:hi] - begin) // slot_s).astype(np.int64)
    raw = np.bincount(slot_of, minlength=slots).astype(np.int64)
    if raw.sum() == 0:
        raise InputError(f"{trace.name} day {day} has no submission in its {slots} slots of "
                         f"{slot_minutes:g} min; pick another day (days with submissions: "
                         f"{np.flatnonzero(per_day).tolist()[:10]}...)")
    counts = scale_counts(raw, mean)

    rng = np.random.default_rng(seed)
    offsets = lo + np.concatenate([[0], np.cumsum(raw)])
    picks = []
    for t in np.flatnonzero(counts):
        rows = np.arange(offsets[t], offsets[t + 1])
        m, c = int(counts[t]), rows.size
        if m <= c:
            pick = rng.choice(rows, size=m, replace=False)
        else:
            pick = np.concatenate([rows, rng.choice(rows, size=m - c, replace=True)])
        picks.append(np.sort(pick))
    job = np.concatenate(picks) if picks else np.zeros(0, dtype=np.int64)
    job = job.astype(np.int64)
    return TraceDay(
        name=trace.name, day=day, day_start_s=int(begin), counts=counts, raw_counts=raw,
        job=job,
        duration_s=None if trace.duration_s is None else trace.duration_s[job],
        num_gpus=None if trace.num_gpus is None else trace.num_gpus[job],
    )


def trace_summary(names=None) -> list[dict]:
    """One row per trace: rows, span, active days, representative day and its shape.

    ``peak_to_mean`` is the largest 10-min slot count of the representative day over its
    mean; ``empty_slots`` the number of its 144 slots without a submission.
    """
    rows = []
    for name in names or TRACES:
        trace = read_trace(name)
        day = representative_day(trace)
        active = active_days(trace)
        raw = trace_day(trace, mean=0.0, day=day).raw_counts
        rows.append({
            "trace": name,
            "rows": int(trace.submit_s.size),
            "span_days": round(float(trace.submit_s[-1] - trace.submit_s[0]) / DAY_SECONDS, 2),
            "active_days": f"{active[0]}-{active[-1]}",
            "day": day,
            "day_count": int(raw.sum()),
            "peak_to_mean": round(float(raw.max() / raw.mean()), 2),
            "empty_slots": int((raw == 0).sum()),
        })
    return rows
