"""TITAN (Gao et al., SoCC'22): a scheduler for foundation-model fine-tuning workloads.

Under construction. So far:

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
"""

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
)
from .milp import (
    CONSTRAINTS,
    Allocation,
    MergedAllocation,
    allocation_set,
    solve_allocation,
    solve_with_merging,
)
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
