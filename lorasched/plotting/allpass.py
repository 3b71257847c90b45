"""Plots of Allpass's pages (plotly): duration CDFs, JCT CDFs by policy, waiting and cost
bars, timelines of one run (queue, workers, F, pressure) and the marketplace prices paid."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..allpass.policies import LABELS
from ..figures.centres import seeds_estimate
from ..figures.verdicts import RATIO
from . import legend_below, reference_line


def policy_name(policy: str) -> str:
    """A policy as the paper names it ("tl_np" -> "TL-NP"); another name as it is."""
    return LABELS.get(policy, policy)

#: one colour per policy, the same on every Allpass page
COLOURS = {"Allpass": "#023047", "TL-NP": "#e9c46a", "TL-P": "#f4a261", "SJF-NP": "#8ecae6",
           "SJF-P": "#219ebc", "HPA": "#e76f51", "Modal": "#2a9d8f", "Fixed-60s": "#adb5bd",
           "Fixed-600s": "#6c757d"}
PROVIDER_COLOURS = {"modal": "#2a9d8f", "vast": "#023047", "lambda": "#e9c46a"}
#: the clouds as the paper names them
PROVIDER_NAMES = {"modal": "Modal", "vast": "Vast.ai", "lambda": "Lambda"}


def _cdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.sort(np.asarray(values, dtype=float))
    return x, np.arange(1, x.size + 1) / x.size


def duration_cdf(durations: dict) -> go.Figure:
    """Fig. 1: the CDF of job durations (minutes, log axis) of each trace."""
    fig = go.Figure()
    for name, d in durations.items():
        x, y = _cdf(np.maximum(d, 1.0) / 60)
        step = max(1, x.size // 2000)                     # thin to ~2,000 points
        fig.add_scatter(x=x[::step], y=y[::step], mode="lines", name=name)
    reference_line(fig, 10, "10 min", log=True)
    fig.update_layout(xaxis_type="log", xaxis_exponentformat="none",
                      xaxis_title="job duration (min)",
                      yaxis_title="CDF", template="plotly_white", height=420)
    return fig


def jct_cdf(data, setup: str, algorithms: list[str], names: dict) -> go.Figure:
    """JCT CDF (minutes, log axis) of each policy, all seeds pooled (Figs. 6, 7, 11).

    A preemptive policy's line (its name ends in "-P") is dashed, so that where it lies on
    its non-preemptive twin's both still show.

    Parameters
    ----------
    data : AllpassData
        The runs (its ``jct_min``).
    setup : str
        ``"limited"`` or ``"unlimited"``.
    algorithms : list of str
        The policies, in the legend's order.
    names : dict
        Policy -> its name on the page.

    Returns
    -------
    plotly.graph_objects.Figure
        One line per policy and the ten-minute mark.
    """
    fig = go.Figure()
    for a in algorithms:
        x, y = _cdf(data.jct_min(setup, a))
        fig.add_scatter(x=x, y=y, mode="lines", name=names[a],
                        line={"color": COLOURS.get(names[a]),
                              "dash": "dash" if names[a].endswith("-P") else "solid"})
    reference_line(fig, 10, "10 min", log=True)
    fig.update_layout(xaxis_type="log", xaxis_exponentformat="none",
                      xaxis_title="job completion time (min)",
                      yaxis_title="CDF", template="plotly_white", height=440)
    return fig


def _split(total: float, parts: list[float]) -> list[float]:
    """``total`` split in the proportions of ``parts`` (all zero: nothing)."""
    whole = sum(parts)
    return [total * p / whole if whole > 0 else 0.0 for p in parts]


def _interval(fig, data, metric: str, rows: list[tuple[str, str]], labels: list[str],
              what: str) -> None:
    """Over each stacked bar, the 95 % interval over seeds of its total ``metric``: a
    marker at the centre the claims take and an error bar, on the log scale of a positive
    quantity (:func:`~lorasched.figures.centres.seeds_estimate`, ``RATIO``: the geometric
    mean, asymmetric), one legend entry saying so."""
    est = [seeds_estimate(data.values(metric, s, a), RATIO) for a, s in rows]
    centre = np.array([e.mean for e in est])
    low, high = np.array([e.low for e in est]), np.array([e.high for e in est])
    fig.add_scatter(x=labels, y=centre, mode="markers",
                    name=f"{what}: 95 % interval over {max(e.n for e in est)} seeds",
                    marker={"color": "#212529", "size": 5, "symbol": "line-ew-open"},
                    error_y={"type": "data", "array": high - centre,
                             "arrayminus": centre - low, "visible": True,
                             "color": "#212529", "thickness": 1.5, "width": 6},
                    customdata=np.stack([low, high], axis=-1),
                    hovertemplate=("%{x}<br>" + what + " %{y:.4g} (95 %: %{customdata[0]:.4g}"
                                   " to %{customdata[1]:.4g})<extra></extra>"))


def wait_bars(data, rows: list[tuple[str, str]], names: dict) -> go.Figure:
    """Fig. 8: the wait per job of each policy, split by cause, with its interval.

    The bar is the wait's centre over seeds as the claims take it (the geometric mean:
    ``data.m``), split into queueing, checkpoint/restore and the rest (start-ups) in the
    proportions of their arithmetic means over seeds, which add up to the wait's; over it
    an error bar to its 95 % interval over seeds.

    Parameters
    ----------
    data : AllpassData
        The runs' metrics (its ``values`` and ``m``).
    rows : list of (str, str)
        ``(policy, setup)`` of each bar, in order.
    names : dict
        Policy -> its name on the page.

    Returns
    -------
    plotly.graph_objects.Figure
        The stacked bars, the intervals and the legend below them.
    """
    labels = [f"{names[a]} ({s})" for a, s in rows]
    stacks = []
    for a, s in rows:
        q, o, w = (float(data.values(m, s, a).mean())
                   for m in ("queue_min", "overhead_min", "wait_min"))
        stacks.append(_split(data.m("wait_min", s, a), [q, o, max(0.0, w - q - o)]))
    fig = go.Figure()
    for i, name in enumerate(("serverful queue", "checkpoint + restore", "start-up and other")):
        fig.add_bar(x=labels, y=[st[i] for st in stacks], name=name)
    _interval(fig, data, "wait_min", rows, labels, "wait per job")
    fig.update_layout(barmode="stack",
                      yaxis_title="wait per job (min), geometric mean over seeds",
                      template="plotly_white", height=460)
    return legend_below(fig, top=30)


def cost_bars(data, rows: list[tuple[str, str]], names: dict) -> go.Figure:
    """Fig. 9: the bill of each policy, split by cloud, with its interval.

    The bar is the bill's centre over seeds as the claims take it (the geometric mean:
    ``data.m``), split by cloud (:data:`PROVIDER_NAMES`: Modal, Vast.ai, Lambda) in the
    proportions of their arithmetic means over seeds, which add up to the bill's; over it
    an error bar to its 95 % interval over seeds.

    Parameters
    ----------
    data : AllpassData
        The runs' metrics (its ``values`` and ``m``).
    rows : list of (str, str)
        ``(policy, setup)`` of each bar, in order.
    names : dict
        Policy -> its name on the page.

    Returns
    -------
    plotly.graph_objects.Figure
        The stacked bars, the intervals and the legend below them.
    """
    labels = [f"{names[a]} ({s})" for a, s in rows]
    providers = list(PROVIDER_COLOURS)
    stacks = [_split(data.m("cost_usd", s, a),
                     [float(data.values(f"cost_{p}_usd", s, a).mean()) for p in providers])
              for a, s in rows]
    fig = go.Figure()
    for i, (p, colour) in enumerate(PROVIDER_COLOURS.items()):
        fig.add_bar(x=labels, y=[st[i] for st in stacks], name=PROVIDER_NAMES[p],
                    marker_color=colour)
    _interval(fig, data, "cost_usd", rows, labels, "bill (USD)")
    fig.update_layout(barmode="stack", yaxis_title="bill (USD), geometric mean over seeds",
                      template="plotly_white", height=460)
    return legend_below(fig, top=30)


def timeline(runs: list[tuple[str, object]]) -> go.Figure:
    """Fig. 10: per run, the serverful queue, serverful workers and jobs on the serverless
    tier against time; for runs with a threshold, F and the pressure p in a last row."""
    with_f = [(t, r) for t, r in runs if np.isfinite(r["F_s"].values).any()]
    n = len(runs) + (1 if with_f else 0)
    height = 230 * n
    # 70 px between rows: the lower row's title clears the upper row's axis
    fig = make_subplots(rows=n, cols=1, shared_xaxes=True, vertical_spacing=70 / height,
                        subplot_titles=[t for t, _ in runs] + (["threshold F and pressure p"]
                                                              if with_f else []),
                        specs=[[{}]] * len(runs) + ([[{"secondary_y": True}]] if with_f
                                                    else []))
    for i, (_, r) in enumerate(runs, start=1):
        t = r["tick_s"].values / 3600
        for var, name, colour in (("queue", "queued jobs", "#e76f51"),
                                  ("workers", "serverful workers", "#023047"),
                                  ("serverless", "serverless jobs", "#2a9d8f")):
            fig.add_scatter(x=t, y=r[var].values, mode="lines", name=name,
                            line={"color": colour}, legendgroup=var, showlegend=i == 1,
                            row=i, col=1)
    if with_f:
        _, r = with_f[-1]
        t = r["tick_s"].values / 3600
        fig.add_scatter(x=t, y=r["F_s"].values, mode="lines", name="F (s)",
                        line={"color": "#6a4c93"}, row=n, col=1)
        p = np.minimum(r["p"].values, 10.0)
        fig.add_scatter(x=t, y=p, mode="lines", name="p (capped at 10)",
                        line={"color": "#adb5bd", "width": 1}, row=n, col=1, secondary_y=True)
    fig.update_xaxes(title_text="time (h)", row=n, col=1)
    for i in range(1, len(runs) + 1):
        fig.update_yaxes(title_text="jobs or workers", row=i, col=1)
    if with_f:
        fig.update_yaxes(title_text="F (s)", row=n, col=1, secondary_y=False)
        fig.update_yaxes(title_text="p", row=n, col=1, secondary_y=True)
    fig.update_layout(template="plotly_white", height=height)
    return fig


def price_timeline(result, lambda_price: float, modal_price: float) -> go.Figure:
    """Fig. 12: the price of each marketplace lease at its start, the running average
    weighted by lease time, and Lambda's and Modal's prices."""
    prov = result["lease_provider"].values.astype(str)
    vast = prov == "vast"
    start = result["lease_start_s"].values[vast] / 3600
    price = result["lease_price_per_h"].values[vast]
    length = (result["lease_end_s"] - result["lease_start_s"]).values[vast]
    order = np.argsort(start, kind="stable")
    run = np.cumsum((price * length)[order]) / np.maximum(np.cumsum(length[order]), 1e-9)
    fig = go.Figure()
    fig.add_scatter(x=start[order], y=price[order], mode="markers", name="lease price",
                    marker={"size": 5, "color": "#023047"})
    fig.add_scatter(x=start[order], y=run, mode="lines", name="running average",
                    line={"color": "#e76f51"})
    for name, value in (("Lambda", lambda_price), ("Modal", modal_price)):
        fig.add_hline(y=value, line_dash="dot", annotation_text=name)
    fig.update_layout(xaxis_title="lease start (h)", yaxis_title="$/GPU-h",
                      template="plotly_white", height=400)
    return fig


def job_timeline(result, *, max_jobs: int = 60) -> go.Figure:
    """One run's jobs against time (hours): a grey bar from submission to finish, and
    over it what the job did on each worker, coloured by provider (``run`` segments) or
    red (checkpoint and restore); the first ``max_jobs`` jobs by submission."""
    submit = result["submit_s"].values / 3600
    finish = result["finish_s"].values / 3600
    names = result["name"].values.astype(str)
    jobs = np.argsort(submit, kind="stable")[:max_jobs]
    row = np.full(submit.size, -1)
    row[jobs] = np.arange(jobs.size)
    fig = go.Figure()
    fig.add_bar(base=submit[jobs], x=finish[jobs] - submit[jobs], y=row[jobs], orientation="h",
                name="submitted to finished", marker={"color": "#e9ecef"},
                hovertext=names[jobs], hoverinfo="text")
    sj = result["seg_job"].values
    keep = row[sj] >= 0
    s0, s1 = result["seg_start_s"].values / 3600, result["seg_end_s"].values / 3600
    kind = result["seg_kind"].values.astype(str)
    provider = result["lease_provider"].values.astype(str)[result["seg_lease"].values]
    groups = [(f"runs on {PROVIDER_NAMES[p]}", (kind == "run") & (provider == p), c)
              for p, c in PROVIDER_COLOURS.items()]
    groups.append(("checkpoint or restore", kind != "run", "#d62828"))
    for label, m, colour in groups:
        m = m & keep
        if m.any():
            fig.add_bar(base=s0[m], x=s1[m] - s0[m], y=row[sj[m]], orientation="h",
                        name=label, marker={"color": colour}, width=0.6,
                        hovertext=[f"{names[j]}: {k}" for j, k in zip(sj[m], kind[m],
                                                                       strict=True)],
                        hoverinfo="text")
    fig.update_yaxes(title_text="job (by submission)", autorange="reversed")
    fig.update_xaxes(title_text="time (h)")
    # the legend below the plot, inside the figure (nothing on the page runs into it)
    fig.update_layout(barmode="overlay", template="plotly_white", height=460,
                      title=f"{policy_name(result.attrs['algorithm'])}: the first {jobs.size} jobs")
    return legend_below(fig)


def threshold_pressure(runs: list[tuple[str, object]]) -> go.Figure:
    """The threshold F (top) and the pressure p of eq. (2) (bottom, log axis; ticks with
    p = 0 or p = inf left out) against time, one line per run; p = 1 dotted."""
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=["threshold F (s)", "pressure p (log axis)"])
    colours = ["#023047", "#e76f51", "#2a9d8f", "#6a4c93"]
    for i, (name, r) in enumerate(runs):
        t = r["tick_s"].values / 3600
        colour = colours[i % len(colours)]
        fig.add_scatter(x=t, y=r["F_s"].values, mode="lines", name=name, legendgroup=name,
                        line={"color": colour}, row=1, col=1)
        p = np.asarray(r["p"].values, dtype=float)
        p = np.where(np.isfinite(p) & (p > 0), p, np.nan)
        fig.add_scatter(x=t, y=p, mode="lines", name=name, legendgroup=name,
                        showlegend=False, line={"color": colour, "width": 1}, row=2, col=1)
    fig.add_hline(y=1.0, line_dash="dot", row=2, col=1)
    fig.update_yaxes(type="log", row=2, col=1)
    fig.update_xaxes(title_text="time (h)", row=2, col=1)
    fig.update_layout(template="plotly_white", height=560)
    return fig
