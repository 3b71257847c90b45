"""The explorer as a static page: what :mod:`.data` computes at every value of the
controls, embedded as JSON beside a small script (``static.js``) that draws it with the
page's plotly.js; no kernel, nothing fetched. See :doc:`/reference/tools`.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from itertools import count

from IPython.display import HTML, display
from plotly.utils import PlotlyJSONEncoder

from ..model.errors import InputError
from ..pdftsp.mechanism import AuctionReplay
from .data import EXPLORER_POINTS, SCENARIOS, pdftsp_page, policy_page

__all__ = ["SCRIPT", "embed", "pdftsp_html", "policy_html", "show"]

#: the page's script (``lorasched/explorer/static.js``)
SCRIPT = resources.files(__package__).joinpath("static.js").read_text(encoding="utf-8")
_ids = count()

_STYLE = """<style>
.lorasched-static .lse-controls {display: flex; flex-wrap: wrap; gap: 0.4em 1.2em;
  align-items: center; margin: 0.6em 0;}
.lorasched-static .lse-controls input[type=range] {width: min(28em, 60vw);}
.lorasched-static pre.lorasched-panel {white-space: pre-wrap; font-size: 0.85em;
  min-height: 6.5em;}
.lorasched-static .lse-figure {width: 100%; min-height: 300px;}
</style>"""


def embed(data: dict) -> str:
    """``data`` as the text of a ``<script type="application/json">`` element (JSON that
    cannot close the element early)."""
    text = json.dumps(data, cls=PlotlyJSONEncoder, separators=(",", ":"))
    return text.replace("</", "<\\/")


def _page(kind: str, data: dict, body: str) -> str:
    element = f"lorasched-static-{kind}-{next(_ids)}"
    return (f'{_STYLE}<div class="lorasched-static lorasched-static-{kind}" id="{element}">'
            f'{body}<script type="application/json" class="lorasched-data">{embed(data)}'
            f"</script></div><script>{SCRIPT}\nwindow.loraschedExplorer."
            f'{"pdftsp" if kind == "pdftsp" else "policies"}("{element}");</script>')


def pdftsp_html(replay: AuctionReplay, *, step: int, task: int,
                n: int = EXPLORER_POINTS) -> str:
    """The static pdFTSP explorer of ``replay`` (an HTML fragment): an arrivals control
    (0 .. all) over the two price heatmaps, a task picker and a bid control (``n`` bids
    from 0 to twice the task's value) over the offer's panel and its utility curve; first
    shown at ``step`` arrivals and task ``task`` at its own bid (:func:`.data.pdftsp_page`)."""
    data = pdftsp_page(replay, step=step, task=task, n=n)
    body = (
        '<div class="lse-controls"><label>arrivals <input type="range" '
        'class="lorasched-step" min="0" step="1"></label>'
        '<span class="lorasched-step-value"></span></div>'
        '<div class="lorasched-lam lse-figure plotly-graph-div"></div>'
        '<div class="lorasched-phi lse-figure plotly-graph-div"></div>'
        '<div class="lse-controls"><label>task <select class="lorasched-task"></select>'
        "</label><label>bid b' <input type=\"range\" class=\"lorasched-bid\" min=\"0\" "
        'step="1"></label><span class="lorasched-bid-value"></span></div>'
        '<pre class="lorasched-panel"></pre>'
        '<div class="lorasched-utility lse-figure plotly-graph-div"></div>')
    return _page("pdftsp", data, body)


def policy_html(system: str, **scenario) -> str:
    """The static view of ``system`` (``"titan"`` or ``"allpass"``): a policy picker over
    every policy of the system on the explorer's small scenario (:func:`.data.policy_page`),
    a line of the chosen run's numbers and its figures."""
    if system not in SCENARIOS:
        raise InputError(f"system must be one of {list(SCENARIOS)}, got {system!r}")
    data = policy_page(system, **scenario)
    first = data["runs"][data["policies"][0]]
    figures = "".join(f'<div class="lorasched-fig-{html.escape(name)} lse-figure '
                      'plotly-graph-div"></div>'
                      for name in first["figures"])
    body = ('<div class="lse-controls"><label>policy <select class="lorasched-policy">'
            f'</select></label><span>({len(data["policies"])} policies)</span></div>'
            '<p class="lorasched-summary"></p>' + figures)
    return _page(system, data, body)


def show(fragment: str) -> None:
    """Display an HTML ``fragment`` of this module in a notebook (its ``text/html``
    output, which the book shows as it is)."""
    display(HTML(fragment))
