"""The speed page of the book (``notebooks/scale_bench.ipynb``): the JSON that ``lorasched
bench scale`` (:mod:`lorasched.bench.scale`) writes, read back and shown as its table, plots
and findings.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..figures.pdftsp.common import NAMES
from .scale import (
    GOALS,
    SERIES_ALGORITHMS,
    baseline_value,
    decision_points,
    decision_slope,
    fmt,
    summary,
)


def load(path) -> dict:
    """A JSON written by ``lorasched bench scale``."""
    return json.loads(Path(path).read_text())


def table(figures: dict, baseline: dict | None = None):
    """The table as a ``pandas.DataFrame`` of text (numbers as
    :func:`~lorasched.bench.scale.report` prints them): what, before, now, unit, goal, met."""
    rows = []
    for what, value, unit, goal in summary(figures):
        before = baseline_value(baseline, what)
        rows.append({"what": what.strip(), "before": fmt(before), "now": fmt(value),
                     "unit": unit, "goal": fmt(goal),
                     "met": "" if goal is None or value is None else
                     ("yes" if value <= goal else "no")})
    return pd.DataFrame(rows)


def series_figure(figures: dict, baseline: dict | None = None):
    """Wall time and peak memory of a day against K (with the task count in the hover), per
    algorithm: every measured point, and ``baseline``'s pdFTSP points dashed."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("wall time of one day (s)",
                                                        "peak memory (GB)"))
    colours = {"pdftsp": "#264653", "eft": "#e76f51", "ntm": "#2a9d8f"}
    sources = [("now", figures)] + ([("before", baseline)] if baseline else [])
    for label, data in sources:
        points = data["rows"].get("series", [])
        for algorithm in SERIES_ALGORITHMS:
            if label == "before" and algorithm != "pdftsp":
                continue
            pts = sorted((p for p in points if p["algorithm"] == algorithm),
                         key=lambda p: p["nodes"])
            if not pts:
                continue
            x = [p["nodes"] for p in pts]
            text = [f"{p['tasks']:,} tasks" for p in pts]
            for col, key in ((1, "seconds"), (2, "peak_gb")):
                fig.add_trace(go.Scatter(
                    x=x, y=[p[key] for p in pts], text=text, mode="lines+markers",
                    name=f"{NAMES.get(algorithm, algorithm)} ({label})",
                    legendgroup=f"{algorithm}{label}",
                    showlegend=col == 1,
                    line={"color": colours[algorithm],
                          "dash": "dash" if label == "before" else "solid"},
                    hovertemplate="K=%{x}, %{text}: %{y:.3g}<extra>%{fullData.name}"
                                  "</extra>"), row=1, col=col)
    for col in (1, 2):
        fig.update_xaxes(type="log", title_text="compute nodes K (0.4 K arrivals per slot)",
                         row=1, col=col)
        fig.update_yaxes(type="log", row=1, col=col)
    fig.update_layout(height=420, margin={"t": 40}, legend={"orientation": "h", "y": -0.25})
    return fig






def decision_figure(figures: dict, baseline: dict | None = None):
    """Median pdFTSP decision time against K, log-log, now and (dashed) ``baseline``, each
    with the slope fitted over K = 100 ... 2,000 in its legend."""
    fig = go.Figure()
    for label, data, dash in (("now", figures, "solid"), ("before", baseline, "dash")):
        if data is None:
            continue
        pts = decision_points(data)
        if not pts:
            continue
        slope = decision_slope(data)
        name = f"pdFTSP ({label}" + (f", slope {slope:.2f} for K = 100-2,000)"
                                     if slope is not None else ")")
        fig.add_trace(go.Scatter(x=[k for k, _ in pts], y=[us for _, us in pts],
                                 mode="lines+markers", name=name,
                                 line={"color": "#264653", "dash": dash},
                                 hovertemplate="K=%{x}: %{y:.3g} us<extra>%{fullData.name}"
                                               "</extra>"))
    fig.update_xaxes(type="log", title_text="compute nodes K (0.4 K arrivals per slot)")
    fig.update_yaxes(type="log", title_text="median decision time (us)")
    fig.update_layout(height=380, margin={"t": 30}, legend={"orientation": "h", "y": -0.3})
    return fig


def decision_findings(figures: dict, before: dict | None = None) -> str:
    """What the decision-time plot shows, every number from ``figures`` (and ``before``,
    a run with the scan): the median decision at the smallest and largest K, the fitted
    slope against its goal, and the largest day's time and memory."""
    pts = decision_points(figures)
    if not pts:
        return "No pdFTSP series was measured."
    (k0, us0), (k1, us1) = pts[0], pts[-1]
    slope = decision_slope(figures)
    lines = [f"- The median pdFTSP decision takes {fmt(us0)} us at K = {k0:,} and "
             f"{fmt(us1)} us at K = {k1:,}."]
    if slope is not None:
        verdict = "goal met" if slope <= GOALS["decision_slope"] else "goal NOT met"
        lines.append(f"- Fitted over K = 100 ... 2,000, log decision time grows with log K at "
                     f"a slope of {slope:.2f} (goal {GOALS['decision_slope']}: {verdict}).")
    old = decision_slope(before) if before else None
    if old is not None:
        lines.append(f"- With the scan (measured {before['date']} on "
                     f"{before['machine']['cpu']}) the slope was {old:.2f}.")
    big = max(figures["rows"].get("provider", []), key=lambda p: p["nodes"], default=None)
    if big is not None:
        lines.append(f"- The largest day, K = {big['nodes']:,} with {big['tasks']:,} tasks, "
                     f"took {fmt(big['seconds'])} s (scenario {fmt(big['scenario_seconds'])}"
                     f" s, run {fmt(big['run_seconds'])} s) at a peak of "
                     f"{fmt(big['peak_gb'])} GB; {big['admitted']:,} tasks admitted.")
    return "\n".join(lines)


def book_data(name: str = "bench_scale.json") -> Path:
    """A benchmark JSON that the book shows: ``notebooks/data/<name>`` of this checkout
    (``bench_scale.json``: now; ``bench_scale_before.json``: the baseline, a version
    without the changes that the speed page lists)."""
    return Path(__file__).resolve().parents[2] / "notebooks" / "data" / name


def describe(figures: dict) -> str:
    """Where and when the figures were measured."""
    m = figures["machine"]
    notes = "".join(f"\n  ({name}: {text})" for name, text in figures.get("notes", {}).items())
    command = figures.get("command", "lorasched bench scale")
    return (f"measured {figures['date']} by `{command}` (code "
            f"{figures['code']}) on {m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB, "
            f"Python {m['python']}, {m['platform']}{notes}")


def findings(figures: dict, baseline: dict | None = None) -> str:
    """One sentence per row of the table, every number from ``figures`` (and
    ``baseline``): what it is now, the goal, met or not, and the ratio to before."""
    lines = []
    for what, value, unit, goal in summary(figures):
        if value is None or goal is None:
            continue
        before = baseline_value(baseline, what)
        unit = f" {unit}" if unit else ""
        change = f", before {fmt(before)}{unit}" if before else ""
        if before and value and unit in (" s", " us"):
            ratio = before / value
            change = (f", {ratio:.1f}x faster than before" if ratio >= 1.05 else
                      f", {1 / ratio:.1f}x slower than before" if ratio <= 1 / 1.05 else
                      ", about the same as before") + f" ({fmt(before)}{unit})"
        verdict = "goal met" if value <= goal else "goal NOT met"
        lines.append(f"- **{what.strip()}**: {fmt(value)}{unit} against a goal of "
                     f"{fmt(goal)}{unit}: {verdict}{change}.")
    return "\n".join(lines)
