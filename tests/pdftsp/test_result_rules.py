"""pdFTSP's checker rule by rule (lorasched.pdftsp.result.RULES): a valid result broken in
exactly one rule's way breaks that rule alone, and check_result raises its message."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
import xarray as xr

from lorasched import simulate
from lorasched.model.errors import ResultError
from lorasched.pdftsp.decisions import Decisions
from lorasched.pdftsp.result import RULES, assemble, broken_rules, check_result


def _scenario() -> xr.Dataset:
    """Two nodes (C_kp = 4, 2 GB usable), four slots. Task 0 (window 0-1) has no speed on
    node 1; task 1 (bid 0) is rejected; task 2 needs its vendor (delay 2); task 3 arrives
    at slot 1."""
    return xr.Dataset(
        {
            "compute_capacity": ("node", np.array([4, 4])),
            "memory_capacity": ("node", np.array([3.0, 3.0])),
            "gpu_type": ("node", np.array(["toy", "toy"])),
            "op_cost_rate": (("node", "slot"), np.full((2, 4), 0.01)),
            "arrival": ("task", np.array([0, 0, 0, 1])),
            "deadline": ("task", np.array([1, 1, 3, 3])),
            "memory": ("task", np.array([0.5, 0.5, 0.25, 0.5])),
            "work": ("task", np.array([2, 2, 1, 2])),
            "needs_preprocessing": ("task", np.array([False, False, True, False])),
            "bid": ("task", np.array([10.0, 0.0, 10.0, 10.0])),
            "speed": (("task", "node"), np.array([[2, 0], [2, 2], [1, 1], [2, 2]])),
            "vendor_price": (("task", "vendor"), np.array([[0.0], [0.0], [1.0], [0.0]])),
            "vendor_delay": (("task", "vendor"), np.array([[0], [0], [2], [0]])),
        },
        attrs={"base_model_memory": 1.0, "value_density_min": 1.0, "value_density_max": 10.0,
               "task_memory_min": 0.25},
    )


@pytest.fixture(scope="module")
def valid() -> xr.Dataset:
    result = simulate(_scenario())
    assert result["admitted"].values.tolist() == [True, False, True, True]
    assert result["chosen_vendor"].values.tolist() == [-1, -1, 0, -1]
    cells = np.c_[result["cell_task"], result["cell_node"], result["cell_slot"]]
    assert cells.tolist() == [[0, 0, 0], [2, 0, 2], [3, 0, 1]]
    return result


def _decisions(r: xr.Dataset) -> Decisions:
    return Decisions(
        admitted=r["admitted"].values.copy(), chosen_vendor=r["chosen_vendor"].values.copy(),
        payment=r["payment"].values.copy(), reason=r["reason"].values.copy(),
        surplus=r["surplus"].values.copy(), decision_time=r["decision_time"].values.copy(),
        cell_task=r["cell_task"].values.copy(), cell_node=r["cell_node"].values.copy(),
        cell_slot=r["cell_slot"].values.copy(), lam=r["lambda"].values.copy(),
        phi=r["phi"].values.copy())


def _reassembled(r: xr.Dataset, change, **cells) -> xr.Dataset:
    """``r`` with its decisions changed in place by ``change(d)`` (or its cells replaced by
    ``cells``) and assembled again: usage and accounting follow the changed decisions."""
    d = _decisions(r)
    if change is not None:
        change(d)
    if cells:
        d = dataclasses.replace(d, **{f"cell_{k}": np.array(v) for k, v in cells.items()})
    return assemble(_scenario(), d, algorithm="pdftsp", seed=None, options={})


def _set(name: str, index, value):
    """Store ``value`` at ``index`` of variable (or attribute) ``name`` of the result."""
    def corrupt(r):
        if name in r.attrs:
            r.attrs[name] = value(r.attrs[name]) if callable(value) else value
        else:
            r[name].values[index] = value
        return r
    return corrupt


def _decide(**changes):
    """Change decision fields: ``field=(index, value)``, then re-assemble."""
    def change(d):
        for field, (index, value) in changes.items():
            getattr(d, field)[index] = value
    return lambda r: _reassembled(r, change)


def _cells(**cells):
    return lambda r: _reassembled(r, None, **cells)


# The cells are (task, node, slot) = (0, 0, 0), (2, 0, 2), (3, 0, 1).
#: rule name -> (corruption of a copy of the valid result, message regex, options)
CASES = {
    # (today's message shows numpy's repr of the reason: np.str_('bogus'))
    "reasons known": (_set("reason", 1, "bogus"), r"^unknown reasons \[.*'bogus'.*\]$", {}),
    "reason matches admitted": (_set("reason", 1, "admitted"),
                                r"^task 1: reason disagrees with admitted$", {}),
    "cell_task in range": (_set("cell_task", 0, 4), r"^cell_task out of range at cell 0$", {}),
    "cell_node in range": (_set("cell_node", 0, 2), r"^cell_node out of range at cell 0$", {}),
    "cell_slot in range": (_set("cell_slot", 0, 4), r"^cell_slot out of range at cell 0$", {}),
    "(4a) vendor when needed": (_decide(chosen_vendor=(2, -1)),
                                r"^\(4a\) task 2: admitted, needs pre-processing, no vendor$",
                                {}),
    "(4a) no vendor when rejected": (_decide(chosen_vendor=(1, 0)),
                                     r"^\(4a\) task 1: rejected but has a vendor$", {}),
    "chosen_vendor in range": (_set("chosen_vendor", 2, 1), r"^chosen_vendor out of range$", {}),
    "cells of admitted tasks": (_decide(admitted=(3, False), reason=(3, "negative_surplus"),
                                        payment=(3, 0.0)),
                                r"^cell 2: task 3 is not admitted$", {}),
    "(4c) after arrival and vendor delay": (
        _cells(task=[0, 2, 3], node=[0, 0, 0], slot=[0, 1, 1]),
        r"^\(4c\) task 2 runs in slot 1 before its arrival plus vendor delay \(2\)$", {}),
    "(4d) by the deadline": (_cells(task=[0, 2, 3], node=[0, 0, 0], slot=[2, 2, 1]),
                             r"^\(4d\) task 0 runs in slot 2 after its deadline 1$", {}),
    "cells on nodes with speed": (
        _cells(task=[0, 2, 3, 0], node=[0, 0, 0, 1], slot=[0, 2, 1, 1]),
        r"^task 0 placed on node 1 with speed 0$", {}),
    "(4b) one node per task and slot": (
        _cells(task=[0, 2, 3, 3], node=[0, 0, 0, 1], slot=[0, 2, 1, 1]),
        r"^\(4b\) task 3 uses several nodes in slot 1$", {}),
    "(4e) work delivered": (_cells(task=[2, 3], node=[0, 0], slot=[2, 1]),
                            r"^\(4e\) task 0 gets 0 samples of 2$", {}),
    "(4f) compute capacity": (_set("compute_capacity", 0, 1),
                              r"^\(4f\) node 0 slot 0: compute 2 over capacity 1$", {}),
    "(4g) memory capacity": (_set("memory_capacity", 0, 1.4),
                             r"^\(4g\) node 0 slot 0: memory 0\.5 GB over capacity 0\.4 GB "
                             r"\(with the base model\)$", {}),
    "compute_used from the cells": (_set("compute_used", (0, 0), 3),
                                    r"^compute_used disagrees with the cells$", {}),
    "memory_used from the cells": (_set("memory_used", (0, 0), 0.6),
                                   r"^memory_used disagrees with the cells$", {}),
    "rejected tasks pay nothing": (_decide(payment=(1, 0.5)),
                                   r"^task 1 is rejected but pays 0\.5$", {}),
    "payments finite and non-negative": (_decide(payment=(0, -1.0)),
                                         r"^payments must be finite and non-negative$", {}),
    "IR: payment at most the bid": (_decide(payment=(0, 11.0)),
                                    r"^IR: task 0 pays 11\.0 above its bid 10\.0$", {}),
    "accounting attributes (eqs. 1-3)": (_set("revenue", None, lambda v: v + 1.0),
                                         r"^attribute revenue = 2\.05 but the decisions give "
                                         r"1\.05$", {}),
    # a payment so large that user + provider utility cancel to 0 in floating point; IR
    # (which would catch it first) disabled
    "(3) welfare = user + provider utility": (
        _decide(payment=(0, 1e20)), r"^welfare != user utility \+ provider utility$",
        {"individually_rational": False}),
}


def test_every_rule_has_a_case_and_names_are_unique():
    names = [rule.name for rule in RULES]
    assert len(set(names)) == len(names)
    assert set(CASES) == set(names)


def test_the_valid_result_breaks_no_rule(valid):
    assert broken_rules(valid) == []
    check_result(valid)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_each_rule_alone(valid, rule):
    corrupt, message, options = CASES[rule.name]
    bad = corrupt(valid.copy(deep=True))
    assert broken_rules(bad, **options) == [rule.name]
    with pytest.raises(ResultError, match=message) as err:
        check_result(bad, **options)
    assert err.value.rule == rule.name
    check_result(valid)  # the valid result is untouched


def test_an_option_skips_its_rule(valid):
    corrupt, _, _ = CASES["IR: payment at most the bid"]
    bad = corrupt(valid.copy(deep=True))
    assert [rule.option for rule in RULES if rule.option] == ["individually_rational"]
    check_result(bad, individually_rational=False)
    assert broken_rules(bad, individually_rational=False) == []


def test_a_broken_range_rule_stops_the_list(valid):
    """A cell on a node that does not exist breaks its range rule; the later rules, which
    index with the cells, are not run (the payment above the bid goes unlisted)."""
    bad = CASES["IR: payment at most the bid"][0](valid.copy(deep=True))
    assert broken_rules(bad) == ["IR: payment at most the bid"]
    bad["cell_node"].values[0] = 2
    assert broken_rules(bad) == ["cell_node in range"]


def test_check_result_lists_every_rule():
    doc = " ".join(check_result.__doc__.split())
    for rule in RULES:
        assert f"``{rule.name}``" in doc, rule.name
    assert re.search(r"Parameters\s+-+.*Raises\s+-+", check_result.__doc__, re.S)
