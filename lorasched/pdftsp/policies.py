"""pdFTSP's policy registry: name -> ``run(arrays, rng, **options) -> Decisions``.

``pdftsp`` is the online primal-dual auction (Algorithms 1 and 2, :func:`.auction.run`);
``titan``, ``eft`` and ``ntm`` are the paper's baselines (:mod:`.baselines`);
``titan_oracle`` is Titan maximising welfare with every bid in view, stronger than the
paper's Titan and labelled an oracle wherever it is shown. A new policy
for this model is a function with that signature plus one line in :data:`REGISTRY`, or,
from outside the package, :func:`register`.
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
