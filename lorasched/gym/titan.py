"""TITAN's allocation at each scheduling event as a Gymnasium environment
(:class:`AllocationEnv`, wrapping :class:`lorasched.titan.env.AllocationProblem`).

Observation: the free GPUs, the time, and a table of ``max_units`` candidate slots (jobs,
units already in the system, merge candidates) with a mask: remaining iterations, attained
GPU-seconds, age, GPUs held, iterations per second on each allocation of the set A, the
indices each slot may take and the slots that share a job. Action: one index per slot into
``(0,) + allocations`` (MultiDiscrete; 0 = no GPUs). Reward: minus the job-hours accrued
until the next event, so that an episode's rewards add up to minus the jobs' total JCT.
Without a scenario it runs :data:`DEFAULT_SCENARIO`; ``observation="fixed"`` fixes the slots
and the allocations to :data:`FIXED_SIZES`, the same space for every scenario.
"""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np
import xarray as xr
from gymnasium import spaces

from ..model.errors import InputError
from ..titan import titan_scenario
from ..titan.env import AllocationProblem
from ..titan.policies import cluster_options
from ..titan.result import assemble, check_result
from ..titan.scenario import to_arrays
from .common import built, check_observation, check_seed, fixed_sizes, mask, needs, pad

#: what :class:`AllocationEnv` does with an infeasible action
INFEASIBLE = ("clip", "raise")
#: the upper bound of the observations that have none (times, work, service): the largest
#: float, since Gymnasium's check warns on an infinite one
NO_BOUND = float(np.finfo(np.float64).max)
#: the upper bound of the fixed observation's counts (GPUs, jobs in a slot), which the
#: native one bounds by the scenario's GPUs and jobs
COUNT_BOUND = 2 ** 31 - 1
#: the scenario ``AllocationEnv()`` runs without one, as the arguments of
#: :func:`~lorasched.titan.workload.titan_scenario` (24 of the authors' workload's jobs
#: drawn at random, on 2 nodes of 4 V100s, requests above 8 GPUs capped); ``scenario_seed``
#: replaces its seed
DEFAULT_SCENARIO = dict(jobs=24, nodes=2, oversize="cap", seed=0)
#: the fixed observation's default maxima of the slots (candidates shown at an event) and
#: of the allocations of the set A (19 on the paper's 64 GPUs)
FIXED_SIZES = dict(max_units=64, max_allocations=24)


def default_scenario(seed: int | None = None) -> xr.Dataset:
    """:data:`DEFAULT_SCENARIO` as the TITAN scenario it builds (``seed``: in place of its
    seed)."""
    return built(titan_scenario, DEFAULT_SCENARIO, seed)


class AllocationEnv(gym.Env):
    """TITAN's allocation problem as a ``gymnasium.Env`` (module docstring).

    An episode is one run of the scenario; a step is one scheduling event at which TITAN's
    mixed-integer linear program (MILP) would run. When it ends, ``info["result"]`` is the
    TITAN system's result Dataset (checked by ``lorasched.titan.result.check_result``;
    algorithm ``"gym"``, each decision with 0 solver seconds, ``wall_seconds`` the
    episode's).

    Parameters
    ----------
    scenario : xarray.Dataset, optional
        A TITAN scenario (:func:`lorasched.titan.workload.titan_scenario`). Default:
        :data:`DEFAULT_SCENARIO`, ``titan_scenario(jobs=24, nodes=2, oversize="cap",
        seed=0)``: 24 jobs on 8 GPUs, about 25 events an episode (so
        ``gymnasium.make("lorasched/Allocation-v0")`` needs no argument).
    scenario_seed : int, optional
        The default scenario's seed in place of 0 (refused with ``scenario``).
    observation : {"native", "fixed"}, optional
        ``"native"`` (default): ``max_units`` slots (by default every candidate the
        scenario can offer), the scenario's A allocations and bounds from its GPUs and
        jobs. ``"fixed"``: ``max_units`` slots (default 64) and ``max_allocations``
        allocations (default 24) whatever the scenario, with the allocations themselves
        observed (Notes); the same spaces for every scenario within the maxima.
    max_allocations : int, optional
        The fixed observation's allocations (``observation="fixed"`` only; default
        :data:`FIXED_SIZES`). A scenario with more is refused, naming the size it needs.
    merge : bool, optional
        Offer merge candidates, eqs. 5-11 (default True).
    switch, switch_scale, preemptive, tick_s, keep : optional
        As in :func:`lorasched.titan.policies.titan` (``None``: the setup's).
    candidates : {"pairs", "all_pairs", "application", "cross_dataset"}, optional
        How merge candidates are formed (default ``"pairs"``).
    merge_length : {"log", "sum", "first", "authors"}, optional
        How long a merged job runs (default ``"log"``).
    max_units : int, optional
        Slots of the observation and the action (default: every candidate an event of the
        scenario can offer, :func:`lorasched.titan.env.slot_bound`; with
        ``observation="fixed"``, :data:`FIXED_SIZES`'s 64).
    infeasible : {"clip", "raise"}, optional
        ``"clip"`` (default): an infeasible action is replaced by
        :meth:`~lorasched.titan.env.AllocationProblem.clip`'s, and ``info["action"]`` is
        the one applied; ``"raise"``: it raises an InputError naming the rule it breaks.

    Raises
    ------
    InputError
        If the scenario is not a valid TITAN scenario, an option is out of its range, or
        the scenario has more allocations than ``max_allocations``.

    Notes
    -----
    The fixed observation is the native one with ``U = max_units`` slots and the
    allocation axis padded to ``max_allocations``: ``throughput`` (U, max_allocations),
    ``action_mask`` (U, max_allocations + 1; the padded indices are never offered) and
    ``conflicts`` (U, U), so the scenario's jobs never size it; two more arrays say what
    an index means: ``allocations`` (max_allocations,) the GPUs of each (0: padding) and
    ``allocation_mask`` (int8, 1 for a real one); ``mask`` marks the real slots. The
    counts (``free_gpus``, ``gpus``, ``members``, ``allocations``) are bounded by
    :data:`COUNT_BOUND`. The action is ``max_units`` indices into ``(0,) +
    allocations``; an index past the scenario's allocations is infeasible (clipped to the
    largest offered, or refused). Its limits: an event with more candidates than
    ``max_units`` shows the first ``max_units`` (the units in the system, then the
    waiting jobs in arrival order, then the merge candidates) and the others get no GPUs
    at that event (:class:`~lorasched.titan.env.AllocationProblem`'s rule, a truncation);
    a scenario with more allocations than ``max_allocations`` is refused.
    """

    metadata = {"render_modes": []}

    def __init__(self, scenario: xr.Dataset | None = None, *,
                 scenario_seed: int | None = None, observation: str = "native",
                 max_allocations: int | None = None, merge: bool = True, switch=None,
                 switch_scale: float = 1.0, preemptive: bool | None = None,
                 candidates: str = "pairs", merge_length: str = "log",
                 tick_s: float | None = None, keep: str | None = None,
                 max_units: int | None = None, infeasible: str = "clip"):
        seed = check_seed(scenario, scenario_seed)
        self.observation = check_observation(observation)
        self.sizes = fixed_sizes(observation, {"max_allocations": max_allocations},
                                 {"max_allocations": FIXED_SIZES["max_allocations"]})
        if self.sizes and max_units is None:
            max_units = FIXED_SIZES["max_units"]
        if scenario is None:
            scenario = default_scenario(seed)
        if not isinstance(scenario, xr.Dataset) or scenario.attrs.get("system") != "titan":
            raise InputError("scenario must be a TITAN scenario (an xarray.Dataset with attr "
                             "system = 'titan', from lorasched.titan_scenario)")
        if infeasible not in INFEASIBLE:
            raise InputError(f"infeasible must be one of {INFEASIBLE}, got {infeasible!r}")
        self.scenario, self.infeasible = scenario, infeasible
        self.arrays = to_arrays(scenario)
        self.options = {"merge": merge, "switch": switch, "switch_scale": switch_scale,
                        "preemptive": preemptive, "candidates": candidates,
                        "merge_length": merge_length, "tick_s": tick_s, "keep": keep}
        self._config = dict(
            merge=merge, candidates=candidates, merge_length=merge_length,
            max_units=max_units,
            **cluster_options(self.arrays, switch=switch, switch_scale=switch_scale,
                              preemptive=preemptive, tick_s=tick_s, keep=keep))
        self.problem = AllocationProblem(self.arrays, np.random.default_rng(0), **self._config)
        U, A = self.problem.max_units, int(self.arrays.allocations.size)
        M, J = int(self.arrays.gpus), int(self.arrays.submit.size)
        if self.sizes:
            needs(self.sizes, "max_allocations", A, "allocations in its set A")
            M = J = COUNT_BOUND
            A = self.sizes["max_allocations"]
        inf = NO_BOUND
        observation_space = {
            "free_gpus": spaces.Box(0, M, (1,), np.int64),
            "time_s": spaces.Box(0.0, inf, (1,), np.float64),
            "mask": spaces.MultiBinary(U),
            "members": spaces.Box(0, J, (U,), np.int64),
            "remaining_iterations": spaces.Box(0.0, inf, (U,), np.float64),
            "attained_gpu_s": spaces.Box(0.0, inf, (U,), np.float64),
            "age_s": spaces.Box(0.0, inf, (U,), np.float64),
            "gpus": spaces.Box(0, M, (U,), np.int64),
            "throughput": spaces.Box(0.0, inf, (U, A), np.float64),
            "action_mask": spaces.MultiBinary((U, A + 1)),
            "conflicts": spaces.MultiBinary((U, U)),
        }
        if self.sizes:
            observation_space["allocations"] = spaces.Box(0, M, (A,), np.int64)
            observation_space["allocation_mask"] = spaces.MultiBinary(A)
        self.observation_space = spaces.Dict(observation_space)
        self.action_space = spaces.MultiDiscrete(np.full(U, A + 1, dtype=np.int64))
        self._seed: int | None = None
        self._clock = time.perf_counter()

    def _observe(self) -> dict[str, np.ndarray]:
        """The problem's observation, its allocations padded with the fixed observation."""
        obs = self.problem.observe()
        if not self.sizes:
            return obs
        U, A = self.problem.max_units, self.sizes["max_allocations"]
        allocations = self.arrays.allocations.astype(np.int64)
        obs["throughput"] = pad(obs["throughput"], (U, A))
        obs["action_mask"] = pad(obs["action_mask"], (U, A + 1))
        obs["allocations"] = pad(allocations, (A,))
        obs["allocation_mask"] = mask(allocations.size, A)
        return obs

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start the run over.

        Parameters
        ----------
        seed : int, optional
            Seeds ``self.np_random``, the generator of the problem's
            :meth:`~lorasched.titan.env.AllocationProblem.random_action`.
        options : dict, optional
            Not used (the scenario and the options are the constructor's).

        Returns
        -------
        observation : dict of numpy.ndarray
            The first event's.
        info : dict
            Empty.
        """
        super().reset(seed=seed)
        if seed is not None:
            self._seed = int(seed)
        self.problem = AllocationProblem(self.arrays, self.np_random, **self._config)
        self._clock = time.perf_counter()
        return self._observe(), {}

    def step(self, action):
        """Allocate at this event and run to the next one.

        Parameters
        ----------
        action : numpy.ndarray
            (max_units,) indices into ``(0,) + allocations`` (the fixed observation's
            indices past the scenario's allocations are infeasible).

        Returns
        -------
        observation : dict of numpy.ndarray
            The next event's (every slot empty once the run is over).
        reward : float
            Minus the job-hours accrued until the next event.
        terminated : bool
            Whether the run is over.
        truncated : bool
            Always False.
        info : dict
            ``action``: the action applied; at the end also ``result``, the result Dataset.

        Raises
        ------
        InputError
            If the run is over, the action has the wrong shape, or (``infeasible =
            "raise"``) it is infeasible.
        """
        if self.infeasible == "clip":
            action = self.problem.clip(action)
        reward, done = self.problem.step(action)
        info = {"action": np.asarray(action, dtype=np.int64)}
        if done:
            result = assemble(self.scenario, self.problem.output(), algorithm="gym",
                              seed=self._seed, options=self.options)
            result.attrs["wall_seconds"] = time.perf_counter() - self._clock
            check_result(result)
            info["result"] = result
        return self._observe(), float(reward), bool(done), False, info
