"""Allpass's evaluation workload (sec. 5.1, ``allpass_workload``): 200 jobs from Helios
Venus or a log-normal mixture fitted to Seren's Table 1 (the headline's:
:data:`HEADLINE_SOURCE`, chosen by :mod:`.seren`), durations / 5, inter-arrival times
/ 15, Table 4's models, soft deadlines, work sized to the paper's implied 332 A100-h; with
``per_epoch_s``, the same jobs on a GPU of measured per-epoch seconds; and the scenario built
from it (:func:`allpass_scenario`: the jobs, the offer book and the serverful cap). Every rule
and number: :doc:`/reference/allpass_data`.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Mapping

import numpy as np
import xarray as xr

from ..model.errors import InputError
from ..model.libm import libm_exp, libm_log
from ..model.traces import read_trace
from .clouds import load_offer_book, offer_book
from .scenario import BOOK_HOURS, PAPER_CAPACITY, capacity_value, validate

#: the paper's job count and scales (sec. 5.1)
PAPER_JOBS = 200
DURATION_SCALE = 1 / 5
IAT_SCALE = 1 / 15
SOURCES = ("helios", "mixture")
#: the source the headline runs (every page's runs and the default of
#: ``allpass_workload``, :func:`allpass_scenario` and ``lorasched simulate``): the one
#: whose Fig. 1 shares lie closest to Seren's (:func:`lorasched.allpass.seren.best_fitting`;
#: a test holds the two equal); the other is the named alternative
HEADLINE_SOURCE = "mixture"
#: job sizing rules (module docstring)
SIZINGS = ("cost", "trace")
#: A100-hours of work implied by the paper's Modal-only bill (sec. 5.4: $698 = 2.95 x
#: $236.69 at Modal's $2.10/A100-h, Table 2)
PAPER_WORK_H = 2.95 * 236.69 / 2.10
#: Table 4: model -> per-epoch time on an A100 (s)
PER_EPOCH_S = {"LLaMA3-8B": 476.0, "LLaMA2-13B": 765.0, "BERT": 20.0}
#: where a job's per-epoch time comes from without ``per_epoch_s`` (attrs ``per_epoch_from_*``)
TABLE4_SOURCE = "Table 4 (A100)"
#: a job shorter than one LLaMA3-8B epoch is a BERT job (rule 3)
BERT_BELOW_S = PER_EPOCH_S["LLaMA3-8B"]
#: deadline factor range (sec. 5.1)
DEADLINE_FACTORS = (1.0, 10.0)
#: Seren's Table 1 runtimes (s)
SEREN_TABLE1 = {"mean": 1208.0, "p50": 22.0, "p90": 765.0}
#: fitted mixture (rule 2): short weight, (mu, sigma) of the short and the long log-normal
MIXTURE_WEIGHT = 0.8865002091826262
MIXTURE = {"weight": MIXTURE_WEIGHT, "mu_short": 2.8495059016884197, "sigma_short": 1.5,
           "mu_long": 8.10783369965974, "sigma_long": 1.5}
#: Fig. 1's short-job bound (s) and the top share of jobs whose time share it reports
SHORT_S = 600.0
TOP_SHARE = 0.1


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _mixture_cdf(x: float, p: dict) -> float:
    lx = math.log(x)
    return (p["weight"] * _phi((lx - p["mu_short"]) / p["sigma_short"])
            + (1 - p["weight"]) * _phi((lx - p["mu_long"]) / p["sigma_long"]))


def _mixture_quantile(prob: float, p: dict) -> float:
    lo, hi = -20.0, 30.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if _mixture_cdf(math.exp(mid), p) < prob:
            lo = mid
        else:
            hi = mid
    return math.exp((lo + hi) / 2)


def mixture_stats(params: dict | None = None) -> dict[str, float]:
    """Analytic mean, P50, P90 (s) and share of jobs within 10 min of the duration mixture
    (``params`` like :data:`MIXTURE`, default it)."""
    p = MIXTURE if params is None else params
    mean = (p["weight"] * math.exp(p["mu_short"] + p["sigma_short"] ** 2 / 2)
            + (1 - p["weight"]) * math.exp(p["mu_long"] + p["sigma_long"] ** 2 / 2))
    return {"mean": mean, "p50": _mixture_quantile(0.5, p), "p90": _mixture_quantile(0.9, p),
            "share_within_10min": _mixture_cdf(SHORT_S, p)}


def fit_mixture(sigma_short: float = 1.5, sigma_long: float = 1.5,
                target: dict | None = None) -> dict[str, float]:
    """The fit of rule 2: Newton's method for ``(logit w, mu_short, mu_long)`` matching the
    ``target`` mean, P50 and P90 (default :data:`SEREN_TABLE1`) at the given sigmas."""
    t = SEREN_TABLE1 if target is None else target
    goal = libm_log([t["p50"], t["p90"], t["mean"]])

    def params(x):
        return {"weight": 1 / (1 + math.exp(-x[0])), "mu_short": float(x[1]),
                "sigma_short": sigma_short, "mu_long": float(x[2]), "sigma_long": sigma_long}

    def resid(x):
        s = mixture_stats(params(x))
        return libm_log([s["p50"], s["p90"], s["mean"]]) - goal

    x = np.array([1.5, math.log(15.0), math.log(2000.0)])
    for _ in range(100):
        r = resid(x)
        if np.max(np.abs(r)) < 1e-12:
            break
        jac = np.empty((3, 3))
        for j in range(3):
            d = np.zeros(3)
            d[j] = 1e-6
            jac[:, j] = (resid(x + d) - r) / 1e-6
        x = x + np.clip(np.linalg.lstsq(jac, -r, rcond=None)[0], -1, 1)
    return params(x)


def table1_stats(durations) -> dict[str, float]:
    """Table 1's runtime columns of an array of job durations (s): ``mean``, ``p50``,
    ``p90`` (numpy's default linear percentiles). ``ValueError`` naming ``durations`` if it
    is empty or holds a negative or non-finite value."""
    d = np.asarray(durations, dtype=float).ravel()
    if d.size == 0 or not np.all(np.isfinite(d)) or np.any(d < 0):
        raise InputError("durations must be a non-empty array of finite non-negative "
                         "seconds")
    return {"mean": float(d.mean()), "p50": float(np.percentile(d, 50)),
            "p90": float(np.percentile(d, 90))}


def fig1_shares(durations) -> dict[str, float]:
    """Fig. 1's two claims: share of jobs lasting at most 10 min and share of total
    duration (GPU time here) held by the ``ceil(10 %)`` longest jobs."""
    table1_stats(durations)  # validates
    d = np.asarray(durations, dtype=float).ravel()
    top = np.sort(d)[::-1][:math.ceil(TOP_SHARE * d.size)]
    total = d.sum()
    return {"share_within_10min": float(np.mean(d <= SHORT_S)),
            "top10_time_share": float(top.sum() / total) if total > 0 else 0.0}


def trace_table1(trace="helios") -> dict[str, float]:
    """Table 1 and Fig. 1 statistics over all rows of a trace (short name or path):
    ``jobs``, ``mean``, ``p50``, ``p90``, ``share_within_10min``, ``top10_time_share``.
    Helios Venus: 125,303 jobs, 9,088 s / 204 s / 18,201 s, 67.1 % within 10 min, the top
    10 % hold 89.7 % of the time."""
    tr = read_trace(trace)
    if tr.duration_s is None:
        raise InputError(f"trace {str(tr.path)!r} needs the column 'duration_s'")
    d = tr.duration_s.astype(float)
    return {"jobs": int(d.size), **table1_stats(d), **fig1_shares(d)}


def _positive_real(name: str, value) -> float:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not math.isfinite(value) or value <= 0):
        raise InputError(f"{name} must be a positive finite number, got {value!r}")
    return float(value)


def _per_epoch_given(per_epoch_s, label) -> dict[str, float]:
    """``per_epoch_s`` validated: a non-empty mapping of Table 4's models to positive
    seconds; ``label`` a non-empty string."""
    if not isinstance(per_epoch_s, Mapping) or not per_epoch_s:
        raise InputError(f"per_epoch_s must be a non-empty dict of {list(PER_EPOCH_S)} to "
                         f"seconds per epoch, got {per_epoch_s!r}")
    for m in per_epoch_s:
        if m not in PER_EPOCH_S:
            raise InputError(f"per_epoch_s: {m!r} is not a model of Table 4 "
                             f"{list(PER_EPOCH_S)}")
    if not isinstance(label, str) or not label.strip():
        raise InputError(f"per_epoch_label must be a non-empty string, got {label!r}")
    return {m: _positive_real(f"per_epoch_s[{m!r}]", v) for m, v in per_epoch_s.items()}


def _on_given_gpu(model, epochs, work, given: dict[str, float]):
    """(work_s, per_epoch_s) of the jobs run at the given per-epoch seconds: a job of a
    given model keeps its epochs and takes ``epochs x per_epoch_s`` seconds; the others
    keep their A100 work exactly."""
    per_epoch = np.array([given.get(m, PER_EPOCH_S[m]) for m in model])  # Table 4's column
    mine = np.isin(model, list(given))
    return np.where(mine, epochs * per_epoch, work), per_epoch


def allpass_workload(jobs=PAPER_JOBS, source: str = HEADLINE_SOURCE, seed=0,
                     duration_scale=DURATION_SCALE, iat_scale=IAT_SCALE,
                     trace_file=None, sizing: str = "cost", per_epoch_s=None,
                     per_epoch_label: str = "given") -> xr.Dataset:
    """Allpass's workload of ``jobs`` fine-tuning jobs (rules in the module docstring).

    Parameters
    ----------
    jobs : int
        Number of jobs (the paper: 200).
    source : {"helios", "mixture"}
        A window of the Helios trace, or the log-normal mixture fitted to Seren (default
        :data:`HEADLINE_SOURCE`).
    seed : int
        Seed of ``numpy.random.default_rng``.
    duration_scale, iat_scale : float
        Factors on durations and inter-arrival times (the paper: 1/5 and 1/15).
    trace_file : path, optional
        A trace CSV in the format of :mod:`lorasched.model.traces` with ``duration_s``
        used instead of Helios (for ``"mixture"``: only its mean IAT).
    sizing : {"cost", "trace"}
        ``"cost"``: scale every job's work so the expected total of 200 jobs is the
        paper's implied 332 A100-h; ``"trace"``: duration x ``duration_scale`` only
        (module docstring).
    per_epoch_s : dict, optional
        Model of Table 4 -> seconds of one epoch on the GPU the jobs run on (e.g.
        ``lorasched.profiling.table.allpass_per_epoch``). A job of a model given keeps its
        model and epochs (from its A100 work and Table 4) and its ``work_s`` and
        ``deadline_s`` become those of ``epochs x per_epoch_s`` seconds on that GPU;
        other models keep Table 4 and their A100 work. Default: Table 4 for all.
    per_epoch_label : str
        Where the given seconds come from (e.g. ``"H200 (measured)"``), for the attrs.

    Returns
    -------
    xarray.Dataset
        over dim ``job`` (submit order): ``name``, ``submit_s``, ``work_s`` (scaled
        duration, s of A100 work; s on the given GPU for ``per_epoch_s``'s models),
        ``model``, ``per_epoch_s``, ``epochs``, ``deadline_s``, ``trace_duration_s``
        (unscaled); attrs ``source``, ``seed``, ``duration_scale``,
        ``iat_scale``, ``gpu_hours`` (total ``work_s`` / 3600), ``jobs``, ``sizing``,
        ``work_scale``, ``mean_epochs_<model>`` (Table 4's check); with ``per_epoch_s``
        also ``per_epoch_s_<model>`` and ``per_epoch_from_<model>`` (``per_epoch_label``
        or :data:`TABLE4_SOURCE`) for every model of Table 4.

    Raises
    ------
    ValueError
        a bad argument (naming it), or a trace with fewer candidate rows than ``jobs``.
    """
    if isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral) or jobs <= 0:
        raise InputError(f"jobs must be a positive integer, got {jobs!r}")
    if not isinstance(source, str) or source not in SOURCES:
        raise InputError(f"source must be one of {list(SOURCES)}, got {source!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got {seed!r}")
    if not isinstance(sizing, str) or sizing not in SIZINGS:
        raise InputError(f"sizing must be one of {list(SIZINGS)}, got {sizing!r}")
    given = None if per_epoch_s is None else _per_epoch_given(per_epoch_s, per_epoch_label)
    duration_scale = _positive_real("duration_scale", duration_scale)
    iat_scale = _positive_real("iat_scale", iat_scale)
    trace = read_trace("helios" if trace_file is None else trace_file)
    if trace.duration_s is None:
        raise InputError(f"trace_file {str(trace.path)!r} needs the column 'duration_s'")
    keep = trace.duration_s.astype(float) > 0
    submit = trace.submit_s.astype(float)[keep]
    duration = trace.duration_s.astype(float)[keep]
    n = int(jobs)
    rng = np.random.default_rng(int(seed))
    if source == "helios":
        if submit.size < n:
            raise InputError(f"jobs={n} exceeds the {submit.size} candidate rows of trace "
                             f"{str(trace.path)!r}")
        start = int(rng.integers(0, submit.size - n + 1))
        arrival = submit[start:start + n] - submit[start]
        raw = duration[start:start + n]
    else:
        if submit.size < 2:
            raise InputError(f"trace_file {str(trace.path)!r} needs at least 2 rows with "
                             "duration_s > 0 for a mean inter-arrival time")
        mean_iat = (submit[-1] - submit[0]) / (submit.size - 1)
        arrival = np.concatenate([[0.0], np.cumsum(rng.exponential(mean_iat, n - 1))])
        short = rng.random(n) < MIXTURE["weight"]
        z = rng.standard_normal(n)
        raw = libm_exp(np.where(short, MIXTURE["mu_short"] + MIXTURE["sigma_short"] * z,
                                MIXTURE["mu_long"] + MIXTURE["sigma_long"] * z))
    submit_s = arrival * iat_scale
    if sizing == "cost":
        mean_duration = float(duration.mean()) if source == "helios" else SEREN_TABLE1["mean"]
        work_scale = PAPER_WORK_H * 3600.0 / (PAPER_JOBS * mean_duration * duration_scale)
    else:
        work_scale = 1.0
    work = raw * duration_scale * work_scale
    coin = rng.random(n) < 0.5
    model = np.where(work < BERT_BELOW_S, "BERT", np.where(coin, "LLaMA3-8B", "LLaMA2-13B"))
    per_epoch = np.array([PER_EPOCH_S[m] for m in model])
    factor = rng.uniform(*DEADLINE_FACTORS, size=n)
    epochs = work / per_epoch
    mean_epochs = {f"mean_epochs_{m}": float(epochs[model == m].mean()) if (model == m).any()
                   else float("nan") for m in PER_EPOCH_S}
    measured = {}
    if given is not None:
        work, per_epoch = _on_given_gpu(model, epochs, work, given)
        for m in PER_EPOCH_S:
            measured[f"per_epoch_s_{m}"] = given.get(m, PER_EPOCH_S[m])
            measured[f"per_epoch_from_{m}"] = per_epoch_label if m in given else TABLE4_SOURCE
    return xr.Dataset(
        {"name": ("job", np.array([f"allpass-{i}" for i in range(n)])),
         "submit_s": ("job", submit_s),
         "work_s": ("job", work),
         "model": ("job", model.astype(str)),
         "per_epoch_s": ("job", per_epoch),
         "epochs": ("job", epochs),
         "deadline_s": ("job", submit_s + factor * work),
         "trace_duration_s": ("job", raw)},
        attrs={"source": source, "seed": int(seed), "duration_scale": duration_scale,
               "iat_scale": iat_scale, "gpu_hours": float(work.sum() / 3600), "jobs": n,
               "sizing": sizing, "work_scale": float(work_scale), **mean_epochs,
               **measured})


@functools.lru_cache(maxsize=16)
def _seeded_book(seed: int, minutes: int) -> xr.Dataset:
    """The model's offer book of a scenario's ``seed`` (kept: a sweep builds the same
    book for every policy of a seed, and drawing it minute by minute costs more than
    some runs; callers copy it)."""
    # a stream of its own, so the market does not shift when the workload's draws do
    return offer_book(minutes, np.random.default_rng([seed, 1]))


def allpass_scenario(jobs: int = PAPER_JOBS, source: str = HEADLINE_SOURCE,
                     capacity=PAPER_CAPACITY, sizing: str = "cost",
                     book_hours: float = BOOK_HOURS, offer_file=None, trace_file=None,
                     seed: int = 0, per_epoch_s=None,
                     per_epoch_label: str = "given", trace_seed=None) -> xr.Dataset:
    """An Allpass scenario: jobs, the marketplace's offer book and the serverful cap.

    Its variables and attributes: :mod:`lorasched.allpass.scenario`.

    Parameters
    ----------
    jobs : int, optional
        Jobs of the workload (``lorasched.allpass.workload.allpass_workload``; default
        200).
    source : {"helios", "mixture"}, optional
        Jobs from a Helios window or the mixture fitted to Seren (default
        :data:`HEADLINE_SOURCE`).
    sizing : {"cost", "trace"}, optional
        ``"cost"`` (default) scales the work to the paper's implied 332 A100-h,
        ``"trace"`` keeps duration / 5.
    trace_file : path-like, optional
        A trace CSV used instead of Helios.
    capacity : int or "none", optional
        Cap on concurrent serverful workers (default sec. 5.1's 30; ``"none"`` unlimited).
    book_hours : float, optional
        Hours of the synthetic offer book (default 24; ignored with ``offer_file``).
    offer_file : path-like, optional
        A price/availability series (``lorasched.allpass.clouds.load_offer_book``)
        instead of the model.
    seed : int, optional
        Seeds the workload and, with a second stream, the offer book (default 0).
    per_epoch_s : dict, optional
        Model of Table 4 -> seconds of one epoch on the GPU the jobs run on, in place of
        Table 4's A100 seconds (e.g. ``lorasched.profiling.table.allpass_per_epoch``): those
        models' jobs keep their epochs and take that GPU's time; the clouds' prices,
        start-ups and inventory stay Table 2's and 3's A100 ones. Default: Table 4.
    per_epoch_label : str, optional
        Where ``per_epoch_s`` comes from, recorded in the attrs ``per_epoch_from_<model>``.
    trace_seed : int, optional
        Seeds the workload in place of ``seed`` (default: ``seed``): one fixed trace,
        while ``seed`` still draws the offer book (and, passed to the run, the start-ups).

    Returns
    -------
    xarray.Dataset
        The validated scenario (:func:`lorasched.allpass.scenario.validate`),
        ``attrs["system"] == "allpass"``.

    Raises
    ------
    InputError
        Naming the first argument out of its choices or range, or what the workload or
        the offer file breaks.
    """
    cap = capacity_value(capacity)
    if trace_seed is not None and (isinstance(trace_seed, bool) or not isinstance(
            trace_seed, numbers.Integral) or trace_seed < 0):
        raise InputError(f"trace_seed must be a non-negative integer, got {trace_seed!r}")
    if (isinstance(book_hours, bool) or not isinstance(book_hours, numbers.Real)
            or not math.isfinite(book_hours) or book_hours <= 0):
        raise InputError(f"book_hours must be a positive number, got {book_hours!r}")
    work = allpass_workload(jobs=jobs, source=source,
                            seed=seed if trace_seed is None else trace_seed, sizing=sizing,
                            trace_file=trace_file, per_epoch_s=per_epoch_s,
                            per_epoch_label=per_epoch_label)
    if offer_file is None:
        book = _seeded_book(int(seed), int(math.ceil(book_hours * 60))).copy(deep=True)
    else:
        book = load_offer_book(offer_file)
        # minutes count from the first submission: a file starting at minute 5 offers
        # nothing in minutes 0-4 (the conventional cloud fills in)
        book = book.reindex(minute=np.arange(int(book["minute"].max()) + 1))
    ds = work.copy()
    ds["price_per_gpu_h"] = book["price_per_gpu_h"]
    ds.attrs.update({f"book_{k}": v for k, v in book.attrs.items()})
    ds.attrs.update(system="allpass", capacity=cap, book_hours=float(book.sizes["minute"]) / 60)
    validate(ds)
    return ds
