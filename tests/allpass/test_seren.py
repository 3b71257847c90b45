"""Seren's published Fig. 1 shares and each substitute's fit to them
(lorasched.allpass.seren)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lorasched.allpass.seren import (
    CANDIDATES,
    SEREN_FIG1,
    Published,
    best_fitting,
    candidate_shares,
    mixture_shares,
    published_table,
    seren_distance,
    seren_fit,
    share_distance,
)
from lorasched.allpass.workload import (
    HEADLINE_SOURCE,
    MIXTURE,
    SOURCES,
    fig1_shares,
    mixture_stats,
)
from lorasched.model.errors import InputError
from lorasched.model.libm import libm_exp

SEREN = {p.key: p.share for p in SEREN_FIG1}
BOOK = Path(__file__).resolve().parents[2] / "book"


def test_the_published_shares_are_fig1s_with_their_source():
    short, top = SEREN_FIG1
    assert (short.key, short.share, short.kind) == ("share_within_10min", 0.83, "point")
    assert (top.key, top.share, top.kind) == ("top10_time_share", 0.84, "lower bound")
    assert all("sec. 2.2" in p.source for p in SEREN_FIG1)
    table = published_table()
    assert list(table["Seren (%)"]) == [83.0, 84.0]
    assert table["source"].str.len().min() > 0


def test_identical_shares_are_at_distance_zero():
    assert seren_distance(SEREN) == {"share_within_10min": 0.0, "top10_time_share": 0.0,
                                     "overall": 0.0}
    for p in SEREN_FIG1:
        assert share_distance(p.share, p) == 0.0


def test_a_point_counts_both_sides_a_bound_only_a_shortfall():
    short, top = SEREN_FIG1
    # total variation of (s, 1 - s) against (p, 1 - p): |s - p|
    assert share_distance(0.93, short) == pytest.approx(0.10)
    assert share_distance(0.73, short) == pytest.approx(0.10)
    assert share_distance(0.99, top) == 0.0          # above "over 84 %": admitted
    assert share_distance(0.74, top) == pytest.approx(0.10)
    d = seren_distance({"share_within_10min": 0.73, "top10_time_share": 0.80})
    assert d["share_within_10min"] == pytest.approx(0.10)
    assert d["top10_time_share"] == pytest.approx(0.04)
    assert d["overall"] == pytest.approx(0.10)        # the worst share, not a sum


@pytest.mark.parametrize("shares", [
    {"share_within_10min": 1.2, "top10_time_share": 0.9},
    {"share_within_10min": -0.1, "top10_time_share": 0.9},
    {"share_within_10min": float("nan"), "top10_time_share": 0.9},
    {"share_within_10min": True, "top10_time_share": 0.9},
    {"share_within_10min": "0.8", "top10_time_share": 0.9},
    {"share_within_10min": 0.8},
    [0.8, 0.9],
])
def test_a_broken_input_is_refused(shares):
    with pytest.raises(InputError):
        seren_distance(shares)


def test_share_distance_refuses_a_broken_published_share():
    with pytest.raises(InputError):
        share_distance(0.5, Published("x", "x", 0.5, "upper bound", "nowhere"))
    with pytest.raises(InputError):
        share_distance(0.5, 0.83)
    with pytest.raises(InputError):
        share_distance(1.5, SEREN_FIG1[0])


def test_the_mixtures_shares_are_its_distributions():
    """From its distribution: a large sample gives the same shares, and its ten-minute
    share is the one mixture_stats gives."""
    m = mixture_shares()
    assert m["share_within_10min"] == mixture_stats()["share_within_10min"]
    rng = np.random.default_rng(7)
    n = 400_000
    short = rng.random(n) < MIXTURE["weight"]
    z = rng.standard_normal(n)
    d = libm_exp(np.where(short, MIXTURE["mu_short"] + MIXTURE["sigma_short"] * z,
                          MIXTURE["mu_long"] + MIXTURE["sigma_long"] * z))
    sample = fig1_shares(d)
    assert m["share_within_10min"] == pytest.approx(sample["share_within_10min"], abs=0.003)
    assert m["top10_time_share"] == pytest.approx(sample["top10_time_share"], abs=0.01)
    # one log-normal: the share above its P90 has a closed form
    one = {"weight": 1.0, "mu_short": 0.0, "sigma_short": 1.0, "mu_long": 5.0,
           "sigma_long": 1.0}
    z90 = 1.2815515655446004
    assert mixture_shares(one)["top10_time_share"] == pytest.approx(
        0.5 * (1 + math.erf((1.0 - z90) / math.sqrt(2))), abs=1e-6)


def test_a_traces_shares_are_over_its_rows_with_a_runtime():
    from lorasched.model.traces import read_trace
    d = read_trace("acme").duration_s.astype(float)
    assert candidate_shares("acme") == fig1_shares(d[d > 0])
    with pytest.raises(InputError):
        candidate_shares("seren")


def test_the_fit_measures_every_candidate_best_first():
    fit = seren_fit()
    assert set(fit["candidate"]) == set(CANDIDATES)
    assert fit["overall"].is_monotonic_increasing
    for r in fit.to_dict("records"):
        assert r["overall"] == max(r[f"{p.key}_distance"] for p in SEREN_FIG1)
        assert r["overall"] == seren_distance(candidate_shares(r["candidate"]))["overall"]
        assert r["source"] == (r["candidate"] in SOURCES)
    with pytest.raises(InputError):
        seren_fit([])


def _frame(rows):
    return pd.DataFrame([{"candidate": c, "source": s, "overall": o} for c, s, o in rows])


def test_best_fitting_takes_the_closest_source_only():
    assert best_fitting(_frame([("helios", True, 0.2), ("mixture", True, 0.1)])) == "mixture"
    assert best_fitting(_frame([("helios", True, 0.1), ("mixture", True, 0.2)])) == "helios"
    # a closer trace the workload cannot run is not chosen
    assert best_fitting(_frame([("acme", False, 0.0), ("helios", True, 0.2),
                                ("mixture", True, 0.3)])) == "helios"
    with pytest.raises(InputError):
        best_fitting(_frame([("acme", False, 0.0)]))


def test_the_headline_is_the_best_fitting_source():
    """The headline workload cannot drift from the measurement that chose it."""
    assert HEADLINE_SOURCE == best_fitting()
    assert HEADLINE_SOURCE == best_fitting(seren_fit())


def test_the_model_page_gives_the_fit_the_function_measures():
    text = (BOOK / "allpass_model.md").read_text()
    para = re.search(r"\*\*Which source the headline runs.*?(?:\n\n|\Z)", text, re.S)
    assert para, "the model page lacks its paragraph on the headline's fit"
    said = para.group(0)
    fit = seren_fit().set_index("candidate")
    for name in CANDIDATES:
        assert f"{100 * fit.loc[name, 'overall']:.1f}" in said, name
    for name in SOURCES:
        assert f"{100 * fit.loc[name, 'share_within_10min']:.1f} %" in said, name
    assert f'`HEADLINE_SOURCE = "{HEADLINE_SOURCE}"`' in said
