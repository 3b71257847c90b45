"""Titan (SoCC'22) as pdFTSP's baseline: the faithful progress objective, which never reads a
bid, against the welfare oracle ``titan_oracle`` (lorasched.pdftsp.baselines.titan_per_slot)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import lorasched
from lorasched.pdftsp.baselines import titan_per_slot as titan
from lorasched.pdftsp.scenario import to_arrays

SCHEDULE = ("admitted", "cell_task", "cell_node", "cell_slot", "chosen_vendor", "payment")


def tiny():
    return lorasched.synthetic_scenario(nodes=3, slots=12, load=4.0, vendors=2, seed=4)


def one_slot(work, speed, bid):
    """One A40 node, one slot, no vendors: the tasks all arrive in slot 0, due in slot 0."""
    scenario = lorasched.synthetic_scenario(nodes=1, slots=6, load=0.0, vendors=0,
                                            preprocessing_share=0.0, gpu="A40")
    n = len(work)
    tasks = xr.Dataset({
        "arrival": ("task", [0] * n), "deadline": ("task", [0] * n),
        "memory": ("task", [10.0] * n), "work": ("task", list(work)),
        "needs_preprocessing": ("task", [False] * n), "bid": ("task", list(bid)),
        "speed": (("task", "node"), [[s] for s in speed]),
        "vendor_price": (("task", "vendor"), np.zeros((n, 0))),
        "vendor_delay": (("task", "vendor"), np.zeros((n, 0), dtype=np.int64))})
    out = scenario.drop_dims("task").assign(tasks)
    for bound in ("value_density_min", "value_density_max"):  # hand-made bids: none declared
        del out.attrs[bound]
    return out


def with_bids(scenario, bid):
    return scenario.assign(bid=("task", np.asarray(bid, dtype=float)))


def test_faithful_titan_never_reads_a_bid():
    """Redrawing every bid inside the declared bounds leaves Titan's schedule unchanged."""
    scenario = tiny()
    work = scenario["work"].values.astype(float)
    low = scenario.attrs["value_density_min"] * work
    high = scenario.attrs["value_density_max"] * work
    bid = np.random.default_rng(7).uniform(low, high)
    assert not np.allclose(bid, scenario["bid"].values)
    redrawn = with_bids(scenario, bid)
    a = lorasched.simulate(scenario, "titan", seed=3)
    b = lorasched.simulate(redrawn, "titan", seed=3)
    lorasched.check_result(a)
    lorasched.check_result(b)
    assert 0 < a.attrs["n_admitted"] < a.sizes["task"]  # the slots' MILPs had to choose
    for name in SCHEDULE:
        np.testing.assert_array_equal(a[name].values, b[name].values, err_msg=name)
    assert a.attrs["welfare"] != b.attrs["welfare"]  # the bids did change the accounting
    # the same redraw does move the welfare oracle, which reads the bids
    oracle = lorasched.simulate(scenario, "titan_oracle", seed=3)
    moved = lorasched.simulate(redrawn, "titan_oracle", seed=3)
    assert (oracle["admitted"].values != moved["admitted"].values).any()


def test_progress_view_hides_bids_and_costs():
    """Titan's view of a scenario has unit bids and zero vendor prices and operating costs."""
    arrays = to_arrays(tiny())
    seen = titan.progress_view(arrays)
    assert (seen.bid == 1.0).all() and seen.bid.shape == arrays.bid.shape
    assert (seen.vendor_price == 0).all() and seen.vendor_price.shape == arrays.vendor_price.shape
    assert (seen.op_cost_rate == 0).all() and seen.op_cost_rate.shape == arrays.op_cost_rate.shape
    np.testing.assert_array_equal(seen.work, arrays.work)
    np.testing.assert_array_equal(seen.speed, arrays.speed)
    assert (arrays.bid != 1.0).any()  # the original is untouched


def test_titan_counts_tasks_and_the_oracle_weighs_bids_within_a_slot():
    """A big valuable task or two small cheap ones fit: Titan keeps the two, the oracle the
    big one."""
    C = int(lorasched.synthetic_scenario(nodes=1, slots=6, load=0.0, vendors=0,
                                         preprocessing_share=0.0,
                                         gpu="A40")["compute_capacity"].values[0])
    half = C // 2
    scenario = one_slot(work=[C, half, half], speed=[C, half, half], bid=[10.0, 1.0, 1.0])
    faithful = lorasched.simulate(scenario, "titan", seed=0, price_per_sample=0.0)
    oracle = lorasched.simulate(scenario, "titan_oracle", seed=0, price_per_sample=0.0)
    lorasched.check_result(faithful)
    lorasched.check_result(oracle)
    assert faithful["admitted"].values.tolist() == [False, True, True]
    assert faithful["reason"].values.tolist() == ["not_selected", "admitted", "admitted"]
    assert oracle["admitted"].values.tolist() == [True, False, False]
    assert oracle["reason"].values.tolist() == ["admitted", "not_selected", "not_selected"]
    assert oracle.attrs["welfare"] > faithful.attrs["welfare"]


@pytest.mark.parametrize("objective", ["welfare ", "Progress", "bids", ""])
def test_an_unknown_objective_is_refused(objective):
    """run() raises ValueError naming 'objective' for anything but progress or welfare."""
    arrays = to_arrays(tiny())
    with pytest.raises(ValueError, match="objective"):
        titan.run(arrays, np.random.default_rng(0), objective=objective)


def test_titan_oracle_is_titan_with_the_welfare_objective():
    """titan_oracle gives the same schedule as titan.run(objective='welfare')."""
    scenario = tiny()
    oracle = lorasched.simulate(scenario, "titan_oracle", seed=5)
    welfare = titan.run(to_arrays(scenario), np.random.default_rng(5), objective="welfare")
    np.testing.assert_array_equal(oracle["admitted"].values, welfare.admitted)
    np.testing.assert_array_equal(oracle["chosen_vendor"].values, welfare.chosen_vendor)
    np.testing.assert_array_equal(oracle["payment"].values, welfare.payment)


def test_the_objective_is_recorded_in_the_result():
    """A result's attributes say which objective Titan maximised."""
    scenario = tiny()
    faithful = lorasched.simulate(scenario, "titan", seed=1)
    oracle = lorasched.simulate(scenario, "titan_oracle", seed=1)
    assert faithful.attrs["titan_objective"] == "progress"
    assert oracle.attrs["titan_oracle_objective"] == "welfare"


def _first_task_of(scenario, slot_rank):
    """The first task arriving in the slot_rank-th busy slot."""
    arrival = scenario["arrival"].values
    slot = np.unique(arrival)[slot_rank]
    return int(np.flatnonzero(arrival == slot)[0])


@pytest.mark.parametrize("slot_rank", [0, 3])
def test_only_the_oracle_rejects_a_bid_below_the_posted_price(slot_rank):
    """titan_oracle rejects a bid below the posted price ('price_above_bid') in any slot;
    the faithful Titan never gives that reason. (The posted price is the declared minimum
    value density times the work, which every positive bid meets: the bid below it is 0.)"""
    scenario = tiny()
    i = _first_task_of(scenario, slot_rank)
    bid = scenario["bid"].values.astype(float).copy()
    bid[i] = 0.0
    cheap = with_bids(scenario, bid)
    oracle = lorasched.simulate(cheap, "titan_oracle", seed=1)
    assert oracle["reason"].values[i] == "price_above_bid"
    assert not oracle["admitted"].values[i]
    assert (oracle["reason"].values == "price_above_bid").sum() == 1
    lorasched.check_result(oracle)
    faithful = lorasched.simulate(cheap, "titan", seed=1)
    assert "price_above_bid" not in set(faithful["reason"].values.tolist())
    # the faithful Titan decides as if the bid had not changed
    same = lorasched.simulate(scenario, "titan", seed=1)
    np.testing.assert_array_equal(faithful["admitted"].values, same["admitted"].values)


def test_the_converged_titan_certifies_each_slots_gap_and_the_budget_limited_one_stays():
    """solver="milp" (the default): every slot solved within mip_rel_gap, certified by the
    solver's bound; solver="columns" is the budget-limited reading, recorded as such."""
    scenario = tiny()
    converged = lorasched.simulate(scenario, algorithm="titan", seed=1)
    lorasched.check_result(converged)
    gap = converged["titan_gap"].values
    hit = converged["titan_hit_limit"].values > 0
    assert np.isfinite(gap).any()
    assert (gap[np.isfinite(gap) & ~hit] <= titan.MILP_REL_GAP + 1e-9).all()
    assert converged.attrs["titan_solver"] == "milp" and converged.attrs["titan_mip"] == "compact"
    again = lorasched.simulate(scenario, algorithm="titan", seed=1)
    for name in SCHEDULE:
        np.testing.assert_array_equal(converged[name].values, again[name].values)
    limited = lorasched.simulate(scenario, algorithm="titan", seed=1, solver="columns")
    lorasched.check_result(limited)
    assert limited.attrs["titan_solver"] == "columns"
    assert limited.attrs["titan_max_cg_iterations"] == 10


def test_budget_options_are_refused_with_the_compact_milp():
    with pytest.raises(lorasched.InputError, match="solver='columns'"):
        lorasched.simulate(tiny(), algorithm="titan", seed=1, mip="rens_lean")
    with pytest.raises(lorasched.InputError, match="solver must be one of"):
        lorasched.simulate(tiny(), algorithm="titan", seed=1, solver="gurobi")


@pytest.mark.parametrize("start", ["lp_rens", "none", "lp", "greedy"])
def test_a_first_incumbent_keeps_every_slot_within_its_gap(start):
    """milp_start gives each slot's MILP a feasible start: the schedule stays valid, every
    slot is still certified within mip_rel_gap, and the start is recorded."""
    scenario = lorasched.synthetic_scenario(nodes=4, slots=12, load=6.0, vendors=2, seed=7)
    warm = lorasched.simulate(scenario, algorithm="titan", seed=1, milp_start=start)
    lorasched.check_result(warm)
    gap = warm["titan_gap"].values
    hit = warm["titan_hit_limit"].values > 0
    assert np.isfinite(gap).any()
    assert (gap[np.isfinite(gap) & ~hit] <= titan.MILP_REL_GAP + 1e-9).all()
    assert warm.attrs["titan_milp_start"] == start
    assert warm["admitted"].values.any()


def test_an_unknown_start_is_refused():
    with pytest.raises(lorasched.InputError, match="milp_start must be one of"):
        lorasched.simulate(tiny(), algorithm="titan", seed=1, milp_start="gurobi")
    with pytest.raises(lorasched.InputError, match="solver='milp' only"):
        lorasched.simulate(tiny(), algorithm="titan", seed=1, solver="columns", milp_start="lp")


def test_the_tie_break_is_recorded_and_an_unknown_one_refused():
    """The default tie-break, ``"early_cells"``, runs the repaired start to the stated gap
    and is recorded, as is the named ``"fewest_cells"``; an unknown tie-break, or one with
    the budget-limited solver, is refused."""
    scenario = lorasched.synthetic_scenario(nodes=4, slots=12, load=6.0, vendors=2, seed=7)
    early = lorasched.simulate(scenario, algorithm="titan", seed=1)
    lorasched.check_result(early)
    assert early.attrs["titan_tie_break"] == "early_cells"
    gap = early["titan_gap"].values
    hit = early["titan_hit_limit"].values > 0
    assert (gap[np.isfinite(gap) & ~hit] <= titan.MILP_REL_GAP + 1e-9).all()
    assert lorasched.simulate(scenario, algorithm="titan", seed=1,
                              tie_break="fewest_cells").attrs["titan_tie_break"] == "fewest_cells"
    assert lorasched.simulate(scenario, algorithm="titan", seed=1, solver="columns").attrs[
        "titan_tie_break"] == "fewest_cells"
    with pytest.raises(lorasched.InputError, match="tie_break must be one of"):
        lorasched.simulate(tiny(), algorithm="titan", seed=1, tie_break="latest")
    with pytest.raises(lorasched.InputError, match="tie_break applies to solver='milp'"):
        lorasched.simulate(tiny(), algorithm="titan", seed=1, solver="columns",
                           tie_break="early_cells")


def test_the_default_solve_is_staged_and_records_each_slots_stage():
    """The default compact solve is "lp_rens_repair": every solved slot records the stage whose
    schedule met its gap, and a slot stopped before branch and bound explored no node."""
    scenario = lorasched.synthetic_scenario(nodes=4, slots=12, load=6.0, vendors=2, seed=7)
    result = lorasched.simulate(scenario, algorithm="titan", seed=1)
    assert result.attrs["titan_milp_start"] == "lp_rens_repair"
    assert result.attrs["titan_mip_max_nodes"] == titan.MILP_MAX_NODES
    stage = result["titan_stage"].values
    solved = np.isfinite(result["titan_gap"].values)
    assert np.isin(stage[solved], [0, 1, 2]).all() and np.isnan(stage[~solved]).all()
    early = solved & (stage < 2)
    assert (result["titan_nodes"].values[early] == 0).all()
    assert (result["titan_gap"].values[early] <= titan.MILP_REL_GAP + 1e-9).all()


def test_the_simulate_line_names_titans_worst_certified_gap(capsys):
    """``lorasched simulate --algorithm titan`` prints the worst slot's certified gap and
    the slots a node limit stopped; pdFTSP's line has neither."""
    from lorasched.cli import main

    args = ["simulate", "--nodes", "3", "--slots", "8", "--load", "3", "--vendors", "1"]
    assert main([*args, "--algorithm", "titan"]) == 0
    line = capsys.readouterr().out
    assert "worst slot's certified gap " in line and "(stated 1%)" in line
    assert "stopped by the node limit" in line
    assert main(args) == 0
    assert "certified gap" not in capsys.readouterr().out


def test_titan_cells_record_the_largest_certified_gap():
    import lorasched
    from lorasched.pdftsp.system import measure

    scenario = lorasched.synthetic_scenario(nodes=4, slots=12, vendors=2, load=3, seed=1)
    titan = measure(scenario, lorasched.simulate(scenario, algorithm="titan", seed=1))
    assert 0 <= titan["max_gap"] <= 0.01 and titan["slots_hit_limit"] == 0
    assert np.isfinite(titan["slot_elasticity"])
    eft = measure(scenario, lorasched.simulate(scenario, algorithm="eft", seed=1))
    assert not {"max_gap", "slots_hit_limit", "slot_elasticity"} & set(eft)


def test_the_slot_elasticity_is_the_slope_of_time_per_task_on_tasks_log_on_log():
    from lorasched.pdftsp.system import slot_elasticity

    tasks = np.array([10.0, 20, 40, 80, 0, 30])
    seconds = 0.01 * tasks ** 1.4  # time per task grows like tasks^0.4
    seconds[4] = np.nan  # a slot with no task: no solve
    assert slot_elasticity(seconds, tasks) == pytest.approx(0.4)
    assert slot_elasticity(0.5 * tasks, tasks) == pytest.approx(0.0, abs=1e-12)
    assert slot_elasticity(np.full(6, 2.0), tasks) == pytest.approx(-1.0)  # fixed cost
    # fewer than three solved slots, or one batch size: no slope
    assert np.isnan(slot_elasticity(seconds[:2], tasks[:2]))
    assert np.isnan(slot_elasticity(np.ones(4), np.full(4, 5.0)))
