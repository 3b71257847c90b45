"""The column-generation LP bound (offline_upper_bound) and Titan's per-slot MILP."""

from __future__ import annotations

import numpy as np
import pytest

import lorasched
from lorasched.lp import Column, MasterLP, column_generation
from lorasched.pdftsp import bound
from lorasched.pdftsp.baselines import titan_per_slot as titan
from lorasched.pdftsp.policies import REGISTRY

SMALL = [dict(nodes=2, slots=8, load=1.5, vendors=2, gpu="mix", seed=s) for s in range(4)] + [
    dict(nodes=3, slots=10, load=2.0, vendors=0, preprocessing_share=0.0, gpu="A40", seed=9),
    dict(nodes=1, slots=6, load=3.0, vendors=1, gpu="A100", deadline_policy="tight", seed=5)]


def full_lp(scenario, **kw):
    """The same LP without node aggregation (one row pair per real node and slot)."""
    arrays = lorasched.pdftsp.to_arrays(scenario)
    cc, mc = arrays.residual()
    cg, _ = bound.solve_lp(arrays, np.arange(arrays.n_tasks), cc, mc, **kw)
    return cg


@pytest.mark.parametrize("params", SMALL)
def test_bound_is_above_every_online_welfare_and_the_exact_optimum(params):
    scenario = lorasched.synthetic_scenario(**params)
    ub = bound.offline_upper_bound(scenario, gap_tol=0.0)
    assert ub.converged
    for name in REGISTRY:
        welfare = lorasched.simulate(scenario, algorithm=name, seed=1).attrs["welfare"]
        assert ub.bound >= welfare - 1e-9, name
    from lorasched.pdftsp.offline import offline_opt

    opt = offline_opt(scenario, time_limit=60)
    assert ub.bound >= opt.attrs["opt_objective"] - 1e-6
    lorasched.check_result(opt)


@pytest.mark.parametrize("params", SMALL[:3])
def test_aggregating_identical_nodes_leaves_the_lp_optimum_unchanged(params):
    scenario = lorasched.synthetic_scenario(**{**params, "nodes": 4, "gpu": "A100"})
    agg = bound.offline_upper_bound(scenario, gap_tol=0.0)
    full = full_lp(scenario, relaxed=True)
    assert full.converged and agg.converged
    assert agg.bound == pytest.approx(full.lp_value, rel=1e-6, abs=1e-9)
    arrays = lorasched.pdftsp.to_arrays(scenario)
    reduced, count = bound.aggregate_identical_nodes(arrays)
    assert reduced.n_nodes == 1 and count.tolist() == [4.0]


def test_mixed_cluster_aggregates_by_gpu_type():
    arrays = lorasched.pdftsp.to_arrays(lorasched.synthetic_scenario(nodes=6, slots=6, load=1.0))
    reduced, count = bound.aggregate_identical_nodes(arrays)
    assert reduced.n_nodes == 2 and sorted(count.tolist()) == [3.0, 3.0]


def test_bound_is_valid_when_stopped_early():
    scenario = lorasched.synthetic_scenario(nodes=2, slots=24, load=4.0, seed=3)
    exact = bound.offline_upper_bound(scenario, gap_tol=0.0)
    early = bound.offline_upper_bound(scenario, max_iterations=1)
    assert not early.converged
    assert early.bound >= exact.bound - 1e-9
    # the history's bound never increases and ends at the reported bound
    bounds = [h[2] for h in exact.history]
    assert all(b1 >= b2 - 1e-12 for b1, b2 in zip(bounds, bounds[1:], strict=False))
    assert bounds[-1] == pytest.approx(exact.bound)


def test_titan_records_each_slot_and_respects_capacity():
    scenario = lorasched.synthetic_scenario(nodes=3, slots=12, load=4.0, vendors=2, seed=4)
    result = lorasched.simulate(scenario, algorithm="titan", seed=2)
    lorasched.check_result(result)
    busy = np.unique(scenario["arrival"].values)
    for name in ("seconds", "gap", "mip_gap", "lp_bound", "objective", "hit_limit"):
        var = result[f"titan_{name}"]
        assert var.dims == ("slot",)
        assert np.isfinite(var.values[busy]).all(), name
    # the certified gap is a gap: the MILP never beats its own LP bound
    assert (result["titan_objective"].values[busy]
            <= result["titan_lp_bound"].values[busy] + 1e-6).all()
    assert result.attrs["n_admitted"] > 0
    # admitted tasks pay the posted price; the same seed gives the same vendors
    again = lorasched.simulate(scenario, algorithm="titan", seed=2)
    assert (again["chosen_vendor"].values == result["chosen_vendor"].values).all()
    # limits are counts, not seconds: the same seed gives the same decisions and cells
    for name in ("admitted", "cell_task", "cell_node", "cell_slot", "titan_objective"):
        np.testing.assert_array_equal(again[name].values, result[name].values)
    admitted = result["admitted"].values
    price = scenario.attrs["value_density_min"] * scenario["work"].values
    np.testing.assert_allclose(result["payment"].values[admitted], price[admitted])


@pytest.mark.parametrize("mip", ["root", "rens", "rens_pscost", "rens_lean", "rounding",
                                 "nodes1000"])
def test_each_titan_milp_setting_gives_a_feasible_reproducible_day(mip):
    scenario = lorasched.synthetic_scenario(nodes=4, slots=24, load=8.0, vendors=2, seed=5)
    result = lorasched.simulate(scenario, algorithm="titan", seed=1, solver="columns", mip=mip)
    lorasched.check_result(result)
    assert result.attrs["titan_mip"] == mip
    nodes = {"root": 1, "rens": 10_000, "rens_pscost": 10_000, "rens_lean": 10_000,
             "rounding": 0, "nodes1000": 1000}[mip]
    assert result.attrs["titan_mip_max_nodes"] == nodes
    busy = np.unique(scenario["arrival"].values)
    # every setting stays under the slot's LP bound; only branching proves a slot optimal
    assert (result["titan_objective"].values[busy]
            <= result["titan_lp_bound"].values[busy] + 1e-6).all()
    again = lorasched.simulate(scenario, algorithm="titan", seed=1, solver="columns", mip=mip)
    np.testing.assert_array_equal(again["admitted"].values, result["admitted"].values)


def test_titan_milp_settings_differ_on_the_same_slot_problem():
    """The first busy slot's MILP is the same problem under every setting (same columns,
    full capacity): here more effort admits strictly more of its tasks, all under the
    slot's LP bound."""
    scenario = lorasched.synthetic_scenario(nodes=6, slots=36, load=14.0, vendors=2, seed=2)
    first = int(np.unique(scenario["arrival"].values)[0])
    got = {}
    for mip in ("rounding", "root", "nodes1000"):
        result = lorasched.simulate(scenario, algorithm="titan", seed=1, solver="columns", mip=mip)
        got[mip] = float(result["titan_objective"].values[first])
        bound_ = float(result["titan_lp_bound"].values[first])
    assert got["rounding"] < got["root"] < got["nodes1000"] <= bound_ + 1e-6


def test_rens_pscost_and_rens_lean_find_the_same_optimum_of_each_slot_as_rens():
    """The three settings solve the same sub-MILP to the same gap; only the branching and
    the cut pool differ, so while the days have not diverged (same capacity left, same
    columns) each slot's objective is the same."""
    scenario = lorasched.synthetic_scenario(nodes=6, slots=36, load=14.0, vendors=2, seed=2)
    got = {mip: lorasched.simulate(scenario, algorithm="titan", seed=1, solver="columns", mip=mip)
           for mip in ("rens", "rens_pscost", "rens_lean")}
    busy = np.unique(scenario["arrival"].values)
    first = int(busy[0])
    assert got["rens"]["titan_objective"].values[first] > 0
    for mip in ("rens_pscost", "rens_lean"):
        assert (got["rens"]["titan_objective"].values[first]
                == got[mip]["titan_objective"].values[first])
        assert got[mip].attrs["titan_mip"] == mip


def test_titan_names_an_unknown_milp_setting():
    scenario = lorasched.synthetic_scenario(nodes=2, slots=6, load=2.0, seed=1)
    with pytest.raises(ValueError, match="mip must be one of"):
        lorasched.simulate(scenario, algorithm="titan", seed=1, solver="columns", mip="exact")


def test_the_master_refuses_an_unknown_highs_option_for_the_milp():
    master = MasterLP(1, (np.array([1.0]),))
    master.add_columns([Column(0, 1.0, (np.array([0]),), (1.0,), None)])
    master.solve_lp()
    with pytest.raises(ValueError, match="no_such_option"):
        master.solve_integer(10.0, 1e-4, 10, {"no_such_option": 1})
    chosen, value, *_ = master.solve_integer(10.0, 1e-4, 10, {"mip_allow_restart": False})
    assert chosen.tolist() == [0] and value == pytest.approx(1.0)


def test_titan_oracle_maximises_welfare_within_a_slot():
    """Two tasks arrive together and only one fits: the welfare oracle keeps the more
    valuable."""
    scenario = lorasched.synthetic_scenario(nodes=1, slots=6, load=0.0, vendors=0,
                                            preprocessing_share=0.0, gpu="A40")
    import xarray as xr

    C = int(scenario["compute_capacity"].values[0])
    tasks = xr.Dataset({
        "arrival": ("task", [0, 0]), "deadline": ("task", [0, 0]),
        "memory": ("task", [10.0, 10.0]), "work": ("task", [C, C]),
        "needs_preprocessing": ("task", [False, False]), "bid": ("task", [1.0, 2.0]),
        "speed": (("task", "node"), [[C], [C]]),
        "vendor_price": (("task", "vendor"), np.zeros((2, 0))),
        "vendor_delay": (("task", "vendor"), np.zeros((2, 0), dtype=np.int64))})
    sc = scenario.drop_dims("task").assign(tasks)
    for name in ("value_density_min", "value_density_max"):  # hand-made bids: none declared
        del sc.attrs[name]
    result = lorasched.simulate(sc, algorithm="titan_oracle", seed=0, price_per_sample=0.0)
    lorasched.check_result(result)
    assert result["admitted"].values.tolist() == [False, True]
    assert result["reason"].values.tolist() == ["not_selected", "admitted"]


# --------------------------------------------------------------------------- lorasched.lp


def test_master_lp_on_a_small_packing_problem():
    """Two groups compete for one unit of one resource at cell 0; a third column of group 1
    uses cell 1 instead. The LP and the MILP take the two compatible columns."""
    cap = np.array([1.0, 1.0])
    master = MasterLP(2, (cap,))
    one = (np.array([0]),)
    cols = [Column(0, 3.0, one, (1.0,), "a"), Column(1, 2.0, one, (1.0,), "b"),
            Column(1, 2.0, one, (1.0,), "b")]  # a duplicate: skipped
    assert master.add_columns(cols) == 2 and master.n_rows == 2 + 1
    value, mu, (pi,) = master.solve_lp()
    assert value == pytest.approx(3.0) and mu.shape == (2,) and pi.shape == (2,)
    assert master.add_columns([Column(1, 1.0, (np.array([1]),), (np.array([1.0]),), "c")]) == 1
    value, _, _ = master.solve_lp()
    assert value == pytest.approx(4.0)
    chosen, objective, *_ = master.solve_integer(10.0, 0.0)
    assert sorted(master.col_label[c] for c in chosen) == ["a", "c"]
    assert objective == pytest.approx(4.0)


def test_rens_keeps_the_lps_whole_columns_and_packs_its_fractional_ones_in_what_is_left():
    """The LP takes D whole (cells 3 and 4), E not at all, and A, B, C -- an odd cycle on
    cells 0-2 -- at 1/2 each. RENS keeps D, drops E, and solves over A, B, C with what D
    leaves of cell 4 (1/2), which A (needing 1 there) no longer fits: B or C, value 2."""
    cap = np.array([1.0, 1.0, 1.0, 1.0, 1.5])
    master = MasterLP(5, (cap,))
    cells = [np.array(c) for c in ([0, 1, 4], [1, 2], [0, 2], [3, 4], [3])]
    labels = "ABCDE"
    values = [1.0, 1.0, 1.0, 1.0, 0.5]
    master.add_columns([Column(g, v, (c,), (np.ones(c.size),), name)
                        for g, (v, c, name) in enumerate(zip(values, cells, labels,
                                                             strict=True))])
    lp_value, *_ = master.solve_lp()
    assert lp_value == pytest.approx(2.5)
    x = np.asarray(master.h.getSolution().col_value)
    np.testing.assert_allclose(x, [0.5, 0.5, 0.5, 1.0, 0.0], atol=1e-9)
    chosen, value, bound_, gap, hit = master.solve_fixed(10.0, 0.0)
    picked = {master.col_label[c] for c in chosen}
    assert "D" in picked and not picked & {"A", "E"} and len(picked) == 2
    assert value == pytest.approx(2.0) and np.isnan(bound_) and not hit
    # the master itself is untouched: still the LP, same value
    assert master.solve_lp()[0] == pytest.approx(2.5)
    with pytest.raises(ValueError, match="no_such_option"):
        master.solve_fixed(10.0, 0.0, 10, {"no_such_option": 1})


def test_column_generation_stops_when_nothing_prices_out():
    """Pricing offers each group its one column until it is in the master: the loop then
    converges with the bound at the LP value."""
    cap = np.array([1.0])
    offers = [Column(0, 3.0, (np.array([0]),), (1.0,)), Column(1, 2.0, (np.array([0]),), (1.0,))]

    def price(mu, duals):
        (pi,) = duals
        reduced = [c.value - float(pi[0]) - mu[c.group] for c in offers]
        lagrangian = sum(max(0.0, c.value - float(pi[0])) for c in offers)
        return [c for c, r in zip(offers, reduced, strict=True) if r > 1e-9], lagrangian

    cg = column_generation(MasterLP(2, (cap,)), price)
    assert cg.converged and cg.lp_value == pytest.approx(3.0)
    assert cg.bound == pytest.approx(3.0) and cg.master.n_columns == 2


def test_master_lp_takes_highs_options_by_name_and_refuses_unknown_ones():
    cap = np.array([1.0])
    master = MasterLP(1, (cap,), {"simplex_scale_strategy": 0})
    assert master.h.getOptionValue("simplex_scale_strategy")[-1] == 0
    with pytest.raises(ValueError, match="'no_such_option'"):
        MasterLP(1, (cap,), {"no_such_option": 1})


def test_the_bound_runs_its_master_unscaled_and_titan_keeps_highs_defaults(monkeypatch):
    """Only the offline bound sets BOUND_HIGHS_OPTIONS; Titan's per-slot master does not
    (its results are unchanged). Only Titan's guards its solves against a stall."""
    seen = []
    real = MasterLP.__init__

    def spy(self, n_groups, capacities, options=None, stall_iterations=None):
        seen.append((options, stall_iterations))
        real(self, n_groups, capacities, options, stall_iterations)

    monkeypatch.setattr(MasterLP, "__init__", spy)
    scenario = lorasched.synthetic_scenario(**SMALL[0])
    bound.offline_upper_bound(scenario)
    assert seen == [(bound.BOUND_HIGHS_OPTIONS, None)]
    seen.clear()
    result = lorasched.simulate(scenario, algorithm="titan", seed=1, solver="columns")
    assert seen and all(o == (None, titan.STALL_ITERATIONS) for o in seen)
    assert np.nansum(result["titan_lp_stalls"].values) == 0


def test_a_master_solve_past_its_stall_limit_is_solved_again_to_the_same_optimum():
    """stall_iterations (a count): a solve that needs more simplex iterations is taken as
    stalled and solved again from a fresh basis with the primal simplex; the LP optimum
    and the duals' validity do not change, only the path."""
    rng = np.random.default_rng(3)
    caps = (rng.uniform(5, 10, size=(4, 6)), rng.uniform(5, 10, size=(4, 6)))

    def master(stall):
        m = MasterLP(8, caps, stall_iterations=stall)
        cols = []
        for g in range(8):
            for _ in range(5):
                nodes = rng.integers(0, 4, size=3)
                slots = np.sort(rng.choice(6, size=3, replace=False))
                cols.append(Column(g, float(rng.uniform(1, 5)), (nodes, slots),
                                   (rng.uniform(1, 4, size=3), float(rng.uniform(1, 3))),
                                   None))
        m.add_columns(cols)
        return m

    state = rng.bit_generator.state
    free = master(None)
    rng.bit_generator.state = state
    guarded = master(1)
    value, *_ = free.solve_lp()
    again, mu, (pi, sigma) = guarded.solve_lp()
    assert free.stalls == 0 and guarded.stalls == 1
    assert again == pytest.approx(value, rel=1e-9)
    assert (mu >= 0).all() and (pi >= 0).all() and (sigma >= 0).all()
    # the limit is restored for the next solve
    assert guarded.h.getOptionValue("simplex_iteration_limit")[1] == 1


@pytest.mark.parametrize("relaxed", [True, False])
def test_one_call_prices_every_task_as_the_task_by_task_pricing_does(relaxed):
    """cg_kernels.price_batch (what column generation calls) against bound.price task by
    task: the same schedule, value and reduced-cost test for every task at random duals,
    with vendors fixed (Titan) and free (the bound)."""
    scenario = lorasched.synthetic_scenario(nodes=3, slots=12, load=3.0, vendors=2,
                                            gpu="mix", seed=4)
    arrays = lorasched.pdftsp.to_arrays(scenario)
    cc, mc = arrays.residual()
    rng = np.random.default_rng(7)
    tasks = np.arange(arrays.n_tasks)
    vendor_of = None if relaxed else rng.integers(-1, arrays.n_vendors, arrays.n_tasks)
    inp = bound.pricing_input(arrays, tasks, 8, relaxed, vendor_of)
    packed = inp.packed(tasks)
    pi = rng.uniform(0, 1e-4, cc.shape)
    sigma = rng.uniform(0, 1e-2, mc.shape)
    mu = rng.uniform(0, 2, tasks.size)
    best, value, improving, lagrangian, ptr, nodes, slots = \
        bound.cg_kernels.price_batch(packed["arrival"], packed["deadline"], packed["W"],
                                  packed["units"], packed["speed"], packed["memory"],
                                  packed["bid"], arrays.op_cost_rate, pi, sigma, cc, mc,
                                  packed["opt_ptr"], packed["starts"], packed["fixed"], mu,
                                  1e-9)
    expected = 0.0
    for j, i in enumerate(tasks):
        found = bound.price(inp, j, int(i), pi, sigma, cc, mc)
        assert (found is None) == (best[j] < 0)
        if found is None:
            continue
        v, vendor, n_j, s_j = found
        expected += max(0.0, v)
        assert value[j] == v and int(inp.vendors[j][best[j]]) == vendor
        assert improving[j] == (v - mu[j] > 1e-9 * max(1.0, abs(float(arrays.bid[i]))))
        if improving[j]:
            np.testing.assert_array_equal(nodes[ptr[j]:ptr[j + 1]], n_j)
            np.testing.assert_array_equal(slots[ptr[j]:ptr[j + 1]], s_j)
    assert lagrangian == expected
    assert improving.any() and (best >= 0).any()


#: one tiny day on which the best policy comes within 1 % of the offline optimum, so a bound
#: even slightly too low is caught
TINY = dict(nodes=2, slots=8, load=1.5, vendors=2, gpu="mix", seed=1)


@pytest.fixture(scope="module")
def tiny_day():
    """Every pdFTSP policy's welfare (pdFTSP with both its constant settings) and every
    upper bound the system declares, on :data:`TINY`."""
    from lorasched.pdftsp.system import SYSTEM

    scenario = lorasched.synthetic_scenario(**TINY)
    welfare = {name: lorasched.simulate(scenario, name, seed=1).attrs["welfare"]
               for name in SYSTEM.policies}
    welfare["pdftsp (calibrated constants)"] = lorasched.simulate(
        scenario, "pdftsp", seed=1, alpha=2.0, beta=0.0).attrs["welfare"]
    bounds = {name: b.compute(scenario) for name, b in SYSTEM.bounds.items()}
    return welfare, bounds


def above(bound: float, welfare: dict) -> list[str]:
    """The policies whose welfare exceeds ``bound``."""
    return sorted(name for name, w in welfare.items() if w > bound + 1e-6)


@pytest.mark.parametrize("scale, holds", [(1.0, True), (0.99, False)])
def test_every_declared_upper_bound_is_above_every_policy(tiny_day, scale, holds):
    """Each of the system's bounds (the LP bound, the offline optimum) is at least every
    policy's welfare; scaled down by 1 % the same check fails, so it can fail."""
    welfare, bounds = tiny_day
    assert {"lp", "opt"} <= set(bounds)
    assert {"pdftsp", "eft", "ntm", "titan", "titan_oracle", "cost_plus"} <= set(welfare)
    for name, (value, converged) in bounds.items():
        assert converged, name
        assert (not above(scale * value, welfare)) == holds, (name, above(scale * value,
                                                                          welfare))
