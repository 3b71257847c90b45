"""Allpass's scenario (sec. 5.1): the jobs, the Vast.ai offer book they meet and the serverful
cap, as one ``xarray.Dataset`` with ``attrs["system"] == "allpass"`` (:func:`allpass_scenario`),
its validation and its plain arrays. The variables: :doc:`/reference/allpass_data`.
"""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import numpy as np
import xarray as xr

from ..model import limits
from ..model.errors import InputError
from .clouds import load_offer_book, offer_book
from .workload import PAPER_JOBS, allpass_workload

#: sec. 5.1: "the serverful tier is limited by 30 concurrent A100 instances"
PAPER_CAPACITY = 30
#: the stored value of an unlimited cap
UNLIMITED = -1
#: hours of market the default offer book covers
BOOK_HOURS = 24
#: the job variables a scenario must hold
JOB_VARS = ("submit_s", "work_s", "deadline_s")


class AllpassArrays(NamedTuple):
    """The plain arrays of an Allpass scenario: what every policy reads.

    J jobs; build one with :func:`to_arrays`.

    Parameters
    ----------
    submit : numpy.ndarray
        (J,) submission times, s, non-decreasing.
    work : numpy.ndarray
        (J,) seconds of A100 work.
    deadline : numpy.ndarray
        (J,) soft deadlines, s.
    offers : numpy.ndarray
        (minutes, slots) the marketplace's offers, $/GPU-h; NaN where a slot offers
        nothing.
    capacity : float
        The cap on concurrent serverful workers (``math.inf``: unlimited).
    """

    submit: np.ndarray      # (J,) s, non-decreasing
    work: np.ndarray        # (J,) s of A100 work
    deadline: np.ndarray    # (J,) s, soft deadline
    offers: np.ndarray      # (minutes, slots) $/GPU-h, NaN where a slot offers nothing
    capacity: float         # cap on concurrent serverful workers (math.inf: unlimited)


def capacity_value(capacity) -> int:
    """The cap on concurrent serverful workers as a scenario stores it.

    Parameters
    ----------
    capacity : int, str or None
        A positive integer (or its digits), or unlimited: ``None``, ``"none"``,
        ``"unlimited"``, ``"inf"`` or ``-1``.

    Returns
    -------
    int
        The cap, or ``UNLIMITED`` (-1).

    Raises
    ------
    InputError
        A ``ValueError`` naming ``capacity``, for anything else.
    """
    if capacity is None or (isinstance(capacity, str)
                            and capacity.lower() in ("none", "unlimited", "inf")):
        return UNLIMITED
    if isinstance(capacity, str) and capacity.strip().lstrip("-").isdigit():
        capacity = int(capacity)
    if (isinstance(capacity, bool) or not isinstance(capacity, numbers.Integral)
            or (capacity < 1 and capacity != UNLIMITED)):
        raise InputError(f"capacity must be a positive integer or 'none' (unlimited), got "
                         f"{capacity!r}")
    return int(capacity)


def allpass_scenario(jobs: int = PAPER_JOBS, source: str = "helios",
                     capacity=PAPER_CAPACITY, sizing: str = "cost",
                     book_hours: float = BOOK_HOURS, offer_file=None, trace_file=None,
                     seed: int = 0, per_epoch_s=None,
                     per_epoch_label: str = "given") -> xr.Dataset:
    """An Allpass scenario: jobs, the marketplace's offer book and the serverful cap.

    The module docstring lists the Dataset's variables and attributes.

    Parameters
    ----------
    jobs : int, optional
        Jobs of the workload (``lorasched.allpass.workload.allpass_workload``; default
        200).
    source : {"helios", "mixture"}, optional
        Jobs from a Helios window (default) or the mixture fitted to Seren.
    sizing : {"cost", "trace"}, optional
        ``"cost"`` (default) scales the work to the paper's implied 332 A100-h,
        ``"trace"`` keeps duration / 5.
    trace_file : path-like, optional
        A trace CSV used instead of Helios.
    capacity : int or "none", optional
        Cap on concurrent serverful workers (default sec. 5.1's 30; ``"none"`` unlimited).
    book_hours : float, optional
        Hours of the synthetic offer book (default 24; ignored with ``offer_file``).
    offer_file : path-like, optional
        A price/availability series (``lorasched.allpass.clouds.load_offer_book``)
        instead of the model.
    seed : int, optional
        Seeds the workload and, with a second stream, the offer book (default 0).
    per_epoch_s : dict, optional
        Model of Table 4 -> seconds of one epoch on the GPU the jobs run on, in place of
        Table 4's A100 seconds (e.g. ``lorasched.profiling.table.allpass_per_epoch``): those
        models' jobs keep their epochs and take that GPU's time; the clouds' prices,
        start-ups and inventory stay Table 2's and 3's A100 ones. Default: Table 4.
    per_epoch_label : str, optional
        Where ``per_epoch_s`` comes from, recorded in the attrs ``per_epoch_from_<model>``.

    Returns
    -------
    xarray.Dataset
        The validated scenario (:func:`validate`), ``attrs["system"] == "allpass"``.

    Raises
    ------
    InputError
        Naming the first argument out of its choices or range, or what the workload or
        the offer file breaks.
    """
    cap = capacity_value(capacity)
    if (isinstance(book_hours, bool) or not isinstance(book_hours, numbers.Real)
            or not math.isfinite(book_hours) or book_hours <= 0):
        raise InputError(f"book_hours must be a positive number, got {book_hours!r}")
    work = allpass_workload(jobs=jobs, source=source, seed=seed, sizing=sizing,
                            trace_file=trace_file, per_epoch_s=per_epoch_s,
                            per_epoch_label=per_epoch_label)
    if offer_file is None:
        # a stream of its own, so the market does not shift when the workload's draws do
        rng = np.random.default_rng([int(seed), 1])
        book = offer_book(int(math.ceil(book_hours * 60)), rng)
    else:
        book = load_offer_book(offer_file)
        # minutes count from the first submission: a file starting at minute 5 offers
        # nothing in minutes 0-4 (the conventional cloud fills in)
        book = book.reindex(minute=np.arange(int(book["minute"].max()) + 1))
    ds = work.copy()
    ds["price_per_gpu_h"] = book["price_per_gpu_h"]
    ds.attrs.update({f"book_{k}": v for k, v in book.attrs.items()})
    ds.attrs.update(system="allpass", capacity=cap, book_hours=float(book.sizes["minute"]) / 60)
    validate(ds)
    return ds


def validate(scenario: xr.Dataset) -> None:
    """Check that ``scenario`` is a well-formed Allpass scenario.

    Parameters
    ----------
    scenario : xarray.Dataset
        The scenario (the module docstring lists its variables and attributes).

    Raises
    ------
    InputError
        A ``ValueError`` naming the field and the job (or minute) that breaks the
        scenario's contract.
    """
    if not isinstance(scenario, xr.Dataset):
        raise InputError(f"an Allpass scenario must be an xarray.Dataset, got "
                         f"{type(scenario).__name__}")
    if scenario.attrs.get("system") != "allpass":
        raise InputError(f"scenario attribute 'system' must be 'allpass', got "
                         f"{scenario.attrs.get('system')!r}")
    for var in (*JOB_VARS, "price_per_gpu_h"):
        if var not in scenario:
            raise InputError(f"scenario lacks the variable {var!r}")
    names = (scenario["name"].values.astype(str).tolist() if "name" in scenario
             else list(range(scenario.sizes["job"])))
    if scenario.sizes.get("job", 0) < 1:
        raise InputError("scenario has no jobs")
    for var in (*JOB_VARS, "price_per_gpu_h"):
        if scenario[var].dtype.kind not in "iuf":
            raise InputError(f"scenario variable {var!r} must hold numbers, got "
                             f"{scenario[var].dtype} values")
    if len(set(names)) != len(names):
        seen: dict = {}
        for j, name in enumerate(names):
            if name in seen:
                raise InputError(f"job {j} ({name!r}): duplicate 'name' (first at job "
                                 f"{seen[name]})")
            seen[name] = j
    for var in JOB_VARS:
        x = scenario[var].values.astype(float)
        bad = ~np.isfinite(x) | (x < 0)
        if var == "work_s":
            bad |= x <= 0
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise InputError(f"{var} of job {names[j]!r} must be a "
                             f"{'positive' if var == 'work_s' else 'non-negative'} finite "
                             f"number of seconds, got {x[j]!r}")
        limit = limits.MAX_DURATION_S if var == "work_s" else limits.HORIZON_S
        limits.at_most(x, limit, f"scenario variable {var!r}", lambda j: f"job {names[j]!r}")
    submit = scenario["submit_s"].values.astype(float)
    back = np.flatnonzero(np.diff(submit) < 0)
    if back.size:
        j = int(back[0]) + 1
        raise InputError(f"submit_s must be non-decreasing; job {names[j]!r} is submitted "
                         f"at {submit[j]!r} s, before the previous job")
    late = np.flatnonzero(scenario["deadline_s"].values < submit)
    if late.size:
        j = int(late[0])
        raise InputError(f"deadline_s of job {names[j]!r} is before its submit_s")
    prices = scenario["price_per_gpu_h"].values.astype(float)
    if prices.ndim != 2:
        raise InputError("price_per_gpu_h must have dims ('minute', 'offer')")
    if "minute" in scenario.coords and not np.array_equal(
            scenario["minute"].values, np.arange(prices.shape[0])):
        raise InputError("price_per_gpu_h: the 'minute' coordinate must be 0, 1, ..., "
                         "minutes - 1 (minutes since the first submission)")
    bad = np.isfinite(prices) & (prices <= 0)
    if bad.any():
        m = int(np.argwhere(bad)[0][0])
        raise InputError(f"price_per_gpu_h at minute {m} holds a non-positive price")
    limits.at_most(prices, limits.MAX_PRICE_PER_GPU_H, "scenario variable 'price_per_gpu_h'",
                   lambda k: f"minute {k // prices.shape[1]}")
    capacity_value(scenario.attrs.get("capacity", UNLIMITED))


def to_arrays(scenario: xr.Dataset) -> AllpassArrays:
    """The plain arrays every policy reads, validated once.

    Parameters
    ----------
    scenario : xarray.Dataset
        An Allpass scenario.

    Returns
    -------
    AllpassArrays

    Raises
    ------
    InputError
        If the scenario breaks its contract (:func:`validate`).
    """
    validate(scenario)
    cap = capacity_value(scenario.attrs.get("capacity", UNLIMITED))
    return AllpassArrays(
        submit=scenario["submit_s"].values.astype(float),
        work=scenario["work_s"].values.astype(float),
        deadline=scenario["deadline_s"].values.astype(float),
        offers=scenario["price_per_gpu_h"].values.astype(float),
        capacity=math.inf if cap == UNLIMITED else float(cap))
