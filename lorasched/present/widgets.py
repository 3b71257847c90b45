"""An interactive explorer of the online auction (ipywidgets), and its static snapshots.

The logic is a pure, testable core, :class:`AuctionReplay`: it offers a scenario's tasks,
in arrival order, to one :class:`~lorasched.auction.OnlineAuction` (pdFTSP, Algorithm 1)
and keeps snapshots of the state, so that

* :meth:`AuctionReplay.state_after` gives the dual prices ``lam[k, t]`` (lambda, eq. 7),
  ``phi[k, t]`` (eq. 8) and the residual capacities after the first ``j`` arrivals, and
* :meth:`AuctionReplay.what_if` offers task ``j`` at another bid against the state just
  before it arrives (the snapshot is restored; nothing is committed) and returns a
  :class:`WhatIf`: admitted iff ``F(il) > 0`` (eq. 11), the schedule, the payment and the
  bidder's utility ``v_i - p_i`` (0 if rejected), with ``v_i`` the task's bid in the
  scenario (bidders are truthful there).

:func:`utility_curve` sweeps the bid of one task over a grid. Static figures (plain
:class:`plotly.graph_objects.Figure`, to display with :func:`lorasched.plots.show`):
:func:`dual_price_figure` and :func:`utility_figure`. The live widget is
:func:`explorer`; it needs a running kernel, so a statically built page shows the static
figures instead (see ``notebooks/explorer.ipynb``).
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go
import xarray as xr

from ..pdftsp.auction import Decision, OnlineAuction, declared_bounds, default_alpha_beta
from ..pdftsp.scenario import to_arrays
from ..pdftsp.schedule import INFEASIBLE, NO_VENDOR
from ..pdftsp.workload import synthetic_scenario
from .plots import _heatmap

__all__ = [
    "AuctionReplay",
    "Explorer",
    "WhatIf",
    "dual_price_figure",
    "explorer",
    "interactive_frontend",
    "utility_curve",
    "utility_figure",
]

#: bytes of snapshots an :class:`AuctionReplay` keeps at most when it picks the spacing
SNAPSHOT_BUDGET = 64 * 2**20

_DUALS = {"lambda": ("lam", "compute price λ<sub>kt</sub> (per sample)", "λ"),
          "phi": ("phi", "memory price φ<sub>kt</sub> (per GB)", "φ")}


@dataclass(frozen=True)
class WhatIf:
    """The auction's answer to one task offered at one bid (nothing committed)."""

    task: int
    bid: float  # the bid b' offered
    value: float  # v_i: the task's true value, its bid in the scenario
    admitted: bool
    reason: str  # "admitted", "no_feasible_schedule" or "negative_surplus"
    vendor: int  # n* of the schedule; NO_VENDOR without pre-processing; INFEASIBLE
    nodes: np.ndarray  # the schedule's cells (k, t) by slot ...
    slots: np.ndarray  # ... whether or not the task is admitted
    surplus: float  # F(il) at this bid, eq. (10); -inf when infeasible
    critical_bid: float  # smallest winning bid q_in* + cost (12); inf when infeasible
    payment: float  # p_i, 0 unless admitted
    utility: float  # v_i - p_i if admitted, else 0

    def describe(self) -> str:
        """A few lines of plain text: decision, schedule, payment, utility."""
        lines = [f"task {self.task}: value v = {self.value:.4g}, bid b' = {self.bid:.4g}",
                 f"{'admitted' if self.admitted else 'rejected'} ({self.reason}); "
                 f"F(il) = {self.surplus:.4g}, critical bid = {self.critical_bid:.4g}"]
        if self.vendor != INFEASIBLE:
            vendor = "none" if self.vendor == NO_VENDOR else str(self.vendor)
            cells = ", ".join(f"({k},{t})" for k, t in zip(self.nodes, self.slots,
                                                            strict=True))
            lines.append(f"schedule: vendor {vendor}, {len(self.slots)} cells (node,slot) "
                         f"{cells}")
        lines.append(f"payment = {self.payment:.4g}, utility = {self.utility:.4g}")
        return "\n".join(lines)


def _check_int(name: str, value, low: int, high: int) -> int:
    """``value`` as an int in ``low..high`` (inclusive), or a ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} {value} out of range {low}..{high}")
    return int(value)


def _check_bid(bid) -> float:
    try:
        b = float(bid)
    except (TypeError, ValueError):
        raise ValueError(f"bid must be a finite number >= 0, got {bid!r}") from None
    if not math.isfinite(b) or b < 0:
        raise ValueError(f"bid must be a finite number >= 0, got {bid!r}")
    return b


class AuctionReplay:
    """pdFTSP replayed over a scenario, with the state after every arrival at hand.

    Parameters
    ----------
    scenario : a scenario ``xarray.Dataset`` (see :mod:`lorasched.scenario`).
    alpha, beta : the constants of eqs. (7)-(8); default, as in pdFTSP,
        :func:`~lorasched.auction.default_alpha_beta` of the declared bounds.
    payment : ``"critical"`` (truthful, default) or ``"paper"`` (eq. 14).
    solver, work_resolution : passed to :class:`~lorasched.auction.OnlineAuction`.
    snapshot_every : keep the state every this many arrivals (others are recomputed from
        the nearest earlier one); default: every arrival, unless that would take more
        than :data:`SNAPSHOT_BUDGET` bytes.

    Tasks are offered in index order, as :func:`lorasched.algorithms.pdftsp.run` does
    (scenarios list tasks by arrival), so after ``j`` arrivals tasks ``0..j-1`` have been
    decided; ``decisions[j]`` is what the auction decided for task ``j``.
    """

    def __init__(self, scenario: xr.Dataset, *, alpha: float | None = None,
                 beta: float | None = None, payment: str = "critical", solver: str = "paper",
                 work_resolution: int = 8, snapshot_every: int | None = None):
        self.scenario = scenario
        self.arrays = to_arrays(scenario)
        if alpha is None or beta is None:
            a0, b0 = default_alpha_beta(self.arrays,
                                        *declared_bounds(dict(scenario.attrs), self.arrays))
            alpha = a0 if alpha is None else alpha
            beta = b0 if beta is None else beta
        self.auction = OnlineAuction(self.arrays, alpha=alpha, beta=beta, payment=payment,
                                     solver=solver, work_resolution=work_resolution)
        n = self.n_tasks
        if snapshot_every is None:
            one = sum(v.nbytes for v in self.auction.snapshot().values())
            snapshot_every = max(1, math.ceil((n + 1) * one / SNAPSHOT_BUDGET))
        self.snapshot_every = _check_int("snapshot_every", snapshot_every, 1, max(1, n))
        self._snapshots: dict[int, dict[str, np.ndarray]] = {}
        self.decisions: list[Decision] = []
        for j in range(n):
            if j % self.snapshot_every == 0:
                self._snapshots[j] = self.auction.snapshot()
            self.decisions.append(self.auction.offer(j))
        self._snapshots[n] = self.auction.snapshot()
        self._final = self._snapshots[n]

    @property
    def n_tasks(self) -> int:
        return self.arrays.n_tasks

    def _check_task(self, task) -> int:
        return _check_int("task", task, 0, self.n_tasks - 1)

    def state_after(self, step: int) -> dict[str, np.ndarray]:
        """Copies of ``lam``, ``phi``, ``compute_left``, ``memory_left`` after the first
        ``step`` arrivals (``step`` in ``0..n_tasks``; 0 is the initial state)."""
        step = _check_int("step", step, 0, self.n_tasks)
        base = step - step % self.snapshot_every
        if step in self._snapshots:
            base = step
        self.auction.restore(self._snapshots[base])
        for j in range(base, step):
            self.auction.offer(j)  # deterministic: the same decisions as the replay
        state = self.auction.snapshot()
        self.auction.restore(self._final)
        return state

    def what_if(self, task: int, bid: float | None = None) -> WhatIf:
        """Task ``task`` offered at ``bid`` (default: its own) against the state just before
        it arrives; commits nothing."""
        task = self._check_task(task)
        value = float(self.arrays.bid[task])
        bid = value if bid is None else _check_bid(bid)
        self.auction.restore(self.state_after(task))
        try:
            d = self.auction.offer(task, bid)
        finally:
            self.auction.restore(self._final)
        s = d.schedule
        return WhatIf(task=task, bid=bid, value=value, admitted=d.admitted, reason=d.reason,
                      vendor=s.vendor, nodes=np.asarray(s.nodes), slots=np.asarray(s.slots),
                      surplus=float(s.surplus),
                      critical_bid=float(s.critical_bid) if s.feasible else math.inf,
                      payment=float(d.payment),
                      utility=value - float(d.payment) if d.admitted else 0.0)

    def pick_task(self, start: int = 0) -> int:
        """The first task from ``start`` on that was admitted (else ``start``): one whose
        utility curve has an admission threshold to look at."""
        start = self._check_task(start)
        for j in range(start, self.n_tasks):
            if self.decisions[j].admitted:
                return j
        return start


def _bid_grid(replay: AuctionReplay, task: int, bids, n: int) -> np.ndarray:
    if bids is None:
        v = float(replay.arrays.bid[task])
        bids = np.linspace(0.0, 2.0 * v if v > 0 else 1.0, n)
    bids = np.asarray(bids, dtype=float).ravel()
    for b in bids:
        _check_bid(b)
    return bids


def utility_curve(replay: AuctionReplay, task: int, bids=None, n: int = 101) -> dict:
    """Utility, payment and admission of ``task`` for each bid of a grid.

    ``bids`` defaults to ``n`` points from 0 to twice the task's value. Each point is a
    :meth:`AuctionReplay.what_if`. Returns a dict of arrays ``bid``, ``utility``,
    ``payment``, ``admitted`` and the scalars ``task``, ``value``, ``critical_bid``.
    """
    task = replay._check_task(task)
    grid = _bid_grid(replay, task, bids, n)
    answers = [replay.what_if(task, b) for b in grid]
    truthful = replay.what_if(task)
    return {"task": task, "value": truthful.value, "critical_bid": truthful.critical_bid,
            "bid": grid,
            "utility": np.array([w.utility for w in answers]),
            "payment": np.array([w.payment for w in answers]),
            "admitted": np.array([w.admitted for w in answers], dtype=bool)}


# --------------------------------------------------------------------------- figures


def _dual_z(state: dict[str, np.ndarray], which: str) -> np.ndarray:
    if which not in _DUALS:
        raise ValueError(f"which must be 'lambda' or 'phi', not {which!r}")
    return state[_DUALS[which][0]]


def _slot_hours(replay: AuctionReplay, slots: np.ndarray) -> np.ndarray:
    minutes = float(replay.scenario.attrs.get("slot_minutes", 10))
    return (np.asarray(slots, dtype=float) + 0.5) * minutes / 60.0


def dual_price_figure(replay: AuctionReplay, step: int, which: str = "lambda",
                      task: int | None = None) -> go.Figure:
    """Node x slot heatmap of ``lambda`` (eq. 7) or ``phi`` (eq. 8) after ``step`` arrivals.

    The colour scale runs from 0 to the price's maximum at the end of the day, so that
    the prices can be compared across steps. With ``task``, its schedule (at its own bid,
    against the state before its arrival) is drawn over the map.
    """
    z = _dual_z(replay.state_after(step), which)
    top = float(_dual_z(replay._final, which).max())
    _, name, bar = _DUALS[which]
    fig = _heatmap(replay.scenario, z, title=f"{name[0].upper()}{name[1:]} after {step} "
                   f"of {replay.n_tasks} arrivals", colorbar_title=bar, zmin=0.0,
                   zmax=top if top > 0 else 1.0, colorscale="Magma")
    w = replay.what_if(task) if task is not None else None
    fig.add_scatter(x=_slot_hours(replay, w.slots) if w else [],
                    y=w.nodes if w else [], mode="markers", name="schedule of the task",
                    marker={"symbol": "square-open", "size": 9, "color": "#2a9d8f",
                            "line": {"width": 2}},
                    hovertemplate="node %{y}<br>hour %{x:.2f}<extra>schedule</extra>",
                    showlegend=False)
    return fig


def utility_figure(replay: AuctionReplay, task: int, bids=None, n: int = 101,
                   bid: float | None = None) -> go.Figure:
    """The utility ``v_i - p_i`` (0 if rejected) and payment of ``task`` against its bid.

    Dotted lines mark the truthful bid ``b = v_i`` and the admission threshold (the
    critical bid q_in* + cost (12), at which ``F(il)`` turns positive, eq. 11). With
    ``bid``, a marker shows that bid's outcome.
    """
    c = utility_curve(replay, task, bids, n)
    fig = go.Figure()
    fig.add_scatter(x=c["bid"], y=c["utility"], mode="lines", name="utility v - p",
                    line={"color": "#2a9d8f", "shape": "hv"})
    fig.add_scatter(x=c["bid"], y=c["payment"], mode="lines", name="payment p",
                    line={"color": "#6c757d", "dash": "dash", "shape": "hv"})
    w = replay.what_if(task, bid) if bid is not None else None
    fig.add_scatter(x=[w.bid] if w else [], y=[w.utility] if w else [], mode="markers",
                    name="chosen bid", marker={"size": 11, "color": "#e76f51"})
    fig.add_vline(x=c["value"], line={"dash": "dot", "color": "#264653"},
                  annotation_text="truthful bid b = v", annotation_position="top left")
    if math.isfinite(c["critical_bid"]):
        fig.add_vline(x=c["critical_bid"], line={"dash": "dot", "color": "#e76f51"},
                      annotation_text="critical bid", annotation_position="bottom right")
    fig.update_layout(title=f"Task {c['task']}: utility against its bid "
                      f"({replay.auction.payment_rule} payment)", height=380,
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0},
                      margin={"l": 60, "r": 20, "t": 80, "b": 50})
    fig.update_xaxes(title_text="bid b'")
    fig.update_yaxes(title_text="money")
    return fig


# --------------------------------------------------------------------------- the widget


def interactive_frontend() -> bool:
    """Whether this code runs in a kernel driven by an interactive frontend.

    Headless runners (papermill, ``nbconvert --execute``, nbval: all nbclient-based) send
    ``execute_request`` with ``allow_stdin=False``; JupyterLab, Notebook and VS Code allow
    ``input()``. A notebook uses this to create live widgets only for a person: widgets
    created during a headless run are saved as widget state in the notebook, and Jupyter
    Book then loads require.js and the widget manager from a CDN, which breaks the
    offline plotly figures of the page.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return False
    kernel = getattr(get_ipython(), "kernel", None)
    return bool(getattr(kernel, "_allow_stdin", False))


def _figure_widget(fig: go.Figure):
    """``(figure to update, widget showing it)``: a plotly ``FigureWidget`` (updated in
    place) when anywidget is installed, else the figure redrawn in an ``Output``."""
    try:
        live = go.FigureWidget(fig)
    except ImportError:  # plotly >= 6 needs anywidget for FigureWidget
        out = widgets.Output()
        return fig, out
    return live, live


class Explorer(widgets.VBox):
    """The live explorer, an ipywidgets ``VBox`` (see :func:`explorer`).

    The controls are ``nodes``, ``load``, ``seed``
    (rebuild the scenario), ``step`` (arrivals replayed), ``task`` and ``bid``; the
    figures ``lam_fig``, ``phi_fig`` and ``utility_fig`` are updated in place.
    """

    def __init__(self, scenario: xr.Dataset | None = None, *, nodes: int = 6,
                 load: float = 4.0, slots: int = 48, seed: int = 1, step: int | None = None,
                 task: int | None = None, payment: str = "critical"):
        if scenario is not None:
            nodes, slots = scenario.sizes["node"], scenario.sizes["slot"]
        self._slots, self._payment = int(slots), payment
        self.nodes = widgets.Dropdown(options=sorted({4, 6, 8, 12, int(nodes)}), value=nodes,
                                      description="nodes")
        self.load = widgets.Dropdown(options=sorted({2.0, 4.0, 8.0, float(load)}),
                                     value=float(load), description="arrivals/slot")
        self.seed = widgets.Dropdown(options=sorted(set(range(6)) | {int(seed)}),
                                     value=int(seed), description="seed")
        self.step = widgets.IntSlider(description="arrivals", min=0, max=1,
                                      continuous_update=False)
        self.task = widgets.BoundedIntText(description="task", min=0, max=0)
        self.bid = widgets.FloatSlider(description="bid b'", min=0.0, max=1.0,
                                       continuous_update=False, readout_format=".4g")
        self.panel = widgets.HTML()
        self._figs: dict[str, tuple] = {}
        self._replay(scenario if scenario is not None else self._scenario())
        for name in ("lam", "phi", "utility"):
            self._figs[name] = _figure_widget(self._make(name))
        self._set_ranges(step, task)
        self._draw_all()
        for control in (self.nodes, self.load, self.seed):
            control.observe(self._on_scenario, names="value")
        self.step.observe(self._on_step, names="value")
        self.task.observe(self._on_task, names="value")
        self.bid.observe(self._on_bid, names="value")
        super().__init__([
            widgets.HTML("<b>Scenario</b>"),
            widgets.HBox([self.nodes, self.load, self.seed]),
            widgets.HTML("<b>Dual prices after the first arrivals</b> (eqs. 7-8)"),
            self.step,
            widgets.HBox([self._figs["lam"][1], self._figs["phi"][1]]),
            widgets.HTML("<b>One task at another bid</b> (against the prices just before "
                         "it arrives; nothing is committed)"),
            widgets.HBox([self.task, self.bid]),
            widgets.HBox([self.panel, self._figs["utility"][1]]),
        ])

    # -- state
    def _scenario(self) -> xr.Dataset:
        return synthetic_scenario(nodes=self.nodes.value, load=self.load.value,
                                  slots=self._slots, seed=self.seed.value)

    def _replay(self, scenario: xr.Dataset) -> None:
        self.replay = AuctionReplay(scenario, payment=self._payment)

    def _set_ranges(self, step: int | None, task: int | None) -> None:
        n = self.replay.n_tasks
        self.step.max = n
        self.step.value = n // 2 if step is None else _check_int("step", step, 0, n)
        self.task.max = n - 1
        self.task.value = (self.replay.pick_task(min(self.step.value, n - 1)) if task is None
                           else self.replay._check_task(task))
        self._set_bid_range()

    def _set_bid_range(self) -> None:
        v = float(self.replay.arrays.bid[self.task.value])
        top = 2.0 * v if v > 0 else 1.0
        self.bid.max = max(top, self.bid.min)
        self.bid.step = top / 200.0
        self.bid.value = v

    # -- figures
    def _make(self, name: str) -> go.Figure:
        if name == "utility":
            return utility_figure(self.replay, self.task.value, bid=self.bid.value)
        which = "lambda" if name == "lam" else "phi"
        return dual_price_figure(self.replay, self.step.value, which, self.task.value)

    @property
    def lam_fig(self):
        return self._figs["lam"][0]

    @property
    def phi_fig(self):
        return self._figs["phi"][0]

    @property
    def utility_fig(self):
        return self._figs["utility"][0]

    def _copy(self, name: str) -> None:
        """Copy a freshly built figure into the displayed one, in place."""
        target, view = self._figs[name]
        new = self._make(name)
        with target.batch_update():
            for old, fresh in zip(target.data, new.data, strict=True):
                props = fresh.to_plotly_json()
                props.pop("type", None)
                old.update(props, overwrite=True)
            target.layout = new.layout
        self._redraw(target, view)

    @staticmethod
    def _redraw(target, view) -> None:
        if view is target:  # a FigureWidget syncs itself
            return
        from .plots import show

        view.clear_output(wait=True)
        with view:
            show(target)

    def _draw_all(self) -> None:
        for name in ("lam", "phi", "utility"):
            self._copy(name)
        self._draw_panel()

    def _draw_panel(self) -> None:
        w = self.replay.what_if(self.task.value, self.bid.value)
        self.panel.value = "<pre>" + html.escape(w.describe()) + "</pre>"

    # -- observers
    def _on_scenario(self, change) -> None:
        self._replay(self._scenario())
        self._set_ranges(None, None)
        self._draw_all()

    def _on_step(self, change) -> None:
        self._copy("lam")
        self._copy("phi")

    def _on_task(self, change) -> None:
        self._set_bid_range()  # triggers _on_bid
        self._on_step(change)
        self._copy("utility")
        self._draw_panel()

    def _on_bid(self, change) -> None:
        target, view = self._figs["utility"]
        w = self.replay.what_if(self.task.value, self.bid.value)
        target.data[2].x, target.data[2].y = [w.bid], [w.utility]
        self._redraw(target, view)
        self._draw_panel()

    def __repr__(self) -> str:
        """The ``text/plain`` form, shown where widgets are not rendered."""
        return ("Live explorer of pdFTSP (ipywidgets): run this notebook in Jupyter to use "
                "it.")

    @property
    def ui(self) -> widgets.VBox:
        """The container itself (kept for symmetry with the figures' accessors)."""
        return self


def explorer(scenario: xr.Dataset | None = None, *, nodes: int = 6, load: float = 4.0,
             slots: int = 48, seed: int = 1, step: int | None = None,
             task: int | None = None, payment: str = "critical") -> Explorer:
    """The live explorer of pdFTSP: scenario dropdowns (``nodes``, ``load``: mean arrivals
    per slot, ``seed``), a slider over arrivals with heatmaps of ``lambda[k, t]`` and
    ``phi[k, t]``, and a task with a bid slider showing admission, schedule, payment and
    utility. ``scenario`` (optional) is shown first; the dropdowns then build synthetic
    ones of ``slots`` slots. The returned :class:`Explorer` is an ipywidgets ``VBox``.
    """
    return Explorer(scenario, nodes=nodes, load=load, slots=slots, seed=seed, step=step,
                    task=task, payment=payment)
