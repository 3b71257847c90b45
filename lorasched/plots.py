"""Plotly figures for :func:`lorasched.simulate` results.

Every builder is a pure function of the result :class:`xarray.Dataset` (the scenario
variables plus the simulation outputs) and returns a :class:`plotly.graph_objects.Figure`;
nothing is displayed or written to disk.  :func:`show` displays a figure in a notebook in
a way that also renders in the statically built Jupyter Book without network access.

Time is shown in hours of the day: slot ``t`` starts at ``t * slot_minutes / 60`` h.
"""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import xarray as xr

__all__ = [
    "arrivals_and_admissions",
    "bids_and_payments",
    "dual_price_heatmap",
    "show",
    "utilisation_heatmap",
]

_ADMITTED_COLOUR = "#2a9d8f"
_REJECTED_COLOURS = {
    "no_feasible_schedule": "#e76f51",
    "negative_surplus": "#f4a261",
}
_OTHER_COLOUR = "#8d99ae"


def _slot_minutes(result: xr.Dataset) -> float:
    return float(result.attrs.get("slot_minutes", 10))


def _hours(result: xr.Dataset, n_slots: int) -> np.ndarray:
    return np.arange(n_slots) * _slot_minutes(result) / 60.0


def _node_labels(result: xr.Dataset) -> list[str]:
    n_nodes = result.sizes["node"]
    if "node" in result.coords:
        ids = [str(v) for v in result["node"].values]
    else:
        ids = [str(k) for k in range(n_nodes)]
    if "gpu_type" in result:
        gpus = [str(g) for g in result["gpu_type"].values]
        return [f"{k} ({g})" for k, g in zip(ids, gpus, strict=True)]
    return ids


def _node_by_slot(da: xr.DataArray) -> np.ndarray:
    return np.asarray(da.transpose("node", "slot").values, dtype=float)


def _hour_axis(fig: go.Figure, result: xr.Dataset, n_slots: int) -> None:
    day_hours = n_slots * _slot_minutes(result) / 60.0
    fig.update_xaxes(title_text="hour of the day", range=[0, day_hours])


def _heatmap(
    result: xr.Dataset,
    z: np.ndarray,
    *,
    title: str,
    colorbar_title: str,
    zmin: float | None,
    zmax: float | None,
    colorscale: str,
) -> go.Figure:
    n_nodes, n_slots = z.shape
    slot_hours = _slot_minutes(result) / 60.0
    x = _hours(result, n_slots) + slot_hours / 2.0  # cell centres
    labels = _node_labels(result)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=x,
            y=np.arange(n_nodes),
            customdata=np.broadcast_to(np.array(labels, dtype=object)[:, None], z.shape),
            zmin=zmin,
            zmax=zmax,
            colorscale=colorscale,
            colorbar={"title": {"text": colorbar_title}, "exponentformat": "e"},
            hovertemplate=(
                "node %{customdata}<br>hour %{x:.2f}<br>" + colorbar_title + " %{z:.3g}"
                "<extra></extra>"
            ),
        )
    )
    fig.update_layout(
        title=title,
        height=max(320, min(900, 120 + 6 * n_nodes)),
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
    )
    fig.update_yaxes(title_text="node", autorange="reversed")
    _hour_axis(fig, result, n_slots)
    return fig


def arrivals_and_admissions(result: xr.Dataset) -> go.Figure:
    """Tasks arriving in each slot, stacked by outcome (admitted or the rejection reason).

    The height of each bar is the number of arrivals in the slot; the bottom segment is
    the number admitted.
    """
    n_slots = result.sizes["slot"]
    arrival = np.asarray(result["arrival"].values, dtype=np.int64)
    admitted = np.asarray(result["admitted"].values, dtype=bool)
    x = _hours(result, n_slots) + _slot_minutes(result) / 120.0
    width = _slot_minutes(result) / 60.0 * 0.9

    def per_slot(mask: np.ndarray) -> np.ndarray:
        return np.bincount(arrival[mask], minlength=n_slots)[:n_slots]

    fig = go.Figure()
    fig.add_bar(
        x=x, y=per_slot(admitted), width=width, name="admitted", marker_color=_ADMITTED_COLOUR
    )
    rejected = ~admitted
    if "reason" in result:
        reason = np.asarray(result["reason"].values).astype(str)
        reason = np.where(reason == "", "other", reason)
        kinds = list(dict.fromkeys(reason[rejected]))
        kinds.sort(key=lambda r: (r not in _REJECTED_COLOURS, r))
        for kind in kinds:
            fig.add_bar(
                x=x,
                y=per_slot(rejected & (reason == kind)),
                width=width,
                name=f"rejected: {kind.replace('_', ' ')}",
                marker_color=_REJECTED_COLOURS.get(kind, _OTHER_COLOUR),
            )
    else:
        fig.add_bar(
            x=x, y=per_slot(rejected), width=width, name="rejected", marker_color=_OTHER_COLOUR
        )
    n_adm, n_all = int(admitted.sum()), int(admitted.size)
    fig.update_layout(
        barmode="stack",
        bargap=0,
        title=f"Arrivals per {_slot_minutes(result):g}-minute slot ({n_adm} of {n_all} admitted)",
        height=380,
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0, "traceorder": "normal"},
        margin={"l": 60, "r": 20, "t": 80, "b": 50},
    )
    fig.update_yaxes(title_text="tasks")
    _hour_axis(fig, result, n_slots)
    return fig


def utilisation_heatmap(result: xr.Dataset, resource: str = "compute") -> go.Figure:
    """Node x slot heatmap of the fraction of capacity in use, on a fixed 0..1 colour range.

    ``resource="compute"`` shows ``compute_used / compute_capacity``; ``resource="memory"``
    shows ``memory_used / (memory_capacity - base_model_memory)``, i.e. the share of the
    memory left after the shared base-model replica.
    """
    if resource == "compute":
        used = _node_by_slot(result["compute_used"])
        capacity = np.asarray(result["compute_capacity"].values, dtype=float)
        what = "compute (samples/slot)"
    elif resource == "memory":
        used = _node_by_slot(result["memory_used"])
        base = float(result.attrs.get("base_model_memory", 0.0))
        capacity = np.asarray(result["memory_capacity"].values, dtype=float) - base
        what = "GPU memory net of the base model"
    else:
        raise ValueError(f"resource must be 'compute' or 'memory', not {resource!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(capacity[:, None] > 0, used / capacity[:, None], np.nan)
    return _heatmap(
        result,
        share,
        title=f"Utilisation of {what}",
        colorbar_title="utilisation",
        zmin=0.0,
        zmax=1.0,
        colorscale="Viridis",
    )


def dual_price_heatmap(result: xr.Dataset, which: str = "lambda") -> go.Figure:
    """Node x slot heatmap of the final dual prices ``lambda`` (compute) or ``phi`` (memory)."""
    if which == "lambda":
        title = "Final compute price λ<sub>kt</sub> (per sample)"
        bar = "λ"
    elif which == "phi":
        title = "Final memory price φ<sub>kt</sub> (per GB)"
        bar = "φ"
    else:
        raise ValueError(f"which must be 'lambda' or 'phi', not {which!r}")
    z = _node_by_slot(result[which])
    return _heatmap(
        result,
        z,
        title=title,
        colorbar_title=bar,
        zmin=0.0,
        zmax=None,
        colorscale="Magma",
    )


def bids_and_payments(result: xr.Dataset) -> go.Figure:
    """Bid against payment for every admitted task, with the line payment = bid.

    Individual rationality means every point lies on or below the line.
    """
    admitted = np.asarray(result["admitted"].values, dtype=bool)
    bid = np.asarray(result["bid"].values, dtype=float)[admitted]
    payment = np.asarray(result["payment"].values, dtype=float)[admitted]
    tasks = np.flatnonzero(admitted)
    top = float(max(bid.max(initial=0.0), payment.max(initial=0.0))) * 1.05 or 1.0
    fig = go.Figure()
    fig.add_scatter(
        x=[0.0, top],
        y=[0.0, top],
        mode="lines",
        name="payment = bid",
        line={"color": "#6c757d", "dash": "dash"},
        hoverinfo="skip",
    )
    fig.add_scatter(
        x=bid,
        y=payment,
        mode="markers",
        name="admitted task",
        customdata=tasks,
        marker={"color": _ADMITTED_COLOUR, "size": 6, "opacity": 0.7},
        hovertemplate="task %{customdata}<br>bid %{x:.4g}<br>payment %{y:.4g}<extra></extra>",
    )
    fig.update_layout(
        title=f"Bids and payments of the {admitted.sum()} admitted tasks",
        height=480,
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0},
        margin={"l": 60, "r": 20, "t": 80, "b": 50},
    )
    fig.update_xaxes(title_text="bid b<sub>i</sub>", range=[0, top])
    fig.update_yaxes(title_text="payment p<sub>i</sub>", range=[0, top])
    return fig


def show(fig: go.Figure) -> None:
    """Display ``fig`` so that it renders both in Jupyter and in the static book, offline.

    The output carries two representations.  ``text/html`` is the figure as a ``<div>``
    plus an inline script calling ``Plotly.newPlot``, without plotly.js itself
    (``include_plotlyjs=False``): the book loads ``_static/plotly.min.js`` once per page
    through ``html_js_files`` (copied from the installed plotly package by ``make book``),
    as a plain synchronous ``<script>`` in ``<head>``, so ``Plotly`` is a global before the
    inline script runs.  This only holds while no AMD loader (require.js) is on the page
    when plotly.min.js loads -- with one, plotly registers as an AMD module and the global
    is missing; the book loads none as long as no notebook output is an ipywidget.
    ``application/vnd.plotly.v1+json`` lets JupyterLab/VS Code render the figure natively;
    the book (myst-nb) ignores it and uses the HTML.
    """
    from IPython.display import display

    html = fig.to_html(include_plotlyjs=False, full_html=False)
    bundle = {
        "application/vnd.plotly.v1+json": json.loads(fig.to_json()),
        "text/html": html,
    }
    display(bundle, raw=True)
