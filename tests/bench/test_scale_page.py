"""The speed page (``notebooks/scale_bench.ipynb``): ``lorasched bench scale``'s JSON read
back as its table, plots and findings, every number from the JSON."""

from __future__ import annotations

import json

import pytest

from lorasched.bench import scale as bench_scale
from lorasched.bench import scale_page as page

#: the day the series' and provider's rows take their slots from (tiny: 12 slots)
SPECS = {"day10x": {"kind": "day", "nodes": 3, "load": bench_scale.SERIES_LOAD * 3,
                    "algorithm": "pdftsp", "slots": 12}}


@pytest.fixture()
def in_process(monkeypatch):
    """Measure in this process (test_scale.py runs the fresh process)."""
    monkeypatch.setattr(bench_scale, "measure", bench_scale._child)


def _figures(bound_s, day_s, peak, dec_us, titan_s):
    day = {"nodes": 2000, "load": 800.0, "algorithm": "pdftsp", "tasks": 100_000,
           "seconds": day_s, "peak_gb": peak, "decision_median_us": dec_us}
    return {"machine": {"cpu": "test", "cores": 2, "memory_gb": 8.0, "python": "3.11",
                        "platform": "linux"}, "date": "2026-11-23 08:00", "code": "abc",
            "rows": {"bound": {"seconds": bound_s, "bound": 14069.6, "nodes": 100,
                               "load": "high"},
                     "day10x": day,
                     "decision": {"100": {"decision_median_us": 30.0}, "2000": day},
                     "titan": {"seconds": titan_s, "slots_hit_limit": 140, "welfare": 5e3,
                               "nodes": 100, "load": "high"},
                     "series": [dict(day, algorithm=a) for a in ("pdftsp", "eft", "ntm")]}}


def test_findings_table_and_plot_say_what_was_measured():
    before = _figures(494.0, 128.0, 5.9, 438.0, 1896.0)
    now = _figures(100.0, 70.0, 2.4, 440.0, 1896.0)
    text = page.findings(now, before)
    assert "**offline_upper_bound, K=100 high**: 100 s against a goal of 120 s: goal met, " \
           "4.9x faster than before (494 s)" in text
    assert "**peak memory**: 2.4 GB against a goal of 1 GB: goal NOT met, before 5.9 GB" in text
    table = page.table(now, before)
    assert list(table.columns) == ["what", "before", "now", "unit", "goal", "met"]
    row = table.set_index("what").loc["Titan day, K=100 high, default limits"]
    assert (row["before"], row["now"], row["goal"], row["met"]) == ("1896", "1896", "300", "no")
    assert "about the same as before (1896 s)" in text
    assert "pdFTSP decision median, K=2000**: 440 us against a goal of 100 us: goal NOT met, " \
           "about the same as before" in text
    fig = page.series_figure(now, before)
    names = {t.name for t in fig.data}
    assert names == {"pdFTSP (now)", "EFT (now)", "NTM (now)", "pdFTSP (before)"}
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis2.type == "log"
    assert "2 cores" in page.describe(now)


def test_decision_findings_name_the_measured_numbers(in_process, tmp_path):
    figures = bench_scale.run(("series", "provider"), specs=SPECS, series_nodes=(100, 200),
                              provider_nodes=(300,), progress=lambda s: None)
    text = page.decision_findings(figures, figures)
    points = bench_scale.decision_points(figures)
    big = figures["rows"]["provider"][0]
    assert "at K = 100 and" in text and f"at K = {points[-1][0]:,}" in text
    assert f"slope of {bench_scale.decision_slope(figures):.2f}" in text
    assert f"K = 300 with {big['tasks']:,} tasks" in text
    assert "With the scan" in text


def test_book_data_names_the_checkouts_json_and_load_reads_it(tmp_path):
    path = page.book_data()
    assert path.name == "bench_scale.json" and path.parent.name == "data"
    assert path.parent.parent.name == "notebooks" and path.is_file()
    assert page.book_data("titan_mip.json") == path.with_name("titan_mip.json")
    figures = _figures(100.0, 70.0, 2.4, 440.0, 1896.0)
    (tmp_path / "bench.json").write_text(json.dumps(figures))
    assert page.load(tmp_path / "bench.json") == figures


def test_describe_says_where_when_and_by_which_command():
    figures = _figures(100.0, 70.0, 2.4, 440.0, 1896.0)
    text = page.describe(figures)
    assert text.startswith("measured 2026-11-23 08:00 by `lorasched bench scale` (code abc)")
    assert "on test, 2 cores, 8.0 GB, Python 3.11, linux" in text
    noted = page.describe({**figures, "command": "lorasched bench titan",
                           "notes": {"root": "kept from before"}})
    assert "by `lorasched bench titan`" in noted and "(root: kept from before)" in noted


def _decisions(us_by_k: dict) -> dict:
    return {**_figures(100.0, 70.0, 2.4, 440.0, 1896.0),
            "rows": {"series": [{"nodes": k, "algorithm": "pdftsp", "decision_median_us": us}
                                for k, us in us_by_k.items()]}}


def test_decision_figure_draws_now_and_before_with_their_slopes():
    now, before = _decisions({100: 10.0, 400: 20.0}), _decisions({100: 10.0, 400: 40.0})
    fig = page.decision_figure(now, before)
    assert [t.name for t in fig.data] == [
        "pdFTSP (now, slope 0.50 for K = 100-2,000)",
        "pdFTSP (before, slope 1.00 for K = 100-2,000)"]
    assert [t.line.dash for t in fig.data] == ["solid", "dash"]
    assert list(fig.data[0].x) == [100, 400] and list(fig.data[1].y) == [10.0, 40.0]
    assert fig.layout.xaxis.type == fig.layout.yaxis.type == "log"
    assert fig.layout.yaxis.title.text == "median decision time (us)"
    # no baseline, and a series of one point: no slope to name
    alone = page.decision_figure(_decisions({100: 10.0}))
    assert [t.name for t in alone.data] == ["pdFTSP (now)"]
    assert page.decision_findings({"rows": {}}) == "No pdFTSP series was measured."
