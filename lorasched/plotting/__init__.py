"""Plotly figures of results and sweeps, one module per system: :mod:`.pdftsp`,
:mod:`.titan`, :mod:`.allpass`. Nothing here changes a computed number."""

import math

import numpy as np

from ..figures.centres import seeds_estimate
from ..figures.verdicts import RATIO


def seed_bars(da, on: str = RATIO) -> tuple[np.ndarray, dict]:
    """The centre over seeds of ``da`` (an xarray DataArray with a ``seed`` dimension) at
    each of its other coordinates, in their order, as the claims take it (the geometric
    mean, or the logit mean of a share in percent: ``on``), and plotly error bars reaching
    its 95 % interval (``error_y``; none where a centre has no spread)."""
    est = [seeds_estimate(v, on) for v in
           da.transpose(..., "seed").values.reshape(-1, da.sizes["seed"])]
    centre = np.array([e.mean for e in est]).reshape(da.transpose(..., "seed").shape[:-1])
    high = np.array([e.high for e in est]).reshape(centre.shape)
    low = np.array([e.low for e in est]).reshape(centre.shape)
    return centre, {"type": "data", "array": high - centre, "arrayminus": centre - low}


#: the most bars a group of grouped bars may hold: more than a reader can tell apart by
#: colour at a glance; a figure with more facets them into panels
MAX_BARS = 5

#: the horizontal legend of every figure: at the bottom of the figure, below the plots,
#: their tick labels and axis titles (anchored to the figure, not to the plot area, so
#: plotly.js grows the bottom margin to hold it, however many lines it wraps to), and so
#: never in the title's way at the top
LEGEND_BELOW = {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom",
                "x": 0, "xanchor": "left", "traceorder": "normal"}


def legend_below(fig, top: int = 70, **legend):
    """Put ``fig``'s legend below its plots and keep its title clear of everything else.

    The legend goes where :data:`LEGEND_BELOW` says: in the bottom margin, under the axis
    titles, however many lines it wraps to; the top margin is at least ``top`` pixels,
    room for the title above the plots (and their panel titles). A legend drawn above the
    plots instead grows upward into the title as soon as it wraps.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure, changed in place and returned.
    top : int
        The least top margin, pixels.
    **legend
        More legend attributes (e.g. ``title``), over :data:`LEGEND_BELOW`.

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``.
    """
    margin = fig.layout.margin
    fig.update_layout(legend={**LEGEND_BELOW, **legend},
                      margin={"t": max(top, margin.t or 0), "b": margin.b or 50})
    return fig


def bars_per_group(fig) -> int:
    """The most bars that stand side by side at one category of ``fig``'s grouped bars.

    Bars of one subplot (one x axis) at one category form a group; a trace with no finite
    value there still takes its place in the group (plotly leaves its slot empty).
    Stacked or overlaid bars count once.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.

    Returns
    -------
    int
        The largest group's bar count (0 without bars).
    """
    if fig.layout.barmode in ("stack", "overlay", "relative"):
        return min(1, sum(t.type == "bar" for t in fig.data))
    counts: dict = {}
    for t in fig.data:
        if t.type == "bar" and t.visible is not False:
            axis = t.xaxis or "x"
            for x in t.x if t.x is not None else ():
                counts[axis, x] = counts.get((axis, x), 0) + 1
    return max(counts.values(), default=0)


def reference_line(fig, value: float, text: str, *, axis: str = "x", log: bool = False,
                   at: float = 1.0, **kwargs):
    """Draw a dotted line at ``value`` on the ``axis`` axis with the label ``text``.

    plotly.js reads an annotation's position on a log axis as the log10 of the value (a
    shape's it reads as the value): a label of ``add_vline(x=10, annotation_text=...)`` on
    a log axis lands at 10^10 and stretches the axis to "10B". Here the label is placed at
    ``log10(value)`` when ``log``.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure, changed in place and returned.
    value : float
        Where the line is, in the axis's data units.
    text : str
        Its label.
    axis : {"x", "y"}
        A vertical line on the x axis or a horizontal one on the y axis.
    log : bool
        Whether that axis is (or will be) a log axis.
    at : float
        Where along the line its label stands, as a share of the other axis (default 1:
        the top, or the right end); lines close together take their labels apart by it.
    **kwargs
        More ``add_vline`` / ``add_hline`` arguments (``line_dash`` defaults to "dot").

    Returns
    -------
    plotly.graph_objects.Figure
        ``fig``.
    """
    kwargs.setdefault("line_dash", "dot")
    where = math.log10(value) if log and value > 0 else value
    if axis == "x":
        fig.add_vline(x=value, **kwargs)
        fig.add_annotation(x=where, xref="x", y=at, yref="y domain", text=text,
                           showarrow=False, xanchor="left", yanchor="top")
    else:
        fig.add_hline(y=value, **kwargs)
        fig.add_annotation(y=where, yref="y", x=at, xref="x domain", text=text,
                           showarrow=False, xanchor="right", yanchor="bottom")
    return fig
