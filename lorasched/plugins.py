"""Policies from installed packages: the entry-point group ``lorasched.policies``.

A package adds a policy to a system by declaring, in its ``pyproject.toml``::

    [project.entry-points."lorasched.policies"]
    "<system>.<policy>" = "package.module:run"

:func:`load` registers every such policy in its system's registry the first time a system is
looked up (:func:`lorasched.systems.get`), in every process, Dask's workers included, so a
sweep with a plug-in runs in parallel like one with the built-in policies. A plug-in that
fails to load is reported (a :class:`PluginWarning` and :func:`report`), never fatal.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from importlib import metadata

from .model.system import System, source_fingerprint

#: The entry-point group an installed package declares its policies in.
GROUP = "lorasched.policies"


class PluginWarning(UserWarning):
    """A policy declared in :data:`GROUP` could not be registered."""


@dataclass(frozen=True)
class Plugin:
    """One entry point of :data:`GROUP` and what became of it.

    Parameters
    ----------
    name : str
        The entry point's name, ``<system>.<policy>``.
    value : str
        What it points at, ``module:function``.
    distribution : str
        The installed package that declares it (``"?"`` if unknown).
    system : str
        The system it adds a policy to (empty if the name has no ``.``).
    policy : str
        The policy's name in that system's registry.
    error : str or None
        Why it was not registered, or None if it was.
    fingerprint : str
        The policy's source fingerprint (:func:`~lorasched.model.system.source_fingerprint`;
        empty if it did not load).
    """

    name: str
    value: str
    distribution: str
    system: str
    policy: str
    error: str | None = None
    fingerprint: str = ""

    @property
    def loaded(self) -> bool:
        """Whether the policy is in its system's registry.

        Returns
        -------
        bool
            True if ``error`` is None.
        """
        return self.error is None


_loaded: list[Plugin] | None = None


def entry_points() -> list[metadata.EntryPoint]:
    """The entry points of :data:`GROUP` of every installed distribution.

    Returns
    -------
    list of importlib.metadata.EntryPoint
        In ``sys.path`` order, a distribution found twice counted once; two distributions
        may declare the same name (:func:`load` keeps the first, as Python's own
        ``importlib.metadata.entry_points`` would, and reports the other).
    """
    seen, found = set(), []
    for dist in metadata.distributions():
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        found += [ep for ep in dist.entry_points if ep.group == GROUP]
    return found


def _register(ep: metadata.EntryPoint, systems: dict[str, System], builtin: dict,
              taken: dict[tuple[str, str], str]) -> Plugin:
    """Load one entry point into its system's registry; what became of it."""
    dist = getattr(getattr(ep, "dist", None), "name", None) or "?"
    system, _, policy = ep.name.partition(".")
    plugin = Plugin(ep.name, ep.value, dist, system, policy)

    def failed(why: str) -> Plugin:
        return replace(plugin, error=why)

    if not policy or system not in systems:
        return failed(f"the name must be '<system>.<policy>' with a system of "
                      f"{sorted(systems)}")
    if policy in builtin[system]:
        return failed(f"{policy!r} is a built-in policy of {system!r}; a plug-in may not "
                      "replace it")
    if (system, policy) in taken:
        return failed(f"{system}.{policy} is already declared by {taken[system, policy]}")
    try:
        run = ep.load()
    except Exception as exc:  # noqa: BLE001 - any import error of a third party is reported
        return failed(f"cannot load {ep.value}: {type(exc).__name__}: {exc}")
    try:
        systems[system].register(policy, run)
    except ValueError as exc:
        return failed(str(exc))
    taken[system, policy] = dist
    return replace(plugin, fingerprint=source_fingerprint(run))


def load(systems: dict[str, System], builtin: dict[str, frozenset[str]], *,
         reload: bool = False) -> list[Plugin]:
    """Register every policy of :data:`GROUP` in its system's registry, once per process.

    Parameters
    ----------
    systems : dict
        The systems by name (:data:`lorasched.systems.SYSTEMS`), whose registries grow.
    builtin : dict
        System name -> the names of its built-in policies, which no plug-in may replace.
    reload : bool, optional
        Look again (after a package was installed into the running process); plug-in
        policies registered before are removed first. Default False: the first call's
        outcome is returned.

    Returns
    -------
    list of Plugin
        Every entry point and what became of it; each one that failed is also a
        :class:`PluginWarning`.
    """
    global _loaded
    if _loaded is not None and not reload:
        return _loaded
    for plugin in _loaded or []:
        if plugin.loaded and plugin.policy in systems[plugin.system].policies:
            systems[plugin.system].unregister(plugin.policy)
    taken: dict[tuple[str, str], str] = {}
    found = [_register(ep, systems, builtin, taken) for ep in entry_points()]
    for plugin in found:
        if plugin.error is not None:
            warnings.warn(f"plug-in policy {plugin.name} = {plugin.value} (package "
                          f"{plugin.distribution}) not registered: {plugin.error}",
                          PluginWarning, stacklevel=3)
    _loaded = found
    return found


def report() -> list[Plugin]:
    """The plug-ins the last :func:`load` found (empty before the first).

    Returns
    -------
    list of Plugin
        Every entry point of :data:`GROUP` and what became of it.
    """
    return list(_loaded or [])
