"""What every pdFTSP figure shares: the base scenario and sizes, the two pdFTSP variants
(Lemma 2, and constants calibrated on a held-out day), the faithful Titan and its welfare
oracle, tables by method, claim rows, the prose helpers, and :class:`SweepFigure`."""

from __future__ import annotations

import contextlib
import inspect
import json
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from ...experiments import Sweep
from ...experiments import calibrate as _calibrate
from ...model.errors import InputError
from ...pdftsp.auction import ALPHA_GRID, BETA_GRID
from ...pdftsp.baselines import titan as _titan
from ...pdftsp.workload import LOADS
from ..base import Figure, check_size, default_store, gain, verdict

#: the paper's algorithms; Figs. 4 and 8 add Titan's welfare oracle (:data:`ORACLE_FIGURES`)
ALGORITHMS = ("pdftsp", "titan", "eft", "ntm")
ORACLE_FIGURES = ("fig04", "fig08")
#: Titan's per-slot MILP in the figures: ``"rens_lean"`` (the LP's 0/1 columns kept, a MILP
#: over its fractional ones, branching on pseudo-costs without strong branching, with a small
#: cut pool); ``"rens_pscost"`` (the same with HiGHS's cut pool) before issue 24's closing
#: step, ``"rens"`` (reliability branching) before that, ``"rounding"`` before that; the
#: library's default is ``"root"`` (:data:`lorasched.pdftsp.baselines.titan.MIP_SETTINGS`),
#: which costs several times the time per day (see the speed page)
TITAN_OPTIONS = {"mip": "rens_lean"}


@contextlib.contextmanager
def titan_setting(mip: str):
    """Within the block, the figures' sweeps run Titan (and its oracle) with the per-slot
    MILP setting ``mip`` instead of :data:`TITAN_OPTIONS`' (as a named option of their
    cells, so the two settings' cells never mix in a store)."""
    global TITAN_OPTIONS
    if mip not in _titan.MIP_SETTINGS:
        raise InputError(f"mip must be one of {tuple(_titan.MIP_SETTINGS)}, got {mip!r}")
    saved = TITAN_OPTIONS
    TITAN_OPTIONS = {**saved, "mip": mip}
    try:
        yield
    finally:
        TITAN_OPTIONS = saved


NAMES = {"pdftsp": "pdFTSP", "titan": "Titan", "titan_oracle": "Titan (welfare oracle)",
         "eft": "EFT", "ntm": "NTM"}
LEMMA2 = "pdFTSP (Lemma 2)"
CALIBRATED = "pdFTSP (calibrated)"
VARIANTS = {LEMMA2: "Lemma 2", CALIBRATED: "calibrated"}
BASELINES = ("Titan", "EFT", "NTM")  # the paper's baselines, Titan as the paper ran it
ORACLE = NAMES["titan_oracle"]
#: the held-out calibration day: the base scenario's seed 101 (the figures use seeds 1..3)
CALIBRATION_SEEDS = (_calibrate.CALIBRATION_SEED,)
_CALIBRATIONS: dict = {}
_SCALE = {"small": 0.1, "full": 1.0}
_SLOTS = {"small": 48, "full": 144}
_SEEDS = {"small": 2, "full": 3}


def base(size: str = "small") -> dict:
    """The scenario every figure starts from (``synthetic_scenario`` arguments)."""
    check_size(size)
    return {"nodes": round(100 * _SCALE[size]), "gpu": "mix", "vendors": 5,
            "deadline_policy": "slack", "load": _load("medium", size),
            "slots": _SLOTS[size]}


def calibration_grid() -> dict:
    """The alpha x beta grid scanned on the calibration day (and, on the calibration page,
    on the evaluation days)."""
    return {"alpha": list(ALPHA_GRID), "beta": list(BETA_GRID)}


def calibration(size: str = "small", store=None) -> _calibrate.Calibration:
    """pdFTSP's alpha and beta calibrated on the held-out day: the scan of
    :func:`calibration_grid` on :func:`base` with seed 101, maximising welfare (run once into
    ``store``, default the figures' store, then read back; cached in the process)."""
    check_size(size)
    store = Path(default_store(size) if store is None else store)
    key = (size, str(store.resolve()))
    if key not in _CALIBRATIONS:
        _CALIBRATIONS[key] = _calibrate.calibrate(
            "pdftsp", "pdftsp", base(size), calibration_grid(), seeds=CALIBRATION_SEEDS,
            store=store, serial=True, progress=False)
    return _CALIBRATIONS[key]


def pdftsp_constants(size: str = "small") -> dict:
    """pdFTSP's two settings as a compound axis: the Lemma-2 rule and the constants
    calibrated on the held-out day (:func:`calibration`)."""
    chosen = calibration(size).options
    return {"Lemma 2": {"constants": "lemma2"},
            "calibrated": {"alpha": float(chosen["alpha"]), "beta": float(chosen["beta"])}}


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


# --------------------------------------------------------------------------- tables
def by_method(ds: xr.Dataset, var: str = "welfare") -> xr.DataArray:
    """``ds[var]`` with ``constants`` x ``algorithm`` flattened into one ``algorithm``
    dimension, labelled ``pdFTSP (Lemma 2)``, ``pdFTSP (calibrated)``, ``Titan``, ``EFT``,
    ``NTM`` (and ``Titan (welfare oracle)`` where the sweep runs it)."""
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
    return pd.DataFrame(
        [[f"{float(mean.sel({axis: x, 'algorithm': a})):.{digits}f} ± "
          f"{float(std.sel({axis: x, 'algorithm': a})):.{digits}f}"
          for a in da["algorithm"].values] for x in da[axis].values],
        index=pd.Index([str(x) for x in da[axis].values], name=axis),
        columns=[str(a) for a in da["algorithm"].values])


def _mean(ds, var="welfare") -> xr.DataArray:
    return by_method(ds, var).mean("seed")


def _best_at(m: xr.DataArray, axis: str, variant: str) -> list[bool]:
    """At each setting of ``axis``: is ``variant`` above every baseline?"""
    return [float(m.sel({axis: x, "algorithm": variant}))
            > max(float(m.sel({axis: x, "algorithm": b})) for b in BASELINES)
            for x in m[axis].values]


def _rank_rows(m: xr.DataArray, axis: str, claim: str, paper: str) -> list[dict]:
    """Rows for "pdFTSP is the best at every setting" claims, for both pdFTSP variants."""
    rows = []
    for variant in (LEMMA2, CALIBRATED):
        best = _best_at(m, axis, variant)
        rows.append({"claim": claim, "variant": VARIANTS[variant], "paper": paper,
                     "ours": f"best in {sum(best)} of {len(best)}",
                     "verdict": verdict(all(best))})
    return rows


def _gain_rows(m: xr.DataArray, where: dict, paper: dict, claim: str) -> list[dict]:
    """The paper's gains of pdFTSP over each baseline (``paper``: label -> %) beside ours,
    for both pdFTSP variants; over Titan's welfare oracle too where the sweep ran it (the
    paper reports none: "not shown" against an oracle it did not run)."""
    rows = []
    col = m.sel(where)
    labels = [str(a) for a in m["algorithm"].values]
    if ORACLE in labels:
        paper = {**paper, ORACLE: None}
    for b, p in paper.items():
        for variant in (LEMMA2, CALIBRATED):
            g = gain(float(col.sel(algorithm=variant)), float(col.sel(algorithm=b)))
            if p is None:
                rows.append({"claim": f"{claim}: pdFTSP over {b}", "variant": VARIANTS[variant],
                             "paper": "not run", "ours": f"{g:+.1f} %",
                             "verdict": "not shown"})
                continue
            rows.append({"claim": f"{claim}: pdFTSP over {b}", "variant": VARIANTS[variant],
                         "paper": f"+{p:.2f} %", "ours": f"{g:+.1f} %",
                         "verdict": verdict(g > 0)})
    return rows


# --------------------------------------------------------------------------- prose
# The pages' closing prose is assembled from the data by these helpers: every number is
# formatted from a computed value, and every qualitative word ("grows", "the best at every
# load") is chosen by a test on the data.

_WITH = {LEMMA2: "With the Lemma-2 constants",
         CALIBRATED: "With the constants calibrated on the held-out day"}


def _and(items) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = [str(i) for i in items]
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _num(x: float) -> str:
    """An amount (USD, tasks): whole from 100 on, three significant digits below."""
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _pct(g: float, sign: str = "+") -> str:
    """A relative change in percent, signed (``sign=""``: unsigned): whole from 10 % on."""
    return f"{g:{sign}.0f} %" if abs(g) >= 10 else f"{g:{sign}.1f} %"


def _who(labels) -> str:
    """Algorithm labels for prose ("pdFTSP with the Lemma-2 constants"); both pdFTSP
    variants together are "both pdFTSP settings"."""
    labels = [str(a) for a in labels]
    if LEMMA2 in labels and CALIBRATED in labels:
        labels[labels.index(LEMMA2)] = "both pdFTSP settings"
        labels.remove(CALIBRATED)
    return _and(f"pdFTSP {_WITH[a][0].lower()}{_WITH[a][1:]}" if a in _WITH else a
                for a in labels)


def _trend(values, up: str = "grows", down: str = "shrinks",
           other: str = "does not change steadily") -> str:
    d = np.diff(np.asarray(values, dtype=float))
    return up if np.all(d > 0) else down if np.all(d < 0) else other


def _val(m: xr.DataArray, alg: str, **where) -> float:
    """``m`` (means by algorithm) of ``alg`` at ``where``, as a float."""
    return float(m.sel(algorithm=alg, **where))


def _load_name(label) -> str:
    """"light" for the load axis label "light (30)"."""
    return str(label).split(" (")[0]


def _sentences(*parts: str) -> str:
    """Join the non-empty sentences of a paragraph."""
    return " ".join(p for p in parts if p)


def _leader(col: xr.DataArray, among=BASELINES) -> str:
    """The label with the largest value in ``col`` (one setting) among ``among``."""
    return max(among, key=lambda a: float(col.sel(algorithm=a)))


def _change(ds: xr.Dataset, alg: str, at0: dict, at1: dict,
            var: str = "welfare") -> tuple[str, float, bool]:
    """How ``alg``'s mean ``var`` changes from ``at0`` to ``at1``: ("rises by 2.5 %", the
    change in percent, whether it exceeds the spread over seeds, i.e. the larger standard
    deviation at either end). The text says "(within the spread over seeds)" if not."""
    da = by_method(ds, var).sel(algorithm=alg)
    a, b = da.sel(at0), da.sel(at1)
    g = gain(float(b.mean()), float(a.mean()))
    text = ("rises" if g > 0 else "falls") + f" by {abs(g):.1f} %" if g else "does not change"
    noise = (max(float(a.std(ddof=1)), float(b.std(ddof=1)))
             if da.sizes.get("seed", 1) > 1 else 0.0)
    real = abs(float(b.mean()) - float(a.mean())) > noise
    return text + ("" if real else " (within the spread over seeds)"), g, real


#: two-sided 95 % quantiles of Student's t by degrees of freedom (1.96 beyond 30)
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
         9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
         16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 25: 2.060, 30: 2.042}


def _t975(df: int) -> float:
    if df > 30:
        return 1.96
    return _T975[max(d for d in _T975 if d <= df)]


def fit_trend(da: xr.DataArray, axis: str, x=None, transform=None) -> dict:
    """A trend with its uncertainty: the least-squares slope of ``da`` on ``x`` (default the
    ``axis`` coordinate) over every (setting, seed) point -- each seed is a repeat of the
    experiment -- with its standard error and 95 % interval (Student's t, n - 2 degrees of
    freedom). ``transform`` (e.g. ``np.log``) applies to both ``x`` and ``da``."""
    xs = np.asarray(da[axis].values if x is None else x, dtype=float)
    y = da.transpose(axis, "seed").values.astype(float)
    x2 = np.broadcast_to(xs[:, None], y.shape)
    if transform is not None:
        x2, y = transform(x2), transform(y)
    ok = np.isfinite(y) & np.isfinite(x2)
    x2, y = x2[ok], y[ok]
    n = int(y.size)
    if n < 3 or np.ptp(x2) == 0:
        return {"slope": np.nan, "se": np.nan, "low": np.nan, "high": np.nan, "n": n}
    xc = x2 - x2.mean()
    slope = float((xc * (y - y.mean())).sum() / (xc ** 2).sum())
    resid = y - y.mean() - slope * xc
    se = float(np.sqrt((resid ** 2).sum() / (n - 2) / (xc ** 2).sum()))
    half = _t975(n - 2) * se
    return {"slope": slope, "se": se, "low": slope - half, "high": slope + half, "n": n}


def trend_verdict(fit: dict) -> str:
    """"agrees" with a claimed rise when the 95 % interval of the slope is above zero,
    "disagrees" when it is below, "not shown" when it holds zero (the data cannot tell)."""
    if fit["low"] > 0:
        return "agrees"
    if fit["high"] < 0:
        return "disagrees"
    return "not shown"


def trend_text(fit: dict, unit: str, digits: int = 3) -> str:
    """"slope +12.3 per node (95 %: +10.1 to +14.5; 12 runs)"."""
    def num(v):
        return f"{v:+.{digits}g}"

    return (f"slope {num(fit['slope'])} {unit} (95 %: {num(fit['low'])} to "
            f"{num(fit['high'])}; {fit['n']} runs)")


def _declaration(ds: xr.Dataset) -> dict:
    """The sweep declaration a dataset was made from (``{}`` if it does not say)."""
    return json.loads(ds.attrs["sweep"]) if "sweep" in ds.attrs else {}


def _titan_budget(ds: xr.Dataset | None = None) -> tuple[int, str, int]:
    """Titan's per-slot budget in the runs behind ``ds``: column-generation rounds, the
    MILP setting's name (:data:`lorasched.pdftsp.baselines.titan.MIP_SETTINGS`) and its
    branch-and-bound node limit -- its defaults, overridden by the sweep's options
    (without ``ds``: by the figures' :data:`TITAN_OPTIONS`)."""
    params = inspect.signature(_titan.run).parameters
    budget = {k: params[k].default for k in ("max_cg_iterations", "mip", "mip_max_nodes")}
    options = {} if ds is None else _declaration(ds).get("options", {})
    budget.update(options.get("titan", TITAN_OPTIONS))
    nodes = budget["mip_max_nodes"]
    if nodes is None:
        nodes = _titan.MIP_SETTINGS[budget["mip"]][1]
    return int(budget["max_cg_iterations"]), str(budget["mip"]), int(nodes)


def _titan_solve(mip: str, nodes: int) -> str:
    """How a per-slot MILP is solved under setting ``mip`` with ``nodes`` nodes, in words."""
    if _titan.MIP_SETTINGS[mip][0] == "rens":
        return ("is solved by fixing the columns the column-generation LP sets to 0 or 1 and "
                f"solving the MILP over its fractional ones alone (RENS, at most {nodes:,} "
                "branch-and-bound nodes), with no branching over the others")
    if nodes == 0:
        return ("is not branched on (`mip_max_nodes = 0`): HiGHS rounds the column-generation "
                "LP's solution by fixing the columns it already sets to 0 or 1 and solving a "
                "small MILP over the rest, and keeps that solution")
    if nodes == 1:
        return ("is solved at the root node only (root LP, cuts and HiGHS's cheap "
                "heuristics, no branching)")
    return f"is solved with at most {nodes} branch-and-bound nodes"


def _titan_branches(ds: xr.Dataset | None = None) -> bool:
    """Whether Titan's per-slot MILP branches over all its columns in ``ds``'s runs."""
    _, mip, nodes = _titan_budget(ds)
    return _titan.MIP_SETTINGS[mip][0] != "rens" and nodes > 0


def _titan_limits(ds: xr.Dataset) -> str:
    """"each slot's MILP chooses only among ... and is solved ..." for ``ds``'s runs."""
    rounds, mip, nodes = _titan_budget(ds)
    return (f"each slot's MILP chooses only among the schedules found in {rounds} rounds of "
            f"column generation and {_titan_solve(mip, nodes)}")


# --------------------------------------------------------------------------- figures
class SweepFigure(Figure):
    """A figure of section 5 drawn from one sweep over ``axis`` (plus Fig. 12's two)."""

    system = "pdftsp"
    variant_column = "pdFTSP"
    axis = ""

    def axes(self, size: str) -> dict:
        raise NotImplementedError

    def algorithms(self) -> list[str]:
        """The policies of the figure: the paper's four, plus Titan's welfare oracle in
        :data:`ORACLE_FIGURES`."""
        return list(ALGORITHMS) + (["titan_oracle"] if self.key in ORACLE_FIGURES else [])

    def declaration(self, size: str, seeds: int | None) -> dict:
        b = base(size)
        axes = self.axes(size)
        axes["constants"] = pdftsp_constants(size)
        algorithms = self.algorithms()
        return {"name": f"{self.key}_{size}", "system": self.system,
                "description": self.title, "base": b, "axes": axes,
                "algorithms": algorithms,
                "seeds": _SEEDS[size] if seeds is None else int(seeds),
                "options": {a: dict(TITAN_OPTIONS) for a in algorithms
                            if a.startswith("titan")}}

    def sweeps(self, size: str = "small", seeds: int | None = None) -> dict[str, Sweep]:
        check_size(size)
        return {self.key: Sweep.from_dict(self.declaration(size, seeds))}

    def describe(self, ds: xr.Dataset) -> str:
        """One paragraph stating the setting: what is fixed, what varies, how many seeds,
        and the mean tasks per day and load factor."""
        decl = json.loads(ds.attrs["sweep"])
        fixed = ", ".join(f"{k} = {v}" for k, v in decl["base"].items()
                          if k not in decl["axes"])
        axes = "; ".join(f"{d}: {', '.join(map(str, ds[d].values))}" for d in ds.dims
                         if d not in ("constants", "algorithm", "seed"))
        lf = ds["load_factor"].mean("seed")
        titan = ", ".join(f"{k} = {v}" for k, v in
                          decl.get("options", {}).get("titan", {}).items())
        return textwrap.fill(
            f"{decl['description']}. Fixed: {fixed}. Varied: {axes}. Seeds "
            f"{', '.join(map(str, ds['seed'].values))} (error bars: one standard deviation). "
            f"On average {float(ds['n_tasks'].mean()):.0f} tasks arrive per run; the offered "
            f"work is {float(lf.min()):.2f}x to {float(lf.max()):.2f}x what the cluster can "
            f"process in the horizon. Titan: {titan or 'defaults'}.", width=76)

    # ---------------------------------------------------------------- prose helpers
    every = "in every setting"  # "at every K"
    paper_gains: dict = {}  # the paper's gains of pdFTSP over each baseline at one setting

    def where(self, xs) -> str:
        """Where, for settings ``xs`` of the axis: "at K = 5 and 10"."""
        return f"at {_and(xs)}"

    def from_on(self, x) -> str | None:
        """"from K = 10 on", for an ordered axis (None: the axis has no order)."""
        return None

    def standing(self, ds: xr.Dataset, variant: str, detail_at=None) -> str:
        """Where pdFTSP with ``variant``'s constants stands among the baselines: the best
        everywhere; the best somewhere, and how far below the leader elsewhere; or nowhere,
        and which baselines are above it everywhere (with ``detail_at``: by how much there)
        and which below."""
        m, axis = _mean(ds), self.axis
        xs = list(m[axis].values)
        best = _best_at(m, axis, variant)
        who = f"{_WITH[variant]} pdFTSP"
        if all(best):
            return f"{who} is the best {self.every}."

        def value(alg, x):
            return _val(m, alg, **{axis: x})

        if not any(best):
            above = [b for b in BASELINES if all(value(b, x) > value(variant, x) for x in xs)]
            below = [b for b in BASELINES if all(value(b, x) < value(variant, x) for x in xs)]
            text = f"{who} is below {_and(above) or 'the best baseline'} {self.every}"
            if above and detail_at is not None:
                text += f" ({self.where([detail_at])}: " + ", ".join(
                    f"{_pct(gain(value(variant, detail_at), value(b, detail_at)))} against {b}"
                    for b in above) + ")"
            return text + (f" and above {_and(below)}." if below else ".")
        wins = [x for x, ok in zip(xs, best, strict=True) if ok]
        where = self.where(wins)
        if len(wins) > 1 and wins == xs[len(xs) - len(wins):] and self.from_on(wins[0]):
            where = self.from_on(wins[0])
        behind = []
        for x in (x for x, ok in zip(xs, best, strict=True) if not ok):
            lead = _leader(m.sel({axis: x}))
            g = gain(value(variant, x), value(lead, x))
            behind.append(f"{self.where([x])} it is {abs(g):.1f} % below {lead}")
        return f"{who} is the best {where} ({len(wins)} of {len(xs)}); {_and(behind)}."

    def prices_out(self, ds: xr.Dataset, x) -> str:
        """Why pdFTSP with the Lemma-2 constants trails at setting ``x``: it admits fewer
        tasks than the leading baseline (said only if it trails there and admits fewer)."""
        m, adm = _mean(ds).sel({self.axis: x}), _mean(ds, "n_admitted").sel({self.axis: x})
        lead = _leader(m)
        ours, theirs = float(adm.sel(algorithm=LEMMA2)), float(adm.sel(algorithm=lead))
        if float(m.sel(algorithm=LEMMA2)) >= float(m.sel(algorithm=lead)) or ours >= theirs:
            return ""
        tasks = float(ds["n_tasks"].sel({self.axis: x}).mean())
        return (f"{_cap(self.where([x]))} it admits on average {ours:.0f} of {tasks:.0f} "
                f"tasks, {lead} {theirs:.0f}: its prices climb far faster than Lemma 2 needs, so "
                "it turns tasks away while nodes are still partly free (the day chapter "
                "measures this mechanism).")

    def oracle(self, ds: xr.Dataset, x) -> str:
        """At setting ``x``: the faithful Titan beside its welfare oracle, and where pdFTSP
        stands against the oracle ("" if the sweep did not run it)."""
        m = _mean(ds).sel({self.axis: x})
        if ORACLE not in [str(a) for a in m["algorithm"].values]:
            return ""
        titan, oracle = _val(m, "Titan"), _val(m, ORACLE)
        adm = _mean(ds, "n_admitted").sel({self.axis: x})
        text = (f"{_cap(self.where([x]))} Titan as the paper ran it (its progress objective, "
                f"no bids) reaches a welfare of {_num(titan)}, admitting "
                f"{_val(adm, 'Titan'):.0f} tasks; the welfare oracle, which sees every bid, "
                f"{_num(oracle)} with {_val(adm, ORACLE):.0f} ("
                f"{_pct(gain(oracle, titan))}).")
        beats = [v for v in (LEMMA2, CALIBRATED) if _val(m, v) > oracle]
        if beats:
            who = _who(beats)
            text += f" {who[:1].upper() if who.startswith('both') else who[:1]}{who[1:]} " \
                    f"{'is' if len(beats) == 1 else 'are'} above even the oracle."
        else:
            text += (" Neither pdFTSP setting reaches the oracle ("
                     + ", ".join(f"{VARIANTS[v]} {_pct(gain(_val(m, v), oracle))}"
                                 for v in (LEMMA2, CALIBRATED)) + ").")
        return text

    def magnitudes(self, ds: xr.Dataset, x) -> str:
        """The paper's gains at setting ``x`` (:attr:`paper_gains`) against ours: those that
        either pdFTSP setting comes within a tenth of, and those that neither does."""
        col = _mean(ds).sel({self.axis: x})
        close, far = [], []
        for b, p in self.paper_gains.items():
            ours = {v: gain(_val(col, v), _val(col, b)) for v in (LEMMA2, CALIBRATED)}
            near = [v for v, g in ours.items() if abs(g - p) <= 0.1 * abs(p)]
            if near:
                close.append(f"+{p:.2f} % over {b} ({_WITH[near[0]].lower()}: "
                             f"{_pct(ours[near[0]])})")
            else:
                far.append(f"+{p:.2f} % over {b}")
        where = self.where([x])
        if not close:
            return (f"The paper's gains {where} ({_and(far)}) are not reproduced in magnitude "
                    "by either pdFTSP setting.")
        return (f"Of the paper's gains {where}, lorasched comes within a tenth of "
                f"{_and(close)}" + (f"; the others ({_and(far)}) are not reproduced in "
                                    "magnitude by either pdFTSP setting." if far else "."))


