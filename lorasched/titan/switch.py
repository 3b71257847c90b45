"""Context-switch cost (TITAN sec. 4.3, Fig. 3): the seconds a job spends loading its parameters
each time it starts, naive or with TITAN's pipeline switch (:func:`switch_seconds`), from the
authors' measurements. See :doc:`/titan_model` and :doc:`/reference/titan_data`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np

from ..model.errors import InputError

#: seconds per switch of ViT-L/16 without pipeline switch, by GPUs (authors' first commit)
NAIVE_S = {1: 18.0, 2: 22.0, 4: 29.0, 8: 46.0}
#: seconds per switch of ViT-L/16 with TITAN's pipeline switch, by GPUs (same source)
PIPELINED_S = {1: 5.0, 2: 7.0, 4: 5.0, 8: 6.0}
#: the named tables
SWITCH_TABLES = {"naive": NAIVE_S, "pipelined": PIPELINED_S,
                 "none": {1: 0.0}}
SWITCH_SOURCE = ("TITAN's authors' first commit, GitHub gaow0007/TitanSched e84f1a2 "
                 "(2022-10-13), MIT licence: ViT-L/16 context-switch overhead by GPUs; the "
                 "paper's Fig. 3 shows the same measurement ('up to 46 seconds')")


def switch_table(kind="pipelined") -> dict[int, float]:
    """The switch-cost table ``{gpus: seconds}`` named ``kind`` (``"naive"``,
    ``"pipelined"``, ``"none"``) or given as a mapping (validated: positive whole GPU
    counts, non-negative finite seconds)."""
    if isinstance(kind, str):
        if kind not in SWITCH_TABLES:
            raise InputError(f"switch must be one of {sorted(SWITCH_TABLES)} or a mapping "
                             f"{{gpus: seconds}}, got {kind!r}")
        return dict(SWITCH_TABLES[kind])
    if not isinstance(kind, Mapping) or not kind:
        raise InputError(f"switch must be one of {sorted(SWITCH_TABLES)} or a non-empty "
                         f"mapping {{gpus: seconds}}, got {kind!r}")
    table = {}
    for g, s in kind.items():
        if isinstance(g, bool) or not isinstance(g, numbers.Integral) or g < 1:
            raise InputError(f"switch table: GPU count {g!r} must be a positive integer")
        if (isinstance(s, bool) or not isinstance(s, numbers.Real) or not math.isfinite(s)
                or s < 0):
            raise InputError(f"switch table: seconds for {g} GPUs must be a non-negative "
                             f"finite number, got {s!r}")
        table[int(g)] = float(s)
    return dict(sorted(table.items()))


def switch_seconds(gpus, kind="pipelined", scale: float = 1.0) -> np.ndarray:
    """Seconds of one context switch of a job on ``gpus`` GPUs (array or scalar), from the
    table ``kind`` (module docstring) times ``scale``."""
    table = switch_table(kind)
    if (isinstance(scale, bool) or not isinstance(scale, numbers.Real)
            or not math.isfinite(scale) or scale < 0):
        raise InputError(f"switch_scale must be a non-negative finite number, got {scale!r}")
    xs = np.array(list(table), dtype=float)
    ys = np.array(list(table.values()), dtype=float)
    g = np.asarray(gpus, dtype=float)
    if np.any(~np.isfinite(g) | (g < 1)):
        raise InputError(f"gpus must be >= 1, got {gpus!r}")
    return np.interp(g, xs, ys) * float(scale)  # flat beyond the table's ends
