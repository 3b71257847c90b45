"""The exact offline optimum of problem (4) (lorasched.pdftsp.offline).

Checked against: a literal transcription of (4a)-(4h) built here with highspy's modelling
API (every x_ikt, no pruning, no tightening, (4c) linearised per vendor), so the pruning,
the merged (4b)/(4c) rows and the MIR rows of the library cannot change the optimum
unnoticed; every algorithm of the registry (the optimum is never below any of them); the
best single-task schedule (never above the optimum); hand-built instances with known
optima; the model checker.
"""

from __future__ import annotations

import json

import highspy
import numpy as np
import pytest
import xarray as xr

import lorasched
from lorasched import check_result, simulate, synthetic_scenario
from lorasched.pdftsp import offline as oo
from lorasched.pdftsp import policies as algorithms
from lorasched.pdftsp import to_arrays
from lorasched.pdftsp.scenario import MEMORY_TOLERANCE
from lorasched.pdftsp.workload import DEADLINE_POLICIES

TOL = 2e-6  # HiGHS's default absolute gap is 1e-6; mip_rel_gap 1e-6 below


def _close_or_above(a: float, b: float) -> bool:
    """a >= b up to the solver's gap tolerances."""
    return a >= b - TOL * max(1.0, abs(b))


# ----------------------------------------------------------------------------------------
# scenarios
# ----------------------------------------------------------------------------------------


def make_scenario(*, capacity, memory_capacity, base_model_memory, op_cost_rate, tasks,
                  vendors=0):
    """A scenario from plain lists. ``tasks``: dicts with a, d, M, s (per node), r, b and
    optionally f, q, h (per vendor)."""
    K = len(capacity)
    rates = np.asarray(op_cost_rate, dtype=float).reshape(K, -1)
    n = len(tasks)
    q = [t.get("q", [0.0] * vendors) for t in tasks]
    h = [t.get("h", [0] * vendors) for t in tasks]
    ds = xr.Dataset(
        {
            "compute_capacity": ("node", np.array(capacity, dtype=np.int64)),
            "memory_capacity": ("node", np.array(memory_capacity, dtype=float)),
            "gpu_type": ("node", np.array(["toy"] * K)),
            "op_cost_rate": (("node", "slot"), rates),
            "arrival": ("task", np.array([t["a"] for t in tasks], dtype=np.int64)),
            "deadline": ("task", np.array([t["d"] for t in tasks], dtype=np.int64)),
            "memory": ("task", np.array([t["r"] for t in tasks], dtype=float)),
            "work": ("task", np.array([t["M"] for t in tasks], dtype=np.int64)),
            "needs_preprocessing": ("task", np.array([t.get("f", False) for t in tasks],
                                                     dtype=bool)),
            "bid": ("task", np.array([t["b"] for t in tasks], dtype=float)),
            "speed": (("task", "node"),
                      np.array([t["s"] for t in tasks], dtype=np.int64).reshape(n, K)),
            "vendor_price": (("task", "vendor"), np.array(q, dtype=float).reshape(n, vendors)),
            "vendor_delay": (("task", "vendor"),
                             np.array(h, dtype=np.int64).reshape(n, vendors)),
        },
        attrs={"base_model_memory": float(base_model_memory), "value_density_min": 0.05,
               "value_density_max": 2.0, "task_memory_min": 0.1},
    )
    lorasched.pdftsp.validate(ds)
    return ds


def random_hand_scenario(seed: int) -> xr.Dataset:
    """Small integers, tight capacities and the edge cases the generator never makes:
    zero delays, deadline == arrival, zero operating cost, speed 0 or above capacity,
    memory that exactly fills a node, float memories (0.1 + 0.2 != 0.3)."""
    rng = np.random.default_rng(seed)
    K, T, n, N = (int(rng.integers(1, 4)), int(rng.integers(1, 8)), int(rng.integers(0, 9)),
                  int(rng.integers(0, 3)))
    r_b = float(rng.choice([0.0, 1.0, 2.5]))
    capacity = rng.integers(3, 13, size=K)
    usable = rng.choice([0.3, 0.6, 1.0, 2.0, 3.0], size=K)
    fitting = [m for m in (0.0, 0.1, 0.2, 0.3, 0.5, 1.0, 1.5, 2.0, 3.0) if m <= usable.max()]
    rates = (np.zeros((K, T)) if rng.random() < 0.3
             else rng.choice([0.0, 0.01, 0.05, 0.2, 0.5], size=(K, T)))
    tasks = []
    for a in np.sort(rng.integers(0, (T + 1) // 2, size=n)):
        work = int(rng.integers(1, 3 * T + 1))
        s = rng.integers(0, 6, size=K)
        if s.max() == 0:
            s[rng.integers(0, K)] = rng.integers(1, 6)
        tasks.append({"a": int(a), "d": int(rng.integers((a + T) // 2, T)), "M": work,
                      "s": s.tolist(), "r": float(rng.choice(fitting)),
                      "b": float(rng.uniform(0.2, 2.0) * work), "f": bool(N and rng.random() < 0.6),
                      "q": rng.choice([0.0, 0.5, 1.0, 2.5, 6.0], size=N).tolist(),
                      "h": rng.integers(0, 3, size=N).tolist()})
    return make_scenario(capacity=capacity.tolist(), memory_capacity=(usable + r_b).tolist(),
                         base_model_memory=r_b, op_cost_rate=rates, tasks=tasks, vendors=N)


def random_synthetic_scenario(seed: int) -> xr.Dataset:
    rng = np.random.default_rng(1000 + seed)
    vendors = int(rng.integers(0, 3))
    return synthetic_scenario(
        nodes=int(rng.integers(1, 4)), slots=int(rng.integers(4, 11)),
        load=float(rng.uniform(0.5, 3.0)), vendors=vendors,
        preprocessing_share=0.0 if vendors == 0 else float(rng.choice([0.5, 1.0])),
        gpu=("A100", "A40", "mix")[seed % 3],
        deadline_policy=DEADLINE_POLICIES[seed % len(DEADLINE_POLICIES)], seed=seed)


# ----------------------------------------------------------------------------------------
# independent references
# ----------------------------------------------------------------------------------------


def literal_optimum(ds: xr.Dataset) -> float:
    """Problem (4) transcribed literally: all u, z, x; (4c) as ``x_ikt = 0`` before a_i and
    ``x_ikt + z_in <= 1`` for vendors not done by t (exact for binaries, sum_n z_in <= 1)."""
    a = to_arrays(ds)
    n_tasks, K, T, N = a.n_tasks, a.n_nodes, a.n_slots, a.n_vendors
    h = highspy.Highs()
    h.silent()
    for name, value in (("threads", 1), ("mip_rel_gap", 0.0), ("mip_abs_gap", 0.0)):
        h.setOptionValue(name, value)
    u = [h.addBinary(obj=float(a.bid[i])) for i in range(n_tasks)]
    z = [[h.addBinary(obj=-float(a.vendor_price[i, n])) for n in range(N)]
         for i in range(n_tasks)]
    x = [[[h.addBinary(obj=-float(a.speed[i, k] * a.op_cost_rate[k, t])) for t in range(T)]
          for k in range(K)] for i in range(n_tasks)]
    for i in range(n_tasks):
        f = bool(a.needs_preprocessing[i])
        if N:  # (4a)
            h.addConstr(h.qsum(z[i]) <= 1)
            if f:
                h.addConstr(h.qsum(z[i]) - u[i] >= 0)
        elif f:
            h.addConstr(u[i] <= 0)
        for t in range(T):
            h.addConstr(h.qsum([x[i][k][t] for k in range(K)]) <= 1)  # (4b)
            for k in range(K):
                if t < a.arrival[i] or t > a.deadline[i]:  # (4c) arrival, (4d)
                    h.addConstr(x[i][k][t] <= 0)
                for n in range(N):  # (4c) vendor delay
                    if f and a.arrival[i] + a.vendor_delay[i, n] > t:
                        h.addConstr(x[i][k][t] + z[i][n] <= 1)
        h.addConstr(h.qsum([float(a.speed[i, k]) * x[i][k][t] for k in range(K)
                            for t in range(T)]) - float(a.work[i]) * u[i] >= 0)  # (4e)
    usable = a.usable_memory + MEMORY_TOLERANCE
    for k in range(K):
        for t in range(T):
            if n_tasks:
                h.addConstr(h.qsum([float(a.speed[i, k]) * x[i][k][t]
                                    for i in range(n_tasks)]) <= float(a.compute_capacity[k]))
                h.addConstr(h.qsum([float(a.memory[i]) * x[i][k][t]
                                    for i in range(n_tasks)]) <= float(usable[k]))
    if not n_tasks:
        return 0.0
    h.maximize()
    assert h.modelStatusToString(h.getModelStatus()) == "Optimal"
    return float(h.getInfo().objective_function_value)


def best_alone(ds: xr.Dataset) -> np.ndarray:
    """Per task, the welfare of its best earliest-finish schedule on an empty cluster
    (-inf where it has none): a lower bound on what the optimum can get from it alone."""
    a = to_arrays(ds)
    usable = a.usable_memory
    out = np.full(a.n_tasks, -np.inf)
    for i in range(a.n_tasks):
        ok = ((a.speed[i] > 0) & (a.speed[i] <= a.compute_capacity)
              & (a.memory[i] <= usable + MEMORY_TOLERANCE))
        if not ok.any():
            continue
        k = int(np.argmax(np.where(ok, a.speed[i], 0)))
        options = ([(a.vendor_delay[i, n], a.vendor_price[i, n]) for n in range(a.n_vendors)]
                   if a.needs_preprocessing[i] else [(0, 0.0)])
        for delay, price in options:
            done, cost = 0, 0.0
            for t in range(a.arrival[i] + delay, a.deadline[i] + 1):
                done += a.speed[i, k]
                cost += a.speed[i, k] * a.op_cost_rate[k, t]
                if done >= a.work[i]:
                    out[i] = max(out[i], a.bid[i] - price - cost)
                    break
    return out


def check_optimum(ds: xr.Dataset, *, literal: bool) -> xr.Dataset:
    result = oo.offline_opt(ds, time_limit=30.0)
    check_result(result)
    assert result.attrs["opt_status"] in ("Optimal", "Empty")
    assert result.attrs["opt_hit_time_limit"] == 0
    opt = result.attrs["opt_objective"]
    assert result.attrs["welfare"] == pytest.approx(opt, rel=1e-6, abs=1e-6)
    assert _close_or_above(result.attrs["opt_bound"], opt)
    assert 0 <= result.attrs["opt_gap"] <= 1e-5
    assert (result["payment"].values == 0).all()
    assert (result["lambda"].values == 0).all() and (result["phi"].values == 0).all()
    if literal:
        assert opt == pytest.approx(literal_optimum(ds), rel=1e-6, abs=TOL)
    for name in algorithms.REGISTRY:
        other = simulate(ds, algorithm=name)
        assert _close_or_above(opt, other.attrs["welfare"]), name
    alone = best_alone(ds)
    if alone.size and np.isfinite(alone).any():
        assert _close_or_above(opt, float(alone.max()))
    reason = result["reason"].values.astype(str)
    assert ((reason == "no_feasible_schedule") == ~np.isfinite(alone)).all()
    return result


# ----------------------------------------------------------------------------------------
# tests
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(24))
def test_random_hand_built_against_literal_model_and_algorithms(seed):
    check_optimum(random_hand_scenario(seed), literal=True)


@pytest.mark.parametrize("seed", range(16))
def test_random_synthetic_against_literal_model_and_algorithms(seed):
    check_optimum(random_synthetic_scenario(seed), literal=True)


def test_synthetic_beats_algorithms_on_a_busier_instance():
    ds = synthetic_scenario(nodes=2, slots=12, load=2.0, vendors=2, seed=0)
    result = check_optimum(ds, literal=False)
    assert result.attrs["n_admitted"] > 0


def test_known_optimum_capacity_and_vendor():
    """Tasks 0 and 1 each need the only node for slots 0-1: the optimum keeps 1 (bid 7).
    Task 2 needs a vendor: vendor 0 (cheap) is done only after the deadline, so vendor 1;
    it then runs in the cheaper of slots 2, 3. Task 3 has no vendor in time."""
    ds = make_scenario(
        capacity=[10], memory_capacity=[10.0], base_model_memory=0.0,
        op_cost_rate=[[0.01, 0.01, 0.03, 0.02]], vendors=2,
        tasks=[
            {"a": 0, "d": 1, "M": 20, "s": [10], "r": 4.0, "b": 5.0},
            {"a": 0, "d": 1, "M": 20, "s": [10], "r": 4.0, "b": 7.0},
            {"a": 0, "d": 3, "M": 10, "s": [10], "r": 4.0, "b": 4.0, "f": True,
             "q": [0.5, 1.5], "h": [4, 2]},
            {"a": 0, "d": 3, "M": 10, "s": [10], "r": 4.0, "b": 4.0, "f": True,
             "q": [0.5, 0.5], "h": [4, 5]},
        ])
    result = check_optimum(ds, literal=True)
    assert result.attrs["welfare"] == pytest.approx(7 - 0.2 + 4 - 1.5 - 0.2, abs=1e-9)
    assert result.attrs["opt_objective"] == pytest.approx(9.1, abs=1e-6)
    assert result["admitted"].values.tolist() == [False, True, True, False]
    assert result["chosen_vendor"].values.tolist() == [-1, -1, 1, -1]
    assert result["reason"].values.tolist() == ["not_selected", "admitted", "admitted",
                                                "no_feasible_schedule"]
    cells = sorted(zip(result["cell_task"].values.tolist(),
                       result["cell_slot"].values.tolist(), strict=True))
    assert cells == [(1, 0), (1, 1), (2, 3)]


def test_known_optimum_memory_exactly_full():
    """Usable memory 0.3 GB: A (0.1) + C (0.2) fill it exactly (0.1 + 0.2 > 0.3 in binary,
    within MEMORY_TOLERANCE); B (0.25) fits with neither. Best: A + C = 3 + 1."""
    ds = make_scenario(
        capacity=[100], memory_capacity=[2.8], base_model_memory=2.5,
        op_cost_rate=[[0.0]],
        tasks=[{"a": 0, "d": 0, "M": 5, "s": [5], "r": 0.1, "b": 3.0},
               {"a": 0, "d": 0, "M": 5, "s": [5], "r": 0.25, "b": 2.0},
               {"a": 0, "d": 0, "M": 5, "s": [5], "r": 0.2, "b": 1.0}])
    result = check_optimum(ds, literal=True)
    assert result.attrs["welfare"] == pytest.approx(4.0, abs=1e-9)
    assert result["admitted"].values.tolist() == [True, False, True]


def test_known_optimum_one_node_per_slot_and_speed_above_capacity():
    """(4b): 20 samples in one slot would need both nodes at once -- no schedule. A speed
    above the node's capacity is unusable (4f), so task 1 runs on node 1 in two slots."""
    ds = make_scenario(
        capacity=[10, 10], memory_capacity=[5.0, 5.0], base_model_memory=1.0,
        op_cost_rate=[[0.0, 0.0], [0.1, 0.1]],
        tasks=[{"a": 0, "d": 0, "M": 20, "s": [10, 10], "r": 1.0, "b": 9.0},
               {"a": 0, "d": 1, "M": 10, "s": [12, 5], "r": 1.0, "b": 2.0}])
    result = check_optimum(ds, literal=True)
    assert result["reason"].values.tolist() == ["no_feasible_schedule", "admitted"]
    assert result.attrs["welfare"] == pytest.approx(2.0 - 2 * 0.5, abs=1e-9)
    assert set(result["cell_node"].values.tolist()) == {1}


def test_no_tasks_and_no_feasible_task():
    empty = random_hand_scenario(0).isel(task=slice(0, 0))
    result = check_optimum(empty, literal=True)
    assert result.attrs["opt_status"] == "Empty" and result.attrs["welfare"] == 0.0
    hopeless = make_scenario(capacity=[10], memory_capacity=[5.0], base_model_memory=1.0,
                             op_cost_rate=[[0.0, 0.0]],
                             tasks=[{"a": 1, "d": 1, "M": 30, "s": [10], "r": 1.0, "b": 5.0}])
    result = check_optimum(hopeless, literal=True)
    assert result.attrs["opt_status"] == "Empty"
    assert result["reason"].values.tolist() == ["no_feasible_schedule"]


def test_model_size_and_attributes():
    ds = synthetic_scenario(nodes=3, slots=10, load=1.5, vendors=2, seed=4)
    arrays = to_arrays(ds)
    model = oo.build_model(ds)
    assert model.n_x == oo.count_x_variables(arrays) > 0
    assert model.n_variables == model.n_u + model.n_z + model.n_x
    assert model.n_constraints == sum(model.rows.values())
    assert model.a_start[-1] == model.n_nonzeros
    # x only inside each task's window, on nodes it can use
    assert (model.x_slot >= arrays.arrival[model.x_task]).all()
    assert (model.x_slot <= arrays.deadline[model.x_task]).all()
    assert (arrays.speed[model.x_task, model.x_node] > 0).all()
    result = oo.offline_opt(ds)
    assert result.attrs["opt_variables"] == model.n_variables
    assert result.attrs["opt_constraints"] == model.n_constraints
    assert result.attrs["algorithm"] == "offline_opt"
    assert result["decision_time"].values == pytest.approx(
        np.full(arrays.n_tasks, result.attrs["opt_seconds"] / arrays.n_tasks))
    again = oo.offline_opt(ds)  # deterministic
    for name in ("cell_task", "cell_node", "cell_slot", "chosen_vendor"):
        assert np.array_equal(result[name].values, again[name].values)


def _moderate():
    """Beyond what HiGHS proves optimal in a fraction of a second (minutes, in fact)."""
    return synthetic_scenario(nodes=4, slots=24, load=3.0, vendors=2, seed=3)


def test_warm_start_is_feasible():
    ds = _moderate()
    arrays = to_arrays(ds)
    model = oo.build_model(arrays)
    start = oo._warm_start(arrays, model)
    assert set(np.unique(start)) <= {0.0, 1.0}
    activity = np.zeros(model.n_constraints)
    col = np.repeat(np.arange(model.n_variables), np.diff(model.a_start))
    np.add.at(activity, model.a_index, model.a_value * start[col])
    assert (activity >= model.row_lower - 1e-9).all()
    assert (activity <= model.row_upper + 1e-9).all()
    assert model.col_cost @ start > 0


@pytest.mark.parametrize("warm_start", [True, False])
def test_time_limit(warm_start):
    """A time limit either returns the incumbent, labelled, with a bound above it, or --
    without a warm start, when HiGHS has found nothing yet -- raises RuntimeError."""
    ds = _moderate()
    try:
        result = oo.offline_opt(ds, time_limit=0.01, warm_start=warm_start)
    except RuntimeError as err:
        assert not warm_start
        assert "no feasible solution" in str(err) and "time_limit" in str(err)
        return
    check_result(result)
    assert result.attrs["opt_hit_time_limit"] == 1
    assert result.attrs["opt_status"] == "Time limit reached"
    assert np.isfinite(result.attrs["opt_bound"])
    assert result.attrs["opt_bound"] >= result.attrs["opt_objective"]
    assert result.attrs["opt_gap"] >= 0
    assert result.attrs["welfare"] == pytest.approx(result.attrs["opt_objective"], rel=1e-6,
                                                    abs=1e-6)
    if warm_start:  # never below the greedy start
        model = oo.build_model(ds)
        greedy = float(model.col_cost @ oo._warm_start(to_arrays(ds), model))
        assert _close_or_above(result.attrs["opt_objective"], greedy)


def test_no_incumbent_raises(monkeypatch):
    """The RuntimeError branch, forced: HiGHS stopped with no solution at all."""
    monkeypatch.setattr(oo, "_solve", lambda *args, **kw: (None, float("nan"), float("inf"),
                                                           "Time limit reached", True))
    with pytest.raises(RuntimeError, match="no feasible solution"):
        oo.offline_opt(synthetic_scenario(nodes=1, slots=6, load=2.0, vendors=0,
                                          preprocessing_share=0.0, seed=1))


def test_too_big_raises():
    ds = synthetic_scenario(nodes=100, slots=144, load="high", vendors=5, seed=0)
    with pytest.raises(ValueError, match=r"offline_upper_bound") as info:
        oo.offline_opt(ds)
    assert f"{oo.count_x_variables(to_arrays(ds)):,}" in str(info.value)
    small = synthetic_scenario(nodes=2, slots=8, load=2.0, vendors=0,
                               preprocessing_share=0.0, seed=0)
    with pytest.raises(ValueError, match="x_ikt variables"):
        oo.build_model(small, max_x_variables=1)


@pytest.mark.parametrize("kwargs", [{"time_limit": 0.0}, {"mip_rel_gap": -1.0}])
def test_bad_options(kwargs):
    with pytest.raises(ValueError):
        oo.offline_opt(random_synthetic_scenario(0), **kwargs)


@pytest.mark.slow
def test_node_limit():
    """``mip_max_nodes`` stops the search by a count: the incumbent, labelled as stopped,
    with HiGHS's bound above it, the same on every run; no time limit is needed."""
    ds = _moderate()
    runs = [oo.offline_opt(ds, time_limit=None, mip_max_nodes=1) for _ in range(2)]
    result = runs[0]
    check_result(result)
    if result.attrs["opt_status"] != "Optimal":  # the root did not prove optimality
        assert result.attrs["opt_status"] == "Solution limit reached"
        assert result.attrs["opt_hit_time_limit"] == 1
    assert result.attrs["opt_bound"] >= result.attrs["opt_objective"]
    for key in ("opt_objective", "opt_bound", "opt_status"):
        assert runs[1].attrs[key] == result.attrs[key]
    assert json.loads(result.attrs["options"])["mip_max_nodes"] == 1


@pytest.mark.parametrize("nodes", [0, -3, 2.5, True])
def test_bad_node_limit(nodes):
    with pytest.raises(ValueError, match="mip_max_nodes"):
        oo.offline_opt(random_synthetic_scenario(0), mip_max_nodes=nodes)
