"""lorasched.plotting.allpass (and the other log-axis plots): a labelled line on a log axis
is labelled where it is drawn, so no label stretches the axis past the data; the bar charts
and the marketplace prices draw what their data holds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lorasched.figures.allpass.common import CLOUD_NAMES
from lorasched.figures.verdicts import RATIO, estimate
from lorasched.plotting import allpass, titan


class _Runs:
    """The one method of the Allpass pages' data that ``jct_cdf`` reads."""

    def __init__(self, jct: dict):
        self.jct = jct

    def jct_min(self, setup: str, algorithm: str) -> np.ndarray:
        return self.jct[algorithm]


def labels_in_data_units(fig, axis: str = "x") -> list[float]:
    """Where plotly.js puts each annotation on ``axis``, in data units: it reads an
    annotation's position on a log axis as log10 of the value."""
    log = getattr(fig.layout, f"{axis}axis").type == "log"
    return [10 ** a[axis] if log else a[axis] for a in fig.layout.annotations
            if a[f"{axis}ref"] == axis]


def data_span(fig, axis: str = "x") -> tuple[float, float]:
    values = np.concatenate([np.asarray(t[axis], dtype=float) for t in fig.data])
    return float(values.min()), float(values.max())


def test_the_ten_minute_label_of_the_jct_cdf_lies_within_the_minutes_drawn():
    jct = {"allpass": np.array([0.5, 3.0, 12.0, 95.0]), "tl_np": np.array([2.0, 40.0, 600.0])}
    fig = allpass.jct_cdf(_Runs(jct), "limited", list(jct), {"allpass": "Allpass",
                                                              "tl_np": "TL-NP"})
    lo, hi = data_span(fig)
    assert hi == 600.0  # the JCTs are drawn as they are, in minutes
    labels = labels_in_data_units(fig)
    assert labels and all(lo <= x <= hi for x in labels), labels  # not at 10^10 min
    assert [s.x0 for s in fig.layout.shapes] == [10]
    assert fig.layout.xaxis.exponentformat == "none"  # ticks 1000, not "1k", and no "B"
    assert "(min)" in fig.layout.xaxis.title.text


def test_the_other_log_axis_labels_lie_within_their_data():
    durations = {"helios": np.array([30.0, 300.0, 5000.0])}
    figs = {"x": [allpass.duration_cdf(durations),
                  titan.duration_cdf(pd.DataFrame({"workload": ["a"] * 3,
                                                   "duration_h": [0.1, 0.6, 9.0]}))],
            "y": [titan.solve_scatter(pd.DataFrame({"workload": ["a"] * 3,
                                                     "candidates": [3, 9, 20],
                                                     "solve_ms": [1.0, 60.0, 400.0]}),
                                       (0.005, 0.16))]}
    for axis, some in figs.items():
        for fig in some:
            lo, hi = data_span(fig, axis)
            labels = labels_in_data_units(fig, axis)
            assert labels and all(lo <= v <= hi for v in labels), (fig.layout.title, labels)


class _Metrics:
    """The two methods of the Allpass pages' data that the bar charts read: a metric's
    per-seed values in a setup, by policy, and their centre (the geometric mean)."""

    def __init__(self, per_seed: dict):
        self.per_seed = {k: np.asarray(v, dtype=float) for k, v in per_seed.items()}

    def values(self, metric: str, setup: str, algorithm: str) -> np.ndarray:
        return self.per_seed[metric, setup, algorithm]

    def m(self, metric: str, setup: str, algorithm: str) -> float:
        return float(np.exp(np.log(self.values(metric, setup, algorithm)).mean()))


NAMES = {"allpass": "Allpass", "tl_np": "TL-NP"}
ROWS = [("allpass", "limited"), ("tl_np", "unlimited")]


def test_wait_bars_stack_to_the_wait_s_centre_in_its_parts_proportions():
    data = _Metrics({("queue_min", "limited", "allpass"): [1.0, 3.0],
                     ("overhead_min", "limited", "allpass"): [1.0, 1.0],
                     ("wait_min", "limited", "allpass"): [2.0, 8.0],  # geometric mean 4
                     ("queue_min", "unlimited", "tl_np"): [3.0, 3.0],
                     ("overhead_min", "unlimited", "tl_np"): [0.5, 0.5],
                     ("wait_min", "unlimited", "tl_np"): [3.0, 3.0]})  # less than its parts
    fig = allpass.wait_bars(data, ROWS, NAMES)
    stack = _bars(fig)
    assert [t.name for t in stack] == ["serverful queue", "checkpoint + restore",
                                       "start-up and other"]
    assert all(list(t.x) == ["Allpass (limited)", "TL-NP (unlimited)"] for t in fig.data)
    # Allpass: arithmetic means 2 + 1 + the rest 2 = 5, scaled to the wait's centre 4
    assert np.allclose([list(t.y) for t in stack],
                       [[1.6, 3.0 * 3.0 / 3.5], [0.8, 0.5 * 3.0 / 3.5], [1.6, 0.0]])
    assert np.isclose(sum(t.y[0] for t in stack), 4.0)  # not the arithmetic 5
    assert fig.layout.barmode == "stack"
    assert fig.layout.yaxis.title.text == "wait per job (min), geometric mean over seeds"
    # the wait's 95 % interval over seeds, on the log scale of a positive quantity
    _assert_interval(fig, [np.array([2.0, 8.0]), np.array([3.0, 3.0])], "wait per job")


def test_cost_bars_stack_each_provider_s_share_of_the_bill_s_centre():
    data = _Metrics({(f"cost_{p}_usd", s, a): [10.0 * i + j + 1] * 2
                     for i, p in enumerate(allpass.PROVIDER_COLOURS)
                     for j, (a, s) in enumerate(ROWS)})
    data.per_seed.update({("cost_usd", "limited", "allpass"): np.array([10.0, 90.0]),
                          ("cost_usd", "unlimited", "tl_np"): np.array([36.0, 36.0])})
    fig = allpass.cost_bars(data, ROWS, NAMES)
    stack = _bars(fig)
    # the clouds by the paper's names, not the providers' keys
    assert [t.name for t in stack] == ["Modal", "Vast.ai", "Lambda"]
    assert allpass.PROVIDER_NAMES == CLOUD_NAMES
    # Allpass's parts 1, 11, 21 (sum 33) scaled to its bill's centre 30; TL-NP's 2, 12, 22
    assert np.allclose([list(t.y) for t in stack],
                       [[30 / 33, 2.0], [330 / 33, 12.0], [630 / 33, 22.0]])
    assert [t.marker.color for t in stack] == list(allpass.PROVIDER_COLOURS.values())
    assert list(fig.data[0].x) == ["Allpass (limited)", "TL-NP (unlimited)"]
    assert fig.layout.barmode == "stack"
    assert fig.layout.yaxis.title.text == "bill (USD), geometric mean over seeds"
    _assert_interval(fig, [np.array([10.0, 90.0]), np.array([36.0, 36.0])], "bill (USD)")


def _bars(fig) -> list:
    return [t for t in fig.data if t.type == "bar"]


def _assert_interval(fig, per_seed: list, what: str) -> None:
    """``fig`` draws, over each stacked bar, the centre of its total and an error bar to
    its 95 % interval over seeds (log scale: the geometric mean, asymmetric), the legend
    saying so; a figure without it fails."""
    marks = [t for t in fig.data if t.error_y is not None and t.error_y.array is not None]
    assert len(marks) == 1, "a mean over seeds without its error bars"
    mark = marks[0]
    assert mark.name == f"{what}: 95 % interval over 2 seeds"
    est = [estimate(v, RATIO) for v in per_seed]
    assert list(mark.y) == pytest.approx([e.mean for e in est])
    assert list(mark.y) == pytest.approx(np.sum([list(t.y) for t in _bars(fig)], axis=0))
    assert list(mark.error_y.array) == pytest.approx([e.high - e.mean for e in est])
    assert list(mark.error_y.arrayminus) == pytest.approx([e.mean - e.low for e in est])
    assert mark.error_y.array[0] > mark.error_y.arrayminus[0] > 0  # the log scale's
    assert mark.error_y.array[1] == 0.0  # the same value on every seed: no spread
    assert mark.error_y.visible


def test_the_interval_check_fails_on_bars_without_error_bars():
    data = _Metrics({("wait_min", s, a): [2.0, 8.0] for a, s in ROWS}
                    | {(m, s, a): [1.0, 1.0] for m in ("queue_min", "overhead_min")
                       for a, s in ROWS})
    fig = allpass.wait_bars(data, ROWS, NAMES)
    fig.data = _bars(fig)  # as the page drew it before: the stacks alone
    with pytest.raises(AssertionError, match="without its error bars"):
        _assert_interval(fig, [np.array([2.0, 8.0])] * 2, "wait per job")


def test_the_preemptive_policies_are_dashed_so_a_twin_they_lie_on_still_shows():
    jct = {"tl_np": np.array([1.0, 2.0]), "tl_p": np.array([1.0, 2.0])}
    fig = allpass.jct_cdf(_Runs(jct), "limited", list(jct), {"tl_np": "TL-NP",
                                                              "tl_p": "TL-P"})
    assert [t.line.dash for t in fig.data] == ["solid", "dash"]


def test_price_timeline_draws_the_marketplace_leases_by_start_and_their_average():
    import xarray as xr

    result = xr.Dataset({
        "lease_provider": ("lease", ["vast", "modal", "vast", "vast"]),
        "lease_start_s": ("lease", [7200.0, 0.0, 3600.0, 10800.0]),
        "lease_end_s": ("lease", [10800.0, 3600.0, 7200.0, 12600.0]),
        "lease_price_per_h": ("lease", [2.0, 9.0, 1.0, 4.0])})
    fig = allpass.price_timeline(result, lambda_price=2.5, modal_price=6.0)
    points, average = fig.data
    assert list(points.x) == [1.0, 2.0, 3.0] and list(points.y) == [1.0, 2.0, 4.0]  # vast
    # weighted by lease time: 1 h at 1, then 1 h at 2, then 0.5 h at 4
    assert list(average.y) == pytest.approx([1.0, 1.5, 2.0])
    assert [s.y0 for s in fig.layout.shapes] == [2.5, 6.0]
    assert [a.text for a in fig.layout.annotations] == ["Lambda", "Modal"]
    assert fig.layout.yaxis.title.text == "$/GPU-h"


def test_the_timeline_titles_every_axis():
    import xarray as xr

    tick = np.arange(4) * 600.0
    run = xr.Dataset({"tick_s": ("tick", tick), "queue": ("tick", [0, 2, 1, 0]),
                      "workers": ("tick", [0, 1, 2, 1]), "serverless": ("tick", [1, 1, 0, 0]),
                      "F_s": ("tick", [60.0, 120.0, 120.0, 60.0]),
                      "p": ("tick", [0.5, 1.5, np.inf, 0.2])})
    fig = allpass.timeline([("Allpass", run), ("TL-NP", run.assign(F_s=run["F_s"] * np.nan))])
    # the runs' rows count jobs or workers; the last row holds F (s) and, on the right, p
    axes = sorted((n for n in fig.layout if n.startswith("yaxis")),
                  key=lambda n: int(n[len("yaxis"):] or 1))
    titles = [fig.layout[n].title.text for n in axes]
    assert titles == ["jobs or workers", "jobs or workers", "F (s)", "p"]
