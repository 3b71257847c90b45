"""Plots of TITAN's pages (plotly): JCT by policy, JCT against density, Table 4's shares,
the workloads' duration CDF and GPU requests, and one run's schedule as a Gantt chart."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import xarray as xr
from plotly.colors import sample_colorscale
from plotly.subplots import make_subplots

from ..figures.titan.common import NAMES
from ..figures.verdicts import SHARE
from . import legend_below, reference_line, seed_bars


def policy_name(policy: str) -> str:
    """A policy as the paper names it ("titan_nomerge" -> "TITAN (w/o task merger)"; the
    baselines it does not name in capitals: "fifo" -> "FIFO")."""
    return NAMES.get(policy, {"fifo": "FIFO", "random": "Random"}.get(policy, policy))

#: one colour per policy, the same on every TITAN page
COLOURS = {"SRTF": "#6c757d", "Tiresias": "#e9c46a", "TITAN (w/o task merger)": "#8ecae6",
           "TITAN (w/o pipeline switch)": "#219ebc", "TITAN": "#023047"}


def jct_bars(ds: xr.Dataset, names: dict, workloads: dict, density: float = 1.0,
             paper: dict | None = None) -> go.Figure:
    """Table 3 as bars: average JCT and makespan of each policy, one panel per workload
    (the geometric mean over seeds, error bars its 95 % interval); the paper's numbers as
    markers."""
    wls = [str(w) for w in ds["workload"].values]
    fig = make_subplots(rows=2, cols=len(wls), shared_xaxes=True,
                        subplot_titles=[workloads[w] for w in wls] + [""] * len(wls),
                        vertical_spacing=0.08)
    for c, wl in enumerate(wls, start=1):
        for r, (var, unit) in enumerate((("avg_jct_h", "average JCT (h)"),
                                         ("makespan_h", "makespan (h)")), start=1):
            da = ds[var].sel(workload=wl, density=density)
            mean, bars = seed_bars(da)
            labels = [names[str(a)] for a in da["algorithm"].values]
            fig.add_bar(x=labels, y=mean, error_y=bars,
                        marker_color=[COLOURS.get(n, "#999") for n in labels],
                        showlegend=False, row=r, col=c,
                        hovertemplate="%{x}: %{y:.3f} h<extra></extra>")
            if paper:
                col = 0 if var == "avg_jct_h" else 1
                fig.add_scatter(x=labels, y=[paper[str(a)][col] for a in da["algorithm"].values],
                                mode="markers", marker={"symbol": "x", "color": "#e76f51",
                                                        "size": 9},
                                name="paper (FMTrace)", showlegend=(r == 1 and c == 1),
                                row=r, col=c)
            fig.update_yaxes(title_text=unit if c == 1 else None, row=r, col=c)
    fig.update_layout(height=560, title=f"Table 3 at density {density:g}", margin={"t": 70})
    return legend_below(fig)


def policy_lines(ds: xr.Dataset, axis: str, names: dict, workloads: dict, *,
                 var: str = "avg_jct_h", title: str, axis_title: str,
                 y_title: str = "average JCT (h)") -> go.Figure:
    """``var`` of each policy against ``axis`` (the geometric mean over seeds, error bars
    its 95 % interval), one panel per workload."""
    wls = [str(w) for w in ds["workload"].values]
    fig = make_subplots(rows=1, cols=len(wls), subplot_titles=[workloads[w] for w in wls])
    x = np.asarray(ds[axis].values, dtype=float)
    algs = list(ds["algorithm"].values)
    # each policy a little to the side of the next, so that error bars at one x do not
    # cover each other (the hover gives the true x)
    step = 0.012 * (float(np.ptp(x)) or 1.0)
    for c, wl in enumerate(wls, start=1):
        for k, alg in enumerate(algs):
            name = names[str(alg)]
            mean, bars = seed_bars(ds[var].sel(workload=wl, algorithm=alg))
            fig.add_scatter(x=x + (k - (len(algs) - 1) / 2) * step, y=mean, error_y=bars,
                            customdata=x, hovertemplate=f"{name}<br>{axis_title} "
                            "%{customdata:.3g}: %{y:.3g}<extra></extra>",
                            mode="lines+markers", name=name, legendgroup=name,
                            showlegend=c == 1, line={"color": COLOURS.get(name, "#999")},
                            row=1, col=c)
        fig.update_xaxes(title_text=axis_title, row=1, col=c)
    fig.update_yaxes(title_text=y_title, row=1, col=1)
    fig.update_layout(height=430, title=title)
    return legend_below(fig)


def density_lines(ds: xr.Dataset, names: dict, workloads: dict) -> go.Figure:
    """Fig. 5: average JCT of each policy against density, one panel per workload."""
    return policy_lines(ds, "density", names, workloads, axis_title="workload density",
                        title="Fig. 5: average JCT against workload density")


def table4_bars(ds: xr.Dataset, workloads: dict, paper: dict) -> go.Figure:
    """Table 4: share of jobs >= 10 % faster / slower under TITAN than under SRTF (the
    logit mean over seeds, as the claims take it, error bars its 95 % interval)."""
    wls = [str(w) for w in ds["workload"].values]
    fig = make_subplots(rows=1, cols=len(wls), subplot_titles=[workloads[w] for w in wls],
                        shared_yaxes=True)
    x = [f"{d:g}" for d in ds["density"].values]
    for c, wl in enumerate(wls, start=1):
        for var, label, colour in (("faster_than_srtf", ">= 10 % faster", "#2a9d8f"),
                                   ("slower_than_srtf", ">= 10 % slower", "#e76f51")):
            share, bars = seed_bars(100 * ds[var].sel(workload=wl, algorithm="titan"), SHARE)
            fig.add_bar(x=x, y=share, error_y=bars,
                        name=label, legendgroup=label, showlegend=c == 1,
                        marker_color=colour, row=1, col=c)
        for k, (label, colour) in enumerate((("paper: faster", "#2a9d8f"),
                                             ("paper: slower", "#e76f51"))):
            fig.add_scatter(x=x, y=[paper.get(float(d), (np.nan, np.nan))[k]
                                    for d in ds["density"].values],
                            mode="markers", marker={"symbol": "x", "size": 10,
                                                    "color": colour},
                            name=label, legendgroup=label, showlegend=c == 1, row=1, col=c)
        fig.update_xaxes(title_text="workload density", row=1, col=c)
    fig.update_yaxes(title_text="% of jobs against SRTF", row=1, col=1)
    fig.update_layout(barmode="group", height=420, title="Table 4: jobs at least 10 % "
                      "faster or slower under TITAN than under SRTF")
    return legend_below(fig)


def duration_cdf(df: pd.DataFrame, short_h: float = 0.5) -> go.Figure:
    """Fig. 4 (left): CDF of job duration (h, log axis) by workload; a line at 30 min."""
    fig = go.Figure()
    for wl, g in df.groupby("workload", sort=False):
        x = np.sort(g["duration_h"].values)
        fig.add_scatter(x=x, y=np.arange(1, x.size + 1) / x.size, mode="lines", name=wl,
                        line={"shape": "hv"})
    reference_line(fig, short_h, f"{60 * short_h:g} min", log=True)
    fig.update_xaxes(type="log", title_text="job duration alone on its requested GPUs (h)")
    fig.update_yaxes(title_text="CDF", range=[0, 1])
    fig.update_layout(height=380, title="Fig. 4 (left): job duration")
    return legend_below(fig)


def gpu_requests(df: pd.DataFrame) -> go.Figure:
    """Fig. 4 (right): share of jobs by GPUs requested, by workload."""
    fig = go.Figure()
    for wl, g in df.groupby("workload", sort=False):
        counts = g["gpus"].value_counts(normalize=True).sort_index()
        fig.add_bar(x=[str(v) for v in counts.index], y=100 * counts.values, name=wl)
    fig.update_xaxes(title_text="GPUs requested", type="category")
    fig.update_yaxes(title_text="% of jobs")
    fig.update_layout(barmode="group", height=380, title="Fig. 4 (right): GPU requests")
    return legend_below(fig)


def gantt(result: xr.Dataset, *, max_units: int = 60) -> go.Figure:
    """One run's schedule: a bar per segment (unit on the y axis, hours on x), runs
    coloured by the GPUs they hold (one legend entry per GPU count), switches in red;
    merged units marked. Every colour is a CSS colour string: plotly.js takes a number in
    a bar's colour for an invalid colour, draws it black and warns in the console."""
    s0 = result["seg_start_s"].values / 3600
    s1 = result["seg_end_s"].values / 3600
    unit = result["seg_unit"].values
    kind = result["seg_kind"].values
    gpus = result["seg_gpus"].values
    size = result["unit_size"].values
    keep = unit < max_units
    counts = sorted({int(g) for g in gpus[keep & (kind == 0)]})
    palette = (sample_colorscale("Viridis", [i / max(1, len(counts) - 1)
                                             for i in range(len(counts))])
               if len(counts) > 1 else ["#21918c"] * len(counts))
    groups = [(f"run, {g} GPU{'s' if g != 1 else ''}", keep & (kind == 0) & (gpus == g), c)
              for g, c in zip(counts, palette, strict=True)]
    groups.append(("switch", keep & (kind == 1), "#e76f51"))
    fig = go.Figure()
    for label, m, colour in groups:
        text = [f"unit {u} ({'merged, ' + str(size[u]) + ' jobs' if size[u] > 1 else 'one job'})"
                f", {g} GPUs" for u, g in zip(unit[m], gpus[m], strict=True)]
        fig.add_bar(base=s0[m], x=s1[m] - s0[m], y=unit[m], orientation="h", name=label,
                    marker={"color": colour}, hovertext=text, hoverinfo="text")
    fig.update_yaxes(title_text="unit (job or merged job)", autorange="reversed")
    fig.update_xaxes(title_text="hours")
    fig.update_layout(barmode="overlay", height=520, showlegend=True,
                      title=f"{policy_name(result.attrs['algorithm'])}: the first "
                            f"{max_units} units' segments (colour: the GPUs a run holds, "
                            "switches red)")
    return legend_below(fig, title={"text": "colour:"})


def switch_lines(sw: xr.Dataset, names: dict, workloads: dict) -> go.Figure:
    """Average JCT of TITAN with the pipelined and the naive switch against the switch
    costs' scale (1 = the measured ones), one panel per workload."""
    return policy_lines(sw, "switch_scale", names, workloads,
                        axis_title="switch cost (x the measured ones)",
                        title="The switch cost, swept")


def solve_scatter(df: pd.DataFrame, paper: tuple[float, float]) -> go.Figure:
    """Each MILP solve: its time (ms, log axis) against the units and merge candidates it
    was offered, by workload; the paper's mean and maximum as lines."""
    fig = go.Figure()
    for wl, g in df.groupby("workload", sort=False):
        fig.add_scatter(x=g["candidates"], y=g["solve_ms"], mode="markers", name=wl,
                        marker={"size": 5, "opacity": 0.6})
    for value, label in zip(paper, ("paper: mean", "paper: max"), strict=True):
        reference_line(fig, 1000 * value, label, axis="y", log=True)
    fig.update_xaxes(title_text="units and merge candidates offered")
    fig.update_yaxes(title_text="solve time (ms)", type="log")
    fig.update_layout(height=420, title="The MILP's solve time per event")
    return legend_below(fig)


def workload_bars(table: pd.DataFrame, policies: list[str], *, value: str = "average JCT (h)",
                  title: str = "") -> go.Figure:
    """One bar per policy (columns ``policies`` of ``table``) for each workload (its
    ``workload`` column): e.g. the authors' setup's average JCT on all twelve workloads."""
    fig = go.Figure()
    for p in policies:
        fig.add_bar(x=table["workload"], y=table[p], name=p)
    fig.update_layout(barmode="group", height=440, title=title)
    fig.update_yaxes(title_text=value)
    return legend_below(fig)


def table_lines(table: pd.DataFrame, x: str, policies: list[str], *, value: str,
                title: str = "") -> go.Figure:
    """``table[p]`` against ``table[x]`` for each policy column ``p``."""
    fig = go.Figure()
    for p in policies:
        fig.add_scatter(x=table[x], y=table[p], mode="lines+markers", name=p)
    fig.update_layout(height=400, title=title)
    fig.update_xaxes(title_text=x)
    fig.update_yaxes(title_text=value)
    return legend_below(fig)
