"""lorasched.titan.scenario with a LUT of one's own (``titan_scenario(lut=...)``): the shipped
H200 measurement of ViT-L/16 (traces/profiles/H200-vit-large.csv) in place of the authors'
V100 LUT, the jobs its single placement can run, and the arguments it refuses."""

from __future__ import annotations

import math

import numpy as np
import pytest
import xarray as xr

import lorasched
from lorasched.model.traces import trace_dir
from lorasched.profiling import table as measured
from lorasched.titan.decisions import RUN
from lorasched.titan.result import check_result
from lorasched.titan.workload import titan_scenario

#: the shipped measurement and the configuration read from it
PROFILE = trace_dir() / "profiles" / "H200-vit-large.csv"
WHERE = {"model": "vit-large", "gpu_label": "H200", "rank": 16, "seq_len": 197}
#: a small workload: 16 of the authors' FM-1-vit-large jobs on one node of 4 GPUs
SMALL = {"jobs": 16, "nodes": 1, "gpus_per_node": 4}


@pytest.fixture(scope="module")
def h200():
    return measured.titan_lut(measured.read(PROFILE), **WHERE)


@pytest.fixture(scope="module")
def scenario(h200):
    return titan_scenario(lut=h200, oversize="drop", **SMALL)


def _seconds_per_step(batch: int) -> float:
    """A global batch's step time read from the CSV by hand: micro-steps of the largest
    measured micro-batch (8, also the memory table's largest) while they split the batch
    evenly, one adapter at rank 16, no gradient synchronisation on one GPU."""
    rows = {r["micro_batch"]: r["step_time_s"]
            for r in measured.read(PROFILE).select(adapters=1, **WHERE)}
    largest = max(rows)
    k = math.ceil(batch / largest)
    assert math.ceil(batch / k) == largest  # the shipped batches (48, 192, 576) split evenly
    return k * rows[largest]


def test_the_scenario_reads_the_measured_lut(scenario):
    assert (scenario.attrs["gpu"], scenario.attrs["model"]) == ("H200", "vit-large")
    assert str(PROFILE.name) in scenario.attrs["lut_source"]
    assert scenario["requested_gpus"].values.tolist() == [1] * scenario.sizes["job"]
    # only allocation 1 is offered: the LUT measures no other
    offered = np.isfinite(scenario["iter_s"].values).any(axis=0)
    assert scenario["allocation"].values[offered].tolist() == [1]
    expected = [_seconds_per_step(b) for b in scenario["batch"].values.tolist()]
    np.testing.assert_allclose(scenario["iter_s"].sel(allocation=1).values, expected,
                               rtol=1e-12)


@pytest.mark.parametrize("algorithm", ["titan", "srtf"])
def test_every_run_goes_at_the_measured_step_time(scenario, algorithm):
    """Each job alone in a unit progresses at 1 / (iterations x measured step time) per
    second of its run segments (the paper's setup has no ticks: no rounding)."""
    result = lorasched.simulate(scenario, algorithm)
    check_result(result)
    kind = result["seg_kind"].values
    assert (result["seg_gpus"].values[kind == RUN] == 1).all()
    members = np.bincount(result["member_unit"].values)
    step = {int(b): _seconds_per_step(int(b)) for b in scenario["batch"].values}
    checked = 0
    for s, j, progress in zip(result["part_segment"].values, result["part_job"].values,
                              result["part_progress"].values, strict=True):
        if kind[s] != RUN or members[result["seg_unit"].values[s]] != 1:
            continue  # a merged unit runs at its own merged length
        seconds = float(result["seg_end_s"].values[s] - result["seg_start_s"].values[s])
        work = (scenario["total_iterations"].values[j]
                * step[int(scenario["target_batch_size"].values[j])])
        assert progress == pytest.approx(seconds / work, rel=1e-9)
        checked += 1
    assert checked >= scenario.sizes["job"] // 2


def test_without_a_lut_the_authors_v100_lut_is_read():
    assert xr.testing.assert_identical(
        titan_scenario(oversize="drop", **SMALL),
        titan_scenario(oversize="drop", gpu="V100", **SMALL)) is None
    assert titan_scenario(oversize="drop", **SMALL).attrs["gpu"] == "V100"


def test_jobs_needing_more_gpus_than_measured(h200):
    with pytest.raises(lorasched.InputError,
                       match=r"job 0 \('vit-large@food101-2'\): 'requested_gpus' = 2 exceeds "
                             r"the 1 GPU\(s\) of the largest placement the lut measures"):
        titan_scenario(lut=h200, **SMALL)
    capped = titan_scenario(lut=h200, oversize="cap", **SMALL)
    dropped = titan_scenario(lut=h200, oversize="drop", **SMALL)
    assert capped["requested_gpus"].values.tolist() == [1] * 16
    assert dropped.sizes["job"] + dropped.attrs["oversize_jobs"] == 16
    assert capped.attrs["oversize_jobs"] == dropped.attrs["oversize_jobs"] > 0
    with pytest.raises(lorasched.InputError, match=r"oversize='drop': every job requests "
                       r"more than 1 GPU\(s\), what the cluster and the lut's placements"):
        titan_scenario(lut=h200, oversize="drop", jobs=1, seed=4)


def test_the_helios_workload_requests_one_gpu(h200):
    sc = titan_scenario(workload="helios", jobs=12, seed=1, lut=h200)
    assert sc.attrs["gpu"] == "H200"
    assert sc["requested_gpus"].values.tolist() == [1] * 12


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"model": "roberta-base"}, "lut measures model 'vit-large' but model='roberta-base'"),
    ({"gpu": "V100"}, "lut measures gpu 'H200' but gpu='V100'"),
    ({"setup": "authors_code"}, "lut applies to setup='paper' only"),
])
def test_a_lut_that_does_not_fit_is_refused(h200, kwargs, words):
    with pytest.raises(lorasched.InputError, match=words):
        titan_scenario(lut=h200, oversize="drop", **{**SMALL, **kwargs})


def test_a_lut_must_be_a_dataset():
    with pytest.raises(lorasched.InputError, match="lut must be an xarray.Dataset"):
        titan_scenario(lut={"1": 0.05}, **SMALL)
