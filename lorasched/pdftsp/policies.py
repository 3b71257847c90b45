"""pdFTSP's policy registry: name -> ``run(arrays, rng, **options) -> Decisions``.

``pdftsp`` is the online primal-dual auction (Algorithms 1 and 2, :func:`.auction.run`);
``titan``, ``eft`` and ``ntm`` are the paper's baselines (``lorasched.pdftsp.baselines``);
``titan_oracle`` is Titan maximising welfare with every bid in view, stronger than the
paper's Titan and labelled an oracle wherever it is shown. A new policy
for this model is a function with that signature plus one line in :data:`REGISTRY`, or,
from outside the package, :meth:`System.register <lorasched.model.system.System.register>`.
"""

from __future__ import annotations

from ..model.errors import InputError
from . import auction
from .baselines import eft, ntm, titan

#: The policies by name, each ``run(arrays, rng, **options) -> Decisions``: ``pdftsp``
#: (Algorithms 1 and 2), the baselines ``eft``, ``ntm`` and ``titan``, and the oracle
#: ``titan_oracle``. The pdFTSP system's registry
#: (:class:`~lorasched.model.system.System`).
REGISTRY = {
    "pdftsp": auction.run,
    "eft": eft.run,
    "ntm": ntm.run,
    "titan": titan.run,
    "titan_oracle": titan.run_oracle,
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
