"""Single runs a page reads whole (a Gantt chart, a day's mechanism, every MILP decision of
a run): each a kept sweep of one cell (:func:`one_run`), declared by its page
(:meth:`.base.Figure.runs`) so that `lorasched reproduce` computes it in its one batch and
the page reads it back from the store (:func:`kept_result`), never simulating it itself.
"""

from __future__ import annotations

import hashlib
import json
import tempfile

import xarray as xr

from ..experiments import Store, Sweep, grid, run_sweeps


def one_run(system: str, base: dict, algorithm: str, *, seed: int, label: str,
            options: dict | None = None, what: str = "") -> Sweep:
    """A kept sweep of one cell: ``algorithm`` of ``system`` on the scenario ``base``
    (``build_scenario``'s parameters) with ``seed``, its whole result kept.

    Parameters
    ----------
    system : str
        The system's name.
    base : dict
        The scenario's parameters (the seed apart).
    algorithm : str
        The policy.
    seed : int
        The scenario's and the policy's seed.
    label : str
        How the CPU report names the run (not in its key).
    options : dict, optional
        The policy's options.
    what : str
        A description for the sweep's declaration.

    Returns
    -------
    Sweep
        Named by a hash of what it runs, so that two pages declaring the same run share it.
    """
    run = json.dumps([system, base, algorithm, options or {}, int(seed)], sort_keys=True)
    decl = {"name": f"{system}_run_{hashlib.sha256(run.encode()).hexdigest()[:10]}",
            "system": system, "base": dict(base), "algorithms": [algorithm],
            "seeds": [int(seed)], "keep": True, "label": label,
            "description": what or f"{algorithm} on one scenario, kept whole"}
    if options:
        decl["options"] = {algorithm: dict(options)}
    return Sweep.from_dict(decl)


def kept_result(sweep: Sweep, store) -> xr.Dataset:
    """The one kept result of ``sweep`` (:func:`one_run`), read from ``store`` (``False``:
    a temporary folder), computed there first where it is missing (as a page opened before
    `lorasched reproduce` ran finds it).

    Parameters
    ----------
    sweep : Sweep
        A kept sweep of one cell.
    store : path or False
        The folder of finished cells.

    Returns
    -------
    xarray.Dataset
        The run's checked result.

    Raises
    ------
    RuntimeError
        If the run failed, with its error.
    """
    (cell,) = grid.cells(sweep)
    with tempfile.TemporaryDirectory(prefix="lorasched-") as tmp:
        where = tmp if store is False else store
        found = Store(where)
        if cell.key not in found.done([cell.key]):
            report = run_sweeps([sweep], where, serial=True, progress=False)
            if report.failed:
                raise RuntimeError(f"{sweep.name} failed: {report.failed}")
        return found.result(cell.key)
