"""Allpass's readings page (lorasched.figures.allpass.readings.Readings) at the small size: the
units slip against the default, the queue-all oracle's floor and the overlap of demoted jobs
against the cap, computed from the shared batch of runs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import lorasched.figures.allpass as figures
import lorasched.present.allpass as plots
from lorasched.allpass.diagnose import demoted_overlap
from lorasched.figures.allpass.common import BEYOND_TEXT, READINGS, SETUPS


@pytest.fixture(scope="module")
def page():
    fig = figures.figure("readings")
    return fig, fig.data("small", seeds=1, store=False)


def test_the_batch_runs_the_slip_and_the_oracle_in_both_setups(page):
    _, data = page
    assert set(BEYOND_TEXT) == {"allpass_slip", "queue_all_oracle"}
    assert BEYOND_TEXT["allpass_slip"][:2] == ("allpass", {"units": "slip"})
    for setup in SETUPS:
        for key in BEYOND_TEXT:
            assert (setup, key, 1) in data.results
    assert json.loads(data.run("limited", "allpass_slip").attrs["options"]) == {"units": "slip"}
    # the textual readings stay under the cap only, and the page's table keeps them alone
    assert ("unlimited", "allpass_literal", 1) not in data.results
    assert figures.figure("readings").ORDER == ["allpass", *READINGS]


def test_units_table_puts_the_slip_beside_the_default_and_modal(page):
    fig, data = page
    table = fig.units_table(data)
    assert list(table["setup"]) == ["limited"] * 3 + ["unlimited"] * 3
    assert list(table["policy"][:3]) == ["Allpass", "Allpass (units slip)", "Modal"]
    slip = data.run("limited", "allpass_slip")
    cell = table.loc[1, "highest F (s)"]
    assert cell.startswith(f"{np.nanmax(slip['F_s'].values):.0f} ")
    assert table.loc[2, "highest F (s)"] == ""                   # Modal has no threshold
    runs = fig.units_runs(data)
    assert [r for _, r in runs] == [data.run("limited", "allpass"), slip]
    figure = plots.threshold_pressure(runs)
    assert len(figure.data) == 4
    p = np.asarray(figure.data[3].y, dtype=float)                 # p of the slip run
    assert np.all(np.isnan(p) | (p > 0)) and not np.isinf(p).any()


def test_floor_and_overlap_tables(page):
    fig, data = page
    floor = fig.floor_table(data)
    assert list(zip(floor["policy"], floor["setup"], strict=True)) == [
        ("Allpass", "limited"), ("Allpass", "unlimited"), ("Queue-all (oracle)", "limited"),
        ("Queue-all (oracle)", "unlimited")]
    ov = fig.overlap(data)
    oracle = data.run("unlimited", "queue_all_oracle", 1)
    assert ov.loc[0, "demoted jobs at once (oracle, F0)"] == demoted_overlap(oracle)
    assert ov.loc[0, "cap"] == SETUPS["limited"]
    assert ov.loc[0, "above the cap"] == (demoted_overlap(oracle) > SETUPS["limited"])
    # counts of demoted jobs: never more than were demoted
    demoted = int((oracle["demotions"].values > 0).sum())
    assert 0 < ov.loc[0, "demoted jobs at once (oracle, F0)"] <= demoted
    assert ov.loc[0, "oracle's peak workers, no cap"] == int(oracle["workers"].max())


def test_findings_name_the_slip_and_the_floor_from_the_data(page, monkeypatch):
    fig, data = page
    text = str(fig.findings(data))
    q = data.m("queue_min", "limited", "allpass_slip")[0]
    assert "The units slip, a hypothesis about the authors' code" in text
    assert f"to {q:.1f} min" in text
    assert f"{data.m('queue_min', 'unlimited', 'queue_all_oracle')[0]:.2f} min without" in text
    # the wording follows the overlap count against the cap
    over = pd.DataFrame({"seed": [1], "demoted jobs at once (oracle, F0)": [64],
                         "demoted jobs at once (Allpass default)": [62], "cap": [30],
                         "above the cap": [True], "oracle's peak workers, no cap": [64]})
    monkeypatch.setattr(type(fig), "overlap", lambda self, d: over)
    assert "1 of 1 seeds exceed it" in str(fig.findings(data))
    under = over.assign(**{"demoted jobs at once (oracle, F0)": [8], "above the cap": [False]})
    monkeypatch.setattr(type(fig), "overlap", lambda self, d: under)
    assert "no seed exceeds it" in str(fig.findings(data))


def test_the_exported_allpass_sweep_gives_the_pages_metrics_cell_by_cell(page, tmp_path):
    """`lorasched export-sweeps` writes allpass_full.toml from paper_sweep; run as a sweep
    (here at the small size, one seed, two policies) it gives the pages' numbers."""
    import dataclasses

    from lorasched.experiments import run_sweep
    from lorasched.figures.allpass.common import paper_sweep

    full = paper_sweep("full")
    assert full.name == "allpass_full" and full.system == "allpass" and full.seeds == (1, 2, 3)
    assert full.base == {"jobs": 200} and set(full.axes["setup"]) == set(SETUPS)
    sweep = dataclasses.replace(paper_sweep("small", seeds=1), algorithms=("allpass", "hpa"))
    got = run_sweep(sweep, store=tmp_path, serial=True).dataset
    pages = page[1].metrics  # the pages' batch, small size, seed 1
    for setup in SETUPS:
        for alg in ("allpass", "hpa"):
            for metric in ("avg_jct_min", "cost_usd", "max_workers"):
                assert float(got[metric].sel(setup=setup, algorithm=alg, seed=1)) == float(
                    pages[metric].sel(setup=setup, algorithm=alg, seed=1)), (setup, alg,
                                                                              metric)
