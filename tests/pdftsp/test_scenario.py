"""Scenario validation (pdftsp.scenario) and the synthetic generator (pdftsp.workload)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import xarray as xr

import lorasched
from lorasched import synthetic_scenario
from lorasched.pdftsp import to_arrays, validate, workload
from lorasched.pdftsp.scenario import NodeSpeed, node_speed
from lorasched.pdftsp.workload import DEADLINE_POLICIES, SLACK_RANGES

SLOTS = 6


@pytest.fixture(scope="module")
def base():
    """Six tasks, task i arriving in slot i, two vendors, two nodes; speeds per node (the
    validation tests name (task, node) cells; the typed layout has its own tests)."""
    ds = synthetic_scenario(nodes=2, slots=SLOTS, arrivals=[1] * SLOTS, vendors=2, seed=0,
                            speed_layout="node")
    assert ds.sizes["task"] == SLOTS
    np.testing.assert_array_equal(ds["arrival"].values, np.arange(SLOTS))
    return ds


@pytest.fixture
def ds(base):
    return base.copy(deep=True)


def _float(ds, name):
    ds[name] = ds[name].astype(float)
    return ds[name].values


def test_base_scenario_is_valid(ds):
    validate(ds)
    arrays = to_arrays(ds)
    assert arrays.n_tasks == SLOTS and arrays.n_nodes == 2 and arrays.n_vendors == 2


# ----------------------------------------------------------------------------------------
# validation: every message names the variable and the first bad task / node
# ----------------------------------------------------------------------------------------


def _nan_work(ds):
    _float(ds, "work")[3] = np.nan


def _negative_memory(ds):
    ds["memory"].values[3] = -1.0


def _negative_work(ds):
    ds["work"].values[3] = -5


def _zero_work(ds):
    ds["work"].values[3] = 0


def _fractional_work(ds):
    _float(ds, "work")[3] = 1000.5


def _deadline_before_arrival(ds):
    ds["deadline"].values[3] = 2  # task 3 arrives in slot 3


def _deadline_past_horizon(ds):
    ds["deadline"].values[3] = SLOTS


def _unordered(ds):
    ds["arrival"].values[3] = 1  # task 2 arrives in slot 2
    ds["deadline"].values[3] = max(int(ds["deadline"].values[3]), 1)


def _memory_fits_nowhere(ds):
    ds["memory"].values[3] = float(ds["memory_capacity"].values.max())  # + r_b > every node


def _infinite_bid(ds):
    ds["bid"].values[3] = np.inf


def _speed_zero_everywhere(ds):
    ds["speed"].values[3, :] = 0


def _negative_vendor_delay(ds):
    ds["vendor_delay"].values[3, 1] = -1


def _nan_vendor_price(ds):
    ds["vendor_price"].values[3, 0] = np.nan


def _bad_preprocessing_flag(ds):
    flags = ds["needs_preprocessing"].astype(np.int64)
    flags.values[3] = 2
    ds["needs_preprocessing"] = flags


def _zero_capacity(ds):
    ds["compute_capacity"].values[1] = 0


def _memory_below_base_model(ds):
    ds["memory_capacity"].values[1] = ds.attrs["base_model_memory"] / 2


def _nan_op_cost(ds):
    ds["op_cost_rate"].values[1, 4] = np.nan


BAD_FIELDS = {
    "NaN work": (_nan_work, r"'work' at task 3\b.*NaN"),
    "negative memory": (_negative_memory, r"'memory' at task 3\b.*negative"),
    "negative work": (_negative_work, r"'work' at task 3\b.*negative"),
    "zero work": (_zero_work, r"'work' at task 3\b.*positive"),
    "fractional work": (_fractional_work, r"'work' at task 3\b.*whole number"),
    "deadline before arrival": (_deadline_before_arrival, r"'deadline' at task 3\b.*before"),
    "deadline past the horizon": (_deadline_past_horizon, r"'deadline' at task 3\b.*last slot"),
    "tasks not ordered by arrival": (_unordered, r"'arrival' at task 3\b.*ordered"),
    "memory fits on no node": (_memory_fits_nowhere, r"'memory' at task 3\b.*every node"),
    "infinite bid": (_infinite_bid, r"'bid' at task 3\b.*infinite"),
    "speed zero on every node": (_speed_zero_everywhere, r"'speed' at task 3\b.*zero"),
    "negative vendor delay": (_negative_vendor_delay,
                              r"'vendor_delay' at task 3, vendor 1\b.*negative"),
    "NaN vendor price": (_nan_vendor_price, r"'vendor_price' at task 3, vendor 0\b.*NaN"),
    "pre-processing flag 2": (_bad_preprocessing_flag, r"'needs_preprocessing' at task 3\b"),
    "zero compute capacity": (_zero_capacity, r"'compute_capacity' at node 1\b.*positive"),
    "node smaller than the base model": (_memory_below_base_model,
                                         r"'memory_capacity' at node 1\b.*base model"),
    "NaN operating cost": (_nan_op_cost, r"'op_cost_rate' at node 1, slot 4\b.*NaN"),
}


@pytest.mark.parametrize("name", list(BAD_FIELDS))
def test_bad_field_is_named_with_its_index(ds, name):
    corrupt, match = BAD_FIELDS[name]
    corrupt(ds)
    with pytest.raises(ValueError, match=match):
        validate(ds)
    with pytest.raises(ValueError, match=match):
        to_arrays(ds)


def test_second_bad_item_is_counted(ds):
    ds["memory"].values[[3, 5]] = -1.0
    with pytest.raises(ValueError, match=r"'memory' at task 3\b.*\(2 items in all\)"):
        validate(ds)


def test_wrong_dims(ds):
    ds["speed"] = ds["speed"].transpose("node", "task")
    with pytest.raises(ValueError, match=r"'speed' has dims \('node', 'task'\), expected "
                                         r"\('task', 'node'\)"):
        validate(ds)


def test_missing_variable(ds):
    with pytest.raises(ValueError, match=r"'vendor_delay' is missing"):
        validate(ds.drop_vars("vendor_delay"))


def test_missing_base_model_memory(ds):
    del ds.attrs["base_model_memory"]
    with pytest.raises(ValueError, match=r"'base_model_memory' is missing"):
        validate(ds)


@pytest.mark.parametrize("value", ["lots", -1.0, np.nan])
def test_bad_base_model_memory(ds, value):
    ds.attrs["base_model_memory"] = value
    with pytest.raises(ValueError, match=r"'base_model_memory' must be"):
        validate(ds)


def test_not_a_dataset():
    with pytest.raises(ValueError, match=r"xarray\.Dataset.*dict"):
        validate({"arrival": [0]})


def test_memory_limit_is_inclusive(ds):
    """A task that exactly fills the largest node (C_km - r_b) is valid, also when rounding
    puts it a hair above (MEMORY_TOLERANCE); more than that is not. Deadline == arrival is
    valid too."""
    from lorasched.pdftsp.scenario import MEMORY_TOLERANCE

    usable = ds["memory_capacity"].values.max() - ds.attrs["base_model_memory"]
    ds["memory"].values[3] = usable
    ds["deadline"].values[3] = ds["arrival"].values[3]
    validate(ds)
    ds["memory"].values[3] = np.nextafter(usable, np.inf)
    validate(ds)
    ds["memory"].values[3] = usable + 10 * MEMORY_TOLERANCE
    with pytest.raises(ValueError, match=r"'memory' at task 3\b"):
        validate(ds)


def test_no_tasks_is_valid():
    ds = synthetic_scenario(nodes=2, slots=SLOTS, arrivals=[0] * SLOTS, seed=0)
    assert ds.sizes["task"] == 0
    validate(ds)
    assert to_arrays(ds).n_tasks == 0


# ----------------------------------------------------------------------------------------
# synthetic_scenario: arguments
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, match", [
    (dict(gpu="H100"), r"gpu.*'H100'"),
    (dict(load="extreme"), r"load.*'extreme'"),
    (dict(load=-1.0), r"load"),
    (dict(load=float("nan")), r"load"),
    (dict(deadline_policy="never"), r"deadline_policy.*'never'"),
    (dict(nodes=0), r"nodes.*0"),
    (dict(nodes=-3), r"nodes"),
    (dict(slots=0), r"slots"),
    (dict(vendors=-1), r"vendors"),
    (dict(preprocessing_share=1.5), r"preprocessing_share"),
    (dict(vendors=0, preprocessing_share=0.5), r"vendors=0"),
])
def test_synthetic_rejects_bad_arguments(kwargs, match):
    args = dict(nodes=2, slots=SLOTS, load=1.0, seed=0)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        synthetic_scenario(**args)


def test_arrivals_series_gives_exactly_those_counts():
    counts = [0, 3, 1, 0, 2, 5]
    ds = synthetic_scenario(nodes=2, slots=6, load="high", arrivals=counts, seed=1)
    assert ds.sizes["task"] == sum(counts)
    np.testing.assert_array_equal(np.bincount(ds["arrival"].values, minlength=6), counts)
    # numpy arrays and whole floats are accepted too
    again = synthetic_scenario(nodes=2, slots=6, arrivals=np.array(counts, dtype=float), seed=1)
    np.testing.assert_array_equal(np.bincount(again["arrival"].values, minlength=6), counts)


@pytest.mark.parametrize("arrivals, match", [
    ([1, 2, 3], r"arrivals.*6 per-slot counts"),
    ([1] * 7, r"arrivals.*6 per-slot counts"),
    ([[1] * 6], r"arrivals.*6 per-slot counts"),
    ([1, 1, -1, 1, 1, 1], r"slot 2\b"),
    ([1, 1, 1, 1, 1.5, 1], r"slot 4\b"),
    ([1, np.nan, 1, 1, 1, 1], r"slot 1\b"),
])
def test_bad_arrivals_series(arrivals, match):
    with pytest.raises(ValueError, match=match):
        synthetic_scenario(nodes=2, slots=6, arrivals=arrivals, seed=0)


# ----------------------------------------------------------------------------------------
# synthetic_scenario: calibration (paper, sec. 5.1)
# ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def day():
    return {load: synthetic_scenario(nodes=100, gpu="mix", load=load, seed=0)
            for load in ("light", "medium", "high")}


def test_load_factor(day):
    factors = {load: ds.attrs["load_factor"] for load, ds in day.items()}
    assert factors["high"] > 1.5  # offered work exceeds what the cluster can do
    assert factors["light"] < factors["medium"] < factors["high"]
    for ds in day.values():
        offered = ds["work"].values.sum()
        can_do = ds.sizes["slot"] * ds["compute_capacity"].values.sum()
        assert ds.attrs["load_factor"] == pytest.approx(offered / can_do, rel=1e-12)


def test_arrival_rates(day):
    for load, mean in (("light", 30), ("medium", 50), ("high", 80)):
        per_slot = day[load].sizes["task"] / day[load].sizes["slot"]
        assert per_slot == pytest.approx(mean, rel=0.05)


def test_task_sizes(day):
    ds = day["high"]
    epochs, size, work = (ds[v].values for v in ("epochs", "dataset_size", "work"))
    assert set(np.unique(epochs)) == {1, 2, 3, 4, 5}
    assert size.min() >= 5000 and size.max() <= 20000
    assert size.min() < 6000 and size.max() > 19000  # the whole range is used
    np.testing.assert_array_equal(work, epochs * size)


def test_values_and_vendors_within_declared_bounds(day):
    ds = day["medium"]
    density = ds["bid"].values / ds["work"].values
    assert (density >= ds.attrs["value_density_min"]).all()
    assert (density <= ds.attrs["value_density_max"]).all()
    assert (ds["memory"].values >= ds.attrs["task_memory_min"]).all()
    assert (ds["vendor_price"].values > 0).all() and (ds["vendor_delay"].values >= 1).all()
    assert 0.4 < ds["needs_preprocessing"].values.mean() < 0.6
    mix = ds["gpu_type"].values
    assert set(mix) == {"A100-80GB", "A40-48GB"}


def test_bids_are_the_c_librarys_exp_of_the_draws(monkeypatch):
    """b_i = exp(u_i) * M_i with exp the C library's (math.exp): numpy's AVX-512 exp differs
    by one ulp on a few percent of the draws, which would make a seed's bids (and the
    auction's decisions on them) depend on the CPU."""
    seen = {}
    bids = workload._bids

    def spy(rng, work, v_min, v_max):
        seen.update(state=rng.bit_generator.state, work=work.copy(), lo=v_min, hi=v_max)
        return bids(rng, work, v_min, v_max)

    monkeypatch.setattr(workload, "_bids", spy)
    ds = synthetic_scenario(nodes=10, load="medium", seed=1)
    rng = np.random.default_rng()
    rng.bit_generator.state = seen["state"]
    u = rng.uniform(math.log(seen["lo"]), math.log(seen["hi"]), size=seen["work"].shape[0])
    expect = np.array([math.exp(v) for v in u.tolist()]) * seen["work"]
    assert ds.sizes["task"] == expect.size > 1000
    np.testing.assert_array_equal(ds["bid"].values, expect)


@pytest.mark.parametrize("policy", DEADLINE_POLICIES)
def test_deadlines_inside_the_horizon(policy):
    ds = synthetic_scenario(nodes=4, slots=48, load=6.0, deadline_policy=policy, seed=2)
    a, d = ds["arrival"].values, ds["deadline"].values
    last = ds.sizes["slot"] - 1
    assert ds.sizes["task"] > 100
    assert (d >= a).all() and (d <= last).all()
    if policy == "end_of_day":
        assert (d == last).all()
    if policy == "fixed":
        np.testing.assert_array_equal(d, np.minimum(a + 6 * 60 // 10, last))  # 10-min slots
    if policy in SLACK_RANGES:
        # an uncapped task without pre-processing fits on its fastest node with slack sigma
        lo = SLACK_RANGES[policy][0]
        free = (d < last) & ~ds["needs_preprocessing"].values
        fastest = ds["speed"].values.max(axis=1)
        assert free.any()
        assert ((d - a)[free] * fastest[free] >= lo * ds["work"].values[free]).all()


def test_tight_slack_loose_are_ordered():
    """Same seed, same tasks: only sigma's range differs, so the deadlines are ordered."""
    d = {p: synthetic_scenario(nodes=3, slots=144, load=4.0, deadline_policy=p, seed=7)
         for p in ("tight", "slack", "loose")}
    np.testing.assert_array_equal(d["tight"]["work"].values, d["loose"]["work"].values)
    assert (d["tight"]["deadline"].values <= d["slack"]["deadline"].values).all()
    assert (d["slack"]["deadline"].values <= d["loose"]["deadline"].values).all()
    assert (d["tight"]["deadline"].values < d["loose"]["deadline"].values).any()


def test_numeric_load_is_the_mean_arrivals_per_slot():
    ds = synthetic_scenario(nodes=2, slots=144, load=12.5, seed=3)
    assert ds.sizes["task"] / 144 == pytest.approx(12.5, rel=0.1)
    assert synthetic_scenario(nodes=2, slots=144, load=0.0, seed=3).sizes["task"] == 0


@pytest.mark.parametrize("slot_minutes", [10.0, 30.0])
def test_fixed_deadline_is_six_hours_whatever_the_slot_length(slot_minutes):
    """The "fixed" policy is 6 hours after arrival, in slots of any length (it once added
    36 slots, i.e. 18 hours with 30-minute slots)."""
    ds = synthetic_scenario(nodes=2, slots=48, slot_minutes=slot_minutes, load=1.0,
                            deadline_policy="fixed", seed=0)
    six_hours = int(round(6 * 60 / slot_minutes))
    a, last = ds["arrival"].values, ds.sizes["slot"] - 1
    np.testing.assert_array_equal(ds["deadline"].values, np.minimum(a + six_hours, last))


# ----------------------------------------------------------------------------------------
# validation: non-finite, out-of-range and ill-typed values give named errors
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("name, at", [("work", "task 2"), ("bid", "task 2"),
                                      ("speed", "task 2, node 1"), ("arrival", "task 2")])
def test_non_finite_values_are_named(ds, name, at, value):
    """inf, -inf and NaN in an int or float variable: the named error, from validation,
    to_arrays and simulate alike (never a bare OverflowError or a cast warning)."""

    values = _float(ds, name)
    values[(2, 1) if values.ndim == 2 else 2] = value
    match = rf"^scenario variable '{name}' at {at}: is NaN or infinite$"
    with pytest.raises(ValueError, match=match):
        validate(ds)
    with pytest.raises(ValueError, match=match):
        to_arrays(ds)
    with pytest.raises(ValueError, match=match):
        lorasched.simulate(ds)


@pytest.mark.parametrize("name, at", [("work", "task 1"), ("arrival", "task 1"),
                                      ("deadline", "task 1"), ("speed", "task 1, node 0"),
                                      ("vendor_delay", "task 1, vendor 0"),
                                      ("compute_capacity", "node 1")])
@pytest.mark.parametrize("value", [1e30, 2.0**63, 1e300])
def test_int_variable_beyond_int64_is_named(ds, name, at, value):
    """A whole float too large for int64 once passed and became -2**63 in to_arrays (or a
    misleading 'ordered by arrival' error)."""
    values = _float(ds, name)
    values[(1, 0) if values.ndim == 2 else 1] = value
    match = rf"'{name}' at {at}: is too large for a 64-bit integer"
    with pytest.raises(ValueError, match=match):
        validate(ds)
    with pytest.raises(ValueError, match=match):
        to_arrays(ds)


def test_large_values_that_fit_int64_stay_valid(ds):
    ds["work"] = ds["work"].astype(np.uint64)
    validate(ds)
    ds["work"].values[1] = 2**63  # fits uint64, not int64
    with pytest.raises(ValueError, match=r"'work' at task 1: is too large"):
        validate(ds)
    ds = ds.copy()
    ds["work"] = ds["work"].astype(np.int64).where(ds["task"] != 1, 2**63 - 1)
    assert ds["work"].dtype == np.int64  # int64 input: nothing to cast; past the limit
    with pytest.raises(ValueError, match=r"'work', task 1: 9.22337e\+18 exceeds lorasched's "
                                         r"limit of 1e\+12"):
        validate(ds)


@pytest.mark.parametrize("name", ["bid", "work"])
def test_complex_values_are_refused(ds, name):
    ds[name] = ds[name].astype(complex) + 1j
    with pytest.raises(ValueError, match=rf"'{name}' must be real, got complex128"):
        validate(ds)


@pytest.mark.parametrize("values, match", [
    (lambda v: v.astype(str), r"'bid' must be numeric, got <U"),
    (lambda v: np.where(np.arange(v.size) == 2, "lots", v.astype(object)),
     r"'bid' must be numeric, got object"),
    (lambda v: v.astype(object), r"'bid' must be numeric, got object"),
    (lambda v: v > 0, r"'bid' must be numeric, got bool"),
])
def test_non_numeric_values_are_named(ds, values, match):
    ds["bid"] = ("task", values(ds["bid"].values))
    with pytest.raises(ValueError, match=match):
        validate(ds)


@pytest.mark.parametrize("value", ["inf", np.inf, [1.0, 2.0], None, 1j])
def test_more_bad_base_model_memory(ds, value):
    ds.attrs["base_model_memory"] = value
    with pytest.raises(ValueError, match=r"'base_model_memory' must be a (finite )?number"):
        validate(ds)


# ----------------------------------------------------------------------------------------
# ScenarioArrays: the one arrays contract (usable memory, e_ikt, residuals, declared bounds)
# ----------------------------------------------------------------------------------------


def test_arrays_usable_memory_op_cost_and_residual(ds):
    a = to_arrays(ds)
    np.testing.assert_array_equal(a.usable_memory,
                                  ds["memory_capacity"].values - ds.attrs["base_model_memory"])
    i, nodes, slots = 3, np.array([0, 1, 1]), np.array([3, 4, 5])
    np.testing.assert_array_equal(a.op_cost(i, nodes, slots),
                                  a.speed[i, nodes] * a.op_cost_rate[nodes, slots])  # e_ikt
    compute, memory = a.residual()
    assert compute.dtype == np.int64 and memory.dtype == np.float64
    assert compute.shape == memory.shape == (a.n_nodes, a.n_slots)
    assert (compute == a.compute_capacity[:, None]).all()
    assert (memory == a.usable_memory[:, None]).all()
    compute -= 1  # fresh arrays: using one changes neither the scenario nor the next
    memory -= 1.0
    again, _ = a.residual()
    assert (again == a.compute_capacity[:, None]).all()


def test_arrays_carry_the_declared_bounds(ds):
    keys = ("value_density_min", "value_density_max", "task_memory_min")
    ds.attrs.update({"value_density_min": 0.5, "value_density_max": 2.0,
                     "task_memory_min": 0.25})
    ds["bid"] = ds["work"] * 1.0
    a = to_arrays(ds)
    assert tuple(getattr(a, k) for k in keys) == (0.5, 2.0, 0.25)
    del ds.attrs["value_density_max"]
    a = to_arrays(ds)
    assert a.value_density_max is None and a.value_density_min == 0.5


def test_speed_and_memory_come_from_the_profile_of_each_batch_and_gpu_type(day):
    """s_ik and r_i are the profiles' values for task i's micro-batch and node k's GPU type
    (the generator indexes a per-type table: this is the per-cell definition)."""
    from lorasched.model import profiles
    ds = day["medium"]
    slot_minutes = 10.0  # the fixture uses synthetic_scenario's default
    types = ds["gpu_type"].values
    batch = ds["micro_batch"].values
    expect = np.array([[profiles.task_speed(profiles.GPUS[t], int(b), profiles.GPT2_XL,
                                            slot_minutes) for t in types] for b in batch[:300]])
    np.testing.assert_array_equal(node_speed(ds).values[:300], expect)
    assert ds["speed"].dtype == np.int32 and ds["memory"].dtype == np.float64
    np.testing.assert_array_equal(
        ds["memory"].values, [profiles.task_memory(int(b), profiles.GPT2_XL) for b in batch])


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint16])
def test_integer_variables_are_checked_without_a_float_copy(ds, dtype):
    """Integer arrays skip the float round trip but still name a negative entry."""
    ds["speed"] = ds["speed"].astype(dtype)
    validate(ds)
    if np.issubdtype(dtype, np.signedinteger):
        ds["speed"].values[1, 0] = -3
        with pytest.raises(ValueError, match=r"'speed' at task 1, node 0: is negative"):
            validate(ds)


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_a_speed_beyond_int32_is_refused_naming_the_cell(ds, dtype):
    """s_ik is kept as int32 (SPEED_DTYPE): a larger speed is an error naming its cell, for
    integer and float inputs alike, rather than a silent wrap-around."""
    ds["speed"] = ds["speed"].astype(dtype)
    ds["speed"].values[2, 1] = 2**31
    with pytest.raises(ValueError, match=r"'speed' at task 2, node 1: is too large \(at most "
                                         r"2,147,483,647 samples per slot\)"):
        validate(ds)
    ds["speed"].values[2, 1] = 2**31 - 1
    assert to_arrays(ds).speed[2, 1] == 2**31 - 1


@pytest.mark.parametrize("layout", ["node", "type"])
def test_speeds_are_int32_and_shared_with_the_generated_dataset(layout):
    """The generator stores s_ik as int32 and to_arrays does not copy it (per node, the task
    x node matrix is the largest array of a scenario); other integer inputs are converted."""
    ds = synthetic_scenario(nodes=3, slots=SLOTS, arrivals=[1] * SLOTS, vendors=2, seed=0,
                            speed_layout=layout)
    arrays = to_arrays(ds)
    assert ds["speed"].dtype == np.int32 and arrays.speed.dtype == np.int32
    stored = arrays.speed if layout == "node" else arrays.speed.by_type
    assert np.shares_memory(stored, ds["speed"].values)
    ds["speed"] = ds["speed"].astype(np.int64)
    converted = to_arrays(ds)
    assert converted.speed.dtype == np.int32
    np.testing.assert_array_equal(converted.speed, arrays.speed)


def test_a_generator_speed_beyond_int32_is_an_error():
    """Absurdly long slots make a speed that int32 cannot hold: an error, not a wrap."""
    with pytest.raises(ValueError, match=r"samples per slot exceeds 2,147,483,647: use "
                                         r"shorter slots"):
        synthetic_scenario(nodes=2, slots=2, load=1.0, seed=0, slot_minutes=1e9)


# ----------------------------------------------------------------------------------------
# speeds stored per GPU type
# ----------------------------------------------------------------------------------------


def test_typed_speeds_are_the_node_matrix_read_by_type():
    """The default layout stores s_ik per (task, GPU type); every per-node read gives what
    the (task, node) layout stores, and both layouts simulate the same day."""
    typed = synthetic_scenario(nodes=7, gpu="mix", slots=12, load=6.0, seed=3)
    plain = synthetic_scenario(nodes=7, gpu="mix", slots=12, load=6.0, seed=3,
                               speed_layout="node")
    assert typed["speed"].dims == ("task", "gpu") and plain["speed"].dims == ("task", "node")
    matrix = plain["speed"].values
    np.testing.assert_array_equal(node_speed(typed).values, matrix)
    speed = to_arrays(typed).speed
    assert isinstance(speed, NodeSpeed) and speed.shape == matrix.shape
    rng = np.random.default_rng(0)
    tasks = rng.integers(0, matrix.shape[0], 20)
    nodes = rng.integers(0, 7, 20)
    np.testing.assert_array_equal(speed[3], matrix[3])
    np.testing.assert_array_equal(speed[3, nodes], matrix[3, nodes])
    np.testing.assert_array_equal(speed[tasks, nodes], matrix[tasks, nodes])
    np.testing.assert_array_equal(speed[:, 4], matrix[:, 4])
    np.testing.assert_array_equal(speed[tasks], matrix[tasks])
    np.testing.assert_array_equal(np.asarray(speed), matrix)
    np.testing.assert_array_equal(speed.max(axis=1), matrix.max(axis=1))
    for algorithm in ("pdftsp", "eft", "ntm", "titan"):
        a = lorasched.simulate(typed, algorithm, seed=1)
        b = lorasched.simulate(plain, algorithm, seed=1)
        lorasched.check_result(a)
        np.testing.assert_array_equal(a["cell_node"].values, b["cell_node"].values)
        assert a.attrs["welfare"] == b.attrs["welfare"]


def test_typed_speeds_need_every_nodes_type_named():
    ds = synthetic_scenario(nodes=4, gpu="mix", slots=6, load=3.0, seed=0)
    bad = ds.assign_coords(gpu=["X"] * (ds.sizes["gpu"] - 1) + ["Y"])
    with pytest.raises(ValueError, match=r"'gpu_type' at node \d+: '.*' is not in the 'gpu' "
                                         r"coordinate"):
        validate(bad)
    with pytest.raises(ValueError, match="no 'gpu' coordinate"):
        validate(ds.drop_vars("gpu"))
    ds["speed"].values[2, :] = 0
    with pytest.raises(ValueError, match=r"'speed' at task 2: is zero on every node"):
        validate(ds)


def test_typed_speeds_survive_netcdf(tmp_path):
    ds = synthetic_scenario(nodes=5, gpu="mix", slots=6, load=3.0, seed=2)
    ds.to_netcdf(tmp_path / "s.nc")
    back = xr.load_dataset(tmp_path / "s.nc")
    np.testing.assert_array_equal(node_speed(back).values, node_speed(ds).values)
    assert lorasched.simulate(back).attrs["welfare"] == lorasched.simulate(ds).attrs["welfare"]


@pytest.mark.parametrize("name, value, rule", [
    ("nodes", 1.5, "nodes must be a whole number, got 1.5"),
    ("nodes", "3", "nodes must be a whole number, got '3'"),
    ("slots", True, "slots must be a whole number, got True"),
    ("vendors", 2.5, "vendors must be a whole number"),
    ("slot_minutes", "10", "slot_minutes must be a real number"),
    ("slot_minutes", 0.0, "slot_minutes must be > 0"),
    ("preprocessing_share", "half", "preprocessing_share must be a real number"),
])
def test_synthetic_scenario_refuses_counts_that_are_not_whole(name, value, rule):
    """A count is a whole number (1.5 nodes was silently truncated to 1); a whole float is
    the same scenario as the int."""
    with pytest.raises(lorasched.InputError, match=rule):
        synthetic_scenario(**{"nodes": 2, "slots": 6, "seed": 0, name: value})
    assert synthetic_scenario(nodes=2.0, slots=6, seed=0).equals(
        synthetic_scenario(nodes=2, slots=6, seed=0))


# -- declared limits, unique ids, bids within the declared value densities ----------------

@pytest.mark.parametrize("name, index, at, value, limit", [
    ("work", 1, "task 1", 10**13, "1e+12"),
    ("bid", 1, "task 1", 1e12, "1e+09"),
    ("memory_capacity", 1, "node 1", 1e308, "100000"),
    ("compute_capacity", 0, "node 0", 2**40, "2.14748e+09"),
    ("op_cost_rate", (0, 1), "node 0, slot 1", 1e10, "1e+09"),
    ("vendor_price", (1, 0), "task 1, vendor 0", 1e300, "1e+09"),
    ("vendor_delay", (1, 0), "task 1, vendor 0", 10**9, "100000"),
])
def test_a_magnitude_beyond_its_limit_is_refused_by_name(ds, name, index, at, value, limit):
    """Absurd but finite magnitudes were run (or ran out of memory) before."""
    ds[name].values[index] = value
    with pytest.raises(ValueError, match=rf"^scenario variable '{name}', {at}: .* exceeds "
                                         rf"lorasched's limit of {re.escape(limit)} "
                                         r"\(lorasched.model.limits\)$"):
        validate(ds)


def test_a_repeated_task_id_is_refused(ds):
    ds = ds.assign_coords(task=[10, 11, 12, 11, 14, 15])
    with pytest.raises(ValueError, match=r"coordinate 'task' at task 3: id 11 repeats task "
                                         r"1's \(task ids must be unique\)"):
        validate(ds)


@pytest.mark.parametrize("value", [float("nan"), -1.0, 0.0, "x", True, float("inf")])
def test_a_declared_bound_must_be_a_positive_finite_number(ds, value):
    ds.attrs["task_memory_min"] = value
    with pytest.raises(ValueError, match="attribute 'task_memory_min' must be a positive "
                                         "finite number"):
        validate(ds)


def test_bids_lie_within_the_declared_value_densities(ds):
    lo, hi = ds.attrs["value_density_min"], ds.attrs["value_density_max"]
    ds["bid"].values[:] = ds["work"].values * lo  # on the bounds (up to rounding): valid
    ds["bid"].values[0] = 0.0  # a bid of 0 asks for nothing: valid
    validate(ds)
    ds["bid"].values[2] = ds["work"].values[2] * hi * 1.001
    with pytest.raises(ValueError, match=r"'bid' at task 2: bid / work lies outside the "
                                         r"declared value densities"):
        validate(ds)
    ds.attrs["value_density_min"] = 2 * hi
    with pytest.raises(ValueError, match="the minimum exceeds the maximum"):
        validate(ds)


def test_every_entry_point_refuses_a_bad_scenario_by_name(ds, tmp_path, capsys):
    """simulate (what a sweep's cell runs), load_scenario, loadgen and serve --cluster
    all run System.validate."""
    from lorasched.cli import main
    from lorasched.systems import load_scenario, simulate
    ds["work"].values[1] = 10**13
    words = "scenario variable 'work', task 1"
    with pytest.raises(ValueError, match=words):
        simulate(ds, "pdftsp")
    path = tmp_path / "bad.nc"
    ds.to_netcdf(path)
    with pytest.raises(ValueError, match=words):
        load_scenario(path)
    for argv in (["loadgen", "http://127.0.0.1:9", str(path)],
                 ["serve", "--cluster", str(path), "--state", str(tmp_path / "state")]):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and words in err and err.count("\n") == 1, argv


def test_colocation_gain_caps_a_node_at_its_fastest_task():
    """colocation_gain = 1: a node's samples per slot never exceed its fastest task's alone;
    2: twice; None (the default) keeps the profile's C_kp; the other model numbers too."""
    kw = dict(nodes=4, load=3, slots=6, seed=2)
    base = synthetic_scenario(**kw)
    fastest = base["speed"].max("task").values  # per GPU type: the largest micro-batch's
    one = synthetic_scenario(**kw, colocation_gain=1.0)
    two = synthetic_scenario(**kw, colocation_gain=2.0)
    per_node = fastest[[list(base["gpu"].values).index(g) for g in base["gpu_type"].values]]
    assert (one["compute_capacity"].values == per_node).all()
    assert (two["compute_capacity"].values == 2 * per_node).all()
    assert (base["compute_capacity"].values > per_node).all()
    assert synthetic_scenario(**kw, operating_cost_scale=1.0).identical(base)
    free = synthetic_scenario(**kw, operating_cost_scale=0.0)
    assert float(free["op_cost_rate"].max()) == 0.0
    wide = synthetic_scenario(**kw, value_ratio=16.0)
    assert wide.attrs["value_density_max"] / wide.attrs["value_density_min"] == pytest.approx(16)
    with pytest.raises(ValueError, match="colocation_gain"):
        synthetic_scenario(**kw, colocation_gain=0.5)
