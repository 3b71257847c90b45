"""lorasched: scheduling and pricing of LoRA / foundation-model fine-tuning jobs.

:func:`simulate` runs a policy of any system on a scenario, :func:`check_result` judges the
result, :func:`run_sweep` runs a :class:`Sweep`. Layers, bottom to top (imports go downward):
model < lp < jobsim < {pdftsp, titan, allpass} < plugins < systems < gym < experiments <
figures < plotting < suite < explorer < service < bench < profiling < cli."""

from .allpass.scenario import allpass_scenario
from .experiments import Sweep, run_sweep, run_sweeps
from .model.errors import InputError, ResultError
from .pdftsp.auction import OnlineAuction, payment_paper
from .pdftsp.bound import offline_upper_bound
from .pdftsp.offline import offline_opt
from .pdftsp.scenario import ScenarioArrays, to_arrays, validate_scenario
from .pdftsp.schedule import Schedule, schedule
from .pdftsp.workload import synthetic_scenario
from .systems import SYSTEMS, check_result, load_scenario, simulate
from .titan.scenario import titan_scenario

__version__ = "0.1.0"

__all__ = [
    "SYSTEMS",
    "InputError",
    "OnlineAuction",
    "ResultError",
    "Schedule",
    "ScenarioArrays",
    "Sweep",
    "check_result",
    "load_scenario",
    "offline_opt",
    "offline_upper_bound",
    "payment_paper",
    "run_sweep",
    "run_sweeps",
    "schedule",
    "simulate",
    "synthetic_scenario",
    "titan_scenario",
    "allpass_scenario",
    "to_arrays",
    "validate_scenario",
]
