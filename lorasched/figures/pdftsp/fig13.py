"""Fig. 13: running time per task, Titan solved as the paper solved it on the two problems
where the figures run it (Fig. 4's K = 50 and Fig. 8's high load at K = 100), paired by
seed; Fig. 4's runs give the budget-limited Titan's time over K."""

from __future__ import annotations

import json

import numpy as np
import xarray as xr

from ...model.errors import InputError
from ...pdftsp.baselines import titan_per_slot as _titan
from ...pdftsp.workload import LOADS
from ..base import Prose, paragraphs
from ..numbers import interval, num, quote
from ..prose import says
from ..verdicts import (
    CONTRADICTED,
    INCONCLUSIVE,
    RATIO,
    REPRODUCED,
    inconclusive_why,
    judge,
    judge_all,
    t975,
)
from .common import (
    CALIBRATED,
    LEMMA2,
    TITAN,
    TITAN_MILP,
    TITAN_MILP_OPTIONS,
    _and,
    _load_name,
    _mean,
    by_method,
    estimate_of,
    fit_trend,
)
from .fig04 import Fig04
from .fig08 import Fig08, _load_mean
from .sweep_figure import SweepFigure
from .titan_words import _titan_limits

_PER_TASK = "decision time per task, ms (mean over seeds)"
#: the claims' names
FASTER, GROWS = ("pdFTSP decides faster per task than Titan",
                 "Titan's time per task grows with the problem")


def log_slope(da: xr.DataArray, axis: str = "nodes", x=None) -> dict:
    """The fitted trend (:func:`.common.fit_trend`) of log(time) on log(``x``, default the
    ``axis`` coordinate) over every (setting, seed) point of ``da``: ``slope`` is the
    elasticity (time grows like x^slope)."""
    return fit_trend(da, axis, x=x, transform=np.log)


class Fig13(SweepFigure):
    """pdFTSP's and Titan's decision time per task on the runs of Figs. 4 and 8 (no run of
    its own): the paper's claims judged against Titan solved to the paper's standard
    (:data:`~.common.TITAN_MILP`) on the two problems where the figures run it, the smaller
    (Fig. 4's smallest K, medium load) and the larger (Fig. 8's high load, K = 100), each
    seed's day paired across them. Each cell is one run, timed on its worker while the
    batch's other worker runs another cell."""

    key, number, title, axis = "fig13", "Fig. 13", "Running time per task", "problem"
    page = "fig13_runtime"
    every = "on both problems"

    def sweeps(self, size="small", seeds=None):
        """The sweeps of Figs. 4 and 8 whose cells it times (their own and their parts of
        Titan solved to the paper's standard), named ``fig04``, ``fig04_milp`` and so on:
        no cell of its own."""
        out = {}
        for fig in (Fig04(), Fig08()):
            for part, sweep in fig.sweeps(size, seeds).items():
                if part in (fig.key, "milp"):
                    out[fig.key if part == fig.key else f"{fig.key}_{part}"] = sweep
        return out

    def sweep(self, size="small", seeds=None):
        raise InputError("Fig. 13 times the runs of Figs. 4 and 8: see its sweeps()")

    def data(self, size: str = "small", **kwargs) -> xr.Dataset:
        """:meth:`assemble` of Fig. 4's and Fig. 8's data (run or read as theirs are)."""
        return self.assemble(Fig04().data(size, **kwargs), Fig08().data(size, **kwargs))

    @staticmethod
    def assemble(scale: xr.Dataset, load: xr.Dataset) -> xr.Dataset:
        """The two problems where :data:`~.common.TITAN_MILP` ran, along ``problem``: Fig.
        4's ``scale`` at its smallest K and Fig. 8's ``load`` at its high load, the
        algorithms both hold; ``attrs["problems"]`` gives each one's K and mean tasks per
        slot."""
        k0 = scale["nodes"].values[0]
        hi = load["load"].values[-1]
        small = scale.sel(nodes=k0, drop=True)
        large = load.sel(load=hi, drop=True)
        keep = [a for a in small["algorithm"].values if a in set(large["algorithm"].values)]
        keep = [a for a in keep if str(a) in ("pdftsp", "titan", "titan_milp")]
        k1 = int(json.loads(load.attrs["sweep"])["base"]["nodes"]) if "sweep" in load.attrs \
            else 100
        load0 = json.loads(scale.attrs["sweep"])["base"]["load"] if "sweep" in scale.attrs \
            else None
        tasks0 = (None if load0 is None
                  else float(LOADS[load0] if isinstance(load0, str) else load0))
        names = [f"K = {int(k0)}, medium load", f"K = {k1}, {_load_name(hi)} load"]
        out = xr.concat([small.sel(algorithm=keep), large.sel(algorithm=keep)],
                        dim=xr.DataArray(np.array(names), dims="problem", name="problem"),
                        join="inner", combine_attrs="override")
        out.attrs = {"problems": json.dumps(
            {names[0]: {"nodes": int(k0), "tasks_per_slot": tasks0},
             names[1]: {"nodes": k1, "tasks_per_slot": _load_mean(hi)}}),
            **({"sweep": load.attrs["sweep"]} if "sweep" in load.attrs else {})}
        return out

    def _ratios(self, ds):
        """Per seed: Titan's time per task over pdFTSP's (Lemma 2) on each problem, and
        Titan's time per task on the larger problem over the smaller."""
        flat = by_method(ds, "decision_time_mean")
        titan = flat.sel(algorithm=TITAN_MILP, drop=True)
        speedup = titan / flat.sel(algorithm=LEMMA2, drop=True)
        p0, p1 = ds["problem"].values
        growth = titan.sel(problem=p1, drop=True) / titan.sel(problem=p0, drop=True)
        return speedup, growth

    def claim_rows(self, ds):
        speedup, growth = self._ratios(ds)
        xs = list(speedup["problem"].values)
        ests = {x: estimate_of(speedup.sel(problem=x), RATIO) for x in xs}
        verdicts = {x: judge(e, None, threshold=1.0, side=1) for x, e in ests.items()}
        verdict = judge_all(verdicts.values())
        slowest = min((x for x in xs if verdicts[x] == verdict), key=lambda x: ests[x].mean)
        times = lambda v: num(v) + "×"  # noqa: E731
        faster = {"claim": FASTER, "paper": "faster",
                  "ours": f"{TITAN_MILP}'s time over pdFTSP's (Lemma 2) at {slowest}: "
                          f"{interval(ests[slowest], times)}",
                  "verdict": verdict, "estimate": ests[slowest], "fmt": times}
        g = estimate_of(growth, RATIO)
        grows = {"claim": GROWS, "paper": "grows",
                 "ours": f"{TITAN_MILP}'s time per task at {xs[1]} over {xs[0]}, per seed: "
                         f"{interval(g, times)}",
                 "verdict": judge(g, None, threshold=1.0, side=1), "estimate": g,
                 "fmt": times}
        if faster["verdict"] != REPRODUCED:
            per = speedup.sel(problem=slowest).values
            per = per[np.isfinite(per)]
            faster["why"] = (inconclusive_why(ests[slowest], 1.0) + f" At {slowest} the "
                             "seeds' runs give " + _and(f"{num(v)}×" for v in per)
                             + (": every seed has pdFTSP faster, but" if (per > 1).all() else ";")
                             + f" {len(per)} seeds widen Student's t interval to "
                             f"{num(t975(len(per) - 1))} standard errors on each side.")
        if grows["verdict"] != REPRODUCED:
            ms = by_method(ds, "decision_time_mean").sel(algorithm=TITAN_MILP).mean("seed")
            tasks = [v["tasks_per_slot"] for v in json.loads(ds.attrs["problems"]).values()]
            per = growth.values[np.isfinite(growth.values)]
            grows["why"] = ((inconclusive_why(g, 1.0) + " "
                             if grows["verdict"] == INCONCLUSIVE else "")
                            + f"{TITAN_MILP} takes {num(1e3 * float(ms.values[0]))} ms per "
                            f"task at {xs[0]} and {num(1e3 * float(ms.values[1]))} ms at "
                            f"{xs[1]} (per seed: " + _and(f"{num(v)}×" for v in per) + ")"
                            + (f"; a slot brings {num(tasks[0])} and {num(tasks[1])} tasks "
                               "on average" if all(t is not None for t in tasks) else "")
                            + ".")
        return [faster, grows]

    def setting_text(self, ds) -> Prose:
        """Both Titans' per-slot solves in these runs, in words."""
        return paragraphs(
            f"{TITAN_MILP}, the claims' Titan, solves each slot's MILP (mixed-integer linear "
            "programme) in compact form to a certified gap, as stated below; "
            f"{TITAN}, drawn over K, stops at a count: " + _titan_limits(ds) + ".")

    def describe(self, ds: xr.Dataset) -> str:
        """The two problems and the seeds behind them."""
        ran = by_method(ds, "decision_time_mean").sel(algorithm=TITAN_MILP).notnull()
        seeds = [int(s) for s, ok in zip(ds["seed"].values, ran.all("problem").values,
                                         strict=True) if ok]
        return (f"{self.title}: the runs of Fig. 4 at {ds['problem'].values[0]} and of Fig. 8 "
                f"at {ds['problem'].values[1]}, where {TITAN_MILP} runs, on seeds "
                f"{_and(seeds)} (pdFTSP on every seed of those figures; a claim pairs the "
                f"seeds {TITAN_MILP} ran). " + self._milp_where_text())

    @staticmethod
    def _milp_where_text() -> str:
        nodes = TITAN_MILP_OPTIONS.get("mip_max_nodes", _titan.MILP_MAX_NODES)
        return (f"{TITAN_MILP}: each slot's MILP solved to a certified "
                f"{num(100 * _titan.MILP_REL_GAP)} % gap within {num(nodes)} branch-and-bound "
                "nodes.")

    def findings(self, ds, scale: xr.Dataset | None = None):
        """The page's prose from the two problems ``ds`` (:meth:`assemble`) and, if given,
        Fig. 4's runs over K, ``scale`` (the budget-limited Titan only)."""
        ms = _mean(ds, "decision_time_mean") * 1e3
        xs = list(ms["problem"].values)
        pd_ms = ms.sel(algorithm=[LEMMA2, CALIBRATED])
        milp = ms.sel(algorithm=TITAN_MILP).values
        rows = {r["claim"]: r for r in self.claim_rows(ds)}
        text = (f"pdFTSP decides a task in {quote(f'pdFTSP, shortest {_PER_TASK}', pd_ms.min())}"
                f" to {quote(f'pdFTSP, longest {_PER_TASK}', pd_ms.max())} ms (a "
                "numba-compiled dynamic programme over the task's window). "
                f"{TITAN_MILP} needs "
                + " and ".join(quote(f"{TITAN_MILP} at {x}, {_PER_TASK}", v) + f" ms at {x}"
                               for x, v in zip(xs, milp, strict=True))
                + ", its slot's MILP spread over the slot's tasks (means over seeds, one run "
                "each).")
        row = rows[GROWS]
        text += " " + says(row["verdict"], (
            f"Per seed, its time per task on the larger problem over the smaller is "
            f"{row['ours'].split(': ', 1)[1]}" + {
                REPRODUCED: ": it grows with the problem, as the paper reports.",
                CONTRADICTED: ": unlike the paper, it shrinks as the problem grows.",
                INCONCLUSIVE: "; the interval holds one: the seeds cannot tell whether it "
                              "grows."}[row["verdict"]]), GROWS)
        ratio = milp / ms.sel(algorithm=LEMMA2).values
        agree = [r for r in rows.values() if r["verdict"] == REPRODUCED]
        faster = f"{TITAN_MILP}'s decision time per task over pdFTSP's (Lemma 2) on one problem"
        text += (f" With the Lemma-2 constants pdFTSP decides "
                 f"{quote(f'{faster}, smallest', ratio.min())} to "
                 f"{quote(f'{faster}, largest', ratio.max())} times faster than {TITAN_MILP}. "
                 + ("Both findings of the paper are reproduced" if len(agree) == len(rows)
                    else f"{len(agree)} of the paper's {len(rows)} findings "
                    + ("is" if len(agree) == 1 else "are") + " reproduced")
                 + f" against {TITAN_MILP}.")
        if scale is not None:
            km = (_mean(scale, "decision_time_mean") * 1e3).sel(algorithm=TITAN)
            ks = list(km["nodes"].values)
            text += (f" Over K at the medium load (Fig. 4's runs, {TITAN} only, beyond the "
                     f"paper) {TITAN} needs "
                     + " → ".join(quote(f"{TITAN} at K = {k}, {_PER_TASK}", v)
                                  for k, v in zip(ks, km.values, strict=True))
                     + f" ms per task for K = {_and(ks)}.")
        return paragraphs(text)
