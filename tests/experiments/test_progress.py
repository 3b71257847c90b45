"""The batch's progress bar: its total is the CPU seconds spent plus those forecast, the
forecast is the cost model corrected per policy by what the policy's cells took, and cells
found done stay out of it."""

from __future__ import annotations

import pytest

from lorasched.experiments import progress
from lorasched.experiments.grid import Cell


def cell(key: str, algorithm: str | None = "pdftsp", **options) -> Cell:
    params = {"system": "pdftsp", "algorithm": algorithm, "options": options,
              "scenario": {"nodes": 100, "load": "medium", "slots": 144}, "seed": 1,
              "bound": None if algorithm else "lp"}
    return Cell(key, params, ((("seed", 1),),))


@pytest.fixture
def model(monkeypatch):
    """A cost model of 10 s a Titan cell and 1 s any other."""
    monkeypatch.setattr(progress, "expected_seconds",
                        lambda params: 10.0 if params["algorithm"] == "titan" else 1.0)


def test_policy_names_the_solver_and_the_bound():
    assert progress.policy(cell("a").params) == "pdftsp"
    assert progress.policy(cell("a", "titan", solver="columns").params) == "titan:columns"
    assert progress.policy(cell("a", None).params) == "bound lp"


def test_the_forecast_is_the_model_until_a_cell_has_run(model):
    cells = [cell(f"t{i}", "titan") for i in range(4)] + [cell(f"p{i}") for i in range(10)]
    forecast = progress.Forecast(cells)
    assert forecast.left() == 4 * 10 + 10 * 1 and forecast.spent == 0 and forecast.ratio() == 1


def test_the_forecast_is_corrected_per_policy_by_its_cells(model):
    titan = [cell(f"t{i}", "titan") for i in range(4)]
    pdftsp = [cell(f"p{i}") for i in range(12)]
    forecast = progress.Forecast(titan + pdftsp)
    prior = progress.PRIOR_CELLS * 52 / 16  # three of the batch's average cells
    for c in titan[:2]:  # Titan's cells take half what the model says
        forecast.done(c, 5.0)
    assert forecast.spent == 10
    batch = (10 + prior) / (20 + prior)
    assert forecast.ratio() == pytest.approx(batch)
    # Titan's ratio leans on the batch's by three Titan cells; pdFTSP has no cell done
    # and takes the batch's ratio
    titan_ratio = (10 + 30 * batch) / (20 + 30)
    assert forecast.ratio(("pdftsp", "titan")) == pytest.approx(titan_ratio)
    assert forecast.left() == pytest.approx(20 * titan_ratio + 12 * batch)
    for c in pdftsp[:9]:  # pdFTSP's take three times the model
        forecast.done(c, 3.0)
    batch = (37 + prior) / (29 + prior)
    own = (27 + 3 * batch) / (9 + 3)
    assert forecast.ratio(("pdftsp", "pdftsp")) == pytest.approx(own)
    assert forecast.left() == pytest.approx(20 * (10 + 30 * batch) / 50 + 3 * own)
    assert own > 2.5  # nine cells outweigh three cells of prior


def test_one_slow_first_cell_moves_its_policy_little(model):
    cells = [cell(f"p{i}") for i in range(100)]
    forecast = progress.Forecast(cells)
    forecast.done(cells[0], 5.0)  # the worker compiled the kernels in its first cell
    assert forecast.left() < 0.6 * 99 * 5  # not 99 x 5


def test_the_bar_leaves_cells_found_done_out_and_ends_at_the_cpu_spent(model, capsys):
    cells = [cell(f"t{i}", "titan") for i in range(2)] + [cell(f"p{i}") for i in range(3)]
    bar = progress.Bar(cells, found=7, name="batch", progress=True)
    assert bar.bar.total == 23  # the model's seconds of the five cells, not of the 12
    for c, cpu in zip(cells, (20.0, 20.0, 2.0, 2.0, 2.0), strict=True):
        bar.update(c, cpu, ok=True)
    assert bar.bar.n == bar.bar.total == 46
    bar.close()
    err = capsys.readouterr().err
    assert "46/46 CPU-s" in err and "cells=12/12" in err and "found=7" in err
