"""The three GPU clouds of Allpass (sec. 2.2, 5.1): published prices, billing and start-up
times (:data:`PROVIDERS`, :func:`bill`, :func:`startup_times`), and a model of Vast.ai's A100
offer book calibrated to Fig. 12's $0.74/GPU-h (:func:`offer_book`; one's own:
:func:`load_offer_book`). Sources, billing, the offer model and its calibration:
:doc:`/reference/allpass_data`.
"""

from __future__ import annotations

import csv
import math
import numbers
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import xarray as xr

from ..model import limits
from ..model.errors import InputError
from ..model.libm import libm_exp

#: the three tiers of sec. 2.2
TIERS = ("serverless", "marketplace", "conventional")
#: Vast.ai A100 price (min, max) observed 2025-09-26 to 2025-10-25 (Table 2)
VAST_A100_RANGE = (0.38, 1.66)
#: Vast.ai A100 median price (Table 2)
VAST_A100_MEDIAN = 1.08
#: A100 inventory range on Vast.ai (sec. 2.2, Fig. 3)
VAST_A100_INVENTORY = (40, 60)
#: the average price Allpass obtained on Vast.ai (appendix A.2, Fig. 12), $/GPU-h
PAPER_MEAN_PRICE = 0.74
#: log-scale spread of the offer-price law, calibrated to PAPER_MEAN_PRICE (docstring)
SIGMA = 0.45
#: the k of that calibration (cheapest offers rented per minute)
CALIBRATION_K = 20
#: default probability per minute that an offer is replaced by a fresh one
CHURN = 0.05
#: columns of a user's offer-book CSV
OFFER_COLUMNS = ("minute", "price_per_gpu_h")

_TABLE2 = "Allpass (2025) Table 2, A100 row"
_TABLE3 = "Table 3 (A100 start-up, avg +- std of 20 tests)"
_BILLING = ("sec. 2.2: 'Unlike conventional clouds that bill users with a minimum of 60 "
            "seconds of VM usage, Modal charges on a per-second basis'")


@dataclass(frozen=True)
class Provider:
    """One GPU cloud: A100 price, billing rule and start-up delay (normal, mean +- sd)."""

    name: str
    tier: str
    price_per_gpu_h: float
    billing_increment_s: float
    minimum_s: float
    startup_mean_s: float
    startup_sd_s: float
    source: str

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise InputError(f"Provider name must be a non-empty string, got {self.name!r}")
        if self.tier not in TIERS:
            raise InputError(f"Provider {self.name!r}: tier must be one of {TIERS}, "
                             f"got {self.tier!r}")
        for field, positive in (("price_per_gpu_h", True), ("billing_increment_s", True),
                                ("minimum_s", False), ("startup_mean_s", False),
                                ("startup_sd_s", False)):
            value = getattr(self, field)
            if (isinstance(value, bool) or not isinstance(value, numbers.Real)
                    or not math.isfinite(value) or value < 0 or (positive and value == 0)):
                need = "positive" if positive else "non-negative"
                raise InputError(f"Provider {self.name!r}: {field} must be a {need} finite "
                                 f"number, got {value!r}")


PROVIDERS: dict[str, Provider] = {
    "modal": Provider(
        "modal", "serverless", 2.10, billing_increment_s=1.0, minimum_s=0.0,
        startup_mean_s=3.88, startup_sd_s=1.84,
        source=f"{_TABLE2} (Modal 2.10); {_TABLE3} (3.88 +- 1.84 s); {_BILLING}"),
    "vast": Provider(
        "vast", "marketplace", VAST_A100_MEDIAN, billing_increment_s=1.0, minimum_s=60.0,
        startup_mean_s=36.04, startup_sd_s=7.35,
        source=(f"{_TABLE2} (Vast.ai median 1.08, range 0.38-1.66); {_TABLE3} "
                "(36.04 +- 7.35 s); billing NOT published: 60 s minimum assumed")),
    "lambda": Provider(
        "lambda", "conventional", 1.29, billing_increment_s=1.0, minimum_s=60.0,
        startup_mean_s=255.59, startup_sd_s=26.26,
        source=f"{_TABLE2} (Lambda 1.29); {_TABLE3} (255.59 +- 26.26 s); {_BILLING}"),
}


def provider(which) -> Provider:
    """A :class:`Provider`, or the one of :data:`PROVIDERS` named ``which``."""
    if isinstance(which, Provider):
        return which
    if not isinstance(which, str) or which.lower() not in PROVIDERS:
        raise InputError(f"provider must be a Provider or one of {sorted(PROVIDERS)}, "
                         f"got {which!r}")
    return PROVIDERS[which.lower()]


def _real_array(name: str, value) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as err:
        raise InputError(f"{name} must be a number or array of numbers, got {value!r}") from err
    if np.asarray(value).dtype == bool:
        raise InputError(f"{name} must be numbers, not booleans")
    bad = ~np.isfinite(arr)
    if bad.any():
        where = np.argwhere(bad)[0]
        raise InputError(f"{name} must be finite; element {tuple(where.tolist())} is "
                         f"{arr[tuple(where)]!r}")
    return arr


def bill(provider_, start_s, end_s, price_per_gpu_h=None, gpus=1):
    """USD billed for renting ``gpus`` GPUs from ``start_s`` to ``end_s`` (seconds).

    Billed seconds = ``max(end_s - start_s, minimum_s)`` rounded up to a whole number of
    ``billing_increment_s`` (a relative slack of 1e-9 absorbs floating-point noise, so
    ``100.0000000001`` s is billed 100 s); cost = billed seconds x price / 3600 x gpus.
    Vectorised: ``start_s``, ``end_s``, ``price_per_gpu_h`` and ``gpus`` broadcast; a float
    is returned when all are scalars, else an array.

    Parameters
    ----------
    provider_ : Provider or str
        A provider or a name in :data:`PROVIDERS`.
    start_s, end_s : float or array
        Finite times, ``end_s >= start_s``.
    price_per_gpu_h : float or array, optional
        Overrides the provider's price (e.g. a marketplace offer's price); positive, finite.
    gpus : int or array of int
        GPUs rented (>= 1).
    """
    p = provider(provider_)
    start = _real_array("start_s", start_s)
    end = _real_array("end_s", end_s)
    try:
        duration = end - start
    except ValueError as err:
        raise InputError(f"start_s {start.shape} and end_s {end.shape} do not broadcast") \
            from err
    if (duration < 0).any():
        where = tuple(np.argwhere(duration < 0)[0].tolist())
        raise InputError(f"end_s must be >= start_s; element {where} has duration "
                         f"{duration[where]!r} s")
    price = _real_array("price_per_gpu_h",
                        p.price_per_gpu_h if price_per_gpu_h is None else price_per_gpu_h)
    if (price <= 0).any():
        raise InputError(f"price_per_gpu_h must be positive, got {price_per_gpu_h!r}")
    g = np.asarray(gpus)
    if g.dtype == bool or not np.issubdtype(g.dtype, np.integer) or (g < 1).any():
        raise InputError(f"gpus must be a positive integer (or array of them), got {gpus!r}")
    billed = np.maximum(duration, p.minimum_s)
    steps = np.ceil(billed / p.billing_increment_s * (1 - 1e-9))
    cost = steps * p.billing_increment_s * price / 3600.0 * g
    return float(cost) if cost.ndim == 0 else cost


def billed_seconds(provider_, duration_s):
    """The seconds :func:`bill` charges for a rental of ``duration_s`` (>= 0) seconds."""
    p = provider(provider_)
    d = _real_array("duration_s", duration_s)
    if (d < 0).any():
        raise InputError(f"duration_s must be non-negative, got {duration_s!r}")
    s = np.ceil(np.maximum(d, p.minimum_s) / p.billing_increment_s * (1 - 1e-9)) \
        * p.billing_increment_s
    return float(s) if s.ndim == 0 else s


def _check_rng(rng) -> None:
    if not isinstance(rng, np.random.Generator):
        raise InputError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")


def _check_count(name: str, value, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def startup_times(provider_, n, rng) -> np.ndarray:
    """``n`` start-up delays (seconds) of a provider: normal with the published mean and
    sd (Table 3), truncated at 0 by **resampling** negative draws (not clipping, which
    would pile mass at 0). Truncation raises the mean slightly: by about 0.08 s for Modal
    (3.88 +- 1.84 s, 0 is 2.1 sd below), negligibly for Vast.ai and Lambda."""
    p = provider(provider_)
    n = _check_count("n", n)
    _check_rng(rng)
    out = rng.normal(p.startup_mean_s, p.startup_sd_s, n)
    bad = np.flatnonzero(out < 0)
    while bad.size:
        out[bad] = rng.normal(p.startup_mean_s, p.startup_sd_s, bad.size)
        bad = bad[out[bad] < 0]
    return out


def _check_pair(name: str, pair, integer: bool):
    try:
        lo, hi = pair
    except (TypeError, ValueError) as err:
        raise InputError(f"{name} must be a pair (low, high), got {pair!r}") from err
    for v in (lo, hi):
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
            raise InputError(f"{name} must hold finite numbers, got {pair!r}")
        if integer and not isinstance(v, numbers.Integral):
            raise InputError(f"{name} must hold integers, got {pair!r}")
    if lo > hi or lo < 0 or (not integer and lo <= 0):
        raise InputError(f"{name} must satisfy 0 {'<=' if integer else '<'} low <= high, "
                         f"got {pair!r}")
    return (int(lo), int(hi)) if integer else (float(lo), float(hi))


def offer_prices(n, rng, *, price_range=VAST_A100_RANGE, median=VAST_A100_MEDIAN,
                 sigma=SIGMA) -> np.ndarray:
    """``n`` offer prices ($/GPU-h) from the split log-normal of the module docstring:
    median ``median``, log-scale spread ``sigma``, truncated (by resampling) to
    ``price_range``."""
    n = _check_count("n", n)
    _check_rng(rng)
    lo, hi = _check_pair("price_range", price_range, integer=False)
    if (isinstance(median, bool) or not isinstance(median, numbers.Real)
            or not lo <= median <= hi):
        raise InputError(f"median must lie in price_range {price_range!r}, got {median!r}")
    if (isinstance(sigma, bool) or not isinstance(sigma, numbers.Real)
            or not math.isfinite(sigma) or sigma < 0):
        raise InputError(f"sigma must be a non-negative finite number, got {sigma!r}")
    return _offer_prices(n, rng, lo, hi, median, sigma)


def _offer_prices(n: int, rng, lo: float, hi: float, median, sigma) -> np.ndarray:
    """:func:`offer_prices` on arguments already checked (the book's every minute)."""
    below = rng.random(n) < 0.5
    out = np.empty(n)
    todo = np.arange(n)
    while todo.size:
        z = sigma * np.abs(rng.standard_normal(todo.size))
        price = median * libm_exp(np.where(below[todo], -z, z))
        ok = (price >= lo) & (price <= hi)
        out[todo[ok]] = price[ok]
        todo = todo[~ok]
    return out


def offer_book(minutes, rng, *, inventory=VAST_A100_INVENTORY, price_range=VAST_A100_RANGE,
               median=VAST_A100_MEDIAN, sigma=SIGMA, churn=CHURN) -> xr.Dataset:
    """A synthetic Vast.ai A100 offer book over ``minutes`` minutes (model in the module
    docstring).

    Returns
    -------
    xarray.Dataset
        dims ``minute`` (0 .. minutes-1) and ``offer`` (``inventory[1]`` slots);
        ``price_per_gpu_h`` (minute, offer): $/GPU-h of each offer, NaN where the slot
        offers nothing that minute; ``available`` (minute): offers that minute, within
        ``inventory``. attrs: the model's parameters and ``source``.
    """
    minutes = _check_count("minutes", minutes, 1)
    _check_rng(rng)
    lo_n, hi_n = _check_pair("inventory", inventory, integer=True)
    if hi_n < 1:
        raise InputError(f"inventory must allow at least one offer, got {inventory!r}")
    if (isinstance(churn, bool) or not isinstance(churn, numbers.Real)
            or not 0 <= churn <= 1):
        raise InputError(f"churn must be a probability in [0, 1], got {churn!r}")
    # validates price_range, median, sigma
    prices = offer_prices(hi_n, rng, price_range=price_range, median=median, sigma=sigma)
    lo_p, hi_p = _check_pair("price_range", price_range, integer=False)

    count = np.empty(minutes, dtype=np.int64)
    count[0] = rng.integers(lo_n, hi_n + 1)
    steps = rng.integers(-2, 3, minutes)
    width = hi_n - lo_n
    for t in range(1, minutes):
        c = count[t - 1] + steps[t] - lo_n
        if width:
            c = abs(c) % (2 * width)             # reflect into [0, width]
            c = 2 * width - c if c > width else c
        else:
            c = 0
        count[t] = c + lo_n

    place = rng.random(hi_n)
    table = np.full((minutes, hi_n), np.nan)
    for t in range(minutes):
        if t:
            fresh = np.flatnonzero(rng.random(hi_n) < churn)
            if fresh.size:
                prices[fresh] = _offer_prices(fresh.size, rng, lo_p, hi_p, median, sigma)
                place[fresh] = rng.random(fresh.size)
        shown = np.argsort(place, kind="stable")[: count[t]]
        table[t, shown] = prices[shown]

    return xr.Dataset(
        {"price_per_gpu_h": (("minute", "offer"), table),
         "available": ("minute", count)},
        coords={"minute": np.arange(minutes), "offer": np.arange(hi_n)},
        attrs={"model": "split log-normal prices, random-walk inventory, churned offers",
               "inventory": list((lo_n, hi_n)), "price_range": list(map(float, price_range)),
               "median": float(median), "sigma": float(sigma), "churn": float(churn),
               "source": ("model of Vast.ai A100 offers: inventory sec. 2.2/Fig. 3, price "
                          "median and range Table 2, sigma calibrated to the $0.74/GPU-h "
                          "of appendix A.2/Fig. 12 (lorasched.allpass.clouds)")})


def _check_book(book) -> None:
    if not isinstance(book, xr.Dataset) or "price_per_gpu_h" not in book:
        raise InputError("book must be an xarray.Dataset with a 'price_per_gpu_h' variable "
                         "(see offer_book / load_offer_book)")
    if book["price_per_gpu_h"].dims != ("minute", "offer"):
        raise InputError(f"book: price_per_gpu_h must have dims ('minute', 'offer'), got "
                         f"{book['price_per_gpu_h'].dims}")


def cheapest(book: xr.Dataset, minute, k) -> np.ndarray:
    """The prices of the ``k`` cheapest offers available at ``minute`` (a label of the
    ``minute`` coordinate), ascending. ``ValueError`` if the minute is not in the book or
    it offers fewer than ``k``."""
    _check_book(book)
    k = _check_count("k", k, 1)
    minutes = book["minute"].values
    if isinstance(minute, bool) or not isinstance(minute, numbers.Integral) \
            or minute not in minutes:
        raise InputError(f"minute {minute!r} is not in the book (minutes "
                         f"{minutes.min()}..{minutes.max()})")
    row = book["price_per_gpu_h"].sel(minute=minute).values
    row = np.sort(row[np.isfinite(row)])
    if row.size < k:
        raise InputError(f"minute {minute}: only {row.size} offers available, fewer than "
                         f"k={k}")
    return row[:k]


def mean_cheapest_price(book: xr.Dataset, k=CALIBRATION_K) -> float:
    """Average $/GPU-h paid when renting the ``k`` cheapest available offers every minute
    of the book (each minute's k prices weigh equally). The check of the offer-book model
    against the paper's $0.74/GPU-h (appendix A.2, Fig. 12; calibration in the module
    docstring). ``ValueError`` naming the first minute that offers fewer than ``k``."""
    _check_book(book)
    k = _check_count("k", k, 1)
    table = np.sort(book["price_per_gpu_h"].values, axis=1)   # NaN sort last
    have = np.isfinite(table).sum(axis=1)
    short = np.flatnonzero(have < k)
    if short.size:
        t = short[0]
        raise InputError(f"minute {book['minute'].values[t]}: only {have[t]} offers "
                         f"available, fewer than k={k}")
    return float(table[:, :k].mean())


def save_offer_book(book: xr.Dataset, path) -> Path:
    """Write a book as the CSV :func:`load_offer_book` reads (one row per offer, ordered
    by minute then offer slot); returns the path."""
    _check_book(book)
    path = Path(path)
    prices = book["price_per_gpu_h"].values
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(OFFER_COLUMNS)
        for minute, row in zip(book["minute"].values, prices, strict=True):
            for price in row[np.isfinite(row)]:
                w.writerow((int(minute), repr(float(price))))
    return path


def load_offer_book(path) -> xr.Dataset:
    """Read a user's offer book from a CSV (format in the module docstring: header
    ``minute,price_per_gpu_h``, one row per offered GPU) into the Dataset layout of
    :func:`offer_book`: minutes from the first to the last in the file (those without a
    row offer nothing), ``offer`` slots up to the busiest minute's count, filled in file
    order; ``available`` the count per minute.

    Raises ``FileNotFoundError`` if there is no such file, and ``ValueError`` naming the
    file, the line and the column for a missing column, an empty table, a row with the
    wrong number of fields, a minute that is not a non-negative integer or a price that is
    not a positive finite number.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"offer book {str(path)!r} not found")
    rows: dict[int, list[float]] = {}
    with path.open(newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            raise InputError(f"{path}: empty file, needs header {','.join(OFFER_COLUMNS)}")
        header = [h.strip() for h in header]
        for column in OFFER_COLUMNS:
            if column not in header:
                raise InputError(f"{path}, line 1: missing column {column!r} (has {header}; "
                                 f"needs {list(OFFER_COLUMNS)})")
        i_min, i_price = header.index("minute"), header.index("price_per_gpu_h")
        for line, fields in enumerate(reader, start=2):
            if not fields or all(not x.strip() for x in fields):
                continue
            if len(fields) != len(header):
                raise InputError(f"{path}, line {line}: {len(fields)} fields, expected "
                                 f"{len(header)} ({','.join(header)})")
            text = fields[i_min].strip()
            try:
                minute = int(text)
            except ValueError:
                minute = -1
            if minute < 0:
                raise InputError(f"{path}, line {line}, column 'minute': {text!r} is not a "
                                 f"non-negative integer")
            limits.at_most([minute], limits.HORIZON_S // 60, str(path),
                           lambda i, n=line: f"line {n}, column 'minute'")
            text = fields[i_price].strip()
            try:
                price = float(text)
            except ValueError:
                price = math.nan
            if not math.isfinite(price) or price <= 0:
                raise InputError(f"{path}, line {line}, column 'price_per_gpu_h': {text!r} "
                                 f"is not a positive finite price")
            limits.at_most([price], limits.MAX_PRICE_PER_GPU_H, str(path),
                           lambda i, n=line: f"line {n}, column 'price_per_gpu_h'")
            rows.setdefault(minute, []).append(price)
    if not rows:
        raise InputError(f"{path}: no rows (one row per offered GPU expected)")
    first, last = min(rows), max(rows)
    minutes = np.arange(first, last + 1)
    width = max(len(v) for v in rows.values())
    table = np.full((minutes.size, width), np.nan)
    count = np.zeros(minutes.size, dtype=np.int64)
    for minute, prices in rows.items():
        table[minute - first, : len(prices)] = prices
        count[minute - first] = len(prices)
    return xr.Dataset(
        {"price_per_gpu_h": (("minute", "offer"), table), "available": ("minute", count)},
        coords={"minute": minutes, "offer": np.arange(width)},
        attrs={"source": str(path)})
