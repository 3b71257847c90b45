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


def reference_line(fig, value: float, text: str, *, axis: str = "x", log: bool = False,
                   **kwargs):
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
        fig.add_annotation(x=where, xref="x", y=1, yref="y domain", text=text,
                           showarrow=False, xanchor="left", yanchor="top")
    else:
        fig.add_hline(y=value, **kwargs)
        fig.add_annotation(y=where, yref="y", x=1, xref="x domain", text=text,
                           showarrow=False, xanchor="right", yanchor="bottom")
    return fig
