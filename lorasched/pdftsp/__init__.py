"""pdFTSP (Zheng et al., ICPP'24): online scheduling and pricing of multi-LoRA fine-tuning tasks.

The shape every system package shares: :mod:`.workload` (the scenario builder,
:func:`synthetic_scenario`), :mod:`.scenario` (:func:`validate`, :func:`to_arrays`),
:mod:`.policies`, :mod:`.decisions` (what a policy returns), :mod:`.result`,
:mod:`.diagnostics`, :mod:`.system` (the ``System`` and :func:`simulate`), :mod:`.env`
(the admission as a decision problem) and :mod:`.flags` (its ``lorasched simulate`` flags).
pdFTSP's own: :mod:`.kernels`, :mod:`.cg_kernels`, :mod:`.candidate_index`,
:mod:`.schedule` (Algorithm 2: its function ``schedule`` keeps the module's name, so it
is not exported here), :mod:`.auction` (Algorithm 1), :mod:`.mechanism`,
:mod:`.pricing`, :mod:`.baselines`, :mod:`.slot_milp`, :mod:`.offline` (with
:mod:`.offline_rows`), :mod:`.bound` and :mod:`.node_profile`.
See :doc:`/model`, :doc:`/algorithm`.
"""

from .auction import OnlineAuction, payment_paper
from .bound import offline_upper_bound
from .decisions import Decisions
from .offline import offline_opt
from .policies import REGISTRY as POLICIES
from .result import assemble, check_result
from .scenario import ScenarioArrays, to_arrays, validate
from .schedule import Schedule
from .system import SYSTEM, simulate
from .workload import synthetic_scenario

__all__ = [
    "POLICIES", "SYSTEM", "Decisions", "OnlineAuction", "Schedule", "ScenarioArrays",
    "assemble", "check_result", "offline_opt", "offline_upper_bound", "payment_paper",
    "simulate", "synthetic_scenario", "to_arrays", "validate",
]
