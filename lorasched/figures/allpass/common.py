"""What Allpass's section-5 pages share: the policies and their names, the paper's numbers,
the runs behind Figs. 6-12 (:func:`runs`, kept by the experiment engine: :mod:`.declared`)
and the per-seed estimates the verdicts are judged on (:class:`AllpassData`). See
:doc:`/reference/figures`.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import xarray as xr

from ... import systems
from ...allpass.policies import LABELS
from ...allpass.workload import PAPER_JOBS, PAPER_WORK_H
from ...model.errors import InputError
from ..base import SCALES, Figure, Prose, seed_words
from ..centres import centre, fmt, seeds_estimate
from ..numbers import interval, num, pct
from ..prose import says
from ..sequential import Design
from ..verdicts import (
    CONSISTENT,
    CONTRADICTED,
    INCONCLUSIVE,
    MAGNITUDE_OFF,
    NOT_TESTABLE,
    RATIO,
    REPRODUCED,
    SHARE,
    Estimate,
    inconclusive_why,
)
from .declared import (
    _JOBS,
    ALGORITHMS,
    BEYOND_TEXT,
    COUNTERFACTUAL_RUNS,
    DESIGNS,
    READINGS,
    SETUPS,
    kept_runs,
    look_parts,
    parts,
    seed_list,
)
from .looks import final_rows

SETUP_NAMES = {"limited": "limited capacity (30 serverful A100s)",
               "unlimited": "unlimited capacity"}
NAMES = dict(LABELS) | {"allpass_literal": "Allpass (literal Alg. 2)",
                        "allpass_window": "Allpass (literal window)",
                        "allpass_overhead": "Allpass (4.7 min per demotion)",
                        "allpass_laxity": "Allpass (necessary demand)",
                        "allpass_slip": "Allpass (units slip)",
                        "tl_p_overhead": "TL-P (4.7 min per preemption)"}
#: where a run's jobs come from, by workload source (the setting's words; the headline's
#: source: :data:`lorasched.allpass.workload.HEADLINE_SOURCE`)
WORKLOAD_WORDS = {"helios": "from a Helios Venus window: trace durations",
                  "mixture": "drawn from the log-normal mixture fitted to Seren's Table 1, "
                             "arriving as a Poisson process at Helios Venus's mean gap: "
                             "durations"}
#: the jobs of a run, by workload source, as a why names them (with its verb)
JOBS_GIVE = {"helios": "lorasched's Helios window gives",
             "mixture": "lorasched's jobs drawn from the Seren mixture give"}
#: Fig. 6 (limited): share of jobs with JCT <= 10 min, percent
PAPER_FIG6 = {"allpass": 68.5, "tl_np": 12.5, "tl_p": 48.0, "sjf_np": 54.5, "sjf_p": 46.5}
#: Fig. 7: HPA's average JCT over Allpass's (unlimited)
PAPER_HPA_JCT_RATIO = 2.53
#: Fig. 8: Modal's wait, Allpass's queueing and demotion overhead, min; share not demoted
PAPER_FIG8 = {"modal_wait": 0.1, "allpass_queue": 0.4, "allpass_overhead": 1.4,
              "serverless_only": 0.70}
#: Fig. 9: USD (Allpass, Tiresias-L, SJF; Allpass's serverless part), cost ratios
PAPER_FIG9 = {"allpass": 236.69, "tl": 258.54, "sjf": 264.78, "allpass_serverless": 18.02,
              "hpa_ratio": 1.9, "modal_ratio": 2.95}
#: Fig. 10: most serverful workers under Allpass (cap 30), HPA's peak "over 60"
PAPER_FIG10 = {"allpass_peak": 27, "hpa_peak": 60}
#: Fig. 11: Allpass's median JCT (min) and its reduction against Fixed-60s / -600s, percent
PAPER_FIG11 = {"median": 2.86, "vs60": 71.01, "vs600": 35.94}
#: Fig. 12 / A.2: average marketplace price, savings against Lambda and Modal, percent
PAPER_FIG12 = {"price": 0.74, "vs_lambda": 42.6, "vs_modal": 64.7}

def scale(size: str = "small", seeds: int | None = None) -> str:
    """The size's scale in words: jobs and seeds."""
    return f"{_JOBS[size]} jobs per run, {seed_words(len(seed_list(size, seeds)))} per setup"


SCALES["allpass"] = scale


def runs(size: str = "small", seeds: int | None = None, progress: bool = False,
         store=None) -> dict:
    """Every checked run of the pages, ``(setup, algorithm, seed) -> result Dataset``: the
    kept results of :func:`.declared.parts` in ``store`` (default
    :func:`..base.default_store`; ``False``: a temporary folder), the runs it lacks computed
    first by the experiment engine (serially at the small size, on Dask at the full one)."""
    return kept_runs(parts(size, seeds), size, store, progress=progress)


#: the metrics of the last few run dicts, by identity (each page of a process builds its
#: data from the same cached runs: their metrics are computed once)
_METRICS: dict[int, tuple[dict, xr.Dataset]] = {}


def _shared_metrics(results: dict) -> xr.Dataset:
    hit = _METRICS.get(id(results))
    if hit is not None and hit[0] is results:
        return hit[1]
    if len(_METRICS) >= 4:
        _METRICS.pop(next(iter(_METRICS)))
    _METRICS[id(results)] = (results, metrics(results))
    return _METRICS[id(results)][1]


def metrics(results: dict) -> xr.Dataset:
    """The :data:`lorasched.allpass.system.METRICS` of every run, over ``setup x
    algorithm x seed`` (the readings of :data:`READINGS` as algorithms, NaN in the
    unlimited setup, where they are not run; then the runs of :data:`BEYOND_TEXT` and
    :data:`COUNTERFACTUAL_RUNS`)."""
    system = systems.get("allpass")
    keys = sorted({k[2] for k in results})
    algorithms = ALGORITHMS + list(READINGS) + list(BEYOND_TEXT) + list(COUNTERFACTUAL_RUNS)
    arrays = {m: np.full((len(SETUPS), len(algorithms), len(keys)), np.nan)
              for m in system.metrics}
    at = ({s: i for i, s in enumerate(SETUPS)}, {a: i for i, a in enumerate(algorithms)},
          {k: i for i, k in enumerate(keys)})
    measured = getattr(results, "measured", None)  # a store's records, none read (Runs)
    for setup, alg, seed in results:
        where = (at[0][setup], at[1][alg], at[2][seed])
        res = None if measured else results[setup, alg, seed]
        values = measured((setup, alg, seed)) if measured else system.measure(res, res)
        for m, v in values.items():
            arrays[m][where] = v
    return xr.Dataset({m: (("setup", "algorithm", "seed"), a) for m, a in arrays.items()},
                      coords={"setup": list(SETUPS), "algorithm": algorithms, "seed": keys})


def identical(data, metric: str, setup: str, algorithms) -> bool:
    """Whether ``algorithms`` give the same ``metric`` on every seed: the setting lacks the
    contention that an ordering claim between them needs (judged *not testable here*)."""
    v = np.array([data.values(metric, setup, a) for a in algorithms], dtype=float)
    return bool(np.isfinite(v).all() and (np.ptp(v, axis=0) == 0).all())


def untestable(claim_text: str, variant: str, paper: str, data, metric: str, setup: str,
               algorithms, what: str) -> dict:
    """A claim row judged *not testable here*: ``algorithms`` give identical ``metric``
    on every seed, so no ordering between them can show (``what`` names the metric)."""
    names = ", ".join(NAMES[a] for a in algorithms)
    return {"claim": claim_text, "variant": variant, "paper": paper, "verdict": NOT_TESTABLE,
            "ours": f"identical on all {len(data.seeds)} seeds",
            "why": f"{names} give the same {what} on every one of the {len(data.seeds)} "
                   "seeds: no job waits behind another in this setting, so the policies' "
                   "orders never differ and the claim has nothing to order."}


#: the metrics that are shares of jobs or ticks (0 to 1): their centre over seeds is the
#: back-transformed mean of their logit, as their claims' (every other metric is positive,
#: its centre the geometric mean)
SHARES = ("share_10min", "demoted_share")


def column_centres(frame: pd.DataFrame) -> pd.Series:
    """The centre of each column of a per-seed table (its ``seed`` column left out): a
    column in percent (its name ends in "(%)") on the share's scale, any other as a positive
    quantity (:func:`centre`)."""
    return pd.Series({c: centre(frame[c], SHARE if c.endswith("(%)") else RATIO)
                      for c in frame.columns if c != "seed"}, dtype=float)


def share(x: float) -> str:
    """A share (0-1) as a percentage without sign: ``68.5 %`` -> ``68 %``."""
    return pct(100 * x, sign=False)


class AllpassData:
    """The runs and their metrics, what every Allpass page reads.

    Parameters
    ----------
    size : str
        ``"small"`` or ``"full"``.
    results : dict
        ``(setup, algorithm key, seed) -> result Dataset`` (:func:`runs`).
    store : path, False or None, optional
        The store the runs were read from, where a page finds the other runs it reads
        (an alternative's, :func:`.sensitivity.alternative_runs`; the second look's);
        None: the default.
    design : Design, optional
        The sequential design its claims are judged under (:mod:`.looks`: the pages' own
        seeds); None for one look (seeds of the caller's choosing, an alternative's runs).
    """

    def __init__(self, size: str, results: dict, store=None, design: Design | None = None):
        self.size = size
        self.results = results
        self.store = store
        self.metrics = _shared_metrics(results)
        self.seeds = sorted({k[2] for k in results})
        self.design = design

    def source(self) -> str | None:
        """What the runs are, none read (:meth:`.declared.Runs.source` and the size): the
        data file of the same source need not be written again; None where a run is held
        in memory."""
        source = getattr(self.results, "source", lambda: None)()
        return None if source is None else f"{self.size}:{source}"

    def cached(self, key, compute):
        """``compute()``, computed once per ``key`` for these runs (a page's measured
        tables are read by several of its claims)."""
        memo = self.__dict__.setdefault("_memo", {})
        if key not in memo:
            memo[key] = compute()
        return memo[key]

    def values(self, metric: str, setup: str, algorithm: str) -> np.ndarray:
        """One value of ``metric`` per seed."""
        return self.metrics[metric].sel(setup=setup, algorithm=algorithm).values.astype(float)

    def m(self, metric: str, setup: str, algorithm: str) -> float:
        """The centre of ``metric`` over seeds, as its claims take it (:func:`centre`): the
        geometric mean, or for a share (:data:`SHARES`) the back-transformed mean of its
        logit."""
        v = self.values(metric, setup, algorithm)
        return centre(100 * v, SHARE) / 100 if metric in SHARES else centre(v)

    def est(self, metric: str, setup: str, algorithm: str, scale: float = 1.0,
            on: str = RATIO) -> Estimate:
        """The centre of ``metric`` (times ``scale``) with its 95 % interval over seeds, on
        scale ``on`` (default: a positive quantity, on the log scale)."""
        return seeds_estimate(scale * self.values(metric, setup, algorithm), on)

    def per_seed(self, setup: str, algorithm: str, f) -> np.ndarray:
        """``f(run)`` of each seed's run (NaN for a seed without that run)."""
        return np.array([float(f(self.results[setup, algorithm, s]))
                         if (setup, algorithm, s) in self.results else np.nan
                         for s in self.seeds])

    def has(self, setup: str, algorithm: str, seed: int) -> bool:
        return (setup, algorithm, seed) in self.results

    def jct_min(self, setup: str, algorithm: str) -> np.ndarray:
        """Every job's JCT (min) over all seeds."""
        return np.concatenate([self.results[setup, algorithm, s]["jct_s"].values / 60
                               for s in self.seeds])

    def capacity(self, setup: str):
        """The serverful cap of ``setup``'s runs, as their scenario records it (an
        alternative of the sensitivity page changes it), else :data:`SETUPS`'s."""
        key = next((k for k in self.results if k[0] == setup), None)
        attrs = {} if key is None else self.results[key].attrs
        return attrs["capacity"] if "capacity" in attrs else SETUPS[setup]

    def run(self, setup: str, algorithm: str, seed: int | None = None) -> xr.Dataset:
        return self.results[setup, algorithm, self.seeds[0] if seed is None else seed]


class AllpassFigure(Figure):
    """An Allpass page drawn from the shared runs."""

    system = "allpass"
    variant_column = "setup"
    data_name = "runs"  # every such page draws from the same runs: one data file

    def data(self, size: str = "small", *, store=None, seeds: int | None = None,
             workers: int | None = None, scheduler: str | None = None,
             serial: bool | None = None, progress: bool = False) -> AllpassData:
        """The shared runs (:func:`runs`), read from ``store``'s kept results; the runs it
        lacks are computed first by the experiment engine, where ``workers``,
        ``scheduler`` and ``serial`` say (as :meth:`Figure.data
        <lorasched.figures.base.Figure.data>`: serially at the small size by default).
        At the size's own seeds, its claims are judged under the size's sequential design
        (:data:`DESIGNS`)."""
        results = kept_runs(parts(size, seeds), size, store, serial=serial, workers=workers,
                            scheduler=scheduler, progress=progress)
        first = DESIGNS[size].first
        design = DESIGNS[size] if seeds is None or int(seeds) == first else None
        return AllpassData(size, results, store, design)

    def first_rows(self, data: AllpassData) -> list[dict]:
        """The claim rows judged on ``data``'s seeds alone (the first look)."""
        raise NotImplementedError

    def claim_rows(self, data: AllpassData) -> list[dict]:
        """The claim rows after both looks (:func:`.looks.final_rows`): a headline row the
        pages' seeds leave undecided judged on the design's ``cap`` seeds."""
        design = data.design
        return final_rows(self, data, self.first_rows(data), design,
                          lambda: looked_data(data.size, data.store, design.first,
                                              design.cap))

    def setting(self, data: AllpassData) -> str:
        """The setting of the runs, in one paragraph (markdown)."""
        first = data.run("limited", "allpass")
        work = data.values("work_h", "limited", "allpass")
        seeds = data.seeds
        source = first.attrs["source"]
        drawn = WORKLOAD_WORDS.get(source, f"from {source}: durations")
        sizing = (f"the *cost sizing*: every job's work multiplied by "
                  f"{num(first.attrs['work_scale'])}, one factor set so that "
                  f"{num(PAPER_JOBS)} jobs hold, in expectation, the {num(PAPER_WORK_H)} "
                  "A100-hours the paper's Modal bill implies"
                  if first.attrs["sizing"] == "cost" else
                  "the trace sizing: the scaled durations as they are")
        return (
            f"{num(first.sizes['job'])} jobs per run {drawn} times "
            f"{num(first.attrs['duration_scale'])} ({sizing}), "
            f"inter-arrival times times {num(first.attrs['iat_scale'])}; "
            f"{num(centre(work))} A100-hours of work per seed "
            f"({num(work.min())} to {num(work.max())}). Seeds {seeds[0]} to {seeds[-1]} "
            f"({len(seeds)} runs of every policy); every verdict is judged on one value per "
            "seed, its centre and 95 % interval (Student's t). Every number over seeds on "
            "this page, in the claims, the data tables, the prose and the bars alike, is "
            "that centre: the geometric mean over seeds for a positive quantity (a time, "
            "a bill, a count; the arithmetic mean where a seed gives zero), and for a share "
            "the mean of its logit, transformed back; a table gives its 95 % interval in "
            "brackets. The limited setup caps the "
            f"serverful tier at {SETUPS['limited']} A100s; the unlimited one has no cap. "
            "A claim of the paper's own setting that these seeds leave undecided is judged "
            f"once more on {num(DESIGNS[data.size].cap)} seeds, at "
            f"{100 * DESIGNS[data.size].level:g} %, on the headline page of this part "
            "(its section on seeds added where they decide); the book counts that verdict.")

    def describe(self, data: AllpassData) -> Prose:
        return Prose(self.setting(data))


@functools.lru_cache(maxsize=2)
def looked_data(size: str, store, first: int, cap: int) -> AllpassData:
    """The runs of a second look: seeds 1 to ``cap`` (the pages' ``first`` and the added
    ones, :func:`.declared.look_parts`, read from ``store``'s kept results and computed
    first where it lacks them), judged in one look (made once per process)."""
    return AllpassData(size, runs(size, first, False, store)
                       | kept_runs(look_parts(size, Design(first, cap)), size, store), store)


def paper_table(data: AllpassData, rows: list[tuple]) -> pd.DataFrame:
    """A table of (label, setup, algorithm, metric, scale, formatter, paper) rows: ours
    (the centre over seeds and its interval, :func:`fmt`) beside the paper's (already
    formatted, or "")."""
    return pd.DataFrame([{"quantity": label, "setup": setup, "policy": NAMES[alg],
                          "lorasched": fmt(scale * data.values(metric, setup, alg), f),
                          "paper": paper}
                         for label, setup, alg, metric, scale, f, paper in rows])


def explain(verdict: str, est: Estimate, mechanism: str, threshold: float = 0.0,
            f=num) -> str:
    """The ``why`` of a claim row: for an *inconclusive* one, what its interval holds (or,
    when every seed gives the same number, that number), then ``mechanism``, the cause
    the page measures."""
    if verdict != INCONCLUSIVE:
        return mechanism
    if not est.spread:
        lead = (f"Every seed gives {f(est.mean)}, which is the threshold {f(threshold)} "
                "itself.")
    else:
        lead = inconclusive_why(est, threshold, f)
    return f"{lead} {mechanism}".strip()


def claim(claim: str, variant: str, paper: str, est: Estimate, verdict: str,
          mechanism: str, f=num, threshold: float = 0.0, ours: str | None = None,
          paper_value: float | None = None, side: int = 1) -> dict:
    """A claim row: ours as the estimate with its interval (``f`` formats each number),
    the verdict, and for a row not reproduced, why (:func:`explain`); ``paper_value``, the
    paper's number where the claim has one (a *magnitude off* row then says ours /
    paper), else the ``threshold`` and the ``side`` of it the paper puts the quantity on
    (what a counterfactual's effect is measured against: :func:`..causes.effect`)."""
    row = {"claim": claim, "variant": variant, "paper": paper, "estimate": est, "fmt": f,
           "ours": interval(est, f) if ours is None else ours, "verdict": verdict,
           "why": "" if verdict == REPRODUCED else explain(verdict, est, mechanism,
                                                           threshold, f)}
    if paper_value is not None:
        row["paper_value"] = float(paper_value)
    else:  # a direction claim: what its side is measured from
        row["threshold"], row["side"] = float(threshold), int(side)
    return row


#: the clouds by the names the paper gives them
CLOUD_NAMES = {"modal": "Modal", "vast": "Vast.ai", "lambda": "Lambda"}


def row_says(row: dict, what: str, texts: dict | None = None) -> str:
    """One sentence about claims row ``row`` (a :meth:`claim_rows` row, its verdict from
    the claim's own test), marked by :func:`~lorasched.figures.prose.says` with the row's
    claim and setup: ``texts[verdict]`` where given, else the common words about ``what``
    (the quantity the claim measures, e.g. "Allpass's lead over the next baseline"), ours
    as the row's centre (its formatter's) and the paper's as the row prints it. A row a
    second look judged (:mod:`.looks`) says on how many seeds."""
    verdict = row["verdict"]
    est = row.get("estimate")
    ours = row["fmt"](est.mean) if est is not None else row["ours"]
    paper = row["paper"] if row["paper"] not in ("", "yes") else ""
    theirs = f" (the paper: {paper})" if paper else ""
    common = {
        REPRODUCED: f"{what} is {ours}{theirs}, as the paper reports",
        CONSISTENT: f"{what} is {ours}, consistent with the paper's {paper} but not yet "
                    "decided: its interval is wider than the band",
        MAGNITUDE_OFF: f"{what} is {ours}: its magnitude differs from the paper's {paper} "
                       "beyond the band",
        CONTRADICTED: (f"{what} is {ours}, unlike the paper's {paper}" if paper else
                       f"unlike the paper, {what} is {ours}"),
        INCONCLUSIVE: f"{what} is {ours} on average, and the seeds cannot tell on which "
                      f"side of the claim it lies{theirs}",
        NOT_TESTABLE: f"{what} cannot be tested here (the claims table gives the reason)",
    }
    text = (texts or {}).get(verdict) or common.get(verdict)
    if text is None:
        raise InputError(f"{row['claim']}: no sentence for the verdict {verdict!r}")
    if row.get("first") is not None and est is not None:
        text = f"On the second look's {est.n} seeds, {text}"
    return says(verdict, text, row["claim"], row["variant"])


def row_of(rows: list[dict], start: str, variant: str | None = None) -> dict:
    """The one claims row of ``rows`` whose claim starts with ``start`` (and whose setup is
    ``variant``, where given), so a page's prose finds each row by what it claims."""
    found = [r for r in rows if r["claim"].startswith(start)
             and (variant is None or r["variant"] == variant)]
    if len(found) != 1:
        raise InputError(f"{len(found)} claims rows start with {start!r}")
    return found[0]
