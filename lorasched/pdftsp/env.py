"""pdFTSP's online admission as a decision problem, one step per arriving task
(:class:`AdmissionProblem`): the task and the dual prices over its window to observe,
reject / admit at the mechanism's payment / admit at the posted price to choose, the
provider's utility or the social welfare to earn; and the policy ``random`` on it
(:func:`random_policy`). The prices move as Algorithm 1's, through
:class:`~lorasched.pdftsp.auction.OnlineAuction`.
"""

from __future__ import annotations

import time

import numpy as np

from ..model.errors import InputError
from .auction import OnlineAuction
from .decisions import CellCollector, Decisions
from .scenario import ScenarioArrays
from .schedule import SOLVERS, Schedule

#: The actions by number (0 reject; 1 admit at Algorithm 2's schedule, charging the
#: auction's payment; 2 admit at that schedule, charging the posted price,
#: :func:`posted_price`).
ACTIONS = ("reject", "admit", "posted")
#: What a step earns (the increment of the provider's utility, eq. (2), or of the social
#: welfare, eq. (3)).
REWARDS = ("provider", "welfare")
#: the entries of the observation's ``task`` vector, in order
TASK_FEATURES = ("bid", "work", "memory", "arrival", "deadline", "needs_preprocessing")
#: the entries of the observation's ``quote`` vector (Algorithm 2's schedule at the current
#: prices; all 0 but ``vendor`` = -2 when the task has no feasible schedule), in order
QUOTE_FEATURES = ("feasible", "vendor", "surplus", "payment", "posted_price", "welfare",
                  "vendor_price", "op_cost", "lam_hat", "phi_hat", "samples", "n_cells")


def posted_price(auction: OnlineAuction, i: int, s: Schedule) -> float:
    """The posted price of task ``i`` on schedule ``s``: its cells at the dual prices.

    ``q_in* + sum e_ikt x_ikt + sum_(k,t in l) (lambda_kt s_ik + phi_kt r_i)``: the vendor
    and the operating cost passed on, and each cell's compute and memory at its own shadow
    price (the sum eq. (11) bounds ``mu_i`` with), where eq. (14) charges every cell at the
    schedule's highest. Never above the critical bid.

    Parameters
    ----------
    auction : lorasched.pdftsp.auction.OnlineAuction
        The auction, at the prices the schedule was quoted at.
    i : int
        The task's index.
    s : Schedule
        A feasible schedule of the task.

    Returns
    -------
    float
        The price, money.

    Raises
    ------
    InputError
        If ``s`` is not feasible.
    """
    if not s.feasible:
        raise InputError(f"task {i}: an infeasible schedule has no posted price")
    speed = auction.arrays.speed[i][s.nodes].astype(float)
    r_i = float(auction.arrays.memory[i])
    dual = float((auction.lam[s.nodes, s.slots] * speed).sum()
                 + (auction.phi[s.nodes, s.slots] * r_i).sum())  # sum s lambda + r phi, eq. (11)
    return s.vendor_price + s.op_cost + dual


class AdmissionProblem:
    """pdFTSP's online admission, one task at a time, in arrival order.

    Each step offers the next task. The observation (:meth:`observe`) is the task, the dual
    prices and residual capacities over its window and Algorithm 2's schedule at those
    prices. The action (:data:`ACTIONS`): 0 rejects; 1 admits at that schedule, charging
    the auction's payment (the critical bid or eq. (14), the option ``payment``); 2 admits
    at that schedule, charging :func:`posted_price`. An admission commits the schedule
    exactly as Algorithm 1 does (eqs. (7)-(8), :meth:`OnlineAuction.commit
    <lorasched.pdftsp.auction.OnlineAuction.commit>`). The auction itself admits a task
    (action 1) iff ``F(il) > 0``, else rejects (action 0).

    Parameters
    ----------
    arrays : ScenarioArrays
        The scenario.
    rng : numpy.random.Generator
        Accepted for the common interface; the problem draws no random numbers.
    reward : {"provider", "welfare"}, optional
        What a step earns (:data:`REWARDS`): an admission's payment less its vendor and
        operating cost (eq. 2, default), or its bid less those costs (eq. 3); 0 on a
        rejection. Over an episode the rewards sum to the result's ``provider_utility``
        or ``welfare``.
    alpha, beta, constants, payment, solver, work_resolution, candidates
        The auction's options, as for
        :class:`~lorasched.pdftsp.auction.OnlineAuction`.

    Raises
    ------
    InputError
        If ``reward`` or an auction option is out of its choices or range.

    Notes
    -----
    An admission is valid when the task has a feasible schedule and its bid covers the
    price charged (individual rationality) and the schedule's vendor and operating cost
    (``b_il >= 0``, so that eqs. (7)-(8) never lower a price); with the critical payment,
    action 1 is valid iff ``F(il) >= 0``. Whenever the auction would admit, every action
    is valid. :meth:`valid_actions` is the mask; :meth:`step` refuses an invalid action.
    """

    def __init__(self, arrays: ScenarioArrays, rng: np.random.Generator, *,
                 reward: str = "provider", alpha: float | None = None,
                 beta: float | None = None, constants: str = "lemma2",
                 payment: str = "critical", solver: str = "paper", work_resolution: int = 8,
                 candidates: str = "auto"):
        del rng
        if reward not in REWARDS:
            raise InputError(f"reward must be one of {REWARDS}, got {reward!r}")
        if solver not in SOLVERS:
            raise InputError(f"solver must be one of {SOLVERS}, got {solver!r}")
        self.arrays = arrays
        self.reward = reward
        self.auction = OnlineAuction(arrays, alpha=alpha, beta=beta, constants=constants,
                                     payment=payment, solver=solver,
                                     work_resolution=work_resolution, candidates=candidates)
        self.task = 0  # the task offered now; n_tasks once every task is decided
        self._out = Decisions.empty(arrays.n_tasks, arrays.n_nodes, arrays.n_slots)
        self._cells = CellCollector()
        self._quote()

    # ------------------------------------------------------------------ the task offered

    def _quote(self) -> None:
        """Algorithm 2 for the task offered now, and what each action would do."""
        self._verdict = self._admit = None
        self._posted = 0.0
        self._mask = np.zeros(len(ACTIONS), dtype=bool)
        if self.done:
            return
        i = self.task
        self._verdict = self.auction.decide(i)  # Algorithm 1, lines 2-7 and 9-13
        s = self._verdict.schedule
        self._mask[0] = True
        if s.feasible:
            bid = float(self.arrays.bid[i])
            self._admit = self.auction.admission(i, s)  # lines 9-11, whatever F(il)
            self._posted = posted_price(self.auction, i, s)
            covered = self._admit.b_bar >= 0  # b_il >= 0: eqs. (7)-(8) lower no price
            admits = self._verdict.admitted  # F(il) > 0: both prices are below the bid
            self._mask[1] = admits or (covered and self._admit.payment <= bid)
            self._mask[2] = admits or (covered and self._posted <= bid)

    @property
    def done(self) -> bool:
        """Whether every task has been decided."""
        return self.task >= self.arrays.n_tasks

    def valid_actions(self) -> np.ndarray:
        """The action mask of the task offered now.

        Returns
        -------
        numpy.ndarray
            bool[3], indexed by action (:data:`ACTIONS`); all False once :attr:`done`.
        """
        return self._mask.copy()

    def expert_action(self) -> int:
        """The auction's own action for the task offered now.

        Returns
        -------
        int
            1 where Algorithm 1 admits it (``F(il) > 0``), else 0.

        Raises
        ------
        InputError
            If every task has been decided.
        """
        if self.done:
            raise InputError("the episode is over: every task has been decided")
        return int(self._verdict.admitted)

    def observe(self) -> dict[str, np.ndarray]:
        """The task offered now and the state over its window.

        Column ``j`` of the ``[K, T]`` arrays is slot ``a_i + j`` (arrival-aligned, so a
        column means the same lead time for every task, and T columns hold any window);
        columns past the deadline are 0, as ``window`` marks. Once :attr:`done`, every
        array is 0.

        Returns
        -------
        dict
            ``task`` (float64[6], :data:`TASK_FEATURES`), ``speed`` (float64[K], ``s_ik``),
            ``vendor_price``, ``vendor_delay`` (float64[N], ``q_in``, ``h_in``), ``lam``,
            ``phi`` (float64[K, T], the dual prices), ``compute_left``, ``memory_left``
            (float64[K, T], the residual capacities), ``window`` (int8[T], 1 for slots
            ``a_i .. d_i``), ``quote`` (float64[12], :data:`QUOTE_FEATURES`) and
            ``action_mask`` (int8[3], :meth:`valid_actions`).
        """
        a = self.arrays
        K, T, N = a.n_nodes, a.n_slots, a.n_vendors
        obs = {"task": np.zeros(len(TASK_FEATURES)), "speed": np.zeros(K),
               "vendor_price": np.zeros(N), "vendor_delay": np.zeros(N),
               **{name: np.zeros((K, T)) for name in ("lam", "phi", "compute_left",
                                                      "memory_left")},
               "window": np.zeros(T, dtype=np.int8), "quote": np.zeros(len(QUOTE_FEATURES)),
               "action_mask": self._mask.astype(np.int8)}
        if self.done:
            return obs
        i = self.task
        start, end = int(a.arrival[i]), int(a.deadline[i])
        width = end - start + 1
        obs["task"][:] = (a.bid[i], a.work[i], a.memory[i], start, end,
                          a.needs_preprocessing[i])
        obs["speed"][:] = a.speed[i]
        obs["vendor_price"][:] = a.vendor_price[i]
        obs["vendor_delay"][:] = a.vendor_delay[i]
        state = self.auction
        for name in ("lam", "phi", "compute_left", "memory_left"):
            obs[name][:, :width] = getattr(state, name)[:, start:end + 1]
        obs["window"][:width] = 1
        s = self._verdict.schedule
        if s.feasible:
            obs["quote"][:] = (1.0, s.vendor, s.surplus, self._admit.payment, self._posted,
                               a.bid[i] - s.vendor_price - s.op_cost, s.vendor_price,
                               s.op_cost, s.lam_hat, s.phi_hat, s.samples, s.n_cells)
        else:
            obs["quote"][1] = s.vendor
        return obs

    # ------------------------------------------------------------------ the decision

    def step(self, action) -> tuple[float, bool]:
        """Decide the task offered now and offer the next.

        Parameters
        ----------
        action : int
            0, 1 or 2 (:data:`ACTIONS`), valid by :meth:`valid_actions`.

        Returns
        -------
        reward : float
            The increment of eq. (2) or (3) (the option ``reward``); 0 on a rejection.
        done : bool
            Whether every task has now been decided.

        Raises
        ------
        InputError
            If the episode is over, ``action`` is not one of the three, or it is not valid
            for this task (naming why).
        """
        if self.done:
            raise InputError("the episode is over: every task has been decided")
        if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer) \
                or not 0 <= action < len(ACTIONS):
            raise InputError(f"action must be 0 (reject), 1 (admit) or 2 (posted), got "
                             f"{action!r}")
        action = int(action)
        i = self.task
        if not self._mask[action]:
            raise InputError(f"action {action} ({ACTIONS[action]}) is not valid for task "
                             f"{i}: {self._why_not(action)}")
        start = time.perf_counter()
        d, out = self._verdict, self._out
        s = d.schedule
        if s.feasible:
            out.surplus[i] = s.surplus
        reward = 0.0
        if action == 0:
            out.reason[i] = d.reason if not d.admitted else "not_selected"
        else:
            admit = self._admit
            if action == 2:
                admit.payment = self._posted
            self.auction.commit(admit)  # Algorithm 1, line 8: eqs. (7), (8)
            out.admitted[i] = True
            out.reason[i] = "admitted"
            out.chosen_vendor[i] = s.vendor
            out.payment[i] = admit.payment
            self._cells.add(i, s.nodes, s.slots)
            cost = s.vendor_price + s.op_cost
            gain = admit.payment if self.reward == "provider" else float(self.arrays.bid[i])
            reward = gain - cost  # eq. (2) or eq. (3), this task's terms
        out.decision_time[i] = d.seconds + time.perf_counter() - start
        self.task += 1
        self._quote()
        return reward, self.done

    def _why_not(self, action: int) -> str:
        s = self._verdict.schedule
        if not s.feasible:
            return "it has no feasible schedule"
        bid = float(self.arrays.bid[self.task])
        price = self._admit.payment if action == 1 else self._posted
        if price > bid:
            return f"the price {price:g} is above the bid {bid:g}"
        return (f"the bid {bid:g} does not cover the vendor and operating cost "
                f"{s.vendor_price + s.op_cost:g}")

    def output(self) -> Decisions:
        """The episode's decisions, as a pdFTSP policy returns them.

        Returns
        -------
        Decisions
            Every task's decision, the final dual prices and the auction's settings in
            ``attrs`` (as :func:`lorasched.pdftsp.auction.run` records them).

        Raises
        ------
        InputError
            If a task is still undecided.
        """
        if not self.done:
            raise InputError(f"task {self.task} of {self.arrays.n_tasks} is still "
                             "undecided: step to the end first")
        out = self._out
        self._cells.store(out)
        auction = self.auction
        out.lam = auction.lam.copy()
        out.phi = auction.phi.copy()
        out.attrs = {"alpha": auction.alpha, "beta": auction.beta,
                     "constants": auction.constants, "payment_rule": auction.payment_rule,
                     "solver": auction.solver, "work_resolution": auction.work_resolution,
                     "candidates": auction.index.method,
                     "candidates_reason": auction.index.reason}
        return out


def random_policy(arrays: ScenarioArrays, rng: np.random.Generator, *,
                  alpha: float | None = None, beta: float | None = None,
                  constants: str = "lemma2", payment: str = "critical", solver: str = "paper",
                  work_resolution: int = 8, candidates: str = "auto") -> Decisions:
    """The policy ``random``: each task's action drawn uniformly among the valid ones.

    The floor of the benchmark suite: :class:`AdmissionProblem` driven by uniformly random
    valid actions from ``rng`` (the same seed, the same result).

    Parameters
    ----------
    arrays : ScenarioArrays
        The scenario.
    rng : numpy.random.Generator
        Draws the actions.
    alpha, beta, constants, payment, solver, work_resolution, candidates
        The auction's options, as for
        :class:`~lorasched.pdftsp.auction.OnlineAuction`.

    Returns
    -------
    Decisions
        Every task's decision, as :meth:`AdmissionProblem.output` returns them.
    """
    problem = AdmissionProblem(arrays, rng, alpha=alpha, beta=beta, constants=constants,
                               payment=payment, solver=solver,
                               work_resolution=work_resolution, candidates=candidates)
    while not problem.done:
        valid = np.flatnonzero(problem.valid_actions())
        problem.step(int(valid[rng.integers(valid.size)]))
    return problem.output()
