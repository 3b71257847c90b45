"""lorasched: scheduling and pricing of LoRA / foundation-model fine-tuning jobs.

The top level holds what the three systems share: :func:`simulate` runs a policy of any
system on a scenario, :func:`check_result` judges the result, :func:`load_scenario` reads
and validates a scenario file, :func:`synthetic_scenario`, :func:`titan_scenario` and
:func:`allpass_scenario` build one, :func:`run_sweep` runs a :class:`Sweep`, and
:data:`SYSTEMS` names each system's :class:`~lorasched.model.system.System`. What is one
system's own lives in its package: :mod:`lorasched.pdftsp`, :mod:`lorasched.titan`,
:mod:`lorasched.allpass`. Layers, bottom to top (imports go downward):
model < lp < jobsim < {pdftsp, titan, allpass} < plugins < systems < gym < experiments <
figures < plotting < suite < explorer < service < bench < profiling < cli."""

import importlib
import warnings

from .allpass.workload import allpass_scenario
from .experiments import Sweep, run_sweep, run_sweeps
from .model.errors import InputError, ResultError
from .pdftsp.workload import synthetic_scenario
from .systems import SYSTEMS, check_result, load_scenario, simulate
from .titan.workload import titan_scenario

__version__ = "0.1.0"

__all__ = [
    "SYSTEMS",
    "InputError",
    "ResultError",
    "Sweep",
    "allpass_scenario",
    "check_result",
    "load_scenario",
    "run_sweep",
    "run_sweeps",
    "simulate",
    "synthetic_scenario",
    "titan_scenario",
]

#: pdFTSP's names that the top level held before it held only what the systems share:
#: old name -> (module, name there). They still work, with a DeprecationWarning naming
#: the new place, and go in the next release.
MOVED = {
    "OnlineAuction": ("lorasched.pdftsp", "OnlineAuction"),
    "payment_paper": ("lorasched.pdftsp", "payment_paper"),
    "offline_opt": ("lorasched.pdftsp", "offline_opt"),
    "offline_upper_bound": ("lorasched.pdftsp", "offline_upper_bound"),
    "ScenarioArrays": ("lorasched.pdftsp", "ScenarioArrays"),
    "to_arrays": ("lorasched.pdftsp", "to_arrays"),
    "validate_scenario": ("lorasched.pdftsp", "validate"),
    "Schedule": ("lorasched.pdftsp", "Schedule"),
    "schedule": ("lorasched.pdftsp.schedule", "schedule"),
}


def __getattr__(name: str):
    """A name in :data:`MOVED`, with a DeprecationWarning that names its new place."""
    if name not in MOVED:
        raise AttributeError(f"module 'lorasched' has no attribute {name!r}")
    module, new = MOVED[name]
    warnings.warn(f"lorasched.{name} is pdFTSP's and moved: use {module}.{new} (the old "
                  f"name goes in the next release)", DeprecationWarning, stacklevel=2)
    return getattr(importlib.import_module(module), new)

