"""TITAN (Gao et al., SoCC'22): a scheduler for foundation-model fine-tuning workloads.

The shape every system package shares: :mod:`.workload` (the scenario builders,
:func:`titan_scenario` and :func:`build`), :mod:`.scenario` (:func:`validate`,
:func:`to_arrays`), :mod:`.policies`, :mod:`.decisions` (what a policy returns,
:class:`Schedule`), :mod:`.result`, :mod:`.diagnostics`, :mod:`.system` (the ``System``
and :func:`simulate`), :mod:`.env` (the allocation at each event as a decision problem) and
:mod:`.flags` (its ``lorasched simulate`` flags). TITAN's own: :mod:`.lut`, :mod:`.tables`,
:mod:`.authors` and :mod:`.helios` (the workloads' sources), :mod:`.milp`, :mod:`.switch`,
:mod:`.cluster`. See :doc:`/titan_model`, :doc:`/reference/titan_scheduler` and
:doc:`/reference/titan_data`.
"""

from .authors import (
    MAX_EPOCHS,
    MERGE_KEY,
    SCALE_COLUMNS,
    WORKLOAD_COLUMNS,
    WORKLOAD_SOURCE,
    available_workloads,
    load_workload,
    merge_candidates,
    titansched_dir,
)
from .cluster import TitanCluster, run_titan
from .decisions import Recorder, Schedule
from .helios import helios_workload
from .lut import (
    CONTEXT_SWITCH_COLUMNS,
    GPUS,
    MEMORY_COLUMNS,
    MODELS,
    PLACEMENT_COLUMNS,
    SOURCE,
    available,
    best_configuration,
    compact_placement,
    from_frames,
    load_lut,
    lut_dir,
    measured_gpus,
    paper_batches,
    step_time,
    throughput,
    with_scalability,
)
from .merging import LOG_LAW, merged_iterations
from .milp import (
    CONSTRAINTS,
    Allocation,
    MergedAllocation,
    allocation_set,
    solve_allocation,
    solve_with_merging,
)
from .policies import REGISTRY as POLICIES
from .result import assemble, check_result
from .scenario import SETUPS, TitanArrays, to_arrays, validate
from .switch import NAIVE_S, PIPELINED_S, SWITCH_SOURCE, switch_seconds, switch_table
from .system import SYSTEM, simulate
from .workload import WORKLOADS, build, titan_scenario

__all__ = [
    "LOG_LAW", "NAIVE_S", "PIPELINED_S", "POLICIES", "SWITCH_SOURCE", "SYSTEM",
    "SETUPS", "WORKLOADS", "Recorder", "Schedule", "TitanArrays", "TitanCluster", "assemble",
    "build", "check_result", "helios_workload", "merged_iterations", "run_titan",
    "simulate", "switch_seconds", "switch_table", "titan_scenario", "to_arrays", "validate",
    "CONSTRAINTS",
    "Allocation",
    "MergedAllocation",
    "allocation_set",
    "solve_allocation",
    "solve_with_merging",
    "CONTEXT_SWITCH_COLUMNS",
    "GPUS",
    "MEMORY_COLUMNS",
    "MODELS",
    "PLACEMENT_COLUMNS",
    "SOURCE",
    "available",
    "best_configuration",
    "compact_placement",
    "from_frames",
    "load_lut",
    "lut_dir",
    "measured_gpus",
    "paper_batches",
    "step_time",
    "throughput",
    "with_scalability",
    "MAX_EPOCHS",
    "MERGE_KEY",
    "SCALE_COLUMNS",
    "WORKLOAD_COLUMNS",
    "WORKLOAD_SOURCE",
    "available_workloads",
    "load_workload",
    "merge_candidates",
    "titansched_dir",
]
