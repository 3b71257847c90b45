"""The suite report's figure: per system, each metric of its table as one bar per policy
(the suite mean) with its 95 % interval, as a plotly figure saved as offline HTML.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..model.errors import InputError
from .tables import COLUMNS, POOLED


def figure(long: pd.DataFrame, title: str = "lorasched suite") -> go.Figure:
    """Bars of every system's pooled metrics, one row of panels per system.

    Parameters
    ----------
    long : pandas.DataFrame
        Rows of :func:`~lorasched.suite.tables.summary`, any number of systems.
    title : str, optional
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        A panel per system and metric (machine-dependent ones included, marked in their
        title), the bar the suite mean, the error bar its 95 % interval.

    Raises
    ------
    InputError
        If ``long`` is not such a table or has no pooled row.
    """
    if not isinstance(long, pd.DataFrame) or not set(COLUMNS) <= set(long.columns):
        raise InputError(f"long must be a DataFrame with the columns {COLUMNS}")
    pooled = long[long["scenario"] == POOLED]
    if pooled.empty:
        raise InputError("the table has no pooled rows to plot")
    names = list(dict.fromkeys(pooled["system"]))
    per = {s: list(dict.fromkeys(pooled[pooled["system"] == s]["metric"])) for s in names}
    cols = max(len(m) for m in per.values())
    titles = []
    for s in names:
        timing = set(pooled[(pooled["system"] == s) & pooled["machine_dependent"]]["metric"])
        titles += [f"{s}: {m}" + (" (machine-dependent)" if m in timing else "")
                   for m in per[s]] + [""] * (cols - len(per[s]))
    fig = make_subplots(rows=len(names), cols=cols, subplot_titles=titles,
                        vertical_spacing=0.5 / max(len(names), 1), horizontal_spacing=0.04)
    for r, s in enumerate(names, start=1):
        for c, metric in enumerate(per[s], start=1):
            rows = pooled[(pooled["system"] == s) & (pooled["metric"] == metric)]
            fig.add_bar(x=list(rows["policy"]), y=list(rows["mean"]),
                        error_y={"type": "data", "symmetric": False,
                                 "array": list(rows["high"] - rows["mean"]),
                                 "arrayminus": list(rows["mean"] - rows["low"])},
                        showlegend=False, row=r, col=c,
                        hovertemplate="%{x}: %{y:.4g}<extra></extra>")
    fig.update_layout(title=title, height=320 * len(names), width=max(900, 300 * cols),
                      margin={"t": 90})
    fig.update_annotations(font_size=11)
    return fig


def write_html(fig: go.Figure, path) -> None:
    """Save a figure as one self-contained HTML file (plotly.js inlined: opens offline).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.
    path : str or os.PathLike
        The file to write.
    """
    if not isinstance(fig, go.Figure):
        raise InputError(f"fig must be a plotly Figure, got {type(fig).__name__}")
    fig.write_html(str(path), include_plotlyjs=True, full_html=True)
