"""pdFTSP's policy registry, name -> ``run(arrays, rng, **options) -> Decisions``
(:data:`REGISTRY`): ``pdftsp``, ``titan``, ``titan_oracle`` (labelled an oracle), ``eft``
and ``ntm``. A new policy is a function with that signature, added to :data:`REGISTRY` or,
from outside the package, registered with :func:`register`.
"""

from __future__ import annotations

from ..model.errors import InputError
from . import auction
from .baselines import eft, ntm, titan_per_slot

REGISTRY = {
    "pdftsp": auction.run,
    "eft": eft.run,
    "ntm": ntm.run,
    "titan": titan_per_slot.run,
    "titan_oracle": titan_per_slot.run_oracle,
}


def get(name: str):
    """The ``run`` function of policy ``name``; ValueError naming the choices if unknown."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown algorithm {name!r}; choose one of {sorted(REGISTRY)}") from None
