"""Allpass's readings page: the other readings of the paper side by side, the measured
mechanism behind Allpass's serverful queueing, the units slip and the floor the workload
sets (issue 25)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...allpass.diagnose import demoted_overlap, queue_mechanism
from ...allpass.pressure import SLIP
from ..base import Prose, paragraphs, verdict
from .common import (
    NAMES,
    PAPER_FIG8,
    PAPER_FIG9,
    PAPER_FIG10,
    READINGS,
    SETUPS,
    AllpassData,
    AllpassFigure,
    fmt,
    mean_sd,
)


def _F_peak_h(run) -> float:
    """When (h) a run's threshold first reached its highest value."""
    return float(run["tick_s"].values[int(np.nanargmax(run["F_s"].values))] / 3600)


class Readings(AllpassFigure):
    """The other readings of the paper side by side, and the measured mechanism behind
    Allpass's serverful queueing (Figs. 6-8)."""

    key, number, title = "readings", "Readings", "Other readings and the queueing mechanism"
    ORDER = ["allpass", *READINGS]
    METRICS = [("share_10min", "jobs <= 10 min", 3), ("median_jct_min", "median JCT (min)", 2),
               ("avg_jct_min", "average JCT (min)", 1), ("queue_min", "queue (min)", 1),
               ("overhead_min", "checkpoint + restore (min)", 2),
               ("cost_usd", "cost ($)", 1), ("max_workers", "peak workers", 1)]

    def table(self, data: AllpassData) -> pd.DataFrame:
        rows = []
        for a in self.ORDER:
            row = {"reading": NAMES[a], "what changes": READINGS[a][2] if a in READINGS
                   else "the default: evident Algorithm 2, overdue jobs counted, 1.4 min "
                        "per demotion"}
            for m, label, digits in self.METRICS:
                row[label] = fmt(data.m(m, "limited", a), digits)
            rows.append(row)
        return pd.DataFrame(rows)

    def mechanism(self, data: AllpassData) -> pd.DataFrame:
        """:func:`lorasched.allpass.diagnose.queue_mechanism` of Allpass, per seed."""
        return pd.DataFrame([{"seed": s} | queue_mechanism(data.run("limited", "allpass", s))
                             for s in data.seeds]).round(3)

    def _per_seed(self, data: AllpassData, setup: str, alg: str, f) -> list[float]:
        return [f(data.run(setup, alg, s)) for s in data.seeds]

    def units_table(self, data: AllpassData) -> pd.DataFrame:
        """The default against the units slip (:mod:`lorasched.allpass.pressure`'s
        ``units="slip"``, a hypothesis about the authors' code), with Modal, in both
        setups: queueing, JCT, peak workers, cost, the highest F and when it was reached,
        and the share of ticks with ``p > 1``, where Algorithm 1 raises F (mean ± sd over
        seeds)."""
        rows = []
        for setup in SETUPS:
            for a in ("allpass", "allpass_slip", "modal"):
                threshold = a != "modal"
                rows.append({
                    "policy": NAMES[a], "setup": setup,
                    "queue (min)": fmt(data.m("queue_min", setup, a), 1),
                    "average JCT (min)": fmt(data.m("avg_jct_min", setup, a), 1),
                    "peak workers": fmt(data.m("max_workers", setup, a), 1),
                    "cost ($)": fmt(data.m("cost_usd", setup, a), 1),
                    "highest F (s)": fmt(mean_sd(self._per_seed(
                        data, setup, a, lambda r: float(np.nanmax(r["F_s"].values)))), 0)
                    if threshold else "",
                    "F peaks at (h)": fmt(mean_sd(self._per_seed(
                        data, setup, a, _F_peak_h)), 2) if threshold else "",
                    "ticks with p > 1": fmt(mean_sd(self._per_seed(
                        data, setup, a, lambda r: float(np.mean(r["p"].values > 1)))), 3)
                    if threshold else ""})
        return pd.DataFrame(rows)

    def units_runs(self, data: AllpassData, seed: int | None = None) -> list[tuple]:
        """(label, run) of the default and the units slip under the cap, one seed (the
        first by default), for :func:`lorasched.present.allpass.threshold_pressure`."""
        seed = data.seeds[0] if seed is None else seed
        return [(f"{NAMES[a]}, seed {seed}", data.run("limited", a, seed))
                for a in ("allpass", "allpass_slip")]

    def floor_table(self, data: AllpassData) -> pd.DataFrame:
        """The queue-all oracle (:func:`lorasched.allpass.policies.queue_all_oracle`) with
        and without the cap, beside Allpass's default (mean ± sd over seeds)."""
        return pd.DataFrame([
            {"policy": NAMES[a], "setup": setup,
             "queue (min)": fmt(data.m("queue_min", setup, a), 2),
             "average JCT (min)": fmt(data.m("avg_jct_min", setup, a), 1),
             "peak workers": fmt(data.m("max_workers", setup, a), 1),
             "cost ($)": fmt(data.m("cost_usd", setup, a), 1)}
            for a in ("allpass", "queue_all_oracle") for setup in SETUPS])

    def overlap(self, data: AllpassData) -> pd.DataFrame:
        """Per seed, the most demoted jobs running at once if each had a worker of its own
        from its demotion (:func:`lorasched.allpass.diagnose.demoted_overlap` of the
        oracle's run without a cap, F fixed at F0), against the cap, with the oracle's peak
        workers without a cap and the same count on Allpass's default run."""
        cap = SETUPS["limited"]
        rows = []
        for s in data.seeds:
            n = demoted_overlap(data.run("unlimited", "queue_all_oracle", s))
            rows.append({"seed": s, "demoted jobs at once (oracle, F0)": n,
                         "demoted jobs at once (Allpass default)":
                             demoted_overlap(data.run("limited", "allpass", s)),
                         "cap": cap, "above the cap": n > cap,
                         "oracle's peak workers, no cap":
                             int(data.run("unlimited", "queue_all_oracle", s)["workers"].max())})
        return pd.DataFrame(rows)

    def claim_rows(self, data: AllpassData):
        rows = []
        for a in self.ORDER:
            q = data.m("queue_min", "limited", a)[0]
            rows.append({"claim": f"Allpass's queueing delay, {NAMES[a]}", "variant": "limited",
                         "paper": f"{PAPER_FIG8['allpass_queue']} min", "ours": f"{q:.1f} min",
                         "verdict": verdict(q <= 2 * PAPER_FIG8["allpass_queue"])})
        mech = self.mechanism(data)
        rows.append({"claim": "jobs wait while the pressure says the tier is schedulable "
                     "(p <= 1 at a waiting tick)", "variant": "limited", "paper": "not shown",
                     "ours": f"{100 * mech['calm_when_waiting'].mean():.1f} % of waiting ticks",
                     "verdict": "not shown"})
        return rows

    def findings(self, data: AllpassData) -> Prose:
        mech = self.mechanism(data)
        q = {a: data.m("queue_min", "limited", a)[0] for a in self.ORDER}
        c = {a: data.m("cost_usd", "limited", a)[0] for a in self.ORDER}
        best = min(self.ORDER, key=q.get)
        return paragraphs(
            "Average serverful queueing per job under the cap: " + ", ".join(
                f"{NAMES[a]} {q[a]:.1f} min (${c[a]:.0f})" for a in self.ORDER)
            + f". The shortest queue is {NAMES[best]}'s; no reading comes near the paper's "
            f"{PAPER_FIG8['allpass_queue']} min."
            if q[best] > 2 * PAPER_FIG8["allpass_queue"] else
            f"The shortest queue is {NAMES[best]}'s, {q[best]:.1f} min.",
            f"The mechanism, measured on the default runs: when jobs waited in the queue, the "
            f"pressure was at most 1 at {100 * mech['calm_when_waiting'].mean():.1f} % of "
            "those ticks (mean over seeds), so Algorithm 2 added no worker; "
            f"{100 * mech['far_queue_share'].mean():.1f} % of the queueing was done by jobs "
            "whose soft deadline lay more than the largest window away when they were "
            "demoted, whose work eq. (1) does not count yet; and only "
            f"{100 * mech['deadline_miss'].mean():.1f} % of the jobs missed their soft "
            "deadline. Allpass's serverful tier is sized to meet deadlines, not to shorten "
            "JCT: with deadlines of one to ten times a job's length, long demoted jobs may wait "
            "and still be on time.",
            self._slip_paragraph(data), self._floor_paragraph(data))

    def _slip_paragraph(self, data: AllpassData) -> str:
        def m(metric, setup, a):
            return data.m(metric, setup, a)[0]

        def peak_F(setup, a):
            return mean_sd(self._per_seed(data, setup, a,
                                          lambda r: float(np.nanmax(r["F_s"].values))))[0]

        def when(setup, a):
            return mean_sd(self._per_seed(data, setup, a, _F_peak_h))[0]

        def rising(setup, a):
            return 100 * mean_sd(self._per_seed(
                data, setup, a, lambda r: float(np.mean(r["p"].values > 1))))[0]

        d, s = "allpass", "allpass_slip"
        return (
            "The units slip, a hypothesis about the authors' code and not a reading of the "
            f"text (the paper's own D(1 h) = 3 keeps its units): comparing D's seconds with "
            f"a capacity counted in minutes makes p {SLIP:g} times larger. Under the cap the "
            f"queue falls from {m('queue_min', 'limited', d):.1f} to "
            f"{m('queue_min', 'limited', s):.1f} min, the peak goes from "
            f"{m('max_workers', 'limited', d):.1f} to {m('max_workers', 'limited', s):.1f} "
            f"workers (the paper: {PAPER_FIG10['allpass_peak']}, under a cap of "
            f"{SETUPS['limited']}) and the bill from ${m('cost_usd', 'limited', d):.0f} to "
            f"${m('cost_usd', 'limited', s):.0f} (the paper: ${PAPER_FIG9['allpass']:.0f}). "
            f"The pressure exceeds 1, so that Algorithm 1 raises F, at "
            f"{rising('limited', s):.1f} % of the ticks against {rising('limited', d):.1f} % "
            f"by default; F peaks at {peak_F('limited', s):.0f} s after "
            f"{when('limited', s):.2f} h on average, against {peak_F('limited', d):.0f} s "
            f"after {when('limited', d):.2f} h by default (Fig. 10(d): F rising while p > 1, "
            "then falling slowly). Without a cap Allpass's average JCT is "
            f"{m('avg_jct_min', 'unlimited', s):.1f} min under the slip against Modal's "
            f"{m('avg_jct_min', 'unlimited', 'modal'):.1f} (by default "
            f"{m('avg_jct_min', 'unlimited', d):.1f}; the paper: nearly identical, Fig. 7), "
            f"with a peak of {m('max_workers', 'unlimited', s):.1f} serverful workers.")

    def _floor_paragraph(self, data: AllpassData) -> str:
        ov = self.overlap(data)
        cap = SETUPS["limited"]
        o = "queue_all_oracle"
        over = int(ov["above the cap"].sum())
        return (
            "The floor set by the workload: the queue-all oracle (F fixed at F0, a worker "
            "rented for every queued job the instant it is queued, no feedback lag) still "
            f"queues {data.m('queue_min', 'limited', o)[0]:.1f} min per job under the cap "
            f"and {data.m('queue_min', 'unlimited', o)[0]:.2f} min without it. Were every "
            "demoted job to run on a worker of its own from its demotion, at most "
            + ", ".join(str(n) for n in ov["demoted jobs at once (oracle, F0)"])
            + f" would run at once (seeds {', '.join(map(str, data.seeds))}), against the "
            f"cap of {cap}: "
            + (f"{over} of {len(ov)} seeds exceed it, and in those demoted jobs must queue "
               "under any provisioning rule." if over else
               "no seed exceeds it, so the cap alone forces no queueing here.")
            + " The paper's "
            f"{PAPER_FIG8['allpass_queue']} min of queueing with a peak of "
            f"{PAPER_FIG10['allpass_peak']} workers under the same cap says its workload can "
            f"hardly have had more than {cap} long demoted jobs running at once.")
