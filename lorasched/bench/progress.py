"""``lorasched bench progress``: a finished batch's cells replayed in the order they ended
(their files' times in the store) to ask what the progress bar would have said of the time
left at each point, against the time that was in fact left: the bar's forecast (the cost
model corrected per policy as cells end, :class:`lorasched.experiments.progress.Forecast`)
beside the cost model alone (each cell weighted by it, the rate since the start)."""

from __future__ import annotations

import pandas as pd

from ..experiments.grid import Cell
from ..experiments.progress import Forecast, expected_seconds
from ..experiments.store import Store
from ..model.errors import InputError

#: the points of the batch's wall time at which the estimates are read
FRACTIONS = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9)


def replay(store, fractions=FRACTIONS, expected=None) -> pd.DataFrame:
    """The estimates of a batch's finish at ``fractions`` of its wall time.

    Parameters
    ----------
    store : str or os.PathLike
        A store whose cells were computed in one batch (a fresh clone's
        ``build/sweeps/full`` after ``make book``); cells taken from shipped cells are left
        out (they were not computed).
    fractions : sequence of float
        Where to read the estimates, as fractions of the batch's wall time.
    expected : callable, optional
        The cost model (default: the systems' own).

    Returns
    -------
    pandas.DataFrame
        One row per fraction: ``elapsed_s``, the batch's ``finish_s``, and the finish each
        estimate gave after the last cell that ended by then (``model_s``: the cost model
        alone; ``forecast_s``: the bar's), with the cells done.
    """
    folder = Store(store).done_dir
    records = [r for r in Store(store).done().values() if not r.get("shipped")
               and "cpu_seconds" in r]
    if len(records) < 2:
        raise InputError(f"{store}: fewer than two computed cells to replay")
    ended = {r["key"]: (folder / f"{r['key']}.json").stat().st_mtime for r in records}
    start = min(ended[r["key"]] - float(r["seconds"]) for r in records)
    records.sort(key=lambda r: ended[r["key"]])
    finish = ended[records[-1]["key"]] - start
    cells = [Cell(r["key"], r["params"], ()) for r in records]
    model = expected_seconds if expected is None else expected
    weight = {c.key: model(c.params) for c in cells}
    forecast = Forecast(cells, expected)
    total_weight, done_weight = sum(weight.values()), 0.0
    rows, i = [], 0
    for fraction in sorted(fractions):
        while i < len(cells) and ended[cells[i].key] - start <= fraction * finish:
            forecast.done(cells[i], float(records[i]["cpu_seconds"]))
            done_weight += weight[cells[i].key]
            i += 1
        if i == 0:
            continue
        at = ended[cells[i - 1].key] - start
        rows.append({"fraction": fraction, "cells_done": i, "elapsed_s": at,
                     "finish_s": finish,
                     "model_s": at * total_weight / done_weight,
                     "forecast_s": at * (forecast.spent + forecast.left()) / forecast.spent})
    return pd.DataFrame(rows)


def replay_text(table: pd.DataFrame) -> str:
    """:func:`replay`'s table for people: minutes, and each estimate's error in per cent."""
    out = pd.DataFrame({
        "at": [f"{f:.0%}" for f in table["fraction"]],
        "cells done": table["cells_done"],
        "elapsed min": (table["elapsed_s"] / 60).round(1),
        "finish min": (table["finish_s"] / 60).round(1),
        "model alone, min": (table["model_s"] / 60).round(1),
        "error %": (100 * (table["model_s"] / table["finish_s"] - 1)).round(0),
        "bar's forecast, min": (table["forecast_s"] / 60).round(1),
        "error % ": (100 * (table["forecast_s"] / table["finish_s"] - 1)).round(0)})
    return out.to_string(index=False)
