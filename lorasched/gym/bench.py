"""Looking at the environments and timing them: their spaces as a table, one episode of a
random agent (uniform over the action space, or over the actions ``action_masks()``
allows), the observation parts that random play never moves, random steps of a vectorised
environment, and the steps per second of each environment measured by Gymnasium's own
``benchmark_step``. The book's Gymnasium page (notebook ``gym``) shows these.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterable, Sequence

import gymnasium
import numpy as np
import pandas as pd
from gymnasium.utils.performance import benchmark_step

from ..model.errors import InputError


def describe(env: gymnasium.Env) -> pd.DataFrame:
    """An environment's observation and action spaces, one row per part.

    Parameters
    ----------
    env : gymnasium.Env
        Any environment with a Dict observation space (each of lorasched's).

    Returns
    -------
    pandas.DataFrame
        Index ``part`` (each observation key, then ``action``); columns ``space`` (the
        space's class), ``shape`` and ``dtype``.
    """
    space = env.observation_space
    if not isinstance(space, gymnasium.spaces.Dict):
        raise InputError(f"describe needs a Dict observation space, got "
                         f"{type(space).__name__}")
    rows = [(key, type(part).__name__, part.shape, str(part.dtype))
            for key, part in space.spaces.items()]
    action = env.action_space
    rows.append(("action", type(action).__name__, action.shape, str(action.dtype)))
    return pd.DataFrame(rows, columns=["part", "space", "shape", "dtype"]).set_index("part")


def masked_sample(env: gymnasium.Env):
    """An action drawn uniformly among those the environment's ``action_masks()`` allows
    (per slot for a MultiDiscrete action), from its action space's generator.

    Parameters
    ----------
    env : gymnasium.Env
        One of lorasched's environments, bare or wrapped (``gymnasium.make``'s), after
        ``reset``; its action space is Discrete or one-dimensional MultiDiscrete.

    Returns
    -------
    int or numpy.ndarray
        The action.

    Raises
    ------
    InputError
        If the environment has no ``action_masks`` or its action space is neither.
    """
    try:
        masks = np.asarray(env.get_wrapper_attr("action_masks")(), dtype=np.int8)
    except AttributeError:
        raise InputError(f"{type(env.unwrapped).__name__} has no action_masks()") from None
    space = env.action_space
    if isinstance(space, gymnasium.spaces.Discrete):
        return space.sample(mask=masks)
    if isinstance(space, gymnasium.spaces.MultiDiscrete) and space.nvec.ndim == 1:
        return space.sample(mask=tuple(np.split(masks, np.cumsum(space.nvec)[:-1])))
    raise InputError(f"masked_sample needs a Discrete or MultiDiscrete action space, got "
                     f"{type(space).__name__}")


def random_episode(env: gymnasium.Env, seed: int = 0, max_steps: int = 10 ** 6,
                   masked: bool = False) -> dict:
    """One episode of an agent acting uniformly at random.

    Parameters
    ----------
    env : gymnasium.Env
        The environment (reset here with ``seed``; its action space is seeded with it).
    seed : int, optional
        Seeds the reset and the actions (default 0).
    max_steps : int, optional
        Steps after which the episode is abandoned (default a million).
    masked : bool, optional
        Draw from the whole action space (default) or among the actions the environment's
        ``action_masks()`` allows (:func:`masked_sample`).

    Returns
    -------
    dict
        ``steps``, ``reward`` (their sum), ``seconds`` (wall time of the steps) and
        ``ended`` (whether the episode terminated or was truncated within ``max_steps``).
    """
    env.reset(seed=seed)
    env.action_space.seed(seed)
    steps, total, ended = 0, 0.0, False
    start = time.perf_counter()
    while steps < max_steps and not ended:
        action = masked_sample(env) if masked else env.action_space.sample()
        _, reward, terminated, truncated, _ = env.step(action)
        steps += 1
        total += float(reward)
        ended = bool(terminated or truncated)
    return {"steps": steps, "reward": total, "seconds": time.perf_counter() - start,
            "ended": ended}


def frozen_parts(env: gymnasium.Env, episodes: int = 5, seed: int = 0) -> list[str]:
    """The observation parts that never move over a few episodes of masked random play.

    Parameters
    ----------
    env : gymnasium.Env
        One of lorasched's environments (a Dict observation and ``action_masks()``).
    episodes : int, optional
        Episodes played, reset with seeds ``seed``, ``seed + 1``, ... (default 5).
    seed : int, optional
        The first episode's seed, also the actions' (default 0).

    Returns
    -------
    list of str
        The observation keys whose array is the same at every step of every episode, in
        the space's order (empty: every part takes more than one value). Only the
        observations an agent acts on count: each episode's last one, after it ended, is
        left out.

    Raises
    ------
    InputError
        If ``episodes`` is not a positive integer.
    """
    if isinstance(episodes, bool) or not isinstance(episodes, int | np.integer) \
            or episodes < 1:
        raise InputError(f"episodes must be a positive integer, got {episodes!r}")
    first: dict[str, np.ndarray] = {}
    moved: set[str] = set()
    env.action_space.seed(seed)
    for episode in range(int(episodes)):
        obs, _ = env.reset(seed=seed + episode)
        done = False
        while not done:
            for key, value in obs.items():
                if key not in first:
                    first[key] = np.array(value, copy=True)
                elif key not in moved and not np.array_equal(first[key], value):
                    moved.add(key)
            obs, _, terminated, truncated, _ = env.step(masked_sample(env))
            done = terminated or truncated
    return [key for key in env.observation_space.spaces if key not in moved]


def defaults(ids: dict[str, str], scenarios: dict[str, dict], seed: int = 0) -> pd.DataFrame:
    """Each id made with no argument: its default scenario and one random episode on it.

    Parameters
    ----------
    ids : dict of str to str
        The registered id of each system (``lorasched.gym.IDS``).
    scenarios : dict of str to dict
        The default scenario's builder arguments of each system
        (``lorasched.gym.DEFAULT_SCENARIOS``).
    seed : int, optional
        Seeds the episode (:func:`random_episode`; default 0).

    Returns
    -------
    pandas.DataFrame
        Index ``system``; columns ``id``, ``default scenario`` (the builder's arguments),
        ``steps per episode`` and ``seconds per episode`` (a random agent's, Gymnasium's
        wrappers included).
    """
    rows = []
    for system, env_id in ids.items():
        episode = random_episode(gymnasium.make(env_id), seed=seed)
        arguments = ", ".join(f"{k}={v!r}" for k, v in scenarios[system].items())
        rows.append((system, env_id, arguments, episode["steps"], episode["seconds"]))
    return pd.DataFrame(rows, columns=["system", "id", "default scenario",
                                       "steps per episode", "seconds per episode"]
                        ).set_index("system")


def shapes(env_id: str, scenarios: Sequence, parts: Sequence[str],
           observations: Iterable[str] = ("native", "fixed")) -> pd.DataFrame:
    """The shapes of some observation parts, per scenario and observation option.

    Parameters
    ----------
    env_id : str
        A registered id.
    scenarios : sequence of xarray.Dataset
        Scenarios of the id's system.
    parts : sequence of str
        Keys of the observation.
    observations : iterable of str, optional
        The observation options compared (default both).

    Returns
    -------
    pandas.DataFrame
        Index ``scenario`` (its position); columns (observation, part): the part's shape.
    """
    table = {}
    for observation in observations:
        for i, scenario in enumerate(scenarios):
            space = gymnasium.make(env_id, scenario=scenario,
                                   observation=observation).observation_space
            for part in parts:
                table.setdefault((observation, part), {})[i] = space[part].shape
    frame = pd.DataFrame(table)
    frame.index.name = "scenario"
    return frame


def vector(env_id: str, scenarios: Sequence, **config) -> gymnasium.vector.SyncVectorEnv:
    """One synchronous vectorised environment over several scenarios of one system.

    Parameters
    ----------
    env_id : str
        A registered id.
    scenarios : sequence of xarray.Dataset
        One scenario per sub-environment.
    **config
        The environment's options, the same for each (``observation="fixed"`` for
        scenarios of different sizes).

    Returns
    -------
    gymnasium.vector.SyncVectorEnv
        Its sub-environments are ``gymnasium.make(env_id, scenario=s, **config)``.

    Raises
    ------
    RuntimeError
        Gymnasium's, if the sub-environments' spaces differ (the native observation of
        scenarios of different sizes).
    """
    return gymnasium.vector.SyncVectorEnv(
        [functools.partial(gymnasium.make, env_id, scenario=s, **config) for s in scenarios])


def rollout(envs: gymnasium.vector.VectorEnv, steps: int, seed: int = 0) -> pd.DataFrame:
    """Random actions on a vectorised environment, step by step.

    Parameters
    ----------
    envs : gymnasium.vector.VectorEnv
        E.g. a ``gymnasium.vector.SyncVectorEnv`` of one system's environments (with the
        fixed observation, several scenarios); reset here with ``seed``, as is its action
        space. An environment whose episode ended is reset by the vector environment.
    steps : int
        Steps of the vector environment (each steps every environment once).
    seed : int, optional
        Seeds the resets and the actions (default 0).

    Returns
    -------
    pandas.DataFrame
        One row per step (index ``step``, from 1); per environment ``i``, the columns
        ``reward i`` and ``episodes i`` (the episodes it has ended so far).
    """
    if isinstance(steps, bool) or not isinstance(steps, int | np.integer) or steps < 1:
        raise InputError(f"steps must be a positive integer, got {steps!r}")
    envs.reset(seed=seed)
    envs.action_space.seed(seed)
    n = envs.num_envs
    ended = np.zeros(n, dtype=np.int64)
    rows = []
    for _ in range(int(steps)):
        _, reward, terminated, truncated, _ = envs.step(envs.action_space.sample())
        ended += np.logical_or(terminated, truncated)
        rows.append([*np.asarray(reward, dtype=float), *ended])
    columns = [f"reward {i}" for i in range(n)] + [f"episodes {i}" for i in range(n)]
    frame = pd.DataFrame(rows, columns=columns)
    frame.index = pd.RangeIndex(1, len(frame) + 1, name="step")
    return frame


def totals(steps: pd.DataFrame, labels: Sequence[str] | None = None) -> pd.DataFrame:
    """Each sub-environment's rewards and ended episodes over a :func:`rollout`.

    Parameters
    ----------
    steps : pandas.DataFrame
        What :func:`rollout` returns.
    labels : sequence of str, optional
        A name per sub-environment (default its position).

    Returns
    -------
    pandas.DataFrame
        One row per sub-environment; columns ``steps``, ``reward`` (the sum) and
        ``episodes ended``.
    """
    n = sum(1 for column in steps.columns if column.startswith("reward "))
    labels = list(range(n)) if labels is None else list(labels)
    if len(labels) != n:
        raise InputError(f"labels must name the {n} sub-environments, got {len(labels)}")
    return pd.DataFrame({"steps": len(steps),
                         "reward": [steps[f"reward {i}"].sum() for i in range(n)],
                         "episodes ended": [int(steps[f"episodes {i}"].iloc[-1])
                                            for i in range(n)]},
                        index=pd.Index(labels, name="environment"))


def steps_per_second(ids: Iterable[str], *, observations: Iterable[str] = ("native",
                                                                          "fixed"),
                     target_duration: float = 1.0, seed: int = 0) -> pd.DataFrame:
    """Steps per second of each environment, by Gymnasium's ``benchmark_step``.

    Each id is made with ``gymnasium.make(id, observation=...)`` (its default scenario,
    Gymnasium's wrappers included) and stepped with random actions for
    ``target_duration`` seconds, reset whenever an episode ends
    (``gymnasium.utils.performance.benchmark_step``).

    Parameters
    ----------
    ids : iterable of str
        Registered ids (e.g. ``lorasched.gym.IDS.values()``).
    observations : iterable of str, optional
        The observation options timed for each id (default both).
    target_duration : float, optional
        Seconds of stepping per environment (default 1; Gymnasium's own default is 5).
    seed : int, optional
        Seeds the reset and the actions (default 0).

    Returns
    -------
    pandas.DataFrame
        Index (``id``, ``observation``); column ``steps per second``.

    Raises
    ------
    InputError
        If ``target_duration`` is not a positive number.
    """
    if isinstance(target_duration, bool) or not isinstance(target_duration, int | float) \
            or not target_duration > 0:
        raise InputError(f"target_duration must be a positive number of seconds, got "
                         f"{target_duration!r}")
    rows = []
    for env_id in ids:
        for observation in observations:
            env = gymnasium.make(env_id, observation=observation)
            env.action_space.seed(seed)
            rate = benchmark_step(env, target_duration=target_duration, seed=seed)
            env.close()
            rows.append((env_id, observation, rate))
    return pd.DataFrame(rows, columns=["id", "observation", "steps per second"]).set_index(
        ["id", "observation"])
