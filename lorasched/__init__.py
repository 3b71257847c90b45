"""lorasched: online scheduling and auction pricing of LoRA fine-tuning jobs.

Public API: :func:`synthetic_scenario` builds a scenario, :func:`simulate` runs an
algorithm on it (pdFTSP, Titan, EFT, NTM), :func:`check_result` validates any result,
:func:`offline_opt` solves problem (4) exactly (small instances) and
:func:`offline_upper_bound` bounds it at scale; :func:`run_sweep` runs a declared
:class:`Sweep` (grid x algorithms x seeds) in parallel on Dask, resumably;
:class:`OnlineAuction` is the state object of the online primal-dual auction (pdFTSP,
ICPP'24), :func:`schedule` its per-task schedule search (Algorithm 2).
"""

from .experiments.sweep import Sweep, run_sweep
from .pdftsp.auction import OnlineAuction, payment_critical, payment_paper
from .pdftsp.colgen import offline_upper_bound
from .pdftsp.offline import offline_opt
from .pdftsp.result import ResultError, check_result
from .pdftsp.scenario import ScenarioArrays, to_arrays, validate_scenario
from .pdftsp.schedule import Schedule, schedule
from .pdftsp.simulation import simulate
from .pdftsp.workload import synthetic_scenario

__version__ = "0.1.0"

__all__ = [
    "OnlineAuction",
    "ResultError",
    "Schedule",
    "ScenarioArrays",
    "Sweep",
    "check_result",
    "offline_opt",
    "offline_upper_bound",
    "payment_critical",
    "payment_paper",
    "run_sweep",
    "schedule",
    "simulate",
    "synthetic_scenario",
    "to_arrays",
    "validate_scenario",
]
