"""A GPU node's numbers measured for one model (:class:`NodeProfile`), which a synthetic
scenario can take in place of :mod:`lorasched.model.profiles`' published model; built
from a measured table by ``lorasched.profiling.table.pdftsp_node``. See
:doc:`/reference/gpu_profiles`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..model.errors import InputError


@dataclass(frozen=True)
class NodeProfile:
    """What pdFTSP needs of one GPU type, measured.

    Attributes
    ----------
    label : str
        The GPU's label (the nodes' ``gpu_type``).
    speed : dict
        Micro-batch -> ``s_ik``, samples per slot of one task alone.
    memory_gb : dict
        Micro-batch -> ``r_i``, a task's memory (its peak less the base model's), GB.
    base_model_memory_gb : float
        ``r_b``, the base model's memory, GB.
    capacity : int
        ``C_kp``, samples per slot of a saturated node.
    memory_capacity_gb : float
        ``C_km``, the GPU's memory, GB.
    power_w : float
        The GPU's power, for the operating cost.
    slot_minutes : float
        The slot length the speeds are per.
    source : str
        Where the numbers come from (recorded in the scenario's attributes).
    """

    label: str
    speed: dict
    memory_gb: dict
    base_model_memory_gb: float
    capacity: int
    memory_capacity_gb: float
    power_w: float
    slot_minutes: float
    source: str

    def check(self, micro_batches, slot_minutes: float) -> None:
        """:class:`~lorasched.model.errors.InputError` unless the profile covers
        ``micro_batches`` at ``slot_minutes``, with positive speeds and memories."""
        if not math.isclose(self.slot_minutes, slot_minutes):
            raise InputError(f"the measured node's speeds are per {self.slot_minutes:g}-"
                             f"minute slot; the scenario's slots are {slot_minutes:g} minutes")
        missing = [b for b in micro_batches if b not in self.speed or b not in self.memory_gb]
        if missing:
            raise InputError(f"the measured node ({self.label}) has no row for micro-batch(es) "
                             f"{missing}; measured: {sorted(self.speed)}")
        for name, value in (("capacity", self.capacity),
                            ("memory_capacity_gb", self.memory_capacity_gb),
                            ("power_w", self.power_w),
                            *((f"speed[{b}]", self.speed[b]) for b in micro_batches),
                            *((f"memory_gb[{b}]", self.memory_gb[b]) for b in micro_batches)):
            if not (math.isfinite(value) and value > 0):
                raise InputError(f"the measured node's {name} must be > 0, got {value!r}")
