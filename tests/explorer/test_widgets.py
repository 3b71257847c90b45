"""Behaviour of the auction replay, its what-if offers, and the live explorer widget."""

from __future__ import annotations

import json

import ipywidgets
import numpy as np
import pytest

import lorasched
from lorasched.explorer.widgets import (
    AuctionReplay,
    dual_price_figure,
    explorer,
    interactive_frontend,
    utility_curve,
    utility_figure,
)
from lorasched.pdftsp.auction import OnlineAuction
from lorasched.pdftsp.scenario import to_arrays
from lorasched.pdftsp.workload import synthetic_scenario


@pytest.fixture(scope="module")
def scenario():
    return synthetic_scenario(nodes=4, load=3.0, slots=36, seed=3)


@pytest.fixture(scope="module")
def replay(scenario):
    return AuctionReplay(scenario)


def _direct(scenario, j):
    """Offer the first ``j`` tasks to a fresh auction, as pdFTSP does."""
    arrays = to_arrays(scenario)
    auction = OnlineAuction(arrays)
    decisions = [auction.offer(i) for i in range(j)]
    return auction, decisions


def test_scenario_is_interesting(replay):
    """The fixture admits some tasks and rejects others, so the tests below bite."""
    admitted = [d.admitted for d in replay.decisions]
    assert 0 < sum(admitted) < len(admitted)


@pytest.mark.parametrize("every", [1, 7])
def test_state_after_equals_direct_offers(scenario, every):
    replay = AuctionReplay(scenario, snapshot_every=every)
    n = replay.n_tasks
    for j in (0, 1, n // 3, n // 2 + 1, n):
        auction, _ = _direct(scenario, j)
        state = replay.state_after(j)
        for name in OnlineAuction.STATE:
            np.testing.assert_array_equal(state[name], getattr(auction, name), err_msg=name)
    # the dual prices do move over the day (eqs. 7-8)
    assert replay.state_after(n)["lam"].max() > 0 == replay.state_after(0)["lam"].max()


def test_what_ifs_commit_nothing(replay):
    final = replay.state_after(replay.n_tasks)
    j = replay.pick_task(0)
    before = replay.state_after(j + 1)
    replay.state_after(3)
    replay.what_if(5, 0.0)
    assert replay.what_if(j, 10 * replay.what_if(j).value).admitted  # moves the auction
    for step, state in ((replay.n_tasks, final), (j + 1, before)):
        again = replay.state_after(step)
        for name in ("lam", "memory_left"):
            np.testing.assert_array_equal(again[name], state[name], err_msg=name)


def test_what_if_at_own_bid_matches_the_replay(scenario, replay):
    _, direct = _direct(scenario, replay.n_tasks)
    for j in range(replay.n_tasks):
        w, d = replay.what_if(j), replay.decisions[j]
        assert (w.admitted, w.reason) == (d.admitted, d.reason) == (direct[j].admitted,
                                                                     direct[j].reason)
        assert w.payment == pytest.approx(d.payment)
        np.testing.assert_array_equal(w.nodes, d.schedule.nodes)
        np.testing.assert_array_equal(w.slots, d.schedule.slots)
        expected = w.value - d.payment if d.admitted else 0.0
        assert w.utility == pytest.approx(expected)


def test_truthful_bid_is_best_on_the_grid(replay):
    """Critical payment: utility at b = v is >= utility at any other bid (Myerson)."""
    for j in range(0, replay.n_tasks, 3):
        c = utility_curve(replay, j, n=31)
        truthful = replay.what_if(j).utility
        assert truthful >= 0.0  # individually rational
        assert np.all(c["utility"] <= truthful + 1e-9), j


def test_threshold_and_rejection(replay):
    j = replay.pick_task(0)
    assert replay.decisions[j].admitted
    w = replay.what_if(j)
    assert 0 < w.critical_bid < w.value
    below = replay.what_if(j, 0.99 * w.critical_bid)
    assert (below.admitted, below.reason, below.payment, below.utility) == (
        False, "negative_surplus", 0.0, 0.0)
    above = replay.what_if(j, 1.5 * w.value)
    assert above.admitted and above.payment == pytest.approx(w.payment)
    assert above.utility == pytest.approx(w.value - w.payment)
    # an overbid that wins a task worth less than the threshold loses money
    rejected = [i for i, d in enumerate(replay.decisions)
                if d.reason == "negative_surplus"]
    assert rejected
    r = replay.what_if(rejected[0])
    assert r.utility == 0.0 and r.value <= r.critical_bid
    over = replay.what_if(rejected[0], 1.01 * r.critical_bid)
    assert over.admitted and over.utility < 0


def test_bad_inputs_name_the_field(replay):
    n = replay.n_tasks
    with pytest.raises(ValueError, match=rf"task {n} out of range 0\.\.{n - 1}"):
        replay.what_if(n)
    with pytest.raises(ValueError, match="task -1 out of range"):
        utility_curve(replay, -1)
    with pytest.raises(ValueError, match="task must be an integer"):
        replay.what_if(1.5)
    with pytest.raises(ValueError, match="bid must be a finite number >= 0"):
        replay.what_if(0, -1.0)
    with pytest.raises(ValueError, match="bid must be a finite number >= 0"):
        replay.what_if(0, float("nan"))
    with pytest.raises(ValueError, match="bids must be finite and >= 0, got inf"):
        utility_curve(replay, 0, bids=[1.0, float("inf")])
    with pytest.raises(ValueError, match=rf"step {n + 1} out of range 0\.\.{n}"):
        replay.state_after(n + 1)
    with pytest.raises(ValueError, match="which must be 'lambda' or 'phi'"):
        dual_price_figure(replay, 0, "mu")


def test_static_figures(replay):
    j = replay.pick_task(0)
    fig = dual_price_figure(replay, replay.n_tasks, "phi", task=j)
    np.testing.assert_array_equal(fig.data[0].z, replay.state_after(replay.n_tasks)["phi"])
    assert len(fig.data[1].x) == len(replay.what_if(j).slots) > 0
    assert f"after {replay.n_tasks} of {replay.n_tasks} arrivals" in fig.layout.title.text
    early = dual_price_figure(replay, 2, "phi")
    assert len(early.data) == 1 and early.data[0].zmax == fig.data[0].zmax > 0
    w = replay.what_if(j)
    u = utility_figure(replay, j, bid=0.0)
    assert [shape.x0 for shape in u.layout.shapes] == pytest.approx([w.critical_bid])
    traces = {t.name: t for t in u.data}
    assert list(traces["truthful bid b = v"].x) == pytest.approx([w.value])
    assert list(traces["chosen bid"].x) == [0.0] and list(traces["chosen bid"].y) == [0.0]
    curve = utility_curve(replay, j)
    np.testing.assert_array_equal(traces["utility, critical payment"].y, curve["utility"])
    np.testing.assert_array_equal(traces["payment p"].y, curve["payment"])
    assert curve.sizes["bid"] == 101


def test_plots_serve_simulation_results_too(scenario):
    """The figures of the explorer are those of lorasched.plotting.pdftsp."""
    import lorasched
    from lorasched.pdftsp import mechanism
    from lorasched.plotting import pdftsp as plots

    result = lorasched.simulate(scenario, "pdftsp", seed=3)
    fig = plots.dual_price_heatmap(result, "lambda")
    assert fig.layout.title.text.startswith("Final compute price") and len(fig.data) == 1
    assert fig.data[0].zmax is None
    curves = {"critical": mechanism.utility_curve(scenario, 2, n=11),
              "paper": mechanism.utility_curve(scenario, 3, n=11, payment="paper"),
              "paper_critical": mechanism.utility_curve(scenario, 3, n=11)}
    f10 = plots.utility_vs_bid(curves)
    names = [t.name for t in f10.data]
    assert "payment p" not in names and "chosen bid" not in names
    assert names.count("truthful bid b = v") == 2


def test_explorer_has_no_ui_alias(scenario):
    assert not hasattr(explorer(scenario, step=0), "ui")


def test_explorer_observers_update_the_figures(scenario):
    ex = explorer(scenario, step=0)
    assert isinstance(ex, ipywidgets.Box)
    assert "run this notebook in Jupyter" in ex._repr_mimebundle_()["text/plain"]
    assert ex.step.max == ex.replay.n_tasks
    lam0 = np.array(ex.lam_fig.data[0].z, dtype=float)
    assert not lam0.any()  # no arrivals yet: lambda^(0) = 0
    ex.step.value = ex.replay.n_tasks
    np.testing.assert_array_equal(ex.lam_fig.data[0].z, ex.replay.state_after(ex.step.max)["lam"])
    np.testing.assert_array_equal(ex.phi_fig.data[0].z, ex.replay.state_after(ex.step.max)["phi"])
    j = ex.replay.pick_task(1)
    ex.task.value = j
    assert ex.bid.value == pytest.approx(ex.replay.what_if(j).value)
    assert f"task {j}:" in ex.panel.value and "admitted (admitted)" in ex.panel.value
    ex.bid.value = 0.0
    assert "rejected (negative_surplus)" in ex.panel.value
    marker = next(t for t in ex.utility_fig.data if t.name == "chosen bid")
    assert list(marker.x) == [0.0] and list(marker.y) == [0.0]
    ex.seed.value = 4  # rebuild the scenario
    assert json.loads(ex.replay.scenario.attrs["generator"])["seed"] == 4
    assert ex.step.max == ex.replay.n_tasks


def test_no_interactive_frontend_outside_jupyter():
    """pytest (like papermill and nbval) is headless: the notebook shows no live widget."""
    assert interactive_frontend() is False


def test_the_explorer_s_figures_add_up_to_its_width():
    """The heatmaps take half the width each, the utility plot 52 % (the panel the rest);
    a width that cannot hold them is refused by name."""
    from lorasched.explorer.widgets import EXPLORER_WIDTH, Explorer

    ex = Explorer(nodes=4, load=2.0, slots=12, seed=0)
    assert ex.lam_fig.layout.width == ex.phi_fig.layout.width == EXPLORER_WIDTH // 2
    assert ex.utility_fig.layout.width == int(0.52 * EXPLORER_WIDTH)
    narrow = Explorer(nodes=4, load=2.0, slots=12, seed=0, width=800)
    assert narrow.lam_fig.layout.width == 400
    for bad in (300, 1.5e3, "wide", True):
        with pytest.raises(lorasched.InputError, match="width"):
            Explorer(nodes=4, load=2.0, slots=12, seed=0, width=bad)
