"""What every pdFTSP figure shares: the base scenario and sizes, the two pdFTSP variants
(Lemma 2, and constants calibrated on a held-out day), Titan solved to a stated gap
(and its budget-limited reading, an option), Titan with the welfare objective, lorasched's
cost-plus rule, tables by method, claim rows and the prose helpers (:class:`SweepFigure` is
in :mod:`.sweep_figure`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from ...experiments import Sweep
from ...experiments import calibrate as _calibrate
from ...model.errors import InputError
from ...pdftsp.workload import LOADS
from ..base import SCALES, check_size, seed_words
from ..centres import fmt, over_seeds
from ..inventory import cite
from ..numbers import interval, num, pct, quote_interval, signed_pct, usd
from ..numbers import joined as _and
from ..runs import one_run
from ..verdicts import (
    BEYOND,
    GAIN,
    INCONCLUSIVE,
    NOT_EXPLAINED,
    NOT_RUN,
    NOT_TESTABLE,
    REPRODUCED,
    Estimate,
    estimate,
    inconclusive_why,
    judge,
    judge_all,
    t975,
)

#: the paper's algorithms; Figs. 4 and 8 add Titan with the welfare objective
#: (:data:`ORACLE_FIGURES`)
ALGORITHMS = ("pdftsp", "titan", "eft", "ntm")
#: lorasched's baselines in every figure's sweep beside the paper's (cheap: an EFT's cost);
#: never among :data:`BASELINES`, so the paper's claims are judged against its own
LORASCHED_BASELINES = ("cost_plus",)
ORACLE_FIGURES = ("fig04", "fig08")
#: Titan's per-slot solve in every figure: lorasched's stated gap, each slot's compact MILP
#: solved to a certified
#: :data:`~lorasched.pdftsp.baselines.titan_per_slot.MILP_REL_GAP` gap in the stages of
#: ``lorasched.pdftsp.slot_milp.STAGES``, within the library's node count a slot
#: (:data:`~lorasched.pdftsp.baselines.titan_per_slot.MILP_MAX_NODES`); a slot stopped by
#: that count keeps its certified gap, which the pages report
TITAN_OPTIONS = {"solver": "milp"}
#: the budget-limited reading (``solver = "columns"``: 10 rounds of column generation, then
#: ``"rens_lean"``, the LP's 0/1 columns kept and a MILP over its fractional ones): a named
#: option, no longer a column the verdicts use; the baselines chapter shows what it costs
#: and what it leaves (:func:`~.titan_words.titan_setting` runs the figures with it)
TITAN_BUDGET_OPTIONS = {"solver": "columns", "mip": "rens_lean"}
NAMES = {"pdftsp": "pdFTSP", "titan": "Titan", "titan_oracle": "Titan (welfare objective)",
         "eft": "EFT", "ntm": "NTM", "cost_plus": "cost-plus (lorasched's)",
         "eft_tuned": "EFT (tuned)", "ntm_tuned": "NTM (tuned)",
         "cost_plus_tuned": "cost-plus (lorasched's, tuned)"}
TITAN = NAMES["titan"]
LEMMA2 = "pdFTSP (Lemma 2)"
CALIBRATED = "pdFTSP (calibrated)"
VARIANTS = {LEMMA2: "Lemma 2", CALIBRATED: "calibrated"}
#: the paper's baselines as every setting of a figure runs them
BASELINES = (TITAN, "EFT", "NTM")
ORACLE = NAMES["titan_oracle"]
COST_PLUS = NAMES["cost_plus"]
#: the baselines with a free option (:data:`~.tuning.TUNED`) as the figures run them tuned
#: alike on the held-out day, in a sweep part of their own (``"tuned"``, named
#: ``<algorithm>_tuned`` in the data); Titan has no option to tune (it never reads a bid or
#: a price), so it is its own tuned self
TUNED_ALGORITHMS = ("eft", "ntm", "cost_plus")
TUNED_OF = {NAMES[a]: NAMES[f"{a}_tuned"] for a in TUNED_ALGORITHMS}
#: the baselines of the calibrated pdFTSP, each tuned as its constants are: tuned against
#: tuned, lorasched's cost-plus included
TUNED_BASELINES = (TITAN, *TUNED_OF.values())
#: whom each pdFTSP setting is measured against: Lemma 2's constants against the paper's
#: untuned baselines (the paper's setting), the calibrated constants against every baseline
#: tuned alike; calibrated pdFTSP is never judged against an untuned baseline
RIVALS = {LEMMA2: BASELINES, CALIBRATED: TUNED_BASELINES}
#: the figures' bar panels, a row per pdFTSP setting (:func:`~lorasched.plotting.pdftsp.
#: figure_bars` lays four out two a row): on the left, the setting beside the paper's
#: baselines, as the paper ran them or tuned alike on the held-out day; on the right,
#: beside lorasched's additions (its cost-plus rule, and Titan with the welfare
#: objective); no more than four bars a group
PANELS = {"Lemma 2 · the paper's baselines": [LEMMA2, TITAN, "EFT", "NTM"],
          "Lemma 2 · lorasched's additions": [LEMMA2, COST_PLUS, ORACLE],
          "calibrated · the paper's baselines, tuned":
          [CALIBRATED, TITAN, *(TUNED_OF[a] for a in ("EFT", "NTM"))],
          "calibrated · lorasched's additions, tuned": [CALIBRATED, TUNED_OF[COST_PLUS], ORACLE]}
#: "the best baseline" in each setting's words
BEST = {LEMMA2: "the best baseline", CALIBRATED: "the best tuned baseline"}
#: the held-out calibration day: the base scenario's seed 101 (the figures use seeds 1..3)
CALIBRATION_SEEDS = (_calibrate.CALIBRATION_SEED,)
_SCALE = {"small": 0.1, "full": 1.0}
_SLOTS = {"small": 48, "full": 144}
#: seeds of every cheap cell (pdFTSP's own days, EFT, NTM: about a second each at full size)
_SEEDS = {"small": 5, "full": 10}
#: seeds of the expensive cells (Titan per slot with either objective, 10 to 150 CPU-seconds
#: a day at full size, and Fig. 12's bounds): the first of the figure's seeds; a figure's
#: ``costly_full`` raises it at the full size (Figs. 4-9 run Titan on all ten)
_COSTLY_SEEDS = {"small": 3, "full": 4}
#: the policies that run on the costly seeds only
COSTLY = ("titan", "titan_oracle")


def ships(figure, params: dict) -> bool:
    """Whether a cell of ``figure`` is shipped with the repository
    (:mod:`lorasched.experiments.shipped`): every cell but a kept one (a whole result is no
    line of a shipped file). The costly ones (Titan with either objective, and the bounds)
    cost most of the book's CPU time; the others (pdFTSP, EFT, NTM, cost-plus: 3,693 cells,
    840 CPU-s at the full size) a third of what the book computes where it is built; and
    so a page's measured times (Fig. 13's, pdFTSP's against Titan's) all come from one
    machine."""
    return not params.get("keep")


def costly_seeds(size: str, seeds: int | None = None, full: int | None = None) -> int:
    """How many seeds the expensive cells run: the first ``_COSTLY_SEEDS[size]`` of the
    figure's seeds (``full`` of them at the full size where given; all of them when the
    figure runs fewer)."""
    n = _SEEDS[size] if seeds is None else int(seeds)
    k = full if size == "full" and full is not None else _COSTLY_SEEDS[size]
    return min(n, k)


def base(size: str = "small") -> dict:
    """The scenario every figure starts from (``synthetic_scenario`` arguments)."""
    check_size(size)
    return {"nodes": round(100 * _SCALE[size]), "gpu": "mix", "vendors": 5,
            "deadline_policy": "slack", "load": _load("medium", size),
            "slots": _SLOTS[size]}


def base_run(size: str = "small", seed: int = 1) -> Sweep:
    """pdFTSP's day on the base scenario (:func:`base`, ``seed``), kept whole: what Figs. 10
    and 11 draw their tasks from (a kept sweep of one cell, :func:`.runs.one_run`)."""
    return one_run("pdftsp", base(size), "pdftsp", seed=seed, label="one day, kept whole",
                   what="pdFTSP's day on the figures' base scenario")


def scale(size: str = "small", seeds: int | None = None, costly: int | None = None) -> str:
    """The size's scale in words: nodes, loads, slots and seeds (the expensive cells on
    ``costly`` of them where given, else :func:`costly_seeds`)."""
    b = base(size)
    loads = _and(f"{LOADS[name] * _SCALE[size]:g} ({name})" for name in LOADS)
    n = _SEEDS[size] if seeds is None else int(seeds)
    k = costly_seeds(size, seeds) if costly is None else costly
    fewer = (f" (Titan with either objective, each slot's mixed-integer linear program "
             f"(MILP) solved to a certified gap, and the bounds, which cost 10 to 600 times a "
             f"pdFTSP day: the first {k})" if k < n else "")
    return (f"K = {b['nodes']} compute nodes where a figure does not vary K, {loads} tasks "
            f"arriving per slot on average at the three loads, {b['slots']} ten-minute "
            f"slots, {seed_words(n)}{fewer}")


SCALES["pdftsp"] = scale


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
    ``NTM`` (and ``Titan (welfare objective)`` where the sweep runs it)."""
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
    """The centre over seeds of ``var`` (absolute, USD for welfare) that the claims take,
    the geometric mean, with its 95 % interval (:func:`~..centres.fmt`): one row per
    setting of the figure's axis, one column per algorithm ("not run" where it was not:
    Titan with the welfare objective outside :meth:`SweepFigure.oracle_at`)."""
    da = by_method(ds, var)
    axis = next(d for d in da.dims if d not in ("algorithm", "seed"))

    def text(x, a):
        values = da.sel({axis: x, "algorithm": a}).values
        return fmt(values, lambda v: f"{v:,.{digits}f}") or "not run"

    return pd.DataFrame(
        [[text(x, a) for a in da["algorithm"].values] for x in da[axis].values],
        index=pd.Index([str(x) for x in da[axis].values], name=axis),
        columns=[str(a) for a in da["algorithm"].values])


def _mean(ds, var="welfare") -> xr.DataArray:
    return over_seeds(by_method(ds, var))


def rival(variant: str, baseline: str) -> str:
    """The run of ``baseline`` that pdFTSP with ``variant``'s constants is measured
    against (:data:`RIVALS`): the baseline as the paper ran it for the Lemma-2 constants,
    its tuned run (:data:`TUNED_OF`) for the calibrated ones."""
    return TUNED_OF.get(baseline, baseline) if variant == CALIBRATED else baseline


# --------------------------------------------------------------------------- verdicts
# Every claim is judged per seed (:mod:`lorasched.figures.verdicts`): a gain of A over B is
# computed on each seed's day, paired, and then estimated.

def seed_gain(flat: xr.DataArray, a: str, b: str) -> xr.DataArray:
    """The gain of ``a`` over ``b`` in percent, per seed and setting (``flat``: by
    :func:`by_method`); NaN where ``b`` earns nothing."""
    x, y = flat.sel(algorithm=a, drop=True), flat.sel(algorithm=b, drop=True)
    return 100.0 * (x / y.where(y > 0) - 1.0)


def seed_margin(flat: xr.DataArray, variant: str, among=BASELINES) -> xr.DataArray:
    """The gain of ``variant`` over the best of ``among`` on each seed's day, in percent."""
    # on a seed where a baseline did not run (Titan on the costly seeds only) the margin is
    # unknown, not a margin over the others
    best = flat.sel(algorithm=list(among)).max("algorithm", skipna=False)
    return 100.0 * (flat.sel(algorithm=variant, drop=True) / best.where(best > 0) - 1.0)


def estimate_of(da, scale: str = GAIN) -> Estimate:
    """:func:`~lorasched.figures.verdicts.estimate` of ``da``'s values (one per seed), by
    default a gain in percent (its interval on the log of the ratio)."""
    return estimate(np.asarray(getattr(da, "values", da), dtype=float).ravel(), scale)


def ours_pct(est: Estimate) -> str:
    """A percentage estimate as the claims table shows it."""
    return interval(est, pct)


#: where the mechanism behind pdFTSP's admissions is measured: its prices against Lemma 2's
#: floor and the cells its tasks share, on one day of the auction
MECHANISM = ("[One day on the cluster, \"Why so few tasks share a node\"]"
             "(day.html#why-so-few-tasks-share-a-node)")


def admissions(ds: xr.Dataset, a: str, b: str, at: dict) -> str:
    """Why ``a``'s welfare stands where it does against ``b``'s at setting ``at``: the
    tasks each admits (means over seeds, of those that arrive) and the welfare per
    admitted task, whose product is the welfare ("" where ``ds`` does not count them).
    That product restates the welfare; where pdFTSP admits fewer tasks and earns less, the
    cause is its prices, measured where they live (:data:`MECHANISM`, linked); otherwise
    the row says :data:`~lorasched.figures.verdicts.NOT_EXPLAINED` before the numbers."""
    if "n_admitted" not in ds or "n_tasks" not in ds:
        return ""
    adm = over_seeds(by_method(ds, "n_admitted").sel(at))
    w = over_seeds(by_method(ds).sel(at))
    tasks = float(ds["n_tasks"].sel(at).mean())
    na, nb = float(adm.sel(algorithm=a)), float(adm.sel(algorithm=b))
    pa = float(w.sel(algorithm=a)) / na if na else float("nan")
    pb = float(w.sel(algorithm=b)) / nb if nb else float("nan")
    if not (nb and pb):  # b admits nothing, or earns nothing with what it admits
        return (f"{NOT_EXPLAINED}: {b} earns nothing here ({num(nb)} tasks admitted of "
                f"{num(tasks)}), so there is no welfare per task to compare.")
    count = (f"{pct(100 * (1 - na / nb), sign=False)} fewer admissions" if na < nb else
             f"{pct(100 * (na / nb - 1), sign=False)} more admissions")
    each = (f"{pct(100 * (pa / pb - 1), sign=False)} more welfare per task" if pa > pb else
            f"{pct(100 * (1 - pa / pb), sign=False)} less welfare per task")
    numbers = (f"{_who([a])} admits {num(na)} of {num(tasks)} tasks ({usd(pa)} of welfare "
               f"per admitted task), {b} {num(nb)} ({usd(pb)}): {count}, at {each}.")
    priced_out = a in VARIANTS and na < nb and float(w.sel(algorithm=a)) < float(
        w.sel(algorithm=b))
    if priced_out:
        return (f"{numbers} It prices tasks out: its compute price λ stands far above Lemma "
                "2's floor, so it rejects tasks while nodes are partly free, as measured in "
                f"{MECHANISM}.")
    return f"{NOT_EXPLAINED}: the numbers only restate the welfare. {numbers}"


#: the figure that counts the base scenario's cell (mixed GPUs, 5 vendors, slack deadlines,
#: medium load) in its "pdFTSP is the best" claim; the others leave that cell out of theirs
BASE_CELL_FIGURE = "Fig. 6"


def rank_tests(ds: xr.Dataset, axis: str, variant: str, base_at=None):
    """The test behind "pdFTSP is the best at every setting": at each setting of ``axis``
    (``base_at`` left out), ``variant``'s per-seed margin over the best of its
    :data:`RIVALS` on that day, estimated and judged above zero. Returns ``(settings,
    {setting: estimate}, {setting: verdict}, the claim's verdict)``, the worst setting
    deciding (:func:`judge_all`); the claims row and the page's prose both read it."""
    margin = seed_margin(by_method(ds), variant, among=RIVALS[variant])
    xs = [x for x in margin[axis].values if base_at is None or x != base_at]
    ests = {x: estimate_of(margin.sel({axis: x})) for x in xs}
    verdicts = {x: judge(e, None, side=1) for x, e in ests.items()}
    return xs, ests, verdicts, judge_all(verdicts.values())


def _rank_rows(ds: xr.Dataset, axis: str, claim: str, where, base_at=None, *,
               sentence: str = "") -> list[dict]:
    """Rows for "pdFTSP is the best at every setting" claims, for both pdFTSP variants:
    at each setting, pdFTSP's per-seed margin over the best baseline of that day (a
    direction claim, judged above zero), the worst setting deciding (:func:`judge_all`).
    ``where(xs)`` names settings in prose; ``base_at``: the setting that is the base
    scenario's cell, which :data:`BASE_CELL_FIGURE` counts, left out here (each claim is
    counted once). A row not reproduced says why at a setting with its verdict: the
    admissions and welfare per task against the leading baseline. The calibrated
    constants' row is beyond the paper (its constants are lorasched's) and is measured
    against the baselines tuned alike (:data:`RIVALS`). Each row cites ``sentence``, the
    paper's sentence it answers (:func:`~..inventory.cite`)."""
    flat = by_method(ds)
    m = over_seeds(flat)
    rows = []
    for variant in (LEMMA2, CALIBRATED):
        xs, ests, verdicts, verdict = rank_tests(ds, axis, variant, base_at)
        # the setting that decides the verdict (of those, the smallest margin)
        x = min((x for x in xs if verdicts[x] == verdict), key=lambda x: ests[x].mean)
        above = sum(v == REPRODUCED for v in verdicts.values())
        row = {"claim": claim, "variant": VARIANTS[variant], "paper": "the best",
               "ours": f"margin over {BEST[variant]} {where([x])}: {ours_pct(ests[x])}"
                       + (f"; above it beyond the interval in {above} of {len(xs)} settings"
                          if len(xs) > 1 else "")
                       + (f" ({where([base_at])}, the base scenario, is counted in "
                          f"{BASE_CELL_FIGURE})" if base_at is not None else ""),
               "verdict": verdict, "estimate": ests[x], "fmt": pct,
               "threshold": 0.0, "side": 1,  # a direction: the margin above zero
               "scope": BEYOND if variant == CALIBRATED else "paper",
               "sentence": cite(sentence) if sentence else ""}
        if verdict != REPRODUCED:
            lead = _leader(m.sel({axis: x}), RIVALS[variant])
            row["why"] = (f"{_cap(where([x]))}: "
                          + (inconclusive_why(ests[x], 0.0, pct) + " "
                             if verdict == INCONCLUSIVE else "")
                          + admissions(ds, variant, lead, {axis: x}))
        rows.append(row)
    return rows


def _gain_rows(ds: xr.Dataset, where: dict, paper: dict, claim: str, *,
               sentence: str = "") -> list[dict]:
    """The paper's gains of pdFTSP over each baseline (``paper``: label -> %) beside ours,
    per seed and paired, for both pdFTSP variants, each against its :func:`rival` run of
    the baseline (the calibrated constants against the baseline tuned alike); over Titan
    with the welfare objective too where the sweep ran it (the paper did not:
    :data:`NOT_RUN`). A row not reproduced says why: the admissions and welfare per task of
    pdFTSP against the baseline. A row of a gain the paper gives cites ``sentence``'s
    part named after the baseline (:func:`~..inventory.cite`)."""
    rows = []
    flat = by_method(ds).sel(where)
    labels = [str(a) for a in flat["algorithm"].values]
    missing = [r for b in paper for r in dict.fromkeys(rival(v, b) for v in VARIANTS)
               if r not in labels]
    if missing:
        raise InputError(f"the paper's gains over {_and(missing)} are judged against runs "
                         "these data do not hold")
    # the runs the paper did not make: their rows are shown, never judged
    paper = {**paper, **{b: None for b in (ORACLE,) if b in labels and b not in paper}}
    for b, p in paper.items():
        for variant in (LEMMA2, CALIBRATED):
            against = rival(variant, b)
            gains = seed_gain(flat, variant, against)
            if p is not None and not np.isfinite(gains.values).any():
                rows.append(_nothing_row(f"{claim}: pdFTSP over {b}", variant, pct(p),
                                         against)
                            | {"sentence": cite(sentence, b) if sentence else ""})
                continue
            est = estimate_of(gains)
            row = {"claim": f"{claim}: pdFTSP over {b}", "variant": VARIANTS[variant],
                   "paper": "not run" if p is None else pct(p),
                   "ours": (f"over {against}: " if against != b else "") + ours_pct(est),
                   "estimate": est, "fmt": pct, "paper_value": p,
                   "scope": BEYOND if variant == CALIBRATED or p is None else "paper",
                   "sentence": cite(sentence, b) if sentence and p is not None else ""}
            if p is None:
                row["verdict"] = NOT_RUN
            else:
                row["verdict"] = judge(est, p)
                if row["verdict"] != REPRODUCED:
                    row["why"] = ((inconclusive_why(est, 0.0, pct) + " "
                                   if row["verdict"] == INCONCLUSIVE else "")
                                  + admissions(ds, variant, against, where))
            rows.append(row)
    return rows


def _nothing_row(claim: str, variant: str, paper: str, against: str) -> dict:
    """A gain over ``against`` where it earns nothing on every seed (a price tuned on the
    base scenario above every value of another scenario's tasks, say): no gain to
    measure, not testable here."""
    return {"claim": claim, "variant": VARIANTS[variant], "paper": paper,
            "ours": f"{against} earns nothing on any seed", "verdict": NOT_TESTABLE,
            "scope": BEYOND if variant == CALIBRATED else "paper",
            "why": f"{against} admits no task on any seed here, so pdFTSP's gain over it "
                   "is not a number: this cannot be tested here."}


#: the claims table's name of pdFTSP's margin over lorasched's cost-plus rule
COST_PLUS_CLAIM = "pdFTSP over lorasched's cost-plus rule, base scenario"


def cost_plus_tests(ds: xr.Dataset, at: dict) -> dict:
    """The test behind :data:`COST_PLUS_CLAIM`, for both pdFTSP variants: the per-seed gain
    of pdFTSP over cost-plus at setting ``at`` (untuned against untuned, tuned against
    tuned: :func:`rival`), judged above zero (the paper's claim that pdFTSP beats its
    baselines, held against a baseline the paper did not run). Returns ``{variant:
    (estimate, verdict)}``; the claims row and the prose both read it."""
    flat = by_method(ds).sel(at)
    out = {}
    for variant in (LEMMA2, CALIBRATED):
        est = estimate_of(seed_gain(flat, variant, rival(variant, COST_PLUS)))
        out[variant] = (est, judge(est, None, side=1))
    return out


def cost_plus_rows(ds: xr.Dataset, at: dict) -> list[dict]:
    """Rows of :data:`COST_PLUS_CLAIM` at the base scenario's setting ``at``, both pdFTSP
    variants, beyond the paper (it did not run cost-plus). A row not reproduced says why:
    the admissions and welfare per task of pdFTSP against cost-plus. None where ``ds``
    did not run cost-plus."""
    labels = [str(a) for a in by_method(ds)["algorithm"].values]
    if COST_PLUS not in labels:
        return []
    if rival(CALIBRATED, COST_PLUS) not in labels:
        raise InputError("pdFTSP's calibrated constants are measured against cost-plus "
                         "tuned alike, which these data do not hold")
    rows = []
    for variant, (est, verdict) in cost_plus_tests(ds, at).items():
        against = rival(variant, COST_PLUS)
        row = {"claim": COST_PLUS_CLAIM, "variant": VARIANTS[variant],
               "paper": "not run (pdFTSP beats its own baselines)",
               "ours": (f"over {against}: " if against != COST_PLUS else "") + ours_pct(est),
               "estimate": est, "fmt": pct, "verdict": verdict, "scope": BEYOND}
        if verdict != REPRODUCED:
            row["why"] = ((inconclusive_why(est, 0.0, pct) + " "
                           if verdict == INCONCLUSIVE else "")
                          + admissions(ds, variant, against, at))
        rows.append(row)
    return rows


# --------------------------------------------------------------------------- prose
# The pages' closing prose is assembled from the data by these helpers: every number is
# formatted from a computed value, and every qualitative word ("grows", "the best at every
# load") is chosen by a test on the data.

_WITH = {LEMMA2: "With the Lemma-2 constants",
         CALIBRATED: "With the constants calibrated on the held-out day"}


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _num(x: float) -> str:
    """An amount (USD, tasks): :func:`lorasched.figures.numbers.num`."""
    return num(x)


def _pct(g: float, sign: str = "+") -> str:
    """A relative change in percent (:func:`lorasched.figures.numbers.pct`), signed unless
    ``sign=""``."""
    return pct(g, sign=bool(sign))


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
            var: str = "welfare") -> tuple[str, Estimate]:
    """How ``alg``'s ``var`` changes from ``at0`` to ``at1``, per seed (each seed's day at
    both settings), in percent: ("rises by 2.5 % (95 %: ...)", the estimate). The text says
    so when the seeds cannot tell the direction (the interval holds zero)."""
    da = by_method(ds, var).sel(algorithm=alg)
    a, b = da.sel(at0, drop=True), da.sel(at1, drop=True)
    est = estimate_of(100.0 * (b / a.where(a > 0) - 1.0))
    if not est.spread and est.mean == 0:
        return "does not change", est
    what = f"{alg}'s {var} change from {_where_text(at0)} to {_where_text(at1)}, %"
    if est.holds(0.0):
        return (f"changes by {quote_interval(what, est, signed_pct)}, a direction the seeds "
                "cannot tell"), est
    if est.mean > 0:
        return "rises by " + quote_interval(what, est, lambda x: pct(x, sign=False)), est
    down = est.negated()
    return ("falls by " + quote_interval(what.replace(" change ", " fall "), down,
                                         lambda x: pct(x, sign=False)), est)


def _where_text(at: dict) -> str:
    """``{"vendors": 1}`` as "vendors = 1"."""
    return ", ".join(f"{k} = {v}" for k, v in at.items())


def fit_trend(da: xr.DataArray, axis: str, x=None, transform=None) -> Estimate:
    """A trend with its uncertainty: the least-squares slope of ``da`` on ``x`` (default the
    ``axis`` coordinate) over every (setting, seed) point -- each seed is a repeat of the
    experiment -- as an :class:`~lorasched.figures.verdicts.Estimate` with its 95 % interval
    (Student's t, n - 2 degrees of freedom; ``n``: the points). ``transform`` (e.g.
    ``np.log``) applies to both ``x`` and ``da``."""
    xs = np.asarray(da[axis].values if x is None else x, dtype=float)
    y = da.transpose(axis, "seed").values.astype(float)
    x2 = np.broadcast_to(xs[:, None], y.shape)
    if transform is not None:
        x2, y = transform(x2), transform(y)
    ok = np.isfinite(y) & np.isfinite(x2)
    x2, y = x2[ok], y[ok]
    n = int(y.size)
    if n < 3 or np.ptp(x2) == 0:
        return Estimate(np.nan, np.nan, np.nan, n)
    xc = x2 - x2.mean()
    slope = float((xc * (y - y.mean())).sum() / (xc ** 2).sum())
    resid = y - y.mean() - slope * xc
    se = float(np.sqrt((resid ** 2).sum() / (n - 2) / (xc ** 2).sum()))
    half = t975(n - 2) * se
    return Estimate(slope, slope - half, slope + half, n)


def fit_why(fit: Estimate, unit: str = "") -> str:
    """The measured reason of an inconclusive trend: the slope's interval holds zero."""
    half = (fit.high - fit.low) / 2
    return (f"The slope's 95 % interval over {fit.n} runs, {num(fit.low, sign=True)} to "
            f"{num(fit.high, sign=True)}{' ' + unit if unit else ''}, holds zero: its "
            f"half-width, {num(half)}, exceeds the fitted slope's size, {num(abs(fit.mean))}.")


def dollars(x: float, digits: int = 3) -> str:
    """A small dollar amount to ``digits`` significant digits (``$0.00312``), where
    :func:`~lorasched.figures.numbers.usd`'s cents would round it away."""
    return ("-" if x < 0 else "") + "$" + num(abs(x), digits)


def trend_verdict(fit: Estimate) -> str:
    """The verdict on a claimed rise: a direction, judged on the slope's interval."""
    return judge(fit, None, side=1)


def trend_text(fit: Estimate, unit: str) -> str:
    """"slope +12.3 per node (95 %: +10.1 to +14.5, 12 runs)"."""
    text = interval(fit, lambda v: num(v, sign=True), unit_seeds="runs")
    head, _, tail = text.partition(" (")
    return f"slope {head} {unit}" + (f" ({tail}" if tail else "")
