"""Sphinx extension: the versions the book was built with, on its front page.

The directive

    ```{lorasched-versions}
    ```

becomes a table of Python's version and the installed versions (importlib.metadata) of the
key packages, beside the versions requirements.lock pins, and a sentence saying whether they
all match the lock or naming every mismatch ("built with numpy 2.4.6, the lock says
2.4.5"). A mismatch is stated, not warned about: the build runs with warnings as errors.
Registered in _config.yml (`sphinx: local_extensions`); the lock is read from the
`lorasched_lock` setting, by default requirements.lock beside the book's folder.
"""

from __future__ import annotations

import platform
import re
from importlib import metadata
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

# The packages the book's pages are made with, as their distributions are named.
KEY_PACKAGES = (
    "numpy",
    "numba",
    "xarray",
    "plotly",
    "highspy",
    "dask",
    "ipywidgets",
    "anywidget",
    "voila",
    "papermill",
    "jupyter-book",
    "sphinx",
)

# The Python the lock is compiled for (`make lock`: --python-version 3.11).
LOCK_PYTHON = "3.11"

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def normalise(name: str) -> str:
    """A distribution name as PEP 503 normalises it."""
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_pins(lock_text: str) -> dict[str, str]:
    """{normalised name: version} of every `name==version` line of a requirements lock."""
    pins = {}
    for line in lock_text.splitlines():
        match = PIN.match(line.strip())
        if match:
            pins[normalise(match[1])] = match[2]
    return pins


def installed_versions(packages=KEY_PACKAGES) -> dict[str, str | None]:
    """{name: installed version, or None if it is not installed}."""
    versions = {}
    for name in packages:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def version_rows(
    lock_text: str | None,
    installed: dict[str, str | None] | None = None,
    python: str | None = None,
    packages=KEY_PACKAGES,
) -> tuple[list[tuple[str, str, str]], list[str]]:
    """The table's rows (name, built with, lock) and the mismatches, as sentences.

    lock_text: the lock's text, or None if there is none (then nothing is compared);
    installed: {name: version or None}, by default what is installed; python: the Python
    version, by default this interpreter's. The lock pins Python's minor version only.
    """
    installed = installed_versions(packages) if installed is None else installed
    python = platform.python_version() if python is None else python
    pins = lock_pins(lock_text) if lock_text is not None else {}
    rows = [("Python", python, f"{LOCK_PYTHON}.*" if lock_text is not None else "")]
    mismatches = []
    if lock_text is not None and python.split(".")[:2] != LOCK_PYTHON.split("."):
        mismatches.append(f"built with Python {python}, the lock is for Python {LOCK_PYTHON}")
    for name in packages:
        version = installed.get(name)
        locked = pins.get(normalise(name))
        rows.append((name, version or "not installed", locked or ""))
        if lock_text is None or version == locked:
            continue
        if locked is None:
            mismatches.append(f"built with {name} {version}, which the lock does not pin")
        elif version is None:
            mismatches.append(f"built without {name}, the lock says {locked}")
        else:
            mismatches.append(f"built with {name} {version}, the lock says {locked}")
    return rows, mismatches


def summary(lock_name: str, lock_found: bool, mismatches: list[str]) -> str:
    """The sentence under the table."""
    if not lock_found:
        return f"{lock_name} was not found, so these versions were not compared with it."
    if not mismatches:
        return f"Every one of these is the version {lock_name} pins."
    return f"Not as {lock_name} pins: " + "; ".join(mismatches) + "."


def _table(rows: list[tuple[str, str, str]], lock_name: str) -> nodes.table:
    header = ("Package", "Built with", lock_name)
    table = nodes.table(classes=["lorasched-versions"])
    group = nodes.tgroup(cols=len(header))
    table += group
    for width in (2, 2, 2):
        group += nodes.colspec(colwidth=width)

    def row(cells):
        entries = nodes.row()
        for text in cells:
            entry = nodes.entry()
            entry += nodes.paragraph(text=text)
            entries += entry
        return entries

    head = nodes.thead()
    head += row(header)
    body = nodes.tbody()
    for cells in rows:
        body += row(cells)
    group += head
    group += body
    return table


class VersionsDirective(SphinxDirective):
    """`{lorasched-versions}`: the table and the sentence; no arguments, no content."""

    has_content = False

    def run(self):
        default = Path(self.env.srcdir).parent / "requirements.lock"
        lock = Path(self.config.lorasched_lock or default)
        lock_text = None
        if lock.is_file():
            lock_text = lock.read_text(encoding="utf-8")
            self.env.note_dependency(str(lock))
        self.env.lorasched_versions_docs.add(self.env.docname)
        rows, mismatches = version_rows(lock_text)
        paragraph = nodes.paragraph(text=summary(lock.name, lock_text is not None, mismatches))
        return [_table(rows, lock.name), paragraph]


def _init_env(app, env, docnames):
    if not hasattr(env, "lorasched_versions_docs"):
        env.lorasched_versions_docs = set()


def _purge(app, env, docname):
    getattr(env, "lorasched_versions_docs", set()).discard(docname)


def _merge(app, env, docnames, other):
    env.lorasched_versions_docs |= getattr(other, "lorasched_versions_docs", set()) & set(docnames)


def _outdated(app, env, added, changed, removed):
    # the installed versions may have changed since the last build: read the page again
    return sorted(getattr(env, "lorasched_versions_docs", set()) - set(removed))


def setup(app):
    app.add_config_value("lorasched_lock", "", "env")
    app.add_directive("lorasched-versions", VersionsDirective)
    app.connect("env-before-read-docs", _init_env)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-get-outdated", _outdated)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
