"""Seren's published duration statistics (the Allpass paper's Fig. 1, :data:`SEREN_FIG1`)
and how far each substitute lorasched holds lies from them (:func:`seren_fit`): the
measurement that chooses the headline workload (:data:`.workload.HEADLINE_SOURCE`,
:func:`best_fitting`). Seren itself is public (InternLM/AcmeTrace) but not shipped here.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..model.errors import InputError
from ..model.traces import read_trace
from .workload import MIXTURE, SOURCES, fig1_shares, mixture_stats


@dataclass(frozen=True)
class Published:
    """One share Fig. 1's text publishes for Seren: the share (0-1) of ``what``, a
    ``"point"`` ("approximately 83 %") or a ``"lower bound"`` ("over 84 %"), and where
    the paper says it."""

    key: str  # the key of ``workload.fig1_shares`` it compares with
    what: str
    share: float
    kind: str
    source: str


#: Fig. 1's published statistics of Seren, with their source (sec. 2.2, the text beside
#: Fig. 1; the figure's curves are not published as numbers). Table 1's Seren row (mean,
#: P50, P90) is left out on purpose: the mixture is fitted to it, so it cannot judge it.
SEREN_FIG1 = (
    Published("share_within_10min", "jobs within 10 min", 0.83, "point",
              "sec. 2.2, beside Fig. 1: \"In the Seren LLM development trace ... "
              "approximately 83% jobs complete within 10 minutes\""),
    Published("top10_time_share", "GPU time held by the longest 10 % of jobs", 0.84,
              "lower bound",
              "sec. 2.2, Fig. 1: \"the top 10% longest training jobs contribute to over "
              "84% of total GPU time\" (said of all four traces, Seren among them)"),
)
KINDS = ("point", "lower bound")

#: the candidates measured: the workload's sources (``workload.SOURCES``: what the
#: headline chooses between) and, for comparison, every other shipped trace (their
#: short names, ``lorasched.model.traces.read_trace``)
CANDIDATES = {"helios": "Helios Venus",
              "mixture": "the mixture fitted to Seren's Table 1",
              "acme": "the Kalos subset (Acme)",
              "philly": "Philly",
              "mlaas": "Alibaba's Platform for AI (PAI), thinned"}


def published_table() -> pd.DataFrame:
    """:data:`SEREN_FIG1` as a table: statistic, Seren's share (percent), kind, source."""
    return pd.DataFrame([{"statistic": p.what, "Seren (%)": 100 * p.share, "kind": p.kind,
                          "source": p.source} for p in SEREN_FIG1])


def share_distance(share, published: Published) -> float:
    """The total-variation distance between a candidate's two-part share vector
    ``(share, 1 - share)`` and Seren's: ``|share - p|`` for a point, and for a lower bound
    the distance to the nearest vector the bound admits, ``max(0, p - share)``."""
    s = _share("share", share)
    if not isinstance(published, Published) or published.kind not in KINDS:
        raise InputError(f"published must be a Published of kind {list(KINDS)}, got "
                         f"{published!r}")
    return _distance(s, published)


def _distance(s: float, p: Published) -> float:
    return abs(s - p.share) if p.kind == "point" else max(0.0, p.share - s)


def seren_distance(shares: Mapping) -> dict[str, float]:
    """The distance of a candidate's Fig. 1 shares to Seren's, per statistic of
    :data:`SEREN_FIG1` (keyed like ``workload.fig1_shares``) and ``"overall"``, the
    largest of them.

    The distance is the total-variation distance (:func:`share_distance`): each statistic
    splits the jobs (by count, or by GPU time) into two parts, and the total-variation
    distance is the largest difference in share any part can show, in share points. The
    statistics split different totals, so they are not one distribution; the overall
    distance is their maximum, how far the worst-fitting published share is off (a good
    fit to one cannot buy back a misfit to another).

    Raises
    ------
    InputError
        ``shares`` not a mapping holding every statistic as a share in [0, 1].
    """
    if not isinstance(shares, Mapping):
        raise InputError(f"shares must be a mapping of {[p.key for p in SEREN_FIG1]} to "
                         f"shares in [0, 1], got {shares!r}")
    missing = [p.key for p in SEREN_FIG1 if p.key not in shares]
    if missing:
        raise InputError(f"shares lacks {missing}")
    out = {p.key: _distance(_share(p.key, shares[p.key]), p) for p in SEREN_FIG1}
    return {**out, "overall": max(out.values())}


def _share(name: str, value) -> float:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not math.isfinite(value) or not 0 <= value <= 1):
        raise InputError(f"{name} must be a share in [0, 1], got {value!r}")
    return float(value)


def mixture_shares(params: dict | None = None) -> dict[str, float]:
    """Fig. 1's two shares of the duration mixture (``params`` like
    ``workload.MIXTURE``, default it), from its distribution, not a sample: the share
    of jobs within 10 min, and the share of the mean held by the jobs above its P90,
    ``sum_i w_i exp(mu_i + sigma_i^2 / 2) Phi((mu_i + sigma_i^2 - ln q) / sigma_i) /
    mean`` (a log-normal's partial expectation)."""
    p = MIXTURE if params is None else params
    stats = mixture_stats(p)
    q = stats["p90"]
    parts = ((p["weight"], p["mu_short"], p["sigma_short"]),
             (1 - p["weight"], p["mu_long"], p["sigma_long"]))
    above = sum(w * math.exp(mu + s * s / 2)
                * 0.5 * (1 + math.erf((mu + s * s - math.log(q)) / (s * math.sqrt(2))))
                for w, mu, s in parts)
    return {"share_within_10min": stats["share_within_10min"],
            "top10_time_share": above / stats["mean"]}


def candidate_shares(name: str) -> dict[str, float]:
    """Fig. 1's shares of candidate ``name`` (``CANDIDATES``): the mixture's from its
    distribution (:func:`mixture_shares`), a trace's over its rows with a positive
    duration (the rows the workload draws from)."""
    if name not in CANDIDATES:
        raise InputError(f"candidate must be one of {list(CANDIDATES)}, got {name!r}")
    if name == "mixture":
        return mixture_shares()
    d = read_trace(name).duration_s.astype(float)
    return fig1_shares(d[d > 0])


def seren_fit(candidates=None) -> pd.DataFrame:
    """Each candidate's Fig. 1 shares and their distance to Seren's (:func:`seren_distance`),
    one row per candidate (``candidates``: names of ``CANDIDATES``, default all), best
    first: columns ``candidate``, ``name``, ``source`` (whether the workload can run it as
    ``source``), each statistic's share and its distance (``<key>_distance``), and
    ``overall``."""
    names = list(CANDIDATES) if candidates is None else list(candidates)
    if not names:
        raise InputError("candidates must name at least one of "
                         f"{list(CANDIDATES)}")
    rows = []
    for name in names:
        shares = candidate_shares(name)
        dist = seren_distance(shares)
        rows.append({"candidate": name, "name": CANDIDATES[name], "source": name in SOURCES,
                     **{p.key: shares[p.key] for p in SEREN_FIG1},
                     **{f"{p.key}_distance": dist[p.key] for p in SEREN_FIG1},
                     "overall": dist["overall"]})
    frame = pd.DataFrame(rows)
    order = np.lexsort((np.arange(len(frame)), frame["overall"].to_numpy()))
    return frame.iloc[order].reset_index(drop=True)


def best_fitting(fit: pd.DataFrame | None = None) -> str:
    """The workload source (``workload.SOURCES``) whose Fig. 1 shares lie closest to
    Seren's (``fit``: a :func:`seren_fit` table, default computed): the headline's choice."""
    frame = seren_fit(SOURCES) if fit is None else fit
    runnable = frame[frame["source"]]
    if runnable.empty:
        raise InputError("the fit holds no workload source "
                         f"{list(SOURCES)}")
    return str(runnable.sort_values("overall", kind="stable")["candidate"].iloc[0])

