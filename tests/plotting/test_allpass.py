"""lorasched.plotting.allpass (and the other log-axis plots): a labelled line on a log axis
is labelled where it is drawn, so no label stretches the axis past the data."""

from __future__ import annotations

import numpy as np
import pandas as pd

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
