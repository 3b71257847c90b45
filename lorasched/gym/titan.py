"""TITAN's allocation at each scheduling event as a Gymnasium environment
(:class:`AllocationEnv`, wrapping :class:`lorasched.titan.env.AllocationProblem`).

Observation: the free GPUs, the time, and a table of ``max_units`` candidate slots (jobs,
units already in the system, merge candidates) with a mask: remaining iterations, attained
GPU-seconds, age, GPUs held, iterations per second on each allocation of the set A, the
indices each slot may take and the slots that share a job. Action: one index per slot into
``(0,) + allocations`` (MultiDiscrete; 0 = no GPUs). Reward: minus the job-hours accrued
until the next event, so that an episode's rewards add up to minus the jobs' total JCT.
"""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np
import xarray as xr
from gymnasium import spaces

from ..model.errors import InputError
from ..titan.env import AllocationProblem
from ..titan.policies import cluster_options
from ..titan.result import assemble, check_result
from ..titan.scenario import to_arrays

#: what :class:`AllocationEnv` does with an infeasible action
INFEASIBLE = ("clip", "raise")
#: the upper bound of the observations that have none (times, work, service): the largest
#: float, since Gymnasium's check warns on an infinite one
NO_BOUND = float(np.finfo(np.float64).max)


class AllocationEnv(gym.Env):
    """TITAN's allocation problem as a ``gymnasium.Env`` (module docstring).

    An episode is one run of the scenario; a step is one scheduling event at which TITAN's
    MILP would run. When it ends, ``info["result"]`` is the TITAN system's result Dataset
    (checked by ``lorasched.titan.result.check_result``; algorithm ``"gym"``, each
    decision with 0 solver seconds, ``wall_seconds`` the episode's).

    Parameters
    ----------
    scenario : xarray.Dataset
        A TITAN scenario (:func:`lorasched.titan.scenario.titan_scenario`).
    merge : bool, optional
        Offer merge candidates, eqs. 5-11 (default True).
    switch, switch_scale, preemptive, tick_s, keep : optional
        As in :func:`lorasched.titan.policies.titan` (``None``: the setup's).
    candidates : {"pairs", "all_pairs", "application", "cross_dataset"}, optional
        How merge candidates are formed (default ``"pairs"``).
    merge_length : {"log", "sum", "first"}, optional
        How long a merged job runs (default ``"log"``).
    max_units : int, optional
        Slots of the observation and the action (default: every candidate an event of the
        scenario can offer, :func:`lorasched.titan.env.slot_bound`).
    infeasible : {"clip", "raise"}, optional
        ``"clip"`` (default): an infeasible action is replaced by
        :meth:`~lorasched.titan.env.AllocationProblem.clip`'s, and ``info["action"]`` is
        the one applied; ``"raise"``: it raises an InputError naming the rule it breaks.

    Raises
    ------
    InputError
        If the scenario is not a valid TITAN scenario or an option is out of its range.
    """

    metadata = {"render_modes": []}

    def __init__(self, scenario: xr.Dataset, *, merge: bool = True, switch=None,
                 switch_scale: float = 1.0, preemptive: bool | None = None,
                 candidates: str = "pairs", merge_length: str = "log",
                 tick_s: float | None = None, keep: str | None = None,
                 max_units: int | None = None, infeasible: str = "clip"):
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
        inf = NO_BOUND
        self.observation_space = spaces.Dict({
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
        })
        self.action_space = spaces.MultiDiscrete(np.full(U, A + 1, dtype=np.int64))
        self._seed: int | None = None
        self._clock = time.perf_counter()

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
        return self.problem.observe(), {}

    def step(self, action):
        """Allocate at this event and run to the next one.

        Parameters
        ----------
        action : numpy.ndarray
            (max_units,) indices into ``(0,) + allocations``.

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
        return self.problem.observe(), float(reward), bool(done), False, info
