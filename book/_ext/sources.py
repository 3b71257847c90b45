"""A Sphinx extension: the executed notebooks the site offers for download (``_sources/``)
name no path of the machine that built them.

papermill records where it read and wrote a notebook (``metadata.papermill.input_path``
and ``output_path``: absolute paths of the build machine, e.g. ``/home/me/lorasched/
notebooks/fig08_load.ipynb``) and Sphinx copies the executed notebook into the site as it
is. After the build, each of them keeps its folder and name only (``notebooks/
fig08_load.ipynb``); nothing else changes. ``make publish`` (.ci/publish.py) refuses a
site that names a local path.
"""

from __future__ import annotations

import json
from pathlib import Path, PurePath

PATH_KEYS = ("input_path", "output_path")


def relative(path: str) -> str:
    """``path``'s last folder and file name."""
    parts = PurePath(path).parts
    return "/".join(parts[-2:])


def scrub(text: str) -> str | None:
    """The notebook ``text`` with papermill's paths made relative, or None if it names
    none."""
    nb = json.loads(text)
    meta = nb.get("metadata", {}).get("papermill", {})
    changed = False
    for key in PATH_KEYS:
        value = meta.get(key)
        if isinstance(value, str) and PurePath(value).is_absolute():
            meta[key] = relative(value)
            changed = True
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n" if changed else None


def _build_finished(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for path in Path(app.outdir, "_sources").rglob("*.ipynb"):
        text = scrub(path.read_text(encoding="utf-8"))
        if text is not None:
            path.write_text(text, encoding="utf-8")


def setup(app):
    app.connect("build-finished", _build_finished)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
