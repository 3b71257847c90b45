"""Allpass's demand-bound-function pressure (sec. 3.2, eqs. 1-2): :func:`demand`,
:func:`pressure` and :func:`pressure_detail` over :func:`window_set`, with the options
``include_overdue``, ``rule="laxity"`` and ``units="slip"``. Windows, options and units:
:doc:`/reference/allpass_cluster`.
"""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import numpy as np
from numba import njit

from ..model.errors import InputError

#: the largest window, seconds (sec. 5.1: "a sliding window of T = 30 minutes")
WINDOW_S = 1800.0
#: the re-evaluation tick and the step between windows, seconds (sec. 5.1: "every 1 minute")
TICK_S = 60.0
#: units of D against C_t T (module docstring): the paper's consistent ones, or the slip
UNITS = ("paper", "slip")
#: the factor on D under ``units="slip"``: seconds of work read as minutes of capacity
SLIP = 60.0


class Pressure(NamedTuple):
    """Eq. (2) with its binding window: ``p`` and the (first, i.e. shortest) window ``T``
    attaining the max, with that window's demand ``D(t, T)`` as it was compared with
    ``C_t T`` (times :data:`SLIP` under ``units="slip"``)."""

    p: float
    window: float
    demand: float


def window_set(horizon: float = WINDOW_S, step: float = TICK_S) -> np.ndarray:
    """𝒯 = {step, 2 step, ..., horizon} (seconds; module docstring). ``horizon`` must be a
    whole multiple of ``step`` (to a relative 1e-9)."""
    horizon = _positive(horizon, "horizon")
    step = _positive(step, "step")
    n = horizon / step
    if abs(n - round(n)) > 1e-9 * max(1.0, n):
        raise InputError(f"horizon must be a whole multiple of step, got horizon={horizon!r}, "
                         f"step={step!r}")
    return step * np.arange(1, int(round(n)) + 1, dtype=float)


def demand(t, T, deadline, remaining, *, include_overdue: bool = False):
    """Eq. (1): remaining work (seconds) of the jobs with deadline in ``(t, t + T]``
    (``(-inf, t + T]`` with ``include_overdue``). ``T`` a positive scalar gives a float; a
    1-D array of windows gives an array, one demand per window."""
    t = _finite(t, "t")
    windows = np.asarray(T, dtype=float)
    scalar = windows.ndim == 0
    windows = _windows(np.atleast_1d(windows), "T")
    d, r = _jobs(deadline, remaining)
    out = _demand(t, windows, d, r, include_overdue)
    return float(out[0]) if scalar else out


def pressure(t, windows, capacity, deadline, remaining, *,
             include_overdue: bool = False, units: str = "paper") -> float:
    """Eq. (2): ``max_{T in windows} D(t, T) / (capacity T)`` (``inf``/0 rule for zero
    capacity, ``units``: module docstring)."""
    return pressure_detail(t, windows, capacity, deadline, remaining,
                           include_overdue=include_overdue, units=units).p


#: demand rules of :func:`pressure_detail` (module docstring)
RULES = ("deadline", "laxity")


def necessary_demand(t, windows, deadline, remaining) -> np.ndarray:
    """Work (s) each window ``(t, t + T]`` must deliver for every job to meet its deadline
    at full speed (``rule="laxity"``, module docstring); one value per window."""
    t = _finite(t, "t")
    windows = _windows(np.atleast_1d(np.asarray(windows, dtype=float)), "windows")
    return _necessary_demand(t, windows, *_jobs(deadline, remaining))


def _necessary_demand(t: float, windows: np.ndarray, d: np.ndarray,
                      r: np.ndarray) -> np.ndarray:
    slack = d[None, :] - (t + windows[:, None])            # time left after the window
    return np.minimum(r[None, :], np.maximum(0.0, r[None, :] - slack)).sum(axis=1)


def pressure_detail(t, windows, capacity, deadline, remaining, *,
                    include_overdue: bool = False, rule: str = "deadline",
                    units: str = "paper") -> Pressure:
    """Eq. (2) with the binding window and its demand (:class:`Pressure`), what Algorithm 2
    needs next to ``p``. ``rule="laxity"`` replaces eq. (1) by :func:`necessary_demand`
    (an option, module docstring); ``units="slip"`` multiplies ``D`` by :data:`SLIP` where
    it meets ``C_t T`` (a hypothesis about the authors' code, module docstring)."""
    check_rules(rule, units)
    t = _finite(t, "t")
    windows = _windows(np.atleast_1d(np.asarray(windows, dtype=float)), "windows")
    capacity = _finite(capacity, "capacity")
    if capacity < 0:
        raise InputError(f"capacity must be >= 0, got {capacity!r}")
    d, r = _jobs(deadline, remaining)
    return _pressure_detail(t, windows, capacity, d, r, include_overdue, rule, units)


def check_rules(rule: str, units: str) -> None:
    """Refuse a demand rule or a unit reading that :func:`pressure_detail` does not know."""
    if rule not in RULES:
        raise InputError(f"rule must be one of {RULES}, got {rule!r}")
    if units not in UNITS:
        raise InputError(f"units must be one of {UNITS}, got {units!r}")


def _pressure_detail(t: float, windows: np.ndarray, capacity: float, d: np.ndarray,
                     r: np.ndarray, include_overdue: bool, rule: str,
                     units: str) -> Pressure:
    """:func:`pressure_detail` on arguments already checked (the cluster's every tick)."""
    if rule != "laxity" and include_overdue:                             # the default
        p, T, D = _overdue_pressure(t, windows, capacity, d, r,
                                    SLIP if units == "slip" else 1.0)
        return Pressure(p, T, D)
    if rule == "laxity":
        D = _necessary_demand(t, windows, d, r)
    else:
        D = _demand(t, windows, d, r, include_overdue)                   # eq. (1)
    if units == "slip":  # D's seconds against C_t T in minutes: D meets capacity 60x larger
        D = SLIP * D
    if capacity > 0:
        ratio = D / (capacity * windows)                                 # eq. (2)
    else:  # C_t = 0: inf where there is demand, 0 where there is none
        ratio = np.where(D > 0, math.inf, 0.0)
    k = int(np.argmax(ratio))                                            # max over 𝒯, eq. (2)
    return Pressure(float(ratio[k]), float(windows[k]), float(D[k]))


# -- internals ---------------------------------------------------------------------------

@njit(cache=True)
def _overdue_pressure(t, windows, capacity, d, r, factor):
    """Eqs. (1)-(2) with overdue jobs counted, as :func:`_demand` and
    :func:`_pressure_detail` compute them (the same sums in the same order, so the same
    floats): ``(p, T, D)``, ``D`` times ``factor`` (:data:`SLIP` or 1)."""
    order = np.argsort(d, kind="mergesort")                              # stable
    n = d.size
    d_sorted = np.empty(n)
    cum = np.empty(n + 1)
    cum[0] = 0.0
    for i in range(n):
        d_sorted[i] = d[order[i]]
        cum[i + 1] = r[order[i]] if i == 0 else cum[i] + r[order[i]]   # np.cumsum's order
    best, best_D, k = -1.0, 0.0, 0
    for w in range(windows.size):
        hi = np.searchsorted(d_sorted, t + windows[w], side="right")   # d_j <= t + T
        D = cum[hi]                                                      # eq. (1)
        if factor != 1.0:
            D = factor * D
        if capacity > 0:
            ratio = D / (capacity * windows[w])                          # eq. (2)
        else:
            ratio = math.inf if D > 0 else 0.0
        if ratio > best:                                                 # the first max
            best, best_D, k = ratio, D, w
    return best, windows[k], best_D


def _demand(t: float, windows: np.ndarray, d: np.ndarray, r: np.ndarray,
            include_overdue: bool) -> np.ndarray:
    order = np.argsort(d, kind="stable")
    d_sorted = d[order]
    cum = np.concatenate(([0.0], np.cumsum(r[order])))
    hi = np.searchsorted(d_sorted, t + windows, side="right")           # d_j <= t + T
    if include_overdue:
        return cum[hi]
    lo = np.searchsorted(d_sorted, t, side="right")                     # d_j > t
    # a sum over the window's jobs rather than a difference of prefix sums: exact, and
    # never a negative rounding residue
    return np.array([r[order[lo:h]].sum() if h > lo else 0.0 for h in hi])


def _finite(x, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(x):
        raise InputError(f"{name} must be a finite number, got {x!r}")
    return float(x)


def _positive(x, name: str) -> float:
    x = _finite(x, name)
    if x <= 0:
        raise InputError(f"{name} must be > 0, got {x!r}")
    return x


def _windows(w: np.ndarray, name: str) -> np.ndarray:
    if w.ndim != 1 or w.size == 0:
        raise InputError(f"{name} must be a positive number or a non-empty 1-D array of them, "
                         f"got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise InputError(f"{name} must be finite and > 0, got {w!r}")
    return w


def _jobs(deadline, remaining) -> tuple[np.ndarray, np.ndarray]:
    d = np.asarray(deadline, dtype=float)
    r = np.asarray(remaining, dtype=float)
    if d.ndim != 1:
        raise InputError(f"deadline must be a 1-D array, got shape {d.shape}")
    if r.shape != d.shape:
        raise InputError(f"remaining must have deadline's shape {d.shape}, got {r.shape}")
    if not np.all(np.isfinite(d)):
        raise InputError("deadline must be finite")
    if not np.all(np.isfinite(r)) or np.any(r < 0):
        raise InputError("remaining must be finite and >= 0")
    return d, r
