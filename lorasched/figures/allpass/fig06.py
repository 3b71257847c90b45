"""Allpass's Fig. 6: JCT under limited serverful capacity, the paper's numbers beside ours."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...allpass.diagnostics import queue_mechanism
from ..base import Prose, paragraphs
from ..centres import centre, centre_share, seeds_estimate
from ..inventory import cite
from ..numbers import minutes, num, pct
from ..verdicts import RATIO, SHARE, judge
from .common import (
    NAMES,
    PAPER_FIG6,
    SETUPS,
    AllpassData,
    AllpassFigure,
    claim,
    identical,
    paper_table,
    row_of,
    row_says,
    share,
    untestable,
)

SETUP = "limited"


def _pct(x: float) -> str:
    return pct(x, sign=False)


def _pts(x: float) -> str:
    """A difference of two percentages, in points: ``+14 points``."""
    return f"{num(x, sign=True)} points"


class Fig06(AllpassFigure):
    key, number, title = "fig06", "Fig. 6", "JCT under limited serverful capacity"
    page = "allpass_fig06"
    ORDER = ["allpass", "tl_np", "tl_p", "sjf_np", "sjf_p"]
    BASELINES = ORDER[1:]
    #: the percentiles at which "better across all percentiles" compares the JCTs
    PERCENTILES = tuple(range(5, 100, 5))
    #: the claim of the first sentence of section 5.2 that reads the whole CDF
    ALL_PERCENTILES = ("Allpass's JCT below every baseline's at every percentile (worst "
                       "ratio to the best baseline)")
    sentences = {"Allpass: jobs": cite("5.2a", "Allpass"), "TL-NP: jobs": cite("5.2a", "TL-NP"),
                 "TL-P: jobs": cite("5.2a", "TL-P"), "SJF-NP: jobs": cite("5.2a", "SJF-NP"),
                 "SJF-P: jobs": cite("5.2a", "SJF-P"),
                 "Allpass finishes more": cite("5.2a", "short jobs"),
                 ALL_PERCENTILES: cite("5.2a", "all percentiles"),
                 "TL-NP finishes the fewest": cite("5.2b"),
                 "SJF-P finishes fewer": cite("5.2c")}

    def percentile_ratios(self, data: AllpassData) -> np.ndarray:
        """Per seed (rows) and percentile of :attr:`PERCENTILES` (columns): Allpass's JCT
        at that percentile over the lowest of the baselines' at the same percentile (NaN
        for a seed without every run)."""
        def at(a):
            return np.array([np.percentile(data.results[SETUP, a, s]["jct_s"].values,
                                           self.PERCENTILES)
                             if data.has(SETUP, a, s) else np.full(len(self.PERCENTILES),
                                                                    np.nan)
                             for s in data.seeds])
        best = np.min([at(b) for b in self.BASELINES], axis=0)
        return at("allpass") / best

    def _percentile_row(self, data: AllpassData) -> dict:
        ratios = self.percentile_ratios(data)
        whole = np.isfinite(ratios).all(axis=1)
        worst = seeds_estimate(np.where(whole, ratios.max(axis=1), np.nan), RATIO)
        if not whole.any():
            return claim(self.ALL_PERCENTILES, SETUP, "better at all percentiles", worst,
                         judge(worst, None, threshold=1.0, side=-1),
                         "No seed has every policy's run.", lambda x: f"{num(x)}×",
                         threshold=1.0, side=-1)
        # the percentile where Allpass trails most, on the seeds' centre
        typical = np.exp(np.log(ratios[whole]).mean(axis=0))
        q = self.PERCENTILES[int(np.argmax(typical))]
        behind = [p for p, r in zip(self.PERCENTILES, typical, strict=True) if r > 1]
        avg = {a: data.m("avg_jct_min", SETUP, a) for a in self.ORDER}
        lead = min(self.BASELINES, key=avg.get)
        why = (f"Allpass trails the best baseline most at the {q}th percentile, at "
               f"{num(float(typical.max()))} times its JCT (the geometric mean over seeds), "
               f"and trails it at {len(behind)} of the {len(self.PERCENTILES)} percentiles "
               f"compared ({behind[0]}th to {behind[-1]}th)" if behind else
               f"Allpass's JCT is below the best baseline's at every percentile on average "
               f"(at most {num(float(typical.max()))} times it, at the {q}th)")
        why += (f"; its average JCT is {minutes(avg['allpass'])} against "
                f"{NAMES[lead]}'s {minutes(avg[lead])}: the long jobs it demotes queue for "
                "serverful workers (the page of Fig. 8 measures why).")
        return claim(self.ALL_PERCENTILES, SETUP, "better at all percentiles", worst,
                     judge(worst, None, threshold=1.0, side=-1), why,
                     lambda x: f"{num(x)}×", threshold=1.0, side=-1)

    def shares(self, data: AllpassData) -> dict[str, np.ndarray]:
        """Per seed, each policy's share of jobs with JCT <= 10 min, percent."""
        return {a: 100 * data.values("share_10min", SETUP, a) for a in self.ORDER}

    def table(self, data: AllpassData) -> pd.DataFrame:
        return paper_table(data, [("jobs <= 10 min", SETUP, a, "share_10min", 100,
                                   lambda x: pct(x, sign=False),
                                   pct(PAPER_FIG6[a], sign=False)) for a in self.ORDER]
                           + [("average JCT (min)", SETUP, a, "avg_jct_min", 1, num, "")
                              for a in self.ORDER])

    def mechanism(self, data: AllpassData) -> pd.DataFrame:
        """Per seed, why short jobs miss ten minutes: the share of jobs (percent) whose
        work alone exceeds ten minutes, and each policy's share of the jobs of at most ten
        minutes' work that still finish later."""
        return data.cached("fig06.mechanism", lambda: self._mechanism(data)).copy()

    def _mechanism(self, data: AllpassData) -> pd.DataFrame:
        late = [f"{NAMES[a]}: short jobs late (%)" for a in self.ORDER]
        rows = []
        for s in data.seeds:
            if not data.has(SETUP, "allpass", s):
                continue
            work = data.run(SETUP, "allpass", s)["work_s"].values / 60
            row = {"seed": s, "jobs with work > 10 min (%)": 100 * float(np.mean(work > 10))}
            for a, column in zip(self.ORDER, late, strict=True):
                row[column] = np.nan
                if data.has(SETUP, a, s):
                    run = data.run(SETUP, a, s)
                    w, jct = run["work_s"].values / 60, run["jct_s"].values / 60
                    if (w <= 10).any():
                        row[column] = 100 * float(np.mean(jct[w <= 10] > 10 + 1e-9))
            rows.append(row)
        return pd.DataFrame(rows, columns=["seed", "jobs with work > 10 min (%)", *late])

    def _late(self, data: AllpassData, a: str) -> float:
        column = self.mechanism(data)[f"{NAMES[a]}: short jobs late (%)"].astype(float)
        return centre(column, SHARE)  # NaN where no seed has the run

    def _level_why(self, data: AllpassData, a: str, long_work: float) -> str:
        return (f"{pct(long_work, sign=False)} of the jobs carry more than ten minutes of work "
                f"here, so at most {pct(100 - long_work, sign=False)} can finish within ten "
                f"minutes; of the others, {NAMES[a]} finishes "
                f"{pct(self._late(data, a), sign=False)} later (the paper's share depends on "
                "its Seren jobs' lengths and on how long they wait).")

    def claim_rows(self, data: AllpassData):
        s = self.shares(data)
        long_work = centre(self.mechanism(data)["jobs with work > 10 min (%)"], SHARE)
        rows = []
        for a in self.ORDER:
            est = seeds_estimate(s[a], SHARE)
            rows.append(claim(f"{NAMES[a]}: jobs with JCT <= 10 min", SETUP,
                              _pct(PAPER_FIG6[a]), est, judge(est, PAPER_FIG6[a]),
                              self._level_why(data, a, long_work), _pct,
                              paper_value=PAPER_FIG6[a]))
        best = np.max([s[b] for b in self.BASELINES], axis=0)
        paper = PAPER_FIG6["allpass"] - max(PAPER_FIG6[b] for b in self.BASELINES)
        est = seeds_estimate(s["allpass"] - best)
        rows.append(claim("Allpass finishes more jobs within 10 min than every baseline "
                          "(points over the best)", SETUP, _pts(paper), est,
                          judge(est, paper), self._best_why(data, s), _pts,
                          paper_value=paper))
        rows.append(self._percentile_row(data))
        others = [b for b in self.ORDER if b != "tl_np"]
        paper = min(PAPER_FIG6[b] for b in others) - PAPER_FIG6["tl_np"]
        text = "TL-NP finishes the fewest jobs within 10 min (points under the next)"
        if identical(data, "share_10min", SETUP, self.BASELINES):
            rows.append(untestable(text, SETUP, _pts(paper), data, "share_10min", SETUP,
                                   self.BASELINES, "share of jobs within ten minutes"))
        else:
            est = seeds_estimate(np.min([s[b] for b in others], axis=0) - s["tl_np"])
            rows.append(claim(text, SETUP, _pts(paper), est, judge(est, paper),
                              self._tl_np_why(data), _pts,
                              paper_value=paper))
        paper = PAPER_FIG6["sjf_np"] - PAPER_FIG6["sjf_p"]
        text = "SJF-P finishes fewer jobs within 10 min than SJF-NP (points)"
        if identical(data, "share_10min", SETUP, ["sjf_np", "sjf_p"]):
            rows.append(untestable(text, SETUP, _pts(paper), data, "share_10min", SETUP,
                                   ["sjf_np", "sjf_p"], "share of jobs within ten minutes"))
        else:
            est = seeds_estimate(s["sjf_np"] - s["sjf_p"])
            rows.append(claim(text, SETUP, _pts(paper), est, judge(est, paper),
                              self._sjf_why(data), _pts,
                              paper_value=paper))
        return rows

    def _best_why(self, data: AllpassData, s: dict) -> str:
        q = data.est("queue_min", SETUP, "allpass")
        calm = data.per_seed(SETUP, "allpass",
                             lambda r: queue_mechanism(r)["calm_when_waiting"])
        best = np.max([s[b] for b in self.BASELINES], axis=0)
        wins = int(np.sum(s["allpass"] > best))
        return (f"Allpass leads the best baseline in {wins} of {len(data.seeds)} seeds. Its "
                f"demoted jobs queue {minutes(q.mean)} per job on average for a serverful "
                f"worker: at {share(centre_share(calm))} of the ticks when jobs waited, the "
                "pressure of eq. (2) was at most 1, so Algorithm 2 added no worker (the page "
                "of Fig. 8 measures this mechanism).")

    def _tl_np_why(self, data: AllpassData) -> str:
        s = {a: centre(self.shares(data)[a], SHARE) for a in self.ORDER}
        nxt = min((a for a in self.ORDER if a != "tl_np"), key=s.get)
        late = {a: self._late(data, a) for a in self.ORDER}
        return (f"The next fewest is {NAMES[nxt]}'s, {_pct(s[nxt])} against TL-NP's "
                f"{_pct(s['tl_np'])}. Of the jobs with at most ten minutes of work, "
                "the share finished later: "
                + ", ".join(f"{NAMES[a]} {_pct(late[a])}" for a in self.ORDER) + ".")

    def _sjf_why(self, data: AllpassData) -> str:
        pre = {a: centre(data.per_seed(SETUP, a, lambda r: r["preemptions"].values.sum()))
               for a in ("sjf_np", "sjf_p")}
        o = {a: data.m("overhead_min", SETUP, a) for a in ("sjf_np", "sjf_p")}
        return (f"SJF-P preempts {num(pre['sjf_p'])} jobs per run and spends "
                f"{minutes(o['sjf_p'])} per job on checkpoints and restores, against SJF-NP's "
                f"{minutes(o['sjf_np'])}.")

    def findings(self, data: AllpassData) -> Prose:
        s = {a: data.est("share_10min", SETUP, a, 100, on=SHARE) for a in self.ORDER}
        avg = {a: data.m("avg_jct_min", SETUP, a) for a in self.ORDER}
        # each ordering said from its own claims row's verdict
        rows = self.claim_rows(data)
        said = [row_says(row_of(rows, "Allpass finishes more jobs"),
                         "Allpass's lead in jobs finished within ten minutes over the best "
                         "baseline"),
                row_says(row_of(rows, "TL-NP finishes the fewest"),
                         "TL-NP's deficit against the next fewest"),
                row_says(row_of(rows, "SJF-P finishes fewer"),
                         "SJF-P's deficit against SJF-NP")]
        return paragraphs(
            "Jobs finished within ten minutes under the cap of "
            f"{num(SETUPS[SETUP])} serverful workers (centres over seeds): "
            + ", ".join(f"{NAMES[a]} {pct(s[a].mean, sign=False)}" for a in self.ORDER) + ".",
            "Average JCT: " + ", ".join(f"{NAMES[a]} {minutes(avg[a])}" for a in self.ORDER)
            + ".",
            "On this page's claims: " + "; ".join(said) + ".")
