"""The explorer as a web app served by Voilà (``lorasched explore``, :func:`serve`): one live
widget with a view per system (:func:`explore_app`). The views: :doc:`/reference/tools`.
"""

from __future__ import annotations

import html
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import ipywidgets as widgets
import plotly.graph_objects as go

from ..model.errors import InputError
from ..systems import SYSTEMS
from .data import EXPLORER_WIDTH, policy_run
from .widgets import Explorer, replace_figure, wrapping_row

#: the views of the app, in the toggle's order: value -> label
VIEWS = {"pdftsp": "pdFTSP", "titan": "TITAN", "allpass": "Allpass"}
DEFAULT_PORT = 8866  # Voilà's own default


def _dropdown(name: str, options, value, description: str) -> widgets.Dropdown:
    if value not in [o[1] if isinstance(o, tuple) else o for o in options]:
        raise InputError(f"{name} must be one of {list(options)}, got {value!r}")
    box = widgets.Dropdown(options=options, value=value, description=description)
    box.add_class(f"lorasched-{name}")
    return box


class _RunView(widgets.VBox):
    """A view that runs one small scenario with one policy whenever a control changes."""

    controls: tuple[str, ...] = ()

    def _setup(self, title: str, figures: tuple[str, ...]) -> None:
        self.summary = widgets.HTML()
        self.summary.add_class("lorasched-summary")
        self.figs = {}
        self._run()
        for name in figures:
            self.figs[name] = go.FigureWidget(self._sized(name))
            self.figs[name].add_class(f"lorasched-{name}")
        self._summarise()
        for name in self.controls:
            getattr(self, name).observe(self._on_change, names="value")
        super().__init__([widgets.HTML(f"<b>{title}</b>"),
                          wrapping_row([getattr(self, n) for n in self.controls]),
                          self.summary, *self.figs.values()])

    def _on_change(self, change) -> None:
        self._run()
        for name, fig in self.figs.items():
            replace_figure(fig, self._sized(name))
        self._summarise()

    def _sized(self, name: str) -> go.Figure:
        """Figure ``name`` of the run across the explorer's width (:data:`EXPLORER_WIDTH`)."""
        return go.Figure(self.run.figures[name]).update_layout(width=EXPLORER_WIDTH)

    @property
    def result(self):
        """The run's result (:func:`lorasched.simulate`)."""
        return self.run.result

    def _summarise(self) -> None:
        self.summary.value = html.escape(self.run.summary)

    def _run(self) -> None:  # pragma: no cover - every view defines it
        raise NotImplementedError


class TitanView(_RunView):
    """TITAN (SoCC'22) on a small cluster: ``jobs`` jobs of ``workload`` (TITAN's authors'
    FM-1 or Helios) on ``nodes`` x 4 GPUs, run by ``policy``; the timeline of the jobs
    (merged units; switches in red) and the average JCT."""

    controls = ("policy", "workload", "jobs", "seed")

    def __init__(self, *, policy: str = "titan", workload: str = "authors", jobs: int = 24,
                 nodes: int = 2, seed: int = 1):
        self._nodes = int(nodes)
        self.policy = _dropdown("policy", list(SYSTEMS["titan"].policies), policy, "policy")
        self.workload = _dropdown("workload", ["authors", "helios"], workload, "workload")
        self.jobs = _dropdown("jobs", sorted({12, 24, 48, int(jobs)}), int(jobs), "jobs")
        self.seed = _dropdown("seed", sorted(set(range(4)) | {int(seed)}), int(seed), "seed")
        self._setup(f"TITAN: jobs on {self._nodes} nodes x 4 GPUs", ("timeline",))

    def _run(self) -> None:
        self.run = policy_run("titan", self.policy.value, workload=self.workload.value,
                              jobs=self.jobs.value, nodes=self._nodes, seed=self.seed.value)


class AllpassView(_RunView):
    """Allpass (2025): ``jobs`` jobs from ``source`` across the serverless, marketplace
    and conventional clouds, run by ``policy``; the jobs' timeline, and the queue, the
    workers, F and the pressure p over time, with the dollar cost."""

    controls = ("policy", "source", "jobs", "seed")

    def __init__(self, *, policy: str = "allpass", source: str = "helios", jobs: int = 60,
                 seed: int = 1):
        self.policy = _dropdown("policy", list(SYSTEMS["allpass"].policies), policy,
                                "policy")
        self.source = _dropdown("source", ["helios", "mixture"], source, "jobs from")
        self.jobs = _dropdown("jobs", sorted({30, 60, 120, int(jobs)}), int(jobs), "jobs")
        self.seed = _dropdown("seed", sorted(set(range(4)) | {int(seed)}), int(seed), "seed")
        self._setup("Allpass: jobs across GPU clouds", ("jobs_timeline", "pressure"))

    def _run(self) -> None:
        self.run = policy_run("allpass", self.policy.value, source=self.source.value,
                              jobs=self.jobs.value, seed=self.seed.value)


class ExploreApp(widgets.VBox):
    """The app: a toggle over :data:`VIEWS`; ``views`` holds each view once built."""

    def __init__(self, system: str = "pdftsp", **pdftsp):
        if system not in VIEWS:
            raise InputError(f"system must be one of {list(VIEWS)}, got {system!r}")
        self._pdftsp = pdftsp
        self.views: dict[str, widgets.Widget] = {}
        self.system = widgets.ToggleButtons(options=[(v, k) for k, v in VIEWS.items()],
                                            value=system, description="system")
        self.system.add_class("lorasched-system")
        self.body = widgets.VBox([self._view(system)])
        self.system.observe(self._on_system, names="value")
        super().__init__([self.system, self.body])

    def _view(self, name: str) -> widgets.Widget:
        if name not in self.views:
            if name == "pdftsp":
                view = Explorer(**self._pdftsp)
            elif name == "titan":
                view = TitanView()
            else:
                view = AllpassView()
            view.add_class(f"lorasched-view-{name}")
            self.views[name] = view
        return self.views[name]

    def _on_system(self, change) -> None:
        self.body.children = [self._view(change["new"])]


def explore_app(system: str = "pdftsp", *, nodes: int = 6, load: float = 4.0,
                slots: int = 48, seed: int = 1) -> ExploreApp:
    """The app's widget (:class:`ExploreApp`), opened on ``system``; ``nodes``, ``load``,
    ``slots`` and ``seed`` set the pdFTSP explorer's first scenario
    (:func:`lorasched.explorer.widgets.explorer`)."""
    return ExploreApp(system, nodes=nodes, load=load, slots=slots, seed=seed)


# --------------------------------------------------------------------------- serving


def app_notebook(**params) -> dict:
    """The notebook Voilà serves: a title and one cell displaying
    ``explore_app(**params)`` (an nbformat 4 document as a dict)."""
    call = ", ".join(f"{k}={v!r}" for k, v in params.items())
    cells = [
        {"cell_type": "markdown", "id": "title", "metadata": {}, "source": [
            "# lorasched explorer\n",
            "Live views of the three systems: pick one above each view's controls. "
            "Every change runs the library in this page's kernel."]},
        {"cell_type": "code", "id": "app", "metadata": {}, "execution_count": None,
         "outputs": [],
         "source": ["import lorasched.explorer.app\n",
                    f"lorasched.explorer.app.explore_app({call})"]},
    ]
    return {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}}}


#: Voilà's "lab" template less the two Font Awesome style sheets it links from a CDN
#: (nothing here uses its icons; offline, each is a failed load and a console error)
TEMPLATE = "lorasched"
_FONT_AWESOME = ('<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/@fortawesome/'
                 'fontawesome-free@^5/css/{}.min.css" type="text/css" />')
_TEMPLATE_FILES = {
    "conf.json": json.dumps({"base_template": "lab"}),
    "index.html.j2": "{%- extends 'lab/index.html.j2' -%}\n"
                     "{%- block notebook_css -%}\n"
                     "{{ super() | replace('" + _FONT_AWESOME.format("all") + "', '')"
                     " | replace('" + _FONT_AWESOME.format("v4-shims") + "', '') }}\n"
                     "{%- endblock notebook_css -%}\n",
}


def write_template(folder: Path) -> Path:
    """Write the app's Voilà template under ``folder`` (a Jupyter data folder: add it to
    ``JUPYTER_PATH``); returns the template's own folder."""
    where = Path(folder) / "voila" / "templates" / TEMPLATE
    where.mkdir(parents=True, exist_ok=True)
    for name, text in _TEMPLATE_FILES.items():
        (where / name).write_text(text)
    return where


def free_port() -> int:
    """A TCP port free on the loopback interface now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def voila_command(notebook: Path, port: int) -> list[str]:
    """The Voilà command line serving ``notebook`` on ``127.0.0.1:port``."""
    return [sys.executable, "-m", "voila", str(notebook), f"--port={port}", "--no-browser",
            "--Voila.ip=127.0.0.1", "--show_tracebacks=True", f"--template={TEMPLATE}"]


def serve(notebook: str | Path | None = None, *, port: int = DEFAULT_PORT,
          system: str = "pdftsp", say=print, **params) -> int:
    """Serve ``notebook`` (default: :func:`app_notebook` of ``system`` and ``params``)
    with Voilà on ``http://127.0.0.1:port/`` (``port=0``: a free one) until interrupted;
    returns Voilà's exit status. ``say`` gets the line with the address."""
    if port == 0:
        port = free_port()
    if not 0 < port < 65536:
        raise InputError(f"port must be between 1 and 65535 (0: a free one), got {port}")
    with tempfile.TemporaryDirectory(prefix="lorasched-explore-") as tmp:
        if notebook is None:
            if system not in VIEWS:
                raise InputError(f"system must be one of {list(VIEWS)}, got {system!r}")
            notebook = Path(tmp) / "explore.ipynb"
            notebook.write_text(json.dumps(app_notebook(system=system, **params), indent=1))
        notebook = Path(notebook)
        if not notebook.is_file():
            raise InputError(f"notebook: no such file {str(notebook)!r}")
        write_template(tmp)
        # the kernel must be this Python (the python3 kernel spec runs `python`)
        env = {**os.environ,
               "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               "JUPYTER_PATH": os.pathsep.join(filter(None, [tmp, os.environ.get(
                   "JUPYTER_PATH")]))}
        proc = subprocess.Popen(voila_command(notebook, port), env=env)
        say(f"lorasched explore: serving {notebook.name} on http://127.0.0.1:{port}/ "
            "(Ctrl-C to stop)")

        def stop(signum, frame):
            proc.terminate()

        previous = signal.signal(signal.SIGTERM, stop)
        try:
            return proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            try:
                return proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                return proc.wait()
        finally:
            signal.signal(signal.SIGTERM, previous)
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
