"""``simulate``: run one algorithm on one scenario and return the result Dataset."""

from __future__ import annotations

import inspect
import time

import numpy as np
import xarray as xr

from . import policies
from .result import assemble
from .scenario import to_arrays


def simulate(scenario: xr.Dataset, algorithm: str = "pdftsp", seed: int | None = 0,
             **options) -> xr.Dataset:
    """Run ``algorithm`` on ``scenario`` and return scenario + decisions + accounting.

    ``seed`` seeds the ``numpy.random.Generator`` handed to the algorithm (pdFTSP draws
    none; baselines that pick vendors at random do); the same seed gives the same result.
    ``options`` go to the algorithm (for pdFTSP: ``alpha``, ``beta``, ``payment``,
    ``solver``, ``work_resolution``, ``progress``); an unknown option is a ``TypeError``
    naming it. The returned dataset is described in :mod:`lorasched.pdftsp.result`.
    """
    run = policies.get(algorithm)
    params = inspect.signature(run).parameters
    unknown = sorted(set(options) - set(params))
    if unknown:
        allowed = sorted(p for p in params if p not in ("arrays", "rng"))
        raise TypeError(f"algorithm {algorithm!r} got unknown option(s) {unknown}; "
                        f"it accepts {allowed}")
    arrays = to_arrays(scenario)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    decisions = run(arrays, rng, **options)
    elapsed = time.perf_counter() - start
    result = assemble(scenario, decisions, algorithm=algorithm, seed=seed, options=options)
    result.attrs["wall_seconds"] = elapsed
    return result
