"""Why pdFTSP admits what it admits: task merging and utilisation of a result
(:func:`merging`), and the prices at rejection against Lemma 2's floor (:func:`priced_out`);
see :doc:`/reference/pdftsp_online`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from .auction import OnlineAuction, declared_bounds
from .scenario import to_arrays


def merging(result: xr.Dataset) -> dict[str, float]:
    """Task merging and utilisation of one result (any policy of this system).

    ``shared_cells``: the share of used cells (node, slot) that hold two or more tasks;
    ``utilisation``: samples processed / the cluster's compute over the horizon;
    ``used_cells``: cells holding at least one task; ``task_share_median``: the median, over
    the admitted tasks' cells, of ``s_ik / C_kp`` (how much of a node one task takes)."""
    node = result["cell_node"].values.astype(np.int64)
    slot = result["cell_slot"].values.astype(np.int64)
    task = result["cell_task"].values.astype(np.int64)
    K, T = result.sizes["node"], result.sizes["slot"]
    capacity = result["compute_capacity"].values.astype(float)
    count = np.zeros((K, T), dtype=np.int64)
    np.add.at(count, (node, slot), 1)
    used = int((count > 0).sum())
    speed = (to_arrays(result, validate=False).speed[task, node].astype(float) if task.size
             else np.zeros(0))
    return {
        "used_cells": float(used),
        "shared_cells": float((count >= 2).sum() / used) if used else 0.0,
        "utilisation": float(speed.sum() / (capacity.sum() * T)) if T else 0.0,
        "task_share_median": float(np.median(speed / capacity[node])) if speed.size else 0.0,
    }


def priced_out(scenario: xr.Dataset, **options) -> pd.DataFrame:
    """Replay pdFTSP (``options``: those of :class:`~lorasched.pdftsp.auction.OnlineAuction`)
    and describe every task rejected for a non-positive surplus, one row each:

    ``task``; ``compute_used``/``memory_used``: the mean used share of compute and memory
    over the cells of its best schedule; ``lam_hat``, ``phi_hat``: eq. (14)'s largest
    prices there, in units of ``v_max`` (per sample) and ``v_max * speed_per_memory_max``
    (per GB and slot); ``lam_floor``, ``phi_floor``: Lemma 2's floors at those cells, same
    units; ``compute_charge``: the share of the price ``lam_hat * samples + phi_hat * r_i *
    cells`` that is compute; ``value_density``: its bid per sample in units of ``v_min``."""
    arrays = to_arrays(scenario)
    v_min, v_max, s_per_r = declared_bounds(arrays)
    auction = OnlineAuction(arrays, **options)
    capacity = arrays.compute_capacity.astype(float)[:, None]
    memory = arrays.usable_memory.astype(float)[:, None]
    rows = []
    for i in range(arrays.n_tasks):
        d = auction.offer(i)
        if d.reason != "negative_surplus":
            continue
        s = d.schedule
        k, t = s.nodes, s.slots
        u = 1.0 - auction.compute_left[k, t] / capacity[k, 0]
        m = 1.0 - auction.memory_left[k, t] / memory[k, 0]
        lam_charge = s.lam_hat * s.samples
        phi_charge = s.phi_hat * s.n_cells * float(arrays.memory[i])
        total = lam_charge + phi_charge
        rows.append({
            "task": i, "compute_used": float(u.mean()), "memory_used": float(m.mean()),
            "lam_hat": s.lam_hat / v_max, "phi_hat": s.phi_hat / (v_max * s_per_r),
            "lam_floor": float((2.0 ** u - 1.0).max()),
            "phi_floor": float((2.0 ** m - 1.0).max()),
            "compute_charge": lam_charge / total if total > 0 else np.nan,
            "value_density": float(arrays.bid[i] / arrays.work[i]) / v_min})
    columns = ["task", "compute_used", "memory_used", "lam_hat", "phi_hat", "lam_floor",
               "phi_floor", "compute_charge", "value_density"]
    return pd.DataFrame(rows, columns=columns).set_index("task")
