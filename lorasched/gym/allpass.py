"""Allpass's provisioning each minute as a Gymnasium environment (:class:`ProvisioningEnv`),
one step per tick, over :class:`lorasched.allpass.env.ProvisioningProblem`. Observation: a
Dict of Boxes (bounded by ``BOUND``): the time, the jobs by tier, the queued jobs'
remaining work and laxity (EDF order, padded, with a mask) and their summary, the serverful
workers (open, busy, idle ready, starting), the pressure p with D and T, the threshold F,
the next workers' prices and the marketplace's free offers. Action: Discrete over -K..K,
the change in serverful workers (clipped at what is possible; ``info["action_mask"]`` marks
the unclipped ones). Reward: minus the dollars accrued since the last tick, optionally minus
a weight times the job completion time accrued; F stays Algorithm 1's. Without a scenario
it runs :data:`DEFAULT_SCENARIO`; ``observation="fixed"`` bounds the job counts by ``BOUND``
rather than by the scenario's jobs, the same space for every scenario.
"""

from __future__ import annotations

import inspect
import math

import gymnasium
import numpy as np
import xarray as xr
from gymnasium import spaces

from ..allpass import allpass_scenario
from ..allpass.clouds import PROVIDERS
from ..allpass.env import MAX_STEP, PRICES_K, QUEUE_K, ProvisioningProblem
from ..allpass.result import assemble, check_result
from ..allpass.scenario import to_arrays, validate
from ..model.errors import InputError
from .common import built, check_observation, check_seed

#: the bound of the observation's unbounded quantities (seconds, work, counts): finite, so
#: that the spaces are boxes an agent can scale, and far beyond any run (3e4 years)
BOUND = 1e12
#: the scenario ``ProvisioningEnv()`` runs without one, as the arguments of
#: :func:`~lorasched.allpass.workload.allpass_scenario` (10 Helios jobs at their trace's
#: durations, at most 4 serverful workers, a 2-hour offer book); ``scenario_seed``
#: replaces its seed
DEFAULT_SCENARIO = dict(jobs=10, capacity=4, sizing="trace", book_hours=2, seed=0)


def default_scenario(seed: int | None = None) -> xr.Dataset:
    """:data:`DEFAULT_SCENARIO` as the Allpass scenario it builds (``seed``: in place of its
    seed)."""
    return built(allpass_scenario, DEFAULT_SCENARIO, seed)


#: the options of the decision problem beyond the ones ProvisioningEnv names
_OPTIONS = frozenset(inspect.signature(ProvisioningProblem).parameters) - {
    "arrays", "rng", "max_step", "jct_weight", "prices_k", "queue_k"}


def _box(n, low=0.0, shape=None, high=BOUND) -> spaces.Box:
    return spaces.Box(low=low, high=high, shape=shape or (n,), dtype=np.float64)


class ProvisioningEnv(gymnasium.Env):
    """Allpass's provisioning each minute (module docstring), seeded through ``reset``.

    Parameters
    ----------
    scenario : xarray.Dataset, optional
        An Allpass scenario (``lorasched.allpass_scenario``). Default:
        :data:`DEFAULT_SCENARIO`, ``allpass_scenario(jobs=10, capacity=4, sizing="trace",
        book_hours=2, seed=0)``, about 110 ticks an episode (so
        ``gymnasium.make("lorasched/Provisioning-v0")`` needs no argument).
    scenario_seed : int, optional
        The default scenario's seed in place of 0 (refused with ``scenario``).
    observation : {"native", "fixed"}, optional
        The observation's shapes are the options' (``queue_k`` rows, ``prices_k``
        prices), never the scenario's. ``"native"`` (default) bounds the job counts
        (``jobs``) by the scenario's jobs; ``"fixed"`` by ``BOUND``, so that the space is
        the same for every scenario.
    max_step : int, optional
        K: the action is a change in serverful workers in ``-K..K`` (default 4).
    jct_weight : float, optional
        USD per minute of job completion time taken off the reward (default 0).
    prices_k, queue_k : int, optional
        Prices and queued jobs observed (defaults 4 and 8).
    **options
        Algorithm 1's and the pressure's options of the policy ``allpass`` (``F0``,
        ``G_up``, ``R_up``, ``G_dn``, ``R_dn``, ``overdue``, ``demand``, ``units``,
        ``checkpoint_s``, ``restore_s``).

    Raises
    ------
    InputError
        For a scenario that is not a valid Allpass one, or an option out of range.

    Notes
    -----
    Both observations are fixed in size: the queue is the ``queue_k`` most urgent jobs
    (earliest deadline first) with ``queue_mask`` marking the real rows, the rest
    summarised in ``queue_summary``, and ``prices`` the next ``prices_k`` workers' prices.
    So no scenario is too large for the fixed observation; a longer queue is cut to its
    ``queue_k`` most urgent jobs (the native observation's rule too).
    """

    metadata = {"render_modes": []}

    def __init__(self, scenario: xr.Dataset | None = None, *,
                 scenario_seed: int | None = None, observation: str = "native",
                 max_step: int = MAX_STEP, jct_weight: float = 0.0, prices_k: int = PRICES_K,
                 queue_k: int = QUEUE_K, **options):
        seed = check_seed(scenario, scenario_seed)
        self.observation = check_observation(observation)
        if scenario is None:
            scenario = default_scenario(seed)
        if not isinstance(scenario, xr.Dataset) or scenario.attrs.get("system") != "allpass":
            raise InputError("scenario must be an Allpass scenario (an xarray.Dataset with "
                             "attrs['system'] == 'allpass'; lorasched.allpass_scenario)")
        validate(scenario)
        self.scenario = scenario
        self._arrays = to_arrays(scenario)
        unknown = sorted(set(options) - _OPTIONS)
        if unknown:
            raise InputError(f"unknown option {unknown[0]!r}: the options are "
                             f"{sorted(_OPTIONS)}")
        self.config = {"max_step": max_step, "jct_weight": jct_weight, "prices_k": prices_k,
                       "queue_k": queue_k, **options}
        probe = ProvisioningProblem(self._arrays, np.random.default_rng(0), **self.config)
        K, q, k, n = probe.max_step, probe.queue_k, probe.prices_k, self._arrays.submit.size
        if observation == "fixed":
            n = BOUND
        self.action_space = spaces.Discrete(2 * K + 1, start=-K)
        self.observation_space = spaces.Dict({
            "time": _box(1),
            "jobs": spaces.Box(0.0, float(n), shape=(4,), dtype=np.float64),
            "queue": spaces.Box(np.tile([0.0, -BOUND], (q, 1)), BOUND, dtype=np.float64),
            "queue_mask": spaces.MultiBinary(q),
            "queue_summary": spaces.Box(np.array([0.0, 0.0, -BOUND, -BOUND]), BOUND,
                                        dtype=np.float64),
            "workers": _box(4),
            "pressure": _box(3),
            "F": _box(1),
            "prices": _box(k, high=PROVIDERS["lambda"].price_per_gpu_h),
            "free_offers": _box(1),
        })
        self._problem: ProvisioningProblem | None = None
        self._seed: int | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode at the first tick.

        Parameters
        ----------
        seed : int, optional
            Seeds the environment's Generator (``self.np_random``, the stream of
            ``numpy.random.default_rng(seed)``), which draws the start-up delays: the
            same seed gives the same episode, and the seed of ``simulate`` the same draws.
        options : dict, optional
            Unused (must be None or empty).

        Returns
        -------
        observation : dict of numpy.ndarray
            The first tick's state.
        info : dict
            ``action_mask``: the actions possible without clipping (int8 over -K..K).
        """
        if options:
            raise InputError(f"options must be None or empty, got {options!r}")
        super().reset(seed=seed)
        self._seed = seed
        self._problem = ProvisioningProblem(self._arrays, self.np_random, **self.config)
        return self._problem.observe(), self._info()

    def step(self, action):
        """Carry out one tick's provisioning and run to the next tick.

        Parameters
        ----------
        action : int
            The change in serverful workers, in ``-K..K``.

        Returns
        -------
        observation : dict of numpy.ndarray
            The next tick's state (the final state once terminated).
        reward : float
            Minus the USD (and the weighted completion time) accrued since the last tick.
        terminated : bool
            Whether every job is done.
        truncated : bool
            Always False.
        info : dict
            ``action_mask``; once terminated, ``result``: the checked result Dataset of
            ``lorasched.allpass.result``.

        Raises
        ------
        InputError
            For an action out of range, or a step before ``reset`` or after the end.
        """
        if self._problem is None:
            raise InputError("step needs an episode: call reset first")
        reward, done = self._problem.step(action)
        info = self._info()
        if done:
            info["result"] = self.result()
        return self._problem.observe(), reward, done, False, info

    def result(self) -> xr.Dataset:
        """The finished episode's result, assembled and checked as ``simulate``'s.

        Returns
        -------
        xarray.Dataset
            With ``attrs["algorithm"] == "gym"`` and ``wall_seconds`` NaN (the time
            belongs to the agent).

        Raises
        ------
        InputError
            Before the episode is over.
        """
        if self._problem is None:
            raise InputError("result needs an episode: call reset first")
        F0 = float(self.config.get("F0", 300.0))
        result = assemble(self.scenario, self._problem.output(), algorithm="gym",
                          seed=self._seed, options=self.config, F0=F0)
        result.attrs["wall_seconds"] = math.nan
        check_result(result)
        return result

    def _info(self) -> dict:
        return {"action_mask": self._problem.valid_actions().astype(np.int8)}
