"""lorasched.plotting.measured: the figure of the measured tables beside the published
numbers draws what the tables hold."""

from __future__ import annotations

import pandas as pd
import pytest

import lorasched
from lorasched.plotting import LEGEND_BELOW
from lorasched.plotting import measured as plots
from lorasched.profiling import compare


@pytest.fixture(scope="module")
def frames():
    tables = compare.shipped("H200")
    return (compare.against_published(tables["gpt2-xl"]),
            pd.concat([compare.adapter_scaling(t) for t in tables.values()],
                      ignore_index=True))


def test_each_line_is_one_number_of_adapters_at_rank_16(frames):
    ratios, gains = frames
    fig = plots.speed_and_gain(ratios, gains, gpu="H200", published="A100")
    lines = {t.name: t for t in fig.data if t.mode == "lines+markers"}
    assert set(lines) == {"1 adapter", "2 adapters", "4 adapters", "8 adapters"}
    want = ratios[(ratios["rank"] == 16) & (ratios["adapters"] == 4)].sort_values(
        "micro_batch")["speed ratio"]
    assert list(lines["4 adapters"].y) == pytest.approx(list(want))
    points = [t for t in fig.data if t.mode == "markers"]
    assert sum(len(t.y) for t in points) == len(gains)


def test_a_frame_without_its_columns_is_refused(frames):
    ratios, gains = frames
    with pytest.raises(lorasched.InputError, match="gains must have the columns"):
        plots.speed_and_gain(ratios, gains.drop(columns="seq_len"), gpu="H200",
                             published="A100")


def test_the_legend_lies_below_the_rotated_labels_clear_of_the_panel_titles(frames):
    ratios, gains = frames
    fig = plots.speed_and_gain(ratios, gains, gpu="H200", published="A100")
    assert all(fig.layout.legend[k] == v for k, v in LEGEND_BELOW.items())
