"""The systems lorasched implements, by name: pdFTSP, TITAN and Allpass, each a
:class:`~lorasched.model.system.System` of its sub-package; :func:`simulate` dispatches on a
scenario's ``system`` attribute, and the experiment engine reaches a system only through
:func:`get`, which first registers the policies of installed plug-in packages
(:mod:`lorasched.plugins`). Each system's ``lorasched simulate`` flags (its ``flags``
module, kept out of the System so that a help text never enters a cell's key) are
``FLAGS``.
"""

from __future__ import annotations

from pathlib import Path

import xarray as xr

from . import plugins
from .allpass.flags import FLAGS as ALLPASS_FLAGS
from .allpass.system import SYSTEM as ALLPASS
from .model.errors import InputError
from .model.flags import Flags
from .model.system import System
from .pdftsp.flags import FLAGS as PDFTSP_FLAGS
from .pdftsp.system import SYSTEM as PDFTSP
from .titan.flags import FLAGS as TITAN_FLAGS
from .titan.system import SYSTEM as TITAN

#: The systems by name (``"pdftsp"``, ``"titan"``, ``"allpass"``), each a
#: :class:`~lorasched.model.system.System`.
SYSTEMS: dict[str, System] = {s.name: s for s in (PDFTSP, TITAN, ALLPASS)}
#: Each system's flags of ``lorasched simulate`` by name, a
#: :class:`~lorasched.model.flags.Flags` each.
FLAGS: dict[str, Flags] = {PDFTSP.name: PDFTSP_FLAGS, TITAN.name: TITAN_FLAGS,
                           ALLPASS.name: ALLPASS_FLAGS}
#: Each system's built-in policies by name, which no plug-in may replace.
BUILTIN: dict[str, frozenset[str]] = {n: frozenset(s.policies) for n, s in SYSTEMS.items()}
#: The system of a sweep or scenario that names none (everything before systems
#: existed): ``"pdftsp"``.
DEFAULT = PDFTSP.name


def load_plugins(*, reload: bool = False) -> list[plugins.Plugin]:
    """Register the policies installed packages declare (once per process).

    Parameters
    ----------
    reload : bool, optional
        Look for entry points again, after a package was installed into this process.

    Returns
    -------
    list of lorasched.plugins.Plugin
        Every entry point of the group ``lorasched.policies`` and whether it was
        registered (each one that was not is also a
        :class:`~lorasched.plugins.PluginWarning`).
    """
    return plugins.load(SYSTEMS, BUILTIN, reload=reload)


def get(name: str) -> System:
    """The system called ``name``, its plug-in policies registered.

    Parameters
    ----------
    name : str
        A key of :data:`SYSTEMS`.

    Returns
    -------
    ~lorasched.model.system.System

    Raises
    ------
    InputError
        If there is no such system (a ``ValueError``), naming the choices.
    """
    load_plugins()
    try:
        return SYSTEMS[name]
    except (KeyError, TypeError):
        raise InputError(f"unknown system {name!r}; choose one of {sorted(SYSTEMS)}") from None


def flags(name: str) -> Flags:
    """The flags system ``name`` adds to ``lorasched simulate`` (none if it declares none)."""
    return FLAGS.get(get(name).name, Flags(()))


def of(scenario: xr.Dataset) -> System:
    """The system a scenario belongs to.

    Parameters
    ----------
    scenario : xarray.Dataset
        A scenario or a result; its attribute ``system`` names the system (default
        :data:`DEFAULT`, for scenarios saved before the attribute existed).

    Returns
    -------
    ~lorasched.model.system.System

    Raises
    ------
    InputError
        If ``scenario`` is not a Dataset, or its ``system`` is not a known system.
    """
    if not isinstance(scenario, xr.Dataset):
        raise InputError(f"a scenario must be an xarray.Dataset, got {type(scenario).__name__}")
    name = scenario.attrs.get("system", DEFAULT)
    try:
        return get(name)
    except ValueError as exc:
        raise InputError(f"scenario attribute 'system': {exc}") from None


def simulate(scenario: xr.Dataset, algorithm: str | None = None, seed: int | None = 0,
             **options) -> xr.Dataset:
    """Run a policy of the scenario's system on the scenario.

    Dispatches on the scenario's ``system`` attribute (:func:`of`).

    Parameters
    ----------
    scenario : xarray.Dataset
        A scenario of any system
        (:func:`~lorasched.pdftsp.workload.synthetic_scenario`,
        :func:`~lorasched.titan.workload.titan_scenario`,
        :func:`~lorasched.allpass.workload.allpass_scenario`, :func:`load_scenario`).
    algorithm : str, optional
        A policy of the system's registry; default the system's own algorithm (its first
        policy, e.g. ``"pdftsp"``).
    seed : int or None, optional
        Seeds the ``numpy.random.Generator`` handed to the policy (default 0); the same
        seed gives the same result.
    **options
        Keyword options of the policy.

    Returns
    -------
    xarray.Dataset
        The result: the scenario, the decisions and their accounting.

    Raises
    ------
    InputError
        Naming an unknown system, algorithm or option, or what the scenario breaks.
    """
    system = of(scenario)
    if algorithm is None:
        algorithm = next(iter(system.policies))
    return system.simulate(scenario, algorithm, seed=seed, **options)


def check_result(result: xr.Dataset) -> None:
    """Validate a result with its system's checker.

    Parameters
    ----------
    result : xarray.Dataset
        A result of :func:`simulate` (or of a system's offline optimum).

    Raises
    ------
    ResultError
        Naming the broken constraint, the item and the values.
    InputError
        If ``result`` is not a Dataset or names no known system.
    """
    of(result).check_result(result)


def load_scenario(path) -> xr.Dataset:
    """Load a scenario saved as netCDF and validate it by its system.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by ``Dataset.to_netcdf``; a result file holds its scenario too.

    Returns
    -------
    xarray.Dataset
        The scenario, loaded into memory and validated by its system (its ``system``
        attribute; :data:`DEFAULT` when it has none).

    Raises
    ------
    InputError
        Every way a file can fail to be a scenario, naming the file: a folder or no file,
        bytes that are not netCDF, an unknown ``system``, or the first thing it breaks in
        its system's schema (which variable, which item, which rule).
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: a folder, not a scenario file (.nc)")
    if not path.is_file():
        raise InputError(f"{path}: no such scenario file")
    try:
        ds = xr.load_dataset(path)
    except Exception as err:  # netCDF4/h5netcdf/scipy raise many types for foreign bytes
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise InputError(f"{path}: not a netCDF file xarray can read ({first})") from None
    name = ds.attrs.get("system", DEFAULT)
    if name not in SYSTEMS:
        raise InputError(f"{path}: attribute 'system' = {name!r} is not a lorasched system; "
                         f"one of {sorted(SYSTEMS)}")
    system = SYSTEMS[name]
    try:
        if system.validate is not None:
            system.validate(ds)
    except InputError as err:
        raise InputError(f"{path}: not a valid {name} scenario: {err}") from None
    return ds

