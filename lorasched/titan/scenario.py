"""TITAN's scenario (sec. 3 and 5) as a contract: an ``xarray.Dataset`` with
``attrs["system"] == "titan"`` holding a pool of M GPUs and fine-tuning jobs with their step
times from the LUT, in two setups; :func:`validate` names the first rule one breaks and
:func:`to_arrays` gives the plain arrays every policy reads (:class:`TitanArrays`). The
builders are in :mod:`lorasched.titan.workload`; the variables: :doc:`/reference/titan_data`.
"""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import numpy as np
import xarray as xr

from ..model import limits
from ..model.errors import InputError

#: the setups (module docstring)
SETUPS = ("paper", "authors_code")


class TitanArrays(NamedTuple):
    """The plain arrays of a TITAN scenario: what every policy reads.

    J jobs, A allocations of the set A, B global batch sizes; build one with
    :func:`to_arrays`.

    Parameters
    ----------
    submit : numpy.ndarray
        (J,) submission times, s.
    iterations : numpy.ndarray
        (J,) int64, total optimizer steps.
    requested_gpus : numpy.ndarray
        (J,) int64, the GPUs each job requested (what SRTF and Tiresias allocate).
    requested_iter_s : numpy.ndarray
        (J,) seconds per iteration on the requested GPUs.
    app : numpy.ndarray
        (J,) int64 application id (merge candidates share one).
    batch : numpy.ndarray
        (J,) int64 index into the rows of ``iter_s``.
    scale : numpy.ndarray
        (J,) samples per epoch of the job's dataset.
    allocations : numpy.ndarray
        (A,) int64, the set A up to M.
    iter_s : numpy.ndarray
        (B, A) seconds per iteration; NaN where the allocation is not offered.
    gpus : int
        M, the GPUs of the pool.
    setup : {"paper", "authors_code"}, optional
        The setup the policies read their defaults from (default ``"paper"``).
    restart_s : float, optional
        ``"authors_code"``: seconds of every start and restart (default NaN).
    estimated_iter_s : numpy.ndarray, optional
        (J,) seconds per iteration on the requested GPUs as the authors' simulator
        estimates them (``lorasched.titan.lut.estimated_step_time``; default: the true).
    gpus_per_node : int, optional
        GPUs per node (default 0: not recorded).
    estimated_width_s : numpy.ndarray, optional
        (B, M) seconds per iteration at each width 1..M as the authors' simulator
        estimates them (NaN where it offers none; default None: not built).
    batch_sizes : numpy.ndarray, optional
        (B,) int64, the global batch of each row of ``iter_s`` (default None).
    dataset_index : numpy.ndarray, optional
        (J,) int64, each job's dataset's place in the authors' code's list (-1: none),
        which orders a merged pair there (default None).
    """

    submit: np.ndarray            # (J,) s
    iterations: np.ndarray        # (J,) int64, total optimizer steps
    requested_gpus: np.ndarray    # (J,) int64
    requested_iter_s: np.ndarray  # (J,) s per iteration on the requested GPUs
    app: np.ndarray               # (J,) int64 application id (merge candidates share one)
    batch: np.ndarray             # (J,) int64 index into iter_s' rows
    scale: np.ndarray             # (J,) samples per epoch of the job's dataset
    allocations: np.ndarray       # (A,) int64, the set A up to M
    iter_s: np.ndarray            # (B, A) s per iteration; nan = not offered
    gpus: int                     # M
    setup: str = "paper"          # the setup the policies read their defaults from
    restart_s: float = math.nan   # authors_code: seconds of every start and restart
    estimated_iter_s: np.ndarray | None = None  # (J,) the authors' estimate, s/iteration
    gpus_per_node: int = 0
    estimated_width_s: np.ndarray | None = None  # (B, M) the authors' estimate per width
    batch_sizes: np.ndarray | None = None         # (B,) int64, the global batch per row
    dataset_index: np.ndarray | None = None       # (J,) int64, the authors' dataset order


def validate(scenario: xr.Dataset) -> None:
    """Check that ``scenario`` is a well-formed TITAN scenario.

    Parameters
    ----------
    scenario : xarray.Dataset
        The scenario (the module docstring lists its variables and attributes).

    Raises
    ------
    InputError
        A ``ValueError`` naming the field and the job of the first bad value: not a TITAN
        scenario, a missing variable, an unknown setup, a value out of range or past the
        declared limits, a duplicate job name, a batch with no step time.
    """
    if scenario.attrs.get("system") != "titan":
        raise InputError(f"not a TITAN scenario (attrs['system'] = "
                         f"{scenario.attrs.get('system')!r})")
    need = ("submit_s", "total_iterations", "requested_gpus", "requested_iter_s", "app_id",
            "batch_id", "samples_per_epoch", "iter_s")
    for var in need:
        if var not in scenario:
            raise InputError(f"scenario has no {var!r}")
    setup = scenario.attrs.get("setup", "paper")
    if setup not in SETUPS:
        raise InputError(f"scenario attribute 'setup' must be one of {SETUPS}, got "
                         f"{setup!r}")
    restart = scenario.attrs.get("restart_s", math.nan)
    if setup == "authors_code" and not (isinstance(restart, numbers.Real)
                                        and math.isfinite(restart) and restart >= 0):
        raise InputError(f"scenario attribute 'restart_s' must be a non-negative number "
                         f"of seconds for setup 'authors_code', got {restart!r}")
    M = scenario.attrs.get("gpus")
    if isinstance(M, bool) or not isinstance(M, numbers.Integral | np.integer) or M < 1:
        raise InputError(f"scenario attribute 'gpus' must be a positive integer, got {M!r}")
    limits.at_most([M], limits.MAX_GPUS, "scenario attribute 'gpus'", lambda i: "the cluster")
    names = scenario["name"].values if "name" in scenario else np.arange(scenario.sizes["job"])
    if "name" in scenario:
        _, first, counts = np.unique(names.astype(str), return_index=True, return_counts=True)
        if (counts > 1).any():
            dup = int(np.sort(first[counts > 1])[0])
            later = int(np.flatnonzero(names.astype(str) == str(names[dup]))[1])
            raise InputError(f"job {later} ({names[later]!r}): duplicate 'name' (first at "
                             f"job {dup})")
    for var in scenario.data_vars:
        if scenario[var].dtype.kind not in "biuf" and var not in ("name", "application"):
            raise InputError(f"scenario variable {var!r} must hold numbers, got "
                             f"{scenario[var].dtype} values")
    n_batch = scenario.sizes["batch"]
    checks = (
        ("submit_s", lambda v: np.isfinite(v) & (v >= 0), "must be finite and >= 0"),
        ("total_iterations", lambda v: v >= 1, "must be >= 1"),
        ("requested_gpus", lambda v: (v >= 1) & (v <= M), f"must be in 1..{M}"),
        ("requested_iter_s", lambda v: np.isfinite(v) & (v > 0), "must be positive"),
        ("app_id", lambda v: v >= 0, "must be >= 0"),
        ("batch_id", lambda v: (v >= 0) & (v < n_batch), f"must be in 0..{n_batch - 1}"),
        ("samples_per_epoch", lambda v: np.isfinite(v) & (v > 0), "must be positive"),
    )
    for var, ok, why in checks:
        values = scenario[var].values
        bad = np.flatnonzero(~ok(values))
        if bad.size:
            j = int(bad[0])
            raise InputError(f"job {j} ({names[j]!r}): {var!r} = {values[j].item()!r} {why}")
    for var, limit in (("submit_s", limits.HORIZON_S),
                       ("total_iterations", limits.MAX_ITERATIONS),
                       ("requested_iter_s", limits.MAX_STEP_S)):
        limits.at_most(scenario[var].values, limit, f"scenario variable {var!r}",
                       lambda j: f"job {j} ({names[j]!r})")
    iter_s = scenario["iter_s"].values
    if np.any(iter_s[np.isfinite(iter_s)] <= 0) or np.any(np.isinf(iter_s)):
        raise InputError("'iter_s' must be positive where given (nan = not offered)")
    limits.at_most(iter_s, limits.MAX_STEP_S, "scenario variable 'iter_s'",
                   lambda k: f"batch {scenario['batch'].values[k // iter_s.shape[1]]}, "
                             f"allocation {scenario['allocation'].values[k % iter_s.shape[1]]}")
    if "estimated_width_s" in scenario:
        est = scenario["estimated_width_s"]
        if est.dims != ("batch", "width") or est.shape[1] != M or \
                np.any(est.values[np.isfinite(est.values)] <= 0) or \
                np.any(np.isinf(est.values)):
            raise InputError(f"'estimated_width_s' must be (batch, width) over widths 1..{M}, "
                             "positive where given (nan = none)")
    allocs = scenario["allocation"].values
    if np.any(allocs > M) or np.any(allocs < 1):
        raise InputError(f"allocations {allocs.tolist()} must lie in 1..{M}")
    offered = np.isfinite(iter_s).any(axis=1)
    used = np.unique(scenario["batch_id"].values)
    if not offered[used].all():
        b = int(used[~offered[used]][0])
        raise InputError(f"batch {scenario['batch'].values[b]}: no allocation has a step "
                         f"time ('iter_s' all nan)")


def to_arrays(scenario: xr.Dataset) -> TitanArrays:
    """The scenario's plain arrays, validated first.

    Parameters
    ----------
    scenario : xarray.Dataset
        A TITAN scenario.

    Returns
    -------
    TitanArrays

    Raises
    ------
    InputError
        If the scenario breaks its contract (:func:`validate`).
    """
    validate(scenario)
    return TitanArrays(
        submit=scenario["submit_s"].values.astype(float),
        iterations=scenario["total_iterations"].values.astype(np.int64),
        requested_gpus=scenario["requested_gpus"].values.astype(np.int64),
        requested_iter_s=scenario["requested_iter_s"].values.astype(float),
        app=scenario["app_id"].values.astype(np.int64),
        batch=scenario["batch_id"].values.astype(np.int64),
        scale=scenario["samples_per_epoch"].values.astype(float),
        allocations=scenario["allocation"].values.astype(np.int64),
        iter_s=scenario["iter_s"].values.astype(float),
        gpus=int(scenario.attrs["gpus"]),
        setup=str(scenario.attrs.get("setup", "paper")),
        restart_s=float(scenario.attrs.get("restart_s", math.nan)),
        estimated_iter_s=(scenario["estimated_iter_s"].values.astype(float)
                          if "estimated_iter_s" in scenario else
                          scenario["requested_iter_s"].values.astype(float)),
        gpus_per_node=int(scenario.attrs.get("gpus_per_node", 0)),
        estimated_width_s=(scenario["estimated_width_s"].values.astype(float)
                           if "estimated_width_s" in scenario else None),
        batch_sizes=scenario["batch"].values.astype(np.int64),
        dataset_index=(scenario["dataset_index"].values.astype(np.int64)
                       if "dataset_index" in scenario else None),
    )
