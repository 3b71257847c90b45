"""The result Dataset: scenario + decisions + accounting (eqs. 1-3), and its checker.

:func:`assemble` joins a scenario and an algorithm's
:class:`~lorasched.pdftsp.decisions.Decisions` into one ``xarray.Dataset`` and computes the
welfare accounting. :func:`check_result` validates any such dataset against the model's
constraints, one named rule of :data:`RULES` each; every algorithm's output goes through it
in the tests, and :func:`broken_rules` names every rule a result breaks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import xarray as xr

from ..model import rules
from ..model.errors import ResultError
from ..model.rules import Rule
from .decisions import REASONS, Decisions
from .scenario import MEMORY_TOLERANCE, ScenarioArrays, to_arrays

#: relative tolerance of money and memory comparisons
RTOL = 1e-9


def _usage(arrays: ScenarioArrays, cell_task, cell_node, cell_slot):
    K, T = arrays.n_nodes, arrays.n_slots
    compute = np.zeros((K, T), dtype=np.int64)
    memory = np.zeros((K, T))
    np.add.at(compute, (cell_node, cell_slot), arrays.speed[cell_task, cell_node])
    np.add.at(memory, (cell_node, cell_slot), arrays.memory[cell_task])
    return compute, memory


def accounting(arrays: ScenarioArrays, admitted, chosen_vendor, payment, cell_task, cell_node,
               cell_slot) -> dict:
    """Eqs. (1)-(3) from decisions. Money in the scenario's unit."""
    admitted = np.asarray(admitted, dtype=bool)
    vendor = np.asarray(chosen_vendor)
    with_vendor = admitted & (vendor >= 0)
    idx = np.flatnonzero(with_vendor)
    vendor_cost = float(arrays.vendor_price[idx, vendor[idx]].sum())
    operating_cost = float(arrays.op_cost(cell_task, cell_node, cell_slot).sum())  # sum e x
    revenue = float(payment[admitted].sum())
    value = float(arrays.bid[admitted].sum())
    user = value - revenue  # eq. (1)
    provider = revenue - vendor_cost - operating_cost  # eq. (2)
    welfare = value - vendor_cost - operating_cost  # eq. (3)
    return {"welfare": welfare, "user_utility": user, "provider_utility": provider,
            "revenue": revenue, "value": value, "vendor_cost": vendor_cost,
            "operating_cost": operating_cost, "n_admitted": int(admitted.sum()),
            "n_tasks": int(admitted.shape[0])}


def assemble(scenario: xr.Dataset, decisions: Decisions, *, algorithm: str, seed,
             options: dict) -> xr.Dataset:
    """The scenario plus decisions, usage, dual prices and accounting attributes."""
    arrays = to_arrays(scenario, validate=False)
    d = decisions
    compute_used, memory_used = _usage(arrays, d.cell_task, d.cell_node, d.cell_slot)
    finish = np.full(arrays.n_tasks, -1, dtype=np.int64)
    np.maximum.at(finish, d.cell_task, d.cell_slot)
    ds = scenario.copy()
    ds["admitted"] = ("task", d.admitted.astype(bool))
    ds["chosen_vendor"] = ("task", d.chosen_vendor.astype(np.int64))
    ds["payment"] = ("task", d.payment.astype(float))
    ds["reason"] = ("task", np.asarray(d.reason, dtype=str))
    ds["surplus"] = ("task", d.surplus.astype(float))
    ds["finish_slot"] = ("task", finish)
    ds["decision_time"] = ("task", d.decision_time.astype(float))
    ds["cell_task"] = ("cell", d.cell_task.astype(np.int64))
    ds["cell_node"] = ("cell", d.cell_node.astype(np.int64))
    ds["cell_slot"] = ("cell", d.cell_slot.astype(np.int64))
    ds["lambda"] = (("node", "slot"), d.lam.astype(float))
    ds["phi"] = (("node", "slot"), d.phi.astype(float))
    ds["compute_used"] = (("node", "slot"), compute_used)
    ds["memory_used"] = (("node", "slot"), memory_used)
    ds["lambda"].attrs["long_name"] = "dual price of compute, money per sample (eq. 7)"
    ds["phi"].attrs["long_name"] = "dual price of memory, money per GB per slot (eq. 8)"
    ds["memory_used"].attrs["long_name"] = "GPU memory of LoRA tasks, GB, base model excluded"
    ds.attrs.update(accounting(arrays, d.admitted, d.chosen_vendor, d.payment, d.cell_task,
                               d.cell_node, d.cell_slot))
    ds.attrs["algorithm"] = algorithm
    ds.attrs["seed"] = -1 if seed is None else int(seed)
    ds.attrs["options"] = json.dumps(options, sort_keys=True, default=str)
    for key, value in d.attrs.items():
        ds.attrs[f"{algorithm}_{key}"] = value
    for key, value in d.per_slot.items():
        ds[f"{algorithm}_{key}"] = ("slot", np.asarray(value, dtype=float))
    ds.attrs["median_decision_time"] = float(np.median(d.decision_time)) if len(
        d.decision_time) else 0.0
    return ds


def _first(values):
    """The first of ``values`` as a plain number (``None`` if there is none): what a
    message names, not a numpy slice."""
    values = np.asarray(values).ravel()
    return values[0].item() if values.size else None


def _require(ok, message: str) -> None:
    if not ok:
        raise ResultError(message)


@dataclass(frozen=True, eq=False)
class _Context:
    """A result's decisions as plain arrays, decoded once for the rules; what more than
    one rule needs is derived once, on first use."""

    result: xr.Dataset
    arrays: ScenarioArrays
    admitted: np.ndarray  # u_i
    vendor: np.ndarray  # the n with z_in = 1, or -1
    payment: np.ndarray  # p_i
    ct: np.ndarray  # the x_ikt = 1 cells: task i, node k, slot t
    ck: np.ndarray
    cs: np.ndarray
    reason: np.ndarray

    @cached_property
    def start(self) -> np.ndarray:
        """Each task's first slot: its arrival plus its vendor's delay (4c)."""
        delay = np.zeros(self.arrays.n_tasks, dtype=np.int64)
        chose = np.flatnonzero(self.vendor >= 0)
        delay[chose] = self.arrays.vendor_delay[chose, self.vendor[chose]]
        return self.arrays.arrival + delay

    @cached_property
    def usage(self) -> tuple[np.ndarray, np.ndarray]:
        """(compute, memory) per (node, slot) of the cells: the sums of (4f), (4g)."""
        return _usage(self.arrays, self.ct, self.ck, self.cs)

    @cached_property
    def accounting(self) -> dict:
        """Eqs. (1)-(3) from the decisions."""
        return accounting(self.arrays, self.admitted, self.vendor, self.payment, self.ct,
                          self.ck, self.cs)


def _context(result: xr.Dataset) -> _Context:
    return _Context(result=result, arrays=to_arrays(result, validate=True),
                    admitted=result["admitted"].values.astype(bool),
                    vendor=result["chosen_vendor"].values.astype(np.int64),
                    payment=result["payment"].values.astype(float),
                    ct=result["cell_task"].values.astype(np.int64),
                    ck=result["cell_node"].values.astype(np.int64),
                    cs=result["cell_slot"].values.astype(np.int64),
                    reason=result["reason"].values.astype(str))


def _reasons_known(c: _Context) -> None:
    reasons = set(np.unique(c.reason))
    _require(reasons <= set(REASONS), f"unknown reasons {sorted(reasons - set(REASONS))}")


def _reason_matches_admitted(c: _Context) -> None:
    bad = np.flatnonzero(c.admitted != (c.reason == "admitted"))
    _require(bad.size == 0, f"task {_first(bad)}: reason disagrees with admitted")


def _in_range(name: str, arr: np.ndarray, hi: int) -> None:
    out = np.flatnonzero((arr < 0) | (arr >= hi))
    _require(out.size == 0, f"{name} out of range at cell {_first(out)}")


def _cell_task_in_range(c: _Context) -> None:  # i of x_ikt is a task
    _in_range("cell_task", c.ct, c.arrays.n_tasks)


def _cell_node_in_range(c: _Context) -> None:  # k of x_ikt is a node
    _in_range("cell_node", c.ck, c.arrays.n_nodes)


def _cell_slot_in_range(c: _Context) -> None:  # t of x_ikt is a slot
    _in_range("cell_slot", c.cs, c.arrays.n_slots)


def _vendor_when_needed(c: _Context) -> None:  # (4a)
    miss = np.flatnonzero(c.admitted & c.arrays.needs_preprocessing & (c.vendor < 0))
    _require(miss.size == 0, f"(4a) task {_first(miss)}: admitted, needs pre-processing, no vendor")


def _no_vendor_when_rejected(c: _Context) -> None:  # (4a): a vendor without need only if admitted
    stray = np.flatnonzero(~c.admitted & (c.vendor >= 0))
    _require(stray.size == 0, f"(4a) task {_first(stray)}: rejected but has a vendor")


def _vendor_in_range(c: _Context) -> None:  # (4a): n is a vendor
    _require((c.vendor < c.arrays.n_vendors).all(), "chosen_vendor out of range")


def _cells_of_admitted(c: _Context) -> None:  # x_ikt <= u_i
    orphan = np.flatnonzero(~c.admitted[c.ct])
    if orphan.size:
        k = orphan[0]
        _require(False, f"cell {k}: task {c.ct[k]} is not admitted")


def _after_arrival_and_delay(c: _Context) -> None:  # (4c)
    early = np.flatnonzero(c.cs < c.start[c.ct])
    if early.size:
        k = early[0]
        _require(False, f"(4c) task {c.ct[k]} runs in slot {c.cs[k]} before its arrival plus "
                 f"vendor delay ({c.start[c.ct[k]]})")


def _before_deadline(c: _Context) -> None:  # (4d)
    late = np.flatnonzero(c.cs > c.arrays.deadline[c.ct])
    if late.size:
        k = late[0]
        _require(False, f"(4d) task {c.ct[k]} runs in slot {c.cs[k]} after its deadline "
                 f"{c.arrays.deadline[c.ct[k]]}")


def _cells_with_speed(c: _Context) -> None:  # s_ik > 0 where x_ikt = 1
    zero = np.flatnonzero(c.arrays.speed[c.ct, c.ck] <= 0)
    if zero.size:
        k = zero[0]
        _require(False, f"task {c.ct[k]} placed on node {c.ck[k]} with speed 0")


def _one_node_per_slot(c: _Context) -> None:  # (4b)
    T = c.arrays.n_slots
    uniq, counts = np.unique(c.ct * T + c.cs, return_counts=True)
    dup = uniq[counts > 1]
    if dup.size:
        _require(False, f"(4b) task {dup[0] // T} uses several nodes in slot {dup[0] % T}")


def _work_delivered(c: _Context) -> None:  # (4e)
    got = np.zeros(c.arrays.n_tasks, dtype=np.int64)
    np.add.at(got, c.ct, c.arrays.speed[c.ct, c.ck])
    short = np.flatnonzero(c.admitted & (got < c.arrays.work))
    if short.size:
        i = short[0]
        _require(False, f"(4e) task {i} gets {got[i]} samples of {c.arrays.work[i]}")


def _compute_capacity(c: _Context) -> None:  # (4f)
    compute = c.usage[0]
    over = np.argwhere(compute > c.arrays.compute_capacity[:, None])
    if over.size:
        k, t = over[0]
        _require(False, f"(4f) node {k} slot {t}: compute {compute[k, t]} over capacity "
                 f"{c.arrays.compute_capacity[k]}")


def _memory_capacity(c: _Context) -> None:  # (4g)
    memory, usable = c.usage[1], c.arrays.usable_memory
    over = np.argwhere(memory > usable[:, None] + MEMORY_TOLERANCE)
    if over.size:
        k, t = over[0]
        _require(False, f"(4g) node {k} slot {t}: memory {memory[k, t]:g} GB over capacity "
                 f"{usable[k]:g} GB (with the base model)")


def _compute_used_from_cells(c: _Context) -> None:  # sum_i s_ik x_ikt, as stored
    if "compute_used" in c.result:
        _require(np.array_equal(c.result["compute_used"].values, c.usage[0]),
                 "compute_used disagrees with the cells")


def _memory_used_from_cells(c: _Context) -> None:  # sum_i r_i x_ikt, stored with compute_used
    if "compute_used" in c.result:
        _require(np.allclose(c.result["memory_used"].values, c.usage[1]),
                 "memory_used disagrees with the cells")


def _rejected_pay_nothing(c: _Context) -> None:  # p_i = 0 where u_i = 0
    paid = np.flatnonzero(~c.admitted & (c.payment != 0))
    if paid.size:
        i = paid[0]
        _require(False, f"task {i} is rejected but pays {c.payment[i]}")


def _payments_finite(c: _Context) -> None:  # p_i >= 0
    _require(np.isfinite(c.payment).all() and (c.payment >= -RTOL).all(),
             "payments must be finite and non-negative")


def _individually_rational(c: _Context) -> None:  # IR: p_i <= b_i
    bid = c.arrays.bid
    ir = np.flatnonzero(c.admitted & (c.payment > bid * (1 + RTOL) + RTOL))
    if ir.size:
        i = ir[0]
        _require(False, f"IR: task {i} pays {c.payment[i]} above its bid {bid[i]}")


def _accounting_attrs(c: _Context) -> None:  # eqs. (1)-(3), as stored
    for key, value in c.accounting.items():
        if key in c.result.attrs:
            _require(np.isclose(float(c.result.attrs[key]), value, rtol=1e-9, atol=1e-9),
                     f"attribute {key} = {c.result.attrs[key]} but the decisions give {value}")


def _welfare_is_both_utilities(c: _Context) -> None:  # (3) = (1) + (2)
    acc = c.accounting
    _require(np.isclose(acc["welfare"], acc["user_utility"] + acc["provider_utility"],
                        rtol=1e-9, atol=1e-9), "welfare != user utility + provider utility")


#: the rules of :func:`check_result`, in the order it checks them
RULES = (
    Rule("reasons known", _reasons_known),
    Rule("reason matches admitted", _reason_matches_admitted),
    Rule("cell_task in range", _cell_task_in_range, guard=True),
    Rule("cell_node in range", _cell_node_in_range, guard=True),
    Rule("cell_slot in range", _cell_slot_in_range, guard=True),
    Rule("(4a) vendor when needed", _vendor_when_needed),
    Rule("(4a) no vendor when rejected", _no_vendor_when_rejected),
    Rule("chosen_vendor in range", _vendor_in_range, guard=True),
    Rule("cells of admitted tasks", _cells_of_admitted),
    Rule("(4c) after arrival and vendor delay", _after_arrival_and_delay),
    Rule("(4d) by the deadline", _before_deadline),
    Rule("cells on nodes with speed", _cells_with_speed),
    Rule("(4b) one node per task and slot", _one_node_per_slot),
    Rule("(4e) work delivered", _work_delivered),
    Rule("(4f) compute capacity", _compute_capacity),
    Rule("(4g) memory capacity", _memory_capacity),
    Rule("compute_used from the cells", _compute_used_from_cells),
    Rule("memory_used from the cells", _memory_used_from_cells),
    Rule("rejected tasks pay nothing", _rejected_pay_nothing),
    Rule("payments finite and non-negative", _payments_finite),
    Rule("IR: payment at most the bid", _individually_rational, option="individually_rational"),
    Rule("accounting attributes (eqs. 1-3)", _accounting_attrs),
    Rule("(3) welfare = user + provider utility", _welfare_is_both_utilities),
)


def check_result(result: xr.Dataset, *, individually_rational: bool = True) -> None:
    """Validate a pdFTSP result dataset against the model.

    Runs the rules of :data:`RULES` in order; the first one the result breaks raises (its
    name is the error's ``rule`` attribute). The rules: ``reasons known``, ``reason matches
    admitted``, ``cell_task in range``, ``cell_node in range``, ``cell_slot in range``,
    ``(4a) vendor when needed``, ``(4a) no vendor when rejected``, ``chosen_vendor in
    range``, ``cells of admitted tasks``, ``(4c) after arrival and vendor delay``, ``(4d) by
    the deadline``, ``cells on nodes with speed``, ``(4b) one node per task and slot``,
    ``(4e) work delivered``, ``(4f) compute capacity``, ``(4g) memory capacity``,
    ``compute_used from the cells``, ``memory_used from the cells``, ``rejected tasks pay
    nothing``, ``payments finite and non-negative``, ``IR: payment at most the bid``,
    ``accounting attributes (eqs. 1-3)``, ``(3) welfare = user + provider utility``.

    Parameters
    ----------
    result : xarray.Dataset
        A result of :func:`assemble` (a scenario plus decisions, usage and accounting).
    individually_rational : bool
        Check ``IR: payment at most the bid``; false for payment rules that may charge
        above the bid.

    Raises
    ------
    ResultError
        Naming the constraint (eq. number), the task, node or slot, and the values.
    lorasched.InputError
        If the scenario part of ``result`` is invalid.
    """
    rules.check(RULES, _context(result), individually_rational=individually_rational)


def broken_rules(result: xr.Dataset, *, individually_rational: bool = True) -> list[str]:
    """The names of every rule of :data:`RULES` that ``result`` breaks, in order (none after
    a broken range rule: the later rules index with the ranges)."""
    return rules.broken(RULES, _context(result), individually_rational=individually_rational)
