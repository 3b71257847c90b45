"""Algorithm 1: the online primal-dual auction, as one explicit state object.

:class:`OnlineAuction` holds the dual prices ``lam[k, t]`` (lambda, compute, money per
sample) and ``phi[k, t]`` (memory, money per GB per slot) and the residual capacities.
Tasks are offered in arrival order; for each, :meth:`OnlineAuction.offer` runs Algorithm 2
(:func:`lorasched.pdftsp.schedule.schedule`), admits the task iff ``F(il) > 0`` (eq. 11:
mu_i = max(0, F)), charges the payment, and updates the duals by eqs. (7) and (8).

Payments
--------
``payment="critical"`` (default) charges the threshold bid
(:attr:`lorasched.pdftsp.schedule.Schedule.critical_bid`) ``b_i - F(il)
= q_in* + lam_hat * sum s + phi_hat * sum r + sum e``: the smallest bid at which the task,
everything else fixed, would still win. Algorithm 2's schedule does not depend on the bid,
so admission is "bid > critical bid" and the price is independent of the bid: the auction
is truthful and individually rational (Myerson).

``payment="paper"`` charges eq. (14) (:func:`payment_paper`),
``q_in* + lam_hat * sum s + phi_hat * sum r``, which
leaves out the operating cost ``sum e_ikt``. When ``e > 0`` a bidder whose value lies in
``(p14, p14 + sum e]`` loses by bidding truthfully (F <= 0) but wins with positive utility
by overbidding, so the paper's payment is not truthful; it is kept for comparison.

alpha and beta
--------------
Lemma 2 sets ``alpha = max_i b_i / M_i`` and ``beta = max_i b_i / r_i`` in money units in
which ``b_bar_il >= 1``. Neither maximum is known online. lorasched takes them from
declared bounds ``v_min <= b_i / M_i <= v_max`` on value density (money per sample;
scenario attributes ``value_density_min``/``value_density_max``, carried by
:class:`~lorasched.pdftsp.scenario.ScenarioArrays`): measuring money in units
of ``v_min`` makes ``b_bar >= 1`` (up to vendor and operating costs) and gives, back in the
scenario's money, ``alpha = v_max / v_min`` in eq. (7) and a compute price of at least
``v_max`` per sample once a cell is full. For memory the lemma's ``b_i / r_i`` is tightened
to ``b_i / (r_i * n_i_min)`` with ``n_i_min = ceil(M_i / max_k s_ik)`` the fewest cells any
schedule of task i uses (the lemma's proof holds verbatim, since F subtracts
``phi_hat * r_i * n``); bounding it with declared numbers gives
``beta = (v_max / v_min) * max_k C_kp / r_min`` (``r_min``: attribute ``task_memory_min``).
:func:`default_alpha_beta` computes them; :class:`OnlineAuction` uses them for whichever of
``alpha``/``beta`` it is not given.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm  # text bar: a widget bar would break plotly in the built book

from . import kernels
from .decisions import CellCollector, Decisions
from .scenario import ScenarioArrays
from .schedule import Schedule, schedule

PAYMENTS = ("critical", "paper")


def payment_paper(s: Schedule, r_i: float) -> float:
    """Eq. (14) for schedule ``s`` of a task with memory ``r_i`` (GB):
    ``q_in* + max-lambda * sum_kt s_ik x_ikt + max-phi * sum_kt r_i x_ikt``, i.e. the critical
    bid (:attr:`Schedule.critical_bid`) less the operating cost ``sum e_ikt x_ikt``."""
    return s.vendor_price + s.lam_hat * s.samples + s.phi_hat * s.n_cells * r_i  # eq. (14)


def declared_bounds(arrays: ScenarioArrays) -> tuple[float, float, float]:
    """The declared ``(v_min, v_max, r_min)`` of a scenario (fields of ``arrays``); where
    any is not declared, the hindsight value over the scenario's tasks, with a warning."""
    declared = (arrays.value_density_min, arrays.value_density_max, arrays.task_memory_min)
    if all(v is not None for v in declared):
        return tuple(float(v) for v in declared)
    density = arrays.bid / arrays.work
    positive = density[density > 0]
    warnings.warn("the scenario declares no value-density bounds (attributes "
                  "value_density_min, value_density_max, task_memory_min); alpha and beta "
                  "are set from the hindsight min/max over its tasks, which an online "
                  "auction could not know", stacklevel=4)
    v_min = float(positive.min()) if positive.size else 1.0
    v_max = float(density.max()) if density.size and density.max() > 0 else 1.0
    r_min = float(arrays.memory[arrays.memory > 0].min()) if (arrays.memory > 0).any() else 1.0
    hindsight = (v_min, v_max, r_min)
    return tuple(h if v is None else float(v) for v, h in zip(declared, hindsight, strict=True))


def default_alpha_beta(arrays: ScenarioArrays) -> tuple[float, float]:
    """alpha and beta of eqs. (7)-(8) from the scenario's declared bounds
    (:func:`declared_bounds`; see the module docstring)."""
    v_min, v_max, r_min = declared_bounds(arrays)
    for name, v in (("value_density_min", v_min), ("value_density_max", v_max),
                    ("task_memory_min", r_min)):
        if not np.isfinite(v) or v <= 0:
            raise ValueError(f"{name} must be a positive number, got {v}")
    if v_max < v_min:
        raise ValueError(f"value_density_max ({v_max}) is below value_density_min ({v_min})")
    alpha = v_max / v_min  # Lemma 2, in units of v_min
    beta = alpha * float(arrays.compute_capacity.max()) / r_min
    return alpha, beta


@dataclass(frozen=True)
class Decision:
    """The auction's answer to one task."""

    task: int
    admitted: bool
    reason: str  # "admitted", "no_feasible_schedule" or "negative_surplus"
    schedule: Schedule
    payment: float  # 0 unless admitted
    b_bar: float  # welfare per unit of resource, used in (7)-(8); 0 unless admitted
    seconds: float  # wall time of the decision (Algorithm 1 + 2)


class OnlineAuction:
    """Algorithm 1's state: dual prices and residual capacities, updated task by task.

    Parameters
    ----------
    arrays : the scenario as :class:`~lorasched.pdftsp.scenario.ScenarioArrays`.
    alpha, beta : the constants of eqs. (7) and (8); ``None`` (default): from the declared
        bounds, :func:`default_alpha_beta`.
    payment : ``"critical"`` (truthful, default) or ``"paper"`` (eq. 14).
    solver : ``"paper"`` DP (default), ``"exact"`` or ``"brute"``, see
        :mod:`lorasched.pdftsp.schedule`.
    work_resolution : R of the work discretisation (:mod:`lorasched.pdftsp.kernels`).
    """

    def __init__(self, arrays: ScenarioArrays, *, alpha: float | None = None,
                 beta: float | None = None, payment: str = "critical", solver: str = "paper",
                 work_resolution: int = 8):
        if payment not in PAYMENTS:
            raise ValueError(f"payment must be one of {PAYMENTS}, got {payment!r}")
        if alpha is None or beta is None:
            default_alpha, default_beta = default_alpha_beta(arrays)
            alpha = default_alpha if alpha is None else alpha
            beta = default_beta if beta is None else beta
        for name, v in (("alpha", alpha), ("beta", beta)):
            if not np.isfinite(v) or v < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {v}")
        self.arrays = arrays
        self.alpha = float(alpha)
        self.beta = float(beta)
        self.payment_rule = payment
        self.solver = solver
        self.work_resolution = int(work_resolution)
        K, T = arrays.n_nodes, arrays.n_slots
        self.lam = np.zeros((K, T))  # lambda^(0) = 0, Algorithm 1 line 1
        self.phi = np.zeros((K, T))
        self.compute_left, self.memory_left = arrays.residual()
        self.usable_memory = arrays.usable_memory  # C_km - r_b
        self.compute_capacity = arrays.compute_capacity.astype(float)

    STATE = ("lam", "phi", "compute_left", "memory_left")

    def snapshot(self) -> dict[str, np.ndarray]:
        """Copies of the mutable state (dual prices and residual capacities)."""
        return {name: getattr(self, name).copy() for name in self.STATE}

    def restore(self, state: dict[str, np.ndarray]) -> None:
        """Put back a state taken by :meth:`snapshot` (copied, so it can be reused)."""
        for name in self.STATE:
            getattr(self, name)[...] = state[name]

    def quote(self, i: int, bid: float | None = None) -> Schedule:
        """Algorithm 2 for task ``i`` against the current state, committing nothing."""
        return schedule(self.arrays, i, self.lam, self.phi, self.compute_left,
                        self.memory_left, bid=bid, solver=self.solver,
                        work_resolution=self.work_resolution)

    def price(self, s: Schedule, i: int) -> float:
        """The payment of task ``i`` if admitted with schedule ``s``."""
        if self.payment_rule == "paper":
            return payment_paper(s, float(self.arrays.memory[i]))
        return s.critical_bid

    def offer(self, i: int, bid: float | None = None) -> Decision:
        """Algorithm 1, lines 2-13, for task ``i`` (optionally with another bid)."""
        start = time.perf_counter()
        s = self.quote(i, bid)
        if not s.feasible:
            return Decision(i, False, "no_feasible_schedule", s, 0.0, 0.0,
                            time.perf_counter() - start)
        if not s.surplus > 0:  # eq. (11): mu_i = max(0, F) = 0 -> reject (line 13)
            return Decision(i, False, "negative_surplus", s, 0.0, 0.0,
                            time.perf_counter() - start)
        r_i = float(self.arrays.memory[i])
        b = float(self.arrays.bid[i] if bid is None else bid)
        b_il = b - s.vendor_price - s.op_cost  # increment of objective (4)
        b_bar = b_il / (s.samples + s.n_cells * r_i)  # b-bar_il under eq. (8)
        kernels.update_duals(self.lam, self.phi, self.compute_left, self.memory_left,
                             s.nodes, s.slots, self.arrays.speed[i], r_i,
                             self.compute_capacity, self.usable_memory,
                             self.alpha, self.beta, b_bar)  # eqs. (7), (8); line 8
        pay = self.price(s, i)  # line 11
        return Decision(i, True, "admitted", s, pay, b_bar, time.perf_counter() - start)


def run(arrays: ScenarioArrays, rng: np.random.Generator, *, alpha: float | None = None,
        beta: float | None = None, payment: str = "critical", solver: str = "paper",
        work_resolution: int = 8, progress: bool = False) -> Decisions:
    """Offer every task, in arrival order, to one :class:`OnlineAuction`.

    ``alpha``/``beta`` default to :func:`default_alpha_beta` of the scenario's declared
    bounds (carried by ``arrays``). pdFTSP draws no random numbers; ``rng`` is accepted for
    the common interface.
    """
    del rng
    auction = OnlineAuction(arrays, alpha=alpha, beta=beta, payment=payment, solver=solver,
                            work_resolution=work_resolution)
    out = Decisions.empty(arrays.n_tasks, arrays.n_nodes, arrays.n_slots)
    cells = CellCollector()
    for i in tqdm(range(arrays.n_tasks), desc="pdftsp", unit="task", disable=not progress):
        d = auction.offer(i)
        out.reason[i] = d.reason
        out.decision_time[i] = d.seconds
        if d.schedule.feasible:
            out.surplus[i] = d.schedule.surplus
        if d.admitted:
            out.admitted[i] = True
            out.chosen_vendor[i] = d.schedule.vendor
            out.payment[i] = d.payment
            cells.add(i, d.schedule.nodes, d.schedule.slots)
    cells.store(out)
    out.lam = auction.lam
    out.phi = auction.phi
    out.attrs = {"alpha": auction.alpha, "beta": auction.beta, "payment_rule": payment,
                 "solver": solver, "work_resolution": int(work_resolution)}
    return out
