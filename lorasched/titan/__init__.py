"""TITAN (Gao et al., SoCC'22): a scheduler for foundation-model fine-tuning workloads.

:mod:`.lut`, :mod:`.tables`, :mod:`.workload`, :mod:`.helios`, :mod:`.scenario`, :mod:`.milp`,
:mod:`.switch`, :mod:`.cluster`, :mod:`.policies`, :mod:`.schedule`, :mod:`.result`,
:mod:`.system`, :mod:`.flags` (its ``lorasched simulate`` flags). See :doc:`/titan_model`,
:doc:`/reference/titan_scheduler` and :doc:`/reference/titan_data`.
"""

from .cluster import LOG_LAW, TitanCluster, merged_iterations, run_titan
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
from .scenario import (
    SETUPS,
    WORKLOADS,
    TitanArrays,
    build,
    titan_scenario,
    to_arrays,
    validate,
)
from .schedule import Recorder, Schedule
from .switch import NAIVE_S, PIPELINED_S, SWITCH_SOURCE, switch_seconds, switch_table
from .system import SYSTEM
from .workload import (
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

__all__ = [
    "LOG_LAW", "NAIVE_S", "PIPELINED_S", "POLICIES", "SWITCH_SOURCE", "SYSTEM",
    "SETUPS", "WORKLOADS", "Recorder", "Schedule", "TitanArrays", "TitanCluster", "assemble",
    "build", "check_result", "helios_workload", "merged_iterations", "run_titan",
    "switch_seconds", "switch_table", "titan_scenario", "to_arrays", "validate",
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
