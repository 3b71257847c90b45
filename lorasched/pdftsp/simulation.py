"""``simulate``: run one algorithm on one scenario and return the result Dataset."""

from __future__ import annotations

import xarray as xr

from ..model.system import timed_run
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
    decisions, elapsed = timed_run(policies.get(algorithm), algorithm, to_arrays(scenario),
                                   seed, options)
    result = assemble(scenario, decisions, algorithm=algorithm, seed=seed, options=options)
    result.attrs["wall_seconds"] = elapsed
    return result
