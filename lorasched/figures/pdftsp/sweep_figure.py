"""The figures of section 5 drawn from one sweep over an axis (:class:`SweepFigure`): their
declaration, the setting they state, the standing of each method, and the paper's
magnitudes beside ours."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import xarray as xr

from ...experiments import Sweep
from ..base import Figure, Prose, check_size, gain
from ..centres import over_seeds
from ..numbers import num, pct, quote
from ..prose import says
from ..verdicts import (
    BEYOND,
    CONSISTENT,
    CONTRADICTED,
    INCONCLUSIVE,
    MAGNITUDE_OFF,
    REPRODUCED,
    judge,
)
from . import common, strict
from .common import (
    _SEEDS,
    _WITH,
    ALGORITHMS,
    BASE_CELL_FIGURE,
    BASELINES,
    BEST,
    CALIBRATED,
    COST_PLUS,
    COSTLY,
    LEMMA2,
    LORASCHED_BASELINES,
    ORACLE,
    ORACLE_FIGURES,
    RIVALS,
    TITAN,
    TUNED_ALGORITHMS,
    VARIANTS,
    _and,
    _cap,
    _leader,
    _mean,
    _num,
    _pct,
    _sentences,
    _val,
    _who,
    base,
    by_method,
    costly_seeds,
    estimate_of,
    ours_pct,
    rank_tests,
    seed_gain,
    seed_margin,
)
from .titan_words import titan_solve_text
from .tuning import baseline_calibration, pdftsp_constants


class SweepFigure(Figure):
    """A figure of section 5 drawn from one sweep over ``axis`` (plus Fig. 12's two)."""

    system = "pdftsp"
    variant_column = "pdFTSP"
    axis = ""
    quotes = True
    #: seeds of the expensive cells at the full size where the figure runs more than the
    #: others (:func:`~.common.costly_seeds`)
    costly_full: int | None = None

    def costly(self, size: str, seeds: int | None = None) -> int:
        """How many seeds the figure's expensive cells run (the first ones)."""
        return costly_seeds(size, seeds, self.costly_full)

    def scale_words(self, size: str, seeds: int | None = None) -> str:
        return common.scale(size, seeds, costly=self.costly(size, seeds))

    def axes(self, size: str) -> dict:
        raise NotImplementedError

    def scope(self, row: dict) -> str:
        """The calibrated constants' rows are beyond the paper (its constants are
        lorasched's, tuned on a held-out day); the Lemma-2 rows are the paper's."""
        if row.get("variant") == VARIANTS[CALIBRATED]:
            return BEYOND
        return super().scope(row)

    def algorithms(self) -> list[str]:
        """The policies of the figure's sweep: the paper's four and lorasched's cost-plus
        rule (Titan with the welfare objective, in :data:`ORACLE_FIGURES`, has a sweep of its
        own: :meth:`oracle_at`)."""
        return [*ALGORITHMS, *LORASCHED_BASELINES]

    def oracle_at(self, size: str) -> dict | None:
        """Where Titan with the welfare objective runs, ``{axis: [settings]}`` (None: not in this
        figure): only at the settings whose claims and prose use it, as it costs as much
        as Titan itself; elsewhere the figure's data hold NaN for it ("not run")."""
        return None

    def declaration(self, size: str, seeds: int | None) -> dict:
        b = base(size)
        axes = self.axes(size)
        axes["constants"] = pdftsp_constants(size)
        algorithms = self.algorithms()
        n, k = _SEEDS[size] if seeds is None else int(seeds), self.costly(size, seeds)
        return {"name": f"{self.key}_{size}", "system": self.system,
                "description": self.title, "base": b, "axes": axes,
                "algorithms": algorithms, "seeds": n,
                "seed_limit": {a: k for a in algorithms if a in COSTLY and k < n},
                "options": {a: dict(common.TITAN_OPTIONS) for a in algorithms
                            if a.startswith("titan")}}

    def _part(self, size, seeds, name, algorithm, options, at, k) -> Sweep:
        """One Titan-only part of the figure: ``algorithm`` with ``options`` at the
        settings ``at`` on the first ``k`` seeds (pdFTSP's constants dropped: Titan ignores
        them)."""
        decl = self.declaration(size, seeds)
        decl.update(name=f"{self.key}_{name}_{size}", algorithms=[algorithm],
                    options={algorithm: dict(options)},
                    seed_limit={algorithm: k} if k < decl["seeds"] else {},
                    axes={**{a: v for a, v in decl["axes"].items() if a != "constants"},
                          **at})
        return Sweep.from_dict(decl)

    def tuned_declaration(self, size: str, seeds: int | None = None) -> dict:
        """The part ``"tuned"``: the baselines with a free option
        (:data:`~.common.TUNED_ALGORITHMS`), each at its option tuned on the held-out day
        (:func:`~.tuning.baseline_calibration`, the scan that calibrates pdFTSP's
        constants), on every seed of the figure's settings (pdFTSP's constants dropped)."""
        decl = self.declaration(size, seeds)
        algorithms = list(TUNED_ALGORITHMS)
        decl.update(name=f"{self.key}_tuned_{size}", algorithms=algorithms, seed_limit={},
                    options={a: {k: float(v) for k, v in
                                 baseline_calibration(a, size).options.items()}
                             for a in algorithms},
                    axes={a: v for a, v in decl["axes"].items() if a != "constants"})
        return decl

    def sweeps(self, size: str = "small", seeds: int | None = None) -> dict[str, Sweep]:
        """The figure's sweep; (part ``"oracle"``) Titan with the welfare objective at
        :meth:`oracle_at`'s settings; (part ``"tuned"``, where :attr:`tuned`) the
        baselines tuned alike (:meth:`tuned_declaration`)."""
        check_size(size)
        out = {self.key: Sweep.from_dict(self.declaration(size, seeds))}
        at = self.oracle_at(size) if self.key in ORACLE_FIGURES else None
        if at:
            out["oracle"] = self._part(size, seeds, "oracle", "titan_oracle",
                                       common.TITAN_OPTIONS, at, self.costly(size, seeds))
        if self.tuned:
            out["tuned"] = Sweep.from_dict(self.tuned_declaration(size, seeds))
        return out

    #: whether the figure runs the baselines tuned alike beside its sweep (part
    #: ``"tuned"``): every figure whose claims measure pdFTSP's calibrated constants
    #: against the baselines
    tuned = True
    _PARTS = ("oracle", "tuned")

    def sweep(self, size: str = "small", seeds: int | None = None) -> Sweep:
        """The figure's own sweep (without its Titan-only and tuned parts)."""
        parts = self.sweeps(size, seeds)
        if set(parts) <= {self.key, *self._PARTS}:
            return parts[self.key]
        return super().sweep(size, seeds)

    def data(self, size: str = "small", **kwargs):
        """As :meth:`Figure.data`, the Titan-only part and the tuned baselines (named
        ``<algorithm>_tuned``) joined to the figure's sweep along ``algorithm`` (NaN where
        a part did not run)."""
        out = super().data(size, **kwargs)
        if isinstance(out, dict) and self.key in out and set(out) <= {self.key, *self._PARTS}:
            out = join_parts(out[self.key], {k: v for k, v in out.items() if k != self.key})
        return out

    def describe(self, ds: xr.Dataset) -> str:
        """One paragraph stating the setting: what is fixed, what varies, how many seeds,
        and the mean tasks per day and load factor."""
        decl = json.loads(ds.attrs["sweep"])
        fixed = ", ".join(f"{k} = {v}" for k, v in decl["base"].items()
                          if k not in decl["axes"])
        axes = "; ".join(f"{d}: {', '.join(map(str, ds[d].values))}" for d in ds.dims
                         if d not in ("constants", "algorithm", "seed"))
        lf = over_seeds(ds["load_factor"])
        return (f"{decl['description']}. Fixed: {fixed}. Varied: {axes}. Seeds "
                f"{', '.join(map(str, ds['seed'].values))} (error bars: the 95 % interval "
                "of the geometric mean over seeds). On average "
                f"{num(float(ds['n_tasks'].mean()))} tasks arrive per "
                f"run; the offered work is {num(float(lf.min()))}x to {num(float(lf.max()))}x "
                f"what the cluster can process in the horizon. " + titan_solve_text(ds)
                + self._oracle_where(ds))

    def titan_standard(self, data, size: str = "small") -> Prose:
        """The line under the claims table: the gaps Titan's slots certified in the runs
        behind it, against lorasched's standard and the paper's
        (:func:`~.strict.gaps_text`), and what the re-run of its worst runs at the paper's
        standard found, its verdicts with them in place (:func:`~.strict.strict_text`)."""
        return Prose(_sentences(strict.gaps_text(data), strict.strict_text(self, data, size)))

    def _oracle_where(self, ds: xr.Dataset) -> str:
        """The sentence saying where Titan with the welfare objective ran, if not
        everywhere ("")."""
        if "titan_oracle" not in [str(a) for a in ds["algorithm"].values]:
            return ""
        ran = ds["welfare"].sel(algorithm="titan_oracle").notnull()
        ran = ran.any([d for d in ran.dims if d != self.axis])
        if bool(ran.all()):
            return ""
        xs = [x for x, ok in zip(ds[self.axis].values, ran.values, strict=True) if ok]
        return (f" Titan with the welfare objective runs only {self.where(xs)}, where the "
                "claims and prose use it (each of its days costs as much as Titan's).")

    # ---------------------------------------------------------------- prose helpers
    every = "in every setting"  # "at every K"
    paper_gains: dict = {}  # the paper's gains of pdFTSP over each baseline at one setting

    def where(self, xs) -> str:
        """Where, for settings ``xs`` of the axis: "at K = 5 and 10"."""
        return f"at {_and(xs)}"

    def from_on(self, x) -> str | None:
        """"from K = 10 on", for an ordered axis (None: the axis has no order)."""
        return None

    #: the claims table's name of this figure's "pdFTSP is the best" claim ("": none)
    rank_claim = ""

    def base_at(self, ds: xr.Dataset):
        """The setting of :attr:`axis` that is the base scenario's cell, which another
        figure counts (None: none here)."""
        return None

    def standing(self, ds: xr.Dataset, variant: str, detail_at=None) -> str:
        """Where pdFTSP with ``variant``'s constants stands among the baselines, said from
        the test of the "best at every setting" claim (:func:`~.common.rank_tests`, its
        per-seed margin over the best of its :data:`~.common.RIVALS`: the paper's baselines
        for the Lemma-2 constants, the baselines tuned alike for the calibrated ones), in a
        sentence :func:`~..prose.says` marks with that test's verdict: the best everywhere,
        as the paper reports; below the best baseline somewhere beyond the seeds' interval
        (with ``detail_at``: by how much there), unlike the paper; or what the seeds cannot
        tell."""
        axis = self.axis
        xs, ests, verdicts, verdict = rank_tests(ds, axis, variant, self.base_at(ds))
        who = f"{_WITH[variant]} pdFTSP"
        inner = who[:1].lower() + who[1:]  # inside a sentence
        best = BEST[variant]
        every = self.every if len(xs) > 1 else self.where(xs)
        above = [x for x in xs if verdicts[x] == REPRODUCED]
        below = [x for x in xs if verdicts[x] == CONTRADICTED]
        undecided = [x for x in xs if verdicts[x] == INCONCLUSIVE]

        def margins(at) -> str:
            return _and(quote(f"{variant}'s margin over {best} "
                              f"{self.where([x])}, %", ests[x].mean, _pct)
                        + f" {self.where([x])}" for x in at)

        if verdict == REPRODUCED:
            text = (f"{who} is the best {every}: its margin over {best} of each "
                    f"seed's day, {margins(xs)} on average, lies above zero beyond the "
                    "seeds' 95 % interval, as the paper reports.")
        elif verdict == CONTRADICTED:
            text = (f"Unlike the paper, {inner} is not the best {every}: "
                    f"{self.where(below)} its margin over {best} lies below zero "
                    f"beyond the seeds' 95 % interval ({margins(below)})")
            if detail_at is not None and detail_at in below:
                m = _mean(ds).sel({axis: detail_at})
                lead = _leader(m, RIVALS[variant])
                text += (f"; {self.where([detail_at])} the leader is {lead}")
            if above:
                text += f"; {self.where(above)} it is above it ({margins(above)})"
            if undecided:
                text += f"; {self.where(undecided)} its interval holds zero"
            text += "."
        else:
            text = (f"Whether {inner} is the best {every} the seeds cannot tell: "
                    f"{self.where(undecided)} its margin over {best}, "
                    f"{margins(undecided)} on average, holds zero within the seeds' 95 % "
                    "interval" + (f", and {self.where(above)} it lies above it"
                                  if above else "") + ".")
        base = self.base_at(ds)
        if base is not None:  # the sentence covers the settings its claim's test covers
            text = (text[:-1] + f" ({self.where([base])}, the base scenario, is counted in "
                    f"{BASE_CELL_FIGURE}).")
        return says(verdict, text, self.rank_claim, VARIANTS[variant])

    def prices_out(self, ds: xr.Dataset, x) -> str:
        """Why pdFTSP with the Lemma-2 constants trails at setting ``x``: it admits fewer
        tasks than the leading baseline (said only if it trails there and admits fewer)."""
        m, adm = _mean(ds).sel({self.axis: x}), _mean(ds, "n_admitted").sel({self.axis: x})
        lead = _leader(m)
        ours, theirs = float(adm.sel(algorithm=LEMMA2)), float(adm.sel(algorithm=lead))
        if float(m.sel(algorithm=LEMMA2)) >= float(m.sel(algorithm=lead)) or ours >= theirs:
            return ""
        tasks = float(ds["n_tasks"].sel({self.axis: x}).mean())
        return (f"{_cap(self.where([x]))} it admits {ours:.0f} (the geometric mean over "
                f"seeds) of {tasks:.0f} "
                f"tasks, {lead} {theirs:.0f}: its prices climb far faster than Lemma 2 needs, so "
                "it turns tasks away while nodes are still partly free (the day chapter "
                "measures this mechanism).")

    def oracle(self, ds: xr.Dataset, x) -> str:
        """At setting ``x``: Titan beside Titan with the welfare objective (each slot's MILP
        solved the same way), and where pdFTSP stands against it ("" if the sweep did not
        run it)."""
        m = _mean(ds).sel({self.axis: x})
        if ORACLE not in [str(a) for a in m["algorithm"].values]:
            return ""
        titan, oracle = _val(m, TITAN), _val(m, ORACLE)
        adm = _mean(ds, "n_admitted").sel({self.axis: x})
        text = (f"{_cap(self.where([x]))} Titan with the paper's progress objective (no "
                f"bids) reaches a welfare of {_num(titan)}, admitting {_val(adm, TITAN):.0f} "
                f"tasks; with the welfare objective, which sees every bid, each slot's MILP "
                f"solved the same way, it reaches {_num(oracle)} with "
                f"{_val(adm, ORACLE):.0f} ("
                + quote(f"Titan's welfare objective against its own {self.where([x])}, %",
                        gain(oracle, titan), _pct) + ").")
        beats = [v for v in (LEMMA2, CALIBRATED) if _val(m, v) > oracle]
        if beats:
            who = _who(beats)
            text += f" {who[:1].upper() if who.startswith('both') else who[:1]}{who[1:]} " \
                    f"{'is' if len(beats) == 1 else 'are'} above even Titan with the welfare " \
                    "objective, so that run is no bound."
        else:
            text += (" Neither pdFTSP setting reaches Titan with the welfare objective ("
                     + ", ".join(f"{VARIANTS[v]} "
                                 + quote(f"{v} against Titan with the welfare objective "
                                         f"{self.where([x])}, %", gain(_val(m, v), oracle),
                                         _pct)
                                 for v in (LEMMA2, CALIBRATED)) + ").")
        return text

    def margins(self, ds: xr.Dataset) -> pd.DataFrame:
        """pdFTSP's per-seed margin over the best baseline of its standing at every setting
        of the axis (the base scenario's cell included), as an interval over seeds with the
        baseline that leads on average: the Lemma-2 constants over the paper's baselines as
        the paper ran them (the claims' test), and over every untuned baseline, lorasched's
        cost-plus rule included; the calibrated constants over every baseline tuned alike
        (the claims' test, :data:`~.common.RIVALS`)."""
        flat = by_method(ds)
        m = over_seeds(flat)
        labels = [str(a) for a in flat["algorithm"].values]
        untuned = (*BASELINES, *([COST_PLUS] if COST_PLUS in labels else []))
        standings = {
            "Lemma 2 over the paper's baselines": (LEMMA2, RIVALS[LEMMA2]),
            "Lemma 2 over every untuned baseline": (LEMMA2, untuned),
            "calibrated over every baseline tuned alike": (CALIBRATED, RIVALS[CALIBRATED])}
        rows = []
        for x in flat[self.axis].values:
            row = {self.axis: str(x)}
            for label, (variant, among) in standings.items():
                at = flat.sel({self.axis: x})
                est = estimate_of(seed_margin(at, variant, among))
                row[label] = (f"{ours_pct(est)}; the best: "
                              f"{_leader(m.sel({self.axis: x}), among)}")
            rows.append(row)
        return pd.DataFrame(rows).set_index(self.axis)

    def gain_claim(self, x) -> str:
        """The claims table's name of the paper's gains at setting ``x`` ("K=5")."""
        return f"{self.axis}={x}"

    def magnitudes(self, ds: xr.Dataset, x) -> str:
        """The paper's gains at setting ``x`` (:attr:`paper_gains`) against ours with the
        Lemma-2 constants, each said from its claims row's test (the paired per-seed gain,
        judged by the verdict rule) in a sentence marked with that verdict."""
        flat = by_method(ds).sel({self.axis: x})
        said = []
        for b, p in self.paper_gains.items():
            est = estimate_of(seed_gain(flat, LEMMA2, b))
            verdict = judge(est, p)
            ours = quote(f"{LEMMA2} against {b} {self.where([x])}, %", est.mean, _pct)
            text = {
                REPRODUCED: f"over {b} it gains {ours} against the paper's {pct(p)}, inside "
                            "the band, as the paper reports",
                CONSISTENT: f"over {b} its gain, {ours}, is consistent with the paper's "
                            f"{pct(p)} but not yet decided: its interval is wider than the "
                            "band",
                MAGNITUDE_OFF: f"over {b} it gains {ours}: the magnitude differs from the "
                               f"paper's {pct(p)}",
                CONTRADICTED: f"over {b}, unlike the paper's {pct(p)}, it gains {ours}",
                INCONCLUSIVE: f"over {b} the seeds cannot tell the sign of its gain ({ours} "
                              f"on average; the paper: {pct(p)})"}[verdict]
            said.append(says(verdict, text, f"{self.gain_claim(x)}: pdFTSP over {b}",
                             VARIANTS[LEMMA2]))
        if not said:
            return ""
        return (f"Against the paper's gains {self.where([x])}, with the Lemma-2 constants "
                "pdFTSP: " + "; ".join(said) + ".")


def join_parts(main: xr.Dataset, parts: dict) -> xr.Dataset:
    """A figure's sweep ``main`` with its parts (:attr:`SweepFigure._PARTS`) joined along
    ``algorithm``: Titan with the welfare objective (``"oracle"``), the baselines tuned
    alike (``"tuned"``, each renamed ``<algorithm>_tuned``); NaN where a part did not run,
    the main sweep's order of settings kept."""
    out = [main]
    for name, part in parts.items():
        if name == "tuned":
            part = part.assign_coords(algorithm=np.array(
                [f"{a}_tuned" for a in part["algorithm"].values]))
        # the parts ignore pdFTSP's constants: the same run in every row, as in a sweep
        part = part.expand_dims(constants=main["constants"].values)
        out.append(part.transpose(*main.dims))
    joined = xr.concat(out, dim="algorithm", join="outer", combine_attrs="override")
    # the figure's order of settings (an outer join sorts them)
    return joined.reindex({d: main[d].values for d in main.dims if d != "algorithm"})
