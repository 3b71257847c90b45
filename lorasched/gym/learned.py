"""The kept runs of :mod:`lorasched.gym.learn` as the "Learned policies" page shows them:
each policy's means with 95 % intervals and the paired differences (:func:`tables`), what
each difference decides (:func:`reading`), the seconds per decision
(:func:`decision_seconds`) and the learning curves (:func:`learning_curves`). Needs no torch.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..model.errors import InputError
from ..model.student import t975
from .learn import HIGHER_IS_BETTER, POLICIES, load_runs


def _interval(x) -> tuple[float, float, float, int]:
    """Mean and 95 % Student-t interval of ``x`` (the mean alone for one value)."""
    x = np.asarray(x, dtype=float)
    mean = float(x.mean())
    if x.size < 2:
        return mean, mean, mean, int(x.size)
    half = t975(x.size - 1) * float(x.std(ddof=1)) / np.sqrt(x.size)
    return mean, mean - half, mean + half, int(x.size)


def tables(data: dict | None = None) -> dict[str, pd.DataFrame]:
    """The kept runs as the page's two tables.

    Parameters
    ----------
    data : dict, optional
        The kept runs, as :func:`~lorasched.gym.learn.keep_runs` writes them (default:
        :func:`~lorasched.gym.learn.load_runs`).

    Returns
    -------
    dict of str to pandas.DataFrame
        ``"policies"``: per configuration, metric and policy, the mean over the held-out
        scenarios with its 95 % interval: for ``learned``, over the training seeds (each
        seed's mean over the scenarios; ``n`` seeds), for ``random`` and ``paper``, over the
        scenarios (``n`` scenarios; ``over`` says which). ``"differences"``: learned minus
        paper and learned minus random, paired scenario by scenario, each training seed's
        mean difference, with the mean and 95 % interval over the training seeds, and
        ``better_share``, the share of (seed, scenario) pairs where learned is better
        (:data:`~lorasched.gym.learn.HIGHER_IS_BETTER`); paper minus random over the scenarios.
    """
    data = load_runs() if data is None else data
    policies, differences = [], []
    for name, config in data["settings"]["configs"].items():
        env_id, runs = config["env_id"], data["runs"][name]
        system = data["objectives"][env_id]["system"]
        for metric in data["metrics"][env_id]:
            key = dict(config=name, system=system, metric=metric)
            learned = np.array([r["learned"][metric] for r in runs["learned"]])
            rows = {"learned": (_interval(learned.mean(axis=1)), "training seeds")}
            for policy in ("random", "paper"):
                rows[policy] = (_interval(runs[policy][metric]), "held-out scenarios")
            for policy, ((mean, low, high, n), over) in rows.items():
                policies.append({**key, "policy": policy, "mean": mean, "low": low,
                                 "high": high, "n": n, "over": over})
            sign = 1.0 if HIGHER_IS_BETTER[metric] else -1.0
            for other in ("paper", "random"):
                diff = learned - np.asarray(runs[other][metric])[None, :]
                mean, low, high, n = _interval(diff.mean(axis=1))
                differences.append({**key, "comparison": f"learned - {other}",
                                    "mean": mean, "low": low, "high": high, "n": n,
                                    "over": "training seeds",
                                    "better_share": float(np.mean(sign * diff > 0))})
            diff = np.asarray(runs["paper"][metric]) - np.asarray(runs["random"][metric])
            mean, low, high, n = _interval(diff)
            differences.append({**key, "comparison": "paper - random", "mean": mean,
                                "low": low, "high": high, "n": n,
                                "over": "held-out scenarios",
                                "better_share": float(np.mean(sign * diff > 0))})
    return {"policies": pd.DataFrame(policies), "differences": pd.DataFrame(differences)}


def reading(differences: pd.DataFrame) -> pd.Series:
    """What each row of :func:`tables`' ``"differences"`` decides at 95 %.

    Parameters
    ----------
    differences : pandas.DataFrame
        With ``comparison`` (``"A - B"``), ``metric``, ``low`` and ``high``.

    Returns
    -------
    pandas.Series
        ``"A better"`` or ``"B better"`` where the interval excludes 0 (better by
        :data:`~lorasched.gym.learn.HIGHER_IS_BETTER`), else ``"not decided"``; the rows' index.
    """
    out = []
    for row in differences.itertuples():
        first, second = row.comparison.split(" - ")
        higher = HIGHER_IS_BETTER[row.metric]
        if row.low > 0:
            out.append(f"{first if higher else second} better")
        elif row.high < 0:
            out.append(f"{second if higher else first} better")
        else:
            out.append("not decided")
    return pd.Series(out, index=differences.index, name="at 95 %")


def decision_seconds(data: dict | None = None) -> pd.DataFrame:
    """Each policy's wall seconds per decision on the held-out scenarios, per configuration
    (the learned policy's averaged over its training seeds); the environment's own work
    (the simulator, the observation) is not counted.

    Parameters
    ----------
    data : dict, optional
        The kept runs, as :func:`~lorasched.gym.learn.keep_runs` writes them (default:
        :func:`~lorasched.gym.learn.load_runs`).

    Returns
    -------
    pandas.DataFrame
        Index the configurations, columns :data:`~lorasched.gym.learn.POLICIES`, values in seconds.
    """
    data = load_runs() if data is None else data
    rows = {}
    for name, runs in data["runs"].items():
        learned = np.mean([np.mean(r["learned"]["seconds_per_decision"])
                           for r in runs["learned"]])
        rows[name] = {"learned": float(learned),
                      **{p: float(np.mean(runs[p]["seconds_per_decision"]))
                         for p in ("random", "paper")}}
    return pd.DataFrame.from_dict(rows, orient="index")[list(POLICIES)]


def learning_curves(data: dict | None = None, window: int = 20) -> go.Figure:
    """The kept runs' learning curves, one panel per configuration.

    Parameters
    ----------
    data : dict, optional
        The kept runs, as :func:`~lorasched.gym.learn.keep_runs` writes them (default:
        :func:`~lorasched.gym.learn.load_runs`).
    window : int, optional
        Training episodes averaged in each point (a trailing mean; default 20).

    Returns
    -------
    plotly.graph_objects.Figure
        Per training seed, the episode return (training scenarios) against the
        environment steps; dashed, the random and paper policies' mean return on the
        held-out scenarios.

    Raises
    ------
    InputError
        If ``window`` is not a positive integer.
    """
    if isinstance(window, bool) or not isinstance(window, numbers.Integral) or window < 1:
        raise InputError(f"window must be an integer >= 1, got {window!r}")
    data = load_runs() if data is None else data
    configs = data["settings"]["configs"]
    fig = make_subplots(rows=len(configs), cols=1, subplot_titles=list(configs),
                        vertical_spacing=0.08)
    colours = {"random": "#6c757d", "paper": "#e76f51"}
    for row, name in enumerate(configs, start=1):
        runs = data["runs"][name]
        for run in runs["learned"]:
            returns = np.asarray(run["curve"]["returns"], dtype=float)
            smooth = np.convolve(returns, np.ones(window), "full")[:returns.size]
            smooth /= np.minimum(np.arange(1, returns.size + 1), window)
            fig.add_trace(go.Scatter(x=run["curve"]["steps"], y=smooth, mode="lines",
                                     name=f"learned, seed {run['seed']}",
                                     legendgroup=f"seed {run['seed']}", showlegend=row == 1),
                          row=row, col=1)
        for policy, colour in colours.items():
            fig.add_hline(y=float(np.mean(runs[policy]["return"])), line_dash="dash",
                          line_color=colour, row=row, col=1,
                          annotation_text=f"{policy} (held-out)",
                          annotation_position="bottom right")
        fig.update_yaxes(title_text="episode return", row=row, col=1)
    fig.update_xaxes(title_text="environment steps", row=len(configs), col=1)
    fig.update_layout(height=260 * len(configs), template="plotly_white",
                      margin=dict(t=40, b=40))
    return fig
