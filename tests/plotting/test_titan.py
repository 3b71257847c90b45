"""lorasched.plotting.titan: a run's schedule is coloured with colours a browser takes, and
its colour is explained by its legend; the authors' setup's bars and lines draw their
table."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from _plotly_utils.basevalidators import ColorValidator

import lorasched
from lorasched.plotting import LEGEND_BELOW, MAX_BARS, bars_per_group
from lorasched.plotting import titan as plots

_CSS = re.compile(r"#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})"
                  r"|rgba?\(\s*\d+(\.\d+)?\s*(,\s*\d+(\.\d+)?\s*){2}(,\s*[01]?(\.\d+)?\s*)?\)")


def is_css_colour(value) -> bool:
    """Whether plotly.js parses ``value`` as a colour: a hex, rgb() or rgba() string or a
    CSS colour name (a number is drawn black with "Invalid color specifier")."""
    return isinstance(value, str) and (bool(_CSS.fullmatch(value.strip().lower()))
                                       or value.strip().lower() in ColorValidator.named_colors)


def colours(fig: go.Figure) -> list:
    """Every marker and line colour of ``fig``'s traces, arrays flattened."""
    out = []
    for trace in fig.data:
        for part in ("marker", "line"):
            colour = getattr(getattr(trace, part, None), "color", None)
            if colour is None:
                continue
            out += list(np.ravel(colour)) if not isinstance(colour, str) else [colour]
    return out


def test_the_colour_checker_rejects_a_number():
    assert is_css_colour("#e76f51") and is_css_colour("rgb(68, 1, 84)")
    assert is_css_colour("darkblue")
    assert not is_css_colour(16) and not is_css_colour("sixteen")


def test_the_schedule_colours_are_css_colours_and_explained_by_its_legend():
    sc = lorasched.titan_scenario(workload="authors", jobs=10, seed=1)
    run = lorasched.simulate(sc, "titan")
    fig = plots.gantt(run)
    found = colours(fig)
    assert found and all(is_css_colour(c) for c in found), found
    assert "colour" in fig.layout.title.text
    # what the title says is coloured has a key: a legend entry per colour drawn
    assert fig.layout.showlegend is not False
    shown = [t for t in fig.data if t.showlegend is not False and len(t.x)]
    gpus = sorted({int(g) for g, k in zip(run["seg_gpus"].values, run["seg_kind"].values,
                                          strict=True) if k == 0})
    assert [t.name for t in shown if t.name.startswith("run")] == [
        f"run, {g} GPU{'s' if g != 1 else ''}" for g in gpus]
    assert len({t.marker.color for t in shown}) == len(shown)


TABLE = pd.DataFrame({"workload": ["Venus", "Philly"], "density": [1.0, 2.0],
                      "TITAN": [1.5, 2.5], "SRTF": [2.0, 4.0]})


def test_workload_bars_group_one_bar_per_policy_for_each_workload():
    fig = plots.workload_bars(TABLE, ["TITAN", "SRTF"], title="authors' setup")
    assert [t.type for t in fig.data] == ["bar", "bar"]
    assert [t.name for t in fig.data] == ["TITAN", "SRTF"]
    assert [list(t.y) for t in fig.data] == [[1.5, 2.5], [2.0, 4.0]]
    assert all(list(t.x) == ["Venus", "Philly"] for t in fig.data)
    assert fig.layout.barmode == "group" and fig.layout.title.text == "authors' setup"
    assert fig.layout.yaxis.title.text == "average JCT (h)"


def test_table_lines_draw_each_policy_against_the_chosen_column():
    fig = plots.table_lines(TABLE, "density", ["SRTF"], value="makespan (h)")
    (line,) = fig.data
    assert line.name == "SRTF" and line.mode == "lines+markers"
    assert list(line.x) == [1.0, 2.0] and list(line.y) == [2.0, 4.0]
    assert fig.layout.xaxis.title.text == "density"
    assert fig.layout.yaxis.title.text == "makespan (h)"


def test_every_legend_lies_below_the_plots_and_the_grouped_bars_stay_readable():
    """Horizontal legends at the figure's bottom (:data:`~lorasched.plotting.LEGEND_BELOW`),
    clear of the title at the top; no group holds more bars than a reader tells apart."""
    durations = pd.DataFrame({"workload": ["a", "a", "b"], "duration_h": [0.1, 0.6, 9.0],
                              "gpus": [1, 2, 1]})
    figs = [plots.workload_bars(TABLE, ["TITAN", "SRTF"], title="t"),
            plots.table_lines(TABLE, "density", ["SRTF"], value="h", title="t"),
            plots.duration_cdf(durations), plots.gpu_requests(durations),
            plots.solve_scatter(pd.DataFrame({"workload": ["a"], "candidates": [3],
                                              "solve_ms": [1.0]}), (0.005, 0.16)),
            plots.gantt(lorasched.simulate(lorasched.titan_scenario(workload="authors",
                                                                    jobs=4, seed=1),
                                           "titan"))]
    for fig in figs:
        legend = fig.layout.legend
        assert all(legend[k] == v for k, v in LEGEND_BELOW.items()), fig.layout.title.text
        assert bars_per_group(fig) <= MAX_BARS
    assert figs[-1].layout.legend.title.text == "colour:"  # the gantt keeps its key's title


def test_policy_lines_set_the_policies_apart_at_one_x_and_hover_the_true_x():
    import xarray as xr

    values = np.ones((2, 3, 2)) * np.array([1.0, 2.0])[:, None, None]
    ds = xr.Dataset({"avg_jct_h": (("algorithm", "density", "seed"), values)},
                    coords={"algorithm": ["srtf", "titan"], "density": [0.5, 1.0, 2.0],
                            "seed": [1, 2]}).expand_dims(workload=["authors"])
    fig = plots.policy_lines(ds, "density", {"srtf": "SRTF", "titan": "TITAN"},
                             {"authors": "authors' workload"}, title="t",
                             axis_title="workload density")
    a, b = fig.data
    # error bars at one x would cover each other: each policy stands a little aside
    assert all(xa < xb for xa, xb in zip(a.x, b.x, strict=True))
    assert max(abs(xb - xa) for xa, xb in zip(a.x, b.x, strict=True)) < 0.1
    assert list(a.customdata) == list(b.customdata) == [0.5, 1.0, 2.0]
