"""Allpass's scenario (sec. 5.1) as a contract: the jobs, the Vast.ai offer book they meet and
the serverful cap, as one ``xarray.Dataset`` with ``attrs["system"] == "allpass"``;
:func:`validate` names the first rule one breaks and :func:`to_arrays` gives the plain
arrays every policy reads (:class:`AllpassArrays`). The builder is
:func:`.workload.allpass_scenario`; the variables: :doc:`/reference/allpass_data`.
"""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import numpy as np
import xarray as xr

from ..model import limits
from ..model.errors import InputError

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
