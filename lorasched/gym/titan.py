"""TITAN's allocation at each scheduling event as a Gymnasium environment
(:class:`AllocationEnv`, wrapping :class:`lorasched.titan.env.AllocationProblem`).

Observation: the GPUs no running unit holds, the time, and a table of ``max_units``
candidate slots (jobs, units already in the system, merge candidates) with a mask:
remaining iterations, attained GPU-seconds, age, GPUs held, iterations per second on each
allocation of the set A, the indices each slot may take and the slots that share a job;
bounded by the truth (``inf`` where a quantity has no bound), or with ``scale=True``
mapped into [0, 1] (:data:`UNITS`). Action: one index per slot into ``(0,) +
allocations`` (MultiDiscrete, from 0; 0 = no GPUs); :meth:`AllocationEnv.action_masks`
gives each slot's valid indices, row by row. Reward: minus the job-hours accrued until the
next event, so that an episode's rewards add up to minus the jobs' total JCT. Without a
scenario it runs :data:`DEFAULT_SCENARIO` (or, with ``scenario_seeds``, its seeds drawn
per episode); ``observation="fixed"`` fixes the slots and the allocations to
:data:`FIXED_SIZES`, the same space for every scenario.
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

#: what :class:`AllocationEnv` does with an infeasible action
INFEASIBLE = ("clip", "raise")
#: the Box parts of the native observation (the fixed one adds ``allocations``), in the
#: space's (sorted) order, the ones ``VecNormalize(norm_obs_keys=...)`` may normalise; the
#: others are MultiBinary masks
BOX_KEYS = ("age_s", "attained_gpu_s", "free_gpus", "gpus", "members",
            "remaining_iterations", "throughput", "time_s")
#: the typical sizes of the scaled observation (``scale=True``): a quantity ``x`` of
#: these units is shown as ``squash(x / unit)`` = ``y / (1 + |y|)`` of ``y = x / unit``
#: (1/2 at one unit): time 3600 s (``time_s``, ``age_s``), GPU time 3600 GPU-seconds
#: (``attained_gpu_s``), 1000 iterations (``remaining_iterations``), 1 iteration per
#: second (``throughput``), 1 job (``members``)
UNITS = {"time_s": 3600.0, "age_s": 3600.0, "attained_gpu_s": 3600.0,
         "remaining_iterations": 1000.0, "throughput": 1.0, "members": 1.0}
#: the scenario ``AllocationEnv()`` runs without one, as the arguments of
#: :func:`~lorasched.titan.workload.titan_scenario`: 24 of the authors' workload's jobs
#: drawn at random, on 2 nodes of 4 V100s, requests above 8 GPUs capped, in the TITAN
#: authors' simulator's setup (preemptive, a decision at least every 120 s), so that the
#: units in the system are candidates and every part of the observation moves (173 to 191
#: events an episode under random play); ``scenario_seed`` replaces its seed
DEFAULT_SCENARIO = dict(jobs=24, nodes=2, oversize="cap", setup="authors_code", seed=0)
#: the fixed observation's default maxima of the slots (candidates shown at an event) and
#: of the allocations of the set A (19 on the paper's 64 GPUs)
FIXED_SIZES = dict(max_units=64, max_allocations=24)


def default_scenario(seed: int | None = None) -> xr.Dataset:
    """:data:`DEFAULT_SCENARIO` as the TITAN scenario it builds (``seed``: in place of its
    seed)."""
    return built(titan_scenario, DEFAULT_SCENARIO, seed)


def _scenario(scenario) -> xr.Dataset:
    if not isinstance(scenario, xr.Dataset) or scenario.attrs.get("system") != "titan":
        raise InputError("scenario must be a TITAN scenario (an xarray.Dataset with attr "
                         "system = 'titan', from lorasched.titan_scenario)")
    return scenario


def free_gpus(problem: AllocationProblem) -> int:
    """The environment's ``free_gpus``: the GPUs no running unit holds. In a
    non-preemptive setup these are the GPUs an action may allocate (the decision
    problem's own ``free_gpus``); in a preemptive one, where an action may give all M, a
    running unit's GPUs included, they are the ones it takes from no unit, so that the
    part moves from event to event.

    Parameters
    ----------
    problem : lorasched.titan.env.AllocationProblem
        The problem, at an event (not done).

    Returns
    -------
    int
    """
    cluster = problem.cluster
    return int(problem.a.gpus - sum(cluster.units[u][3] for u in cluster.running))


class AllocationEnv(gym.Env):
    """TITAN's allocation problem as a ``gymnasium.Env`` (module docstring).

    An episode is one run of the scenario; a step is one scheduling event at which TITAN's
    mixed-integer linear program (MILP) would run. When it ends, ``info["result"]`` is the
    TITAN system's result Dataset (checked by ``lorasched.titan.result.check_result``;
    algorithm ``"gym"``, each decision with 0 solver seconds, ``wall_seconds`` the
    episode's) and ``info["invalid_actions"]`` the episode's clipped actions.

    Parameters
    ----------
    scenario : xarray.Dataset, optional
        A TITAN scenario (:func:`lorasched.titan.workload.titan_scenario`). Default:
        :data:`DEFAULT_SCENARIO`, ``titan_scenario(jobs=24, nodes=2, oversize="cap",
        setup="authors_code", seed=0)``: 24 jobs on 8 GPUs, preemptive, 173 to 191
        events an episode under random play (so
        ``gymnasium.make("lorasched/Allocation-v0")`` needs no argument).
    scenario_seed : int, optional
        The default scenario's seed in place of 0 (refused with ``scenario``).
    scenario_seeds : sequence of int, optional
        A training family: each ``reset`` draws one of these seeds with the environment's
        ``np_random`` and runs its default scenario (refused with ``scenario`` or
        ``scenario_seed``, and when it holds a seed of
        :data:`~lorasched.gym.HELD_OUT_SEEDS`). The spaces are made on the first;
        a scenario that needs other spaces is refused when drawn, naming the parts (the
        default scenario's seeds all fit, natively too: their jobs and GPUs are the
        same).
    observation : {"native", "fixed"}, optional
        ``"native"`` (default): ``max_units`` slots (by default every candidate the
        scenario can offer), the scenario's A allocations and bounds from its GPUs and
        jobs. ``"fixed"``: ``max_units`` slots (default 64) and ``max_allocations``
        allocations (default 24) whatever the scenario, with the allocations themselves
        observed (Notes); the same spaces for every scenario within the maxima.
    max_allocations : int, optional
        The fixed observation's allocations (``observation="fixed"`` only; default
        :data:`FIXED_SIZES`). A scenario with more is refused, naming the size it needs.
    scale : bool, optional
        False (default): each quantity as it is, its Box bounded by the truth (``inf``
        where nothing bounds it). True: each Box part mapped into [0, 1] (Notes), for
        learners that want inputs of order one.
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
        :meth:`~lorasched.titan.env.AllocationProblem.clip`'s, ``info["action"]`` is the
        one applied and ``info["clipped"]`` True; ``"raise"``: it raises an InputError
        naming the rule it breaks.
    invalid_penalty : float, optional
        Reward taken off per clipped action (default 0: the rewards stay minus the JCT).
        A positive one shows an agent what its infeasible actions did through the reward
        alone, whatever library reads ``info``.

    Raises
    ------
    InputError
        If the scenario is not a valid TITAN scenario, an option is out of its range, or
        the scenario has more allocations than ``max_allocations``.

    Notes
    -----
    Invalid actions: :meth:`action_masks` (bool, ``max_units * (A + 1)``: each slot's
    row of valid indices, row by row, ``MaskablePPO``'s MultiDiscrete convention) removes
    each slot's infeasible choices: an allocation with no step time for the candidate, or
    more GPUs than are free, and every index but 0 for an empty slot. What it cannot say
    is joint: the slots' GPUs together must fit the free ones (eq. 4), two slots sharing a
    job cannot both get GPUs (eqs. 8-10), and all zeros is refused where it would leave
    the run with no event. Such an action is clipped (``infeasible="clip"``, the rule of
    :meth:`~lorasched.titan.env.AllocationProblem.clip`) or refused (``"raise"``), even
    for a masked agent; each clipped action is counted and optionally penalised.

    The fixed observation is the native one with ``U = max_units`` slots and the
    allocation axis padded to ``max_allocations``: ``throughput`` (U, max_allocations),
    ``action_mask`` (U, max_allocations + 1; the padded indices are never offered) and
    ``conflicts`` (U, U), so the scenario's jobs never size it; two more arrays say what
    an index means: ``allocations`` (max_allocations,) the GPUs of each (0: padding) and
    ``allocation_mask`` (int8, 1 for a real one); ``mask`` marks the real slots. The
    counts (``free_gpus``, ``gpus``, ``members``, ``allocations``) have no upper bound
    there (``inf``, which Gymnasium stores as int64's largest). The action is
    ``max_units`` indices into ``(0,) + allocations``; an index past the scenario's
    allocations is infeasible (clipped to the largest offered, or refused). Its limits: an
    event with more candidates than ``max_units`` shows the first ``max_units`` (the
    units in the system, then the waiting jobs in arrival order, then the merge
    candidates) and the others get no GPUs at that event
    (:class:`~lorasched.titan.env.AllocationProblem`'s rule, a truncation); a scenario
    with more allocations than ``max_allocations`` is refused.

    Bounds (``scale=False``): the native counts by the scenario's GPUs M (``free_gpus``,
    ``gpus``) and jobs (``members``); times, iterations, GPU-seconds and throughputs by
    ``inf``.

    The scaled observation (``scale=True``; units :data:`UNITS`, ``squash(y) = y / (1 +
    |y|)``), the same keys, shapes and masks, every Box float64 in [0, 1]:

    ============================== ================================================
    part                           transform
    ============================== ================================================
    ``free_gpus``, ``gpus``        / the scenario's GPUs M
    ``allocations`` (fixed)        / the scenario's GPUs M
    ``time_s``, ``age_s``          squash of hours
    ``attained_gpu_s``             squash of GPU-hours
    ``remaining_iterations``       squash of thousands of iterations
    ``throughput``                 squash of iterations per second
    ``members``                    squash of jobs (1 job: 1/2, a pair: 2/3)
    ============================== ================================================
    """

    metadata = {"render_modes": []}

    def __init__(self, scenario: xr.Dataset | None = None, *,
                 scenario_seed: int | None = None, scenario_seeds=None,
                 observation: str = "native", max_allocations: int | None = None,
                 scale: bool = False, merge: bool = True, switch=None,
                 switch_scale: float = 1.0, preemptive: bool | None = None,
                 candidates: str = "pairs", merge_length: str = "log",
                 tick_s: float | None = None, keep: str | None = None,
                 max_units: int | None = None, infeasible: str = "clip",
                 invalid_penalty: float = 0.0):
        self._scenarios = Scenarios(titan_scenario, DEFAULT_SCENARIO, scenario,
                                    scenario_seed, scenario_seeds)
        self.observation = check_observation(observation)
        self.sizes = fixed_sizes(observation, {"max_allocations": max_allocations},
                                 {"max_allocations": FIXED_SIZES["max_allocations"]})
        self.scale = check_scale(scale)
        self.invalid_penalty = check_penalty(invalid_penalty)
        if self.sizes and max_units is None:
            max_units = FIXED_SIZES["max_units"]
        seed, scenario = self._scenarios.first()
        scenario = _scenario(scenario)
        if infeasible not in INFEASIBLE:
            raise InputError(f"infeasible must be one of {INFEASIBLE}, got {infeasible!r}")
        self.infeasible = infeasible
        self.options = {"merge": merge, "switch": switch, "switch_scale": switch_scale,
                        "preemptive": preemptive, "candidates": candidates,
                        "merge_length": merge_length, "tick_s": tick_s, "keep": keep}
        self._max_units = max_units
        arrays, config = self._configure(scenario)
        self.problem = AllocationProblem(arrays, np.random.default_rng(0), **config)
        self.observation_space, self.action_space = self._spaces(arrays, self.problem)
        self.scenario, self.arrays, self._config = scenario, arrays, config
        #: the seed of the default scenario the episode runs (None: a given scenario)
        self.scenario_seed = seed
        self._seed: int | None = None
        self._clock = time.perf_counter()
        self._invalid = 0

    @property
    def box_keys(self) -> tuple[str, ...]:
        """The observation's Box parts (:data:`BOX_KEYS`, and ``allocations`` with the
        fixed observation), for ``VecNormalize(venv, norm_obs_keys=env.box_keys)``."""
        return box_keys(self.observation_space)

    def _configure(self, scenario: xr.Dataset):
        """A scenario's arrays and the problem's keywords (its setup's options resolved)."""
        arrays = to_arrays(scenario)
        o = self.options
        config = dict(
            merge=o["merge"], candidates=o["candidates"], merge_length=o["merge_length"],
            max_units=self._max_units,
            **cluster_options(arrays, switch=o["switch"], switch_scale=o["switch_scale"],
                              preemptive=o["preemptive"], tick_s=o["tick_s"],
                              keep=o["keep"]))
        return arrays, config

    def _spaces(self, arrays, problem: AllocationProblem):
        """(observation space, action space) of a scenario's arrays and problem."""
        U, A = problem.max_units, int(arrays.allocations.size)
        M, J = int(arrays.gpus), int(arrays.submit.size)
        if self.sizes:
            needs(self.sizes, "max_allocations", A, "allocations in its set A")
            M = J = np.inf
            A = self.sizes["max_allocations"]
        inf = np.inf
        parts = {
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
            parts["allocations"] = spaces.Box(0, M, (A,), np.int64)
            parts["allocation_mask"] = spaces.MultiBinary(A)
        if self.scale:
            for name, part in parts.items():
                if isinstance(part, spaces.Box):
                    parts[name] = unit_box(np.zeros(part.shape, dtype=bool))
        action = spaces.MultiDiscrete(np.full(U, A + 1, dtype=np.int64))
        return spaces.Dict(parts), action

    def _observe(self) -> dict[str, np.ndarray]:
        """The problem's observation, its allocations padded with the fixed observation,
        scaled with ``scale``."""
        obs = self.problem.observe()
        if not self.problem.done:
            obs["free_gpus"][0] = free_gpus(self.problem)
        if self.sizes:
            U, A = self.problem.max_units, self.sizes["max_allocations"]
            allocations = self.arrays.allocations.astype(np.int64)
            obs["throughput"] = pad(obs["throughput"], (U, A))
            obs["action_mask"] = pad(obs["action_mask"], (U, A + 1))
            obs["allocations"] = pad(allocations, (A,))
            obs["allocation_mask"] = mask(allocations.size, A)
        if self.scale:
            M = float(self.arrays.gpus)
            for name in ("free_gpus", "gpus", "allocations"):
                if name in obs:
                    obs[name] = fraction(obs[name], M)
            for name, unit in UNITS.items():
                obs[name] = squash(obs[name], unit)
        return obs

    def _load(self, seed: int | None, scenario: xr.Dataset) -> None:
        """Run ``scenario`` from now on, refused unless it fits the spaces."""
        arrays, config = self._configure(_scenario(scenario))
        problem = AllocationProblem(arrays, np.random.default_rng(0), **config)
        observation, action = self._spaces(arrays, problem)
        same_spaces(seed, self.observation_space, observation, "observation")
        same_spaces(seed, self.action_space, action, "action")
        self.scenario, self.arrays, self._config = scenario, arrays, config

    def action_masks(self) -> np.ndarray:
        """Each slot's valid indices at this event, flat (the mask ``MaskablePPO`` reads).

        Returns
        -------
        numpy.ndarray
            bool[max_units * (A + 1)]: slot 0's row of ``A + 1`` indices (0 = no GPUs,
            always valid), then slot 1's, and so on (A: ``max_allocations`` with the
            fixed observation, whose padded indices are never valid). Jointly an action
            must also fit the free GPUs and give no job two slots (class Notes).
        """
        rows = self.problem.action_mask()
        if self.sizes:
            rows = pad(rows, (rows.shape[0], self.sizes["max_allocations"] + 1))
        return rows.reshape(-1)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start the run over.

        Parameters
        ----------
        seed : int, optional
            Seeds ``self.np_random``: it draws the scenario of a family
            (``scenario_seeds``), then the problem's
            :meth:`~lorasched.titan.env.AllocationProblem.random_action`.
        options : dict, optional
            ``{"scenario_seed": k}``: this episode runs the default scenario of seed ``k``
            (e.g. one of :func:`~lorasched.gym.held_out_seeds`, for evaluation).
            Any other key is refused.

        Returns
        -------
        observation : dict of numpy.ndarray
            The first event's.
        info : dict
            ``scenario_seed``: the episode's default scenario's seed (None for a given
            scenario).

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
        self.problem = AllocationProblem(self.arrays, self.np_random, **self._config)
        self._clock = time.perf_counter()
        self._invalid = 0
        return self._observe(), {"scenario_seed": scenario_seed}

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
            Minus the job-hours accrued until the next event, less ``invalid_penalty``
            if the action was clipped.
        terminated : bool
            Whether the run is over.
        truncated : bool
            Always False.
        info : dict
            ``action``: the action applied; ``clipped``: whether it differs from the one
            given; at the end also ``result``, the result Dataset, and
            ``invalid_actions``, the episode's clipped actions.

        Raises
        ------
        InputError
            If the run is over, the action has the wrong shape, or (``infeasible =
            "raise"``) it is infeasible.
        """
        clipped = False
        if self.infeasible == "clip":
            applied = self.problem.clip(action)
            clipped = bool(np.any(applied != np.asarray(action)))
            action = applied
        reward, done = self.problem.step(action)
        if clipped:
            self._invalid += 1
            reward -= self.invalid_penalty
        info = {"action": np.asarray(action, dtype=np.int64), "clipped": clipped}
        if done:
            result = assemble(self.scenario, self.problem.output(), algorithm="gym",
                              seed=self._seed, options=self.options)
            result.attrs["wall_seconds"] = time.perf_counter() - self._clock
            check_result(result)
            info["result"] = result
            info["invalid_actions"] = self._invalid
        return self._observe(), float(reward), bool(done), False, info
