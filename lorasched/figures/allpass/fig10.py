"""Allpass's Fig. 10: queue, workers and the threshold F over time, the paper's numbers
beside ours."""

from __future__ import annotations

import numpy as np

from ...allpass.cluster import HPA_TARGET
from ...allpass.diagnostics import max_overlap
from ...allpass.scalers import F0
from ..base import Prose, paragraphs
from ..centres import centre, centre_share, seeds_estimate
from ..inventory import cite
from ..numbers import interval, num, quote, seconds
from ..verdicts import NOT_TESTABLE, RATIO, judge
from .common import (
    JOBS_GIVE,
    NAMES,
    PAPER_FIG10,
    SETUPS,
    AllpassData,
    AllpassFigure,
    claim,
    row_of,
    row_says,
    share,
)


def _concurrency(run) -> int:
    """The most jobs of a run that would run at once, each from its submission for its
    work (:func:`lorasched.allpass.diagnostics.max_overlap`)."""
    submit = run["submit_s"].values
    return max_overlap(submit, submit + run["work_s"].values)


class Fig10(AllpassFigure):
    key, number, title = "fig10", "Fig. 10", "Queue, workers and the threshold F over time"
    quotes = True
    page = "allpass_fig10"
    PANELS = [("tl_np", "limited"), ("hpa", "unlimited"), ("allpass", "limited")]

    sentences = {"HPA scales out": cite("5.5b"), "F rises above": cite("5.5e"),
                 "F falls more slowly": cite("5.5f"),
                 "Tiresias-L's queue longer": cite("5.5a")}

    def first_rows(self, data: AllpassData):
        hpa = data.est("max_workers", "unlimited", "hpa")
        F = seeds_estimate(on=RATIO, values=data.per_seed("limited", "allpass",
                                         lambda r: np.nanmax(r["F_s"].values)))
        tl = data.per_seed("limited", "tl_np", lambda r: r["queue"].values.max())
        al = data.per_seed("limited", "allpass", lambda r: r["queue"].values.max())
        longer = seeds_estimate(tl - al)
        rising = data.per_seed("limited", "allpass", lambda r: np.mean(r["p"].values > 1))
        return [
            claim("HPA scales out to over 60 serverful workers (peak)", "unlimited",
                  f"> {num(PAPER_FIG10['hpa_peak'])}", hpa,
                  judge(hpa, None, threshold=PAPER_FIG10["hpa_peak"], side=+1),
                  self._hpa_why(data), num, threshold=PAPER_FIG10["hpa_peak"], side=1),
            # Allpass's peak under the cap ("up to 27 ... below the configured capacity
            # limit of 30") says again Fig. 7's "never reaches the upper capacity bound":
            # that page's row judges both
            self._f_row(F, rising),
            self._fall_row(data, rising),
            claim("Tiresias-L's queue longer than Allpass's (peak jobs waiting, difference)",
                  "limited", "yes", longer, judge(longer, None, side=+1),
                  f"Peak queue: TL-NP {num(centre(tl))} jobs, Allpass {num(centre(al))} on "
                  "average; Allpass's demoted jobs wait for serverful workers too (the page "
                  "of Fig. 8 measures why).", num, side=1),
        ]

    #: the share of ticks under pressure (p > 1) below which "F rises under pressure" is
    #: not testable: a rise on a handful of ticks is one spike, not a response to pressure
    MIN_PRESSURE = 0.01

    def _f_row(self, F, rising) -> dict:
        text = f"F rises above F0 = {seconds(F0)} under pressure (highest F)"
        why = (f"The pressure p of eq. (2) exceeds 1 at {share(centre_share(rising))} of the "
               "ticks on average, and only then does Algorithm 1 raise F.")
        if float(np.nanmean(rising)) < self.MIN_PRESSURE:
            return {"claim": text, "variant": "limited", "paper": f"> {seconds(F0)}",
                    "ours": interval(F, seconds), "estimate": F, "fmt": seconds,
                    "verdict": NOT_TESTABLE,
                    "why": why + f" Under pressure at fewer than {share(self.MIN_PRESSURE)} "
                    "of the ticks, the setting barely loads the serverful tier: a rise of F "
                    "there is a spike, not the sustained response the claim is about."}
        return claim(text, "limited", f"> {seconds(F0)}", F,
                     judge(F, None, threshold=F0, side=+1), why, seconds, threshold=F0, side=1)

    @staticmethod
    def fall_over_rise(run) -> float:
        """One run's F: its mean rate of fall after its peak (down to its lowest value
        after the peak) over its mean rate of rise before it (from its last value at F0
        before the peak), both in seconds of F per second of time; NaN when F never rises
        above F0, 0 when it never falls after its peak."""
        F, t = run["F_s"].values, run["tick_s"].values
        ok = np.isfinite(F)
        F, t = F[ok], t[ok]
        if F.size == 0 or F.max() <= F0:
            return float("nan")
        top = int(np.argmax(F))
        start = int(np.flatnonzero(F[:top + 1] <= F0)[-1]) if (F[:top + 1] <= F0).any() else 0
        rise = (F[top] - F[start]) / max(t[top] - t[start], 1e-9)
        if rise <= 0:  # F starts above F0 and peaks at once: no rise to time
            return float("nan")
        if top == F.size - 1:
            return 0.0
        low = top + 1 + int(np.argmin(F[top + 1:]))
        fall = (F[top] - F[low]) / max(t[low] - t[top], 1e-9)
        return float(fall / rise)

    def _fall_row(self, data: AllpassData, rising) -> dict:
        ratios = data.per_seed("limited", "allpass", self.fall_over_rise)
        est = seeds_estimate(ratios, RATIO)  # a ratio of rates: on the log scale
        text = "F falls more slowly than it rose (fall rate over rise rate)"
        if not np.isfinite(ratios).any() or float(np.nanmean(rising)) < self.MIN_PRESSURE:
            return {"claim": text, "variant": "limited", "paper": "slower",
                    "ours": interval(est, num) if np.isfinite(ratios).any() else "",
                    "verdict": NOT_TESTABLE,
                    "why": f"The pressure p of eq. (2) exceeds 1 at "
                           f"{share(centre_share(rising))} of the ticks on average, fewer "
                           f"than {share(self.MIN_PRESSURE)}: F barely rises here (the row "
                           "above), so there is no growth phase to compare its fall with."}
        return claim(text, "limited", "slower", est, judge(est, None, threshold=1.0, side=-1),
                     "Algorithm 1 raises F by up to G_up = 10 s and 100 % a tick and lowers it "
                     "by up to G_dn = 2 s and 30 %: measured on the runs, F falls at "
                     f"{num(est.mean)} times the rate it rose.", num, threshold=1.0, side=-1)

    def _hpa_why(self, data: AllpassData) -> str:
        jobs = data.per_seed("unlimited", "hpa", _concurrency)
        return (f"Even were every job to run on a worker of its own from its submission, at "
                f"most {num(centre(jobs))} would run at once ({num(jobs.min())} to "
                f"{num(jobs.max())} by seed); HPA asks for the busy workers over its target "
                f"utilisation of {share(HPA_TARGET)}, at most about "
                f"{num(centre(jobs) / HPA_TARGET)} workers, so "
                f"{JOBS_GIVE[data.run('unlimited', 'hpa').attrs['source']]} "
                "it no reason to reach the paper's peak.")

    def findings(self, data: AllpassData) -> Prose:
        seed = data.seeds[0]
        run = data.run("limited", "allpass", seed)
        F = run["F_s"].values
        t = run["tick_s"].values
        top = int(np.nanargmax(F))
        # each claim said from its own claims row's verdict
        rows = self.claim_rows(data)
        said = [row_says(row_of(rows, "HPA scales out"),
                         "HPA's peak serverful workers without a cap"),
                row_says(row_of(rows, "F rises above"), "Allpass's highest threshold F"),
                row_says(row_of(rows, "F falls more slowly"),
                         "Allpass's fall rate of F over its rise rate"),
                row_says(row_of(rows, "Tiresias-L's queue longer"),
                         "TL-NP's peak queue (jobs waiting) minus Allpass's")]
        return paragraphs(
            f"In seed {seed}, Allpass's threshold F starts at {seconds(F0)}, peaks at "
            f"{seconds(F[top])} at {seconds(t[top])} and ends at {seconds(F[-1])}; the "
            "pressure exceeds 1 at "
            + quote(f"seed {seed}: ticks with p > 1", int(np.sum(run["p"].values > 1)))
            + f" of {quote(f'seed {seed}: ticks', F.size)} ticks.",
            "Peak serverful workers (geometric means over seeds): " + ", ".join(
                f"{NAMES[a]} ({st}) {num(data.m('max_workers', st, a))}"
                for a, st in self.PANELS) + f", under a cap of {num(SETUPS['limited'])} in "
            "the limited setup.",
            "On this page's claims: " + "; ".join(said) + ".")
