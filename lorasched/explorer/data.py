"""The numbers the explorer shows, computed once for both of its forms: the live widgets
(:mod:`.widgets`, :mod:`.app`) call these functions at the controls' values, the static
page (:mod:`.static`) at every value of its controls, so the two cannot disagree.
See :doc:`/reference/tools`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from ..allpass.workload import allpass_scenario
from ..model.errors import InputError
from ..pdftsp.mechanism import AuctionReplay
from ..pdftsp.schedule import INFEASIBLE, NO_VENDOR
from ..plotting import allpass as allpass_plots
from ..plotting import titan as titan_plots
from ..plotting.pdftsp import dual_price_heatmap, utility_vs_bid
from ..systems import SYSTEMS, simulate
from ..titan.workload import titan_scenario

__all__ = [
    "EXPLORER_POINTS",
    "EXPLORER_WIDTH",
    "FIGURES",
    "REASONS",
    "SCENARIOS",
    "PolicyRun",
    "curve",
    "describe",
    "dual_price_figure",
    "explorer_bids",
    "explorer_figure",
    "offer",
    "pdftsp_page",
    "policy_page",
    "policy_run",
    "prices",
    "utility_figure",
]

#: the live explorer's width in px: its figures are drawn at fixed widths that add up to it
#: (a figure in a widget is drawn once, before the page has laid it out, so it cannot take
#: its container's width). 1,200 px fits a 1,280 px window; a narrower one wraps a row's
#: figures onto rows of their own instead of clipping them.
EXPLORER_WIDTH = 1_200
#: bids of the explorer's utility curve and of its bid control (odd: the middle one is the
#: task's true value)
EXPLORER_POINTS = 101
#: why an offer was or was not admitted (:attr:`~lorasched.pdftsp.mechanism.WhatIf.reason`)
REASONS = ("admitted", "no_feasible_schedule", "negative_surplus")


def _number(x: float) -> float | None:
    """``x`` as a JSON number; None for an infinite or undefined one."""
    x = float(x)
    return x if math.isfinite(x) else None


# --------------------------------------------------------------------------- pdFTSP


def explorer_bids(replay: AuctionReplay, task: int, n: int = EXPLORER_POINTS) -> np.ndarray:
    """``n`` (odd, >= 3) bids from 0 to twice task ``task``'s value (to 1 if its value is
    0), the middle one exactly its value: the bids the explorer offers it at."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 3 or n % 2 == 0:
        raise InputError(f"n must be an odd whole number >= 3, got {n!r}")
    bids = replay.bid_grid(task, n)
    value = float(replay.arrays.bid[replay.check_task(task)])
    if value > 0:
        bids[n // 2] = value
    return bids


def prices(replay: AuctionReplay, step: int) -> dict:
    """The dual prices after the first ``step`` arrivals
    (:meth:`~lorasched.pdftsp.mechanism.AuctionReplay.prices_after`): ``lambda`` and
    ``phi`` as node x slot lists, ``step`` and ``n_tasks``."""
    ds = replay.prices_after(step)
    return {"step": int(ds.attrs["arrivals"]), "n_tasks": int(ds.attrs["n_tasks"]),
            "lambda": ds["lambda"].transpose("node", "slot").values.tolist(),
            "phi": ds["phi"].transpose("node", "slot").values.tolist()}


def offer(replay: AuctionReplay, task: int, bid: float | None = None) -> dict:
    """Task ``task`` offered at ``bid`` (default: its value) against the prices just before
    it arrives, nothing committed (:meth:`~lorasched.pdftsp.mechanism.AuctionReplay.what_if`):
    ``task``, ``bid``, ``value``, ``admitted``, ``reason`` (one of :data:`REASONS`),
    ``surplus`` F(il) (eq. 10), ``critical_bid``, ``payment``, ``utility``, and the
    schedule's ``vendor``, ``nodes`` and ``slots`` (its cells, by slot). An infinite number
    (no feasible schedule) is None."""
    w = replay.what_if(task, bid)
    vendor = (None if w.vendor == INFEASIBLE else
              "none" if w.vendor == NO_VENDOR else str(int(w.vendor)))
    return {"task": w.task, "bid": w.bid, "value": w.value, "admitted": bool(w.admitted),
            "reason": w.reason, "surplus": _number(w.surplus),
            "critical_bid": _number(w.critical_bid), "payment": w.payment,
            "utility": w.utility, "vendor": vendor,
            "nodes": [int(k) for k in w.nodes], "slots": [int(t) for t in w.slots]}


def describe(o: dict) -> str:
    """An :func:`offer` in a few lines of plain text, the explorer's panel (the same text as
    :meth:`~lorasched.pdftsp.mechanism.WhatIf.describe`)."""
    surplus = -math.inf if o["surplus"] is None else o["surplus"]
    critical = math.inf if o["critical_bid"] is None else o["critical_bid"]
    lines = [f"task {o['task']}: value v = {o['value']:.4g}, bid b' = {o['bid']:.4g}",
             f"{'admitted' if o['admitted'] else 'rejected'} ({o['reason']}); "
             f"F(il) = {surplus:.4g}, critical bid = {critical:.4g}"]
    if o["vendor"] is not None:
        cells = ", ".join(f"({k},{t})" for k, t in zip(o["nodes"], o["slots"], strict=True))
        lines.append(f"schedule: vendor {o['vendor']}, {len(o['slots'])} cells (node,slot) "
                     f"{cells}")
    lines.append(f"payment = {o['payment']:.4g}, utility = {o['utility']:.4g}")
    return "\n".join(lines)


#: what an offer's outcome holds that its bid does not change
_BID_FREE = ("vendor", "nodes", "slots", "critical_bid")


def curve(replay: AuctionReplay, task: int, n: int = EXPLORER_POINTS) -> dict:
    """Task ``task`` offered at each of :func:`explorer_bids` (its utility curve), as lists
    over the bids: ``bids``, ``admitted``, ``reason`` (index into :data:`REASONS`),
    ``surplus``, ``payment``, ``utility``; and, the same at every bid, ``value``,
    ``critical_bid`` and the schedule (``nodes``, ``slots``)."""
    offers = [offer(replay, task, float(b)) for b in explorer_bids(replay, task, n)]
    first = offers[0]
    for o in offers:  # the schedule and the threshold do not depend on the bid
        if [o[k] for k in _BID_FREE] != [first[k] for k in _BID_FREE]:
            raise RuntimeError(f"task {task}'s schedule changed with its bid")
    return {"task": first["task"], "value": first["value"], "vendor": first["vendor"],
            "critical_bid": first["critical_bid"], "nodes": first["nodes"],
            "slots": first["slots"],
            "bids": [o["bid"] for o in offers],
            "admitted": [int(o["admitted"]) for o in offers],
            "reason": [REASONS.index(o["reason"]) for o in offers],
            "surplus": [o["surplus"] for o in offers],
            "payment": [o["payment"] for o in offers],
            "utility": [o["utility"] for o in offers]}


def dual_price_figure(replay: AuctionReplay, step: int, which: str = "lambda",
                      task: int | None = None) -> go.Figure:
    """:func:`~lorasched.plotting.pdftsp.dual_price_heatmap` of the prices after ``step``
    arrivals of ``replay``.

    The colour scale runs from 0 to the price's maximum at the end of the day, so that
    the prices can be compared across steps. With ``task``, its schedule (at its own bid,
    against the state before its arrival) is drawn over the map.
    """
    if which not in ("lambda", "phi"):
        raise InputError(f"which must be 'lambda' or 'phi', not {which!r}")
    at_step = replay.prices_after(step)
    top = float(replay.prices_after(replay.n_tasks)[which].max())
    w = replay.what_if(task) if task is not None else None
    return dual_price_heatmap(at_step, which, zmax=top if top > 0 else 1.0,
                              schedule=(w.nodes, w.slots) if w else None)


def utility_figure(replay: AuctionReplay, task: int, bids=None, n: int = EXPLORER_POINTS,
                   bid: float | None = None) -> go.Figure:
    """:func:`~lorasched.plotting.pdftsp.utility_vs_bid` of ``task`` (utility and payment
    against its bid, at ``bids``; default: the ``n`` bids of :func:`explorer_bids`). With
    ``bid``, a marker shows that bid's outcome."""
    if bids is None:
        bids = explorer_bids(replay, task, n)
    w = replay.what_if(task, bid) if bid is not None else None
    return utility_vs_bid(replay.utility_curve(task, bids),
                          chosen=(w.bid, w.utility) if w else None)


#: the explorer's figures, by name: the two price heatmaps and the utility curve
FIGURES = ("lam", "phi", "utility")


def explorer_figure(replay: AuctionReplay, name: str, *, step: int, task: int,
                    bid: float, width: int) -> go.Figure:
    """The explorer's figure ``name`` (one of :data:`FIGURES`) at the controls' values,
    for an explorer ``width`` px wide: the heatmaps half of it each, the utility curve 52 %
    (the panel beside it the rest)."""
    if name == "utility":
        fig = utility_figure(replay, task, bid=bid)
        # narrower than the notebook's: its legend takes two lines, so a taller margin
        return fig.update_layout(width=int(0.52 * width), height=420, margin={"t": 120})
    if name not in FIGURES:
        raise InputError(f"name must be one of {FIGURES}, got {name!r}")
    fig = dual_price_figure(replay, step, "lambda" if name == "lam" else "phi", task)
    return fig.update_layout(width=width // 2)


def _price_changes(replay: AuctionReplay) -> dict:
    """The prices after every arrival, as the cells each arrival changed: ``lambda`` and
    ``phi``, each a list over arrivals 1..n of ``[flat cell indices, new values]``
    (row-major node x slot), starting from :func:`prices` after 0 arrivals."""
    before = prices(replay, 0)
    changes: dict[str, list] = {"lambda": [], "phi": []}
    last = {w: np.asarray(before[w]) for w in changes}
    for step in range(1, replay.n_tasks + 1):
        now = prices(replay, step)
        for w in changes:
            z = np.asarray(now[w])
            cells = np.flatnonzero(z != last[w])
            changes[w].append([cells.tolist(), z.ravel()[cells].tolist()])
            last[w] = z
    return {"initial": before, "changes": changes}


def pdftsp_page(replay: AuctionReplay, *, step: int, task: int,
                n: int = EXPLORER_POINTS) -> dict:
    """Everything the static pdFTSP explorer draws, for every position of its controls:
    the prices after each arrival (:func:`_price_changes`), every task's :func:`curve`
    (``n`` bids each), the controls' first values (``step``, ``task``) and the explorer's
    ``figures`` at those values (:func:`explorer_figure`, as plotly JSON; the page replaces
    their data) with the hour at the middle of each slot (``slot_hours``)."""
    step, task = replay.check_step(step), replay.check_task(task)
    value = float(replay.arrays.bid[task])
    # (no progress bar: it takes seconds, and in a notebook tqdm's bar is a widget, whose
    # saved state would make the page load the widget manager from the network)
    tasks = [curve(replay, i, n) for i in range(replay.n_tasks)]
    figures = {name: explorer_figure(replay, name, step=step, task=task, bid=value,
                                     width=EXPLORER_WIDTH) for name in FIGURES}
    return {"n_tasks": replay.n_tasks, "step": step, "task": task,
            "slot_hours": np.asarray(figures["lam"].data[0].x, dtype=float).tolist(),
            "reasons": list(REASONS), "prices": _price_changes(replay), "tasks": tasks,
            "figures": {k: json.loads(f.to_json()) for k, f in figures.items()}}


# --------------------------------------------------------------------------- TITAN, Allpass


@dataclass(frozen=True)
class PolicyRun:
    """One policy of TITAN or Allpass on the explorer's small scenario: the run
    (``result``), a line of its numbers (``summary``) and its ``figures`` by name."""

    result: object
    summary: str
    figures: dict[str, go.Figure]


#: the explorer's small scenario of each system, its settings' defaults
SCENARIOS = {"titan": {"workload": "authors", "jobs": 24, "nodes": 2, "seed": 1},
             "allpass": {"source": "helios", "jobs": 60, "seed": 1}}


def policy_run(system: str, policy: str, **scenario) -> PolicyRun:
    """Run ``policy`` of ``system`` (``"titan"`` or ``"allpass"``) on the scenario
    ``scenario`` (:data:`SCENARIOS` fills what is not given); see :class:`PolicyRun`."""
    if system not in SCENARIOS:
        raise InputError(f"system must be one of {list(SCENARIOS)}, got {system!r}")
    if policy not in SYSTEMS[system].policies:
        raise InputError(f"policy must be one of {list(SYSTEMS[system].policies)}, "
                         f"got {policy!r}")
    unknown = set(scenario) - set(SCENARIOS[system])
    if unknown:
        raise InputError(f"unknown setting(s) {sorted(unknown)} of {system}'s scenario; "
                         f"known: {list(SCENARIOS[system])}")
    s = {**SCENARIOS[system], **scenario}
    if system == "titan":
        result = simulate(titan_scenario(**s), policy, seed=s["seed"])
        a = result.attrs
        summary = (f"{policy}: {a['n_jobs']} jobs ({a['n_merged_jobs']} merged into "
                   f"{a['n_units']} units): average JCT {a['avg_jct_h']:.3f} h, makespan "
                   f"{a['makespan_h']:.3f} h, {a['switch_h']:.3f} GPU-h spent switching "
                   "(start-ups, pipeline switches)")
        fig = titan_plots.gantt(result)
        fig.update_layout(title=f"{titan_plots.policy_name(policy)}: average JCT "
                                f"{a['avg_jct_h']:.3f} h")
        return PolicyRun(result, summary, {"timeline": fig})
    result = simulate(allpass_scenario(**s), policy, seed=s["seed"])
    a = result.attrs
    parts = ", ".join(f"{p} ${a[f'cost_{p}_usd']:.2f}"
                      for p in ("modal", "vast", "lambda") if f"cost_{p}_usd" in a)
    summary = (f"{policy}: cost ${a['cost_usd']:.2f} ({parts}); average JCT "
               f"{a['avg_jct_s'] / 60:.1f} min")
    jobs = allpass_plots.job_timeline(result)
    jobs.update_layout(title=f"{allpass_plots.policy_name(policy)}: cost ${a['cost_usd']:.2f}, "
                             "average JCT "
                             f"{a['avg_jct_s'] / 60:.1f} min")
    return PolicyRun(result, summary,
                     {"jobs_timeline": jobs,
                      "pressure": allpass_plots.timeline([(allpass_plots.policy_name(policy),
                                                           result)])})


def policy_page(system: str, *, width: int | None = None, **scenario) -> dict:
    """Every policy of ``system`` on the scenario (:func:`policy_run`): for the static
    page, ``policies`` (in the system's order) and, by policy, ``summary``, ``avg_jct``
    (hours for TITAN, minutes for Allpass), ``cost`` (Allpass, USD) and ``figures`` (plotly
    JSON, ``width`` px wide if given)."""
    runs = {}
    for policy in SYSTEMS[system].policies:
        run = policy_run(system, policy, **scenario)
        a = run.result.attrs
        runs[policy] = {
            "summary": run.summary,
            "avg_jct": a["avg_jct_h"] if system == "titan" else a["avg_jct_s"] / 60,
            "cost": a.get("cost_usd"),
            "figures": {k: json.loads((f.update_layout(width=width) if width else f)
                                      .to_json()) for k, f in run.figures.items()}}
    return {"system": system, "scenario": {**SCENARIOS[system], **scenario},
            "policies": list(runs), "runs": runs}
