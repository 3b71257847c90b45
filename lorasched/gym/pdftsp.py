"""pdFTSP's online admission as a Gymnasium environment (:class:`AdmissionEnv`), one step
per arriving task around :class:`~lorasched.pdftsp.env.AdmissionProblem`. Observation: the
task, the dual prices and residual capacities over its window (arrival-aligned,
``[nodes, slots]``) and Algorithm 2's schedule at those prices, with the action mask;
bounded by the truth (``inf`` where a quantity has no bound), or with ``scale=True``
mapped into [0, 1] / [-1, 1] (:data:`UNITS`). Action: ``Discrete(3)``, 0 reject, 1 admit
at that schedule charging the auction's payment, 2 admit at it charging the posted price;
:meth:`AdmissionEnv.action_masks` gives the valid ones. Reward: the provider's utility or
the social welfare it adds. Without a scenario it runs :data:`DEFAULT_SCENARIO` (or, with
``scenario_seeds``, its seeds drawn per episode); ``observation="fixed"`` pads the
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
from .common import (
    Scenarios,
    box_keys,
    built,
    check_observation,
    check_penalty,
    check_scale,
    fixed_sizes,
    fraction,
    mask,
    needs,
    pad,
    same_spaces,
    squash,
    unit_box,
)

#: what an action the mask refuses does: carried out as a rejection (default: any agent,
#: gymnasium's own checks included, may act), or raise the problem's InputError
INVALID_ACTIONS = ("reject", "raise")
#: the Box parts of the observation (native, fixed or scaled alike), in the space's
#: (sorted) order, the ones ``VecNormalize(norm_obs_keys=...)`` may normalise; the others
#: are MultiBinary masks
BOX_KEYS = ("compute_left", "lam", "memory_left", "phi", "quote", "speed", "task",
            "vendor_delay", "vendor_price")
#: the typical sizes of the scaled observation (``scale=True``): a quantity ``x`` of
#: these units is shown as ``squash(x / unit)`` = ``y / (1 + |y|)`` of ``y = x / unit``
#: (1/2 at one unit): money 1 (bids, prices, payments, surplus), samples 10^4 (work,
#: speed per slot), memory 10 GB, slots 10 (vendor delays), cells 10 (a schedule's); a
#: dual price per unit of its resource (``lam``: money per 10^4 samples, ``phi``: per
#: 10 GB)
UNITS = {"money": 1.0, "samples": 1e4, "memory": 10.0, "slots": 10.0, "cells": 10.0}
#: each quote entry's unit (:data:`UNITS`; ``vendor``: 1, so that -2, -1, 0, 1 ... stay
#: apart; ``feasible`` is kept as 0 / 1)
_QUOTE_UNITS = {"feasible": None, "vendor": 1.0, "surplus": "money", "payment": "money",
                "posted_price": "money", "welfare": "money", "vendor_price": "money",
                "op_cost": "money", "lam_hat": "lam", "phi_hat": "phi",
                "samples": "samples", "n_cells": "cells"}
#: the scenario ``AdmissionEnv()`` runs without one, as the arguments of
#: :func:`~lorasched.pdftsp.workload.synthetic_scenario` (4 nodes, 24 ten-minute slots,
#: 4 arrivals per slot on average, 2 vendors; 96 tasks, so 96 steps an episode; under
#: random play every part of the observation moves); ``scenario_seed`` replaces its
#: seed
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


def _unit(name: str) -> float:
    """A quantity's unit of the scaled observation (:data:`UNITS`; ``lam`` and ``phi``:
    money per the unit of samples and of memory)."""
    if name == "lam":
        return UNITS["money"] / UNITS["samples"]
    if name == "phi":
        return UNITS["money"] / UNITS["memory"]
    return UNITS[name]


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
    scenario_seeds : sequence of int, optional
        A training family: each ``reset`` draws one of these seeds with the environment's
        ``np_random`` and runs its default scenario (refused with ``scenario`` or
        ``scenario_seed``, and when it holds a seed of
        :data:`~lorasched.gym.HELD_OUT_SEEDS`). The spaces are made on the first;
        a scenario that needs other spaces is refused when drawn, naming the parts (the
        default scenario's seeds all fit, natively too).
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
    scale : bool, optional
        False (default): each quantity as it is, its Box bounded by the truth (``inf``
        where the model bounds nothing). True: each Box part mapped into [0, 1] (or
        [-1, 1] where it may be negative; Notes), for learners that want inputs of order
        one.
    reward : {"provider", "welfare"}, optional
        Each step's reward: the increment of the provider's utility, eq. (2) (default), or
        of the social welfare, eq. (3). An episode's rewards sum to the result's
        ``provider_utility`` or ``welfare`` (less the penalties, if any).
    invalid_action : {"reject", "raise"}, optional
        What an action the mask refuses does: it is carried out as 0, with
        ``info["refused"]`` True (default: any agent may act, Gymnasium's checks and
        random sampling included), or it raises
        :class:`~lorasched.model.errors.InputError`.
    invalid_penalty : float, optional
        Reward taken off per refused action (default 0: the rewards stay the system's
        objective). A positive one shows an agent that ignores :meth:`action_masks` what
        it did through the reward alone, whatever library reads ``info``.
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
    :func:`~lorasched.systems.check_result`, and ``info["invalid_actions"]``, the
    episode's refused actions.

    Invalid actions: :meth:`action_masks` (bool[3], the method ``MaskablePPO`` calls,
    found through Gymnasium's wrappers) marks the valid ones, so a masked agent never
    takes an invalid one; one that ignores the mask is refused (``invalid_action``),
    counted and optionally penalised (``invalid_penalty``).

    The fixed observation holds the same values as the native one: ``speed``
    ``[max_nodes]``, ``vendor_price`` and ``vendor_delay`` ``[max_vendors]``, ``lam``,
    ``phi``, ``compute_left`` and ``memory_left`` ``[max_nodes, max_window]`` (column
    ``j`` is slot ``arrival + j``, as in the native one, whose columns past the deadline
    are zero already) and ``window`` ``[max_window]``; ``task`` bounds its arrival and
    deadline by ``inf`` rather than by T. Its limits: a scenario with more nodes or
    vendors than the maxima, or a task whose window is wider than ``max_window``, is
    refused when the environment is made, never truncated (every entry can decide an
    admission).

    Bounds (``scale=False``): every quantity the model does not bound has ``inf`` (bids,
    work, memory, speeds, vendor prices and delays, dual prices, residual capacities, the
    quote's money); the task's arrival and deadline are bounded by T - 1, its
    ``needs_preprocessing`` and the quote's ``feasible`` by 1, the quote's ``vendor``
    (-2: no schedule) from below by -2, ``memory_left`` from below by minus the
    scenario's tolerance.

    The scaled observation (``scale=True``; units :data:`UNITS`, ``squash(y) = y / (1 +
    |y|)``), the same keys, shapes and masks:

    ============================== =============================================== ==========
    part                           transform                                       range
    ============================== =============================================== ==========
    ``task``: bid, work, memory    squash of money, samples, memory                [0, 1)
    ``task``: arrival, deadline    the slot / T (the scenario's slots)             [0, 1)
    ``task``: needs_preprocessing  as is                                           {0, 1}
    ``speed``                      squash of samples per slot                      [0, 1)
    ``vendor_price``               squash of money                                 [0, 1)
    ``vendor_delay``               squash of slots                                 [0, 1)
    ``lam``, ``phi``               squash of money per 10^4 samples, per 10 GB     [0, 1)
    ``compute_left``               / the node's compute capacity ``C_kp``           [0, 1]
    ``memory_left``                / the node's memory ``C_km`` (clipped at 0)      [0, 1]
    ``quote``                      squash of each entry's unit (``feasible`` as    [-1, 1]
                                   is; ``vendor`` of 1)
    ============================== =============================================== ==========

    Padded entries of the fixed observation stay 0.
    """

    metadata = {"render_modes": []}

    def __init__(self, scenario: xr.Dataset | None = None, *,
                 scenario_seed: int | None = None, scenario_seeds=None,
                 observation: str = "native", max_nodes: int | None = None,
                 max_window: int | None = None, max_vendors: int | None = None,
                 scale: bool = False, reward: str = "provider",
                 invalid_action: str = "reject", invalid_penalty: float = 0.0,
                 alpha: float | None = None, beta: float | None = None,
                 constants: str = "lemma2", payment: str = "critical", solver: str = "paper",
                 work_resolution: int = 8, candidates: str = "auto"):
        self._scenarios = Scenarios(synthetic_scenario, DEFAULT_SCENARIO, scenario,
                                    scenario_seed, scenario_seeds)
        self.observation = check_observation(observation)
        self.sizes = fixed_sizes(observation, {"max_nodes": max_nodes,
                                               "max_window": max_window,
                                               "max_vendors": max_vendors}, FIXED_SIZES)
        self.scale = check_scale(scale)
        self.invalid_penalty = check_penalty(invalid_penalty)
        seed, scenario = self._scenarios.first()
        if not isinstance(scenario, xr.Dataset):
            raise InputError(f"scenario must be an xarray.Dataset, got "
                             f"{type(scenario).__name__}")
        if invalid_action not in INVALID_ACTIONS:
            raise InputError(f"invalid_action must be one of {INVALID_ACTIONS}, got "
                             f"{invalid_action!r}")
        self.invalid_action = invalid_action
        self.options = {"reward": reward, "alpha": alpha, "beta": beta,
                        "constants": constants, "payment": payment, "solver": solver,
                        "work_resolution": work_resolution, "candidates": candidates}
        arrays = to_arrays(scenario)
        self.problem = AdmissionProblem(arrays, np.random.default_rng(0),
                                        **self.options)  # checks the options
        self.observation_space = self._space(arrays)
        self.action_space = spaces.Discrete(len(ACTIONS))
        self.scenario, self.arrays = scenario, arrays
        #: the seed of the default scenario the episode runs (None: a given scenario)
        self.scenario_seed = seed
        self._seed = None
        self._seconds = 0.0
        self._invalid = 0

    @property
    def box_keys(self) -> tuple[str, ...]:
        """The observation's Box parts (:data:`BOX_KEYS`), for ``VecNormalize(venv,
        norm_obs_keys=env.box_keys)``."""
        return box_keys(self.observation_space)

    def _space(self, arrays) -> spaces.Dict:
        """The observation space of a scenario's arrays (its maxima checked when fixed)."""
        if self.sizes:
            a = arrays
            widest = int((a.deadline - a.arrival).max()) + 1 if a.n_tasks else 1
            needs(self.sizes, "max_nodes", a.n_nodes, "nodes")
            needs(self.sizes, "max_vendors", a.n_vendors, "vendors")
            needs(self.sizes, "max_window", widest, "slots in a task's window")
        space = self._fixed_spaces(arrays) if self.sizes else self._spaces(arrays)
        if not self.scale:
            return space
        parts = dict(space.spaces)
        for name in BOX_KEYS:
            parts[name] = unit_box(space[name].low < 0)
        return spaces.Dict(parts)

    def _spaces(self, arrays) -> spaces.Dict:
        a = arrays
        K, T, N = a.n_nodes, a.n_slots, a.n_vendors
        grid = (K, T)
        task_high = (np.inf, np.inf, np.inf, T - 1, T - 1, 1)
        quote_low = np.full(len(QUOTE_FEATURES), -np.inf)
        quote_low[QUOTE_FEATURES.index("feasible")] = 0
        quote_low[QUOTE_FEATURES.index("vendor")] = -2
        quote_high = np.full(len(QUOTE_FEATURES), np.inf)
        quote_high[QUOTE_FEATURES.index("feasible")] = 1
        return spaces.Dict({
            "task": _box(0, task_high, (len(TASK_FEATURES),)),
            "speed": _box(0, np.inf, (K,)),
            "vendor_price": _box(0, np.inf, (N,)),
            "vendor_delay": _box(0, np.inf, (N,)),
            "lam": _box(0, np.inf, grid),
            "phi": _box(0, np.inf, grid),
            "compute_left": _box(0, np.inf, grid),
            "memory_left": _box(-MEMORY_TOLERANCE, np.inf, grid),
            "window": spaces.MultiBinary(T),
            "quote": _box(quote_low, quote_high, (len(QUOTE_FEATURES),)),
            "action_mask": spaces.MultiBinary(len(ACTIONS)),
        })

    def _fixed_spaces(self, arrays) -> spaces.Dict:
        native = self._spaces(arrays)
        K, W, N = (self.sizes[k] for k in ("max_nodes", "max_window", "max_vendors"))
        task_high = native["task"].high.copy()
        task_high[[TASK_FEATURES.index("arrival"), TASK_FEATURES.index("deadline")]] = np.inf
        return spaces.Dict({
            "task": _box(0, task_high, (len(TASK_FEATURES),)),
            "speed": _box(0, np.inf, (K,)),
            "vendor_price": _box(0, np.inf, (N,)),
            "vendor_delay": _box(0, np.inf, (N,)),
            **{name: _box(native[name].low.flat[0], np.inf, (K, W)) for name in GRIDS},
            "window": spaces.MultiBinary(W),
            "quote": native["quote"],
            "action_mask": native["action_mask"],
            "node_mask": spaces.MultiBinary(K),
            "vendor_mask": spaces.MultiBinary(N),
        })

    def _observe(self) -> dict[str, np.ndarray]:
        """The problem's observation, padded to the maxima with the fixed observation and
        scaled with ``scale``."""
        obs = self.problem.observe()
        a = self.arrays
        compute, memory = a.compute_capacity, a.memory_capacity
        if self.sizes:
            K, W, N = (self.sizes[k] for k in ("max_nodes", "max_window", "max_vendors"))
            for name in ("vendor_price", "vendor_delay"):
                obs[name] = pad(obs[name], (N,))
            for name in GRIDS:
                obs[name] = pad(obs[name], (K, W))
            obs["speed"] = pad(obs["speed"], (K,))
            obs["window"] = pad(obs["window"], (W,))
            obs["node_mask"] = mask(a.n_nodes, K)
            obs["vendor_mask"] = mask(a.n_vendors, N)
            compute, memory = pad(compute, (K,)), pad(memory, (K,))
        if self.scale:
            obs = self._scaled(obs, compute, memory)
        return obs

    def _scaled(self, obs: dict, compute: np.ndarray, memory: np.ndarray) -> dict:
        """The observation of ``scale=True`` (class Notes); ``compute`` and ``memory`` are
        the nodes' capacities, padded like the grids."""
        task = obs["task"]
        at = [TASK_FEATURES.index(k) for k in ("arrival", "deadline")]
        task_units = np.array([_unit(k) for k in ("money", "samples", "memory")])
        scaled = task.copy()
        scaled[:3] = squash(task[:3], task_units)
        scaled[at] = task[at] / self.arrays.n_slots
        obs["task"] = scaled
        obs["speed"] = squash(obs["speed"], _unit("samples"))
        obs["vendor_price"] = squash(obs["vendor_price"], _unit("money"))
        obs["vendor_delay"] = squash(obs["vendor_delay"], _unit("slots"))
        obs["lam"] = squash(obs["lam"], _unit("lam"))
        obs["phi"] = squash(obs["phi"], _unit("phi"))
        obs["compute_left"] = fraction(obs["compute_left"], compute[:, None])
        obs["memory_left"] = fraction(obs["memory_left"], memory[:, None])
        quote = obs["quote"].copy()
        for j, name in enumerate(QUOTE_FEATURES):
            unit = _QUOTE_UNITS[name]
            if unit is not None:
                quote[j] = squash(quote[j], unit if isinstance(unit, float) else _unit(unit))
        obs["quote"] = quote
        return obs

    def _load(self, seed: int | None, scenario: xr.Dataset) -> None:
        """Run ``scenario`` from now on, refused unless it fits the spaces."""
        arrays = to_arrays(scenario)
        same_spaces(seed, self.observation_space, self._space(arrays), "observation")
        self.scenario, self.arrays = scenario, arrays

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode from the first task and the empty cluster.

        Parameters
        ----------
        seed : int, optional
            Seeds ``self.np_random``, which draws the scenario of a family
            (``scenario_seeds``); the problem draws no random numbers: every episode of a
            scenario with the same actions is the same.
        options : dict, optional
            ``{"scenario_seed": k}``: this episode runs the default scenario of seed ``k``
            (e.g. one of :func:`~lorasched.gym.held_out_seeds`, for evaluation).
            Any other key is refused.

        Returns
        -------
        observation : dict
            The first task's observation.
        info : dict
            ``task`` (its index), ``action_mask`` and ``scenario_seed`` (the episode's
            default scenario's seed; None for a given scenario).

        Raises
        ------
        InputError
            For an unknown option, a ``scenario_seed`` when a scenario was given, or a
            scenario that does not fit the spaces (naming the parts).
        """
        super().reset(seed=seed)
        scenario_seed, scenario = self._scenarios.choose(self.np_random, options)
        if scenario is not self.scenario:
            self._load(scenario_seed, scenario)
        self.scenario_seed = scenario_seed
        if seed is not None:
            self._seed = int(seed)
        self.problem = AdmissionProblem(self.arrays, self.np_random, **self.options)
        self._seconds = 0.0
        self._invalid = 0
        return self._observe(), {**self._info(), "scenario_seed": scenario_seed}

    def _info(self) -> dict:
        return {"task": self.problem.task, "action_mask": self.problem.valid_actions()}

    def action_masks(self) -> np.ndarray:
        """The actions valid for the task offered now (the mask ``MaskablePPO`` reads).

        Returns
        -------
        numpy.ndarray
            bool[3] over 0 reject, 1 admit, 2 posted (reject is always valid); all False
            once the episode is over.
        """
        return self.problem.valid_actions()

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
            The provider's utility or the social welfare this decision adds, less
            ``invalid_penalty`` if the action was refused.
        terminated : bool
            Whether every task has been decided.
        truncated : bool
            Always False.
        info : dict
            ``decided`` (the task), ``action`` (the one carried out), ``refused``, ``task``
            and ``action_mask`` (the next task's), and at the end ``result`` and
            ``invalid_actions`` (the episode's refused actions).

        Raises
        ------
        InputError
            If the episode is over or ``action`` is not 0, 1 or 2; or the mask refuses it
            and ``invalid_action`` is ``"raise"``.
        """
        problem = self.problem
        start = time.perf_counter()
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action[()]
        invalid = (not problem.done and isinstance(action, int | np.integer)
                   and not isinstance(action, bool | np.bool_)
                   and 0 <= action < len(ACTIONS) and not problem.valid_actions()[action])
        taken = 0 if invalid and self.invalid_action == "reject" else action
        decided = problem.task
        reward, done = problem.step(taken)
        self._seconds += time.perf_counter() - start
        if invalid:
            self._invalid += 1
            reward -= self.invalid_penalty
        info = {"decided": decided, "action": int(taken), "refused": bool(invalid),
                **self._info()}
        if done:
            info["result"] = self.result()
            info["invalid_actions"] = self._invalid
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
