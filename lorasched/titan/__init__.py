"""TITAN (Gao et al., SoCC'22): a scheduler for foundation-model fine-tuning workloads.

* :mod:`.lut` — the throughput look-up table (section 4.1) from the authors' published
  step-time measurements (``traces/titansched/``, MIT licence) or a user's own: loading
  with named errors, step time with gradient accumulation, the paper's T_{i,a} and the
  search for the global batch that minimises time per sample.
* :mod:`.milp` — the allocation MILP (section 3, eqs. 1-4) and the task merger (section
  4.2, eqs. 5-11, both readings of constraints 9-10), solved exactly with HiGHS.
* :mod:`.tables` — reading its CSV tables with errors that name the file and the column.
* :mod:`.workload` — the authors' evaluation workloads (section 5) with each job's length
  derived from their accuracy curves and dataset sizes, and the merge candidates (jobs
  sharing an application).
* :mod:`.helios` — a workload drawn from Helios Venus, GPU time converted to dataset scale.
* :mod:`.scenario` — :func:`titan_scenario`: cluster + jobs + LUT step times, validated;
  two setups, the paper's and the one the authors' code runs (``setup="authors_code"``).
* :mod:`.switch` — context-switch cost per allocation, naive and pipelined (Fig. 3).
* :mod:`.cluster` — TITAN's scheduler (MILP at submissions and completions, or on a tick).
* :mod:`.policies` — ``titan``, ``titan_nomerge``, ``titan_noswitch``, ``srtf``, ``tiresias``,
  ``fifo`` (a reference).
* :mod:`.schedule`, :mod:`.result` — run segments, the result Dataset and its checker.
* :mod:`.system` — the :class:`~lorasched.model.system.System` the experiment engine sees;
  :mod:`.flags` — its flags of ``lorasched simulate``.
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
