"""TITAN (Gao et al., SoCC'22): a scheduler for foundation-model fine-tuning workloads.

Under construction. So far:

* :mod:`.lut` — the throughput look-up table (section 4.1) from the authors' published
  step-time measurements (``traces/titansched/``, MIT licence) or a user's own: loading
  with named errors, step time with gradient accumulation, the paper's T_{i,a} and the
  search for the global batch that minimises time per sample.
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

__all__ = [
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
]
