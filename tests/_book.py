"""Building the book for the browser tests (test_book, test_publish): the toc's pages, a
notebook executed as `make book` executes it, and the book built like `make book` with
small parameters (the fixtures ``executed_notebook`` and ``built_book`` in conftest.py do
each once per test run, for every worker)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lorasched.figures import datafiles, publish

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
BOOK = ROOT / "book"


def toc_files(node) -> list[str]:
    """Every ``root``/``file`` entry of a Jupyter Book 1.x ``_toc.yml``, recursively."""
    found: list[str] = []
    if isinstance(node, dict):
        for key in ("root", "file"):
            if key in node:
                found.append(str(node[key]))
        for value in node.values():
            if isinstance(value, dict | list):
                found.extend(toc_files(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(toc_files(item))
    return found


def toc_pages() -> list[str]:
    """Every page the toc lists, as the built HTML's path relative to the site root."""
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    return [Path(entry).with_suffix(".html").as_posix() for entry in toc_files(toc)]


def toc_notebooks() -> list[str]:
    """The notebooks the toc lists, as ``notebooks/<name>`` (no suffix)."""
    return [Path(p).with_suffix("").as_posix() for p in toc_pages()
            if p.startswith("notebooks/")]


#: papermill's limit on one cell of a notebook (seconds): a hung cell fails its notebook
CELL_TIMEOUT = 600


def execute_notebook(name: str, dest: Path, data: Path) -> Path:
    """Execute ``<name>.ipynb`` (``notebooks/<stem>``) as `make book` does: papermill, the
    notebook's default parameters, from the repository root, each cell limited to
    :data:`CELL_TIMEOUT` seconds. The executed copy is ``dest/<name>.ipynb``; the figure
    pages write their data files under ``data`` (datafiles.DATA_ENV), not into the
    checkout. Raises papermill's error on a failing cell (the copy, with the error in its
    outputs, is written all the same)."""
    import papermill

    out = dest / f"{name}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    # the python3 kernel spec runs `python`, so the venv must come first on PATH (as in
    # the Makefile)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
        mp.setenv(datafiles.DATA_ENV, str(data))
        papermill.execute_notebook(str(ROOT / f"{name}.ipynb"), str(out),
                                   kernel_name="python3", cwd=str(ROOT),
                                   progress_bar=False, execution_timeout=CELL_TIMEOUT)
    return out


def build_site(dest: Path, executed: Path, data: Path) -> Path:
    """Build the book like `make book` from notebooks executed before.

    ``executed``: the folder holding ``notebooks/<stem>.ipynb`` for every notebook the toc
    lists (:func:`execute_notebook`); ``data``: where their figure pages wrote their data
    files. Returns the built site (``dest/_build/html``). Steps: copy the book sources and
    the executed notebooks; copy plotly.min.js into _static/; ``jupyter-book build -W -n
    --keep-going`` (which also copies MathJax 3 into the built _static/,
    sphinx-mathjax-offline); publish the figures' data files into the site.
    """
    import plotly

    # 1. the sources, without the build outputs of `make book`, and the lock beside them
    #    (the front page compares the installed versions with it: book/_ext/versions.py)
    shutil.copyfile(ROOT / "requirements.lock", dest.parent / "requirements.lock")
    shutil.copytree(
        BOOK,
        dest,
        ignore=lambda d, names: (
            ({"_build", "notebooks"} & set(names) if Path(d) == BOOK else set())
            | ({"plotly.min.js"} & set(names) if Path(d) == BOOK / "_static" else set())
        ),
    )
    # 2. the executed notebooks
    (dest / "notebooks").mkdir()
    for name in toc_notebooks():
        shutil.copyfile(executed / f"{name}.ipynb", dest / f"{name}.ipynb")
    # 3. plotly.js, loaded by every page from _static/ (html_js_files)
    (dest / "_static").mkdir(exist_ok=True)
    shutil.copyfile(
        Path(plotly.__file__).parent / "package_data" / "plotly.min.js",
        dest / "_static" / "plotly.min.js",
    )
    # 4. the build; warnings are errors. The API reference (book/api/) documents this
    #    checkout's lorasched, whichever the venv has installed.
    proc = subprocess.run(
        [str(BIN / "jupyter-book"), "build", str(dest), "-W", "-n", "--keep-going"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=1200,
    )
    output = f"{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}"
    assert proc.returncode == 0, f"jupyter-book build failed:\n{output}"
    # 5. the figures' data files and their SHA256SUMS into the site (as make book does)
    site = dest / "_build" / "html"
    publish.publish(data / "small", site)
    return site


def build_book(dest: Path) -> Path:
    """Build the book like `make book`, with each notebook's default parameters, in one
    process: every notebook the toc lists executed in turn (:func:`execute_notebook`), then
    :func:`build_site`. Returns the built site (``dest/_build/html``). (``make test`` shares
    the notebooks' one execution between the built book and the notebook checks instead:
    ``tests/conftest.py``.)"""
    executed, data = dest.parent / "executed", dest.parent / "figure-data"
    for name in toc_notebooks():
        execute_notebook(name, executed, data)
    return build_site(dest, executed, data)
