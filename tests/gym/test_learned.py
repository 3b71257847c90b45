"""lorasched.gym.learned: the kept runs as the page's tables and figure, on kept runs in
miniature whose numbers are worked by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from lorasched.gym import IDS, learn, learned
from lorasched.model.errors import InputError


def fake_runs() -> dict:
    """Kept runs in miniature, with numbers worked by hand: two training seeds, two
    held-out scenarios, one configuration (TITAN: lower is better)."""
    env_id = IDS["titan"]

    def ev(values):
        return {"scenario_seed": [1, 2], "return": [-v for v in values],
                "decisions": [3, 3], "mean_jct_h": values, "seconds_per_decision": [0, 0]}

    learned = [{"seed": s, "steps": 8, "curve": {"steps": [2, 5, 8], "returns": r},
                "learned": ev(v), "cpu_seconds": {"train": 1.0, "evaluate": 0.1}}
               for s, r, v in ((0, [-3.0, -2.0, -1.0], [1.0, 3.0]),
                               (1, [-4.0, -2.0, -2.0], [2.0, 4.0]))]
    return {"settings": {"configs": {"allocation": {"env_id": env_id, "env_options": {},
                                                    "steps": 8}}},
            "objectives": learn.OBJECTIVES, "metrics": learn.METRICS,
            "runs": {"allocation": {"learned": learned, "random": ev([4.0, 6.0]),
                                    "paper": ev([2.0, 2.0])}}}


def test_the_tables_give_means_intervals_and_paired_differences():
    t = learned.tables(fake_runs())
    p = t["policies"].set_index("policy")
    # learned: the seeds' means 2 and 3 -> 2.5 +- t(1) * 0.7071 / sqrt(2) = 2.5 +- 6.353
    assert p.loc["learned", "mean"] == 2.5 and p.loc["learned", "n"] == 2
    assert p.loc["learned", "high"] - 2.5 == pytest.approx(12.706 * 0.5)
    assert p.loc["learned", "over"] == "training seeds"
    assert p.loc["random", "mean"] == 5.0 and p.loc["random", "over"] == "held-out scenarios"
    assert p.loc["paper", "low"] == p.loc["paper", "high"] == 2.0
    d = t["differences"].set_index("comparison")
    # learned - paper: seed 0 (-1, +1) -> 0, seed 1 (0, 2) -> 1; better (lower) in 1 of 4
    assert d.loc["learned - paper", "mean"] == 0.5
    assert d.loc["learned - paper", "better_share"] == 0.25
    assert d.loc["learned - random", "mean"] == -2.5
    assert d.loc["learned - random", "better_share"] == 1.0
    assert d.loc["paper - random", "mean"] == -3.0 and d.loc["paper - random", "n"] == 2


def test_the_learning_curves_are_trailing_means_beside_the_baselines():
    fig = learned.learning_curves(fake_runs(), window=2)
    lines = [trace for trace in fig.data if trace.mode == "lines"]
    assert [list(t.y) for t in lines] == [[-3.0, -2.5, -1.5], [-4.0, -3.0, -2.0]]
    assert list(lines[0].x) == [2, 5, 8]
    levels = sorted(shape.y0 for shape in fig.layout.shapes)
    assert levels == [-5.0, -2.0]                  # random's and paper's mean return
    with pytest.raises(InputError, match="window"):
        learned.learning_curves(fake_runs(), window=0)


def test_the_reading_says_which_side_an_interval_decides():
    rows = pd.DataFrame([
        {"comparison": "learned - paper", "metric": "welfare", "low": 0.5, "high": 2.0},
        {"comparison": "learned - paper", "metric": "mean_jct_h", "low": 0.5, "high": 2.0},
        {"comparison": "paper - random", "metric": "cost_usd", "low": -3.0, "high": -1.0},
        {"comparison": "paper - random", "metric": "welfare", "low": -3.0, "high": -1.0},
        {"comparison": "learned - random", "metric": "welfare", "low": -1.0, "high": 1.0},
    ])
    assert list(learned.reading(rows)) == ["learned better", "paper better", "paper better",
                                         "random better", "not decided"]


def test_decision_seconds_average_each_policys_records():
    data = {"runs": {"c": {
        "learned": [{"learned": {"seconds_per_decision": [1.0, 3.0]}},
                    {"learned": {"seconds_per_decision": [5.0, 7.0]}}],
        "random": {"seconds_per_decision": [0.5, 1.5]},
        "paper": {"seconds_per_decision": [2.0, 2.0]}}}}
    table = learned.decision_seconds(data)
    assert table.loc["c"].to_dict() == {"learned": 4.0, "random": 1.0, "paper": 2.0}
    assert list(table.columns) == list(learn.POLICIES)
