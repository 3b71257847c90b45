"""lorasched.explorer.data: the numbers both forms of the explorer show."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lorasched.allpass.workload import allpass_scenario
from lorasched.explorer import data
from lorasched.model.errors import InputError
from lorasched.pdftsp.mechanism import AuctionReplay
from lorasched.pdftsp.workload import synthetic_scenario
from lorasched.plotting.titan import policy_name
from lorasched.systems import SYSTEMS, simulate
from lorasched.titan.workload import titan_scenario


@pytest.fixture(scope="module")
def replay():
    return AuctionReplay(synthetic_scenario(nodes=4, load=3.0, slots=36, seed=3))


def _kinds(replay) -> dict[str, int]:
    """A task of each outcome at its own bid: admitted, rejected for a negative surplus,
    and (if any) with no feasible schedule."""
    found = {}
    for i in range(replay.n_tasks):
        found.setdefault(replay.what_if(i).reason, i)
    return found


def test_the_bids_run_from_zero_to_twice_the_value_through_the_value(replay):
    for task in range(0, replay.n_tasks, 7):
        bids = data.explorer_bids(replay, task)
        value = float(replay.arrays.bid[task])
        assert bids.size == data.EXPLORER_POINTS and bids[0] == 0.0
        assert bids[data.EXPLORER_POINTS // 2] == value  # exactly, not to rounding
        assert math.isclose(bids[-1], 2 * value) and np.all(np.diff(bids) > 0)
    for bad in (4, 1, True, 3.0):
        with pytest.raises(InputError, match="odd whole number"):
            data.explorer_bids(replay, 0, bad)


def test_an_offer_is_the_auctions_what_if_and_reads_the_same(replay):
    kinds = _kinds(replay)
    assert {"admitted", "negative_surplus"} <= set(kinds)
    for reason, task in kinds.items():
        value = float(replay.arrays.bid[task])
        for bid in (None, 0.0, 0.5 * value, 2.0 * value):
            o, w = data.offer(replay, task, bid), replay.what_if(task, bid)
            assert data.describe(o) == w.describe()
            assert (o["admitted"], o["reason"], o["payment"], o["utility"]) == (
                w.admitted, w.reason, w.payment, w.utility)
            assert o["critical_bid"] == (w.critical_bid if math.isfinite(w.critical_bid)
                                         else None)
            assert o["nodes"] == w.nodes.tolist() and o["slots"] == w.slots.tolist()
        assert data.offer(replay, task)["reason"] == reason


def test_a_curve_is_the_utility_curve_at_the_explorers_bids(replay):
    for task in _kinds(replay).values():
        c = data.curve(replay, task, n=21)
        bids = data.explorer_bids(replay, task, 21)
        u = replay.utility_curve(task, bids)
        assert c["bids"] == bids.tolist()
        assert c["admitted"] == u["admitted"].values.astype(int).tolist()
        assert c["payment"] == u["payment"].values.tolist()
        assert c["utility"] == u["utility"].values.tolist()
        crit = u.attrs["critical_bid"]
        assert c["critical_bid"] == (None if math.isnan(crit) else crit)
        assert [data.REASONS[r] for r in c["reason"]] == [
            replay.what_if(task, b).reason for b in bids]


def test_the_price_changes_rebuild_the_prices_after_every_arrival(replay):
    changes = data._price_changes(replay)
    for which in ("lambda", "phi"):
        z = np.asarray(changes["initial"][which], dtype=float).ravel()
        assert len(changes["changes"][which]) == replay.n_tasks
        for step, (cells, values) in enumerate(changes["changes"][which], start=1):
            z[cells] = values
            want = replay.prices_after(step)[which].transpose("node", "slot").values
            np.testing.assert_array_equal(z.reshape(want.shape), want)
    # a rejected arrival changes no cell, an admitted one some
    rejected = [j for j in range(replay.n_tasks) if not replay.decision(j).admitted]
    admitted = [j for j in range(replay.n_tasks) if replay.decision(j).admitted]
    assert all(changes["changes"]["lambda"][j][0] == [] for j in rejected)
    assert any(changes["changes"]["lambda"][j][0] for j in admitted)


def test_the_page_data_hold_every_task_and_the_controls_first_values(replay):
    page = data.pdftsp_page(replay, step=10, task=3, n=11)
    assert (page["step"], page["task"], page["n_tasks"]) == (10, 3, replay.n_tasks)
    assert [t["task"] for t in page["tasks"]] == list(range(replay.n_tasks))
    assert set(page["figures"]) == set(data.FIGURES)
    assert len(page["slot_hours"]) == replay.scenario.sizes["slot"]
    with pytest.raises(InputError):
        data.pdftsp_page(replay, step=replay.n_tasks + 1, task=0)


@pytest.mark.parametrize("system", ["titan", "allpass"])
def test_a_policy_run_is_the_systems_simulate(system):
    policy = list(SYSTEMS[system].policies)[1]
    run = data.policy_run(system, policy, jobs=12 if system == "titan" else 30)
    if system == "titan":
        want = simulate(titan_scenario(workload="authors", jobs=12, nodes=2, seed=1), policy,
                        seed=1)
        assert f"average JCT {want.attrs['avg_jct_h']:.3f} h" in run.summary
    else:
        want = simulate(allpass_scenario(jobs=30, source="helios", seed=1), policy, seed=1)
        assert f"cost ${want.attrs['cost_usd']:.2f}" in run.summary
    assert run.result.attrs["algorithm"] == policy
    assert run.result.attrs["avg_jct_s" if system == "allpass" else "avg_jct_h"] == \
        want.attrs["avg_jct_s" if system == "allpass" else "avg_jct_h"]


def test_policy_runs_refuse_what_they_do_not_know():
    with pytest.raises(InputError, match="system must be one of"):
        data.policy_run("pdftsp", "pdftsp")
    with pytest.raises(InputError, match="policy must be one of"):
        data.policy_run("titan", "allpass")
    with pytest.raises(InputError, match="unknown setting"):
        data.policy_run("titan", "titan", source="helios")


def test_a_policy_page_holds_every_policy_of_the_system():
    page = data.policy_page("titan", jobs=12)
    assert page["policies"] == list(SYSTEMS["titan"].policies)
    for policy, run in page["runs"].items():
        assert f"average JCT {run['avg_jct']:.3f} h" in run["summary"]
        # titled with the paper's name of the policy, never its code name
        title = run["figures"]["timeline"]["layout"]["title"]["text"]
        assert title.startswith(f"{policy_name(policy)}: ")
        assert policy in ("srtf", "tiresias", "fifo", "random") or not title.startswith(policy)
        assert run["cost"] is None
