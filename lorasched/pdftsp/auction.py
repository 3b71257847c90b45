"""Algorithm 1, the online primal-dual auction, as one state object (:class:`OnlineAuction`):
dual prices, residual capacities, the payment (``"critical"`` or eq. 14's ``"paper"``) and
the constants alpha, beta (:func:`default_alpha_beta`). Algorithm, payments and constants:
:doc:`/algorithm`; the state: :doc:`/reference/pdftsp_online`.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm  # text bar: a widget bar would break plotly in the built book

from ..model.errors import InputError, real_number, whole_number
from . import kernels
from .candidate_index import CandidateIndex
from .decisions import CellCollector, Decisions
from .scenario import ScenarioArrays
from .schedule import Schedule, schedule

PAYMENTS = ("critical", "paper")


def payment_paper(s: Schedule, r_i: float) -> float:
    """The paper's payment (its equation 14) for a schedule of a task.

    ``q_in* + max-lambda * sum_kt s_ik x_ikt + max-phi * sum_kt r_i x_ikt``, i.e. the
    critical bid (:attr:`Schedule.critical_bid <lorasched.pdftsp.schedule.Schedule.critical_bid>`)
    less the operating cost ``sum e_ikt x_ikt``.

    Parameters
    ----------
    s : Schedule
        The task's schedule (Algorithm 2).
    r_i : float
        The task's memory, GB.

    Returns
    -------
    float
        The payment, money.
    """
    return s.vendor_price + s.lam_hat * s.samples + s.phi_hat * s.n_cells * r_i  # eq. (14)


CONSTANTS = ("lemma2", "vmax")
#: the alpha x beta grid that ``lorasched calibrate`` and the book scan by default:
#: log-spaced, spanning the "vmax" rule (1, ~359) and Lemma 2's (4, ~1434) at the
#: defaults, with beta 1 and 3 between 0 and 10 (the small build's calibration chose 0)
ALPHA_GRID = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
BETA_GRID = (0.0, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0)


def declared_bounds(arrays: ScenarioArrays) -> tuple[float, float, float]:
    """The declared bounds alpha and beta are computed from.

    Parameters
    ----------
    arrays : ScenarioArrays
        The scenario; its fields ``value_density_min``, ``value_density_max``,
        ``speed_per_memory_max`` and ``task_memory_min`` are the declared bounds.

    Returns
    -------
    tuple of float
        ``(v_min, v_max, speed_per_memory_max)``; where any is not declared, the
        hindsight value over the scenario's tasks, with a warning. (Without
        ``speed_per_memory_max``, a declared ``task_memory_min`` bounds it by
        ``max_k C_kp / r_min``.)

    Raises
    ------
    InputError
        If the declared ``task_memory_min`` is not a positive number.
    """
    declared = (arrays.value_density_min, arrays.value_density_max,
                arrays.speed_per_memory_max)
    if all(v is not None for v in declared):
        return tuple(float(v) for v in declared)
    if declared[2] is None and arrays.task_memory_min is not None and None not in declared[:2]:
        r_min = float(arrays.task_memory_min)
        if not np.isfinite(r_min) or r_min <= 0:
            raise InputError(f"task_memory_min must be a positive number, got {r_min}")
        return (float(declared[0]), float(declared[1]),
                float(arrays.compute_capacity.max()) / r_min)
    density = arrays.bid / arrays.work
    positive = density[density > 0]
    warnings.warn("the scenario declares no bounds for alpha and beta (attributes "
                  "value_density_min, value_density_max, speed_per_memory_max); they are "
                  "set from the hindsight min/max over its tasks, which an online auction "
                  "could not know", stacklevel=4)
    v_min = float(positive.min()) if positive.size else 1.0
    v_max = float(density.max()) if density.size and density.max() > 0 else 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = arrays.speed.max(axis=1) / arrays.memory if arrays.n_tasks else np.ones(1)
    ratio = ratio[np.isfinite(ratio) & (ratio > 0)]
    hindsight = (v_min, v_max, float(ratio.max()) if ratio.size else 1.0)
    return tuple(h if v is None else float(v) for v, h in zip(declared, hindsight, strict=True))


def default_alpha_beta(arrays: ScenarioArrays, constants: str = "lemma2") -> tuple[float, float]:
    """alpha and beta of equations (7)-(8), by a named rule, from the declared bounds.

    The one place where lorasched computes them (the module docstring derives the rules).

    Parameters
    ----------
    arrays : ScenarioArrays
        The scenario; its declared bounds are read by :func:`declared_bounds`.
    constants : {"lemma2", "vmax"}, optional
        The rule: ``"lemma2"`` (default, the faithful reading: money in units of
        ``v_min``) or ``"vmax"`` (money in units of ``v_max``).

    Returns
    -------
    alpha, beta : float

    Raises
    ------
    InputError
        If ``constants`` is not a rule, a bound is not a positive number, or
        ``value_density_max`` is below ``value_density_min``.
    """
    if constants not in CONSTANTS:
        raise InputError(f"constants must be one of {CONSTANTS}, got {constants!r}")
    v_min, v_max, s_per_r = declared_bounds(arrays)
    for name, v in (("value_density_min", v_min), ("value_density_max", v_max),
                    ("speed_per_memory_max", s_per_r)):
        if not np.isfinite(v) or v <= 0:
            raise InputError(f"{name} must be a positive number, got {v}")
    if v_max < v_min:
        raise InputError(f"value_density_max ({v_max}) is below value_density_min ({v_min})")
    unit = v_min if constants == "lemma2" else v_max  # the money unit that pins eq. (7)
    alpha = v_max / unit  # Lemma 2: max_i b_i / M_i in that unit
    beta = alpha * s_per_r  # Lemma 2, tightened: max_i b_i / (r_i n_i_min) in that unit
    return alpha, beta


@dataclass(slots=True)
class Decision:
    """The auction's answer to one task.

    Parameters
    ----------
    task : int
        The task's index.
    admitted : bool
        Whether it is admitted.
    reason : {"admitted", "no_feasible_schedule", "negative_surplus"}
        Why.
    schedule : Schedule
        Algorithm 2's schedule (infeasible when no schedule exists).
    payment : float
        The payment, 0 unless admitted.
    b_bar : float
        Welfare per unit of resource, used in (7)-(8); 0 unless admitted.
    seconds : float
        Wall time of the decision (Algorithm 1 + 2).
    """

    task: int
    admitted: bool
    reason: str  # "admitted", "no_feasible_schedule" or "negative_surplus"
    schedule: Schedule
    payment: float  # 0 unless admitted
    b_bar: float  # welfare per unit of resource, used in (7)-(8); 0 unless admitted
    seconds: float  # wall time of the decision (Algorithm 1 + 2)


class OnlineAuction:
    """Algorithm 1's state: dual prices and residual capacities, updated task by task.

    Holds the dual prices ``lam[k, t]`` (lambda, compute, money per sample) and
    ``phi[k, t]`` (memory, money per GB per slot) and the residual capacities. Tasks are
    offered in arrival order with :meth:`offer`.

    Parameters
    ----------
    arrays : ScenarioArrays
        The scenario.
    alpha, beta : float, optional
        The constants of eqs. (7) and (8); ``None`` (default): by the rule ``constants``,
        :func:`default_alpha_beta`.
    constants : {"lemma2", "vmax"}, optional
        The rule for alpha and beta (default ``"lemma2"``; the module docstring).
    payment : {"critical", "paper"}, optional
        ``"critical"`` (truthful, default) or ``"paper"`` (eq. 14, :func:`payment_paper`).
    solver : {"paper", "exact", "brute"}, optional
        The solver of problem (12): the paper's DP (default), exact or brute force
        (:func:`~lorasched.pdftsp.schedule.schedule`).
    work_resolution : int, optional
        R of the work discretisation (default 8; ``lorasched.pdftsp.kernels``).
    candidates : {"auto", "index", "scan"}, optional
        How Algorithm 2 finds its candidate cells: ``"auto"`` (default: the exact index of
        ``lorasched.pdftsp.candidate_index`` when the cluster's nodes fall into few groups of
        interchangeable nodes, else the scan), ``"index"`` or ``"scan"`` (every cell of
        the window read). Every choice gives the same decisions.

    Raises
    ------
    InputError
        Naming the first option out of its choices or range, or a declared bound alpha and
        beta cannot be computed from.
    """

    def __init__(self, arrays: ScenarioArrays, *, alpha: float | None = None,
                 beta: float | None = None, constants: str = "lemma2",
                 payment: str = "critical", solver: str = "paper", work_resolution: int = 8,
                 candidates: str = "auto"):
        if payment not in PAYMENTS:
            raise InputError(f"payment must be one of {PAYMENTS}, got {payment!r}")
        if constants not in CONSTANTS:
            raise InputError(f"constants must be one of {CONSTANTS}, got {constants!r}")
        self.constants = constants if alpha is None and beta is None else "explicit"
        if alpha is None or beta is None:
            default_alpha, default_beta = default_alpha_beta(arrays, constants)
            alpha = default_alpha if alpha is None else alpha
            beta = default_beta if beta is None else beta
        alpha = real_number("alpha", alpha, low=0.0)
        beta = real_number("beta", beta, low=0.0)
        self.arrays = arrays
        self.alpha = float(alpha)
        self.beta = float(beta)
        self.payment_rule = payment
        self.solver = solver
        self.work_resolution = whole_number("work_resolution", work_resolution, low=1)
        K, T = arrays.n_nodes, arrays.n_slots
        self.lam = np.zeros((K, T))  # lambda^(0) = 0, Algorithm 1 line 1
        self.phi = np.zeros((K, T))
        self.compute_left, self.memory_left = arrays.residual()
        self.usable_memory = arrays.usable_memory  # C_km - r_b
        self.compute_capacity = arrays.compute_capacity.astype(float)
        self.index = CandidateIndex(arrays, self.lam, self.phi, self.compute_left,
                                    self.memory_left, method=candidates)

    STATE = ("lam", "phi", "compute_left", "memory_left")

    def snapshot(self) -> dict[str, np.ndarray]:
        """Copies of the mutable state, for :meth:`restore`.

        Returns
        -------
        dict
            Name -> a copy of the array: the dual prices and residual capacities, and the
            candidate index's arrays.
        """
        state = {name: getattr(self, name).copy() for name in self.STATE}
        state.update({f"index_{name}": getattr(self.index, name).copy()
                      for name in CandidateIndex.STATE})
        return state

    def restore(self, state: dict[str, np.ndarray]) -> None:
        """Put back a state taken by :meth:`snapshot`.

        Parameters
        ----------
        state : dict
            As :meth:`snapshot` returns it; copied in, so it can be reused. A state
            without the index's arrays has the index rebuilt from it.
        """
        for name in self.STATE:
            getattr(self, name)[...] = state[name]
        if all(f"index_{name}" in state for name in CandidateIndex.STATE):
            for name in CandidateIndex.STATE:
                getattr(self.index, name)[...] = state[f"index_{name}"]
        else:
            self.index.build()

    def quote(self, i: int, bid: float | None = None, *,
              speed_i: np.ndarray | None = None) -> Schedule:
        """Algorithm 2 for task ``i`` against the current state, committing nothing.

        Parameters
        ----------
        i : int
            The task's index in the scenario.
        bid : float, optional
            Another bid than the task's own (only the surplus depends on it).
        speed_i : numpy.ndarray, optional
            The task's per-node speeds, if at hand.

        Returns
        -------
        Schedule
        """
        return schedule(self.arrays, i, self.lam, self.phi, self.compute_left,
                        self.memory_left, bid=bid, solver=self.solver,
                        work_resolution=self.work_resolution, index=self.index,
                        speed_i=speed_i)

    def price(self, s: Schedule, i: int) -> float:
        """The payment of task ``i`` if admitted with schedule ``s``.

        Parameters
        ----------
        s : Schedule
            The task's schedule.
        i : int
            The task's index.

        Returns
        -------
        float
            The critical bid, or eq. (14) under ``payment="paper"``.
        """
        if self.payment_rule == "paper":
            return payment_paper(s, float(self.arrays.memory[i]))
        return s.critical_bid

    def decide(self, i: int, bid: float | None = None) -> Decision:
        """Algorithm 1, lines 2-7 and 9-13, for task ``i``, committing nothing.

        What :meth:`offer` would decide; :meth:`commit` applies it.

        Parameters
        ----------
        i : int
            The task's index in the scenario.
        bid : float, optional
            Another bid than the task's own.

        Returns
        -------
        Decision
        """
        start = time.perf_counter()
        s = self.quote(i, bid, speed_i=self.arrays.speed[i])
        if not s.feasible:
            return Decision(i, False, "no_feasible_schedule", s, 0.0, 0.0,
                            time.perf_counter() - start)
        if not s.surplus > 0:  # eq. (11): mu_i = max(0, F) = 0 -> reject (line 13)
            return Decision(i, False, "negative_surplus", s, 0.0, 0.0,
                            time.perf_counter() - start)
        d = self.admission(i, s, bid)
        d.seconds = time.perf_counter() - start
        return d

    def admission(self, i: int, s: Schedule, bid: float | None = None) -> Decision:
        """Algorithm 1, lines 9-11: task ``i`` admitted with schedule ``s``, committing nothing.

        The payment and the ``b_bar`` of eqs. (7)-(8) that :meth:`commit` applies, whatever
        the surplus (:meth:`decide` asks for it only when ``F(il) > 0``).

        Parameters
        ----------
        i : int
            The task's index in the scenario.
        s : Schedule
            A feasible schedule of the task, as :meth:`quote` returns it.
        bid : float, optional
            Another bid than the task's own.

        Returns
        -------
        Decision
            Admitted, with the payment of :meth:`price`; its ``seconds`` are 0.

        Raises
        ------
        InputError
            If ``s`` is not feasible.
        """
        if not s.feasible:
            raise InputError(f"task {i}: an infeasible schedule (vendor {s.vendor}) cannot "
                             "be admitted")
        r_i = float(self.arrays.memory[i])
        b = float(self.arrays.bid[i] if bid is None else bid)
        b_il = b - s.vendor_price - s.op_cost  # increment of objective (4)
        b_bar = b_il / (s.samples + s.n_cells * r_i)  # b-bar_il under eq. (8)
        pay = self.price(s, i)  # line 11
        return Decision(i, True, "admitted", s, pay, b_bar, 0.0)

    def commit(self, d: Decision) -> None:
        """Algorithm 1, line 8: apply a decision to the dual prices and residual capacities.

        Parameters
        ----------
        d : Decision
            A decision of :meth:`decide`, taken against the current state; a rejection
            changes nothing.
        """
        if not d.admitted:
            return
        s = d.schedule
        before = self.index.capture(s.nodes, s.slots)
        kernels.update_duals(self.lam, self.phi, self.compute_left, self.memory_left,
                             s.nodes, s.slots, self.arrays.speed[d.task],
                             float(self.arrays.memory[d.task]),
                             self.compute_capacity, self.usable_memory,
                             self.alpha, self.beta, d.b_bar)  # eqs. (7), (8); line 8
        self.index.commit(s.nodes, s.slots, before)

    def offer(self, i: int, bid: float | None = None) -> Decision:
        """Algorithm 1, lines 2-13, for task ``i``: :meth:`decide`, then :meth:`commit`.

        Parameters
        ----------
        i : int
            The task's index in the scenario.
        bid : float, optional
            Another bid than the task's own.

        Returns
        -------
        Decision
            Its ``seconds`` cover both steps.
        """
        start = time.perf_counter()
        d = self.decide(i, bid)
        self.commit(d)
        d.seconds = time.perf_counter() - start
        return d

def run(arrays: ScenarioArrays, rng: np.random.Generator, *, alpha: float | None = None,
        beta: float | None = None, constants: str = "lemma2", payment: str = "critical",
        solver: str = "paper", work_resolution: int = 8, candidates: str = "auto",
        progress: bool = False) -> Decisions:
    """The policy ``pdftsp``: offer every task, in arrival order, to one auction.

    The auction is one :class:`OnlineAuction`.

    Parameters
    ----------
    arrays : ScenarioArrays
        The scenario.
    rng : numpy.random.Generator
        Accepted for the common interface; pdFTSP draws no random numbers.
    alpha, beta, constants, payment, solver, work_resolution, candidates
        As for :class:`OnlineAuction`; ``alpha``/``beta`` default to
        :func:`default_alpha_beta` of the scenario's declared bounds (carried by
        ``arrays``) by the rule ``constants``.
    progress : bool, optional
        Show a progress bar (default False).

    Returns
    -------
    Decisions
        Every task's decision, the final dual prices and the auction's settings in
        ``attrs``.
    """
    del rng
    auction = OnlineAuction(arrays, alpha=alpha, beta=beta, constants=constants,
                            payment=payment, solver=solver, work_resolution=work_resolution,
                            candidates=candidates)
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
    out.attrs = {"alpha": auction.alpha, "beta": auction.beta,
                 "constants": auction.constants, "payment_rule": payment,
                 "solver": solver, "work_resolution": int(work_resolution),
                 "candidates": auction.index.method,
                 "candidates_reason": auction.index.reason}
    return out
