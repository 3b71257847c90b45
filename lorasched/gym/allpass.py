"""Allpass's provisioning each minute as a Gymnasium environment (:class:`ProvisioningEnv`),
one step per tick, over :class:`lorasched.allpass.env.ProvisioningProblem`. Observation: a
Dict of Boxes: the time, the jobs by tier, the queued jobs' remaining work and laxity (EDF
order, padded, with a mask) and their summary, the serverful workers (open, busy, idle
ready, starting), the pressure p with D and T, the threshold F, the next workers' prices
and the marketplace's free offers; bounded by the truth (``inf`` where a quantity has no
bound; p is observed capped at ``lorasched.allpass.env.P_CAP`` (1e6), its bound), or with
``scale=True`` mapped into [0, 1] / [-1, 1] (:data:`UNITS`). Action: ``Discrete(2K + 1)``
from 0, where action ``i`` is a change of ``i - K`` serverful workers (0: release K, K:
no change, 2K: add K), clipped at what is possible; :meth:`ProvisioningEnv.action_masks`
marks the unclipped ones and ``info["change"]`` is the change applied. Reward: minus the
dollars accrued since the last tick, optionally minus a weight times the job completion
time accrued; F stays Algorithm 1's. Without a scenario it runs :data:`DEFAULT_SCENARIO`
(or, with ``scenario_seeds``, its seeds drawn per episode); ``observation="fixed"``
leaves the job counts unbounded rather than bounded by the scenario's jobs, the same space
for every scenario.
"""

from __future__ import annotations

import inspect
import math
import numbers

import gymnasium
import numpy as np
import xarray as xr
from gymnasium import spaces

from ..allpass import allpass_scenario
from ..allpass.clouds import PROVIDERS
from ..allpass.env import MAX_STEP, P_CAP, PRICES_K, QUEUE_K, ProvisioningProblem
from ..allpass.result import assemble, check_result
from ..allpass.scenario import to_arrays, validate
from ..model.errors import InputError
from .common import (
    Scenarios,
    box_keys,
    built,
    check_observation,
    check_penalty,
    check_scale,
    fraction,
    same_spaces,
    squash,
    unit_box,
)

#: what :class:`ProvisioningEnv` does with an action the mask refuses: carry out the
#: nearest possible change (default: any agent may act), or raise an InputError
INVALID_ACTIONS = ("clip", "raise")
#: the Box parts of the observation (every part but ``queue_mask``), in the space's
#: (sorted) order, the ones ``VecNormalize(norm_obs_keys=...)`` may normalise
BOX_KEYS = ("F", "free_offers", "jobs", "pressure", "prices", "queue", "queue_summary",
            "time", "workers")
#: the typical sizes of the scaled observation (``scale=True``): a quantity ``x`` of
#: these units is shown as ``squash(x / unit)`` = ``y / (1 + |y|)`` of ``y = x / unit``
#: (1/2 at one unit): the time, queued work and laxity 3600 s, the demand D, the window T
#: and the threshold F 600 s, 50 free offers, 10 workers (a scenario with no cap only; a
#: cap scales them); p is dimensionless (``p / (1 + p)``)
UNITS = {"time": 3600.0, "work": 3600.0, "laxity": 3600.0, "demand": 600.0,
         "window": 600.0, "F": 600.0, "free_offers": 50.0, "workers": 10.0,
         "pressure": 1.0}
#: the scenario ``ProvisioningEnv()`` runs without one, as the arguments of
#: :func:`~lorasched.allpass.workload.allpass_scenario` (10 Helios jobs at their trace's
#: durations, at most 4 serverful workers, a 2-hour offer book), whose jobs queue for the
#: workers so that every part of the observation moves; ``scenario_seed`` replaces its
#: seed
DEFAULT_SCENARIO = dict(jobs=10, source="helios", capacity=4, sizing="trace",
                        book_hours=2, seed=0)


def default_scenario(seed: int | None = None) -> xr.Dataset:
    """:data:`DEFAULT_SCENARIO` as the Allpass scenario it builds (``seed``: in place of its
    seed)."""
    return built(allpass_scenario, DEFAULT_SCENARIO, seed)


#: the options of the decision problem beyond the ones ProvisioningEnv names
_OPTIONS = frozenset(inspect.signature(ProvisioningProblem).parameters) - {
    "arrays", "rng", "max_step", "jct_weight", "prices_k", "queue_k"}


def _box(n, low=0.0, shape=None, high=np.inf) -> spaces.Box:
    return spaces.Box(low=low, high=high, shape=shape or (n,), dtype=np.float64)


def _scenario(scenario) -> xr.Dataset:
    if not isinstance(scenario, xr.Dataset) or scenario.attrs.get("system") != "allpass":
        raise InputError("scenario must be an Allpass scenario (an xarray.Dataset with "
                         "attrs['system'] == 'allpass'; lorasched.allpass_scenario)")
    validate(scenario)
    return scenario


class ProvisioningEnv(gymnasium.Env):
    """Allpass's provisioning each minute (module docstring), seeded through ``reset``.

    Parameters
    ----------
    scenario : xarray.Dataset, optional
        An Allpass scenario (``lorasched.allpass_scenario``). Default:
        :data:`DEFAULT_SCENARIO`, ``allpass_scenario(jobs=10, source="helios",
        capacity=4, sizing="trace", book_hours=2, seed=0)``, 112 to 114 ticks an episode
        under random play (so ``gymnasium.make("lorasched/Provisioning-v0")`` needs no argument).
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
        The observation's shapes are the options' (``queue_k`` rows, ``prices_k``
        prices), never the scenario's. ``"native"`` (default) bounds the job counts
        (``jobs``, the queue's count) by the scenario's jobs and the workers by its cap;
        ``"fixed"`` leaves them unbounded (``inf``), so that the space is the same for
        every scenario.
    scale : bool, optional
        False (default): each quantity as it is, its Box bounded by the truth. True: each
        Box part mapped into [0, 1] (or [-1, 1] for laxities; Notes), for learners that
        want inputs of order one.
    max_step : int, optional
        K: the action ``i`` in ``0..2K`` is a change of ``i - K`` serverful workers
        (default 4).
    invalid_action : {"clip", "raise"}, optional
        What an action the mask refuses (a release of more workers than are idle and
        ready, or an addition beyond the cap) does: the nearest possible change, with
        ``info["clipped"]`` True (default), or an InputError naming the changes possible.
    invalid_penalty : float, optional
        Reward taken off per clipped action (default 0: the rewards stay minus the
        dollars). A positive one shows an agent that ignores :meth:`action_masks` what
        it did through the reward alone, whatever library reads ``info``.
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

    Actions: the decision problem takes the signed change
    (:meth:`~lorasched.allpass.env.ProvisioningProblem.step`); this environment's action
    ``i`` starts at 0, as every learning library samples, and asks for ``i - K``. An
    action :meth:`action_masks` refuses is clipped to the nearest possible change (a
    masked agent never takes one); ``info`` says the change ``asked``, the ``change``
    applied and whether it was ``clipped``, and the episode's last ``info`` the count
    ``invalid_actions``. After the action, the liveness rule of the policy ``allpass``
    opens a worker when none is open and jobs wait (not counted in ``change``).

    Bounds (``scale=False``): seconds, work, laxities, D, T, F and the free offers have
    ``inf`` (laxities ``-inf`` below); the job counts are bounded by the scenario's jobs
    and the workers by its cap (native observation), the prices by the conventional
    cloud's price (the dearest an addition pays). The pressure p is infinite when no
    serverful worker is open and jobs wait: it is observed capped at
    ``lorasched.allpass.env.P_CAP`` (1e6), and its Box says so (high ``P_CAP``), rather
    than ``inf``, which would make every normaliser's mean infinite and every network's
    input undefined; the cap is far above any finite p of a run.

    The scaled observation (``scale=True``; units :data:`UNITS`, ``squash(y) = y / (1 +
    |y|)``), the same keys, shapes and mask:

    ============================== ================================================ ========
    part                           transform                                        range
    ============================== ================================================ ========
    ``time``                       squash of hours                                  [0, 1)
    ``jobs``                       / the scenario's jobs                            [0, 1]
    ``queue``: work, laxity        squash of hours                                  [-1, 1]
    ``queue_summary``              count / jobs; work, least and mean laxity:       [-1, 1]
                                   squash of hours
    ``workers``                    / the scenario's cap (no cap: squash of 10)      [0, 1]
    ``pressure``: p, D, T          ``p / (1 + p)`` (P_CAP: 1 - 1e-6); squash of     [0, 1]
                                   600 s
    ``F``                          squash of 600 s                                  [0, 1)
    ``prices``                     / the conventional cloud's $/GPU-h               [0, 1]
    ``free_offers``                squash of 50 offers                              [0, 1)
    ============================== ================================================ ========
    """

    metadata = {"render_modes": []}

    def __init__(self, scenario: xr.Dataset | None = None, *,
                 scenario_seed: int | None = None, scenario_seeds=None,
                 observation: str = "native", scale: bool = False,
                 max_step: int = MAX_STEP, invalid_action: str = "clip",
                 invalid_penalty: float = 0.0, jct_weight: float = 0.0,
                 prices_k: int = PRICES_K, queue_k: int = QUEUE_K, **options):
        self._scenarios = Scenarios(allpass_scenario, DEFAULT_SCENARIO, scenario,
                                    scenario_seed, scenario_seeds)
        self.observation = check_observation(observation)
        self.scale = check_scale(scale)
        self.invalid_penalty = check_penalty(invalid_penalty)
        if invalid_action not in INVALID_ACTIONS:
            raise InputError(f"invalid_action must be one of {INVALID_ACTIONS}, got "
                             f"{invalid_action!r}")
        self.invalid_action = invalid_action
        seed, scenario = self._scenarios.first()
        scenario = _scenario(scenario)
        if "render_mode" in options:
            # what Python says to the other two environments, which name their options: a
            # library that tries a render mode first (Stable-Baselines3's make_vec_env)
            # falls back on this TypeError
            raise TypeError("ProvisioningEnv.__init__() got an unexpected keyword argument "
                            "'render_mode' (it renders nothing)")
        unknown = sorted(set(options) - _OPTIONS)
        if unknown:
            raise InputError(f"unknown option {unknown[0]!r}: the options are "
                             f"{sorted(_OPTIONS)}")
        self.config = {"max_step": max_step, "jct_weight": jct_weight, "prices_k": prices_k,
                       "queue_k": queue_k, **options}
        arrays = to_arrays(scenario)
        probe = ProvisioningProblem(arrays, np.random.default_rng(0), **self.config)
        #: K, the largest change in serverful workers per tick
        self.max_step = probe.max_step
        self.action_space = spaces.Discrete(2 * self.max_step + 1)
        self.observation_space = self._space(arrays, probe)
        self.scenario, self._arrays = scenario, arrays
        #: the seed of the default scenario the episode runs (None: a given scenario)
        self.scenario_seed = seed
        self._problem: ProvisioningProblem | None = None
        self._seed: int | None = None
        self._invalid = 0

    @property
    def box_keys(self) -> tuple[str, ...]:
        """The observation's Box parts (:data:`BOX_KEYS`), for ``VecNormalize(venv,
        norm_obs_keys=env.box_keys)``."""
        return box_keys(self.observation_space)

    def _space(self, arrays, probe: ProvisioningProblem) -> spaces.Dict:
        """The observation space of a scenario's arrays."""
        q, k = probe.queue_k, probe.prices_k
        n, cap = float(arrays.submit.size), float(arrays.capacity)
        if self.observation == "fixed":
            n = cap = np.inf
        inf = np.inf
        if self.scale:
            return spaces.Dict({
                "time": unit_box([False]),
                "jobs": unit_box([False] * 4),
                "queue": unit_box(np.tile([False, True], (q, 1))),
                "queue_mask": spaces.MultiBinary(q),
                "queue_summary": unit_box([False, False, True, True]),
                "workers": unit_box([False] * 4),
                "pressure": unit_box([False] * 3),
                "F": unit_box([False]),
                "prices": unit_box([False] * k),
                "free_offers": unit_box([False]),
            })
        return spaces.Dict({
            "time": _box(1),
            "jobs": _box(4, high=n),
            "queue": spaces.Box(np.tile([0.0, -inf], (q, 1)), inf, dtype=np.float64),
            "queue_mask": spaces.MultiBinary(q),
            "queue_summary": spaces.Box(np.array([0.0, 0.0, -inf, -inf]),
                                        np.array([n, inf, inf, inf]), dtype=np.float64),
            "workers": _box(4, high=cap),
            "pressure": spaces.Box(0.0, np.array([P_CAP, inf, inf]), dtype=np.float64),
            "F": _box(1),
            "prices": _box(k, high=PROVIDERS["lambda"].price_per_gpu_h),
            "free_offers": _box(1),
        })

    def _observe(self) -> dict[str, np.ndarray]:
        """The problem's observation, scaled with ``scale`` (class Notes)."""
        obs = self._problem.observe()
        if not self.scale:
            return obs
        a, u = self._arrays, UNITS
        n = float(a.submit.size)
        queue, summary, pressure = obs["queue"], obs["queue_summary"], obs["pressure"]
        return {
            "time": squash(obs["time"], u["time"]),
            "jobs": fraction(obs["jobs"], n),
            "queue": squash(queue, np.array([u["work"], u["laxity"]])),
            "queue_mask": obs["queue_mask"],
            "queue_summary": np.r_[fraction(summary[:1], n),
                                   squash(summary[1:], np.array([u["work"], u["laxity"],
                                                                 u["laxity"]]))],
            "workers": (fraction(obs["workers"], float(a.capacity))
                        if math.isfinite(a.capacity) else
                        squash(obs["workers"], u["workers"])),
            "pressure": squash(pressure, np.array([u["pressure"], u["demand"],
                                                   u["window"]])),
            "F": squash(obs["F"], u["F"]),
            "prices": fraction(obs["prices"], PROVIDERS["lambda"].price_per_gpu_h),
            "free_offers": squash(obs["free_offers"], u["free_offers"]),
        }

    def _load(self, seed: int | None, scenario: xr.Dataset) -> None:
        """Run ``scenario`` from now on, refused unless it fits the spaces."""
        arrays = to_arrays(_scenario(scenario))
        probe = ProvisioningProblem(arrays, np.random.default_rng(0), **self.config)
        same_spaces(seed, self.observation_space, self._space(arrays, probe), "observation")
        self.scenario, self._arrays = scenario, arrays

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode at the first tick.

        Parameters
        ----------
        seed : int, optional
            Seeds the environment's Generator (``self.np_random``, the stream of
            ``numpy.random.default_rng(seed)``), which draws the scenario of a family
            (``scenario_seeds``), then the start-up delays: the same seed gives the same
            episode, and (without a family) the seed of ``simulate`` the same draws.
        options : dict, optional
            ``{"scenario_seed": k}``: this episode runs the default scenario of seed ``k``
            (e.g. one of :func:`~lorasched.gym.held_out_seeds`, for evaluation).
            Any other key is refused.

        Returns
        -------
        observation : dict of numpy.ndarray
            The first tick's state.
        info : dict
            ``action_mask``: the actions possible without clipping (int8 over ``0..2K``);
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
        self._seed = seed
        self._problem = ProvisioningProblem(self._arrays, self.np_random, **self.config)
        self._invalid = 0
        return self._observe(), {**self._info(), "scenario_seed": scenario_seed}

    def action_masks(self) -> np.ndarray:
        """The actions possible without clipping (the mask ``MaskablePPO`` reads).

        Returns
        -------
        numpy.ndarray
            bool[2K + 1]: action ``i`` (a change of ``i - K`` workers) releases at most
            the idle ready workers and adds at most the cap's room; K (no change) is
            always possible; all False once the episode is over.

        Raises
        ------
        InputError
            Before ``reset``.
        """
        if self._problem is None:
            raise InputError("action_masks needs an episode: call reset first")
        return self._problem.valid_actions()

    def step(self, action):
        """Carry out one tick's provisioning and run to the next tick.

        Parameters
        ----------
        action : int
            In ``0..2K``: a change of ``action - K`` serverful workers.

        Returns
        -------
        observation : dict of numpy.ndarray
            The next tick's state (the final state once terminated).
        reward : float
            Minus the USD (and the weighted completion time) accrued since the last tick,
            less ``invalid_penalty`` if the action was clipped.
        terminated : bool
            Whether every job is done.
        truncated : bool
            Always False.
        info : dict
            ``asked`` (the change ``action - K``), ``change`` (the change applied, the
            nearest possible), ``clipped`` (whether they differ) and ``action_mask`` (the
            next tick's); once terminated, ``result``: the checked result Dataset of
            ``lorasched.allpass.result``, and ``invalid_actions``, the episode's clipped
            actions.

        Raises
        ------
        InputError
            For an action out of range, a step before ``reset`` or after the end, or a
            clipped action with ``invalid_action="raise"``.
        """
        problem = self._problem
        if problem is None:
            raise InputError("step needs an episode: call reset first")
        if problem.done:
            raise InputError("the episode is over: every job is done")
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action[()]
        K = self.max_step
        if (isinstance(action, bool | np.bool_) or not isinstance(action, numbers.Integral)
                or not 0 <= action <= 2 * K):
            raise InputError(f"action must be an integer in 0..{2 * K} (a change of "
                             f"action - {K} serverful workers), got {action!r}")
        asked = int(action) - K
        possible = problem.actions()[problem.valid_actions()]
        change = int(np.clip(asked, possible.min(), possible.max()))
        clipped = change != asked
        if clipped and self.invalid_action == "raise":
            raise InputError(f"action {int(action)} asks a change of {asked:+d} serverful "
                             f"workers; possible now: {possible.min():+d} to "
                             f"{possible.max():+d} (actions {possible.min() + K} to "
                             f"{possible.max() + K})")
        reward, done = problem.step(change)
        if clipped:
            self._invalid += 1
            reward -= self.invalid_penalty
        info = {"asked": asked, "change": change, "clipped": clipped, **self._info()}
        if done:
            info["result"] = self.result()
            info["invalid_actions"] = self._invalid
        return self._observe(), float(reward), done, False, info

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
