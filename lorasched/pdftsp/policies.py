"""pdFTSP's policy registry, name -> ``run(arrays, rng, **options) -> Decisions``
(:data:`REGISTRY`): ``pdftsp``, the paper's baselines ``titan``, ``eft`` and ``ntm``, Titan
with the welfare objective ``titan_oracle``, lorasched's baseline ``cost_plus`` and the floor
``random``. A new policy is a function with that signature, added to
:data:`REGISTRY` or, from outside the package, registered with
:meth:`System.register <lorasched.model.system.System.register>`.
"""

from __future__ import annotations

from ..model.errors import InputError
from . import auction, env
from .baselines import cost_plus, eft, ntm, titan_per_slot

#: The policies by name, each ``run(arrays, rng, **options) -> Decisions``: ``pdftsp``
#: (Algorithms 1 and 2), the paper's baselines ``eft``, ``ntm`` and ``titan``, Titan per
#: slot with the welfare objective ``titan_oracle`` (it sees every bid, yet is no bound),
#: lorasched's cost-plus baseline ``cost_plus`` and the floor ``random`` (random valid actions of
#: :class:`~lorasched.pdftsp.env.AdmissionProblem`). The pdFTSP system's registry
#: (:class:`~lorasched.model.system.System`).
REGISTRY = {
    "pdftsp": auction.run,
    "eft": eft.run,
    "ntm": ntm.run,
    "titan": titan_per_slot.run,
    "titan_oracle": titan_per_slot.run_oracle,
    "cost_plus": cost_plus.run,
    "random": env.random_policy,
}


def get(name: str):
    """The ``run`` function of one pdFTSP policy.

    Parameters
    ----------
    name : str
        A key of :data:`REGISTRY`.

    Returns
    -------
    callable
        ``run(arrays, rng, **options) -> Decisions``.

    Raises
    ------
    InputError
        If no policy is called ``name`` (a ``ValueError``), naming the choices.
    """
    try:
        return REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown algorithm {name!r}; choose one of {sorted(REGISTRY)}") from None
