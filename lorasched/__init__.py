"""lorasched: scheduling and pricing of LoRA / foundation-model fine-tuning jobs.

The public face. :func:`simulate` runs any policy on any scenario (it dispatches on the
scenario's ``system`` attribute) and :func:`check_result` validates the result with that
system's checker; :func:`run_sweep` runs a declared :class:`Sweep` (grid x policies x
seeds, any system) in parallel on Dask, resumably. The systems live in sub-packages:

* :mod:`lorasched.pdftsp` — pdFTSP (ICPP'24): :func:`synthetic_scenario`,
  :class:`OnlineAuction` and :func:`schedule` (Algorithms 1 and 2), the baselines,
  :func:`offline_opt` (problem (4) exactly) and :func:`offline_upper_bound` (its LP bound).
* :mod:`lorasched.titan` — TITAN (SoCC'22): :func:`titan_scenario`, the throughput LUT,
  the MILP and task merger, the event-driven scheduler, SRTF and Tiresias.
* :mod:`lorasched.allpass` — Allpass (2025): :func:`allpass_scenario`, the clouds and the
  offer book, DBF pressure, the two scalers, the two-tier cluster and sec. 5's baselines.

Layers, bottom to top (imports only go downward): ``model`` (traces, job tables, GPU
profiles, the system contract), ``lp`` (HiGHS column generation), ``jobsim`` (event-driven
job engine), one package per system, ``systems`` (the registry), ``experiments`` (the
sweep engine), ``figures`` (one object per figure of each paper), ``present`` (plots,
widgets, benchmarks), ``cli``.
"""

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
