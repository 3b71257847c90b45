"""lorasched's cost-plus baseline: valid, priced at markup x its cheapest cost, truthful."""

from __future__ import annotations

import numpy as np
import pytest

import lorasched
from lorasched.pdftsp.baselines import cost_plus
from lorasched.pdftsp.scenario import to_arrays


@pytest.fixture(scope="module")
def scenario():
    return lorasched.synthetic_scenario(nodes=4, slots=24, load=4, vendors=3, gpu="mix",
                                        preprocessing_share=0.5, seed=3)


def test_a_day_is_valid_and_each_task_pays_markup_times_its_cost(scenario):
    result = lorasched.simulate(scenario, "cost_plus", markup=1.5)
    lorasched.check_result(result)
    adm = result["admitted"].values
    assert 0 < adm.sum() < adm.size
    pay, bid = result["payment"].values[adm], result["bid"].values[adm]
    assert np.all(pay <= bid + 1e-9)
    # the cost each admitted task is charged against: its vendor's price plus sum e_ikt
    arrays = to_arrays(scenario)
    d = cost_plus.run(arrays, np.random.default_rng(0), markup=1.5)
    for i in np.flatnonzero(d.admitted):
        v = d.chosen_vendor[i]
        mine = d.cell_task == i
        nodes, slots = d.cell_node[mine], d.cell_slot[mine]
        cost = (arrays.vendor_price[i, v] if v >= 0 else 0.0) + arrays.op_cost(
            i, nodes, slots).sum()
        assert d.payment[i] == pytest.approx(1.5 * cost)


def test_a_higher_markup_admits_no_more_and_a_bid_does_not_set_its_price(scenario):
    arrays = to_arrays(scenario)
    rng = np.random.default_rng(0)
    low, high = (cost_plus.run(arrays, rng, markup=m) for m in (1.0, 3.0))
    assert high.admitted.sum() <= low.admitted.sum()
    # raising an admitted task's bid leaves every decision and its price unchanged
    i = int(np.flatnonzero(low.admitted)[0])
    bid = arrays.bid.copy()
    bid[i] *= 10
    again = cost_plus.run(arrays._replace(bid=bid), rng, markup=1.0)
    assert np.array_equal(again.admitted, low.admitted)
    assert again.payment[i] == low.payment[i]


@pytest.mark.parametrize("markup", [0, -1.0, float("nan"), "2"])
def test_a_markup_that_is_not_positive_is_refused(scenario, markup):
    with pytest.raises(ValueError, match="markup"):
        cost_plus.run(to_arrays(scenario), np.random.default_rng(0), markup=markup)
