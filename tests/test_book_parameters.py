"""The parameters a page of the book shows are the ones it ran with: book/_ext/injected.py
folds papermill's injected-parameters cell into the page's own parameters cell (and leaves
the injected cell out), checked on its own and on every notebook as `make book` hands it
to papermill (the Makefile's parameters, injected by papermill itself)."""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml
from _book import BOOK, ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _extension():
    spec = importlib.util.spec_from_file_location("injected", BOOK / "_ext" / "injected.py")
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    return ext


def _as_sphinx_reads(text: str) -> str:
    """The notebook ``text`` as the extension hands it on to MyST-NB: through the handler
    it connects to Sphinx's ``source-read`` event, as Sphinx calls it."""
    handlers = {}

    class App:
        class env:
            @staticmethod
            def doc2path(docname):
                return Path(f"{docname}.ipynb")

        @staticmethod
        def connect(event, handler):
            handlers[event] = handler

    _extension().setup(App)
    source = [text]
    handlers["source-read"](App, "notebooks/page", source)
    return source[0]


def _shown(nb: dict) -> list[dict]:
    """The cells a page shows (MyST-NB leaves out those tagged remove-cell)."""
    return [c for c in nb["cells"] if "remove-cell" not in c["metadata"].get("tags", [])]


def _parameters_shown(nb: dict) -> dict:
    """What the page's shown parameter cells (its own, and papermill's where shown) set,
    run in their order."""
    names: dict = {}
    for cell in _shown(nb):
        tags = cell["metadata"].get("tags", [])
        if "parameters" in tags or "injected-parameters" in tags:
            source = cell["source"]
            exec("".join(source) if isinstance(source, list) else source, {}, names)
    return names


def _cell(source: str, *tags: str) -> dict:
    return {"cell_type": "code", "source": source, "metadata": {"tags": list(tags)},
            "outputs": [], "execution_count": None}


def _notebook(*cells: dict) -> str:
    return json.dumps({"cells": list(cells), "metadata": {}, "nbformat": 4,
                       "nbformat_minor": 5})


def test_the_injected_values_are_folded_into_the_page_s_parameters_cell():
    """Each injected value replaces the line that set it, marked, with the value it
    replaces (a value left as it was says only that it was injected); a name the cell did
    not set is added; the injected cell is tagged remove-cell; every other cell is as it
    was."""
    own = ('size = "small"  # "full": the paper\'s setting (make book)\n'
           "seeds = None  # seeds per setting\n"
           "grid = [1,\n        2]\n"
           "seed = 1")
    injected = '# Parameters\nsize = "full"\ngrid = [1, 2, 3]\nseed = 1\nextra = "x"\n'
    text = _notebook(_cell(own, "parameters", "hide-cell"),
                     _cell(injected, "injected-parameters"),
                     {"cell_type": "markdown", "source": "# Fig. 1", "metadata": {}})
    nb = json.loads(_as_sphinx_reads(text))
    assert [c["metadata"].get("tags") for c in nb["cells"]] == [
        ["parameters", "hide-cell"], ["injected-parameters", "remove-cell"], None]
    note = "injected by papermill (make book)"
    assert nb["cells"][0]["source"] == (
        f'size = "full"  # {note}; default "small"\n'
        "seeds = None  # seeds per setting\n"
        f"grid = [1, 2, 3]  # {note}; default [1, 2]\n"
        f"seed = 1  # {note}\n"
        f'extra = "x"  # {note}')
    assert nb["cells"][1]["source"] == injected and nb["cells"][2]["source"] == "# Fig. 1"
    assert _parameters_shown(nb) == {"size": "full", "seeds": None, "grid": [1, 2, 3],
                                     "seed": 1, "extra": "x"}
    assert _extension().fold_injected(json.dumps(nb)) is None  # folded already


def test_an_injected_cell_that_cannot_be_folded_is_shown_and_others_left_alone():
    ext = _extension()
    odd = _notebook(_cell('size = "small"', "parameters"),
                    _cell("size <- 'full'", "injected-parameters"))  # not Python
    alone = _notebook(_cell('size = "full"', "injected-parameters"))  # no parameters cell
    plain = _notebook(_cell('size = "small"', "parameters"))  # nothing injected
    for text in (odd, alone, plain):
        assert ext.fold_injected(text) is None
        assert _as_sphinx_reads(text) == text
    assert ext.fold_injected("# Title\n\nnot a notebook") is None
    config = yaml.safe_load((BOOK / "_config.yml").read_text())["sphinx"]
    assert config["local_extensions"]["injected"] == "_ext"
    assert "injected" in config["config"]["extensions"]


def _makefile_parameters(stem: str, size: str = "full") -> dict:
    """The parameters `make book` (``SIZE=size``) gives papermill for ``notebooks/
    <stem>.ipynb``, read from the Makefile: ``PARAMS_<stem>_<size>`` if set, else ``-p
    size <size>`` for the notebooks its ``params`` filter names, else none."""
    from papermill.cli import _resolve_type  # how papermill's -p reads a value

    makefile = (ROOT / "Makefile").read_text()
    own = re.search(rf"^PARAMS_{stem}_{size} :?= (.*)$", makefile, re.M)
    if own:
        words = own.group(1).split()
        assert words[::3] == ["-p"] * (len(words) // 3) and len(words) % 3 == 0, words
        return {k: _resolve_type(v) for k, v in zip(words[1::3], words[2::3], strict=True)}
    patterns = re.search(r"^params = .*\$\(filter ([^,]+),\$\(1\)\),-p size \$\(SIZE\)",
                         makefile, re.M)
    assert patterns, "the Makefile's params rule is not as this test reads it"
    names = [p.replace("%", "*") for p in patterns.group(1).split()]
    return {"size": size} if any(fnmatch.fnmatch(stem, n) for n in names) else {}


def test_the_makefile_s_parameters_are_read_as_make_book_passes_them():
    assert _makefile_parameters("day") == {"nodes": 100, "load": "high", "seed": 1,
                                           "size": "full"}
    assert _makefile_parameters("fig04_scale") == {"size": "full"}
    assert _makefile_parameters("headline_titan", "small") == {"size": "small"}
    assert _makefile_parameters("explorer") == {}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_each_page_shows_the_parameters_make_book_runs_it_with(path: Path, tmp_path):
    """Every notebook given its `make book` parameters by papermill itself (injected as
    when it runs, not executed: ``prepare_only``), then read as Sphinx reads it: the
    parameter cells the page shows set what papermill injected. (Before, the page showed
    its own ``size = "small"`` for a book run at ``size = "full"``.)"""
    import papermill

    parameters = _makefile_parameters(path.stem)
    if not parameters:
        pytest.skip("`make book` runs it with its own parameters")
    out = tmp_path / path.name
    papermill.execute_notebook(str(path), str(out), parameters=parameters,
                               prepare_only=True, kernel_name="python3", progress_bar=False)
    ran = json.loads(out.read_text())
    assert ran["metadata"]["papermill"]["parameters"] == parameters
    shown = _parameters_shown(json.loads(_as_sphinx_reads(out.read_text())))
    assert {k: shown.get(k, "(not shown)") for k in parameters} == parameters
