"""What the three environments share: the choice of observation (the scenario's own shapes,
or a fixed size that one agent can train on across the scenarios of a system), the checks
of a fixed size and of the default scenario's seed, and zero-padding to a fixed shape.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..model.errors import InputError

#: the observations an environment offers: ``"native"`` (default), shaped by the scenario
#: (its nodes, slots, vendors, jobs or allocations), and ``"fixed"``, padded to declared
#: maxima with a mask marking the real entries, the same space for every scenario of the
#: system
OBSERVATIONS = ("native", "fixed")


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
