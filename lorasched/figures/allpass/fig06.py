"""Allpass's Fig. 6: JCT under limited serverful capacity, the paper's numbers beside ours."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ...allpass.cluster import TIRESIAS_THRESHOLD_S
from ...allpass.diagnostics import queue_mechanism
from ..base import Prose, paragraphs
from ..centres import centre, centre_share, seeds_estimate
from ..inventory import cite
from ..numbers import minutes, num, pct, quote
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


def _span(frame: pd.DataFrame, column: str) -> str:
    """The range over ``frame``'s seeds of its column ``column`` (minutes), each end quoted
    (:func:`quote`, named after the column): ``61 to 62 min``, or ``61 min`` when they
    agree."""
    lo, hi = float(np.nanmin(frame[column])), float(np.nanmax(frame[column]))
    if num(lo) == num(hi):
        return quote(f"{column}, every seed", lo, minutes)
    return (f"{quote(f'{column}, least over seeds', lo)} to "
            f"{quote(f'{column}, most over seeds', hi, minutes)}")


def _threshold_of(run) -> float:
    """The first queue's limit (seconds of attained service) a Tiresias-L run ran with."""
    return float(json.loads(run.attrs.get("options", "{}")).get("threshold_s",
                                                                 TIRESIAS_THRESHOLD_S))


def _first_attains(run, threshold: float) -> float:
    """When the first job of ``run`` attains ``threshold`` seconds of service, its run
    segments added up in order (s; inf if no job does)."""
    run_seg = run["seg_kind"].values.astype(str) == "run"
    job = run["seg_job"].values[run_seg]
    start, end = run["seg_start_s"].values[run_seg], run["seg_end_s"].values[run_seg]
    first = np.inf
    for j in np.unique(job):
        order = np.argsort(start[job == j], kind="stable")
        s0, s1 = start[job == j][order], end[job == j][order]
        before = np.concatenate([[0.0], np.cumsum(s1 - s0)])
        k = int(np.searchsorted(before[1:], threshold - 1e-9))
        if k < s0.size:
            first = min(first, s0[k] + threshold - before[k])
    return first


def _preemption_row(tl_p, tl_np, seed: int) -> dict:
    """What TL-P's preemptions change against TL-NP on one seed (the same jobs): its
    preemptions, the jobs whose JCT differs (and the shortest such JCT, under either) and
    those that cross the ten-minute mark, and
    in minutes after the first arrival, how long the jobs take to arrive, TL-P's first
    preemption, when TL-NP's first job attains the first queue's limit and when its
    serverful queue is last non-empty; the jobs still within their ten minutes at TL-P's
    first preemption, and the quickest of their JCTs under TL-P."""
    t0 = float(tl_p["submit_s"].values.min())
    jp, jn = tl_p["jct_s"].values, tl_np["jct_s"].values
    kind = tl_p["seg_kind"].values.astype(str)
    cuts = tl_p["seg_start_s"].values[kind == "checkpoint"]
    first = float(cuts.min()) if cuts.size else np.nan
    inside = ((tl_p["submit_s"].values + 600 > first) & (tl_p["finish_s"].values > first)
              if cuts.size else np.zeros(jp.size, dtype=bool))
    queued = tl_np["tick_s"].values[tl_np["queue"].values > 0]
    other = ~np.isclose(jp, jn, rtol=0, atol=1e-6)
    return {"seed": seed, "TL-P preemptions": int(tl_p["preemptions"].values.sum()),
            "jobs with another JCT": int(other.sum()),
            "shortest JCT that differs (min)": float(np.minimum(jp, jn)[other].min()) / 60
            if other.any() else np.nan,
            "jobs across ten minutes": int(((jp <= 600 + 1e-6) != (jn <= 600 + 1e-6)).sum()),
            "arrivals span (min)": (float(tl_p["submit_s"].values.max()) - t0) / 60,
            "first preemption (min)": (first - t0) / 60,
            "first job at the limit (min)": (_first_attains(tl_np, _threshold_of(tl_np)) - t0)
            / 60,
            "queue last non-empty (min)": (float(queued.max()) - t0) / 60 if queued.size
            else np.nan,
            "jobs within ten minutes at the first preemption": int(inside.sum()),
            "their quickest JCT under TL-P (min)": float(jp[inside].min()) / 60
            if inside.any() else np.nan}


class Fig06(AllpassFigure):
    key, number, title = "fig06", "Fig. 6", "JCT under limited serverful capacity"
    page = "allpass_fig06"
    quotes = True  # the preemption paragraph derives its numbers from the runs
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

    def first_rows(self, data: AllpassData):
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

    def preemptions(self, data: AllpassData) -> pd.DataFrame:
        """What TL-P's preemptions change against TL-NP, seed by seed.

        Parameters
        ----------
        data : AllpassData
            The runs.

        Returns
        -------
        pandas.DataFrame
            A row per seed with both runs (:func:`_preemption_row`'s columns).
        """
        return data.cached("fig06.preemptions", lambda: pd.DataFrame(
            [_preemption_row(data.run(SETUP, "tl_p", s), data.run(SETUP, "tl_np", s), s)
             for s in data.seeds if data.has(SETUP, "tl_p", s) and data.has(SETUP, "tl_np", s)]
        )).copy()

    def preemption_text(self, data: AllpassData) -> str:
        """Why TL-P's curve lies on TL-NP's, or where it leaves it, as measured.

        Its preemptions, the jobs they change and why no job changes side of ten minutes
        (the model or not); every number it derives quoted (:meth:`quoted`).

        Parameters
        ----------
        data : AllpassData
            The runs.

        Returns
        -------
        str
            One paragraph (markdown), empty without TL-P's and TL-NP's runs.
        """
        t = self.preemptions(data)
        if t.empty:
            return ""
        n, limit = len(t), _threshold_of(data.run(SETUP, "tl_p", int(t["seed"].iloc[0])))
        cut, calm = t[t["TL-P preemptions"] > 0], t[t["TL-P preemptions"] == 0]
        across = int(t["jobs across ten minutes"].sum())
        seeds = quote("seeds with TL-P's and TL-NP's runs", n)
        rule = ("Tiresias-L preempts only a job that has attained its first queue's limit, "
                f"{quote('the first queue limit of Tiresias-L, min', limit / 60, minutes)} "
                "of service (lorasched's choice: the paper names no limit; the Allpass "
                "sensitivity page runs ten minutes and four hours), and only while another "
                "job waits")
        head = "**TL-P beside TL-NP.** "
        if across:
            return (head + f"TL-P preempts on {quote('seeds where TL-P preempts', len(cut))} "
                    f"of the {seeds} seeds, and "
                    f"{quote('jobs on the other side of ten minutes than under TL-NP', across)}"
                    " jobs finish on the other side of ten minutes from TL-NP's: the two "
                    f"shares differ. {rule}.")
        pre = cut["TL-P preemptions"]
        words = [head + "TL-P and TL-NP finish the same share of jobs within ten minutes on "
                 f"every one of the {seeds} seeds: that is the model, not a bug. "]
        if len(cut):
            shortest = float(cut["shortest JCT that differs (min)"].min())
            words.append(
                f"TL-P does preempt, on {quote('seeds where TL-P preempts', len(cut))} of the "
                f"{seeds} seeds ({quote('preemptions of TL-P, all seeds', int(pre.sum()))} "
                f"preemptions in all, {quote('preemptions of TL-P, least a seed', pre.min())}"
                f" to {quote('preemptions of TL-P, most a seed', pre.max())} a seed), and "
                + quote("jobs with another JCT under TL-P than TL-NP",
                        int(cut["jobs with another JCT"].sum()))
                + " jobs finish at another time than under TL-NP, each of them after at "
                f"least {quote('shortest JCT that differs, min', shortest, minutes)} under "
                "either: the two curves part only above that, and not one job crosses the "
                "ten-minute mark. ")
        else:
            words.append("TL-P preempts no job on any seed, and every job finishes when "
                         "it does under TL-NP: the two curves are one. ")
        words.append(rule + ". ")
        if len(cut):
            inside = int(cut["jobs within ten minutes at the first preemption"].sum())
            quick = float(cut["their quickest JCT under TL-P (min)"].min())
            words.append(
                "So a seed's first preemption comes "
                f"{_span(cut, 'first preemption (min)')} after its first arrival, while its "
                f"jobs all arrive within {_span(cut, 'arrivals span (min)')}: by then " + (
                    "most jobs are past their ten minutes, and the "
                    f"{quote('jobs within ten minutes at the first preemption', inside)} "
                    "that are not wait behind the queue (the quickest of them takes "
                    f"{quote('their quickest JCT under TL-P, min', quick, minutes)} under "
                    "TL-P). " if inside else "every job is past its ten minutes. "))
        if len(calm):
            before = (calm["queue last non-empty (min)"].fillna(-np.inf)
                      < calm["first job at the limit (min)"])
            others = quote("seeds where TL-P does not preempt", len(calm))
            words.append(("On the other seed " if len(calm) == 1 else
                          f"On the other {others} seeds ") if len(cut) else "On every seed ")
            words.append(
                "the serverful queue is empty before the first job attains the limit (a "
                f"tick last finds a job queued {_span(calm, 'queue last non-empty (min)')} "
                "after the first arrival; the first job reaches the limit "
                f"{_span(calm, 'first job at the limit (min)')} after it): no job waits "
                "while one could be preempted."
                if bool(before.all()) else
                "no job is preempted although one waits after a job attains the limit: "
                "this page does not trace why.")
        return "".join(words).strip()

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
            "On this page's claims: " + "; ".join(said) + ".",
            self.preemption_text(data))
