"""Fig. 13: running time per task, pdFTSP against Titan (each slot's MILP solved to a
stated gap) on the runs of Fig. 8, K = 100 at the three loads, the problem growing
with the tasks a slot brings; Fig. 4's runs give Titan's time over K."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import xarray as xr

from ...experiments import grid
from ...model.errors import InputError
from ..base import Prose, measured_where, paragraphs
from ..centres import over_seeds
from ..inventory import cite
from ..numbers import interval, num, quote
from ..prose import says
from ..verdicts import (
    CONTRADICTED,
    DEPENDS,
    INCONCLUSIVE,
    LINEAR,
    RATIO,
    REPRODUCED,
    either,
    estimate,
    inconclusive_why,
    judge,
    judge_all,
    t975,
)
from .common import (
    CALIBRATED,
    LEMMA2,
    TITAN,
    _and,
    _load_name,
    _mean,
    by_method,
    estimate_of,
    fit_trend,
    trend_verdict,
)
from .fig04 import Fig04
from .fig08 import Fig08, _load_mean
from .strict import gaps_text
from .sweep_figure import SweepFigure
from .titan_words import titan_solve_text

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
    """pdFTSP's and Titan's decision time per task on the runs of Fig. 8 (no run of its
    own): at K = 100, the paper's scenario, the problem grows with the tasks a slot brings
    (the three loads); each seed's days are paired across the loads. Each cell is one run,
    timed on its worker while the batch's other worker runs another cell; Fig. 4's runs
    give Titan's time over K (beyond the paper)."""

    key, number, title, axis = "fig13", "Fig. 13", "Running time per task", "problem"
    page = "fig13_runtime"
    every = "at every load"
    costly_full = 10  # Figs. 4 and 8's
    tuned = False  # times pdFTSP and Titan only
    #: the policies whose times the page compares: shipped with Titan's cells, so that both
    #: are timed on one machine (:func:`~.common.ships`)
    timed = ("pdftsp", "titan")

    def sweeps(self, size="small", seeds=None):
        """The sweeps of Figs. 4 and 8 whose cells it times, named ``fig04`` and ``fig08``:
        no cell of its own."""
        return {fig.key: fig.sweeps(size, seeds)[fig.key] for fig in (Fig04(), Fig08())}

    def sweep(self, size="small", seeds=None):
        raise InputError("Fig. 13 times the runs of Figs. 4 and 8: see its sweeps()")

    def data(self, size: str = "small", **kwargs) -> xr.Dataset:
        """:meth:`assemble` of Fig. 4's and Fig. 8's data (run or read as theirs are)."""
        return self.assemble(Fig04().data(size, **kwargs), Fig08().data(size, **kwargs))

    @staticmethod
    def assemble(scale: xr.Dataset, load: xr.Dataset) -> xr.Dataset:
        """Fig. 8's runs (``load``) along ``problem``, one per load, pdFTSP and Titan only;
        ``attrs["problems"]`` gives each one's K and mean tasks per slot. ``scale`` (Fig.
        4's runs) is not used here: :meth:`findings` reads it for Titan's time over K."""
        keep = [a for a in load["algorithm"].values if str(a) in ("pdftsp", "titan")]
        k1 = int(json.loads(load.attrs["sweep"])["base"]["nodes"]) if "sweep" in load.attrs \
            else 100
        xs = list(load["load"].values)
        names = [f"K = {k1}, {_load_name(x)} load" for x in xs]
        out = (load.sel(algorithm=keep).rename(load="problem")
               .assign_coords(problem=np.array(names)))
        out.attrs = {"problems": json.dumps(
            {n: {"nodes": k1, "tasks_per_slot": _load_mean(x)}
             for n, x in zip(names, xs, strict=True)}),
            **({"sweep": load.attrs["sweep"]} if "sweep" in load.attrs else {})}
        return out

    @staticmethod
    def _tasks(ds) -> list[float]:
        """Each problem's mean tasks per slot."""
        return [v["tasks_per_slot"] for v in json.loads(ds.attrs["problems"]).values()]

    def _ratios(self, ds):
        """Per seed: Titan's time per task over pdFTSP's (Lemma 2) on each problem."""
        flat = by_method(ds, "decision_time_mean")
        return flat.sel(algorithm=TITAN, drop=True) / flat.sel(algorithm=LEMMA2, drop=True)

    def _growth(self, ds):
        """How Titan's time per task grows with the tasks a slot brings: per seed, the mean
        over the problems of each day's slot-by-slot elasticity (``slot_elasticity``, log
        of solve seconds per task on log of the slot's tasks), as an estimate over seeds;
        and, the other reading, the fitted elasticity of the days' mean time per task in
        the mean tasks per slot across the problems (log on log, every problem and seed a
        run), where the cluster's state changes with the load too."""
        slots = by_method(ds, "slot_elasticity").sel(algorithm=TITAN, drop=True)
        within = estimate(slots.mean("problem", skipna=True).values, LINEAR)
        days = log_slope(by_method(ds, "decision_time_mean").sel(algorithm=TITAN, drop=True),
                         "problem", x=self._tasks(ds))
        return within, days

    def slot_table(self, ds) -> pd.DataFrame:
        """Titan's slot elasticity (``slot_elasticity``) of each day: a row per problem, a
        column per seed, and the row the claim's estimate averages over seeds (each seed's
        mean over the problems)."""
        da = by_method(ds, "slot_elasticity").sel(algorithm=TITAN, drop=True)
        da = da.transpose("problem", "seed")
        rows = [*(str(x) for x in da["problem"].values), "a seed's mean over its days"]
        values = np.vstack([da.values, da.mean("problem", skipna=True).values[None, :]])
        return pd.DataFrame(np.round(values, 3), index=pd.Index(rows, name="problem"),
                            columns=pd.Index([f"seed {int(s)}" for s in da["seed"].values],
                                             name="seed"))

    def claim_rows(self, ds):
        speedup = self._ratios(ds)
        fit, days = self._growth(ds)
        xs = list(speedup["problem"].values)
        ests = {x: estimate_of(speedup.sel(problem=x), RATIO) for x in xs}
        verdicts = {x: judge(e, None, threshold=1.0, side=1) for x, e in ests.items()}
        verdict = judge_all(verdicts.values())
        slowest = min((x for x in xs if verdicts[x] == verdict), key=lambda x: ests[x].mean)
        times = lambda v: num(v) + "×"  # noqa: E731
        faster = {"claim": FASTER, "paper": "faster",
                  "ours": f"{TITAN}'s time over pdFTSP's (Lemma 2) at {slowest}: "
                          f"{interval(ests[slowest], times)}",
                  "verdict": verdict, "estimate": ests[slowest], "fmt": times,
                  "sentence": cite("5.2m", "faster")}
        slope = lambda v: num(v, sign=True)  # noqa: E731
        # the two readings the paper's "Titan's runtime becomes worse as the problem size
        # grows" admits, both judged and both shown: within a day (each slot a problem of
        # its own size on one cluster) and across the loads (each day's mean)
        readings = {"within a day": trend_verdict(fit), "across the loads": trend_verdict(days)}
        grows = {"claim": GROWS, "paper": "grows",
                 "ours": f"{TITAN}'s solve time per task against the tasks a slot brings, "
                         "log on log over each day's slots, averaged over a seed's "
                         f"{len(xs)} days: elasticity {interval(fit, slope)} "
                         f"({readings['within a day']}); across the days' means instead: "
                         f"{interval(days, slope, 'runs')} ({readings['across the loads']})",
                 "verdict": either(readings.values()), "estimate": fit, "fmt": slope,
                 "sentence": cite("5.2m", "Titan grows")}
        if faster["verdict"] != REPRODUCED:
            per = speedup.sel(problem=slowest).values
            per = per[np.isfinite(per)]
            faster["why"] = (inconclusive_why(ests[slowest], 1.0) + f" At {slowest} the "
                             "seeds' runs give " + _and(f"{num(v)}×" for v in per)
                             + (": every seed has pdFTSP faster, but" if (per > 1).all() else ";")
                             + f" {len(per)} seeds widen Student's t interval to "
                             f"{num(t975(len(per) - 1))} standard errors on each side.")
        if grows["verdict"] != REPRODUCED:
            ms = over_seeds(by_method(ds, "decision_time_mean").sel(algorithm=TITAN))
            grows["why"] = ((inconclusive_why(fit, 0.0, slope) + " "
                             if grows["verdict"] == INCONCLUSIVE else "")
                            + ("The paper's sentence admits two readings and they disagree: "
                               + "; ".join(f"{k}, {v}" for k, v in readings.items()) + ". "
                               if grows["verdict"] == DEPENDS else "")
                            + f"{TITAN} takes "
                            + _and(f"{num(1e3 * float(v))} ms per task at {x}"
                                   for x, v in zip(xs, ms.values, strict=True))
                            + " (means over seeds); a slot brings "
                            + _and(num(t) for t in self._tasks(ds)) + " tasks on average.")
        return [faster, grows]

    def titan_standard(self, data, size: str = "small") -> Prose:
        """The line under the claims table: the gaps of Titan's slots in the runs it times
        (:func:`~.strict.gaps_text`); they are Fig. 8's, whose page gives their re-run at
        the paper's standard."""
        text = gaps_text(data)
        return Prose(text + (" These are the runs of Fig. 8, whose page says what a re-run "
                             "of the worst at the paper's standard finds." if text else ""))

    def setting_text(self, ds) -> Prose:
        """Titan's per-slot solve in these runs, in words."""
        return paragraphs(titan_solve_text(ds))

    def describe(self, ds: xr.Dataset) -> str:
        """The problems and the seeds behind them."""
        ran = by_method(ds, "decision_time_mean").sel(algorithm=TITAN).notnull()
        seeds = [int(s) for s, ok in zip(ds["seed"].values, ran.all("problem").values,
                                         strict=True) if ok]
        return (f"{self.title}: the runs of Fig. 8 at {_and(ds['problem'].values)}, Titan on "
                f"seeds {_and(seeds)} (pdFTSP on every seed of that figure; a claim pairs the "
                f"seeds Titan ran). " + titan_solve_text(ds))

    def where_timed(self, size: str = "small", store=None) -> Prose:
        """Where the page's times were measured: on the machine that built it, or where the
        shipped cells were computed (:mod:`lorasched.experiments.shipped`), read from the
        store's records of the timed policies' cells (``store``: default
        :func:`~lorasched.figures.base.default_store` of ``size``)."""
        keys = {c.key for s in self.sweeps(size).values() for c in grid.cells(s)
                if c.params["algorithm"] in self.timed}
        taken, where = measured_where(keys, size, "pdftsp", store)
        if not taken:
            return Prose("Every time on this page was measured on the machine that built it.")
        if taken == len(keys):
            return Prose(f"Every time on this page was measured where the shipped cells were "
                         f"computed ({where}): `make book` takes pdFTSP's and {TITAN}'s cells "
                         "of this page from them while the code that computed them is "
                         "unchanged, so that both policies are timed on one machine; `make "
                         "book RECOMPUTE=1` times them on the machine that builds the book.")
        return Prose(f"{taken} of the page's {len(keys)} timed runs come from the shipped "
                     f"cells ({where}) and the others were measured here: their times are "
                     "not from one machine, and their ratios mix two machines' speeds.")

    def findings(self, ds, scale: xr.Dataset | None = None):
        """The page's prose from the problems ``ds`` (:meth:`assemble`) and, if given, Fig.
        4's runs over K, ``scale``."""
        ms = _mean(ds, "decision_time_mean") * 1e3
        xs = list(ms["problem"].values)
        pd_ms = ms.sel(algorithm=[LEMMA2, CALIBRATED])
        milp = ms.sel(algorithm=TITAN).values
        rows = {r["claim"]: r for r in self.claim_rows(ds)}
        text = (f"pdFTSP decides a task in {quote(f'pdFTSP, shortest {_PER_TASK}', pd_ms.min())}"
                f" to {quote(f'pdFTSP, longest {_PER_TASK}', pd_ms.max())} ms (a "
                "numba-compiled dynamic programme over the task's window). "
                f"{TITAN} needs "
                + _and(quote(f"{TITAN} at {x}, {_PER_TASK}", v) + f" ms at {x}"
                       for x, v in zip(xs, milp, strict=True))
                + ", its slot's MILP spread over the slot's tasks (means over seeds, one run "
                "each).")
        row = rows[GROWS]
        slope = lambda v: num(v, sign=True)  # noqa: E731
        fit, days = self._growth(ds)
        other = trend_verdict(days)
        within, days = interval(fit, slope), interval(days, slope, "runs")
        read = {REPRODUCED: "it grows", CONTRADICTED: "it shrinks",
                INCONCLUSIVE: "its interval holds zero"}
        text += " " + says(row["verdict"], (
            f"Within each day, slot by slot, and averaged over a seed's {len(xs)} days, its "
            f"solve time per task against the tasks the slot brings has elasticity {within}"
            + {
                REPRODUCED: ": its time per task grows with the problem, as the paper "
                            "reports.",
                CONTRADICTED: ": unlike the paper, its time per task shrinks as the problem "
                              "grows.",
                INCONCLUSIVE: "; the interval holds zero: the seeds cannot tell whether it "
                              "grows.",
                DEPENDS: f" ({read[trend_verdict(fit)]}); across the loads, the days' means "
                         f"give elasticity {days} ({read[other]}): the verdict depends on "
                         "the reading of the paper's sentence, and the table shows both."
            }[row["verdict"]]), GROWS)
        text += (" A slot's arrivals are drawn without regard to the cluster's state, so its "
                 "slots compare problems of different sizes on one cluster; the days' means "
                 "across the loads compare clusters that are fuller too"
                 + (f", and give elasticity {days}, the same verdict."
                    if row["verdict"] != DEPENDS else "."))
        speedup = self._ratios(ds)  # the claim's centre: each problem's geometric mean
        ratio = np.array([estimate_of(speedup.sel(problem=x), RATIO).mean for x in xs])
        agree = [r for r in rows.values() if r["verdict"] == REPRODUCED]
        faster = (f"{TITAN}'s decision time per task over pdFTSP's (Lemma 2) on one problem, "
                  "geometric mean over seeds")
        text += (f" With the Lemma-2 constants pdFTSP decides "
                 f"{quote(f'{faster}, smallest', ratio.min())} to "
                 f"{quote(f'{faster}, largest', ratio.max())} times faster than {TITAN} "
                 "(geometric means over seeds, the claim's centre). "
                 + ("Both findings of the paper are reproduced." if len(agree) == len(rows)
                    else f"{len(agree)} of the paper's {len(rows)} findings "
                    + ("is" if len(agree) == 1 else "are") + " reproduced."))
        if scale is not None:
            km = (_mean(scale, "decision_time_mean") * 1e3).sel(algorithm=TITAN)
            ks = list(km["nodes"].values)
            text += (f" Over K at the medium load (Fig. 4's runs, beyond the paper) {TITAN} "
                     "needs "
                     + " → ".join(quote(f"{TITAN} at K = {k}, {_PER_TASK}", v)
                                  for k, v in zip(ks, km.values, strict=True))
                     + f" ms per task for K = {_and(ks)}.")
        return paragraphs(text)
