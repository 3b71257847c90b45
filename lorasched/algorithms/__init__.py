"""The algorithm registry: name -> ``run(arrays, rng, **options) -> Decisions``.

A new algorithm is one module here plus one line in :data:`REGISTRY`.
"""

from __future__ import annotations

from . import eft, ntm, pdftsp, titan

REGISTRY = {
    "pdftsp": pdftsp.run,
    "eft": eft.run,
    "ntm": ntm.run,
    "titan": titan.run,
}


def get(name: str):
    """The ``run`` function of algorithm ``name``; ValueError naming the choices if unknown."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {sorted(REGISTRY)}") from None
