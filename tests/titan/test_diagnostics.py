"""lorasched.titan.diagnostics: the GPUs each job ran on, its stays on GPUs and the pool's
utilisation, on a simulated day and on hand-edited copies of its result."""

from __future__ import annotations

import numpy as np
import pytest

from lorasched.titan.diagnostics import mean_gpus, starts_per_job, utilisation
from lorasched.titan.system import simulate
from lorasched.titan.workload import titan_scenario


@pytest.fixture(scope="module")
def result():
    return simulate(titan_scenario(workload="helios", jobs=12, seed=1), "srtf")


def test_srtf_runs_each_job_once_on_the_gpus_it_requested(result):
    # SRTF does not preempt here: one stay per job, on its requested GPUs
    assert starts_per_job(result) >= 1.0
    requested = result["requested_gpus"].values.astype(float)
    assert mean_gpus(result) == pytest.approx(requested.mean())
    assert 0.0 < utilisation(result) <= 1.0


def test_each_measure_follows_the_segments(result):
    doubled = result.copy(deep=True)
    doubled["seg_gpus"] = doubled["seg_gpus"] * 2
    assert mean_gpus(doubled) == pytest.approx(2 * mean_gpus(result))
    assert utilisation(doubled) == pytest.approx(2 * utilisation(result))
    # every segment a switch: each begins a stay
    switches = result.copy(deep=True)
    switches["seg_kind"] = xr_like(result["seg_kind"], 1)
    size = result["unit_size"].values
    expected = size[result["seg_unit"].values].sum() / result.sizes["job"]
    assert starts_per_job(switches) == pytest.approx(expected)


def xr_like(da, value):
    """``da`` with every value ``value``."""
    return da.copy(data=np.full_like(da.values, value))
