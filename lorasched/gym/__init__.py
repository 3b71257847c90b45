"""The three systems as Gymnasium environments, for learned (reinforcement-learning)
policies: pdFTSP's online admission, TITAN's allocation at each event and Allpass's
provisioning each minute. Needs the optional extra ``gymnasium``
(``pip install "lorasched[gym]"``); the decision problems themselves are each system's
``env`` module, which the built-in ``random`` policies use without Gymnasium. Importing
this package registers the environments with Gymnasium (:data:`IDS`), so that
``gymnasium.make("lorasched/Admission-v0")`` works: without a scenario each runs its small
seeded default (:data:`DEFAULT_SCENARIOS`), and ``scenario=...`` overrides it. The option
``observation="fixed"`` gives an observation whose space is the same for every scenario of
a system, so that one agent can train across them (:data:`OBSERVATIONS`);
``scenario_seeds=...`` draws the default scenario's seed per episode from a training
family, never one of :data:`HELD_OUT_SEEDS` (:func:`held_out_seeds` gives them for
evaluation, ``reset(options={"scenario_seed": k})`` runs one). Every environment trains
with a learning library as it is: actions start at 0, ``action_masks()`` gives the valid
ones (the method ``MaskablePPO`` calls, reachable through Gymnasium's wrappers), Box
bounds are true (``inf`` where nothing bounds a quantity; ``scale=True`` maps each into
[0, 1] or [-1, 1]) and ``box_keys`` lists the parts ``VecNormalize`` may normalise.
:mod:`lorasched.gym.bench` describes and times the environments.
"""

from __future__ import annotations

import inspect

import gymnasium
import xarray as xr

from ..model.errors import InputError
from . import allpass, pdftsp, titan
from .allpass import ProvisioningEnv
from .common import HELD_OUT_SEEDS, OBSERVATIONS, RESET_OPTIONS, held_out_seeds
from .pdftsp import AdmissionEnv
from .titan import AllocationEnv

#: The environment of each system, by the system's name.
ENVIRONMENTS: dict[str, type[gymnasium.Env]] = {
    "pdftsp": AdmissionEnv, "titan": AllocationEnv, "allpass": ProvisioningEnv}
#: Each system's Gymnasium id, for ``gymnasium.make(id, **config)`` (``scenario=...`` or the
#: default scenario).
IDS: dict[str, str] = {"pdftsp": "lorasched/Admission-v0", "titan": "lorasched/Allocation-v0",
                       "allpass": "lorasched/Provisioning-v0"}
#: Each system's default scenario, by the system's name, as the arguments of its builder
#: (``synthetic_scenario``, ``titan_scenario``, ``allpass_scenario``) that an environment
#: made without a scenario runs (``scenario_seed`` replaces the seed, ``scenario_seeds``
#: draws it per episode).
DEFAULT_SCENARIOS: dict[str, dict] = {"pdftsp": pdftsp.DEFAULT_SCENARIO,
                                      "titan": titan.DEFAULT_SCENARIO,
                                      "allpass": allpass.DEFAULT_SCENARIO}

for _system, _id in IDS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point=ENVIRONMENTS[_system])


def make(scenario: xr.Dataset, **config) -> gymnasium.Env:
    """The environment of a scenario's system, on that scenario.

    Parameters
    ----------
    scenario : xarray.Dataset
        A scenario of any system (its attribute ``system`` picks the environment).
    **config
        The environment's options (each class documents its own; e.g.
        ``observation="fixed"``).

    Returns
    -------
    gymnasium.Env
        :class:`~lorasched.gym.pdftsp.AdmissionEnv`,
        :class:`~lorasched.gym.titan.AllocationEnv` or
        :class:`~lorasched.gym.allpass.ProvisioningEnv`; call
        ``reset(seed=...)`` before the first step.

    Raises
    ------
    InputError
        If ``scenario`` is not a Dataset of a known system, or an option is unknown.
    """
    if not isinstance(scenario, xr.Dataset):
        raise InputError(f"scenario must be an xarray.Dataset, got {type(scenario).__name__}")
    name = scenario.attrs.get("system", "pdftsp")
    if name not in ENVIRONMENTS:
        raise InputError(f"scenario attribute 'system' = {name!r}: no environment; one of "
                         f"{sorted(ENVIRONMENTS)}")
    env = ENVIRONMENTS[name]
    params = inspect.signature(env).parameters
    if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
        unknown = sorted(set(config) - set(params))
        if unknown:
            raise InputError(f"{env.__name__} got unknown option(s) {unknown}; it accepts "
                             f"{sorted(set(params) - {'scenario'})}")
    return env(scenario, **config)


__all__ = ["DEFAULT_SCENARIOS", "ENVIRONMENTS", "HELD_OUT_SEEDS", "IDS", "OBSERVATIONS",
           "RESET_OPTIONS", "AdmissionEnv", "AllocationEnv", "ProvisioningEnv",
           "held_out_seeds", "make"]
