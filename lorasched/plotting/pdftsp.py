"""Plotly figures for :func:`lorasched.simulate` results: pure functions of the result Dataset;
:func:`show` displays one so that it also renders in the static book
(:doc:`/reference/tools`).
"""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import xarray as xr
from plotly.subplots import make_subplots

from ..model.errors import InputError
from . import MAX_BARS, legend_below, reference_line, seed_bars

__all__ = [
    "arrivals_and_admissions",
    "bids_and_payments",
    "calibration_surfaces",
    "dual_price_heatmap",
    "figure_bars",
    "runtime_per_task",
    "sampled_bids_and_payments",
    "show",
    "utilisation_heatmap",
    "utility_vs_bid",
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
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
    )
    fig.update_yaxes(title_text="tasks")
    _hour_axis(fig, result, n_slots)
    return legend_below(fig)


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
        raise InputError(f"resource must be 'compute' or 'memory', not {resource!r}")
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


def dual_price_heatmap(result: xr.Dataset, which: str = "lambda", *,
                       zmax: float | None = None, schedule=None) -> go.Figure:
    """Node x slot heatmap of the dual prices ``lambda`` (compute, eq. 7) or ``phi``
    (memory, eq. 8).

    ``result``: a :func:`lorasched.simulate` result (the final prices), or
    :meth:`lorasched.pdftsp.mechanism.AuctionReplay.prices_after` (the prices after its
    attribute ``arrivals`` of ``n_tasks`` arrivals, said in the title). ``zmax`` fixes the
    top of the colour scale (which starts at 0), e.g. to compare steps of a replay;
    ``schedule``: ``(nodes, slots)`` of a task's cells, drawn over the map.
    """
    if which == "lambda":
        name = "compute price λ<sub>kt</sub> (per sample)"
        bar = "λ"
    elif which == "phi":
        name = "memory price φ<sub>kt</sub> (per GB)"
        bar = "φ"
    else:
        raise InputError(f"which must be 'lambda' or 'phi', not {which!r}")
    if "arrivals" in result.attrs:
        title = (f"{name[0].upper()}{name[1:]} after {result.attrs['arrivals']} of "
                 f"{result.attrs['n_tasks']} arrivals")
    else:
        title = f"Final {name}"
    z = _node_by_slot(result[which])
    fig = _heatmap(
        result,
        z,
        title=title,
        colorbar_title=bar,
        zmin=0.0,
        zmax=zmax,
        colorscale="Magma",
    )
    if schedule is not None:
        nodes, slots = schedule
        fig.add_scatter(
            x=(np.asarray(slots, dtype=float) + 0.5) * _slot_minutes(result) / 60.0,
            y=np.asarray(nodes),
            mode="markers",
            name="schedule of the task",
            marker={"symbol": "square-open", "size": 9, "color": _ADMITTED_COLOUR,
                    "line": {"width": 2}},
            hovertemplate="node %{y}<br>hour %{x:.2f}<extra>schedule</extra>",
            showlegend=False,
        )
    return fig


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
        margin={"l": 60, "r": 20, "t": 60, "b": 50},
    )
    fig.update_xaxes(title_text="bid b<sub>i</sub> (USD)", range=[0, top])
    fig.update_yaxes(title_text="payment p<sub>i</sub> (USD)", range=[0, top])
    return legend_below(fig)


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


# --------------------------------------------------------------------------- section 5
#: one colour per method, the same in every figure of section 5
METHOD_COLOURS = {
    "pdFTSP (Lemma 2)": "#264653",
    "pdFTSP (calibrated)": "#2a9d8f",
    "Titan": "#bc6c25",
    "Titan (welfare objective)": "#b5838d",
    "EFT": "#f4a261",
    "NTM": "#e76f51",
    "cost-plus (lorasched's)": "#6d597a",
}
#: a baseline tuned alike keeps its untuned colour, hatched
METHOD_COLOURS.update({f"{name[:-1]}, tuned)" if name.endswith(")") else f"{name} (tuned)":
                       colour for name, colour in list(METHOD_COLOURS.items())
                       if not name.startswith(("pdFTSP", "Titan"))})


def _method_colour(method: str) -> str:
    return METHOD_COLOURS.get(method, _OTHER_COLOUR)


def figure_bars(da: xr.DataArray, axis: str, *, title: str, axis_title: str,
                normalise: bool = True, y_title: str = "normalised social welfare",
                hline: float | None = None, panels: dict | None = None) -> go.Figure:
    """Grouped bars of ``da`` (over ``axis``, ``algorithm``, ``seed``) with error bars.

    Each bar is the centre over seeds the claims take (the geometric mean), its error bar
    the 95 % interval; with ``normalise``, over the figure's largest centre (the paper
    plots "normalised social welfare" without saying what it divides by). ``hline``: a
    dashed reference line. No group holds more than :data:`~lorasched.plotting.MAX_BARS`
    bars, as many as a reader tells apart: facet more with ``panels``.

    Parameters
    ----------
    da : xarray.DataArray
        The metric; ``axis`` gives a group of bars per value, titled ``axis_title``.
    panels : dict, optional
        Panel title -> the algorithms it shows, in order: a panel each, on one scale, in
        one column up to two panels, else two a row (two standings of two facets: a row
        per standing); an algorithm keeps one colour and one legend entry; algorithms
        ``da`` does not hold are left out.

    Returns
    -------
    plotly.graph_objects.Figure
        The bars, their legend below them.

    Raises
    ------
    InputError
        If an algorithm of ``da`` is in no panel, or a group would hold more than
        :data:`~lorasched.plotting.MAX_BARS` bars.
    """
    stats = {str(a): seed_bars(da.sel(algorithm=a).transpose(axis, "seed"))
             for a in da["algorithm"].values}
    top_centre = max(float(np.nanmax(c)) if np.isfinite(c).any() else 0.0
                     for c, _ in stats.values())
    scale = top_centre if normalise and top_centre > 0 else 1.0
    labels = [str(v) for v in da[axis].values]
    held = [str(a) for a in da["algorithm"].values]
    if panels is None:
        groups = {"": held}
    else:
        unknown = [a for a in held if not any(a in g for g in panels.values())]
        if unknown:
            raise InputError(f"figure_bars: no panel shows {unknown}")
        groups = {t: [a for a in g if a in held] for t, g in panels.items()}
        groups = {t: g for t, g in groups.items() if g}
    crowded = {t or "the figure": len(g) for t, g in groups.items() if len(g) > MAX_BARS}
    if crowded:
        raise InputError(f"figure_bars: more than {MAX_BARS} bars a group in {crowded}: "
                         "facet the algorithms into panels")
    cols = 1 if len(groups) <= 2 else 2
    rows = -(-len(groups) // cols)
    fig = go.Figure() if panels is None else make_subplots(
        rows=rows, cols=cols, shared_xaxes=True, shared_yaxes=True,
        subplot_titles=list(groups), vertical_spacing=0.1, horizontal_spacing=0.04)
    shown = set()
    for k, methods in enumerate(groups.values()):
        for method in methods:
            raw, bars = stats[method]
            lo, hi = raw - bars["arrayminus"], raw + bars["array"]
            bar = go.Bar(
                x=labels, y=raw / scale, name=method, legendgroup=method,
                showlegend=method not in shown,
                error_y={"type": "data", "array": bars["array"] / scale,
                         "arrayminus": bars["arrayminus"] / scale, "visible": True,
                         "thickness": 1.2},
                marker_color=_method_colour(method),
                marker_pattern_shape="/" if "tuned" in method else "",
                customdata=np.stack([raw, lo, hi], axis=-1),
                hovertemplate=(f"{method}<br>{axis_title} %{{x}}<br>%{{y:.3f}}"
                               "<br>geometric mean %{customdata[0]:.4g} "
                               "(95 %: %{customdata[1]:.4g} to %{customdata[2]:.4g})"
                               "<extra></extra>"))
            shown.add(method)
            if panels is None:
                fig.add_trace(bar)
            else:
                fig.add_trace(bar, row=k // cols + 1, col=k % cols + 1)
    if hline is not None:
        fig.add_hline(y=hline, line_dash="dash", line_color="#6c757d")
    fig.update_annotations(font_size=14)  # the panels' titles
    fig.update_layout(title=title, barmode="group",
                      height=460 if rows == 1 else 300 + 260 * rows,
                      margin={"l": 60, "r": 20, "t": 80, "b": 50})
    fig.update_xaxes(type="category")
    fig.update_xaxes(title_text=axis_title, row=rows if panels is not None else None)
    fig.update_yaxes(rangemode="tozero", matches="y" if panels is not None else None)
    fig.update_yaxes(title_text=y_title, col=1 if panels is not None else None)
    if normalise:
        top = max((float(np.nanmax(c + b["array"])) / scale for c, b in stats.values()
                   if np.isfinite(c).any()), default=1.0)
        fig.update_yaxes(range=[0, 1.05 * max(top, 1.0)])
    return legend_below(fig)


def runtime_per_task(da: xr.DataArray, axis: str = "nodes", *,
                     axis_title: str = "compute nodes K") -> go.Figure:
    """Decision time per task (``decision_time_mean`` by algorithm) against ``axis``, on a
    log scale: the geometric mean over seeds, with its 95 % interval as the error bar
    (Fig. 13)."""
    fig = go.Figure()
    for method in da["algorithm"].values:
        centre, bars = seed_bars(da.sel(algorithm=method).transpose(axis, "seed"))
        fig.add_scatter(
            x=da[axis].values, y=centre * 1e3,
            error_y={"type": "data", "array": bars["array"] * 1e3,
                     "arrayminus": bars["arrayminus"] * 1e3, "visible": True},
            mode="lines+markers", name=str(method),
            line={"color": _method_colour(str(method))},
            hovertemplate=f"{method}<br>{axis_title} %{{x}}<br>%{{y:.4g}} ms<extra></extra>",
        )
    fig.update_layout(
        title="Decision time per task", height=440,
        margin={"l": 70, "r": 20, "t": 60, "b": 60},
    )
    fig.update_xaxes(title_text=axis_title)
    fig.update_yaxes(title_text="time per task (ms, log scale)", type="log")
    return legend_below(fig)


#: name, colour, dash of the utility line under each payment rule
_UTILITY_STYLES = {"critical": ("utility, critical payment", "#264653", "solid"),
                   "paper": ("utility, payment of eq. (14)", "#e76f51", "solid")}


def utility_vs_bid(curves, *, chosen=None, payment: bool | None = None) -> go.Figure:
    """Utility against bid (Fig. 10, and the explorer's figure): the truthful bid ``b = v``
    marked (star) and the critical bid, above which the task wins, as a dotted line.

    ``curves``: one :meth:`lorasched.pdftsp.mechanism.AuctionReplay.utility_curve` Dataset
    (one panel), or the dict of :func:`lorasched.figures.truthfulness`: the left panel
    (``"critical"``) is a task under the critical payment; the right panel (if present) a
    task for which the paper's payment (14) rewards overbidding, under eq. (14)
    (``"paper"``) and under the critical payment (``"paper_critical"``).
    ``payment``: also draw the payment ``p`` (dashed; default: for one curve only).
    ``chosen``: ``(bid, utility)`` of one offer, drawn as a marker named "chosen bid".
    """
    if isinstance(curves, xr.Dataset):
        panels, titles = [[curves]], []
        title = (f"Task {curves.attrs['task']}: utility against its bid "
                 f"({curves.attrs['payment_rule']} payment)")
        height, margin_top = 380, 60
    else:
        left = curves["critical"]
        right = [c for c in (curves.get("paper"), curves.get("paper_critical"))
                 if c is not None]
        panels = [[left], right] if right else [[left]]
        titles = [f"task {left.attrs['task']}: critical payment"]
        if right:
            titles.append(f"task {right[0].attrs['task']}: eq. (14) against critical "
                          "payment")
        title = ("Utility against bid (dotted line: the critical bid, above which the task "
                 "wins)")
        height, margin_top = 460, 100
    if payment is None:
        payment = isinstance(curves, xr.Dataset)
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=titles or None,
                        horizontal_spacing=0.12)
    shown = set()
    for col, panel in enumerate(panels, start=1):
        for c in panel:
            rule = c.attrs["payment_rule"]
            name, colour, dash = _UTILITY_STYLES[rule]
            fig.add_scatter(x=c["bid"].values, y=c["utility"].values, mode="lines",
                            name=name, legendgroup=rule, showlegend=rule not in shown,
                            line={"color": colour, "width": 2.5, "shape": "hv",
                                  "dash": "dash" if col == 2 and rule == "critical" else dash},
                            hovertemplate="bid %{x:.4g}<br>utility %{y:.4g}<extra></extra>",
                            row=1, col=col)
            shown.add(rule)
        c = panel[0]
        if payment:
            fig.add_scatter(x=c["bid"].values, y=c["payment"].values, mode="lines",
                            name="payment p", legendgroup="payment", showlegend=col == 1,
                            line={"color": "#6c757d", "dash": "dash", "shape": "hv"},
                            hovertemplate="bid %{x:.4g}<br>payment %{y:.4g}<extra></extra>",
                            row=1, col=col)
        v = c.attrs["value"]
        u_v = float(np.interp(v, c["bid"].values, c["utility"].values))
        fig.add_scatter(x=[v], y=[u_v], mode="markers", name="truthful bid b = v",
                        legendgroup="truth", showlegend=col == 1,
                        marker={"symbol": "star", "size": 15, "color": "#e9c46a",
                                "line": {"width": 1, "color": "#333"}},
                        hovertemplate="truthful bid %{x:.4g}<br>utility %{y:.4g}"
                                      "<extra></extra>", row=1, col=col)
        if np.isfinite(c.attrs["critical_bid"]):
            fig.add_vline(x=c.attrs["critical_bid"], line_dash="dot", line_color="#6c757d",
                          row=1, col=col)
        fig.update_xaxes(title_text="bid b (USD)", row=1, col=col)
        fig.update_yaxes(title_text="utility, payment (USD)" if payment else "utility (USD)",
                         row=1, col=col)
    if chosen is not None:
        fig.add_scatter(x=[chosen[0]], y=[chosen[1]], mode="markers", name="chosen bid",
                        marker={"size": 11, "color": "#e76f51"},
                        hovertemplate="bid %{x:.4g}<br>utility %{y:.4g}<extra></extra>",
                        row=1, col=1)
    fig.update_layout(title=title, height=height,
                      margin={"l": 60, "r": 20, "t": margin_top, "b": 60})
    return legend_below(fig, top=margin_top)


def sampled_bids_and_payments(result: xr.Dataset, tasks) -> go.Figure:
    """Fig. 11: bid and payment of the given (admitted) tasks, side by side."""
    tasks = np.asarray(tasks, dtype=int)
    bid = result["bid"].values[tasks]
    pay = result["payment"].values[tasks]
    labels = [f"task {i}" for i in tasks]
    fig = go.Figure()
    fig.add_bar(x=labels, y=bid, name="bid b<sub>i</sub>", marker_color="#264653")
    fig.add_bar(x=labels, y=pay, name="payment p<sub>i</sub>", marker_color="#e9c46a")
    fig.update_layout(
        title=f"Bids and payments of {tasks.size} sampled admitted tasks", barmode="group",
        height=440, margin={"l": 60, "r": 20, "t": 60, "b": 60},
    )
    fig.update_xaxes(type="category")
    fig.update_yaxes(title_text="USD")
    return legend_below(fig)


def calibration_surfaces(surfaces: dict, marks: dict | None = None, *,
                         metric: str = "welfare") -> go.Figure:
    """Side-by-side heatmaps of ``metric`` over the alpha x beta grid, one per surface
    (``{title: DataArray(alpha, beta)}``), each shown relative to its own best pair (1 =
    that day's best) so that days of different volume compare; hover for the absolute
    value. ``marks``: ``{label: {"alpha": a, "beta": b}}`` drawn as symbols where on the
    grid."""
    titles = list(surfaces)
    fig = make_subplots(rows=1, cols=len(titles), subplot_titles=titles,
                        horizontal_spacing=0.1)
    # each later mark smaller or open, so that two marks on one cell both show
    symbols, sizes = ["star", "x", "circle-open", "diamond-open"], [26, 12, 32, 18]
    for col, title in enumerate(titles, start=1):
        da = surfaces[title].transpose("alpha", "beta")
        values = np.asarray(da.values, dtype=float)
        best = np.nanmax(values)
        alphas = [f"{a:g}" for a in da["alpha"].values]
        betas = [f"{b:g}" for b in da["beta"].values]
        fig.add_heatmap(
            z=values / best, x=betas, y=alphas, zmin=0, zmax=1, colorscale="Viridis",
            coloraxis=None, showscale=col == len(titles), customdata=values,
            colorbar={"title": f"{metric} / day's best"},
            hovertemplate=(f"α %{{y}}, β %{{x}}<br>%{{z:.3f}} of the best<br>{metric} "
                           "%{customdata:.4g}<extra></extra>"), row=1, col=col)
        for j, (label, at) in enumerate((marks or {}).items()):
            a, b = f"{float(at['alpha']):g}", f"{float(at['beta']):g}"
            if a in alphas and b in betas:
                fig.add_scatter(x=[b], y=[a], mode="markers", name=label,
                                marker={"symbol": symbols[j % 4], "size": sizes[j % 4],
                                        "color": "white",
                                        "line": {"width": 2, "color": "black"}},
                                showlegend=col == 1, legendgroup=label, row=1, col=col)
        fig.update_xaxes(title_text="β", type="category", row=1, col=col)
        # α titled once: a second panel's title would stand on its left neighbour
        fig.update_yaxes(title_text="α" if col == 1 else None, type="category", row=1, col=col)
    fig.update_layout(height=430, margin={"l": 60, "r": 20, "t": 60, "b": 60})
    return legend_below(fig)


def latency_histogram(samples: dict[str, np.ndarray], *, title: str = "") -> go.Figure:
    """Histograms of latencies (seconds; shown in ms on a log axis), one per named sample,
    overlaid, with each sample's median marked."""
    fig = go.Figure()
    edges = None
    samples = {k: np.asarray(v, dtype=float)[np.isfinite(np.asarray(v, dtype=float))]
               for k, v in samples.items()}  # unanswered requests (nan) left out
    every = np.concatenate(list(samples.values())) * 1e3
    if every.size:
        edges = np.geomspace(max(every.min(), 1e-3) * 0.9, every.max() * 1.1, 40)
    for k, (name, values) in enumerate(samples.items()):
        ms = np.asarray(values, dtype=float) * 1e3
        counts, _ = np.histogram(ms, bins=edges)
        fig.add_bar(x=np.sqrt(edges[:-1] * edges[1:]), y=counts, name=name, opacity=0.6,
                    width=np.diff(edges))
        # each median's label a line below the last: medians close together stay legible
        reference_line(fig, float(np.median(ms)), f"{name}: median", log=True, at=1 - 0.08 * k)
    fig.update_xaxes(type="log", title_text="latency (ms)")
    fig.update_yaxes(title_text="requests")
    fig.update_layout(barmode="overlay", height=420, title=title)
    return legend_below(fig)
