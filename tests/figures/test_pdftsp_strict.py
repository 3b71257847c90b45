"""Titan held to one standard: the gaps under each claims table, the strict re-run of the
worst runs and whether the verdicts move with them (lorasched.figures.pdftsp.strict)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import lorasched.figures.pdftsp as figures
from lorasched.experiments.grid import cells
from lorasched.figures.pdftsp import strict
from lorasched.model.errors import InputError

TRACES = ["mlaas", "philly", "helios"]
ALGORITHMS = [*figures.ALGORITHMS, "cost_plus", "eft_tuned", "ntm_tuned", "cost_plus_tuned"]


def _traces(titan=(60.0, 60.0, 60.0), gaps=None, capped=None) -> xr.Dataset:
    """A Fig. 7 dataset (3 traces, 2 pdFTSP constants, 2 seeds): pdFTSP earns 100 with
    either constants, Titan ``titan[trace]`` (both seeds), every other baseline 50;
    Titan's largest per-slot gap and stopped slots per trace and seed (NaN elsewhere)."""
    shape = (3, 2, len(ALGORITHMS), 2)
    welfare = np.full(shape, 50.0)
    welfare[:, :, 0] = 100.0
    welfare[:, :, 1] = np.asarray(titan)[:, None, None]
    dims = ("trace", "constants", "algorithm", "seed")
    ds = xr.Dataset({"welfare": (dims, welfare)},
                    coords={"trace": TRACES, "constants": ["Lemma 2", "calibrated"],
                            "algorithm": ALGORITHMS, "seed": [1, 2]})
    ds["n_admitted"] = ds["welfare"] / 10
    ds["n_tasks"] = xr.full_like(ds["welfare"], 100.0)
    ds["load_factor"] = xr.ones_like(ds["welfare"])
    gap = xr.full_like(ds["welfare"], np.nan)
    stopped = xr.full_like(ds["welfare"], np.nan)
    gaps = np.full((3, 2), 0.002) if gaps is None else np.asarray(gaps, dtype=float)
    capped = np.zeros((3, 2)) if capped is None else np.asarray(capped, dtype=float)
    gap.loc[{"algorithm": "titan"}] = gaps[:, None, :]  # the same run for both constants
    stopped.loc[{"algorithm": "titan"}] = capped[:, None, :]
    ds["max_gap"], ds["slots_hit_limit"] = gap, stopped
    ds.attrs["sweep"] = json.dumps({"options": {"titan": dict(figures.TITAN_OPTIONS)}})
    return ds


GAPS = [[0.003, 0.012], [0.21, 0.002], [0.37, 0.05]]
CAPPED = [[0, 1], [1, 0], [2, 3]]


def test_titan_runs_count_each_setting_and_seed_once():
    ds = _traces(gaps=GAPS, capped=CAPPED)
    runs = strict.titan_runs(ds)
    assert len(runs) == 6  # 3 traces x 2 seeds, not doubled by pdFTSP's two constants
    assert runs.set_index(["at", "seed"]).loc[('{"trace": "helios"}', 1), "max_gap"] == 0.37
    # a seed Titan did not run (the costly seeds only) is no run
    ds["max_gap"].loc[{"algorithm": "titan", "seed": 2}] = np.nan
    assert len(strict.titan_runs(ds)) == 3
    # without Titan's gaps there are no runs
    assert strict.titan_runs(ds.drop_vars("max_gap")).empty


def test_the_gap_line_is_the_largest_max_gap_of_the_data():
    ds = _traces(gaps=GAPS, capped=CAPPED)
    g = strict.titan_gaps(ds)
    # the line under the claims table reads the dataset the verdicts read: its max_gap
    assert g["max_gap"] == float(ds["max_gap"].sel(algorithm="titan").max())
    assert g["capped"] == int(ds["slots_hit_limit"].sel(algorithm="titan").isel(
        constants=0).sum())
    assert (g["runs"], g["over"]) == (6, 4)
    text = strict.gaps_text(ds)
    assert ("Over its 6 runs here the largest certified gap of a slot is 37 % "
            "(trace = helios, seed 1); 4 of the runs have a slot above 1 %, and 7 slots "
            "stopped at the node count.") in text
    assert "the paper names Gurobi, whose default is 0.01 %" in text
    # the figure's setting states the same numbers (one source)
    from lorasched.figures.pdftsp.titan_words import titan_solve_text

    assert "over its 6 runs here the largest certified gap of any slot is 37 %, and 7 " \
        "slots" in titan_solve_text(ds)
    calm = strict.gaps_text(_traces())
    assert "no run has a slot above 1 %, and no slot stopped" in calm
    # a figure of several parts (Fig. 12) counts the runs of each
    both = strict.titan_gaps({"lp": ds, "opt": _traces()})
    assert (both["runs"], both["max_gap"], both["worst"]["part"]) == (12, 0.37, "lp")


def test_worst_runs_are_those_with_the_largest_gaps():
    worst = strict.worst_runs(_traces(gaps=GAPS, capped=CAPPED), 3)
    assert list(zip(worst["at"], worst["seed"], strict=True)) == [
        ('{"trace": "helios"}', 1), ('{"trace": "philly"}', 1), ('{"trace": "helios"}', 2)]
    with pytest.raises(InputError, match="count"):
        strict.worst_runs(_traces(), 0)


def test_a_strict_sweep_reruns_one_run_of_titan_at_the_papers_gap():
    fig = figures.figure("fig07")
    run = {"part": "", "at": '{"trace": "helios"}', "seed": 2}
    sweep = strict.strict_sweep(fig, "small", run)
    assert sweep.algorithms == ("titan",) and sweep.seeds == (2,) and sweep.keep
    assert list(sweep.axes) == ["trace"] and list(sweep.axes["trace"]) == ["helios"]
    assert sweep.options["titan"] == {"solver": "milp", "mip_rel_gap": 1e-4,
                                      "mip_max_nodes": strict.STRICT_MAX_NODES}
    # the run's own scenario: the figure's cell at that setting and seed, Titan's options
    # alone differ
    own = next(c for c in cells(fig.sweeps("small")["fig07"])
               if c.params["algorithm"] == "titan" and c.params["seed"] == 2
               and c.params["scenario"]["trace"] == "helios")
    (cell,) = cells(sweep)
    assert cell.params["scenario"] == own.params["scenario"]
    # a part with a bound (Fig. 12's LP) is re-run without it
    lp = strict.strict_sweep(figures.figure("fig12"), "small",
                             {"part": "lp", "at": '{"load": "high (4)"}', "seed": 1})
    assert lp.bound is None and lp.algorithms == ("titan",)
    with pytest.raises(InputError, match="no setting"):
        strict.strict_sweep(fig, "small", {"part": "", "at": '{"trace": "x"}', "seed": 1})
    with pytest.raises(InputError, match="no part"):
        strict.strict_sweep(figures.figure("fig13"), "small", run)


def test_task_gaps_bound_the_tasks_alone():
    # slot 0: 5 of a bound 5 (the cell penalty puts the bound just under it: 4.99);
    # slot 1: 4 of 5; slot 2: no task arrived; slot 3: a bound of 0
    result = xr.Dataset({"titan_lp_bound": ("slot", [4.99, 5.0, np.nan, 0.0]),
                         "admitted": ("task", [True] * 5 + [True] * 4 + [False]),
                         "arrival": ("task", [0] * 5 + [1] * 4 + [2])})
    gaps = strict.task_gaps(result)
    assert np.allclose(gaps, [0.0, 0.2, np.nan, 0.0], equal_nan=True)


def _rows(fig, ds, titan_welfare, size="small"):
    """Strict re-runs of Titan on helios (both seeds) earning ``titan_welfare``."""
    rows = []
    for seed in (1, 2):
        run = {"part": "", "at": '{"trace": "helios"}', "seed": seed}
        sweep = strict.strict_sweep(fig, size, run)
        rows.append({"figure": fig.key, "size": size, **run,
                     "gap_before": float(ds["max_gap"].sel(trace="helios", seed=seed,
                                                            algorithm="titan")[0]),
                     "capped_before": 2, "key": cells(sweep)[0].key,
                     "options": json.dumps(sweep.options["titan"]),
                     "command": strict.COMMAND.format(key=fig.key, size=size, count=2),
                     "made": "2026-01-01 00:00", "cpu_seconds": 10.0, "wall_seconds": 11.0,
                     "task_gap": 0.0, "welfare": titan_welfare,
                     "n_admitted": titan_welfare / 10, "max_gap": 0.003,
                     "slots_hit_limit": 0.0})
    return pd.DataFrame(rows)


def test_verdict_moves_flags_a_verdict_the_strict_runs_move(tmp_path):
    fig = figures.figure("fig07")
    ds = _traces(gaps=GAPS, capped=CAPPED)
    same = strict.verdict_moves(fig, ds, strict.substitute(ds, _rows(fig, ds, 60.0)))
    assert not same["moved"].any()
    # Titan re-run earns more than pdFTSP on Helios: pdFTSP is no longer best everywhere
    higher = _rows(fig, ds, 150.0)
    after = strict.substitute(ds, higher)
    assert float(after["welfare"].sel(trace="helios", algorithm="titan").min()) == 150.0
    assert float(ds["welfare"].sel(trace="helios", algorithm="titan").max()) == 60.0
    moves = strict.verdict_moves(fig, ds, after).set_index("pdFTSP")
    assert moves.loc["Lemma 2", "moved"]
    assert moves.loc["Lemma 2", "verdict at 1 %"] != moves.loc["Lemma 2", "verdict at 0.01 %"]
    # the page says so, from the kept file
    path = tmp_path / "strict.csv"
    strict._write(higher, path)
    text = strict.strict_text(fig, ds, "small", path=path)
    assert "of its 2 claims change verdict: pdFTSP best on every real trace (Lemma 2) " \
        "from reproduced to contradicted" in text
    assert "trace = helios, seed 1 (37 %, 2 slots stopped)" in text
    strict._write(_rows(fig, ds, 60.0), path)  # the figure's rows replaced, not added
    assert len(strict.read_strict(path)) == 2
    assert "each of its 2 claims keeps its verdict" in strict.strict_text(fig, ds, "small",
                                                                         path=path)


def test_a_kept_rerun_of_other_code_or_other_runs_is_not_used(tmp_path):
    fig = figures.figure("fig07")
    ds = _traces(gaps=GAPS, capped=CAPPED)
    path = tmp_path / "strict.csv"
    rows = _rows(fig, ds, 150.0)
    rows.loc[0, "key"] = "0" * 20
    strict._write(rows, path)
    assert "made by other code" in strict.strict_text(fig, ds, "small", path=path)
    rows = _rows(fig, ds, 150.0)
    rows.loc[0, "gap_before"] = 0.5
    strict._write(rows, path)
    assert "started from another run" in strict.strict_text(fig, ds, "small", path=path)
    # none kept: a figure with runs over 1 % says they were not re-run, and how to
    assert "have not been re-run at 0.01 %" in strict.strict_text(
        fig, ds, "small", path=tmp_path / "none.csv")
    assert strict.strict_text(fig, _traces(), "small", path=tmp_path / "none.csv") == ""


def test_rerun_worst_computes_the_run_and_keeps_it(tmp_path):
    fig = figures.figure("fig07")
    gaps = [[0.001, 0.001], [0.02, 0.001], [0.001, 0.001]]  # philly, seed 1 the worst
    out = strict.rerun_worst(fig, "small", 1, data=_traces(gaps=gaps),
                             store=tmp_path / "store", out_path=tmp_path / "strict.csv")
    (row,) = out.to_dict("records")
    assert (row["at"], row["seed"], row["gap_before"]) == ('{"trace": "philly"}', 1, 0.02)
    assert row["task_gap"] <= row["max_gap"] + 1e-12
    assert row["cpu_seconds"] > 0 and row["welfare"] > 0
    kept = strict.read_strict(tmp_path / "strict.csv", "fig07", "small")
    assert list(kept["key"]) == [row["key"]]
