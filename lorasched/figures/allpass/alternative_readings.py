"""Allpass's readings page: the other readings of the paper side by side, the measured
mechanism behind Allpass's serverful queueing, the units slip and the floor the workload
sets."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...allpass.diagnostics import demoted_overlap, queue_mechanism
from ...allpass.pressure import SLIP
from ...allpass.workload import HEADLINE_SOURCE
from ..base import Prose, paragraphs
from ..causes import Intervention, joined, line, open_rows
from ..centres import centre, centre_share, fmt
from ..numbers import minutes, num, pct, quote, seconds, usd
from ..sensitivity import SETTING, Alternative
from ..verdicts import NOT_RUN, SHARE
from .common import (
    NAMES,
    PAPER_FIG8,
    PAPER_FIG9,
    PAPER_FIG10,
    READINGS,
    SETUPS,
    AllpassData,
    AllpassFigure,
    column_centres,
    share,
)
from .fig06 import Fig06
from .fig07 import Fig07
from .fig08 import Fig08
from .fig09 import Fig09
from .fig10 import Fig10
from .fig11 import Fig11
from .fig12 import Fig12
from .sensitivity import ALTERNATIVES, alternative_runs

#: the pages of the headline claims the counterfactuals are run for
HEADLINE_PAGES = (Fig06(), Fig07(), Fig08(), Fig09(), Fig10(), Fig11(), Fig12())
#: the counterfactuals the headline rows' whys imply, each a run of the readings page
#: standing in for Allpass's: run key -> what it changes
INTERVENTIONS = {
    "queue_all_oracle": Intervention(
        "queueing removed", "every job that waits for a serverful worker gets one at once "
        "(the queue-all oracle's runs, F fixed at F0): the serverful queueing of Allpass's "
        "demoted jobs taken away", changes_algorithm=True),
    "allpass_overhead": Intervention(
        "4.7 min per demotion", "each demotion charged 4.7 min of checkpoint and restore, "
        "Fig. 8's 1.4 min read as an average over all jobs (4.7 min chosen so that the "
        "mean over all jobs meets it)", fitted_to=("Allpass's demotion overhead",)),
    "allpass_slip": Intervention(
        "more workers rented (units slip)", "Allpass's pressure 60 times larger (the units "
        "slip's runs), so that it rents serverful workers as the paper's Allpass did (up to "
        "27 under the cap) and climbs the offer book: the few-workers mechanism removed"),
    "tl_p_overhead": Intervention(
        "4.7 min per preemption", "each of TL-P's preemptions charged 4.7 min of checkpoint "
        "and restore (the paper blames its waits on repeated checkpoint and resume)"),
}
#: the counterfactuals that run every policy again in another scenario: key -> the
#: scenario's change (an alternative of the sensitivity page, whose runs they share)
SCENARIOS = {
    "seren_jobs": Alternative("the jobs", "the mixture fitted to Seren", {"source": "mixture"},
                              source="the paper's jobs came from Seren: lengths and "
                                     "arrivals from the log-normal mixture fitted to its "
                                     "Table 1", kind=SETTING),
    "contention": next(a for a in ALTERNATIVES if a.scenario == {"capacity": 8}),
}
#: under a headline that already runs the Seren mixture, its counterfactual would rerun the
#: headline's own runs: it is left out, and the causes it stood for name none
if HEADLINE_SOURCE == "mixture":
    del SCENARIOS["seren_jobs"]
INTERVENTIONS |= {
    "seren_jobs": Intervention(
        "the paper's jobs (Seren mixture)", "every policy's runs replaced, seed by seed and "
        "in both setups, by its runs on jobs drawn from the log-normal mixture fitted to "
        "Seren's Table 1 (the trace the paper's jobs came from): the Helios window's job "
        "lengths and arrivals, which the why names, set to the paper's"),
    "contention": Intervention(
        "jobs queue (cap 8)", "every policy's runs in the limited setup replaced by its "
        "runs under a serverful cap of 8, where jobs wait for workers (the sensitivity "
        "page's runs): the queueing the paper's baselines met, which the why says is "
        "absent here"),
}
def counterfactual_label(key: str) -> str:
    """What reports call the runs of the counterfactual ``key`` of :data:`SCENARIOS`."""
    return f"counterfactual {key.replace('_', ' ')}"


#: the policy whose runs each counterfactual replaces (Allpass's unless named)
_REPLACES = {"tl_p_overhead": "tl_p"}
#: which counterfactual each headline row's why implies, by the start of its claim's name
#: (a tuple: a why naming several mechanisms, one counterfactual each, in its order; a row
#: not listed has none that a run of this page can make)
CAUSES = {
    "Allpass: jobs with JCT": "queue_all_oracle",
    "Allpass finishes more jobs": "queue_all_oracle",
    "Allpass's JCT below every baseline's": "queue_all_oracle",
    "Allpass's average JCT nearly identical": "queue_all_oracle",
    "HPA's average JCT over Allpass's": "queue_all_oracle",
    "Allpass's queueing delay": "queue_all_oracle",
    "Modal waits less than Allpass": "queue_all_oracle",
    "Allpass waits less than every baseline": "queue_all_oracle",
    "Tiresias-L's queue longer than Allpass's": "queue_all_oracle",
    "Allpass's demotion overhead": "allpass_overhead",
    # the job lengths and arrivals of the Helios window against the paper's Seren jobs (and,
    # for the baselines' shares, the waits the why names as well)
    "TL-NP: jobs with JCT": ("seren_jobs", "contention"),
    "TL-P: jobs with JCT": ("seren_jobs", "contention"),
    "SJF-NP: jobs with JCT": ("seren_jobs", "contention"),
    "SJF-P: jobs with JCT": ("seren_jobs", "contention"),
    "Allpass's median JCT": "seren_jobs",
    "median JCT reduction against": "seren_jobs",
    "Allpass's serverless part": "seren_jobs",
    "HPA scales out": "seren_jobs",
    # an order between baselines where none waits
    "SJF-P waits longer than SJF-NP": "contention",
    "TL-NP finishes the fewest jobs within": ("seren_jobs", "contention"),
    "SJF-P finishes fewer jobs within": ("seren_jobs", "contention"),
    # the peak the Helios window's concurrency allows
    "Allpass never reaches the serverful cap": "seren_jobs",
    "TL-P waits longer than TL-NP": "tl_p_overhead",
    # the bills and prices: Allpass rents few workers, near the cheapest offers
    "Allpass's total": "allpass_slip",
    "Allpass's saving against": "allpass_slip",
    "Modal's cost over Allpass's": "allpass_slip",
    "average marketplace price": "allpass_slip",
    "saving against": "allpass_slip",
}
if "seren_jobs" not in SCENARIOS:
    CAUSES = {start: kept[0] if len(kept) == 1 else kept
              for start, keys in CAUSES.items()
              if (kept := tuple(k for k in ((keys,) if isinstance(keys, str) else keys)
                                if k != "seren_jobs"))}


def _F_peak_h(run) -> float:
    """When (h) a run's threshold first reached its highest value."""
    return float(run["tick_s"].values[int(np.nanargmax(run["F_s"].values))] / 3600)


class Readings(AllpassFigure):
    """The other readings of the paper side by side, and the measured mechanism behind
    Allpass's serverful queueing (Figs. 6-8)."""

    key, number, title = "readings", "Readings", "Other readings and the queueing mechanism"
    quotes = True
    ORDER = ["allpass", *READINGS]
    page = "allpass_readings"
    METRICS = [("share_10min", "jobs <= 10 min (%)", 100, num),
               ("median_jct_min", "median JCT (min)", 1, num),
               ("avg_jct_min", "average JCT (min)", 1, num), ("queue_min", "queue (min)", 1, num),
               ("overhead_min", "checkpoint + restore (min)", 1, num),
               ("cost_usd", "cost", 1, usd), ("max_workers", "peak workers", 1, num)]

    def table(self, data: AllpassData) -> pd.DataFrame:
        rows = []
        for a in self.ORDER:
            row = {"reading": NAMES[a], "what changes": READINGS[a][2] if a in READINGS
                   else "the default: evident Algorithm 2, overdue jobs counted, 1.4 min "
                        "per demotion"}
            for m, label, scale, f in self.METRICS:
                row[label] = fmt(scale * data.values(m, "limited", a), f)
            rows.append(row)
        return pd.DataFrame(rows)

    def mechanism(self, data: AllpassData) -> pd.DataFrame:
        """:func:`lorasched.allpass.diagnostics.queue_mechanism` of Allpass, per seed."""
        labels = {"waiting_ticks": "ticks with jobs waiting (%)",
                  "calm_when_waiting": "of those, with p <= 1 (%)",
                  "far_queue_share": "queueing by jobs due beyond the window (%)",
                  "far_demoted": "demoted jobs due beyond the window (%)",
                  "deadline_miss": "jobs late for their deadline (%)",
                  "workers_when_waiting": "open workers while jobs wait",
                  "queue_when_waiting": "jobs waiting, when any"}
        percent = {"waiting_ticks", "calm_when_waiting", "far_queue_share", "far_demoted",
                   "deadline_miss"}
        rows = []
        for seed in data.seeds:
            m = queue_mechanism(data.run("limited", "allpass", seed))
            rows.append({"seed": seed} | {labels[k]: 100 * v if k in percent else v
                                          for k, v in m.items()})
        return pd.DataFrame(rows)

    def _per_seed(self, data: AllpassData, setup: str, alg: str, f) -> list[float]:
        return [f(data.run(setup, alg, s)) for s in data.seeds]

    def units_table(self, data: AllpassData) -> pd.DataFrame:
        """The default against the units slip (:mod:`lorasched.allpass.pressure`'s
        ``units="slip"``, a hypothesis about the authors' code), with Modal, in both
        setups: queueing, JCT, peak workers, cost, the highest F and when it was reached,
        and the share of ticks with ``p > 1``, where Algorithm 1 raises F (centre and 95 %
        interval over seeds)."""
        rows = []
        for setup in SETUPS:
            for a in ("allpass", "allpass_slip", "modal"):
                threshold = a != "modal"

                def seeds(f, _setup=setup, _a=a):
                    return data.per_seed(_setup, _a, f)

                rows.append({
                    "policy": NAMES[a], "setup": setup,
                    "queue (min)": fmt(data.values("queue_min", setup, a)),
                    "average JCT (min)": fmt(data.values("avg_jct_min", setup, a)),
                    "peak workers": fmt(data.values("max_workers", setup, a)),
                    "cost": fmt(data.values("cost_usd", setup, a), usd),
                    "highest F (s)": fmt(seeds(lambda r: np.nanmax(r["F_s"].values)))
                    if threshold else "",
                    "F peaks at (h)": fmt(seeds(_F_peak_h)) if threshold else "",
                    "ticks with p > 1 (%)": fmt(seeds(lambda r: 100 * np.mean(
                        r["p"].values > 1))) if threshold else ""})
        return pd.DataFrame(rows)

    def units_runs(self, data: AllpassData, seed: int | None = None) -> list[tuple]:
        """(label, run) of the default and the units slip under the cap, one seed (the
        first by default), for :func:`lorasched.plotting.allpass.threshold_pressure`."""
        seed = data.seeds[0] if seed is None else seed
        return [(f"{NAMES[a]}, seed {seed}", data.run("limited", a, seed))
                for a in ("allpass", "allpass_slip")]

    def floor_table(self, data: AllpassData) -> pd.DataFrame:
        """The queue-all oracle (:func:`lorasched.allpass.policies.queue_all_oracle`) with
        and without the cap, beside Allpass's default (centre and 95 % interval over seeds)."""
        return pd.DataFrame([
            {"policy": NAMES[a], "setup": setup,
             "queue (min)": fmt(data.values("queue_min", setup, a)),
             "average JCT (min)": fmt(data.values("avg_jct_min", setup, a)),
             "peak workers": fmt(data.values("max_workers", setup, a)),
             "cost": fmt(data.values("cost_usd", setup, a), usd)}
            for a in ("allpass", "queue_all_oracle") for setup in SETUPS])

    def overlap(self, data: AllpassData) -> pd.DataFrame:
        """Per seed, the most demoted jobs running at once if each had a worker of its own
        from its demotion (:func:`lorasched.allpass.diagnostics.demoted_overlap` of the
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

    def counterfactual(self, data: AllpassData, key: str) -> AllpassData:
        """``data`` with Allpass's runs (or those of the policy ``key`` changes) replaced,
        seed by seed and in each setup ``key`` runs in, by the runs of ``key``
        (:data:`INTERVENTIONS`); for a key of :data:`SCENARIOS`, every policy's runs by
        its runs in that scenario (kept in ``data``'s store beside the sensitivity
        page's)."""
        if key in SCENARIOS:
            return data.cached(("counterfactual", key), lambda: AllpassData(
                data.size, data.results | alternative_runs(
                    data.size, SCENARIOS[key], list(data.seeds), data.store,
                    label=counterfactual_label(key)), data.store))
        policy = _REPLACES.get(key, "allpass")

        def build():
            swapped = data.results.moved({(setup, policy, seed): (setup, alg, seed)
                                          for setup, alg, seed in data.results if alg == key})
            return AllpassData(data.size, data.results | swapped, data.store)
        return data.cached(("counterfactual", key), build)

    def causes(self, data: AllpassData) -> pd.DataFrame:
        """Every headline row of Figs. 6-12 that is not reproduced (and has a number or a
        direction to compare), judged again on the counterfactual its why implies
        (:data:`CAUSES`), with the effect on it (:func:`~..causes.effect`): into the band,
        part-way (the share of the distance to the paper's number it closes), none (the
        cause ruled out) or away; "none run here" where this page has no run for it."""
        out = []
        for fig in HEADLINE_PAGES:
            for r in open_rows(fig, fig.first_rows(data)):
                run = next((k for start, k in CAUSES.items() if r["claim"].startswith(start)),
                           None)
                if run is None:
                    out.append({"figure": fig.number} | line(r))
                    continue
                lines = []
                for key in (run,) if isinstance(run, str) else run:
                    after = next(a for a in fig.first_rows(self.counterfactual(data, key))
                                 if a["claim"] == r["claim"] and a["variant"] == r["variant"])
                    lines.append(line(r, INTERVENTIONS[key], after))
                out.append({"figure": fig.number} | joined(lines))
        return pd.DataFrame(out)

    def claim_rows(self, data: AllpassData):
        """The paper's queueing delay beside each reading and run beyond the text: all
        context (the paper ran one reading, judged on Fig. 8's page)."""
        rows = []
        for a in [*READINGS, "allpass_slip", "queue_all_oracle"]:
            q = data.m("queue_min", "limited", a)
            c = data.m("cost_usd", "limited", a)
            rows.append({"claim": f"Allpass's queueing delay and bill: {NAMES[a]}",
                         "variant": "limited",
                         "paper": f"{minutes(PAPER_FIG8['allpass_queue'])}; "
                                  f"{usd(PAPER_FIG9['allpass'])}",
                         "ours": f"{minutes(q)}; {usd(c)}", "verdict": NOT_RUN})
        mech = self.mechanism(data)
        rows.append({"claim": "jobs wait while the pressure says the tier is schedulable "
                     "(p <= 1 at a tick with jobs waiting)", "variant": "limited", "paper": "",
                     "ours": pct(centre(mech["of those, with p <= 1 (%)"], SHARE), sign=False)
                     + " of those ticks", "verdict": NOT_RUN})
        return rows

    def why(self, data: AllpassData) -> Prose:
        return Prose(
            "Every row above is context: the paper ran one reading, judged on the page of "
            "Fig. 8 (whose section on why ours differs measures the mechanism). "
            + self._best_sentence(data))

    def _best_sentence(self, data: AllpassData) -> str:
        q = {a: data.m("queue_min", "limited", a) for a in self.ORDER}
        best = min(self.ORDER, key=q.get)
        return (f"The shortest queue of the readings is {NAMES[best]}'s, {minutes(q[best])} "
                f"per job, against the paper's {minutes(PAPER_FIG8['allpass_queue'])}.")

    def findings(self, data: AllpassData) -> Prose:
        mech = self.mechanism(data)
        q = {a: data.m("queue_min", "limited", a) for a in self.ORDER}
        c = {a: data.m("cost_usd", "limited", a) for a in self.ORDER}
        m = column_centres(mech)
        return paragraphs(
            "Serverful queueing per job under the cap (geometric means over seeds): "
            + ", ".join(
                f"{NAMES[a]} {minutes(q[a])}" + (f" ({usd(c[a])})" if a != "allpass" else "")
                for a in self.ORDER)
            + ". " + self._best_sentence(data),
            "The mechanism, measured on the default runs: when jobs waited in the queue, the "
            f"pressure was at most 1 at {pct(m['of those, with p <= 1 (%)'], sign=False)} of "
            "those ticks (centre over seeds), so Algorithm 2 added no worker; "
            f"{pct(m['queueing by jobs due beyond the window (%)'], sign=False)} of "
            "the queueing was done by jobs whose soft deadline lay more than the largest "
            "window away when they were demoted, whose work eq. (1) does not count yet; and "
            f"only {pct(m['jobs late for their deadline (%)'], sign=False)} of the "
            "jobs missed their soft deadline. Allpass's serverful tier is sized to meet "
            "deadlines, not to shorten JCT: with deadlines of one to ten times a job's "
            "length, long demoted jobs may wait and still be on time.",
            self._slip_paragraph(data), self._floor_paragraph(data))

    def _slip_paragraph(self, data: AllpassData) -> str:
        def m(metric, setup, a):
            return data.m(metric, setup, a)

        def peak_F(setup, a):
            return centre(data.per_seed(setup, a, lambda r: np.nanmax(r["F_s"].values)))

        def when(setup, a):
            return centre(data.per_seed(setup, a, _F_peak_h))

        def rising(setup, a):
            return centre_share(data.per_seed(setup, a, lambda r: np.mean(r["p"].values > 1)))

        d, s = "allpass", "allpass_slip"
        return (
            "The *units slip* is a hypothesis about the authors' code, not a reading of the "
            "text (the paper's own example, D(1 h) = 3, keeps its units): comparing the "
            "demand D, summed in seconds of work, with a capacity counted in minutes makes the "
            f"pressure p {num(SLIP)} times larger. Under the cap the queue falls from "
            f"{minutes(m('queue_min', 'limited', d))} to {minutes(m('queue_min', 'limited', s))}"
            f", the peak goes from {num(m('max_workers', 'limited', d))} to "
            f"{num(m('max_workers', 'limited', s))} workers (the paper: "
            f"{num(PAPER_FIG10['allpass_peak'])}, under a cap of {num(SETUPS['limited'])}) and "
            f"the bill is {usd(m('cost_usd', 'limited', s))} (the paper: "
            f"{usd(PAPER_FIG9['allpass'])}). "
            "The pressure exceeds 1, so that Algorithm 1 raises F, at "
            f"{share(rising('limited', s))} of the ticks against {share(rising('limited', d))} "
            "by default; F peaks at "
            + quote("the units slip, under the cap: F's peak, s (geometric mean over seeds)",
                    peak_F("limited", s), seconds)
            + " after "
            + quote("the units slip, under the cap: time of F's peak, h "
                    "(geometric mean over seeds)",
                    when("limited", s))
            + " h, against "
            + quote("by default, under the cap: F's peak, s (geometric mean over seeds)",
                    peak_F("limited", d), seconds) + " "
            f"by default (Fig. 10(d): F rising while p > 1, "
            "then falling slowly). Without a cap Allpass's average JCT is "
            f"{minutes(m('avg_jct_min', 'unlimited', s))} under the slip against Modal's "
            f"{minutes(m('avg_jct_min', 'unlimited', 'modal'))} (by default "
            f"{minutes(m('avg_jct_min', 'unlimited', d))}; the paper: nearly identical, Fig. 7), "
            f"with a peak of {num(m('max_workers', 'unlimited', s))} serverful workers.")

    def _floor_paragraph(self, data: AllpassData) -> str:
        ov = self.overlap(data)
        cap = SETUPS["limited"]
        o = "queue_all_oracle"
        over = int(ov["above the cap"].sum())
        counts = ov["demoted jobs at once (oracle, F0)"]
        return (
            "The floor set by the workload: the queue-all oracle (F fixed at F0, a worker "
            "rented for every queued job the instant it is queued, no feedback lag) still "
            f"queues {minutes(data.m('queue_min', 'limited', o))} per job under the cap "
            f"and {minutes(data.m('queue_min', 'unlimited', o))} without it. Were every "
            "demoted job to run on a worker of its own from its demotion, at most "
            f"{num(counts.min())} to {num(counts.max())} would run at once (by seed), against "
            f"the cap of {num(cap)}: "
            + (f"{over} of {len(ov)} seeds exceed it, and in those demoted jobs must queue "
               "under any provisioning rule." if over else
               "no seed exceeds it, so the cap alone forces no queueing here.")
            + f" The paper's {minutes(PAPER_FIG8['allpass_queue'])} of queueing with a peak "
            f"of {num(PAPER_FIG10['allpass_peak'])} workers under the same cap says its "
            f"workload can hardly have had more than {num(cap)} long demoted jobs running at "
            "once.")
