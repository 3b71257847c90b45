"""pdFTSP's online admission as a Gymnasium environment (:class:`AdmissionEnv`), one step
per arriving task around :class:`~lorasched.pdftsp.env.AdmissionProblem`. Observation: the
task, the dual prices and residual capacities over its window (arrival-aligned,
``[nodes, slots]``) and Algorithm 2's schedule at those prices, with the action mask.
Action: 0 reject, 1 admit at that schedule charging the auction's payment, 2 admit at it
charging the posted price. Reward: the provider's utility or the social welfare it adds.
Without a scenario it runs :data:`DEFAULT_SCENARIO`; ``observation="fixed"`` pads the
observation to :data:`FIXED_SIZES` with masks, the same space for every scenario.
"""

from __future__ import annotations

import time

import gymnasium
import numpy as np
import xarray as xr
from gymnasium import spaces

from ..model.errors import InputError
from ..pdftsp import synthetic_scenario
from ..pdftsp.env import ACTIONS, QUOTE_FEATURES, TASK_FEATURES, AdmissionProblem
from ..pdftsp.result import assemble, check_result
from ..pdftsp.scenario import MEMORY_TOLERANCE, to_arrays
from .common import built, check_observation, check_seed, fixed_sizes, mask, needs, pad

#: what an action the mask refuses does: carried out as a rejection (default: any agent,
#: gymnasium's own checks included, may act), or raise the problem's InputError
INVALID_ACTIONS = ("reject", "raise")
#: the bound of a quantity the model does not bound (a dual price, a surplus): finite, so
#: that the spaces can be sampled
HUGE = float(np.finfo(np.float64).max / 2)
#: the scenario ``AdmissionEnv()`` runs without one, as the arguments of
#: :func:`~lorasched.pdftsp.workload.synthetic_scenario` (4 nodes, 24 ten-minute slots,
#: 4 arrivals per slot on average, 2 vendors; 96 tasks, so 96 steps an episode);
#: ``scenario_seed`` replaces its seed
DEFAULT_SCENARIO = dict(nodes=4, slots=24, load=4.0, vendors=2, seed=0)
#: the fixed observation's default maxima of the nodes, the slots of a task's window
#: (deadline - arrival + 1) and the vendors
FIXED_SIZES = dict(max_nodes=32, max_window=48, max_vendors=8)
#: the observation's ``[nodes, window]`` arrays
GRIDS = ("lam", "phi", "compute_left", "memory_left")


def default_scenario(seed: int | None = None) -> xr.Dataset:
    """:data:`DEFAULT_SCENARIO` as the pdFTSP scenario it builds (``seed``: in place of its
    seed)."""
    return built(synthetic_scenario, DEFAULT_SCENARIO, seed)


def _box(low, high, shape) -> spaces.Box:
    return spaces.Box(low=np.broadcast_to(np.asarray(low, dtype=np.float64), shape).copy(),
                      high=np.broadcast_to(np.asarray(high, dtype=np.float64), shape).copy(),
                      shape=shape, dtype=np.float64)


class AdmissionEnv(gymnasium.Env):
    """pdFTSP's online admission of one scenario's tasks, in arrival order.

    Parameters
    ----------
    scenario : xarray.Dataset, optional
        A pdFTSP scenario (:func:`~lorasched.pdftsp.workload.synthetic_scenario`). Default:
        :data:`DEFAULT_SCENARIO`, ``synthetic_scenario(nodes=4, slots=24, load=4.0,
        vendors=2, seed=0)``, 96 tasks (so ``gymnasium.make("lorasched/Admission-v0")``
        needs no argument).
    scenario_seed : int, optional
        The default scenario's seed in place of 0 (refused with ``scenario``).
    observation : {"native", "fixed"}, optional
        ``"native"`` (default): the arrays have the scenario's nodes K, slots T and vendors
        N. ``"fixed"``: they have ``max_nodes``, ``max_window`` and ``max_vendors``
        entries (zero-padded), with ``node_mask`` and ``vendor_mask`` (int8, 1 for a real
        entry; ``window`` marks the task's slots), so that the space is the same for every
        scenario within the maxima (Notes).
    max_nodes, max_window, max_vendors : int, optional
        The fixed observation's maxima (``observation="fixed"`` only; defaults
        :data:`FIXED_SIZES`: 32, 48 and 8). A scenario beyond one is refused, naming the
        size it needs.
    reward : {"provider", "welfare"}, optional
        Each step's reward: the increment of the provider's utility, eq. (2) (default), or
        of the social welfare, eq. (3). An episode's rewards sum to the result's
        ``provider_utility`` or ``welfare``.
    invalid_action : {"reject", "raise"}, optional
        An action the mask refuses is carried out as 0, with ``info["refused"]`` True
        (default), or raises :class:`~lorasched.model.errors.InputError`.
    alpha, beta, constants, payment, solver, work_resolution, candidates
        The auction's options, as for
        :class:`~lorasched.pdftsp.auction.OnlineAuction`.

    Raises
    ------
    InputError
        If the scenario is invalid, an option is out of its choices or range, or the
        scenario exceeds a maximum of the fixed observation.

    Notes
    -----
    The observation is :meth:`AdmissionProblem.observe
    <lorasched.pdftsp.env.AdmissionProblem.observe>`, the actions and the rewards its
    :meth:`~lorasched.pdftsp.env.AdmissionProblem.step`. ``info`` holds the task decided,
    the action carried out, whether the one asked was refused and the next action mask;
    at the end of an episode, ``info["result"]``: the result Dataset (the scenario with
    the decisions and their accounting, algorithm ``"gym"``), checked by
    :func:`~lorasched.systems.check_result`.

    The fixed observation holds the same values as the native one: ``speed``
    ``[max_nodes]``, ``vendor_price`` and ``vendor_delay`` ``[max_vendors]``, ``lam``,
    ``phi``, ``compute_left`` and ``memory_left`` ``[max_nodes, max_window]`` (column
    ``j`` is slot ``arrival + j``, as in the native one, whose columns past the deadline
    are zero already) and ``window`` ``[max_window]``; ``task`` bounds its arrival and
    deadline by a huge number rather than by T. Its limits: a scenario with more nodes or
    vendors than the maxima, or a task whose window is wider than ``max_window``, is
    refused when the environment is made, never truncated (every entry can decide an
    admission).
    """

    metadata = {"render_modes": []}

    def __init__(self, scenario: xr.Dataset | None = None, *,
                 scenario_seed: int | None = None, observation: str = "native",
                 max_nodes: int | None = None, max_window: int | None = None,
                 max_vendors: int | None = None, reward: str = "provider",
                 invalid_action: str = "reject", alpha: float | None = None,
                 beta: float | None = None, constants: str = "lemma2",
                 payment: str = "critical", solver: str = "paper", work_resolution: int = 8,
                 candidates: str = "auto"):
        seed = check_seed(scenario, scenario_seed)
        self.observation = check_observation(observation)
        self.sizes = fixed_sizes(observation, {"max_nodes": max_nodes,
                                               "max_window": max_window,
                                               "max_vendors": max_vendors}, FIXED_SIZES)
        if scenario is None:
            scenario = default_scenario(seed)
        if not isinstance(scenario, xr.Dataset):
            raise InputError(f"scenario must be an xarray.Dataset, got "
                             f"{type(scenario).__name__}")
        if invalid_action not in INVALID_ACTIONS:
            raise InputError(f"invalid_action must be one of {INVALID_ACTIONS}, got "
                             f"{invalid_action!r}")
        self.scenario = scenario
        self.arrays = to_arrays(scenario)
        self.invalid_action = invalid_action
        self.options = {"reward": reward, "alpha": alpha, "beta": beta,
                        "constants": constants, "payment": payment, "solver": solver,
                        "work_resolution": work_resolution, "candidates": candidates}
        self.problem = AdmissionProblem(self.arrays, np.random.default_rng(0),
                                        **self.options)  # checks the options
        self._seed = None
        self._seconds = 0.0
        if self.sizes:
            a = self.arrays
            widest = int((a.deadline - a.arrival).max()) + 1 if a.n_tasks else 1
            needs(self.sizes, "max_nodes", a.n_nodes, "nodes")
            needs(self.sizes, "max_vendors", a.n_vendors, "vendors")
            needs(self.sizes, "max_window", widest, "slots in a task's window")
            self.observation_space = self._fixed_spaces()
        else:
            self.observation_space = self._spaces()
        self.action_space = spaces.Discrete(len(ACTIONS))

    def _spaces(self) -> spaces.Dict:
        a = self.arrays
        K, T, N = a.n_nodes, a.n_slots, a.n_vendors
        grid = (K, T)
        task_high = (HUGE, HUGE, HUGE, T - 1, T - 1, 1)
        quote_low = np.full(len(QUOTE_FEATURES), -HUGE)
        quote_low[QUOTE_FEATURES.index("feasible")] = 0
        quote_low[QUOTE_FEATURES.index("vendor")] = -2
        return spaces.Dict({
            "task": _box(0, task_high, (len(TASK_FEATURES),)),
            "speed": _box(0, HUGE, (K,)),
            "vendor_price": _box(0, HUGE, (N,)),
            "vendor_delay": _box(0, HUGE, (N,)),
            "lam": _box(0, HUGE, grid),
            "phi": _box(0, HUGE, grid),
            "compute_left": _box(0, HUGE, grid),
            "memory_left": _box(-MEMORY_TOLERANCE, HUGE, grid),
            "window": spaces.MultiBinary(T),
            "quote": _box(quote_low, HUGE, (len(QUOTE_FEATURES),)),
            "action_mask": spaces.MultiBinary(len(ACTIONS)),
        })

    def _fixed_spaces(self) -> spaces.Dict:
        native = self._spaces()
        K, W, N = (self.sizes[k] for k in ("max_nodes", "max_window", "max_vendors"))
        task_high = native["task"].high.copy()
        task_high[[TASK_FEATURES.index("arrival"), TASK_FEATURES.index("deadline")]] = HUGE
        return spaces.Dict({
            "task": _box(0, task_high, (len(TASK_FEATURES),)),
            "speed": _box(0, HUGE, (K,)),
            "vendor_price": _box(0, HUGE, (N,)),
            "vendor_delay": _box(0, HUGE, (N,)),
            **{name: _box(native[name].low.flat[0], HUGE, (K, W)) for name in GRIDS},
            "window": spaces.MultiBinary(W),
            "quote": native["quote"],
            "action_mask": native["action_mask"],
            "node_mask": spaces.MultiBinary(K),
            "vendor_mask": spaces.MultiBinary(N),
        })

    def _observe(self) -> dict[str, np.ndarray]:
        """The problem's observation, padded to the maxima with the fixed observation."""
        obs = self.problem.observe()
        if not self.sizes:
            return obs
        K, W, N = (self.sizes[k] for k in ("max_nodes", "max_window", "max_vendors"))
        a = self.arrays
        for name in ("vendor_price", "vendor_delay"):
            obs[name] = pad(obs[name], (N,))
        for name in GRIDS:
            obs[name] = pad(obs[name], (K, W))
        obs["speed"] = pad(obs["speed"], (K,))
        obs["window"] = pad(obs["window"], (W,))
        obs["node_mask"] = mask(a.n_nodes, K)
        obs["vendor_mask"] = mask(a.n_vendors, N)
        return obs

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start the episode again from the first task and the empty cluster.

        Parameters
        ----------
        seed : int, optional
            Seeds ``self.np_random`` (the problem draws no random numbers: every episode
            with the same actions is the same).
        options : dict, optional
            Accepted for Gymnasium's interface; none is read.

        Returns
        -------
        observation : dict
            The first task's observation.
        info : dict
            ``task`` (its index) and ``action_mask``.
        """
        super().reset(seed=seed)
        if seed is not None:
            self._seed = int(seed)
        self.problem = AdmissionProblem(self.arrays, self.np_random, **self.options)
        self._seconds = 0.0
        return self._observe(), self._info()

    def _info(self) -> dict:
        return {"task": self.problem.task, "action_mask": self.problem.valid_actions()}

    def step(self, action):
        """Decide the task offered now.

        Parameters
        ----------
        action : int
            0 reject, 1 admit charging the auction's payment, 2 admit charging the posted
            price.

        Returns
        -------
        observation : dict
            The next task's (all zeros once the episode is over).
        reward : float
            The provider's utility or the social welfare this decision adds.
        terminated : bool
            Whether every task has been decided.
        truncated : bool
            Always False.
        info : dict
            ``decided`` (the task), ``action`` (the one carried out), ``refused``, ``task``
            and ``action_mask`` (the next task's), and at the end ``result``.

        Raises
        ------
        InputError
            If the episode is over or ``action`` is not 0, 1 or 2; or the mask refuses it
            and ``invalid_action`` is ``"raise"``.
        """
        problem = self.problem
        start = time.perf_counter()
        taken = action
        if (self.invalid_action == "reject" and not problem.done
                and isinstance(action, int | np.integer) and 0 <= action < len(ACTIONS)
                and not problem.valid_actions()[action]):
            taken = 0
        decided = problem.task
        reward, done = problem.step(taken)
        self._seconds += time.perf_counter() - start
        info = {"decided": decided, "action": int(taken), "refused": int(taken) != int(action),
                **self._info()}
        if done:
            info["result"] = self.result()
        return self._observe(), float(reward), done, False, info

    def result(self) -> xr.Dataset:
        """The episode's result, once every task is decided.

        Returns
        -------
        xarray.Dataset
            The scenario with the decisions and their accounting (eqs. 1-3), algorithm
            ``"gym"``, the environment's options and the last reset's seed (-1 if none);
            checked by :func:`~lorasched.systems.check_result`.

        Raises
        ------
        InputError
            If a task is still undecided.
        """
        result = assemble(self.scenario, self.problem.output(), algorithm="gym",
                          seed=self._seed, options=self.options)
        result.attrs["wall_seconds"] = self._seconds
        check_result(result)
        return result
