"""What TITAN's section-5 pages share: sizes, the policies and their names, the paper's
numbers, the one sweep over workload x density x policy (:func:`declaration`) and small table
helpers. The sizes: :doc:`/reference/figures`.
"""

from __future__ import annotations

import functools
import json
import textwrap

import numpy as np
import pandas as pd
import xarray as xr

from ...experiments import Sweep
from ...model.errors import InputError
from ...titan.workload import titan_scenario
from ..base import SCALES, Figure, check_size, seed_words
from ..centres import CENTRE_WORDS, seeds_estimate
from ..numbers import interval, num, pct
from ..prose import says
from ..verdicts import (
    BEYOND,
    CONSISTENT,
    CONTRADICTED,
    INCONCLUSIVE,
    LINEAR,
    MAGNITUDE_OFF,
    NOT_RUN,
    NOT_TESTABLE,
    PAPER,
    POINT,
    RATIO,
    REPRODUCED,
    WORKED,
    Estimate,
    estimate,
    inconclusive_why,
    judge,
)

#: the policies of Table 3, in the paper's order
ALGORITHMS = ["srtf", "tiresias", "titan_nomerge", "titan_noswitch", "titan"]
NAMES = {"srtf": "SRTF", "tiresias": "Tiresias", "titan_nomerge": "TITAN (w/o task merger)",
         "titan_noswitch": "TITAN (w/o pipeline switch)", "titan": "TITAN"}
WORKLOADS = {"authors": "authors' workload", "helios": "Helios-derived workload"}
#: Table 3 of the paper: average JCT (h), makespan (h)
PAPER_TABLE3 = {"srtf": (1.68, 33.09), "tiresias": (1.67, 33.09),
                "titan_nomerge": (1.23, 33.11), "titan_noswitch": (1.16, 29.01),
                "titan": (1.04, 29.01)}
#: Table 4 of the paper: density -> (% jobs >= 10 % faster, % >= 10 % slower than SRTF)
PAPER_TABLE4 = {0.5: (18, 6), 1.0: (19, 8), 1.5: (20, 7), 2.0: (19, 11)}
#: the MILP's solve time at 320 jobs, s (sec. 3: average / maximum on 1 vCPU)
PAPER_SOLVE = (0.005, 0.16)
DENSITIES = [0.5, 1.0, 1.5, 2.0]
_SEEDS = {"full": 10, "small": 5}
#: the policies that solve a MILP at each decision: nine tenths of the pages' CPU time, so
#: their cells are shipped with the repository (:func:`ships`)
MILP = ("titan", "titan_nomerge", "titan_noswitch")


def ships(figure, params: dict) -> bool:
    """Whether a cell of ``figure`` is shipped with the repository
    (:mod:`lorasched.experiments.shipped`): those of the policies that solve a MILP at each
    decision (:data:`MILP`); SRTF's and Tiresias' cells cost about a second and are
    computed where the book is built, and so are kept cells (a whole result is no line of
    a shipped file)."""
    return params.get("algorithm") in MILP and not params.get("keep")


def base(size: str) -> dict:
    """The fixed scenario parameters at ``size``."""
    check_size(size)
    return {"nodes": 16, "gpus_per_node": 4} | ({"jobs": 40} if size == "small" else {})


#: the jobs of a run at density one when ``jobs`` is not set (the paper's 320)
FULL_JOBS = 320


def scale(size: str = "small", seeds: int | None = None) -> str:
    """The size's scale in words: jobs, GPUs and seeds."""
    b = base(size)
    n = _SEEDS[size] if seeds is None else int(seeds)
    return (f"{b.get('jobs', FULL_JOBS)} jobs per run at density one on {b['nodes']} nodes "
            f"of {b['gpus_per_node']} GPUs, {seed_words(n)}")


SCALES["titan"] = scale


def declaration(size: str, seeds: int | None = None) -> dict:
    """The one sweep behind Table 3, Fig. 5 and Table 4 (Table 3 is its density-1 slice,
    so its cells are computed once)."""
    return {"name": f"titan_{size}", "system": "titan",
            "description": "TITAN and its baselines over workload density",
            "base": base(size), "axes": {"workload": list(WORKLOADS), "density": DENSITIES},
            "algorithms": list(ALGORITHMS),
            "seeds": _SEEDS[size] if seeds is None else int(seeds)}


#: the other readings of the paper, one option each: name -> (option, value, label)
READINGS = {
    "preemptive": ("preemptive", True, "re-allocates running jobs at each event "
                   "(the authors' later code)"),
    "literal": ("constraints", "literal", "constraints (9)-(10) as printed"),
    "application": ("candidates", "application", "one merge candidate per application "
                    "(the authors' code)"),
    "sum": ("merge_length", "sum", "a merged job does all its members' iterations"),
}


def readings_declaration(size: str, reading: str, seeds: int | None = None) -> dict:
    """TITAN at density 1 with one reading changed (:data:`READINGS`)."""
    option, value, label = READINGS[reading]
    return {"name": f"titan_{reading}_{size}", "system": "titan",
            "description": f"TITAN, {label}",
            "base": base(size) | {"density": 1.0}, "axes": {"workload": list(WORKLOADS)},
            "algorithms": ["titan"], "options": {"titan": {option: value}},
            "seeds": _SEEDS[size] if seeds is None else int(seeds)}


#: the switch costs swept, as multiples of the measured ones (Fig. 3)
SWITCH_SCALES = [0.0, 1.0, 2.0, 4.0]


def switch_declaration(size: str, seeds: int | None = None) -> dict:
    """TITAN with the pipelined and with the naive switch at density 1, the switch costs
    scaled by :data:`SWITCH_SCALES`."""
    return {"name": f"titan_switch_{size}", "system": "titan",
            "description": "TITAN with pipelined and naive switches, costs scaled",
            "base": base(size) | {"density": 1.0},
            "axes": {"workload": list(WORKLOADS), "switch_scale": list(SWITCH_SCALES)},
            "algorithms": ["titan", "titan_noswitch"],
            "seeds": _SEEDS[size] if seeds is None else int(seeds)}


#: the baselines' switch costs in Table 3's counterfactual (the paper's baselines pay the
#: naive switch, the shared sweep's runs): none
SWITCH_FREE = "none"


def switch_free_declaration(size: str, seeds: int | None = None) -> dict:
    """SRTF and Tiresias at density 1 with free context switches (a counterfactual of
    Table 3: how much of Tiresias' gap to SRTF its preemptions' switches explain)."""
    return {"name": f"titan_switchfree_{size}", "system": "titan",
            "description": "SRTF and Tiresias with free context switches",
            "label": "counterfactual: no switch cost",
            "base": base(size) | {"density": 1.0}, "axes": {"workload": list(WORKLOADS)},
            "algorithms": ["srtf", "tiresias"],
            "options": {a: {"switch": SWITCH_FREE} for a in ("srtf", "tiresias")},
            "seeds": _SEEDS[size] if seeds is None else int(seeds)}


class TitanFigure(Figure):
    """A TITAN page drawn from the shared sweep."""

    system = "titan"
    variant_column = "workload"

    def scope(self, row: dict) -> str:
        """The Helios-derived workload is the paper's setting (320 ViT-L jobs at density 1
        on 16 x 4 V100s, as section 5 runs; FMTrace is private); the paper's worked cases
        (Table 2) are worked examples, counted apart; the authors' workload and
        lorasched's other workloads are beyond the paper."""
        if row["verdict"] == NOT_RUN:
            return BEYOND
        variant = str(row.get("variant", ""))
        if variant.startswith("Case"):
            return WORKED
        return PAPER if variant in ("", WORKLOADS["helios"]) else BEYOND

    def sweeps(self, size: str = "small", seeds: int | None = None) -> dict[str, Sweep]:
        check_size(size)
        return {"titan": Sweep.from_dict(declaration(size, seeds))}

    def describe(self, ds: xr.Dataset) -> str:
        decl = json.loads(ds.attrs["sweep"])
        jobs = ds["n_jobs"].sel(algorithm="srtf").mean("seed")
        counts = "; ".join(
            f"{WORKLOADS[str(w)]}: " + ", ".join(
                f"{float(jobs.sel(workload=w, density=d)):.0f}" for d in ds["density"].values)
            for w in ds["workload"].values)
        fixed = ", ".join(f"{k} = {v}" for k, v in decl["base"].items())
        return textwrap.fill(
            f"{decl['description']}. Fixed: {fixed} (ViT-L/16 on V100). Densities "
            f"{', '.join(f'{d:g}' for d in ds['density'].values)}; jobs per run by "
            f"density: {counts} (the mean over seeds). Seeds "
            f"{', '.join(map(str, ds['seed'].values))}; each time (a completion time, a makespan, "
            f"a solve time) and "
            f"each bar is the {CENTRE_WORDS}, the claims' centre, with its 95 % interval.",
            width=76)


def centre_of(da: xr.DataArray, on: str = RATIO) -> Estimate:
    """The centre of ``da``'s values over seeds as the claims take it, with its 95 %
    interval (:func:`~lorasched.figures.centres.seeds_estimate`): the geometric mean of a
    positive quantity (``RATIO``; the arithmetic mean where a seed gives zero), the logit
    mean of a share (``SHARE``, in percent)."""
    return seeds_estimate(np.asarray(da.values, dtype=float).ravel(), on)


def cell(ds: xr.Dataset, var: str, on: str = RATIO, **at) -> Estimate:
    """The centre over seeds of ``ds[var]`` at ``at`` (:func:`centre_of`)."""
    return centre_of(ds[var].sel(**at), on)


def fmt(est: Estimate, digits: int = 3) -> str:
    """A centre and its 95 % interval over seeds, ``1.04 (0.98 to 1.10)``, each to
    ``digits`` significant digits; one number where the seeds agree."""
    if not np.isfinite(est.mean):
        return ""
    if not est.spread:
        return num(est.mean, digits)
    return f"{num(est.mean, digits)} ({num(est.low, digits)} to {num(est.high, digits)})"


def change(ds: xr.Dataset, var: str, policy: str, against: str, **at) -> np.ndarray:
    """Per seed, the change of ``var`` of ``policy`` against ``against`` in percent
    (negative: lower), paired on the seed."""
    a = ds[var].sel(algorithm=policy, **at)
    b = ds[var].sel(algorithm=against, **at)
    return np.asarray(100.0 * (a / b - 1.0)).ravel()


def paper_change(policy: str, against: str, column: int = 0) -> float:
    """The change of ``policy`` against ``against`` in the paper's Table 3, percent."""
    return 100.0 * (PAPER_TABLE3[policy][column] / PAPER_TABLE3[against][column] - 1.0)


def fixed_trace(ds: xr.Dataset, workload: str, *densities: float) -> bool:
    """Whether no seed changes the runs of ``ds`` (a sweep's dataset) on ``workload`` at
    every one of ``densities``: the authors' workload where it is their file itself, a
    fixed trace (not drawn: no ``jobs`` in the sweep's scenario, and not density 0.5,
    lorasched's seeded half of FM-1; ``titan_scenario``), run by policies that draw no
    random number. Its seeds are one run repeated: its rows are judged on one
    (:func:`judged`'s ``once``)."""
    jobs = json.loads(ds.attrs["sweep"])["base"].get("jobs")
    return workload == "authors" and jobs is None and all(
        not np.isclose(float(d), 0.5) for d in densities)


def once(values, scale: str = LINEAR) -> Estimate:
    """One run of a setting no seed changes (:func:`fixed_trace`), from its per-seed
    values: a point on ``scale``, n = 1. ``InputError`` where the seeds give different
    values (the setting is not what it was declared) or none is finite."""
    x = np.asarray(values, dtype=float).ravel()
    x = x[np.isfinite(x)]
    if x.size == 0:
        raise InputError("one run needs a finite value")
    if not np.allclose(x, x[0], rtol=1e-9, atol=0.0):
        raise InputError(f"a setting no seed changes gave different values over its seeds: "
                         f"{x.tolist()}")
    return Estimate(float(x[0]), float(x[0]), float(x[0]), 1, scale, (float(x[0]),),
                    method=POINT)


def judged(claim: str, variant: str, values, paper: float | None, *, threshold: float = 0.0,
           side: int | None = None, fmt=pct, paper_text: str | None = None,
           why: str = "", scale: str = LINEAR, unit: str = "seeds",
           one: bool = False) -> dict:
    """One claims row: ``values`` (one per seed, or an :class:`Estimate` over ``unit``) on
    ``scale`` (:data:`~lorasched.figures.verdicts.SCALES`) judged against the paper's
    number or side; an inconclusive row says its interval. ``one``: the values are one
    run repeated (:func:`fixed_trace`), judged as that one run (:func:`once`)."""
    if isinstance(values, Estimate):
        est = values
    else:
        est = once(values, scale) if one else estimate(values, scale)
    verdict = judge(est, paper, threshold=threshold, side=side)
    if verdict == INCONCLUSIVE:
        why = inconclusive_why(est, threshold, fmt, unit)
    text = paper_text if paper_text is not None else (fmt(paper) if paper is not None
                                                      else "")
    return {"claim": claim, "variant": variant, "paper": text,
            "ours": interval(est, fmt, unit), "verdict": verdict, "why": why, "estimate": est,
            "fmt": fmt, "paper_value": paper}


def by_claim(rows) -> dict:
    """A page's claims rows by ``(claim, variant)``."""
    return {(r["claim"], r["variant"]): r for r in rows}


def ours(row: dict) -> str:
    """A claims row's own estimate (its mean), as its ``ours`` column prints it."""
    return row["fmt"](row["estimate"].mean)


def said(row: dict, what: str, texts: dict | None = None) -> str:
    """A sentence about claims row ``row`` in words its verdict owns, marked by
    :func:`~lorasched.figures.prose.says` with the row's claim, variant and verdict (the
    same test as the claims table's): ``texts[verdict]`` where given, else ``what`` (what
    was measured, a clause) followed by the verdict's words against the row's paper
    text."""
    verdict, paper = row["verdict"], row["paper"]
    text = (texts or {}).get(verdict) or {
        REPRODUCED: f"{what}, as the paper reports ({paper})",
        CONSISTENT: f"{what}, consistent with the paper's {paper} but not yet decided: the "
                    "seeds' interval is wider than the band",
        MAGNITUDE_OFF: f"{what}: the magnitude differs from the paper's {paper}",
        CONTRADICTED: f"{what}, unlike the paper's {paper}",
        INCONCLUSIVE: f"{what}; against the paper's {paper} the seeds cannot tell",
        NOT_TESTABLE: f"{what}, which cannot be tested here"}[verdict]
    return says(verdict, text, row["claim"], row["variant"])


def reduction(ds: xr.Dataset, var: str, better: str, worse: str, **at) -> float:
    """Relative reduction of ``var`` of ``better`` against ``worse``, percent (of their
    centres over seeds, :func:`cell`)."""
    a = cell(ds, var, algorithm=better, **at).mean
    b = cell(ds, var, algorithm=worse, **at).mean
    return 100.0 * (1 - a / b)


def table(ds: xr.Dataset, workload: str, density: float = 1.0) -> pd.DataFrame:
    """Table 3 for one workload: average JCT and makespan (the centre over seeds and its
    95 % interval, :func:`fmt`) beside the paper."""
    rows = []
    for alg in ALGORITHMS:
        at = dict(workload=workload, density=density, algorithm=alg)
        rows.append({"policy": NAMES[alg],
                     "avg JCT (h)": fmt(cell(ds, "avg_jct_h", **at)),
                     "makespan (h)": fmt(cell(ds, "makespan_h", **at)),
                     "paper avg JCT (h)": PAPER_TABLE3[alg][0],
                     "paper makespan (h)": PAPER_TABLE3[alg][1],
                     "jobs merged": f"{cell(ds, 'n_merged_jobs', LINEAR, **at).mean:.0f}",
                     "switching (GPU-h)": f"{cell(ds, 'switch_h', **at).mean:.1f}"})
    return pd.DataFrame(rows)


def alone_h(ds: xr.Dataset, workload: str | None = None) -> xr.DataArray:
    """Mean time a job takes alone on its requested GPUs (h), per workload (``workload``'s
    only, if given), density and seed, from the sweep's scenarios (what SRTF's JCT would be
    without queueing)."""
    base = json.dumps(json.loads(ds.attrs["sweep"])["base"], sort_keys=True)
    workloads = ds["workload"].values if workload is None else [workload]
    out = xr.DataArray(np.nan, coords={"workload": list(workloads),
                                       **{d: ds[d].values for d in ("density", "seed")}},
                       dims=("workload", "density", "seed"))
    for wl in workloads:
        for d in ds["density"].values:
            for seed in ds["seed"].values:
                out.loc[wl, d, seed] = _alone_h(base, str(wl), float(d), int(seed))
    return out


@functools.lru_cache(maxsize=1024)
def _alone_h(base: str, workload: str, density: float, seed: int) -> float:
    """One scenario's mean time alone (h): the scenario is drawn again from its seed, so a
    page asking twice (each workload's why) draws it once."""
    sc = titan_scenario(workload=workload, density=density, seed=seed, **json.loads(base))
    return float((sc["total_iterations"] * sc["requested_iter_s"]).mean()) / 3600
