"""The suite's numbers: from one system's sweep dataset, each policy's metrics as a mean
with its 95 % Student-t interval over seeds, per scenario and for the suite as a whole
(each seed's mean over the suite's scenarios), and the tables to paste (Markdown, CSV).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import xarray as xr

from ..figures.numbers import num
from ..figures.verdicts import estimate
from ..model.errors import InputError
from .scenarios import system_definition

#: the ``scenario`` of the rows that pool the suite's scenarios
POOLED = "suite mean"
#: the long table's columns (:func:`summary`)
COLUMNS = ["system", "policy", "scenario", "metric", "mean", "low", "high", "n",
           "machine_dependent"]
#: the mark of a machine-dependent column in the Markdown tables
TIMING_MARK = "†"


def metrics(ds: xr.Dataset, system: str) -> xr.Dataset:
    """The suite's metrics of one system's sweep dataset.

    Parameters
    ----------
    ds : xarray.Dataset
        The system's suite sweep (dims: its axes, ``algorithm``, ``seed``).
    system : str
        The system, a key of :data:`~lorasched.suite.scenarios.DEFINITION`.

    Returns
    -------
    xarray.Dataset
        The definition's metrics then its timings, each over the dataset's dims; a ratio
        is its numerator over its denominator, NaN where the denominator is not positive.

    Raises
    ------
    InputError
        If ``ds`` lacks a variable the definition needs.
    """
    if not isinstance(ds, xr.Dataset):
        raise InputError(f"ds must be an xarray.Dataset, got {type(ds).__name__}")
    part = system_definition(system)
    out = {}
    for name in [*part["metrics"], *part["timings"]]:
        if name in part["ratios"]:
            top, bottom, _ = part["ratios"][name]
            _need(ds, (top, bottom), system)
            denominator = ds[bottom].where(ds[bottom] > 0)
            out[name] = (ds[top] / denominator).transpose(*ds[top].dims)
        else:
            _need(ds, (name,), system)
            out[name] = ds[name]
    return xr.Dataset(out)


def _need(ds: xr.Dataset, names, system: str) -> None:
    missing = [n for n in names if n not in ds.data_vars]
    if missing:
        raise InputError(f"the {system} dataset has no variable(s) {missing}; it has "
                         f"{sorted(ds.data_vars)}")


def _estimate(values) -> tuple[float, float, float, int]:
    """Mean, 95 % low and high over the finite values (NaNs and n 0 when none is)."""
    x = np.asarray(values, dtype=float).ravel()
    if not np.isfinite(x).any():
        return math.nan, math.nan, math.nan, 0
    est = estimate(x)
    return est.mean, est.low, est.high, est.n


def scenario_label(point: dict) -> str:
    """A scenario row's name: its axes' labels, ``"axis=label, ..."``.

    Parameters
    ----------
    point : dict
        Axis -> label.

    Returns
    -------
    str
    """
    if not isinstance(point, dict):
        raise InputError(f"point must be a dict of axis -> label, got {point!r}")
    return ", ".join(f"{axis}={_label(v)}" for axis, v in point.items())


def _label(v) -> str:
    if isinstance(v, float | np.floating) and float(v).is_integer():
        return f"{float(v):g}"
    return str(v.item() if isinstance(v, np.generic) else v)


def summary(ds: xr.Dataset, system: str) -> pd.DataFrame:
    """Every policy's metrics with their 95 % intervals over seeds, pooled and per scenario.

    A pooled row (scenario ``POOLED``) estimates, over seeds, each seed's mean over
    the suite's scenarios: the scenarios are the suite's fixed design, the seeds its
    random replication, so the interval is over seeds alone (a seed missing any scenario
    is left out). A scenario row estimates the metric over the seeds of that scenario.

    Parameters
    ----------
    ds : xarray.Dataset
        The system's suite sweep (dims: its axes, ``algorithm``, ``seed``).
    system : str
        The system.

    Returns
    -------
    pandas.DataFrame
        Columns ``COLUMNS``, the pooled rows first, policies in the dataset's order.

    Raises
    ------
    InputError
        If ``ds`` is not such a dataset.
    """
    values = metrics(ds, system)
    part = system_definition(system)
    for dim in ("algorithm", "seed"):
        if dim not in values.dims:
            raise InputError(f"the {system} dataset has no dimension {dim!r}")
    axes = [d for d in values.dims if d not in ("algorithm", "seed")]
    timing = set(part["timings"])
    rows = []
    for policy in values["algorithm"].values:
        one = values.sel(algorithm=policy)
        for name in values.data_vars:
            da = one[name]
            pooled = da.mean(axes, skipna=False) if axes else da
            rows.append([system, str(policy), POOLED, name, *_estimate(pooled.values),
                         name in timing])
    if axes:
        stacked = values.stack(scenario=axes)
        for policy in values["algorithm"].values:
            one = stacked.sel(algorithm=policy)
            for i in range(stacked.sizes["scenario"]):
                at = one.isel(scenario=i)
                label = scenario_label({a: at[a].item() for a in axes})
                for name in values.data_vars:
                    rows.append([system, str(policy), label, name,
                                 *_estimate(at[name].values), name in timing])
    return pd.DataFrame(rows, columns=COLUMNS)


def wide(long: pd.DataFrame, scenario: str = POOLED) -> pd.DataFrame:
    """One scenario's rows of :func:`summary` as a policy x metric table of numbers.

    Parameters
    ----------
    long : pandas.DataFrame
        Rows of :func:`summary` (one system).
    scenario : str, optional
        Which rows (default the pooled ones, ``POOLED``).

    Returns
    -------
    pandas.DataFrame
        Index ``policy``; per metric the columns ``<metric>``, ``<metric>_low``,
        ``<metric>_high``; then ``seeds`` (the fewest seeds behind a metric of the row).
    """
    if not isinstance(long, pd.DataFrame) or not set(COLUMNS) <= set(long.columns):
        raise InputError(f"long must be a DataFrame with the columns {COLUMNS}")
    rows = long[long["scenario"] == scenario]
    if rows.empty:
        raise InputError(f"no rows of scenario {scenario!r}")
    policies = list(dict.fromkeys(rows["policy"]))
    names = list(dict.fromkeys(rows["metric"]))
    out = pd.DataFrame(index=pd.Index(policies, name="policy"))
    by = rows.set_index(["policy", "metric"])
    for name in names:
        for column, suffix in (("mean", ""), ("low", "_low"), ("high", "_high")):
            out[name + suffix] = [by.loc[(p, name), column] for p in policies]
    out["seeds"] = [int(rows[rows["policy"] == p]["n"].min()) for p in policies]
    return out


def cell_text(mean: float, low: float, high: float) -> str:
    """A mean and its interval for a table: ``"146 [120, 173]"``, the bare number when
    the interval has no width, ``"—"`` when there is no number.

    Parameters
    ----------
    mean, low, high : float
        The estimate.

    Returns
    -------
    str
    """
    if not all(isinstance(v, int | float | np.floating) for v in (mean, low, high)):
        raise InputError(f"mean, low and high must be numbers, got {(mean, low, high)!r}")
    mean, low, high = (_tidy(v) for v in (mean, low, high))
    if not math.isfinite(mean) or not (low < high):
        return num(mean)
    return f"{num(mean)} [{num(low)}, {num(high)}]"


#: below this magnitude a number is rounding noise (a sum of payments that cancel): 0
NOISE = 1e-12


def _tidy(x: float) -> float:
    return 0.0 if math.isfinite(x) and abs(x) < NOISE else float(x)


def markdown(long: pd.DataFrame, system: str, scenario: str = POOLED) -> str:
    """One system's policy x metric table in Markdown, ready to paste.

    Parameters
    ----------
    long : pandas.DataFrame
        Rows of :func:`summary`.
    system : str
        The system whose rows to show.
    scenario : str, optional
        Which rows (default the pooled ones).

    Returns
    -------
    str
        A header row, the alignment row and one row per policy, each cell a mean and its
        95 % interval (:func:`cell_text`); machine-dependent columns marked
        ``TIMING_MARK``.
    """
    rows = long[long["system"] == system] if "system" in long.columns else long
    table = wide(rows, scenario)
    names = list(dict.fromkeys(rows[rows["scenario"] == scenario]["metric"]))
    timing = set(rows[rows["machine_dependent"].astype(bool)]["metric"])
    header = ["policy", *[n + (f" {TIMING_MARK}" if n in timing else "") for n in names],
              "seeds"]
    lines = ["| " + " | ".join(header) + " |",
             "| " + " | ".join(["---"] + ["---:"] * (len(header) - 1)) + " |"]
    for policy, r in table.iterrows():
        cells = [cell_text(float(r[n]), float(r[n + "_low"]), float(r[n + "_high"]))
                 for n in names]
        lines.append("| " + " | ".join([str(policy), *cells, str(int(r["seeds"]))]) + " |")
    return "\n".join(lines)
