"""A Sphinx extension: plotly.js only on the pages that draw with it.

The book loads ``_static/plotly.min.js`` (4.8 MB) through ``html_js_files``, and Jupyter
Book registers every ``_static/*.js`` besides, so Sphinx would put it in the ``<head>`` of
every page. Parsing it costs a browser about two CPU-seconds a page, on pages without a
figure too. This extension leaves the script out of a page whose body never calls plotly
(no ``Plotly.``: a figure's ``Plotly.newPlot``, the explorer's ``Plotly.react``), when the
page is written (the ``html-page-context`` event).
"""

from __future__ import annotations

#: the script left out, and what a page's body holds when it draws with it
SCRIPT = "plotly.min.js"
CALL = "Plotly."


def draws_with_plotly(body: str) -> bool:
    """Whether a page's body (its rendered HTML) calls plotly.js."""
    return CALL in body


def scripts_for(script_files: list, body: str) -> list:
    """``script_files`` (Sphinx's page context: the ``<script>`` tags of ``<head>``) less
    plotly.js where ``body`` does not draw with it."""
    if draws_with_plotly(body):
        return list(script_files)
    return [s for s in script_files
            if not str(getattr(s, "filename", s)).split("?")[0].endswith(SCRIPT)]


def _page_context(app, pagename, templatename, context, doctree) -> None:
    if "script_files" in context:
        context["script_files"] = scripts_for(context["script_files"], context.get("body", ""))


def setup(app):
    app.connect("html-page-context", _page_context)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
