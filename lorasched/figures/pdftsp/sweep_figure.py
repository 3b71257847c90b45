"""The figures of section 5 drawn from one sweep over an axis (:class:`SweepFigure`): their
declaration, the setting they state, the standing of each method, and the paper's
magnitudes beside ours."""

from __future__ import annotations

import json

import xarray as xr

from ...experiments import Sweep
from ..base import Figure, check_size, gain
from ..numbers import num, pct, quote
from ..verdicts import BAND, BEYOND
from . import common
from .common import (
    _SEEDS,
    _WITH,
    ALGORITHMS,
    BASELINES,
    CALIBRATED,
    COSTLY,
    LEMMA2,
    ORACLE,
    ORACLE_FIGURES,
    VARIANTS,
    _and,
    _best_at,
    _cap,
    _leader,
    _mean,
    _num,
    _pct,
    _val,
    _who,
    base,
    costly_seeds,
    pdftsp_constants,
    titan_options_text,
)


class SweepFigure(Figure):
    """A figure of section 5 drawn from one sweep over ``axis`` (plus Fig. 12's two)."""

    system = "pdftsp"
    variant_column = "pdFTSP"
    axis = ""
    quotes = True

    def axes(self, size: str) -> dict:
        raise NotImplementedError

    def scope(self, row: dict) -> str:
        """The calibrated constants' rows are beyond the paper (its constants are
        lorasched's, tuned on a held-out day); the Lemma-2 rows are the paper's."""
        if row.get("variant") == VARIANTS[CALIBRATED]:
            return BEYOND
        return super().scope(row)

    def algorithms(self) -> list[str]:
        """The policies of the figure's sweep: the paper's four (Titan's welfare oracle, in
        :data:`ORACLE_FIGURES`, has a sweep of its own: :meth:`oracle_at`)."""
        return list(ALGORITHMS)

    def oracle_at(self, size: str) -> dict | None:
        """Where Titan's welfare oracle runs, ``{axis: [settings]}`` (None: not in this
        figure): only at the settings whose claims and prose use it, as it costs as much
        as Titan itself; elsewhere the figure's data hold NaN for it ("not run")."""
        return None

    def declaration(self, size: str, seeds: int | None) -> dict:
        b = base(size)
        axes = self.axes(size)
        axes["constants"] = pdftsp_constants(size)
        algorithms = self.algorithms()
        n, k = _SEEDS[size] if seeds is None else int(seeds), costly_seeds(size, seeds)
        return {"name": f"{self.key}_{size}", "system": self.system,
                "description": self.title, "base": b, "axes": axes,
                "algorithms": algorithms, "seeds": n,
                "seed_limit": {a: k for a in algorithms if a in COSTLY and k < n},
                "options": {a: dict(common.TITAN_OPTIONS) for a in algorithms
                            if a.startswith("titan")}}

    def sweeps(self, size: str = "small", seeds: int | None = None) -> dict[str, Sweep]:
        """The figure's sweep, and (part ``"oracle"``) Titan's welfare oracle at
        :meth:`oracle_at`'s settings."""
        check_size(size)
        out = {self.key: Sweep.from_dict(self.declaration(size, seeds))}
        at = self.oracle_at(size) if self.key in ORACLE_FIGURES else None
        if at:
            decl = self.declaration(size, seeds)
            k = costly_seeds(size, seeds)
            decl.update(name=f"{self.key}_oracle_{size}", algorithms=["titan_oracle"],
                        options={"titan_oracle": dict(common.TITAN_OPTIONS)},
                        seed_limit={"titan_oracle": k} if k < decl["seeds"] else {},
                        axes={**{a: v for a, v in decl["axes"].items() if a != "constants"},
                              **at})
            out["oracle"] = Sweep.from_dict(decl)
        return out

    def sweep(self, size: str = "small", seeds: int | None = None) -> Sweep:
        """The figure's own sweep (without the oracle's part)."""
        parts = self.sweeps(size, seeds)
        if set(parts) <= {self.key, "oracle"}:
            return parts[self.key]
        return super().sweep(size, seeds)

    def data(self, size: str = "small", **kwargs):
        """As :meth:`Figure.data`, the oracle's part joined to the figure's sweep along
        ``algorithm`` (NaN where it did not run)."""
        out = super().data(size, **kwargs)
        if isinstance(out, dict) and set(out) == {self.key, "oracle"}:
            main, oracle = out[self.key], out["oracle"]
            # the oracle ignores pdFTSP's constants: the same run in both rows, as in a sweep
            oracle = oracle.expand_dims(constants=main["constants"].values)
            out = xr.concat([main, oracle.transpose(*main.dims)], dim="algorithm",
                            join="outer", combine_attrs="override")
            # the figure's order of settings (an outer join sorts them)
            out = out.reindex({d: main[d].values for d in main.dims if d != "algorithm"})
        return out

    def describe(self, ds: xr.Dataset) -> str:
        """One paragraph stating the setting: what is fixed, what varies, how many seeds,
        and the mean tasks per day and load factor."""
        decl = json.loads(ds.attrs["sweep"])
        fixed = ", ".join(f"{k} = {v}" for k, v in decl["base"].items()
                          if k not in decl["axes"])
        axes = "; ".join(f"{d}: {', '.join(map(str, ds[d].values))}" for d in ds.dims
                         if d not in ("constants", "algorithm", "seed"))
        lf = ds["load_factor"].mean("seed")
        titan = titan_options_text(decl.get("options", {}).get("titan", {}))
        return (f"{decl['description']}. Fixed: {fixed}. Varied: {axes}. Seeds "
                f"{', '.join(map(str, ds['seed'].values))} (error bars: one standard "
                f"deviation). On average {num(float(ds['n_tasks'].mean()))} tasks arrive per "
                f"run; the offered work is {num(float(lf.min()))}x to {num(float(lf.max()))}x "
                f"what the cluster can process in the horizon. Titan: {titan}."
                + self._oracle_where(ds))

    def _oracle_where(self, ds: xr.Dataset) -> str:
        """The sentence saying where Titan's welfare oracle ran, if not everywhere ("")."""
        if "titan_oracle" not in [str(a) for a in ds["algorithm"].values]:
            return ""
        ran = ds["welfare"].sel(algorithm="titan_oracle").notnull()
        ran = ran.any([d for d in ran.dims if d != self.axis])
        if bool(ran.all()):
            return ""
        xs = [x for x, ok in zip(ds[self.axis].values, ran.values, strict=True) if ok]
        return (f" Titan's welfare oracle runs only {self.where(xs)}, where the claims and "
                "prose use it (each of its days costs as much as Titan's).")

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
                    quote(f"{variant} against {b} {self.where([detail_at])}, %",
                          gain(value(variant, detail_at), value(b, detail_at)), _pct)
                    + f" against {b}" for b in above) + ")"
            return text + (f" and above {_and(below)}." if below else ".")
        wins = [x for x, ok in zip(xs, best, strict=True) if ok]
        where = self.where(wins)
        if len(wins) > 1 and wins == xs[len(xs) - len(wins):] and self.from_on(wins[0]):
            where = self.from_on(wins[0])
        behind = []
        for x in (x for x, ok in zip(xs, best, strict=True) if not ok):
            lead = _leader(m.sel({axis: x}))
            g = gain(value(variant, x), value(lead, x))
            behind.append(f"{self.where([x])} it is "
                          + quote(f"{variant} below {lead} {self.where([x])}, %",
                                  abs(g), lambda v: pct(v, sign=False))
                          + f" below {lead}")
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
                + quote(f"the welfare oracle against Titan {self.where([x])}, %",
                        gain(oracle, titan), _pct) + ").")
        beats = [v for v in (LEMMA2, CALIBRATED) if _val(m, v) > oracle]
        if beats:
            who = _who(beats)
            text += f" {who[:1].upper() if who.startswith('both') else who[:1]}{who[1:]} " \
                    f"{'is' if len(beats) == 1 else 'are'} above even the oracle."
        else:
            text += (" Neither pdFTSP setting reaches the oracle ("
                     + ", ".join(f"{VARIANTS[v]} "
                                 + quote(f"{v} against the welfare oracle "
                                         f"{self.where([x])}, %", gain(_val(m, v), oracle),
                                         _pct)
                                 for v in (LEMMA2, CALIBRATED)) + ").")
        return text

    def magnitudes(self, ds: xr.Dataset, x) -> str:
        """The paper's gains at setting ``x`` (:attr:`paper_gains`) against ours: those that
        either pdFTSP setting comes within the verdict rule's band of (:data:`BAND`,
        relative, on the means), and those that neither does."""
        col = _mean(ds).sel({self.axis: x})
        where = self.where([x])
        close, far = [], []
        for b, p in self.paper_gains.items():
            ours = {v: gain(_val(col, v), _val(col, b)) for v in (LEMMA2, CALIBRATED)}
            near = [v for v, g in ours.items() if abs(g - p) <= BAND * abs(p)]
            if near:
                close.append(f"{pct(p)} over {b} ({_WITH[near[0]].lower()}: "
                             + quote(f"{near[0]} against {b} {where}, %",
                                     ours[near[0]], _pct) + ")")
            else:
                far.append(f"{pct(p)} over {b}")
        if not close:
            return (f"The paper's gains {where} ({_and(far)}) are not reproduced in magnitude "
                    "by either pdFTSP setting.")
        return (f"Of the paper's gains {where}, lorasched comes within "
                f"{num(BAND * 100)} % of "
                f"{_and(close)}" + (f"; the others ({_and(far)}) are not reproduced in "
                                    "magnitude by either pdFTSP setting." if far else "."))


