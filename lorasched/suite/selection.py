"""Which policies the suite runs, and where each comes from: every policy in each system's
registry at run time by default (built-in ones and installed plug-ins alike), or those a
``SYSTEM:NAME,NAME`` selection names; a plug-in's origin is its module and source
fingerprint.
"""

from __future__ import annotations

from .. import systems
from ..model.errors import InputError
from ..model.system import source_fingerprint
from .scenarios import DEFINITION, check_system

#: the word of a selection that takes every policy of a system
ALL = "all"
#: what a policy defined in lorasched is, in the report's ``origin`` column
BUILT_IN = "built-in"
#: what a policy defined elsewhere (an installed plug-in, a registered function) is
PLUG_IN = "plug-in"


def default_policies() -> dict[str, tuple[str, ...]]:
    """Every policy of every system of the suite, as the registries hold them now.

    Returns
    -------
    dict
        System -> its policies' names, in registry order.
    """
    return {name: tuple(systems.get(name).policies) for name in DEFINITION}


def parse_policies(specs) -> dict[str, tuple[str, ...]]:
    """The policies a selection names, by system.

    Parameters
    ----------
    specs : sequence of str or None
        Items ``SYSTEM:NAME[,NAME...]``, ``SYSTEM:all`` or ``SYSTEM`` alone (every
        policy of the system); only the systems named run. None or empty: every policy
        of every system (:func:`default_policies`).

    Returns
    -------
    dict
        System -> policy names, in the order of the suite's systems and of the selection.

    Raises
    ------
    InputError
        Naming the item that is not of that form, an unknown system or policy (with the
        choices), or a system named twice.
    """
    if not specs:
        return default_policies()
    if isinstance(specs, str):
        specs = [specs]
    chosen: dict[str, tuple[str, ...]] = {}
    for spec in specs:
        if not isinstance(spec, str) or not spec.strip():
            raise InputError(f"--policies: expected SYSTEM:NAME[,NAME...], got {spec!r}")
        name, _, names = spec.partition(":")
        name = name.strip()
        check_system(name)
        if name in chosen:
            raise InputError(f"--policies: system {name!r} is named twice")
        registry = systems.get(name).policies
        wanted = [n.strip() for n in names.split(",")] if names.strip() else [ALL]
        if ALL in wanted:
            if wanted != [ALL]:
                raise InputError(f"--policies {spec!r}: {ALL!r} takes every policy; name "
                                 "no other with it")
            chosen[name] = tuple(registry)
            continue
        for policy in wanted:
            if policy not in registry:
                raise InputError(f"--policies {spec!r}: unknown policy {policy!r} for "
                                 f"system {name!r}; choose from {sorted(registry)} or "
                                 f"{ALL!r}")
        if len(set(wanted)) != len(wanted):
            raise InputError(f"--policies {spec!r}: a policy is named twice")
        chosen[name] = tuple(wanted)
    return {name: chosen[name] for name in DEFINITION if name in chosen}


def origin(system: str, policy: str) -> dict:
    """Where a policy comes from, for the report.

    Parameters
    ----------
    system : str
        A system of the suite.
    policy : str
        A policy in its registry.

    Returns
    -------
    dict
        ``name``, ``origin`` (``BUILT_IN`` or ``PLUG_IN``), ``module`` (where its
        function is defined) and ``fingerprint`` (a plug-in's source fingerprint,
        :func:`~lorasched.model.system.source_fingerprint`; ``""`` for a built-in one,
        which lorasched's code fingerprint covers).

    Raises
    ------
    InputError
        For an unknown system or policy.
    """
    check_system(system)
    run = systems.get(system).policy(policy)
    module = getattr(run, "__module__", "") or ""
    fingerprint = source_fingerprint(run)
    return {"name": policy, "origin": PLUG_IN if fingerprint else BUILT_IN,
            "module": module, "fingerprint": fingerprint}
