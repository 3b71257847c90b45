"""Allpass's pages (lorasched.figures.allpass) at the small size: the claims judged on per-seed
estimates with a measured why, the summary of every claim with its page, Fig. 1 judged on
Kalos, one judgement of the cap claim on two pages, and the readings page (the units slip,
the queue-all oracle's floor, the overlap of demoted jobs against the cap)."""

from __future__ import annotations

import copy
import html
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import lorasched.figures.allpass as figures
import lorasched.plotting.allpass as plots
from lorasched import systems
from lorasched.allpass.diagnostics import demoted_overlap
from lorasched.figures import prose
from lorasched.figures.allpass import fig01 as fig01_module
from lorasched.figures.allpass.common import (
    BEYOND_TEXT,
    READINGS,
    SETUPS,
    claim,
    explain,
    row_says,
)
from lorasched.figures.causes import SEPARATOR
from lorasched.figures.numbers import minutes, num
from lorasched.figures.summary import tidy
from lorasched.figures.verdicts import (
    COMPARED,
    CONSISTENT,
    CONTRADICTED,
    INCONCLUSIVE,
    MAGNITUDE_OFF,
    NOT_EXPLAINED,
    NOT_RUN,
    NOT_TESTABLE,
    REPRODUCED,
    VERDICTS,
    WILSON,
    Estimate,
    estimate,
)
from lorasched.model.errors import InputError
from lorasched.model.traces import read_trace

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


@pytest.fixture(scope="module")
def page():
    """The readings page on seed 1, from the default store, which the notebooks fill (in
    `make test` read, not computed again)."""
    fig = figures.figure("readings")
    return fig, fig.data("small", seeds=1)


@pytest.mark.slow
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
    assert cell == num(np.nanmax(slip["F_s"].values))           # one seed: no spread
    assert table.loc[2, "highest F (s)"] == ""                   # Modal has no threshold
    runs = fig.units_runs(data)
    assert [r for _, r in runs] == [data.run("limited", "allpass"), slip]
    figure = plots.threshold_pressure(runs)
    assert len(figure.data) == 4
    p = np.asarray(figure.data[3].y, dtype=float)                 # p of the slip run
    assert np.all(np.isnan(p) | (p > 0)) and not np.isinf(p).any()


@pytest.mark.slow
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
    q = data.m("queue_min", "limited", "allpass_slip")
    assert "The *units slip* is a hypothesis about the authors' code" in text
    assert f"to {minutes(q)}" in text
    assert f"{minutes(data.m('queue_min', 'unlimited', 'queue_all_oracle'))} without" in text
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
    from lorasched.figures.allpass.declared import paper_sweep

    full = paper_sweep("full")
    assert full.name == "allpass_full" and full.system == "allpass"
    assert full.seeds == tuple(range(1, 21))
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


# --------------------------------------------------------------------------- the verdicts
def test_summary_holds_every_claim_of_every_page_with_a_verdict_and_a_why(page):
    table = figures.summary("small", seeds=1)  # the default store, which the notebooks fill
    for column in ("figure", "claim", "setup", "trace", "paper", "ours", "verdict", "why",
                   "page"):
        assert column in table.columns
    assert set(table["page"]) == {f.page for f in figures.FIGURES.values()}
    for name in set(table["page"]):
        assert (NOTEBOOKS / f"{name}.ipynb").is_file(), name
    assert set(table["verdict"]) <= set(VERDICTS)               # no sign-only verdicts
    assert not hasattr(figures, "summary_findings")
    off = table[table["verdict"].isin(COMPARED) & (table["verdict"] != REPRODUCED)]
    assert (off["why"] != NOT_EXPLAINED).all(), off[["figure", "claim"]]
    assert off["why"].map(lambda w: bool(re.search(r"\d", w))).all()   # a measured number
    fitted = table["scope"].isin(["calibration check", "not independent"])
    assert (table.loc[(table["verdict"] == REPRODUCED) & ~fitted, "why"] == "").all()
    # a claim a fit decides says what was fitted, reproduced or not
    assert table.loc[fitted, "why"].str.contains("counted apart").all() and fitted.sum() == 7
    common = tidy("allpass", table)                              # the cross-system summary
    assert len(common) == len(table) and set(common["system"]) == {"Allpass"}


def test_explain_says_what_an_inconclusive_interval_holds():
    noisy = estimate([1.0, -1.0, 2.0])
    assert explain(INCONCLUSIVE, noisy, "The cause.").startswith(
        "The 95 % interval over 3 seeds")
    assert explain(INCONCLUSIVE, noisy, "The cause.").endswith("The cause.")
    flat = estimate([0.0, 0.0, 0.0])
    assert explain(INCONCLUSIVE, flat, "Nothing moves.").startswith("Every seed gives 0")
    assert explain(MAGNITUDE_OFF, noisy, "The cause.") == "The cause."
    row = claim("a claim", "limited", "1", Estimate.point(1.0), REPRODUCED, "unused")
    assert row["why"] == "" and row["ours"] == "1"


def test_fig01_judges_the_short_jobs_on_kalos_and_shows_helios_as_context():
    fig = figures.figure("fig01")
    data = fig.data()
    rows = fig.claims(data)
    kalos = rows[rows["trace"] == fig01_module.KALOS].set_index("claim")
    context = rows[rows["trace"] == fig01_module.HEADLINE]   # the headline workload's
    assert len(context) == 2 and set(context["verdict"]) == {NOT_RUN}
    d = read_trace("acme").duration_s.astype(float)
    short_row = kalos.loc["more than 80 % of jobs last at most 10 min"]
    # the public subset keeps completed long jobs only: it cannot test a claim about the
    # short ones, and says so with the subset's share and the paper's own Table 1
    assert short_row["verdict"] == NOT_TESTABLE
    assert f"keeps {num(d.size)} of the 62,413" in short_row["why"]
    assert short_row["ours"].endswith("on the subset")
    assert "likely holds" not in short_row["why"]


def test_fig01_gives_each_sources_fit_to_seren_and_the_headline_it_chose():
    """The table's distances and the prose's choice are the fit's
    (lorasched.allpass.seren.seren_fit), the headline's rows its workload's."""
    from lorasched.allpass.seren import CANDIDATES, best_fitting, seren_fit
    from lorasched.allpass.workload import HEADLINE_SOURCE
    fig = figures.figure("fig01")
    data = fig.data()
    fit = seren_fit().set_index("candidate")["overall"]
    table = fig.table(data).set_index("trace")["off Seren's Fig. 1"]
    for label, name in ((fig01_module.HELIOS, "helios"), (fig01_module.MIX, "mixture"),
                        (fig01_module.KALOS, "acme")):
        assert table[label] == fig01_module._points(fit[name])
    assert fig01_module.HEADLINE == fig01_module.LABELS[HEADLINE_SOURCE]
    assert "lorasched's workload" in fig01_module.HEADLINE
    text = str(fig.findings(data))
    best = CANDIDATES[best_fitting()]
    assert (f"The headline runs the closer source, {best}" in text) == (
        best_fitting() == HEADLINE_SOURCE)
    quoted = fig.quoted(data).set_index("quantity")["value"]
    for name in CANDIDATES:
        assert quoted[f"{CANDIDATES[name]}: distance to Seren's Fig. 1, points"] == (
            pytest.approx(100 * fit[name]))


def _with_peaks(data, peak: float):
    out = copy.copy(data)
    out.__dict__.pop("_memo", None)                             # its own measurements
    out.metrics = data.metrics.copy(deep=True)
    out.metrics["max_workers"].loc[dict(setup="limited", algorithm="allpass")] = peak
    return out


def test_the_cap_claim_is_one_row_judged_run_by_run_under_the_runs_cap(page):
    """Sec. 5.2's "never reaches the upper capacity bound" and sec. 5.5's "up to 27
    serverful workers, below the limit of 30" are one claim: one row (Fig. 7's), judged on
    every run against the runs' own cap; Fig. 10 has none."""
    _, data = page
    cap = SETUPS["limited"]

    def cap_row(d):
        seven = figures.figure("fig07").claims(d)
        ten = figures.figure("fig10").claims(d)
        assert not ten["claim"].str.contains("peak serverful workers, below").any()
        return seven[seven["claim"].str.startswith("Allpass never reaches")].iloc[0]

    below = cap_row(_with_peaks(data, cap - 11))
    assert below["verdict"] == REPRODUCED                      # a direction: below the cap
    assert below["paper"] == f"below {cap} (sec. 5.5: a peak of 27)"
    assert below["sentence"] == "§5.2f"
    above = cap_row(_with_peaks(data, cap + 1))
    assert above["verdict"] == CONTRADICTED
    assert "1 of 1 seeds reach the cap" in above["why"]
    # "never reaches" holds of every run: a run at the cap breaks it (checked run by run)
    assert cap_row(_with_peaks(data, cap))["verdict"] == CONTRADICTED
    # under another cap (a sensitivity's), the claim is judged against that cap
    eight = _with_peaks(data, 6)
    eight.results = {k: (v.copy().assign_attrs(capacity=8) if k[0] == "limited" else v)
                     for k, v in data.results.items()}
    assert eight.capacity("limited") == 8 and data.capacity("limited") == cap
    seven8 = cap_row(eight)
    assert seven8["paper"].startswith("below 8") and seven8["ours"].endswith("cap of 8")
    assert seven8["claim"] == cap_row(data)["claim"]  # one claim under every cap
    assert seven8["verdict"] == REPRODUCED  # 6 < 8: below the cap
    assert cap_row(_with_peaks(eight, 9))["verdict"] == CONTRADICTED  # above 8


def test_money_in_prose_is_escaped_from_mathjax(page):
    _, data = page
    text = figures.figure("fig09").findings(data)
    assert "$" in text and "\\$" not in text                    # plain in the string
    assert "\\$" in text._repr_markdown_()                       # escaped when rendered


#: the pages whose findings say their claims (the readings page is not among them)
SAYING = ["fig01", "fig06", "fig07", "fig08", "fig09", "fig10", "fig11", "fig12"]


def _said(fig, data) -> tuple[str, dict]:
    """A page's findings and its claims table's verdicts, ``{(claim, setup): verdict}``."""
    table = fig.claims(data)
    verdicts = {(r["claim"], str(r[fig.variant_column])): r["verdict"]
                for r in table.to_dict("records")}
    return str(fig.findings(data)), verdicts


@pytest.mark.parametrize("key", SAYING)
def test_findings_say_each_claim_with_its_claims_tables_verdict(page, key):
    fig = figures.figure(key)
    data = fig.data() if key == "fig01" else page[1]
    text, verdicts = _said(fig, data)
    spans = re.findall(r'data-claim="([^"]*)" data-verdict="([^"]*)"', text)
    assert spans, f"{key}'s findings say none of its claims"
    assert prose.check_page(text, verdicts) == []
    # every marked sentence names a row of the table, so each is compared
    keys = {tuple(html.unescape(c).split("|", 1)) for c, _ in spans}
    assert keys <= set(verdicts)
    # a table whose verdict differs from the sentence's is caught
    claim_key = sorted(keys)[0]
    other = CONTRADICTED if verdicts[claim_key] != CONTRADICTED else INCONCLUSIVE
    found = prose.check_page(text, {**verdicts, claim_key: other})
    assert any("the claims table says" in p for p in found)


def test_row_says_has_words_for_every_verdict_a_row_can_get_and_refuses_wrong_ones():
    est = estimate([1.0, 2.0, 3.0])
    for verdict in (REPRODUCED, CONSISTENT, MAGNITUDE_OFF, CONTRADICTED, INCONCLUSIVE,
                    NOT_TESTABLE):
        row = claim("a claim", "limited", "2", est, verdict, "why")
        out = row_says(row, "the quantity")
        assert prose.check_page(out, {("a claim", "limited"): verdict}) == []
    row = claim("a claim", "limited", "2", est, CONTRADICTED, "why")
    with pytest.raises(InputError):
        row_says(row, "", {CONTRADICTED: "it is 2, as the paper reports"})
    with pytest.raises(InputError):
        row_says({**row, "verdict": NOT_RUN}, "the quantity")


def test_an_allpass_page_runs_what_its_store_lacks_where_told(monkeypatch, tmp_path):
    """A page's missing runs go through the engine (serially at the small size unless
    told otherwise), with the executor options it is given."""
    from lorasched.figures.allpass import declared

    asked = []

    def batch(sweeps, store, **kw):
        asked.append(({s.name for s in sweeps}, store, kw))
        raise KeyboardInterrupt  # stop here: nothing to read

    monkeypatch.setattr(declared, "run_sweeps", batch)
    for given, serial in (({}, True), ({"workers": 2, "serial": False}, False),
                          ({"scheduler": "tcp://h:1", "serial": False}, False)):
        with pytest.raises(KeyboardInterrupt):
            figures.figure("fig06").data("small", seeds=1, store=tmp_path, **given)
        names, store, kw = asked[-1]
        assert store == tmp_path.resolve() and kw["serial"] is serial
        assert (kw["workers"], kw["scheduler"]) == (given.get("workers"),
                                                    given.get("scheduler"))
        assert names == {p.sweep.name for p in declared.parts("small", 1)}
        assert "allpass_small_reading_literal" in names


def test_the_runs_are_declared_sweeps_named_for_reports():
    """Every run a page reads is a kept sweep's cell; the CPU report names each part."""
    from lorasched.experiments import grid
    from lorasched.experiments.progress import policy
    from lorasched.figures.allpass import declared

    every = figures.sweeps("small")
    assert all(s.keep and s.system == "allpass" for s in every)
    labels = {policy(c.params) for s in every for c in grid.cells(s)}
    assert {"allpass", "hpa", "allpass [reading literal]", "allpass [look 2]",
            "tl_np [look 2]", "allpass [look 2 reading window]", "queue_all_oracle [beyond text]",
            "tl_p [counterfactual overhead]", "tl_p [look 2 counterfactual overhead]",
            "allpass [sensitivity window 10 min]", "sjf_p [sensitivity one trace]"} <= labels
    from lorasched.figures.allpass.alternative_readings import SCENARIOS
    # the Seren jobs' counterfactual, where the headline does not run them already
    assert ("modal [counterfactual seren jobs]" in labels) == ("seren_jobs" in SCENARIOS)
    looks = declared.look_parts("small")
    assert {s for p in looks for s in p.sweep.seeds} == set(range(6, 16))
    assert len(looks) == len(declared.parts("small"))
    # the pages' keys: a reading's runs are read under its own key
    reading = next(p for p in declared.parts("small") if p.sweep.label == "reading literal")
    assert reading.key("allpass") == "allpass_literal" and reading.key("hpa") == "hpa"
    # with seeds of the caller's choosing, no second look; a page's choice, its runs only
    assert not any("look" in s.label for s in figures.sweeps("small", 2))
    assert figures.sweeps("small", 2, ["fig01"]) == []
    assert [s.name for s in figures.sweeps("small", 2, ["fig07"])] == [
        p.sweep.name for p in declared.parts("small", 2)]


@pytest.mark.slow
def test_the_sensitivity_choice_column_is_the_headline():
    # the alternatives run on the headline's seeds, so that "lorasched's choice" column
    # gives the headline's own verdicts, claim by claim; an alternative that changes the
    # cap (4, the smallest) judges the same claims. The runs are the book's small ones
    # (the default store), which the notebooks' tests compute too.
    from lorasched.figures.allpass import sensitivity
    from lorasched.figures.allpass.common import AllpassData, runs
    from lorasched.figures.sensitivity import CHOICE

    page = sensitivity.Sensitivity()
    page.alternatives = [a for a in sensitivity.ALTERNATIVES if a.scenario.get("capacity") == 4]
    assert len(page.alternatives) == 1
    table = page.table(page.data("small"))
    headline = sensitivity.rows(AllpassData("small", runs("small")))
    assert table[["figure", "claim", "setting", CHOICE]].values.tolist() == [
        [r["figure"], r["claim"], r["setting"], r["verdict"]] for r in headline]
    assert page.seeds("small") == len(AllpassData("small", runs("small")).seeds)


def test_an_alternative_option_reaches_only_the_policies_it_means():
    # HPA's window_s is its downscale window, not the DBF window T: the DBF alternatives
    # leave it alone; Tiresias-L's limit reaches TL-P and TL-NP only
    from lorasched.figures.allpass import sensitivity
    from lorasched.figures.sensitivity import Alternative

    def changes(alt):
        return sensitivity.alternative_sweep("small", alt, [1]).sweep.options

    by_label = {a.label: changes(a) for a in sensitivity.ALTERNATIVES}
    assert by_label["DBF window T = 10 min"] == {"allpass": {"window_s": 600.0}}
    assert set(by_label["Tiresias-L's first queue limit = 10 min"]) == {"tl_p", "tl_np"}
    # without naming its policies, every policy with an option of that name takes it
    loose = Alternative("DBF window T", "10 min", options={"window_s": 600.0}, kind="setting")
    assert set(changes(loose)) == {"allpass", "hpa"}
    # every alternative has its short name in reports
    assert set(sensitivity.SHORT) == {a.label for a in sensitivity.ALTERNATIVES}


def test_tables_prose_and_bars_take_the_claims_centre_over_seeds():
    """One centre for one quantity: a positive metric's table cell and ``m`` give the
    geometric mean over seeds that its claim is judged on, with the claim's interval; a
    share the back-transformed mean of its logit; a seed at zero the arithmetic mean."""
    import xarray as xr

    from lorasched.figures.allpass.common import AllpassData
    from lorasched.figures.centres import fmt
    from lorasched.figures.verdicts import RATIO, SHARE

    data = object.__new__(AllpassData)
    values = {"queue_min": [1.0, 4.0, 16.0], "demoted_share": [0.2, 0.5, 0.8],
              "overhead_min": [0.0, 1.0, 2.0]}
    data.metrics = xr.Dataset({m: (("setup", "algorithm", "seed"), np.array([[v]]))
                               for m, v in values.items()},
                              coords={"setup": ["limited"], "algorithm": ["allpass"],
                                      "seed": [1, 2, 3]})
    q = estimate(values["queue_min"], RATIO)
    assert data.m("queue_min", "limited", "allpass") == pytest.approx(4.0)  # not 7
    assert fmt(values["queue_min"]) == f"{num(q.mean)} ({num(q.low)} to {num(q.high)})"
    share = estimate(100 * np.array(values["demoted_share"]), SHARE).mean / 100
    assert data.m("demoted_share", "limited", "allpass") == pytest.approx(share)
    assert data.m("overhead_min", "limited", "allpass") == pytest.approx(1.0)
    assert fmt([3.0, 3.0]) == "3" and fmt([np.nan]) == ""


def test_f_fall_over_rise_times_each_phase_from_its_own_run():
    """Fig. 10(d): F's mean rate of fall after its peak over its mean rate of rise to it;
    a run whose F never rises has none, one that never falls gives zero."""
    import xarray as xr

    fig = figures.figure("fig10")

    def run(F):
        F = np.asarray(F, float)
        return xr.Dataset({"F_s": ("tick", F), "tick_s": ("tick", 60.0 * np.arange(F.size))})

    # up 300 -> 600 in two ticks (150 s of F a tick), down 600 -> 450 in three (50 a tick)
    assert fig.fall_over_rise(run([300, 300, 450, 600, 550, 500, 450, 450])) == \
        pytest.approx(50 / 150)
    assert fig.fall_over_rise(run([300, 400, 500, 400, 300])) == pytest.approx(1.0)
    assert np.isnan(fig.fall_over_rise(run([300, 300, 300])))
    assert fig.fall_over_rise(run([300, 400, 500])) == 0.0


def test_all_percentiles_claim_compares_the_whole_cdf(page):
    """"Better performance across all percentiles": Allpass's JCT over the best baseline's
    at each percentile, its worst ratio per seed judged below one; a baseline faster at
    any percentile contradicts it."""
    _, data = page
    fig = figures.figure("fig06")

    def row(d):
        claims = fig.claims(d)
        return claims[claims["claim"] == fig.ALL_PERCENTILES].iloc[0]

    def scaled(factor):
        out = copy.copy(data)
        out.__dict__.pop("_memo", None)
        out.results = {k: (v.copy().assign(jct_s=v["jct_s"] * factor)
                           if k[:2] == ("limited", "allpass") else v)
                       for k, v in data.results.items()}
        return out

    ratios = fig.percentile_ratios(data)
    assert ratios.shape == (len(data.seeds), len(fig.PERCENTILES))
    assert row(scaled(1e-3))["verdict"] == REPRODUCED    # Allpass far ahead everywhere
    slow = row(scaled(1e3))
    assert slow["verdict"] == CONTRADICTED and "trails the best baseline" in slow["why"]
    assert slow["sentence"] == "§5.2a (all percentiles)"


def test_each_row_not_reproduced_is_judged_again_on_its_counterfactual(page):
    """The readings page's causes: Allpass's runs replaced, seed by seed, by those of the
    counterfactual a row's why implies (the queue-all oracle for its queueing), each row
    judged again with its effect; a row with no such run says so."""
    from lorasched.figures.allpass.alternative_readings import CAUSES, INTERVENTIONS

    _, data = page
    fig = figures.figure("readings")
    swapped = fig.counterfactual(data, "queue_all_oracle")
    for (setup, alg, seed), run in data.results.items():
        if alg == "queue_all_oracle":
            assert swapped.results[setup, "allpass", seed] is run
    assert data.results is not swapped.results
    table = fig.causes(data)
    assert set(table["verdict"]) <= set(COMPARED) - {REPRODUCED}
    labels = {i.shown for i in INTERVENTIONS.values()}
    runs_named = {x for c in table["counterfactual"] for x in c.split(SEPARATOR)}
    assert runs_named <= labels | {"none run here"}
    mapped = table[table["counterfactual"] != "none run here"]
    assert all(any(c.startswith(k) for k in CAUSES) for c in mapped["claim"])
    # a why naming two mechanisms runs both, in its order, one effect each
    two = mapped[mapped["counterfactual"].str.contains(SEPARATOR, regex=False)]
    for _, r in two.iterrows():
        assert len(r["effect"].split(SEPARATOR)) == 2 == len(r["judged there"].split(SEPARATOR))
    assert (mapped["effect"] != "").all() and (mapped["judged there"] != "").all()
    # Allpass's own serverful queue is the cause the queueing row names: removing it moves
    # the row towards the paper's 0.4 min
    queue = table[table["claim"] == "Allpass's queueing delay"]
    if len(queue):
        assert queue.iloc[0]["effect"].startswith(("part-way", "into the band", "past"))


def test_a_scenario_counterfactual_runs_every_policy_again(page):
    """The counterfactuals that change the scenario (the paper's Seren jobs, a cap where
    jobs queue) replace every policy's runs, seed by seed, with its runs there; the other
    readings' runs stay."""
    from lorasched.allpass.workload import HEADLINE_SOURCE
    from lorasched.figures.allpass.alternative_readings import SCENARIOS

    _, data = page
    fig = figures.figure("readings")
    # a headline that runs the Seren mixture already has no Seren counterfactual
    assert ("seren_jobs" in SCENARIOS) == (HEADLINE_SOURCE != "mixture")
    if "seren_jobs" not in SCENARIOS:
        assert data.results["limited", "allpass", data.seeds[0]].attrs["source"] == "mixture"
        return
    seren = fig.counterfactual(data, "seren_jobs")
    for alg in ("allpass", "tl_np", "hpa"):
        for setup in SETUPS:
            run = seren.results[setup, alg, data.seeds[0]]
            assert run.attrs["source"] == "mixture"
            assert run is not data.results[setup, alg, data.seeds[0]]
    queued = fig.counterfactual(data, "contention")
    assert queued.capacity("limited") == SCENARIOS["contention"].scenario["capacity"]
    assert queued.results["unlimited", "allpass", data.seeds[0]] is \
        data.results["unlimited", "allpass", data.seeds[0]]
    reading = next(k for k in data.results if k[1] == "allpass_slip")
    assert seren.results[reading] is data.results[reading]


def test_the_second_look_judges_the_undecided_rows_again_on_more_seeds():
    """The sequential design on the real pages (two seeds, then four): every undecided
    headline row of a page drawn from the runs is judged again on the four seeds at the
    stricter level, in the page's own claim rows (so its table, its prose, the headline and
    the summary read one verdict); the rest keep the first look's verdict and ours."""
    from lorasched.figures.allpass.common import AllpassFigure
    from lorasched.figures.allpass.looks import undecided
    from lorasched.figures.sequential import Design

    taken = 0
    for fig in figures.FIGURES.values():
        if not isinstance(fig, AllpassFigure) or fig.key == "readings":
            continue
        data = fig.data("small", seeds=2)  # the default store, which the notebooks fill
        assert data.design is None  # seeds of the caller's choosing: one look
        first = fig.claim_rows(data)
        assert not any("first" in r for r in first)
        data.design = Design(2, 4)
        got = fig.claim_rows(data)
        again = [undecided(fig, r) for r in first]
        assert [r.get("first") is not None for r in got] == again
        for before, after, a in zip(first, got, again, strict=True):
            if not a:
                assert after["ours"] == before["ours"]
                continue
            taken += 1
            assert after["first"]["verdict"] == before["verdict"]
            assert after["estimate"].n == 4 and after["estimate"].level == 0.975
        table = fig.claims(data, readings=True)
        assert list(table["look"]) == [2 if a else 1 for a in again]
        assert (table["first verdict"] == [r["verdict"] for r in first]).all()
    assert taken  # two seeds leave rows undecided


@pytest.mark.slow
def test_tl_p_preempts_yet_finishes_the_same_jobs_within_ten_minutes_as_tl_np():
    """Fig. 6: TL-P's share of jobs within ten minutes equals TL-NP's on every seed by the
    model, not through a preemptive flag lost on the way to the discipline: TL-P does
    preempt (so its JCTs differ), but only once a job has attained Tiresias-L's one-hour
    limit, when every job is past its ten minutes; with a one-minute limit the shares part.
    The page says which, with the measured numbers."""
    from lorasched import systems
    from lorasched.allpass.workload import allpass_scenario
    from lorasched.figures.allpass.common import AllpassData
    from lorasched.figures.allpass.fig06 import _preemption_row

    runs, short = {}, {}
    for seed in (1, 3):  # 200 Helios jobs: seed 1 preempts, seed 3 does not
        sc = allpass_scenario(jobs=200, capacity=30, seed=seed, source="helios")
        for a in ("tl_p", "tl_np"):
            runs["limited", a, seed] = systems.simulate(sc, a, seed=seed)
            if seed == 1:
                short["limited", a, seed] = systems.simulate(sc, a, seed=seed,
                                                             threshold_s=60.0)
    busy = _preemption_row(runs["limited", "tl_p", 1], runs["limited", "tl_np", 1], 1)
    assert busy["TL-P preemptions"] > 0 and busy["jobs with another JCT"] > 0
    assert busy["first preemption (min)"] >= 60 > 10 > busy["arrivals span (min)"]
    assert busy["jobs within ten minutes at the first preemption"] == 0
    assert busy["jobs across ten minutes"] == 0 and busy["shortest JCT that differs (min)"] > 10
    calm = _preemption_row(runs["limited", "tl_p", 3], runs["limited", "tl_np", 3], 3)
    assert calm["TL-P preemptions"] == calm["jobs with another JCT"] == 0
    assert calm["queue last non-empty (min)"] < 60 <= calm["first job at the limit (min)"]
    # the limit is what keeps them together: at one minute TL-P changes who is in time
    cut = _preemption_row(short["limited", "tl_p", 1], short["limited", "tl_np", 1], 1)
    assert cut["jobs across ten minutes"] > 0
    fig = figures.figure("fig06")
    text = fig.preemption_text(AllpassData("full", runs))
    assert "same share of jobs within ten minutes on every one of the 2 seeds: that is " \
           "the model, not a bug" in text
    assert (f"on 1 of the 2 seeds ({busy['TL-P preemptions']} preemptions in all" in text
            and f"and {busy['jobs with another JCT']} jobs finish at another time" in text)
    assert "60 min of service" in text and "On the other seed the serverful queue" in text
    other = fig.preemption_text(AllpassData("full", short))
    assert "not a bug" not in other
    assert f"{cut['jobs across ten minutes']} jobs finish on the other side of ten" in other
    assert "1 min of service" in other


# --------------------------------------------------------------------------- kept runs, read lazily
def test_the_runs_are_read_when_asked_for_and_their_metrics_from_the_records(tmp_path,
                                                                             monkeypatch):
    """kept_runs reads no result until a page asks for one; the metrics of every run come
    from the store's records, equal to measuring the run read back; ``|`` and ``moved``
    read none; the same runs give the same source, a run held in memory none."""
    from lorasched.experiments import Store
    from lorasched.figures.allpass import declared

    chosen = declared.parts("small", 1)[:1]
    declared.kept_runs(chosen, "small", tmp_path)  # computed into the store
    declared.clear_cache()
    reads = []
    real = Store.result
    monkeypatch.setattr(Store, "result", lambda self, key: reads.append(key) or real(self, key))
    runs = declared.kept_runs(chosen, "small", tmp_path)
    data = figures.common.AllpassData("small", runs, tmp_path)
    both = runs | runs.moved({("limited", "x", 1): ("limited", "allpass", 1)})
    assert not reads and len(data.metrics["seed"]) == 1 and ("limited", "x", 1) in both
    system = systems.get("allpass")
    for key in list(runs)[:3]:  # bit for bit, NaN as NaN
        assert (json.dumps(runs.measured(key), sort_keys=True)
                == json.dumps(system.measure(runs[key], runs[key]), sort_keys=True))
    assert len(reads) == 3
    assert runs.source() == declared.kept_runs(chosen, "small", tmp_path).source()
    assert (runs | {("limited", "allpass", 1): runs[("limited", "allpass", 1)]}).source() is None
    assert runs.loaded().source() is None


def test_a_page_of_the_same_runs_finds_the_data_file_current_unread(tmp_path, monkeypatch):
    """The runs' data file is written once; a page of the same runs (the same source) finds
    it current without reading a run or computing the data's digest."""
    from lorasched.figures import datafiles
    from lorasched.figures.allpass import declared

    fig = figures.figure("fig06")
    data = figures.common.AllpassData(
        "small", declared.kept_runs(declared.parts("small", 1), "small", tmp_path / "s"),
        tmp_path / "s")
    datafiles.write_page_files(fig, data, "small", tmp_path / "d")
    nc = tmp_path / "d" / datafiles.file_names(fig)[0]
    written = nc.stat().st_mtime_ns

    def never(*args):
        raise AssertionError("the data's digest computed again")

    monkeypatch.setattr(datafiles, "digest", never)
    datafiles.write_page_files(figures.figure("fig07"), data, "small", tmp_path / "d")
    assert nc.stat().st_mtime_ns == written


def test_fig01_s_share_of_short_jobs_is_a_share_of_one_sample():
    """The jobs are one sample of 0/1 values: Wilson's interval of a share, not Student's t
    of their mean."""
    got = fig01_module.Fig01.short_share([60.0, 6000.0, 30.0, 9000.0])
    assert got.method == WILSON and got.n == 4 and got.mean == 50.0
    assert (got.low, got.high) == pytest.approx((15.0, 85.0), abs=0.1)
