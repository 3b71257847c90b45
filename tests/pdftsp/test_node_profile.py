"""lorasched.pdftsp.node_profile: a measured GPU in place of the published model, in a
synthetic scenario (``synthetic_scenario(measured_gpu=...)``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import lorasched
from lorasched.model import profiles
from lorasched.pdftsp.node_profile import NodeProfile

NODE = NodeProfile(label="X1", speed={1: 1000, 2: 1500, 4: 2000, 8: 2100},
                   memory_gb={1: 5.0, 2: 9.0, 4: 17.0, 8: 33.0}, base_model_memory_gb=3.0,
                   capacity=2500, memory_capacity_gb=96.0, power_w=500.0, slot_minutes=10.0,
                   source="a stand-in measurement")


def test_every_node_takes_the_measured_numbers():
    s = lorasched.synthetic_scenario(nodes=5, load=6.0, slots=24, seed=2, measured_gpu=NODE)
    assert list(s["gpu_type"].values) == ["X1"] * 5
    assert (s["compute_capacity"].values == 2500).all()
    assert (s["memory_capacity"].values == 96.0).all()
    batch = s["micro_batch"].values
    assert (s["speed"].sel(gpu="X1").values == [NODE.speed[b] for b in batch]).all()
    assert (s["memory"].values == [NODE.memory_gb[b] for b in batch]).all()
    assert s.attrs["base_model_memory"] == 3.0
    assert s.attrs["measured_node"] == "a stand-in measurement"
    lorasched.check_result(lorasched.simulate(s, "pdftsp", seed=2))


def test_the_same_seed_draws_the_same_tasks_whatever_the_gpu():
    published = lorasched.synthetic_scenario(nodes=5, load=6.0, slots=24, seed=2, gpu="A100")
    measured = lorasched.synthetic_scenario(nodes=5, load=6.0, slots=24, seed=2, measured_gpu=NODE)
    for name in ("arrival", "work", "bid", "micro_batch", "needs_preprocessing"):
        np.testing.assert_array_equal(published[name].values, measured[name].values)
    # the operating cost per sample: the measured GPU's power over its measured capacity
    ratio = measured["op_cost_rate"].values / published["op_cost_rate"].values
    a100 = profiles.GPUS["A100-80GB"]
    want = (NODE.power_w / NODE.capacity) / (a100.power_w / profiles.node_capacity(a100))
    np.testing.assert_allclose(ratio, want)


@pytest.mark.parametrize("change, rule", [
    ({"speed": {1: 1000, 2: 1500}}, r"no row for micro-batch\(es\) \[4\]"),
    ({"slot_minutes": 5.0}, "per 5-minute slot"),
    ({"capacity": 0}, "capacity must be > 0"),
    ({"memory_gb": {1: 5.0, 2: float("nan"), 4: 17.0}}, r"memory_gb\[2\] must be > 0"),
])
def test_a_node_that_does_not_cover_the_scenario_is_refused(change, rule):
    with pytest.raises(lorasched.InputError, match=rule):
        lorasched.synthetic_scenario(nodes=2, load=2.0, slots=12, seed=0,
                                     measured_gpu=dataclasses.replace(NODE, **change))
