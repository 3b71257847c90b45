"""The result Dataset: scenario + decisions + accounting (eqs. 1-3), and its checker.

:func:`assemble` joins a scenario and an algorithm's
:class:`~lorasched.pdftsp.decisions.Decisions` into one ``xarray.Dataset`` and computes the
welfare accounting. :func:`check_result` validates any such dataset against the model's
constraints; every algorithm's output goes through it in the tests.
"""

from __future__ import annotations

import json

import numpy as np
import xarray as xr

from ..model.errors import ResultError
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


def check_result(result: xr.Dataset, *, individually_rational: bool = True) -> None:
    """Validate a result dataset against the model; raise :class:`ResultError` if not.

    Checks: cells only for admitted tasks, inside each task's window after its vendor's
    delay (4c, 4d), on nodes where it has a speed; at most one node per task and slot
    (4b); every admitted task gets at least M_i samples (4e); per (k, t) compute and
    memory capacity (4f, 4g); a vendor exactly for admitted tasks that need one (4a);
    rejected tasks pay nothing, admitted ones at most their bid (IR, unless disabled);
    the stored usage and accounting (eqs. 1-3) agree with the cells.
    """
    arrays = to_arrays(result, validate=True)
    admitted = result["admitted"].values.astype(bool)
    vendor = result["chosen_vendor"].values.astype(np.int64)
    payment = result["payment"].values.astype(float)
    ct = result["cell_task"].values.astype(np.int64)
    ck = result["cell_node"].values.astype(np.int64)
    cs = result["cell_slot"].values.astype(np.int64)
    n_tasks, K, T, N = arrays.n_tasks, arrays.n_nodes, arrays.n_slots, arrays.n_vendors

    reasons = set(np.unique(result["reason"].values.astype(str)))
    _require(reasons <= set(REASONS), f"unknown reasons {sorted(reasons - set(REASONS))}")
    bad = np.flatnonzero(admitted != (result["reason"].values.astype(str) == "admitted"))
    _require(bad.size == 0, f"task {_first(bad)}: reason disagrees with admitted")
    for name, arr, hi in (("cell_task", ct, n_tasks), ("cell_node", ck, K), ("cell_slot", cs, T)):
        out = np.flatnonzero((arr < 0) | (arr >= hi))
        _require(out.size == 0, f"{name} out of range at cell {_first(out)}")

    # (4a): a vendor iff admitted and needs pre-processing (a vendor without need is allowed
    # by (4a) but only if admitted)
    need = arrays.needs_preprocessing
    miss = np.flatnonzero(admitted & need & (vendor < 0))
    _require(miss.size == 0, f"(4a) task {_first(miss)}: admitted, needs pre-processing, no vendor")
    stray = np.flatnonzero(~admitted & (vendor >= 0))
    _require(stray.size == 0, f"(4a) task {_first(stray)}: rejected but has a vendor")
    _require((vendor < N).all(), "chosen_vendor out of range")

    # cells only for admitted tasks, in the window, with positive speed
    orphan = np.flatnonzero(~admitted[ct])
    if orphan.size:
        c = orphan[0]
        _require(False, f"cell {c}: task {ct[c]} is not admitted")
    delay = np.zeros(n_tasks, dtype=np.int64)
    chose = np.flatnonzero(vendor >= 0)
    delay[chose] = arrays.vendor_delay[chose, vendor[chose]]
    start = arrays.arrival + delay
    early = np.flatnonzero(cs < start[ct])
    if early.size:
        c = early[0]
        _require(False, f"(4c) task {ct[c]} runs in slot {cs[c]} before its arrival plus "
                 f"vendor delay ({start[ct[c]]})")
    late = np.flatnonzero(cs > arrays.deadline[ct])
    if late.size:
        c = late[0]
        _require(False, f"(4d) task {ct[c]} runs in slot {cs[c]} after its deadline "
                 f"{arrays.deadline[ct[c]]}")
    zero = np.flatnonzero(arrays.speed[ct, ck] <= 0)
    if zero.size:
        c = zero[0]
        _require(False, f"task {ct[c]} placed on node {ck[c]} with speed 0")

    # (4b): at most one node per task and slot
    key = ct * T + cs
    uniq, counts = np.unique(key, return_counts=True)
    dup = uniq[counts > 1]
    if dup.size:
        _require(False, f"(4b) task {dup[0] // T} uses several nodes in slot {dup[0] % T}")

    # (4e): work delivered
    got = np.zeros(n_tasks, dtype=np.int64)
    np.add.at(got, ct, arrays.speed[ct, ck])
    short = np.flatnonzero(admitted & (got < arrays.work))
    if short.size:
        i = short[0]
        _require(False, f"(4e) task {i} gets {got[i]} samples of {arrays.work[i]}")

    # (4f), (4g): capacities
    compute, memory = _usage(arrays, ct, ck, cs)
    over = np.argwhere(compute > arrays.compute_capacity[:, None])
    if over.size:
        k, t = over[0]
        _require(False, f"(4f) node {k} slot {t}: compute {compute[k, t]} over capacity "
                 f"{arrays.compute_capacity[k]}")
    overm = np.argwhere(memory > arrays.usable_memory[:, None] + MEMORY_TOLERANCE)
    if overm.size:
        k, t = overm[0]
        _require(False, f"(4g) node {k} slot {t}: memory {memory[k, t]:g} GB over capacity "
                 f"{arrays.usable_memory[k]:g} GB (with the base model)")
    if "compute_used" in result:
        _require(np.array_equal(result["compute_used"].values, compute),
                 "compute_used disagrees with the cells")
        _require(np.allclose(result["memory_used"].values, memory),
                 "memory_used disagrees with the cells")

    # payments
    paid = np.flatnonzero(~admitted & (payment != 0))
    if paid.size:
        i = paid[0]
        _require(False, f"task {i} is rejected but pays {payment[i]}")
    _require(np.isfinite(payment).all() and (payment >= -RTOL).all(),
             "payments must be finite and non-negative")
    if individually_rational:
        ir = np.flatnonzero(admitted & (payment > arrays.bid * (1 + RTOL) + RTOL))
        if ir.size:
            i = ir[0]
            _require(False, f"IR: task {i} pays {payment[i]} above its bid {arrays.bid[i]}")

    # accounting
    acc = accounting(arrays, admitted, vendor, payment, ct, ck, cs)
    for key, value in acc.items():
        if key in result.attrs:
            _require(np.isclose(float(result.attrs[key]), value, rtol=1e-9, atol=1e-9),
                     f"attribute {key} = {result.attrs[key]} but the decisions give {value}")
    _require(np.isclose(acc["welfare"], acc["user_utility"] + acc["provider_utility"],
                        rtol=1e-9, atol=1e-9), "welfare != user utility + provider utility")
