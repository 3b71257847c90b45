"""What the three environments share: the choice of observation (the scenario's own shapes,
or a fixed size that one agent can train on across the scenarios of a system), the checks
of a fixed size and of the default scenario's seed, zero-padding to a fixed shape, the
scenarios an environment runs (one given, or its system's default scenario drawn per
``reset`` from a seeded family, with :data:`HELD_OUT_SEEDS` kept apart for evaluation),
the checks of the options every environment has (``scale``, ``invalid_penalty``) and the
maps of the scaled observation (:func:`squash`, :func:`fraction`).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Mapping

import numpy as np
import xarray as xr
from gymnasium import spaces

from ..model.errors import InputError

#: the observations an environment offers: ``"native"`` (default), shaped by the scenario
#: (its nodes, slots, vendors, jobs or allocations), and ``"fixed"``, padded to declared
#: maxima with a mask marking the real entries, the same space for every scenario of the
#: system
OBSERVATIONS = ("native", "fixed")
#: the seeds of the default scenarios kept for evaluation: a training family
#: (``scenario_seeds=``) holding one is refused, so that a policy is judged on scenarios it
#: never trained on (:func:`held_out_seeds`); the same for the three systems
HELD_OUT_SEEDS = range(10_000, 10_100)
#: the keys ``reset(options=...)`` reads: ``scenario_seed``, the seed of the default
#: scenario the episode runs (any other key is refused)
RESET_OPTIONS = ("scenario_seed",)
#: how many built scenarios an environment keeps, by seed, so that a family of seeds is
#: built once per seed rather than once per episode
CACHED_SCENARIOS = 64


def check_observation(observation) -> str:
    """``observation`` if it is one of :data:`OBSERVATIONS`.

    Parameters
    ----------
    observation : str
        The option as given.

    Returns
    -------
    str
        The same.

    Raises
    ------
    InputError
        If it is not one of :data:`OBSERVATIONS`.
    """
    if not isinstance(observation, str) or observation not in OBSERVATIONS:
        raise InputError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
    return observation


def fixed_sizes(observation: str, given: dict, defaults: dict) -> dict[str, int]:
    """The fixed observation's maxima: each given one (checked), else its default.

    Parameters
    ----------
    observation : str
        ``"native"`` or ``"fixed"``.
    given : dict
        Each maximum's name and value as passed (None: not given).
    defaults : dict
        Each maximum's default.

    Returns
    -------
    dict of str to int
        The maxima (empty with the native observation).

    Raises
    ------
    InputError
        If a maximum is given with the native observation, or is not a positive integer.
    """
    passed = sorted(name for name, value in given.items() if value is not None)
    if observation == "native":
        if passed:
            raise InputError(f"{passed[0]} sizes the fixed observation: pass "
                             f"observation='fixed' with it, or leave it out")
        return {}
    sizes = {}
    for name, default in defaults.items():
        value = default if given.get(name) is None else given[name]
        if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
                or value < 1):
            raise InputError(f"{name} must be a positive integer, got {value!r}")
        sizes[name] = int(value)
    return sizes


def needs(sizes: dict[str, int], name: str, needed: int, what: str) -> None:
    """Refuse a scenario larger than a fixed maximum, naming the size it needs.

    Parameters
    ----------
    sizes : dict of str to int
        The maxima (:func:`fixed_sizes`).
    name : str
        The maximum checked.
    needed : int
        What the scenario needs.
    what : str
        The scenario's quantity, in words (``"nodes"``, ``"slots in a task's window"``).

    Raises
    ------
    InputError
        If ``needed`` exceeds ``sizes[name]``.
    """
    if needed > sizes[name]:
        raise InputError(f"the scenario has {needed} {what}, more than {name} = "
                         f"{sizes[name]} of the fixed observation: pass {name}={needed} or "
                         f"more")


def held_out_seeds(n: int | None = None) -> list[int]:
    """Seeds of default scenarios for evaluating a policy, never in a training family.

    Parameters
    ----------
    n : int, optional
        How many (the first ``n`` of :data:`HELD_OUT_SEEDS`; default all 100).

    Returns
    -------
    list of int
        Each for ``reset(options={"scenario_seed": k})`` or ``scenario_seed=k``.

    Raises
    ------
    InputError
        If ``n`` is not an integer in 1..100.
    """
    if n is None:
        return list(HELD_OUT_SEEDS)
    if (isinstance(n, bool) or not isinstance(n, numbers.Integral)
            or not 1 <= n <= len(HELD_OUT_SEEDS)):
        raise InputError(f"n must be an integer in 1..{len(HELD_OUT_SEEDS)} (the held-out "
                         f"seeds), got {n!r}")
    return list(HELD_OUT_SEEDS[:int(n)])


def _seed(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise InputError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def check_family(scenario, scenario_seed, scenario_seeds) -> tuple[int, ...]:
    """``scenario_seeds``, the training family of default scenarios, checked.

    Parameters
    ----------
    scenario : xarray.Dataset or None
        The scenario given (None: the default).
    scenario_seed : int or None
        The default scenario's one seed, as given.
    scenario_seeds : iterable of int or None
        The family as given (None: no family).

    Returns
    -------
    tuple of int
        The seeds (empty without a family).

    Raises
    ------
    InputError
        If it comes with ``scenario`` or ``scenario_seed``, is empty, holds something other
        than a non-negative integer, or holds a seed of :data:`HELD_OUT_SEEDS` (naming it).
    """
    if scenario_seeds is None:
        return ()
    if scenario is not None:
        raise InputError("scenario_seeds draws the default scenario per episode: pass it "
                         "without scenario")
    if scenario_seed is not None:
        raise InputError("pass scenario_seed (one default scenario) or scenario_seeds (a "
                         "family drawn per episode), not both")
    if isinstance(scenario_seeds, str | bytes | Mapping) or not isinstance(
            scenario_seeds, Iterable):
        raise InputError(f"scenario_seeds must be a sequence of non-negative integers, got "
                         f"{scenario_seeds!r}")
    seeds = tuple(_seed("each of scenario_seeds", s) for s in scenario_seeds)
    if not seeds:
        raise InputError("scenario_seeds must hold at least one seed")
    held = [s for s in seeds if s in HELD_OUT_SEEDS]
    if held:
        raise InputError(f"scenario_seeds holds {held[0]}, a held-out seed (HELD_OUT_SEEDS "
                         f"= range({HELD_OUT_SEEDS.start}, {HELD_OUT_SEEDS.stop}), kept for "
                         f"evaluation): train on other seeds")
    return seeds


def reset_seed(options) -> int | None:
    """The ``scenario_seed`` of ``reset(options=...)``, the other keys refused.

    Parameters
    ----------
    options : dict or None
        ``reset``'s options.

    Returns
    -------
    int or None
        The seed of the default scenario asked for this episode (None: not asked).

    Raises
    ------
    InputError
        If ``options`` is not a dict, has a key other than :data:`RESET_OPTIONS` (naming
        them), or its ``scenario_seed`` is not a non-negative integer.
    """
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise InputError(f"options must be a dict, got {type(options).__name__}")
    unknown = sorted(map(repr, set(options) - set(RESET_OPTIONS)))
    if unknown:
        raise InputError(f"reset got unknown option(s) [{', '.join(unknown)}]; it reads "
                         f"{list(RESET_OPTIONS)}")
    seed = options.get("scenario_seed")
    return None if seed is None else _seed("options['scenario_seed']", seed)


class Scenarios:
    """The scenarios of one environment: the one given, or its system's default scenario
    built per seed (kept for :data:`CACHED_SCENARIOS` seeds), chosen at each ``reset``.

    Parameters
    ----------
    build : callable
        The system's scenario builder.
    defaults : dict
        The default scenario's arguments (with ``seed``).
    scenario : xarray.Dataset or None
        The scenario given (None: the default one).
    scenario_seed : int or None
        The default scenario's seed in place of its own.
    scenario_seeds : iterable of int or None
        A training family: each ``reset`` draws one.

    Raises
    ------
    InputError
        As :func:`check_seed` and :func:`check_family`.
    """

    def __init__(self, build: Callable, defaults: dict, scenario, scenario_seed,
                 scenario_seeds):
        self.family = check_family(scenario, scenario_seed, scenario_seeds)
        seed = check_seed(scenario, scenario_seed)
        self.given = scenario
        self._build, self._defaults = build, defaults
        if self.family:
            seed = self.family[0]
        #: the seed of the scenario the environment is made on (None: a given scenario)
        self.seed = None if scenario is not None else (
            int(defaults["seed"]) if seed is None else seed)
        self._cache: dict[int, xr.Dataset] = {}

    def get(self, seed: int) -> xr.Dataset:
        """The default scenario of ``seed`` (built once while cached)."""
        if seed not in self._cache:
            if len(self._cache) >= CACHED_SCENARIOS:
                self._cache.pop(next(iter(self._cache)))
            self._cache[seed] = built(self._build, self._defaults, seed)
        return self._cache[seed]

    def first(self) -> tuple[int | None, xr.Dataset]:
        """(seed, scenario) the environment is made on: the given scenario (seed None),
        the first of the family, or the default of ``scenario_seed``."""
        if self.given is not None:
            return None, self.given
        return self.seed, self.get(self.seed)

    def choose(self, rng: np.random.Generator, options) -> tuple[int | None, xr.Dataset]:
        """(seed, scenario) of the next episode: ``options["scenario_seed"]``'s default
        scenario, else one of the family drawn by ``rng``, else :meth:`first`'s.

        Raises
        ------
        InputError
            As :func:`reset_seed`, or for a ``scenario_seed`` when a scenario was given.
        """
        asked = reset_seed(options)
        if asked is not None:
            if self.given is not None:
                raise InputError("options['scenario_seed'] seeds the default scenario: this "
                                 "environment runs the scenario it was given")
            return asked, self.get(asked)
        if self.family:
            seed = self.family[int(rng.integers(len(self.family)))]
            return seed, self.get(seed)
        return self.first()


def same_spaces(seed, made: spaces.Space, needed: spaces.Space, what: str) -> None:
    """Refuse a scenario whose space differs from the environment's, naming the parts.

    Parameters
    ----------
    seed : int
        The scenario's seed.
    made, needed : gymnasium.spaces.Space
        The environment's space and the one the scenario needs (a Dict: the differing
        keys are named).
    what : str
        ``"observation"`` or ``"action"``.

    Raises
    ------
    InputError
        If the two differ.
    """
    if made == needed:
        return
    if isinstance(made, spaces.Dict) and isinstance(needed, spaces.Dict):
        keys = sorted(k for k in set(made.spaces) | set(needed.spaces)
                      if made.spaces.get(k) != needed.spaces.get(k))
        parts = f"part(s) {keys} as {[needed.spaces.get(k) for k in keys]}"
    else:
        parts = f"space {needed}"
    raise InputError(f"the default scenario of seed {seed} needs the {what} {parts}, not "
                     f"the environment's: pass observation='fixed' (a space for every "
                     f"scenario of the system) or seeds of scenarios of one shape")


def check_scale(scale) -> bool:
    """``scale`` if it is True or False (the scaled observation, or the quantities as they
    are)."""
    if not isinstance(scale, bool | np.bool_):
        raise InputError(f"scale must be True or False, got {scale!r}")
    return bool(scale)


def check_penalty(invalid_penalty) -> float:
    """``invalid_penalty`` if it is a non-negative finite number (the reward taken off per
    invalid action)."""
    if (isinstance(invalid_penalty, bool) or not isinstance(invalid_penalty, numbers.Real)
            or not np.isfinite(invalid_penalty) or invalid_penalty < 0):
        raise InputError(f"invalid_penalty must be a non-negative finite number, got "
                         f"{invalid_penalty!r}")
    return float(invalid_penalty)


def box_keys(space: spaces.Dict) -> tuple[str, ...]:
    """The keys of a Dict space's Box parts, in order (those ``VecNormalize`` may
    normalise, ``norm_obs_keys``)."""
    return tuple(k for k, part in space.spaces.items() if isinstance(part, spaces.Box))


def squash(x, unit) -> np.ndarray:
    """``y / (1 + |y|)`` of ``y = x / unit``: 0 at 0, +-1/2 at +-unit, +-1 at +-infinity.

    Parameters
    ----------
    x : array_like
        The quantity.
    unit : float or array_like
        Its typical size (positive; broadcast against ``x``).

    Returns
    -------
    numpy.ndarray
        float64 in [-1, 1] (in [0, 1] where ``x >= 0``), increasing in ``x``.
    """
    y = np.asarray(x, dtype=np.float64) / unit
    with np.errstate(invalid="ignore"):
        out = y / (1.0 + np.abs(y))
    return np.where(np.isinf(y), np.sign(y), out)


def fraction(x, bound) -> np.ndarray:
    """``x / bound`` clipped to [0, 1] (0 where ``bound`` is 0): a quantity bounded by
    ``bound`` as a share of it.

    Parameters
    ----------
    x, bound : array_like
        The quantity and its bound (broadcast together).

    Returns
    -------
    numpy.ndarray
        float64 in [0, 1].
    """
    x = np.asarray(x, dtype=np.float64)
    bound = np.broadcast_to(np.asarray(bound, dtype=np.float64), x.shape)
    out = np.divide(x, bound, out=np.zeros(x.shape), where=bound > 0)
    return np.clip(out, 0.0, 1.0)


def unit_box(signed) -> spaces.Box:
    """A Box of the scaled observation: [-1, 1] where ``signed``, else [0, 1], float64.

    Parameters
    ----------
    signed : array_like of bool
        Per entry (its shape is the Box's).
    """
    signed = np.asarray(signed, dtype=bool)
    return spaces.Box(low=np.where(signed, -1.0, 0.0), high=np.ones(signed.shape),
                      dtype=np.float64)


def check_seed(scenario, scenario_seed) -> int | None:
    """``scenario_seed``, refused unless it seeds the default scenario.

    Parameters
    ----------
    scenario : xarray.Dataset or None
        The scenario given (None: the environment's default).
    scenario_seed : int or None
        The default scenario's seed as given.

    Returns
    -------
    int or None
        The seed.

    Raises
    ------
    InputError
        If both are given, or the seed is not a non-negative integer.
    """
    if scenario_seed is None:
        return None
    if scenario is not None:
        raise InputError("scenario_seed seeds the default scenario: pass it without "
                         "scenario")
    if (isinstance(scenario_seed, bool) or not isinstance(scenario_seed, numbers.Integral)
            or scenario_seed < 0):
        raise InputError(f"scenario_seed must be a non-negative integer, got "
                         f"{scenario_seed!r}")
    return int(scenario_seed)


def pad(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``array`` cut to ``shape`` where longer and zero-padded where shorter, per axis.

    Parameters
    ----------
    array : numpy.ndarray
        Any array of ``len(shape)`` dimensions.
    shape : tuple of int
        The shape wanted.

    Returns
    -------
    numpy.ndarray
        A new array of ``shape`` and ``array``'s dtype.
    """
    out = np.zeros(shape, dtype=array.dtype)
    index = tuple(slice(0, min(n, m)) for n, m in zip(array.shape, shape, strict=True))
    out[index] = array[index]
    return out


def mask(n: int, size: int) -> np.ndarray:
    """int8[size]: 1 for the first ``n`` entries (the real ones), 0 for the padding."""
    out = np.zeros(size, dtype=np.int8)
    out[:n] = 1
    return out


def built(build, defaults: dict, seed: int | None = None):
    """A default scenario: ``build(**defaults)``, with ``seed`` in place of its seed when
    given (``build`` is the system's scenario builder)."""
    return build(**{**defaults, **({} if seed is None else {"seed": seed})})
