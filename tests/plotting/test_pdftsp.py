"""lorasched.plotting.pdftsp: each figure of a day's result or of a sweep draws what its data
holds (counts, shares, ratios and axes checked on tiny hand-made data)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import lorasched
from lorasched.figures.pdftsp import CALIBRATED, LEMMA2, NAMES, PANELS
from lorasched.figures.verdicts import RATIO, estimate
from lorasched.model.errors import InputError
from lorasched.plotting import LEGEND_BELOW, MAX_BARS, bars_per_group
from lorasched.plotting import pdftsp as plots


def _day() -> xr.Dataset:
    """A day of 3 slots of 30 minutes on 2 nodes, 5 tasks."""
    return xr.Dataset(
        {"arrival": ("task", [0, 0, 1, 2, 2]),
         "admitted": ("task", [True, False, True, True, False]),
         "reason": ("task", ["", "negative_surplus", "", "", "no_feasible_schedule"]),
         "bid": ("task", [4.0, 1.0, 6.0, 2.0, 3.0]),
         "payment": ("task", [3.0, 0.0, 5.0, 2.0, 0.0]),
         "compute_used": (("slot", "node"), [[50.0, 0.0], [100.0, 20.0], [0.0, 40.0]]),
         "compute_capacity": ("node", [100.0, 0.0]),
         "memory_used": (("node", "slot"), [[10.0, 20.0, 0.0], [5.0, 5.0, 5.0]]),
         "memory_capacity": ("node", [60.0, 30.0]),
         "gpu_type": ("node", ["A100", "A40"])},
        attrs={"slot_minutes": 30, "base_model_memory": 20.0})


def test_arrivals_stack_the_admitted_under_each_reason_of_rejection():
    fig = plots.arrivals_and_admissions(_day())
    assert [t.name for t in fig.data] == ["admitted", "rejected: negative surplus",
                                          "rejected: no feasible schedule"]
    assert [list(t.y) for t in fig.data] == [[1, 1, 1], [1, 0, 0], [0, 0, 1]]
    assert list(fig.data[0].x) == [0.25, 0.75, 1.25]  # slot centres, in hours
    assert fig.layout.barmode == "stack"
    assert fig.layout.title.text == "Arrivals per 30-minute slot (3 of 5 admitted)"
    assert list(fig.layout.xaxis.range) == [0, 1.5]
    plain = plots.arrivals_and_admissions(_day().drop_vars("reason"))
    assert [(t.name, list(t.y)) for t in plain.data] == [("admitted", [1, 1, 1]),
                                                         ("rejected", [1, 0, 1])]


def test_utilisation_is_the_share_of_each_node_s_capacity_in_use():
    fig = plots.utilisation_heatmap(_day())
    (heat,) = fig.data
    # node 1 has no compute: no share, not a division by zero
    np.testing.assert_array_equal(heat.z, [[0.5, 1.0, 0.0], [np.nan, np.nan, np.nan]])
    assert (heat.zmin, heat.zmax) == (0.0, 1.0)
    assert list(heat.customdata[:, 0]) == ["0 (A100)", "1 (A40)"]
    assert fig.layout.title.text == "Utilisation of compute (samples/slot)"
    # memory net of the base model's replica: 40 and 10 GB left
    memory = plots.utilisation_heatmap(_day(), "memory").data[0]
    np.testing.assert_allclose(memory.z, [[0.25, 0.5, 0.0], [0.5, 0.5, 0.5]])
    with pytest.raises(lorasched.InputError, match="'compute' or 'memory', not 'disk'"):
        plots.utilisation_heatmap(_day(), "disk")


def test_bids_and_payments_of_the_admitted_tasks_lie_beside_the_line_payment_is_bid():
    fig = plots.bids_and_payments(_day())
    line, points = fig.data
    top = 6.0 * 1.05  # the largest bid, with a margin
    assert line.name == "payment = bid" and list(line.x) == list(line.y) == [0.0, top]
    assert list(points.x) == [4.0, 6.0, 2.0] and list(points.y) == [3.0, 5.0, 2.0]
    assert list(points.customdata) == [0, 2, 3]  # the admitted tasks
    assert fig.layout.title.text == "Bids and payments of the 3 admitted tasks"
    assert list(fig.layout.xaxis.range) == list(fig.layout.yaxis.range) == [0, top]


def test_sampled_bids_and_payments_are_side_by_side_for_the_tasks_given():
    fig = plots.sampled_bids_and_payments(_day(), [2, 0])
    bids, pays = fig.data
    assert list(bids.x) == list(pays.x) == ["task 2", "task 0"]
    assert list(bids.y) == [6.0, 4.0] and list(pays.y) == [5.0, 3.0]
    assert fig.layout.barmode == "group" and fig.layout.xaxis.type == "category"
    assert fig.layout.title.text == "Bids and payments of 2 sampled admitted tasks"


def _sweep() -> xr.DataArray:
    """A metric over 2 loads x 2 algorithms x 2 seeds."""
    values = np.array([[[10.0, 14.0], [4.0, 4.0]], [[20.0, 20.0], [6.0, 8.0]]])
    return xr.DataArray(values, dims=("load", "algorithm", "seed"),
                        coords={"load": ["light", "high"], "algorithm": ["pdFTSP (Lemma 2)",
                                                                         "EFT"],
                                "seed": [1, 2]})


def _gm(*values) -> float:
    return float(np.exp(np.mean(np.log(values))))


def test_figure_bars_are_the_claims_centre_over_seeds_over_the_best_centre():
    """Each bar is the centre the claims take, the geometric mean over seeds, over the
    figure's largest; its error bar reaches the 95 % interval (on the log scale, so
    asymmetric)."""
    fig = plots.figure_bars(_sweep(), "load", title="Fig. 8", axis_title="load", hline=1.0)
    assert [t.name for t in fig.data] == ["pdFTSP (Lemma 2)", "EFT"]
    assert list(fig.data[0].y) == pytest.approx([_gm(10, 14) / 20, 1.0])
    assert list(fig.data[1].y) == pytest.approx([0.2, _gm(6, 8) / 20])
    est = estimate([10.0, 14.0], RATIO)
    assert fig.data[0].error_y.array[0] == pytest.approx((est.high - est.mean) / 20)
    assert fig.data[0].error_y.arrayminus[0] == pytest.approx((est.mean - est.low) / 20)
    assert fig.data[0].error_y.array[0] > fig.data[0].error_y.arrayminus[0]
    assert fig.data[0].error_y.array[1] == 0.0  # 20 and 20: no spread
    assert fig.data[0].marker.color == plots.METHOD_COLOURS["pdFTSP (Lemma 2)"]
    assert [s.y0 for s in fig.layout.shapes] == [1.0]
    assert fig.layout.yaxis.title.text == "normalised social welfare"
    raw = plots.figure_bars(_sweep(), "load", title="", axis_title="load", normalise=False,
                            y_title="tasks")
    assert list(raw.data[1].y) == pytest.approx([4.0, _gm(6, 8)])
    assert raw.layout.yaxis.title.text == "tasks"


def test_figure_bars_panels_share_one_scale_and_one_legend_entry_per_method():
    da = _sweep()
    twin = da.sel(algorithm=["EFT"]).assign_coords(algorithm=["EFT (tuned)"]) * 2
    da = xr.concat([da, twin], dim="algorithm")
    panels = {"untuned": ["pdFTSP (Lemma 2)", "EFT", "Titan"],
              "tuned": ["pdFTSP (Lemma 2)", "EFT (tuned)"]}
    fig = plots.figure_bars(da, "load", title="", axis_title="load", panels=panels)
    # Titan is not in the data: left out; pdFTSP in both panels, in the legend once
    assert [(t.name, t.xaxis, t.showlegend) for t in fig.data] == [
        ("pdFTSP (Lemma 2)", "x", True), ("EFT", "x", True),
        ("pdFTSP (Lemma 2)", "x2", False), ("EFT (tuned)", "x2", True)]
    # one scale: the best centre of the whole figure, pdFTSP's 20 at the high load
    assert list(fig.data[2].y) == pytest.approx([_gm(10, 14) / 20, 20 / 20])
    assert list(fig.data[3].y) == pytest.approx([8 / 20, _gm(12, 16) / 20])
    assert fig.data[3].marker.pattern.shape == "/" and fig.data[1].marker.pattern.shape == ""
    assert fig.data[3].marker.color == fig.data[1].marker.color
    with pytest.raises(InputError, match="no panel shows"):
        plots.figure_bars(da, "load", title="", axis_title="load",
                          panels={"one": ["EFT"]})


def test_runtime_per_task_is_in_milliseconds_on_a_log_axis():
    seconds = _sweep().rename(load="nodes").assign_coords(nodes=[50, 100]) / 1e3
    fig = plots.runtime_per_task(seconds)
    assert [t.name for t in fig.data] == ["pdFTSP (Lemma 2)", "EFT"]
    assert list(fig.data[1].x) == [50, 100]
    assert list(fig.data[1].y) == pytest.approx([4, _gm(6, 8)])
    est = estimate([6.0, 8.0], RATIO)
    assert list(fig.data[1].error_y.array) == pytest.approx([0.0, est.high - est.mean])
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.xaxis.title.text == "compute nodes K"


def test_calibration_surfaces_are_each_day_over_its_best_pair_with_the_marks():
    grid = xr.DataArray([[1.0, 4.0], [2.0, 8.0]], dims=("alpha", "beta"),
                        coords={"alpha": [1.0, 2.0], "beta": [0.5, 1.0]})
    fig = plots.calibration_surfaces({"day 1": grid, "day 2": grid * 10},
                                     {"chosen": {"alpha": 2.0, "beta": 1.0},
                                      "off the grid": {"alpha": 9.0, "beta": 1.0}})
    heats = [t for t in fig.data if t.type == "heatmap"]
    marks = [t for t in fig.data if t.type == "scatter"]
    assert len(heats) == 2 and [list(t.x) for t in heats] == [["0.5", "1"]] * 2
    np.testing.assert_allclose(heats[1].z, [[0.125, 0.5], [0.25, 1.0]])
    np.testing.assert_array_equal(heats[1].customdata, grid.values * 10)
    assert [h.showscale for h in heats] == [False, True]
    assert [(m.name, list(m.x), list(m.y)) for m in marks] == [("chosen", ["1"], ["2"])] * 2
    assert [a.text for a in fig.layout.annotations] == ["day 1", "day 2"]
    # the α title once, on the left: the second panel's stood on the first heatmap
    assert fig.layout.yaxis.title.text == "α" and fig.layout.yaxis2.title.text is None
    # two marks on one cell: the second smaller, so the first still shows around it
    both = plots.calibration_surfaces({"day": grid}, {"a": {"alpha": 1.0, "beta": 0.5},
                                                      "b": {"alpha": 1.0, "beta": 0.5}})
    first, second = (t.marker.size for t in both.data if t.type == "scatter")
    assert second < first


def test_latency_histogram_overlays_each_sample_with_its_median_marked():
    fast = np.array([0.001, 0.002, 0.002, 0.004])
    slow = np.array([0.010, 0.020, np.nan, 0.030])  # an unanswered request: left out
    fig = plots.latency_histogram({"fast": fast, "slow": slow}, title="latency")
    assert [t.name for t in fig.data] == ["fast", "slow"]
    assert [int(sum(t.y)) for t in fig.data] == [4, 3]
    assert fig.layout.xaxis.type == "log" and fig.layout.barmode == "overlay"
    assert [s.x0 for s in fig.layout.shapes] == pytest.approx([2.0, 20.0])  # medians, ms
    assert [a.text for a in fig.layout.annotations] == ["fast: median", "slow: median"]
    # each label a line below the last, so medians close together do not print on each other
    heights = [a.y for a in fig.layout.annotations]
    assert heights[0] > heights[1] and len(set(heights)) == len(heights)
    assert fig.layout.title.text == "latency"


def _methods(names, loads=("light", "high")) -> xr.DataArray:
    """A metric over 2 loads x the algorithms ``names`` x 2 seeds (algorithm k: k + 1 and
    k + 2, the second load twice the first)."""
    k = np.arange(1.0, len(names) + 1)[None, :, None]
    values = np.concatenate([k, k + 1], axis=2) * np.array([1.0, 2.0])[:, None, None]
    return xr.DataArray(values, dims=("load", "algorithm", "seed"),
                        coords={"load": list(loads), "algorithm": list(names), "seed": [1, 2]})


def _legend_below(fig) -> bool:
    """Whether ``fig``'s legend lies below its plots and axis titles, clear of its title."""
    legend = fig.layout.legend
    return all(legend[k] == v for k, v in LEGEND_BELOW.items())


def test_figure_bars_keep_a_group_to_as_many_bars_as_a_reader_tells_apart():
    eight = _methods([f"method {i}" for i in range(8)])
    with pytest.raises(InputError, match="more than 5 bars a group in {'the figure': 8}"):
        plots.figure_bars(eight, "load", title="", axis_title="load")
    names = [str(a) for a in eight["algorithm"].values]
    with pytest.raises(InputError, match="more than 5 bars a group in {'six': 6}"):
        plots.figure_bars(eight, "load", title="", axis_title="load",
                          panels={"six": names[:6], "two": names[6:]})
    fig = plots.figure_bars(eight, "load", title="", axis_title="load",
                            panels={"four": names[:4], "the rest": names[4:]})
    assert bars_per_group(fig) == 4 <= MAX_BARS


def test_the_section_5_figures_facet_into_a_row_per_standing_of_four_panels():
    """The pdFTSP figures' panels (Figs. 4-9): the paper's policies by the paper's names
    apart from lorasched's additions, a row per pdFTSP setting, at most four bars a group,
    one scale, and the legend below the plots, clear of the title."""
    names = list(dict.fromkeys(a for g in PANELS.values() for a in g))
    # every method the figures' data give (``by_method``) is in a panel: none refused
    assert set(names) == {LEMMA2, CALIBRATED, *NAMES.values()} - {"pdFTSP"}
    fig = plots.figure_bars(_methods(names, ("50", "100")), "load", title="Fig. 4",
                            axis_title="compute nodes K", panels=PANELS)
    assert bars_per_group(fig) == 4 <= MAX_BARS
    assert [a.text for a in fig.layout.annotations] == list(PANELS)
    on = {}
    for t in fig.data:
        on.setdefault(t.xaxis, []).append(t.name)
    assert on == {"x": [LEMMA2, "Titan", "EFT", "NTM"],
                  "x2": [LEMMA2, "cost-plus (lorasched's)", "Titan (welfare objective)"],
                  "x3": [CALIBRATED, "Titan", "EFT (tuned)", "NTM (tuned)"],
                  "x4": [CALIBRATED, "cost-plus (lorasched's, tuned)",
                         "Titan (welfare objective)"]}
    # two a row: the top row Lemma 2's, the bottom one the calibrated constants'
    assert fig.layout.xaxis.domain[0] == fig.layout.xaxis3.domain[0] == 0
    assert fig.layout.xaxis2.domain[0] > fig.layout.xaxis.domain[1]
    assert fig.layout.yaxis.domain[0] > fig.layout.yaxis3.domain[1]
    assert all(fig.layout[f"yaxis{i}"].matches == "y" for i in (2, 3, 4))  # one scale
    assert sorted(t.name for t in fig.data if t.showlegend) == sorted(names)
    assert _legend_below(fig) and fig.layout.title.text == "Fig. 4"
    assert fig.layout.xaxis3.title.text == fig.layout.xaxis4.title.text == "compute nodes K"


def test_every_legend_of_a_day_s_figures_lies_below_the_plots():
    day = _day()
    figs = [plots.arrivals_and_admissions(day), plots.bids_and_payments(day),
            plots.sampled_bids_and_payments(day, [2, 0]),
            plots.figure_bars(_sweep(), "load", title="t", axis_title="load"),
            plots.runtime_per_task(_sweep().rename(load="nodes")),
            plots.latency_histogram({"a": np.array([0.001, 0.002])}, title="t")]
    assert all(_legend_below(f) for f in figs)
    # the old layout, a legend on the plots' top edge, grows into the title: not below
    assert not _legend_below(figs[0].update_layout(legend={"y": 1.0, "yref": "paper"}))
