"""TITAN's book pages (lorasched.figures.titan) at the small size: the shared sweep, the
claims tables, the prose, the summary rows, and the plots."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest
import xarray as xr

import lorasched.figures.titan as figures
import lorasched.plotting.titan as plots
from lorasched.figures.base import VERDICTS, default_store
from lorasched.figures.numbers import num
from lorasched.figures.titan.common import PAPER_TABLE3, PAPER_TABLE4
from lorasched.figures.verdicts import NOT_EXPLAINED, NOT_TESTABLE, PAPER, REPRODUCED, WORKED
from lorasched.model.errors import InputError


@pytest.fixture(scope="module")
def sweep_data():
    """Fig. 5's data (one seed) from the default store, which the notebooks fill: a cell
    that ``make test`` computed once (the TITAN pages run two seeds, seed 1 among them) is
    read, not computed again."""
    store = default_store("small")
    return figures.figure("fig05").data("small", seeds=1, store=store), store


def test_pages_share_one_sweep():
    names = {f.key: [s.name for s in f.sweeps("full").values()]
             for f in figures.FIGURES.values()}
    assert names["fig05"] == names["solve"] == ["titan_full"]
    assert names["table4"] == ["titan_full", "titan_requested_full"]
    assert names["table3"] == ["titan_full", "titan_preemptive_full", "titan_literal_full",
                               "titan_application_full", "titan_sum_full", "titan_switch_full",
                               "titan_switchfree_full"]
    sweep = figures.figure("fig05").sweep("full")
    assert sweep.system == "titan"
    assert list(sweep.algorithms) == figures.ALGORITHMS
    assert list(sweep.seeds) == list(range(1, 11))  # TITAN's runs are cheap: ten seeds


def test_table2_reproduces_the_arithmetic_and_the_choice():
    fig = figures.figure("table2")
    df = fig.data()
    assert df["avg JCT SRTF (min)"].tolist() == [30, 20, 55]
    assert df["TITAN picks"].tolist() == ["merge", "SRTF", "SRTF"]
    claims = fig.claims(df)
    # a worked example: checks of the implementation, counted apart from the claims
    assert set(claims["scope"]) == {WORKED}
    srtf = claims[claims["claim"] == "SRTF's average JCT"]
    assert srtf["ours"].tolist() == ["30 min", "20 min", "55 min"]
    assert set(srtf["verdict"]) == {REPRODUCED}
    assert set(claims.loc[claims["claim"] == fig.CHOICE, "verdict"]) == {REPRODUCED}
    # the merged job's length is Table 2's own number, an input: nothing to check
    merged = claims[claims["claim"] == "the task merger's average JCT"]
    assert merged["paper"].tolist() == ["25 min", "21 min", "102 min"]
    assert set(merged["verdict"]) == {NOT_TESTABLE} and merged["why"].str.contains("input").all()
    assert claims["sentence"].tolist()[:3] == ["§4.2a (Case 1 SRTF)", "§4.2a (Case 1 merger)",
                                               "§4.2b"]
    assert "3 of 3" in fig.findings(df)


def test_fig04_claims_name_each_workload():
    fig = figures.figure("fig04")
    df = fig.data("small")
    assert set(df["workload"]) == set(figures.WORKLOADS.values())
    claims = fig.claims(df)
    assert set(claims["verdict"]) <= set(VERDICTS)
    # the paper's claim is about FMTrace, which is not public: not testable, Helios Venus
    # (56 % of the filtered trace) measured beside it, not in its place
    fmtrace = claims[claims["workload"] == "FMTrace"]
    assert fmtrace["verdict"].tolist() == [NOT_TESTABLE]
    assert fmtrace["scope"].tolist() == ["paper"]
    assert fmtrace["ours"].tolist() == ["56 % of Helios Venus's jobs of 5 min-10 h"]
    short = claims[(claims["claim"] == "jobs within 30 minutes")
                   & (claims["workload"] != "FMTrace")]
    assert len(short) == 3 and (short["scope"] != "paper").all()
    off = claims[~claims["verdict"].isin([REPRODUCED, "no number in the paper"])]
    assert (off["why"] != NOT_EXPLAINED).all()
    show = plots.duration_cdf(df), plots.gpu_requests(df)
    assert all(len(f.data) == 2 for f in show)
    table = fig.workload_table(df)  # the workloads in a few numbers, not a describe() dump
    assert table["workload"].tolist() == list(figures.WORKLOADS.values())
    assert table["jobs"].tolist() == df.groupby("workload", sort=False).size().tolist()
    assert table["median length alone"].str.endswith(" min").all()
    assert table["GPUs requested, at most"].tolist() == \
        df.groupby("workload", sort=False)["gpus"].max().tolist()


@pytest.mark.slow
def test_table3_and_fig05_claims_from_the_sweep(sweep_data):
    ds, store = sweep_data
    assert set(ds["workload"].values) == {"authors", "helios"}
    assert list(ds["density"].values) == [0.5, 1.0, 1.5, 2.0]
    table3 = figures.figure("table3").data("small", seeds=1, store=store)
    assert set(table3) == {"titan", "preemptive", "literal", "application", "sum", "switch",
                           "switch_free"}
    switch = figures.figure("table3").switch_table(table3)
    assert len(switch) == 2 * 4
    assert plots.switch_lines(table3["switch"], figures.NAMES, figures.WORKLOADS).data
    readings = figures.figure("table3").readings(table3)
    assert len(readings) == 2 * 5
    assert readings["jobs merged"].iloc[4] == "0"  # merge_length="sum" never pays
    for key, data in (("table3", table3), ("fig05", ds), ("table4", ds), ("solve", ds)):
        fig = figures.figure(key)
        claims = fig.claims(data)
        assert len(claims) > 0
        assert set(claims["verdict"]) <= set(VERDICTS)
        assert (claims.loc[claims["scope"] == PAPER, "sentence"] != "").all()
        text = fig.findings(data)
        assert "nan" not in text
    # SRTF against itself: no job faster or slower
    srtf = ds.sel(algorithm="srtf")
    assert float(srtf["faster_than_srtf"].max()) == 0.0
    assert float(srtf["slower_than_srtf"].max()) == 0.0
    # the ablations: no merged job without the merger
    assert float(ds["n_merged_jobs"].sel(algorithm="titan_nomerge").max()) == 0.0
    assert float(ds["switch_h"].sel(algorithm="titan_noswitch").mean()) > \
        float(ds["switch_h"].sel(algorithm="titan").mean())


def test_table3_judges_titan_against_each_baseline_the_paper_names(sweep_data):
    """"TITAN can reduce 38% average JCT and 12% makespan compared to baseline schedulers":
    against Tiresias as well as SRTF, each part of the sentence its own row, judged
    against Table 3's own ratio (1.04 / 1.67 and 29.01 / 33.09)."""
    _, store = sweep_data
    fig = figures.figure("table3")
    claims = fig.claims(fig.data("small", seeds=1, store=store))
    helios = claims[claims["workload"] == "Helios-derived workload"].set_index("claim")
    for what, paper in (("average JCT", "-38 %"), ("makespan", "-12 %")):
        row = helios.loc[f"TITAN's {what} against Tiresias"]
        assert row["paper"] == paper and row["scope"] == PAPER
        assert row["sentence"] == f"§5d ({'JCT' if what == 'average JCT' else what}, Tiresias)"


def test_table3_verdict_follows_the_data(sweep_data):
    ds, store = sweep_data
    fig = figures.figure("table3")
    data = fig.data("small", seeds=1, store=store)
    worse = ds.copy(deep=True)
    at = dict(algorithm="titan", density=1.0)
    worse["avg_jct_h"].loc[at] = worse["avg_jct_h"].sel(algorithm="srtf", density=1.0) * 2
    claims = fig.claims(data | {"titan": worse}).set_index(["claim", "workload"])
    row = claims.loc[("TITAN's average JCT against SRTF", "authors' workload")]
    assert row["verdict"] == "contradicted"
    assert row["ours"] == "+100 %"
    assert row["paper"] == f"{100 * (PAPER_TABLE3['titan'][0] / 1.68 - 1):.0f} %"
    assert row["why"] and row["why"] != NOT_EXPLAINED
    # twice the paper's reduction: the magnitude is off, not reproduced
    close = ds.copy(deep=True)
    close["avg_jct_h"].loc[at] = close["avg_jct_h"].sel(algorithm="srtf", density=1.0) * 0.24
    row = fig.claims(data | {"titan": close}).set_index(["claim", "workload"]).loc[
        ("TITAN's average JCT against SRTF", "authors' workload")]
    assert row["verdict"] == "magnitude off" and row["ours"] == "-76 %; ours / paper = 2x"


@pytest.mark.slow
def test_table3_tiresias_row_says_why(sweep_data):
    """Tiresias far behind SRTF: its row is not reproduced and carries the measured split
    of the gap into switches and order (both policies re-run without a switch cost)."""
    ds, store = sweep_data
    fig = figures.figure("table3")
    data = fig.data("small", seeds=1, store=store)
    slow = ds.copy(deep=True)
    at = dict(algorithm="tiresias", density=1.0)
    slow["avg_jct_h"].loc[at] = slow["avg_jct_h"].sel(algorithm="srtf", density=1.0) * 1.5
    claims = fig.claims(data | {"titan": slow}).set_index(["claim", "workload"])
    row = claims.loc[("Tiresias about as good as SRTF (average JCT, % of SRTF's)",
                      "authors' workload")]
    assert row["verdict"] in ("magnitude off", "contradicted")
    assert row["ours"].startswith("150 %")
    assert "50 % excess over SRTF" in row["why"]
    assert "remains without switches" in row["why"]


def test_table4_rows_carry_the_papers_numbers(sweep_data):
    ds, _ = sweep_data
    t4 = figures.figure("table4").table(ds)
    assert len(t4) == 8
    assert t4["% faster (paper)"].tolist()[:4] == [v[0] for v in PAPER_TABLE4.values()]
    figs = (plots.density_lines(ds, figures.NAMES, figures.WORKLOADS),
            plots.table4_bars(ds, figures.WORKLOADS, PAPER_TABLE4),
            plots.jct_bars(ds, figures.NAMES, figures.WORKLOADS, paper=PAPER_TABLE3))
    assert all(len(f.data) > 0 for f in figs)


@pytest.mark.slow
def test_summary_holds_every_page_with_its_notebook(sweep_data):
    _, store = sweep_data
    table = figures.summary("small", seeds=1, store=store)
    assert set(table["figure"]) == {"Table 2", "Fig. 4", "Table 3", "Fig. 5", "Table 4",
                                    "Sec. 3", "Authors' setup"}
    assert (table["figure"] == "Authors' setup").sum() == 36
    for col in ("figure", "claim", "paper", "ours", "verdict", "why", "page"):
        assert col in table.columns
    assert set(table["verdict"]) <= set(VERDICTS)
    assert {p for p in table["page"]} == {f.page for f in figures.FIGURES.values()}
    assert not hasattr(figures, "summary_findings")


def test_gantt_draws_every_segment():
    import lorasched

    sc = lorasched.titan_scenario(workload="authors", jobs=10, seed=1)
    run = lorasched.simulate(sc, "titan")
    fig = plots.gantt(run)
    drawn = sum(len(t.x) for t in fig.data)
    assert drawn == run.sizes["segment"]
    assert np.isclose(sum(float(np.sum(t.x)) for t in fig.data),
                      float((run["seg_end_s"] - run["seg_start_s"]).sum()) / 3600)


def test_solve_page_lists_every_solve(sweep_data):
    ds, store = sweep_data
    fig = figures.figure("solve")
    df = fig.decisions("small", store=store)
    assert set(df["workload"]) == set(figures.WORKLOADS.values())
    assert (df["solve_ms"] > 0).all() and (df["candidates"] >= 1).all()
    assert len(plots.solve_scatter(df, (0.005, 0.16)).data) == 2
    claims = fig.claims(ds)
    assert len(claims) == 4
    # a claim of speed, read as ours at most the paper's time: a faster solve agrees
    assert claims["paper"].str.startswith(("at most 0.005 s", "at most 0.16 s")).all()
    assert set(claims["verdict"]) == {REPRODUCED}  # a few ms at the small size
    table = fig.solve_table(df)
    assert table["MILP solves"].tolist() == df.groupby("workload", sort=False).size().tolist()
    largest = df.groupby("workload", sort=False)["solve_ms"].max()
    assert table["solve time, largest"].tolist() == [f"{num(x)} ms" for x in largest]


@pytest.mark.slow
def test_authors_page_ladder_runs_from_their_setup_to_the_papers():
    fig = figures.figure("authors")
    data = fig.data("small", seeds=1)  # the default store, shared with the notebook
    grid = fig.grid(data)
    assert len(grid) == 12 and set(grid["workload"]) >= {"FM-1-vit", "FM-2-roberta-large"}
    ladder = fig.ladder(data)
    first = grid.set_index("workload").loc["FM-1-vit-large"]
    assert ladder["TITAN"].iloc[0] == first["TITAN"] and ladder["SRTF"].iloc[0] == first["SRTF"]
    paper = data["paper"].sel(workload="authors", density=1.0, algorithm="titan")
    # the paper's setup at its seeds, by the claims' centre (the geometric mean)
    assert ladder["TITAN"].iloc[-1] == pytest.approx(
        float(np.exp(np.log(paper["avg_jct_h"]).mean())))
    # each step changes the setting it names: the baselines as the paper describes them
    # first, then ticks off, then the checkpoint
    paper_srtf = {"placement": "pooled", "estimate": "exact"}
    assert json.loads(data["step1"].attrs["sweep"])["options"]["srtf"] == paper_srtf
    assert json.loads(data["step1"].attrs["sweep"])["options"]["tiresias"] == {
        "placement": "pooled", "attained": "work"}
    assert json.loads(data["step2"].attrs["sweep"])["options"]["srtf"] == paper_srtf | {
        "tick_s": 0.0}
    assert json.loads(data["step3"].attrs["sweep"])["base"]["ckpt_s"] == 0.0
    ck = fig.ckpt_table(data)
    assert (ck["SRTF"].diff().dropna() > 0).all()  # every start pays the checkpoint
    claims = fig.claims(data)
    assert len(claims) == 36 and set(claims["verdict"]) <= set(VERDICTS)
    assert (claims["why"] != NOT_EXPLAINED).all()
    text = fig.findings(data)
    assert "From the authors' setup to the paper's" in text
    # the prose prints the ladder's own strings
    assert f"goes from {ladder['TITAN vs SRTF'].iloc[0]} to" in text
    # the merger as the authors' simulator ran it: their objective with their merge rules
    opts = json.loads(data["merge_fair"].attrs["sweep"])["options"]["titan"]
    assert opts == {"candidates": "cross_dataset", "merge_length": "authors",
                    "objective": "authors_fair"}
    parts = fig.merger_parts()
    assert len(parts) == 6 and parts["part"].iloc[-1] == "pipeline switch"
    theirs = fig.against_their_results(data)
    assert theirs["their avg JCT (h)"].iloc[0] == "0.226"
    ratios = fig.ratios(data).set_index("TITAN / SRTF, average JCT")["ratio"]
    assert ratios.iloc[0] == "0.619" and ratios.iloc[2] == "0.219"


def test_authors_page_joins_their_runs_job_by_job():
    """The authors'-code page joins the authors' own runs with lorasched's, job by job:
    the baselines agree on every job of FM-1-vit, each behaviour set to lorasched's reading
    lowers the agreement, and the ratio's distance is taken apart step by step."""
    fig = figures.figure("authors")
    assert fig.differential_workloads("small") == ["FM-1-vit"]
    assert len(fig.differential_workloads("full")) == 12
    joined = fig.differential("small").set_index("policy")
    for policy in ("SRTF", "Tiresias"):
        assert joined.loc[policy, "within 1 %"] == joined.loc[policy, "jobs"] == 320
        assert joined.loc[policy, "first job that differs"] == ""
    behaviours = fig.behaviours()
    column = behaviours["set to lorasched's reading"]
    setup = behaviours[column.str.startswith("none")]
    clocked = behaviours[column.str.startswith("clock")]
    alone = behaviours[~column.str.startswith(("none", "clock"))
                       & (column != "all of the above")]
    # every behaviour, set to lorasched's reading alone, lowers the agreement of its run
    assert len(alone) == 11
    for _, row in alone.iterrows():
        base = setup[(setup["workload"] == row["workload"])
                     & (setup["policy"] == row["policy"])]["within 1 %"].item()
        assert int(row["within 1 %"].split()[0]) < int(base.split()[0])
    gaps = fig.gap_shares()
    assert len(gaps) == 9 and gaps["TITAN / SRTF"].iloc[-2] == "0.219"
    assert gaps["share of the distance"].iloc[-1].startswith("remains on lorasched's clock")
    # their merged jobs read on lorasched's clock agree more often than as printed
    merged = behaviours[behaviours["policy"] == clocked["policy"].item()]
    assert (int(clocked["within 1 %"].item().split()[0])
            > int(merged["within 1 %"].iloc[0].split()[0]))
    text = str(fig.differential_findings(fig.differential("small"), behaviours, gaps))
    assert "640 of 640 jobs" in text and gaps["TITAN / SRTF"].iloc[0] in text
    assert "each behaviour lowers the agreement" in text


def test_table4_causes_run_titan_held_to_the_requested_widths(sweep_data):
    """Table 4's rows are judged again on TITAN held to the requested widths: the held
    runs' jobs run as wide as they asked, so few finish 10 % apart from SRTF, and every
    not-reproduced row of the paper's setting has that run and an effect."""
    _, store = sweep_data
    fig = figures.figure("table4")
    data = fig.data("small", seeds=1, store=store)
    assert set(data) == {"titan", "requested"}
    req = data["requested"]
    assert list(req["workload"].values) == ["helios"]
    held = req["mean_gpus"].sel(algorithm="titan")
    elastic = data["titan"]["mean_gpus"].sel(workload="helios", algorithm="titan")
    assert float(held.max()) < float(elastic.min())
    causes = fig.causes(data)
    assert len(causes) > 0
    assert (causes["counterfactual"] == "TITAN at the requested widths (not the paper's "
                                         "algorithm)").all()
    assert (causes["effect"] != "").all()
    table = fig.requested_table(data)
    assert len(table) == 2 * req.sizes["density"]
    assert "held to the requested widths" in str(fig.findings(data))
    # the page's own claims and prose read the same from the dict as from the dataset
    assert fig.claims(data).equals(fig.claims(data["titan"]))


def test_table4_prose_chooses_its_words_from_the_data(sweep_data):
    ds, _ = sweep_data
    fig = figures.figure("table4")
    m = fig.mechanism(ds, "authors")
    narrow = dict(m, wider=False, gpus={"titan": 4.4, "srtf": 4.5})
    assert "about as many GPUs" in fig._why(narrow) and "4.4 against 4.5" in fig._why(narrow)
    wide = dict(m, wider=True, gpus={"titan": 10.7, "srtf": 4.49})
    assert "10.7 GPUs" in fig._why(wide) and "about as many" not in fig._why(wide)


def _speaks_for_its_claims(fig, data) -> None:
    """``fig.findings(data)`` marks its sentences about the page's claims, each with the
    verdict the claims table gives that claim (same data, same test); a claims table that
    said otherwise of one of them would be named."""
    from lorasched.figures.prose import CLASS, check_page

    text = str(fig.findings(data))
    claims = fig.claims(data)
    verdicts = {(r["claim"], r[fig.variant_column]): r["verdict"]
                for _, r in claims.iterrows()}
    assert text.count(f'class="{CLASS}"') >= 1
    assert check_page(text, verdicts) == []
    # the check would catch a sentence whose verdict is not its claim's
    said = re.search(r'data-claim="([^"|]*)\|([^"]*)" data-verdict="([^"]*)"', text)
    key = (html.unescape(said.group(1)), html.unescape(said.group(2)))
    assert verdicts[key] == said.group(3)
    other = "contradicted" if said.group(3) != "contradicted" else "reproduced"
    assert check_page(text, verdicts | {key: other})


def test_titan_prose_speaks_with_its_claims_verdicts():
    for key in ("table2", "fig04"):
        fig = figures.figure(key)
        _speaks_for_its_claims(fig, fig.data("small"))


def test_titan_sweep_pages_prose_speaks_with_its_claims_verdicts(sweep_data):
    ds, store = sweep_data
    for key in ("fig05", "table4", "solve"):
        _speaks_for_its_claims(figures.figure(key), ds)
    table3 = figures.figure("table3")
    _speaks_for_its_claims(table3, table3.data("small", seeds=1, store=store))


def test_a_centre_and_its_interval_are_written_to_the_digits_asked():
    """TITAN's tables give each quantity the claims' centre (the geometric mean over seeds)
    and its 95 % interval, to the digits asked; one number where the seeds agree."""
    import xarray as xr

    from lorasched.figures.titan.common import cell, fmt
    from lorasched.figures.verdicts import Estimate

    assert fmt(Estimate(2.345, 2.1, 2.61234, 3)) == "2.35 (2.1 to 2.61)"
    assert fmt(Estimate(2.345, 2.1, 2.61234, 3), digits=2) == "2.3 (2.1 to 2.6)"
    assert fmt(Estimate.point(2.0)) == "2"
    ds = xr.Dataset({"avg_jct_h": ("seed", [1.0, 4.0, 16.0])}, coords={"seed": [1, 2, 3]})
    assert cell(ds, "avg_jct_h").mean == pytest.approx(4.0)  # not the mean, 7


def test_solve_page_says_where_its_times_were_measured(tmp_path):
    from lorasched.experiments import Store, grid
    fig = figures.figure("solve")
    keys = sorted({c.key for s in fig.sweeps("small").values() for c in grid.cells(s)
                   if c.params["algorithm"] == "titan"})
    store = Store(tmp_path)
    assert str(fig.where_timed("small", tmp_path)).startswith(
        "The claims' solve times and the scatter and the table of every solve were measured "
        "on the machine that built this page")
    for key in keys[:2]:  # two of TITAN's runs taken from shipped cells
        store.adopt(key, {"key": key, "params": {}, "metrics": {}, "shipped": True})
    assert str(fig.where_timed("small", tmp_path)).startswith(
        f"2 of the {len(keys)} TITAN runs behind the claims come from the shipped cells")
    for key in keys[2:]:
        store.adopt(key, {"key": key, "params": {}, "metrics": {}, "shipped": True})
    said = str(fig.where_timed("small", tmp_path))
    assert said.startswith("The claims' solve times (each run's mean and largest) were "
                           "measured where the shipped cells were computed")
    assert "measured on the machine that built this page" in said


def test_table3_rows_are_judged_again_on_their_counterfactuals(sweep_data):
    """The causes of Table 3's rows that are not reproduced, tested: each judged again,
    with its own test, on the counterfactual its why implies (jobs re-allocated for the
    makespan, free switches for Tiresias, dearer switches for the pipeline's share)."""
    _, store = sweep_data
    fig = figures.figure("table3")
    data = fig.data("small", seeds=1, store=store)
    table = fig.causes(data)
    claims = fig.claims(data)
    off = claims[(claims["workload"] == "Helios-derived workload")
                 & ~claims["verdict"].isin([REPRODUCED, "not testable here"])]
    assert list(table["claim"]) == list(off["claim"])
    tested = table[table["counterfactual"] != "none run here"]
    assert (tested["effect"] != "").all() and (tested["judged there"] != "").all()
    # the makespan's counterfactual is the preemptive reading's makespan against SRTF's
    values = fig._counterfactual_values(data, "helios", "makespan")
    pre = data["preemptive"]["makespan_h"].sel(algorithm="titan", workload="helios")
    srtf = data["titan"]["makespan_h"].sel(algorithm="srtf", workload="helios", density=1.0)
    assert values == pytest.approx(100 * (pre.values / srtf.values - 1))


def test_solve_causes_offer_every_job_at_once(sweep_data):
    """The largest solve's counterfactual offers the first MILP every job of the run (and
    its merge candidates); the mean has none and says so."""
    ds, _ = sweep_data
    fig = figures.figure("solve")
    queued = fig.all_queued(ds)
    assert len(queued) == ds.sizes["seed"]
    assert (queued["candidates"] >= queued["jobs"]).all()
    assert (queued["solve (s)"] > 0).all()
    jobs = float(ds["n_jobs"].sel(workload="helios", density=1.0, algorithm="titan").max())
    assert (queued["jobs"] == jobs).all()
    assert fig.causes(ds).empty  # every solve within the paper's times at the small size
    slow = ds.copy()  # solves a thousand times slower than measured: over the paper's
    for var in ("solve_time_mean", "solve_time_max"):
        slow[var] = ds[var] * 1e3
    causes = fig.causes(slow)
    causes = causes[causes["variant"] == figures.WORKLOADS["helios"]].set_index("claim")
    assert causes.loc[fig.LARGEST, "counterfactual"] == "every job queued at once"
    assert causes.loc[fig.MEAN, "counterfactual"] == "none run here"
    assert causes.loc[fig.LARGEST, "effect"] != ""
    # the page says so in the contradicted verdict's words
    assert "unlike the paper's 0.16 s (320 jobs, 1 vCPU): slower" in fig.findings(slow)
    assert "not 320" not in " ".join(r.get("why", "") for r in fig.claim_rows(ds))


def test_counterfactual_and_reference_runs_come_from_the_store(tmp_path, monkeypatch):
    """Table 3's runs without switch costs and the authors' page's FIFO runs are cells of
    the pages' sweeps: once the store holds them, the pages build their tables with no
    policy run (the engine's cell runner and the systems' simulate raise); without them,
    building the page would have to run them."""
    import lorasched.experiments.executor as executor
    import lorasched.systems as systems
    from lorasched.experiments import Store, grid

    table3, authors = figures.figure("table3"), figures.figure("authors")
    free = table3.sweeps("small", 1)["switch_free"]
    assert {c.params["options"]["switch"] for c in grid.cells(free)} == {"none"}
    data = table3.data("small", seeds=1, store=tmp_path)
    order = authors.sweeps("small", 1)["order"]
    cells = grid.cells(order)
    assert {c.params["algorithm"] for c in cells} == {"fifo"} and len(cells) == 12
    from lorasched.experiments import run_sweep
    run_sweep(order, store=tmp_path, serial=True, progress=False)

    def no_run(*args, **kwargs):
        raise AssertionError("a page ran a policy")

    monkeypatch.setattr(executor, "run", no_run)  # the cell runner, as the executor calls it
    monkeypatch.setattr(systems, "simulate", no_run)
    again = table3.data("small", seeds=1, store=tmp_path)
    effect = table3.switch_effect(again)
    done = Store(tmp_path).done()
    for cell in grid.cells(free):
        row = effect[(effect["workload"] == figures.WORKLOADS[cell.params["scenario"]
                                                                ["workload"]])
                     & (effect["seed"] == cell.params["seed"])]
        name = figures.NAMES[cell.params["algorithm"]]
        assert row[f"{name}, none switch (h)"].item() == done[cell.key]["metrics"]["avg_jct_h"]
    ds = again["titan"].sel(density=1.0, seed=1)
    assert effect.iloc[0]["SRTF, naive switch (h)"] == float(
        ds["avg_jct_h"].sel(algorithm="srtf", workload="authors"))
    assert effect.equals(table3.switch_effect(data))
    fifo = Store(tmp_path).done([c.key for c in cells])
    assert len(fifo) == 12
    # a store without the counterfactual's cells: the page would have to run them
    Store(tmp_path).drop(grid.cells(free)[0].key)
    with pytest.raises(RuntimeError, match="failed"):
        table3.data("small", seeds=1, store=tmp_path)


def test_the_cpu_report_labels_the_counterfactual_cells():
    """``lorasched reproduce`` names the cells of a page's counterfactual and reference
    runs by their sweep's label beside their policy; the pages' own runs keep none, and a
    label leaves the cells' keys alone."""
    from dataclasses import replace

    from lorasched.experiments import grid
    from lorasched.experiments.progress import policy

    table3 = figures.figure("table3").sweeps("small", 1)
    free = grid.cells(table3["switch_free"])
    assert {policy(c.params) for c in free} == {"srtf [counterfactual: no switch cost]",
                                                 "tiresias [counterfactual: no switch cost]"}
    assert all("label" not in c.params for c in grid.cells(table3["titan"]))
    order = grid.cells(figures.figure("authors").sweeps("small", 1)["order"])
    assert {policy(c.params) for c in order} == {"fifo [reference: arrival order]"}
    unlabelled = grid.cells(replace(table3["switch_free"], label=""))
    assert [c.key for c in unlabelled] == [c.key for c in free]


def test_the_authors_join_reads_lorasched_s_runs_from_the_store(tmp_path, monkeypatch):
    """The authors'-code page's job-by-job join runs no policy of its own: lorasched's runs
    it joins are kept cells of the catalogue's batch (one per run, each once), and once the
    store holds them the join's tables build with the engine's cell runner and the systems'
    simulate raising; a run lost from the store is computed again through the engine."""
    import lorasched.experiments.executor as executor
    import lorasched.systems as systems
    from lorasched.experiments import Store, grid
    from lorasched.figures.titan import authors_join as aj

    sweeps = aj.join_sweeps("small")
    assert sweeps == [s for s in figures.sweeps("small") if s.name.startswith("titan_join_")]
    cells = [c for s in sweeps for c in grid.cells(s)]
    assert all(c.params["keep"] for c in cells) and len({c.key for c in cells}) == len(cells)
    assert not any(figures.CATALOGUE.ships(None, c.params) for c in cells)  # kept: not shipped
    first = aj.gap_shares("small", store=tmp_path)
    gap_keys = {grid.cells(aj.run_sweep_of("FM-1-vit", p, sc, o))[0].key
                for p, sc, o in aj.GAP_RUNS.values()}
    assert gap_keys <= set(Store(tmp_path).done())

    def no_run(*args, **kwargs):
        raise AssertionError("a page ran a policy")

    monkeypatch.setattr(executor, "run", no_run)
    monkeypatch.setattr(systems, "simulate", no_run)
    assert aj.gap_shares("small", store=tmp_path).equals(first)
    Store(tmp_path).drop(next(iter(gap_keys)))
    with pytest.raises(RuntimeError, match="failed"):
        aj.gap_shares("small", store=tmp_path)  # the lost run goes back to the engine


def test_only_the_authors_file_itself_is_a_fixed_trace():
    """The rule :func:`fixed_trace` states is the scenario's: the authors' file at density
    1 is the same whatever the seed; its seeded half (0.5), a drawn subset (the small
    size's jobs) and the Helios-derived workload are not."""
    from lorasched.figures.titan.common import declaration, fixed_trace
    from lorasched.titan.workload import titan_scenario

    def same(**kw):
        a, b = titan_scenario(seed=1, **kw), titan_scenario(seed=2, **kw)
        return a.equals(b)

    full = xr.Dataset(attrs={"sweep": json.dumps(declaration("full"))})
    small = xr.Dataset(attrs={"sweep": json.dumps(declaration("small"))})
    assert fixed_trace(full, "authors", 1.0) and same(workload="authors", density=1.0)
    assert not fixed_trace(full, "authors", 0.5) and not same(workload="authors", density=0.5)
    assert not fixed_trace(full, "authors", 1.0, 0.5)
    assert not fixed_trace(small, "authors", 1.0)
    assert not same(workload="authors", density=1.0, jobs=40)
    assert not fixed_trace(full, "helios", 1.0)


def test_a_fixed_trace_is_judged_as_one_run_not_as_seeds_all_equal(sweep_data):
    """Table 3 on the authors' file (its full size: no jobs drawn) over three seeds that
    repeat one run: each row one run, n = 1, not "3 seeds, all equal"; the Helios-derived
    workload's rows stay seeds."""
    from lorasched.figures.titan.common import judged, once

    ds, store = sweep_data
    fig = figures.figure("table3")
    data = fig.data("small", seeds=1, store=store)
    three = xr.concat([ds.isel(seed=[0])] * 3, dim="seed").assign_coords(seed=[1, 2, 3])
    decl = json.loads(ds.attrs["sweep"])
    decl["base"].pop("jobs")
    three.attrs = dict(ds.attrs) | {"sweep": json.dumps(decl)}
    claims = fig.claims(data | {"titan": three}, readings=True)
    authors = claims[claims["workload"] == "authors' workload"]
    helios = claims[claims["workload"] == "Helios-derived workload"]
    assert len(authors) == 7 and (authors["n"] == 1).all()
    assert (authors["method"] == "point").all()
    assert set(authors["scale"]) == {"gain", "ratio"}  # judged on their own scales
    assert not authors["ours"].str.contains("seeds").any()
    assert (helios["n"] == 3).all() and helios["ours"].str.contains("3 seeds, all equal").all()
    assert judged("x", "", [-38.0] * 10, -38.0, one=True)["ours"] == "-38 %"
    with pytest.raises(InputError, match="different values"):
        once([1.0, 1.5])
