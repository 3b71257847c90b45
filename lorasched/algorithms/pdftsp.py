"""pdFTSP: the online primal-dual auction of the paper (Algorithms 1 and 2)."""

from __future__ import annotations

import numpy as np
from tqdm import tqdm  # text bar: a widget bar would break plotly in the built book

from ..auction import OnlineAuction, declared_bounds, default_alpha_beta
from ..decisions import Decisions
from ..scenario import ScenarioArrays


def run(arrays: ScenarioArrays, rng: np.random.Generator, *, attrs: dict | None = None,
        alpha: float | None = None, beta: float | None = None, payment: str = "critical",
        solver: str = "paper", work_resolution: int = 8, progress: bool = False) -> Decisions:
    """Offer every task, in arrival order, to one :class:`OnlineAuction`.

    ``alpha``/``beta`` default to :func:`default_alpha_beta` of the scenario's declared
    bounds (``attrs``). pdFTSP draws no random numbers; ``rng`` is accepted for the
    common interface.
    """
    del rng
    if alpha is None or beta is None:
        a0, b0 = default_alpha_beta(arrays, *declared_bounds(attrs or {}, arrays))
        alpha = a0 if alpha is None else alpha
        beta = b0 if beta is None else beta
    auction = OnlineAuction(arrays, alpha=alpha, beta=beta, payment=payment, solver=solver,
                            work_resolution=work_resolution)
    out = Decisions.empty(arrays.n_tasks, arrays.n_nodes, arrays.n_slots)
    cells_t, cells_k, cells_s = [], [], []
    for i in tqdm(range(arrays.n_tasks), desc="pdftsp", unit="task", disable=not progress):
        d = auction.offer(i)
        out.reason[i] = d.reason
        out.decision_time[i] = d.seconds
        if d.schedule.feasible:
            out.surplus[i] = d.schedule.surplus
        if d.admitted:
            out.admitted[i] = True
            out.chosen_vendor[i] = d.schedule.vendor
            out.payment[i] = d.payment
            cells_t.append(np.full(d.schedule.n_cells, i, dtype=np.int64))
            cells_k.append(d.schedule.nodes)
            cells_s.append(d.schedule.slots)
    if cells_t:
        out.cell_task = np.concatenate(cells_t)
        out.cell_node = np.concatenate(cells_k)
        out.cell_slot = np.concatenate(cells_s)
    out.lam = auction.lam
    out.phi = auction.phi
    out.attrs = {"alpha": float(alpha), "beta": float(beta), "payment_rule": payment,
                 "solver": solver, "work_resolution": int(work_resolution)}
    return out
