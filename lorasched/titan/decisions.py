"""What a TITAN-system policy returns: the run segments of every unit (a job or a merged job),
in plain arrays (:class:`Schedule`, built by :class:`Recorder`); see
:doc:`/reference/titan_scheduler`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: allocation rules of Schedule.widths
WIDTHS = ("set", "requested")
#: segment kinds
RUN, SWITCH = 0, 1
KINDS = ("run", "switch")


@dataclass(frozen=True, eq=False)
class Schedule:
    """A TITAN-system policy's decisions: the run segments of every job (module docstring).

    Parameters
    ----------
    unit_members : tuple of tuple of int
        One tuple of job indices per unit (units numbered from 0).
    seg_unit, seg_gpus, seg_start, seg_end, seg_kind : numpy.ndarray
        Segments, one entry each: the unit, its GPUs, start and end (s), and kind
        (``RUN`` = 0 or ``SWITCH`` = 1).
    part_segment, part_job, part_progress : numpy.ndarray
        Parts, one per member of a run segment: the segment, the job, and the fraction of
        the job done in it.
    decision_time, decision_candidates, decision_seconds : numpy.ndarray
        Decisions, one per scheduling event at which a solver ran: the time (s), the units
        offered, and the solver's wall time (a measured time).
    widths : {"set", "requested"}, optional
        The rule the allocations follow: ``"set"`` (default; the paper's A = {1, 2, 4m},
        TITAN) or ``"requested"`` (each job runs on the GPUs it requested, the baselines).
    """

    unit_members: tuple[tuple[int, ...], ...]
    seg_unit: np.ndarray
    seg_gpus: np.ndarray
    seg_start: np.ndarray
    seg_end: np.ndarray
    seg_kind: np.ndarray
    part_segment: np.ndarray
    part_job: np.ndarray
    part_progress: np.ndarray
    decision_time: np.ndarray
    decision_candidates: np.ndarray
    decision_seconds: np.ndarray
    widths: str = "set"


class Recorder:
    """Collects segments as an engine closes them; :meth:`schedule` freezes them."""

    def __init__(self):
        self.units: list[tuple[int, ...]] = []
        self.segments: list[tuple[int, int, float, float, int]] = []
        self.parts: list[tuple[int, int, float]] = []
        self.decisions: list[tuple[float, int, float]] = []

    def unit(self, members) -> int:
        """Register a unit; returns its id."""
        self.units.append(tuple(int(j) for j in members))
        return len(self.units) - 1

    def interval(self, unit: int, gpus: int, start: float, switch_end: float, end: float,
                 progress: float) -> None:
        """Close one stay of ``unit`` on ``gpus`` GPUs from ``start`` to ``end``: a switch
        segment ``[start, min(switch_end, end))`` (if not empty) and a run segment
        ``[switch_end, end)`` (if not empty) crediting ``progress`` to each member."""
        cut = min(switch_end, end)
        if cut > start:
            self.segments.append((unit, gpus, start, cut, SWITCH))
        if end > switch_end:
            self.segments.append((unit, gpus, switch_end, end, RUN))
            seg = len(self.segments) - 1
            self.parts.extend((seg, j, progress) for j in self.units[unit])

    def decision(self, time: float, candidates: int, seconds: float) -> None:
        self.decisions.append((time, candidates, seconds))

    def schedule(self, widths: str = "set") -> Schedule:
        seg = np.array(self.segments, dtype=float).reshape(-1, 5)
        part = np.array(self.parts, dtype=float).reshape(-1, 3)
        dec = np.array(self.decisions, dtype=float).reshape(-1, 3)
        return Schedule(
            unit_members=tuple(self.units),
            seg_unit=seg[:, 0].astype(np.int64), seg_gpus=seg[:, 1].astype(np.int64),
            seg_start=seg[:, 2], seg_end=seg[:, 3], seg_kind=seg[:, 4].astype(np.int8),
            part_segment=part[:, 0].astype(np.int64), part_job=part[:, 1].astype(np.int64),
            part_progress=part[:, 2],
            decision_time=dec[:, 0], decision_candidates=dec[:, 1].astype(np.int64),
            decision_seconds=dec[:, 2], widths=widths)
