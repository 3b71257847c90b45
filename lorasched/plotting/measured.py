"""Figures of measured GPU tables beside the published numbers (the tables of
:mod:`lorasched.profiling.compare`, as DataFrames). See :doc:`/reference/gpu_profiles`."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..model.errors import InputError
from . import legend_below

#: one colour per number of adapters on one base model
ADAPTER_COLOURS = {1: "#264653", 2: "#2a9d8f", 4: "#e9c46a", 8: "#e76f51"}


def speed_and_gain(ratios: pd.DataFrame, gains: pd.DataFrame, *, gpu: str,
                   published: str, rank: int = 16) -> go.Figure:
    """Left: the measured speed over the published model's, against the micro-batch, one
    line per number of adapters (``ratios``: :func:`~lorasched.profiling.compare.
    against_published` at ``rank``). Right: the measured gain of several adapters over one,
    per model (``gains``: :func:`~lorasched.profiling.compare.adapter_scaling` rows), with
    1 (no gain) marked."""
    needed = (("ratios", ratios, {"rank", "micro_batch", "adapters", "speed ratio"}),
              ("gains", gains, {"model", "seq_len", "micro_batch", "adapters", "gain"}))
    for name, df, columns in needed:
        if not columns <= set(df.columns):
            raise InputError(f"{name} must have the columns {sorted(columns)}")
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12, subplot_titles=[
        f"GPT-2 XL: measured {gpu} over the published {published}",
        "several adapters over one, same micro-batch"])
    ratios = ratios[ratios["rank"] == rank]
    for adapters, df in ratios.groupby("adapters"):
        df = df.sort_values("micro_batch")
        fig.add_scatter(x=df["micro_batch"], y=df["speed ratio"], mode="lines+markers",
                        name=f"{adapters} adapter{'s' if adapters > 1 else ''}",
                        line={"color": ADAPTER_COLOURS.get(adapters, "#6c757d")},
                        legendgroup=str(adapters), row=1, col=1,
                        hovertemplate="micro-batch %{x}<br>ratio %{y:.2f}<extra></extra>")
    for adapters, df in gains.groupby("adapters"):
        label = (df["model"] + ", " + df["seq_len"].astype(str) + " tokens, b="
                 + df["micro_batch"].astype(str))
        fig.add_scatter(x=label, y=df["gain"], mode="markers", showlegend=False,
                        marker={"color": ADAPTER_COLOURS.get(adapters, "#6c757d"), "size": 8},
                        legendgroup=str(adapters), row=1, col=2,
                        hovertemplate="%{x}<br>gain %{y:.2f}<extra>" + f"{adapters} adapters"
                        "</extra>")
    fig.add_hline(y=1.0, line_dash="dot", line_color="#6c757d", row=1, col=1)
    fig.add_hline(y=1.0, line_dash="dot", line_color="#6c757d", row=1, col=2)
    fig.update_xaxes(title_text="micro-batch", type="log", dtick=0.30103, row=1, col=1)
    fig.update_yaxes(title_text="samples per second, measured / published", row=1, col=1)
    fig.update_xaxes(tickangle=-60, row=1, col=2)
    fig.update_yaxes(title_text="samples per second, n adapters / one", row=1, col=2)
    fig.update_layout(height=600, margin={"l": 60, "r": 20, "t": 60, "b": 200})
    return legend_below(fig)
