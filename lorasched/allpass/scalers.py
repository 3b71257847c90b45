"""Allpass's two scalers (sec. 3.3), driven by the pressure ``p`` of eq. (2): Algorithm 1 moves
the serverless threshold F (:class:`ServerlessScaler`), Algorithm 2 adds or releases
serverful workers (:class:`ServerfulScaler`, readings ``"evident"`` and ``"literal"``). The
algorithms as printed, the readings and the rounding: :doc:`/reference/allpass_cluster`.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from ..model.errors import InputError

#: Algorithm 1's gains, rate limits (seconds per tick) and initial threshold, sec. 5.1
G_UP, R_UP, G_DN, R_DN, F0 = 10.0, 100.0, 2.0, 30.0, 300.0
#: the serverful scaler's readings of Algorithm 2 (module docstring)
READINGS = ("evident", "literal")


class ServerlessScaler:
    """Algorithm 1 (module docstring): state ``F`` (seconds) and ``tau`` (time of the last
    update, ``-inf`` before the first; the paper's line 7 records it and uses it nowhere)."""

    STATE = ("F", "tau", "ticks")

    def __init__(self, *, G_up: float = G_UP, R_up: float = R_UP, G_dn: float = G_DN,
                 R_dn: float = R_DN, F0: float = F0, F_min: float = 0.0,
                 F_max: float = math.inf):
        self.G_up = _nonneg(G_up, "G_up")
        self.R_up = _nonneg(R_up, "R_up")
        self.G_dn = _nonneg(G_dn, "G_dn")
        self.R_dn = _nonneg(R_dn, "R_dn")
        self.F_min = _nonneg(F_min, "F_min")
        if (isinstance(F_max, bool) or not isinstance(F_max, numbers.Real)
                or math.isnan(F_max) or F_max < self.F_min):
            raise InputError(f"F_max must be a number >= F_min ({self.F_min}), got {F_max!r}")
        self.F_max = float(F_max)
        F0 = _nonneg(F0, "F0")
        if not self.F_min <= F0 <= self.F_max:
            raise InputError(f"F0 must lie in [F_min, F_max] = [{self.F_min}, {self.F_max}], "
                             f"got {F0!r}")
        self.F = F0
        self.tau = -math.inf
        self.ticks = 0

    def delta(self, p) -> float:
        """ΔF for pressure ``p`` (lines 3-6), before clamping."""
        p = _pressure(p)
        if p > 1:                                              # line 3: overload
            return min(self.R_up, self.G_up * (p - 1))         # line 4
        return -min(self.R_dn, self.G_dn * (1 - p))            # lines 5-6: underload

    def step(self, p, now: float | None = None) -> float:
        """One tick: ``F <- clamp(F + ΔF)`` (line 7), ``tau <- now``; returns the new F."""
        dF = self.delta(p)
        self.F = min(self.F_max, max(self.F_min, self.F + dF))  # line 7, clamped
        if now is not None:
            self.tau = _finite(now, "now")
        self.ticks += 1
        return self.F

    def snapshot(self) -> dict:
        return {"F": self.F, "tau": self.tau, "ticks": self.ticks}

    def restore(self, state: dict) -> None:
        self.F, self.tau, self.ticks = state["F"], state["tau"], state["ticks"]


@dataclass(frozen=True)
class ServerfulDecision:
    """What Algorithm 2 decided in one tick.

    ``add``: workers to provision (k↑); ``add_offers``: indices into the offers of the
    cheapest ``min(add, len(offers))`` of them, cheapest first; ``fallback``: the rest,
    ``add - len(add_offers)``, for the conventional cloud. ``remove``: indices into the idle
    workers to release (k↓ of them, capped at the idle count), most expensive first.
    ``shortfall``: the Δ the counts were taken from (work-seconds under ``"evident"``, the
    printed ``max(0, D - C)`` under ``"literal"``; negative under ``"evident"`` is a surplus).
    """

    add: int
    add_offers: tuple[int, ...]
    fallback: int
    remove: tuple[int, ...]
    shortfall: float


class ServerfulScaler:
    """Algorithm 2 (module docstring) for a worker rate ``mu`` (work-seconds per second;
    uniform workers, sec. 5.1). Stateless: the worker count ``I`` lives in the cluster, and
    the caller passes the capacity ``C = I mu``; ``snapshot``/``restore`` keep the online
    loop's convention."""

    STATE = ()

    def __init__(self, mu: float = 1.0, *, reading: str = "evident"):
        if reading not in READINGS:
            raise InputError(f"reading must be one of {READINGS}, got {reading!r}")
        self.mu = _finite(mu, "mu")
        if self.mu <= 0:
            raise InputError(f"mu must be > 0, got {mu!r}")
        self.reading = reading

    def decide(self, demand, capacity, window, p, offer_prices=(), idle_prices=()
               ) -> ServerfulDecision:
        """One tick: ``demand`` D(t, T) (work-seconds), ``capacity`` C (rate), ``window`` T
        (seconds), pressure ``p`` (eq. 2), the prices of the offers that can be provisioned
        and of the idle workers that can be released (any order)."""
        D = _nonneg(demand, "demand")
        C = _nonneg(capacity, "capacity")
        T = _finite(window, "window")
        if T <= 0:
            raise InputError(f"window must be > 0, got {window!r}")
        p = _pressure(p)
        offers = _prices(offer_prices, "offer_prices")
        idle = _prices(idle_prices, "idle_prices")
        return self._decide(D, C, T, p, offers, idle)

    def _decide(self, D: float, C: float, T: float, p: float, offers: np.ndarray,
                idle: np.ndarray) -> ServerfulDecision:
        """:meth:`decide` on arguments already checked (the cluster's every tick)."""
        per_worker = self.mu * T                                   # μT
        if self.reading == "literal":
            shortfall = max(0.0, D - C)                            # line 2, as printed
            up = down = shortfall
        else:
            shortfall = D - C * T                                  # line 2, work units
            up, down = max(0.0, shortfall), max(0.0, -shortfall)
        add = math.ceil(round(up / per_worker, 9)) if p > 1 else 0       # lines 4-5
        k_down = math.floor(round(down / per_worker, 9)) if p < 1 else 0  # lines 8-9
        k_down = min(k_down, idle.size)
        cheapest = np.argsort(offers, kind="stable")[:add]
        dearest = np.argsort(-idle, kind="stable")[:k_down]
        return ServerfulDecision(add=add, add_offers=tuple(int(i) for i in cheapest),
                                 fallback=add - cheapest.size,
                                 remove=tuple(int(i) for i in dearest), shortfall=shortfall)

    def snapshot(self) -> dict:
        return {}

    def restore(self, state: dict) -> None:
        pass


# -- validation --------------------------------------------------------------------------

def _finite(x, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(x):
        raise InputError(f"{name} must be a finite number, got {x!r}")
    return float(x)


def _nonneg(x, name: str) -> float:
    x = _finite(x, name)
    if x < 0:
        raise InputError(f"{name} must be >= 0, got {x!r}")
    return x


def _pressure(p) -> float:
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or math.isnan(p) or p < 0:
        raise InputError(f"p must be a number >= 0 (inf allowed), got {p!r}")
    return float(p)


def _prices(x, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.ndim != 1:
        raise InputError(f"{name} must be a 1-D array, got shape {a.shape}")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise InputError(f"{name} must be finite and >= 0")
    return a
