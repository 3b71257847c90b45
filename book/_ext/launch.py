"""A Sphinx extension: launch buttons (Binder, JupyterHub, Colab) only with a repository.

sphinx-book-theme builds a notebook page's launch links from the repository URL
(``repository.url`` in _config.yml, the ``repository_url`` theme option); with a launch
service named but an empty URL, it fails the build on the first notebook page. So while
_config.yml names no repository, this extension turns every launch service off when Sphinx
has read the configuration, and no button is shown; with a URL, the buttons are left on.
"""

from __future__ import annotations

from collections.abc import Mapping

#: the ``launch_buttons`` keys that each turn a button on (sphinx-book-theme's
#: header_buttons/launch.py), and their value when off
SERVICES = {"binderhub_url": "", "jupyterhub_url": "", "colab_url": "", "deepnote_url": "",
            "jupyterlite_url": "", "thebe": False}


def launch_buttons(theme_options: Mapping) -> dict:
    """The theme options' ``launch_buttons`` as the book shows them: as configured when
    ``theme_options`` name a ``repository_url``, every service off when they name none."""
    buttons = dict(theme_options.get("launch_buttons") or {})
    if theme_options.get("repository_url"):
        return buttons
    return {**buttons, **SERVICES}


def _config_inited(app, config) -> None:
    options = dict(config.html_theme_options or {})
    if "launch_buttons" in options:
        options["launch_buttons"] = launch_buttons(options)
        config.html_theme_options = options


def setup(app):
    app.connect("config-inited", _config_inited)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
