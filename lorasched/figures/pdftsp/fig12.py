"""Fig. 12: competitiveness (LP bound and exact OPT)."""

from __future__ import annotations

import numpy as np

from ...experiments import Sweep
from ...pdftsp.workload import LOADS
from ..base import check_size, paragraphs
from .common import (
    _SCALE,
    _WITH,
    CALIBRATED,
    LEMMA2,
    VARIANTS,
    SweepFigure,
    _and,
    _cap,
    _declaration,
    _loads,
    _trend,
    by_method,
)

#: branch-and-bound nodes of the exact OPT's search on the tiny instances (issue 24): the
#: search stopped by a count, so the bound is the same on every machine. Before, a 120 s
#: wall-clock limit stopped it (993 CPU-s for the 9 instances on 2 cores, and
#: machine-dependent); at 200 nodes they take 173 CPU-s and their bounds are 0.1-3 % looser
#: (measured at issue 24; no verdict of the figure changed).
OPT_MAX_NODES = 200


class Fig12(SweepFigure):
    """Competitiveness: ``"lp"``, the LP bound on a quarter of the data centre (the LP
    bound of a K = 100 day takes ~6 min), and ``"opt"``, the exact OPT on tiny instances."""

    key, number, title, axis = "fig12", "Fig. 12", "Competitiveness", "load"
    paper_bound = 3.0  # "empirical competitive ratios of no more than 3"

    def axes(self, size):
        return {"load": _loads(size)}  # replaced per part in declaration()

    def declaration(self, size, seeds, part="lp"):
        decl = super().declaration(size, seeds)
        constants = decl["axes"]["constants"]  # the two pdFTSP settings
        if part == "lp":
            decl["base"].update(nodes=round(25 * _SCALE[size]) if size == "full" else 5)
            decl["axes"] = {"load": _loads(size, 0.25 if size == "full" else 1.0 / 2),
                            "constants": constants}
            decl.update(bound="lp", bound_options={"max_iterations": 200,
                                                   "time_limit": 1800.0})
        else:
            decl["name"] = f"fig12_opt_{size}"
            decl["base"].update(nodes=4 if size == "full" else 3,
                                slots=24 if size == "full" else 12)
            decl["axes"] = {"load": {name: {"load": LOADS[name] / (25 if size == "full"
                                                                   else 40)}
                                     for name in LOADS},
                            "constants": constants}
            # a count, not seconds (issue 24): the same bound on every machine; the hour is a
            # safety net that no instance reaches (the largest takes ~30 s on 2 cores)
            decl.update(bound="opt", bound_options={"mip_max_nodes": OPT_MAX_NODES,
                                                    "time_limit": 3600.0})
        return decl

    def sweeps(self, size="small", seeds=None):
        check_size(size)
        return {part: Sweep.from_dict(self.declaration(size, seeds, part))
                for part in ("lp", "opt")}

    def describe(self, data: dict) -> str:
        return "\n\n".join(super(Fig12, self).describe(data[p]) for p in ("lp", "opt"))

    def claim_rows(self, data: dict):
        rows = []
        for kind, d in data.items():
            cr = by_method(d, "competitive_ratio")
            for variant in (LEMMA2, CALIBRATED):
                worst = float(cr.sel(algorithm=variant).max())
                what = "LP bound / ALG" if kind == "lp" else "OPT / ALG"
                exact = kind == "opt" and bool(np.all(d["bound_converged"].values == 1))
                bound = self.paper_bound
                rows.append({"claim": f"competitive ratio ≤ {bound:g}, {what}",
                             "variant": VARIANTS[variant], "paper": f"≤ {bound:g}",
                             "ours": f"max {worst:.2f}",
                             "verdict": "agrees" if worst <= bound else
                             "disagrees" if exact else "not shown"})
        return rows

    def findings(self, data: dict):
        bound = self.paper_bound
        where = {}
        for part, d in data.items():
            base = _declaration(d).get("base", {})
            where[part] = ("on the tiny instances" if part == "opt" else
                           f"at {base['nodes']} nodes" if "nodes" in base else
                           "on the larger instances")
        cr = {part: by_method(d, "competitive_ratio") for part, d in data.items()}
        parts = [p for p in ("opt", "lp") if p in data]
        text = []
        for variant in (CALIBRATED, LEMMA2):
            worst = {p: float(cr[p].sel(algorithm=variant).max()) for p in parts}
            maxima = _and(f"{worst[p]:.2f} {where[p]}" for p in parts)
            mean = {p: cr[p].sel(algorithm=variant).mean("seed") for p in parts}
            if all(w <= bound for w in worst.values()):
                t = (f"{_WITH[variant]} pdFTSP's ratio stays within the paper's {bound:g} in "
                     f"every instance (at most {maxima})")
            else:
                trends = {p: _trend(mean[p].values, "rises", "falls", "does not change "
                                    "steadily") for p in parts}
                same = len(set(trends.values())) == 1
                t = (f"{_WITH[variant]} pdFTSP's mean ratio "
                     + (f"{trends[parts[0]]} with the load" if same else _and(
                         f"{trends[p]} with the load {where[p]}" for p in parts))
                     + f"; its worst instance reaches {maxima}")
            closest = []
            for p in parts:
                m = cr[p].mean("seed")
                n = sum(float(m.sel(load=x, algorithm=variant)) <= float(m.sel(load=x).min())
                        for x in m["load"].values)
                if n == m.sizes["load"]:
                    closest.append(f"{where[p]} at every load")
            if closest:
                t += f"; it is the closest of all algorithms to the optimum {_and(closest)}"
            text.append(t + ".")
        above = [p for p in parts
                 if float(cr[p].sel(algorithm=[LEMMA2, CALIBRATED]).max()) > bound]
        notes = []
        for p in above:
            d = data[p]
            proven = d["bound_converged"].isel(constants=0)
            if p == "opt" and bool(np.all(d["bound_converged"].values == 1)):
                notes.append(f"{_cap(where[p])} the optimum is proven in every instance, so a "
                             f"ratio above {bound:g} there contradicts the paper.")
            elif p == "opt":
                options = _declaration(d).get("bound_options", {})
                nodes, limit = options.get("mip_max_nodes"), options.get("time_limit")
                within = (f" within {nodes:,} branch-and-bound nodes" if nodes else
                          f" within {limit:g} s" if limit else "")
                notes.append(
                    f"{_cap(where[p])} the MILP proved optimality in {int(proven.sum())} of "
                    f"{proven.size} instances" + within
                    + f"; elsewhere the ratio divides its dual bound, not a proven optimum, "
                    f"so a value above {bound:g} does not by itself contradict the paper and "
                    "the verdict says \"not shown\".")
            else:
                notes.append(
                    f"{_cap(where[p])} the ratio divides the column-generation LP bound, which "
                    f"is at least OPT (it converged in {int(proven.sum())} of {proven.size} "
                    f"instances), not a proven optimum, so a value above {bound:g} does not by "
                    "itself contradict the paper and the verdict says \"not shown\".")
        return paragraphs(" ".join(text), " ".join(notes))
