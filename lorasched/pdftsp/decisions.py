"""What every algorithm returns: its decisions as plain arrays (no accounting yet)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: why a task ended as it did. "price_above_bid": a baseline's posted price exceeds the bid
#: (the user would not buy); "not_selected": an optimisation (Titan's MILP, the offline
#: optimum) left the task out although a schedule existed
REASONS = ("admitted", "no_feasible_schedule", "negative_surplus", "price_above_bid",
           "not_selected")


@dataclass
class Decisions:
    """Decisions of one algorithm on one scenario: what a pdFTSP policy returns.

    Parameters
    ----------
    admitted : numpy.ndarray
        Per task, ``u_i``.
    chosen_vendor : numpy.ndarray
        Per task, n with ``z_in = 1``; -1 for none.
    payment : numpy.ndarray
        Per task, ``p_i``, 0 unless admitted.
    reason : numpy.ndarray
        Per task, one of ``REASONS``: ``"admitted"``, ``"no_feasible_schedule"``,
        ``"negative_surplus"``, ``"price_above_bid"`` or ``"not_selected"``.
    surplus : numpy.ndarray
        Per task, ``F(il)`` where the algorithm computes one, else NaN.
    decision_time : numpy.ndarray
        Per task, seconds.
    cell_task, cell_node, cell_slot : numpy.ndarray
        The allocation ``x_ikt`` as cells.
    lam, phi : numpy.ndarray
        Final dual prices [node, slot] (zeros for algorithms without prices).
    attrs : dict, optional
        Extra scalar facts to record (options, solver statistics).
    per_slot : dict, optional
        Arrays of length T (e.g. Titan's solve time per slot), stored as
        ``<algorithm>_<name>[slot]``.
    """

    admitted: np.ndarray
    chosen_vendor: np.ndarray
    payment: np.ndarray
    reason: np.ndarray
    surplus: np.ndarray
    decision_time: np.ndarray
    cell_task: np.ndarray
    cell_node: np.ndarray
    cell_slot: np.ndarray
    lam: np.ndarray
    phi: np.ndarray
    attrs: dict = field(default_factory=dict)
    per_slot: dict = field(default_factory=dict)

    @classmethod
    def empty(cls, n_tasks: int, n_nodes: int, n_slots: int) -> Decisions:
        """All tasks rejected ("no_feasible_schedule"), no cells, zero prices."""
        none = np.empty(0, dtype=np.int64)
        return cls(
            admitted=np.zeros(n_tasks, dtype=bool),
            chosen_vendor=np.full(n_tasks, -1, dtype=np.int64),
            payment=np.zeros(n_tasks),
            reason=np.full(n_tasks, "no_feasible_schedule", dtype=object),
            surplus=np.full(n_tasks, np.nan),
            decision_time=np.zeros(n_tasks),
            cell_task=none, cell_node=none.copy(), cell_slot=none.copy(),
            lam=np.zeros((n_nodes, n_slots)), phi=np.zeros((n_nodes, n_slots)),
        )


class CellCollector:
    """The cells ``x_ikt = 1`` of the tasks an algorithm places, gathered task by task and
    stored into :class:`Decisions` at the end (:meth:`store`)."""

    def __init__(self) -> None:
        self._task: list[np.ndarray] = []
        self._node: list[np.ndarray] = []
        self._slot: list[np.ndarray] = []

    def add(self, i: int, nodes: np.ndarray, slots: np.ndarray) -> None:
        """Place task ``i`` on cells ``(nodes[c], slots[c])``."""
        self._task.append(np.full(nodes.shape[0], i, dtype=np.int64))
        self._node.append(nodes)
        self._slot.append(slots)

    def store(self, out: Decisions) -> None:
        """Set ``out.cell_task/cell_node/cell_slot`` to the cells added, in the order added
        (left as they are, empty, when none was)."""
        if self._task:
            out.cell_task = np.concatenate(self._task)
            out.cell_node = np.concatenate(self._node)
            out.cell_slot = np.concatenate(self._slot)
