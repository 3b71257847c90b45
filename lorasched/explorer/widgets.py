"""An interactive explorer of the online auction (ipywidgets, :func:`explorer`) over
:class:`~lorasched.pdftsp.mechanism.AuctionReplay`, drawing what :mod:`.data` computes at
its controls' values; see :doc:`/reference/tools`.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import plotly.graph_objects as go
import xarray as xr

from ..model.errors import InputError
from ..pdftsp.mechanism import AuctionReplay, WhatIf
from ..pdftsp.workload import synthetic_scenario
from .data import (
    EXPLORER_POINTS,
    EXPLORER_WIDTH,
    describe,
    dual_price_figure,
    explorer_figure,
    offer,
    utility_figure,
)

__all__ = [
    "AuctionReplay",
    "Explorer",
    "WhatIf",
    "dual_price_figure",
    "explorer",
    "interactive_frontend",
    "replace_figure",
    "utility_curve",
    "utility_figure",
]


def utility_curve(replay: AuctionReplay, task: int, bids=None,
                  n: int = EXPLORER_POINTS) -> xr.Dataset:
    """``replay.utility_curve(task, bids, n=n)`` (:meth:`AuctionReplay.utility_curve`)."""
    return replay.utility_curve(task, bids, n=n)


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


def wrapping_row(children, **layout) -> widgets.HBox:
    """An ``HBox`` whose children wrap onto the next line where the row is too narrow."""
    return widgets.HBox(children, layout=widgets.Layout(flex_flow="row wrap", **layout))


def replace_figure(target: go.FigureWidget, new: go.Figure) -> None:
    """Show ``new`` in the live figure ``target``, in place: traces are updated where
    their number and types agree (the browser then restyles them), else replaced."""
    same = (len(target.data) == len(new.data)
            and all(a.type == b.type for a, b in zip(target.data, new.data, strict=True)))
    if not same:
        target.data = ()
        target.add_traces(list(new.data))
    with target.batch_update():
        if same:
            for old, fresh in zip(target.data, new.data, strict=True):
                props = fresh.to_plotly_json()
                props.pop("type", None)
                old.update(props, overwrite=True)
        target.layout = new.layout


class Explorer(widgets.VBox):
    """The live explorer, an ipywidgets ``VBox`` (see :func:`explorer`).

    The controls are ``nodes``, ``load``, ``seed``
    (rebuild the scenario), ``step`` (arrivals replayed), ``task`` and ``bid``; the
    figures ``lam_fig``, ``phi_fig`` and ``utility_fig`` are updated in place.
    """

    def __init__(self, scenario: xr.Dataset | None = None, *, nodes: int = 6,
                 load: float = 4.0, slots: int = 48, seed: int = 1, step: int | None = None,
                 task: int | None = None, payment: str = "critical",
                 width: int = EXPLORER_WIDTH):
        if scenario is not None:
            nodes, slots = scenario.sizes["node"], scenario.sizes["slot"]
        self._slots, self._payment = int(slots), payment
        if isinstance(width, bool) or not isinstance(width, int) or width < 400:
            raise InputError(f"width must be a whole number of px >= 400, got {width!r}")
        self._width = width
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
        # the panel takes what the utility figure leaves of the row (at least 320 px)
        self.panel = widgets.HTML(layout=widgets.Layout(flex="1 1 320px", min_width="320px"))
        for name in ("nodes", "load", "seed", "step", "task", "bid", "panel"):
            getattr(self, name).add_class(f"lorasched-{name}")  # for the browser test
        self._figs: dict[str, go.FigureWidget] = {}
        self._replay(scenario if scenario is not None else self._scenario())
        self._set_ranges(step, task)
        for name in ("lam", "phi", "utility"):
            # a plotly FigureWidget (an anywidget), updated in place by the observers. It
            # is built from the first state: changes made before the browser shows it are
            # not sent (plotly sends them as messages, which a view not yet made misses).
            self._figs[name] = go.FigureWidget(self._make(name))
            self._figs[name].add_class(f"lorasched-{name}")
        self._draw_panel()
        self._prices = wrapping_row([self._figs["lam"], self._figs["phi"]])
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
            self._prices,
            widgets.HTML("<b>One task at another bid</b> (against the prices just before "
                         "it arrives; nothing is committed)"),
            widgets.HBox([self.task, self.bid]),
            wrapping_row([self.panel, self._figs["utility"]]),
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
        self.step.value = n // 2 if step is None else self.replay.check_step(step)
        self.task.max = n - 1
        self.task.value = (self.replay.pick_task(min(self.step.value, n - 1)) if task is None
                           else self.replay.check_task(task))
        self._set_bid_range()

    def _set_bid_range(self) -> None:
        v = float(self.replay.arrays.bid[self.task.value])
        top = 2.0 * v if v > 0 else 1.0
        self.bid.max = max(top, self.bid.min)
        self.bid.step = top / 200.0
        self.bid.value = v

    # -- figures
    def _make(self, name: str) -> go.Figure:
        """Figure ``name`` at the controls' values (:func:`.data.explorer_figure`)."""
        return explorer_figure(self.replay, name, step=self.step.value, task=self.task.value,
                               bid=self.bid.value, width=self._width)

    @property
    def lam_fig(self) -> go.FigureWidget:
        return self._figs["lam"]

    @property
    def phi_fig(self) -> go.FigureWidget:
        return self._figs["phi"]

    @property
    def utility_fig(self) -> go.FigureWidget:
        return self._figs["utility"]

    def _copy(self, name: str) -> None:
        """Show a freshly built figure. The utility plot is updated in place; the two price
        heatmaps are replaced by new widgets (their data travel as the new widget's state,
        not as update messages: under load a browser was seen to keep an older heatmap
        after a burst of in-place updates)."""
        if name == "utility":
            replace_figure(self._figs[name], self._make(name))
            return
        old = self._figs[name]
        self._figs[name] = go.FigureWidget(self._make(name))
        self._figs[name].add_class(f"lorasched-{name}")
        self._prices.children = (self._figs["lam"], self._figs["phi"])
        old.close()

    def _draw_all(self) -> None:
        for name in ("lam", "phi", "utility"):
            self._copy(name)
        self._draw_panel()

    def _draw_panel(self, o: dict | None = None) -> None:
        """The panel's text: offer ``o`` (default: the controls', :func:`.data.offer`)."""
        if o is None:
            o = offer(self.replay, self.task.value, self.bid.value)
        self.panel.value = "<pre>" + html.escape(describe(o)) + "</pre>"

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
        o = offer(self.replay, self.task.value, self.bid.value)
        marker = next(t for t in self.utility_fig.data if t.name == "chosen bid")
        marker.x, marker.y = [o["bid"]], [o["utility"]]
        self._draw_panel(o)

    def __repr__(self) -> str:
        """The ``text/plain`` form, shown where widgets are not rendered."""
        return ("Live explorer of pdFTSP (ipywidgets): run this notebook in Jupyter to use "
                "it.")


def explorer(scenario: xr.Dataset | None = None, *, nodes: int = 6, load: float = 4.0,
             slots: int = 48, seed: int = 1, step: int | None = None,
             task: int | None = None, payment: str = "critical",
             width: int = EXPLORER_WIDTH) -> Explorer:
    """The live explorer of pdFTSP: scenario dropdowns (``nodes``, ``load``: mean arrivals
    per slot, ``seed``), a slider over arrivals with heatmaps of ``lambda[k, t]`` and
    ``phi[k, t]``, and a task with a bid slider showing admission, schedule, payment and
    utility. ``scenario`` (optional) is shown first; the dropdowns then build synthetic
    ones of ``slots`` slots. ``width`` (px, :data:`EXPLORER_WIDTH`) is what its figures
    add up to across. The returned :class:`Explorer` is an ipywidgets ``VBox``.
    """
    return Explorer(scenario, nodes=nodes, load=load, slots=slots, seed=seed, step=step,
                    task=task, payment=payment, width=width)
