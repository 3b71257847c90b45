"""The experiments of the paper's section 5, declared once: one sweep per figure.

Each figure notebook calls :func:`run` (a :class:`~lorasched.sweep.Sweep` executed by
:func:`~lorasched.sweep.run_sweep`), plots it with :mod:`lorasched.plots`, and ends with
:func:`claims`: the paper's reported number beside ours, with a verdict.
``lorasched reproduce`` (:func:`reproduce`) runs the cells of every figure as one parallel
batch into a shared store first, so that the notebooks then only assemble finished cells.

Sizes
-----
``"full"`` is the paper's setting (section 5.1): one day of 144 ten-minute slots, a
data centre of ``K = 100`` nodes (50-200 in Fig. 4), half A100-80GB and half A40-48GB
("mix"), 5 labelling vendors, and Poisson arrivals. The paper does not say which load or
how many runs its figures use, except Fig. 8 (30, 50, 80 tasks per slot); lorasched uses
the medium load, 50 tasks per slot, everywhere else, and 3 seeds (error bars: one standard
deviation over seeds). ``"small"`` divides nodes and loads by 10 and uses 48 slots and 2
seeds, so that a figure runs in seconds (tests, quick looks).

Algorithms
----------
pdFTSP appears twice: with the constants alpha, beta of Lemma 2 as lorasched derives them
from declared bounds (the faithful default, ``"pdFTSP (Lemma 2)"``), and with
``alpha = 1, beta = 100`` (``"pdFTSP (α=1, β=100)"``), a setting picked from a scan of
(alpha, beta) on ONE day (K = 100, high load, seed 1), shown because the paper does not
state its constants and pdFTSP's welfare depends on them strongly. Titan solves one MILP per
slot with 10 column-generation rounds and ``mip_max_nodes = 0`` (HiGHS stops at the root
node and keeps the best solution its presolve and heuristics find, instead of branching):
with 1000 branch-and-bound nodes per slot one K = 100 high-load day takes about 30 minutes,
and on that day the welfare was 5 % higher. The round limit costs Titan more than the node
limit, most at large K (see the Fig. 4 page).
"""

from __future__ import annotations

import math
import os
import re
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from ..experiments.sweep import Sweep, run_sweep, run_sweeps
from ..pdftsp.workload import DEADLINE_POLICIES, LOADS

SIZES = ("small", "full")
ALGORITHMS = ("pdftsp", "titan", "eft", "ntm")
#: pdFTSP's constants: Lemma 2 (lorasched's default) and the setting picked on one day
PDFTSP_CONSTANTS = {"Lemma 2": {"payment": "critical"},  # the defaults, stated
                    "α=1, β=100": {"alpha": 1.0, "beta": 100.0}}
TITAN_OPTIONS = {"mip_max_nodes": 0}
NAMES = {"pdftsp": "pdFTSP", "titan": "Titan", "eft": "EFT", "ntm": "NTM"}
_SCALE = {"small": 0.1, "full": 1.0}
_SLOTS = {"small": 48, "full": 144}
_SEEDS = {"small": 2, "full": 3}


#: the sweep-backed figures and their titles (Figs. 10-11 are not sweeps)
FIGURES = {
    "fig04": "Impact of data-centre scale",
    "fig05": "Impact of the number of labelling vendors",
    "fig06": "Impact of per-node capacity",
    "fig07": "Impact of real-world task traces",
    "fig08": "Impact of task dynamics (synthetic load)",
    "fig09": "Impact of task deadlines",
    "fig12": "Competitiveness",
    "fig13": "Running time per task",
}


def _check_size(size: str) -> None:
    if size not in SIZES:
        raise ValueError(f"size must be one of {SIZES}, got {size!r}")


def base(size: str = "small") -> dict:
    """The scenario every figure starts from (``synthetic_scenario`` arguments)."""
    _check_size(size)
    return {"nodes": round(100 * _SCALE[size]), "gpu": "mix", "vendors": 5,
            "deadline_policy": "slack", "load": _load("medium", size),
            "slots": _SLOTS[size]}


def _load(name: str, size: str, scale: float = 1.0):
    """A named load, as the paper's name in full size, scaled with the nodes otherwise."""
    if size == "full" and scale == 1.0:
        return name
    return LOADS[name] * _SCALE[size] * scale


def _loads(size: str, scale: float = 1.0) -> dict:
    """The paper's three loads as a compound axis labelled ``"light (30)"`` etc., the
    number being the mean tasks per slot actually used."""
    return {f"{name} ({LOADS[name] * _SCALE[size] * scale:g})": {"load": _load(name, size, scale)}
            for name in LOADS}


def sweep(figure: str, size: str = "small", seeds: int | None = None) -> Sweep:
    """The :class:`~lorasched.sweep.Sweep` behind ``figure`` (``"fig04"`` ... ``"fig13"``;
    Fig. 12 has two: ``"fig12"`` with the LP bound, ``"fig12_opt"`` with the exact OPT on
    tiny instances). Figs. 10 and 11 are not sweeps (see :mod:`lorasched.mechanism`)."""
    _check_size(size)
    if figure not in FIGURES and figure != "fig12_opt":
        raise ValueError(f"figure must be one of {sorted([*FIGURES, 'fig12_opt'])}, "
                         f"got {figure!r}")
    seeds = _SEEDS[size] if seeds is None else int(seeds)
    scale = _SCALE[size]
    b = base(size)
    axes: dict = {}
    algorithms = list(ALGORITHMS)
    bound, bound_options = None, {}
    if figure in ("fig04", "fig13"):
        axes["nodes"] = [round(k * scale) for k in (50, 100, 150, 200)]
    elif figure == "fig05":
        axes["vendors"] = [1, 3, 5, 10]
    elif figure == "fig06":
        axes["gpu"] = ["A100", "A40", "mix"]
    elif figure == "fig07":
        axes["trace"] = ["mlaas", "philly", "helios"]
    elif figure == "fig08":
        axes["load"] = _loads(size)
    elif figure == "fig09":
        axes["deadline_policy"] = list(DEADLINE_POLICIES)
    elif figure == "fig12":
        # a quarter of the data centre (the LP bound of a K = 100 day takes ~6 min)
        b.update(nodes=round(25 * scale) if size == "full" else 5)
        axes["load"] = _loads(size, 0.25 if size == "full" else 1.0 / 2)
        bound, bound_options = "lp", {"max_iterations": 200, "time_limit": 1800.0}
    else:  # fig12_opt: the exact optimum of (4), tiny instances only
        b.update(nodes=4 if size == "full" else 3, slots=24 if size == "full" else 12)
        axes["load"] = {name: {"load": LOADS[name] / (25 if size == "full" else 40)}
                        for name in LOADS}
        bound, bound_options = "opt", {"time_limit": 120.0}
    axes["constants"] = PDFTSP_CONSTANTS
    name = f"{figure}_{size}"
    return Sweep.from_dict({
        "name": name, "description": FIGURES.get(figure, FIGURES["fig12"]),
        "base": b, "axes": axes, "algorithms": algorithms, "seeds": seeds,
        "options": {"titan": dict(TITAN_OPTIONS)}, "bound": bound,
        "bound_options": bound_options})


def default_store(size: str = "small") -> Path:
    """Where finished cells are kept by default: ``$LORASCHED_STORE/<size>`` if set, else
    ``build/sweeps/<size>`` in the source checkout the package runs from (so the notebooks,
    ``lorasched reproduce`` and ``make book`` share it), else a per-user cache folder."""
    _check_size(size)
    if os.environ.get("LORASCHED_STORE"):
        return Path(os.environ["LORASCHED_STORE"]) / size
    repo = Path(__file__).resolve().parents[2]
    if (repo / "pyproject.toml").is_file() and (repo / "lorasched").is_dir():
        return repo / "build" / "sweeps" / size
    return Path.home() / ".cache" / "lorasched" / "sweeps" / size


def run(figure: str, size: str = "small", *, store=None, seeds: int | None = None,
        workers: int | None = None, scheduler: str | None = None, serial: bool | None = None,
        progress: bool = False) -> xr.Dataset:
    """Run (or, with a ``store`` holding its finished cells, only assemble) ``figure``.

    ``store``: the folder of finished cells (default :func:`default_store`; ``False``: a
    temporary folder, nothing kept). ``serial`` defaults to True for ``size="small"``
    (starting Dask costs more than the cells) and False for ``"full"``. Raises
    ``RuntimeError`` naming the failed cells."""
    s = sweep(figure, size, seeds)
    serial = size == "small" if serial is None else serial
    if store is None:
        store = default_store(size)
    with tempfile.TemporaryDirectory(prefix="lorasched-") as tmp:
        report = run_sweep(s, store=tmp if store is False else store,
                           scheduler=scheduler, workers=workers, serial=serial,
                           progress=progress)
    if report.failed:
        lines = "\n".join(f"  {d}: {e}" for d, e in report.failed)
        raise RuntimeError(f"{len(report.failed)} cell(s) of {s.name} failed:\n{lines}")
    if report.interrupted:
        raise KeyboardInterrupt
    return report.dataset


def reproduce(size: str = "full", store=None, *, seeds: int | None = None,
              figures=None, workers: int | None = None, scheduler: str | None = None,
              serial: bool = False, progress: bool = True):
    """Run the cells of every figure (or of ``figures``) as one batch into ``store``;
    returns the :class:`~lorasched.sweep.SweepReport`."""
    names = list(figures) if figures is not None else [*FIGURES, "fig12_opt"]
    store = default_store(size) if store is None else store
    sweeps = [sweep(f, size, seeds) for f in names]
    return run_sweeps(sweeps, store, scheduler=scheduler, workers=workers, serial=serial,
                      progress=progress, name=f"section 5 ({size})")


# --------------------------------------------------------------------------- tables
def by_method(ds: xr.Dataset, var: str = "welfare") -> xr.DataArray:
    """``ds[var]`` with ``constants`` x ``algorithm`` flattened into one ``algorithm``
    dimension, labelled ``pdFTSP (Lemma 2)``, ``pdFTSP (α=1, β=100)``, ``Titan``, ``EFT``,
    ``NTM``."""
    da = ds[var]
    parts, labels = [], []
    constants = [str(c) for c in ds["constants"].values]
    for alg in ds["algorithm"].values:
        alg = str(alg)
        for c in (constants if alg == "pdftsp" else constants[:1]):
            parts.append(da.sel(algorithm=alg, constants=c, drop=True))
            labels.append(f"{NAMES[alg]} ({c})" if alg == "pdftsp" else NAMES[alg])
    # a numpy string coordinate: a pandas-3 "str" Index breaks .sel in xarray
    out = xr.concat(parts, dim="algorithm").assign_coords(algorithm=np.array(labels))
    out.attrs = dict(da.attrs)
    return out


def welfare_table(ds: xr.Dataset, var: str = "welfare", digits: int = 0) -> pd.DataFrame:
    """``mean ± std`` over seeds of ``var`` (absolute, USD for welfare): one row per
    setting of the figure's axis, one column per algorithm."""
    da = by_method(ds, var)
    axis = next(d for d in da.dims if d not in ("algorithm", "seed"))
    mean = da.mean("seed")
    std = da.std("seed", ddof=1) if da.sizes["seed"] > 1 else xr.zeros_like(mean)
    table = pd.DataFrame(
        [[f"{float(mean.sel({axis: x, 'algorithm': a})):.{digits}f} ± "
          f"{float(std.sel({axis: x, 'algorithm': a})):.{digits}f}"
          for a in da["algorithm"].values] for x in da[axis].values],
        index=pd.Index([str(x) for x in da[axis].values], name=axis),
        columns=[str(a) for a in da["algorithm"].values])
    return table


def describe(ds: xr.Dataset) -> str:
    """One paragraph stating the setting of a figure's dataset: what is fixed, what
    varies, how many seeds, and the mean tasks per day and load factor."""
    import json

    decl = json.loads(ds.attrs["sweep"])
    fixed = ", ".join(f"{k} = {v}" for k, v in decl["base"].items()
                      if k not in decl["axes"])
    axes = "; ".join(f"{d}: {', '.join(map(str, ds[d].values))}" for d in ds.dims
                     if d not in ("constants", "algorithm", "seed"))
    seeds = ds["seed"].values
    tasks = float(ds["n_tasks"].mean())
    lf = ds["load_factor"].mean("seed")
    titan = ", ".join(f"{k} = {v}" for k, v in decl.get("options", {}).get("titan",
                                                                           {}).items())
    return textwrap.fill(f"{decl['description']}. Fixed: {fixed}. Varied: {axes}. Seeds "
            f"{', '.join(map(str, seeds))} (error bars: one standard deviation). "
            f"On average {tasks:.0f} tasks arrive per run; the offered work is "
            f"{float(lf.min()):.2f}x to {float(lf.max()):.2f}x what the cluster can process "
            f"in the horizon. Titan: {titan or 'defaults'}.", width=76)


def _gain(a: float, b: float) -> float:
    """Relative improvement of ``a`` over ``b`` in percent."""
    return 100.0 * (a / b - 1.0) if b > 0 else math.nan


def _mean(ds, var="welfare") -> xr.DataArray:
    return by_method(ds, var).mean("seed")


LEMMA2 = "pdFTSP (Lemma 2)"
TUNED = "pdFTSP (α=1, β=100)"
BASELINES = ("Titan", "EFT", "NTM")


def _rank_rows(m: xr.DataArray, axis: str, claim: str, paper: str) -> list[dict]:
    """Rows for "pdFTSP is the best at every setting" claims, for both pdFTSP variants."""
    rows = []
    for variant in (LEMMA2, TUNED):
        best = []
        for label in m[axis].values:
            col = m.sel({axis: label})
            others = max(float(col.sel(algorithm=b)) for b in BASELINES)
            best.append(float(col.sel(algorithm=variant)) > others)
        n = sum(best)
        rows.append({"claim": f"{claim} [{variant}]", "paper": paper,
                     "ours": f"best in {n} of {len(best)}",
                     "verdict": "agrees" if n == len(best) else
                     ("partly" if n else "disagrees")})
    return rows


def _gain_rows(m: xr.DataArray, where: dict, paper: dict, claim: str) -> list[dict]:
    rows = []
    col = m.sel(where)
    for b, p in paper.items():
        for variant in (LEMMA2, TUNED):
            g = _gain(float(col.sel(algorithm=variant)), float(col.sel(algorithm=b)))
            rows.append({"claim": f"{claim}: pdFTSP over {b} [{variant}]",
                         "paper": f"+{p:.2f} %", "ours": f"{g:+.1f} %",
                         "verdict": "agrees" if g > 0 else "disagrees"})
    return rows


def claims(figure: str, ds: xr.Dataset | dict) -> pd.DataFrame:
    """The paper's reported numbers beside ours, with a verdict per claim.

    ``ds``: the figure's dataset (for ``"fig12"`` a dict ``{"lp": ds, "opt": ds}``; for
    ``"fig10"`` a dict of :func:`lorasched.mechanism.utility_curve` results
    ``{"critical": ..., "paper": ...}``; for ``"fig11"`` a :func:`lorasched.simulate`
    result). A verdict is ``agrees`` when our data show what the paper claims (the sign
    of an improvement, an ordering, a bound), whatever the magnitude."""
    rows: list[dict] = []
    if figure == "fig04":
        m = _mean(ds)
        k0 = m["nodes"].values[0]
        rows += _gain_rows(m, {"nodes": k0}, {"Titan": 30.78, "EFT": 137.35, "NTM": 155.84},
                           f"K={k0}")
        for variant in (LEMMA2, TUNED):
            w = m.sel(algorithm=variant).values
            up = bool(np.all(np.diff(w) > 0))
            rows.append({"claim": f"welfare grows with K [{variant}]", "paper": "yes",
                         "ours": " → ".join(f"{x:.0f}" for x in w),
                         "verdict": "agrees" if up else "disagrees"})
    elif figure == "fig05":
        m = _mean(ds)
        for variant in (LEMMA2, TUNED):
            w = m.sel(algorithm=variant).values
            g = _gain(w[-1], w[0])
            rows.append({"claim": f"welfare rises slightly with more vendors [{variant}]",
                         "paper": "slight rise",
                         "ours": f"{g:+.1f} % from {m['vendors'].values[0]} to "
                                 f"{m['vendors'].values[-1]} vendors",
                         "verdict": "agrees" if g > 0 else "disagrees"})
        rows += _rank_rows(m, "vendors", "pdFTSP best for every vendor count", "yes")
    elif figure == "fig06":
        m = _mean(ds)
        for variant in (LEMMA2, TUNED):
            a100, a40 = (float(m.sel(algorithm=variant, gpu=g)) for g in ("A100", "A40"))
            rows.append({"claim": f"A100 nodes give more welfare than A40 [{variant}]",
                         "paper": "yes", "ours": f"A100 {a100:.0f} vs A40 {a40:.0f}",
                         "verdict": "agrees" if a100 > a40 else "disagrees"})
        rows += _rank_rows(m.sel(gpu=["mix"]), "gpu", "pdFTSP best on mixed GPUs", "yes")
    elif figure == "fig07":
        rows += _rank_rows(_mean(ds), "trace", "pdFTSP best on every real trace", "yes")
    elif figure == "fig08":
        m = _mean(ds)
        high = m["load"].values[-1]
        rows += _gain_rows(m, {"load": high}, {"Titan": 48.99, "EFT": 151.57, "NTM": 184.94},
                           f"load {high}")
        for variant in (LEMMA2, TUNED):
            g = [_gain(float(m.sel(algorithm=variant, load=x)), float(m.sel(algorithm="Titan",
                                                                          load=x)))
                 for x in m["load"].values]
            up = bool(np.all(np.diff(g) > 0))
            rows.append({"claim": f"gain over Titan grows with load [{variant}]",
                         "paper": "yes", "ours": " → ".join(f"{x:+.0f} %" for x in g),
                         "verdict": "agrees" if up else "disagrees"})
    elif figure == "fig09":
        rows += _rank_rows(_mean(ds), "deadline_policy", "pdFTSP best for every deadline policy",
                           "yes")
    elif figure == "fig10":
        crit, paper = ds["critical"], ds.get("paper")
        v = crit.attrs["value"]
        best = float(crit["utility"].max())
        at_truth = float(np.interp(v, crit["bid"].values, crit["utility"].values))
        rows.append({"claim": "the truthful bid maximises utility (critical payment)",
                     "paper": "yes (v = 15, expense 10)",
                     "ours": f"v = {v:.3g}, max utility {best:.3g}, at v {at_truth:.3g}",
                     "verdict": "agrees" if at_truth >= best - 1e-9 else "disagrees"})
        if paper is None:
            return _frame("fig10", rows)
        vp = paper.attrs["value"]
        gain = float(paper["utility"].max())
        truth_p = float(np.interp(vp, paper["bid"].values, paper["utility"].values))
        rows.append({"claim": "eq. (14) payment: overbidding never pays",
                     "paper": "yes (Theorem 3)",
                     "ours": f"task {paper.attrs['task']}: truthful {truth_p:.3g}, "
                             f"overbidding {gain:.3g}",
                     "verdict": "agrees" if gain <= truth_p + 1e-9 else "disagrees"})
    elif figure == "fig11":
        adm = ds["admitted"].values.astype(bool)
        slack = ds["bid"].values[adm] - ds["payment"].values[adm]
        rows.append({"claim": "every admitted task pays at most its bid", "paper": "yes "
                     "(10 sampled tasks)", "ours": f"all {adm.sum()} admitted tasks; min bid − "
                     f"payment = {slack.min():.3g}",
                     "verdict": "agrees" if slack.min() >= 0 else "disagrees"})
    elif figure == "fig12":
        for kind, d in ds.items():
            cr = by_method(d, "competitive_ratio")
            for variant in (LEMMA2, TUNED):
                worst = float(cr.sel(algorithm=variant).max())
                what = "LP bound / ALG" if kind == "lp" else "OPT / ALG"
                exact = kind == "opt" and bool(np.all(d["bound_converged"].values == 1))
                verdict = ("agrees" if worst <= 3 else
                           "disagrees" if exact else "not shown (bound above 3)")
                rows.append({"claim": f"competitive ratio ≤ 3, {what} [{variant}]",
                             "paper": "≤ 3", "ours": f"max {worst:.2f}",
                             "verdict": verdict})
    elif figure == "fig13":
        m = _mean(ds, "decision_time_mean")
        ks = m["nodes"].values
        for variant in (LEMMA2,):
            pd_t = m.sel(algorithm=variant).values
            ti = m.sel(algorithm="Titan").values
            rows.append({"claim": "pdFTSP decides faster per task than Titan",
                         "paper": "yes", "ours": f"{(ti / pd_t).min():.0f}×–"
                         f"{(ti / pd_t).max():.0f}× faster",
                         "verdict": "agrees" if np.all(ti > pd_t) else "disagrees"})
            rows.append({"claim": "Titan's time per task grows with the problem",
                         "paper": "yes", "ours": " → ".join(f"{x * 1e3:.1f} ms" for x in ti)
                         + f" (K = {ks[0]}..{ks[-1]})",
                         "verdict": "agrees" if ti[-1] > ti[0] else "disagrees"})
    else:
        raise ValueError(f"no claims for figure {figure!r}")
    return _frame(figure, rows)


def _frame(figure: str, rows: list[dict]) -> pd.DataFrame:
    """The claims as a table; a claim's ``[pdFTSP (...)]`` suffix becomes the column
    ``pdFTSP`` (which constants the row is about)."""
    for r in rows:
        m = re.match(r"(.*) \[pdFTSP \((.*)\)\]$", r["claim"])
        r["pdFTSP"] = m.group(2) if m else ""
        r["claim"] = m.group(1) if m else r["claim"]
    out = pd.DataFrame(rows, columns=["claim", "pdFTSP", "paper", "ours", "verdict"])
    out.insert(0, "figure", f"Fig. {int(figure[3:5])}")
    return out


def styled(table: pd.DataFrame):
    """A claims or summary table for display: no index, left-aligned text, verdicts
    coloured."""
    colours = {"agrees": "#2a9d8f", "disagrees": "#e76f51"}

    def verdict(v):
        return f"color: {colours.get(v, '#6c757d')}; font-weight: bold"

    # a fixed uuid keeps the HTML identical between runs (nbval compares it)
    return (table.style.set_uuid("claims").hide(axis="index")
            .map(verdict, subset=["verdict"]).set_properties(**{"text-align": "left"}))


# --------------------------------------------------------------------------- Figs. 10-11
def truthfulness(size: str = "small", seed: int = 1, task: int | None = None) -> dict:
    """Fig. 10: utility-against-bid curves on the figures' base scenario (``seed``).

    ``"critical"``: a task drawn at random (``numpy.random.default_rng(seed)``) among the
    tasks pdFTSP admits whose critical bid lies between 20 % and 90 % of their value, so
    that both the losing and the winning range show (or ``task``), under the critical
    payment. ``"paper"``: the first task for which the paper's payment (14) rewards
    overbidding (:func:`lorasched.mechanism.untruthful_tasks`), under that payment, and
    ``"paper_critical"``: the same task under the critical payment; both are absent if no
    such task exists. ``"scenario"`` is the scenario."""
    from ..pdftsp import mechanism
    from ..pdftsp.simulation import simulate
    from ..pdftsp.workload import synthetic_scenario

    scenario = synthetic_scenario(**base(size), seed=seed)
    if task is None:
        result = simulate(scenario, "pdftsp", seed=seed)
        bid = result["bid"].values
        crit = bid - result["surplus"].values
        ok = np.flatnonzero(result["admitted"].values & (crit > 0.2 * bid)
                            & (crit < 0.9 * bid))
        if ok.size == 0:
            ok = np.flatnonzero(result["admitted"].values)
        task = int(np.random.default_rng(seed).choice(ok))
    out = {"scenario": scenario,
           "critical": mechanism.utility_curve(scenario, task, payment="critical")}
    bad = mechanism.untruthful_tasks(scenario)
    if bad.size:
        out["paper"] = mechanism.utility_curve(scenario, int(bad[0]), payment="paper")
        out["paper_critical"] = mechanism.utility_curve(scenario, int(bad[0]),
                                                        payment="critical")
        out["untruthful_tasks"] = bad
    return out


def rationality(size: str = "small", seed: int = 1, n: int = 10) -> tuple:
    """Fig. 11: a pdFTSP day on the base scenario and ``n`` of its admitted tasks drawn at
    random (``numpy.random.default_rng(seed)``), sorted. Returns ``(result, tasks)``."""
    from ..pdftsp.simulation import simulate
    from ..pdftsp.workload import synthetic_scenario

    result = simulate(synthetic_scenario(**base(size), seed=seed), "pdftsp", seed=seed)
    admitted = np.flatnonzero(result["admitted"].values)
    tasks = np.sort(np.random.default_rng(seed).choice(admitted, size=min(n, admitted.size),
                                                        replace=False))
    return result, tasks


def summary(size: str = "small", *, seeds: int | None = None, store=None) -> pd.DataFrame:
    """Every figure's :func:`claims`, one table (the book's reproduction summary)."""
    tables = []
    for figure in ("fig04", "fig05", "fig06", "fig07", "fig08", "fig09"):
        tables.append(claims(figure, run(figure, size, seeds=seeds, store=store)))
    curves = truthfulness(size)
    if "paper" in curves:
        tables.append(claims("fig10", curves))
    result, _ = rationality(size)
    tables.append(claims("fig11", result))
    tables.append(claims("fig12", {
        "lp": run("fig12", size, seeds=seeds, store=store),
        "opt": run("fig12_opt", size, seeds=seeds, store=store)}))
    tables.append(claims("fig13", run("fig13", size, seeds=seeds, store=store)))
    return pd.concat(tables, ignore_index=True)
