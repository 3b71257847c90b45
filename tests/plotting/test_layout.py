"""lorasched.plotting's shared layout: a legend below the plots never meets the title, and
no group of bars holds more than a reader tells apart; checked on the layout, and in
headless Chromium on the boxes the browser draws (a legend on the plots' top edge, as the
pages had it, is caught running into the title)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest
import xarray as xr

from lorasched.figures.pdftsp import PANELS
from lorasched.plotting import LEGEND_BELOW, MAX_BARS, bars_per_group, legend_below
from lorasched.plotting import pdftsp as plots


def _grouped(n: int, barmode: str = "group") -> go.Figure:
    fig = go.Figure()
    for i in range(n):
        fig.add_bar(x=["a", "b"], y=[1, np.nan if i else 2], name=f"policy {i}")
    return fig.update_layout(barmode=barmode)


def test_bars_per_group_counts_every_slot_a_group_takes():
    assert bars_per_group(_grouped(8)) == 8 > MAX_BARS  # a NaN bar still takes its slot
    assert bars_per_group(_grouped(3)) == 3
    assert bars_per_group(_grouped(8, "stack")) == 1  # stacked: one bar a category
    assert bars_per_group(go.Figure()) == 0


def test_legend_below_anchors_the_legend_to_the_figure_s_bottom():
    fig = go.Figure(layout={"title": "t", "margin": {"t": 20, "b": 40},
                            "legend": {"orientation": "h", "y": 1.02}})
    legend_below(fig, title={"text": "key:"})
    assert all(fig.layout.legend[k] == v for k, v in LEGEND_BELOW.items())
    assert fig.layout.legend.title.text == "key:"
    assert fig.layout.margin.t == 70 and fig.layout.margin.b == 40  # room for the title


#: the boxes (left, top, right, bottom) of what a plotly figure draws, by kind
_BOXES = """() => {
  const boxes = sel => Array.from(document.querySelectorAll(sel))
    .map(e => e.getBoundingClientRect()).filter(r => r.width > 0 && r.height > 0)
    .map(r => [r.left, r.top, r.right, r.bottom]);
  return {title: boxes('.g-gtitle .gtitle'), legend: boxes('.legend .bg'),
          axis_titles: boxes('.g-xtitle text, .g-x2title text, .g-x3title text, '
                             + '.g-x4title text, .g-ytitle text'),
          panel_titles: boxes('.annotation .annotation-text-g'), plots: boxes('.nsewdrag'),
          ticks: boxes('.xtick text')};
}"""


def _meet(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _clashes(boxes: dict) -> list[str]:
    """What the legend runs into, and what the title runs into."""
    found = [f"legend meets {kind}" for kind, some in boxes.items() if kind != "legend"
             for box in some for legend in boxes["legend"] if _meet(legend, box)]
    found += [f"title meets {kind}" for kind in ("panel_titles", "plots")
              for box in boxes[kind] for title in boxes["title"] if _meet(title, box)]
    return sorted(set(found))


def _drawn(browser, fig: go.Figure, tmp_path, width: int) -> dict:
    html = tmp_path / f"figure-{width}.html"
    fig.write_html(html, include_plotlyjs="directory", full_html=True)  # plotly.js beside
    page = browser.new_page(viewport={"width": width, "height": 900})
    try:
        page.goto(html.as_uri())
        page.wait_for_selector(".legend .bg", state="attached", timeout=30_000)
        return page.evaluate(_BOXES)
    finally:
        page.close()


@pytest.mark.browser
@pytest.mark.slow
def test_in_the_browser_the_legend_meets_neither_title_nor_axes(browser, tmp_path):
    names = list(dict.fromkeys(a for g in PANELS.values() for a in g))
    k = np.arange(1.0, len(names) + 1)[None, :, None]
    da = xr.DataArray(np.concatenate([k, k + 1], axis=2) * np.array([1.0, 2.0])[:, None, None],
                      dims=("nodes", "algorithm", "seed"),
                      coords={"nodes": ["50", "100"], "algorithm": names, "seed": [1, 2]})
    fig = plots.figure_bars(da, "nodes", title="Fig. 4: Impact of data-centre scale",
                            axis_title="compute nodes K", panels=PANELS)
    for width in (600, 1000):  # a narrow page wraps the legend to more lines
        boxes = _drawn(browser, fig, tmp_path, width)
        assert boxes["legend"] and boxes["title"] and len(boxes["panel_titles"]) == 4
        assert _clashes(boxes) == [], width
        assert max(b[3] for b in boxes["plots"]) < boxes["legend"][0][1]  # below the plots
    # the layouts the pages had: a legend on the plots' top edge grows into the title,
    # one hung below the plots' area (a share of its height) into the axis titles
    fig.update_layout(legend={"yref": "paper", "y": 1.0, "yanchor": "bottom"},
                      margin={"t": 70})
    assert "legend meets title" in _clashes(_drawn(browser, fig, tmp_path, 600))
    fig.update_layout(legend={"yref": "paper", "y": -0.06, "yanchor": "top"},
                      margin={"b": 120})
    assert "legend meets axis_titles" in _clashes(_drawn(browser, fig, tmp_path, 600))
