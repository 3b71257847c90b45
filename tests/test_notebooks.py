"""Every notebook under nbval's rules (``--nbval-lax``), cell by cell, on the one execution
that the built book uses (``executed_notebook`` in conftest.py): each code cell runs
without an exception, and a cell tagged ``nbval-check-output`` shows the outputs stored in
the notebook, compared by nbval's own code with the sanitising patterns of
``tests/nbval_sanitize.cfg``. The cells of one notebook are one xdist group, so that one
worker runs them while the other runs another notebook.

``pytest --nbval-lax --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
notebooks/`` runs the same checks with nbval executing each notebook itself.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import nbformat
import pytest
from nbval import plugin

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
#: nbval's own list of what it never compares (``IPyNbFile.skip_compare`` without nbdime)
SKIP_COMPARE = ("metadata", "traceback", "prompt_number", "output_type", "name",
                "execution_count", "application/vnd.jupyter.widget-view+json", "image/png",
                "image/jpeg")


def _code_cells(path: Path) -> list:
    return [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def _options(cell) -> defaultdict:
    """nbval's options for a cell: its tags and comment markers, in lax mode."""
    options = defaultdict(bool, plugin.find_metadata_tags(cell.metadata))
    options.update(dict(plugin.find_comment_markers(cell.source)))
    options.setdefault("check", False)  # --nbval-lax: only the tagged cells are compared
    return options


class _Compare:
    """nbval's comparison of a cell's outputs with the stored ones (``IPyNbCell``'s own
    methods, on this object in place of a collected notebook cell)."""

    compare_outputs = plugin.IPyNbCell.compare_outputs
    format_output_compare = plugin.IPyNbCell.format_output_compare
    sanitize_outputs = plugin.IPyNbCell.sanitize_outputs
    sanitize = plugin.IPyNbCell.sanitize

    def __init__(self, config, patterns: dict):
        self.config, self.ihook = config, config.hook  # pytest's own comparison report
        self.parent = type("File", (), {"skip_compare": SKIP_COMPARE,
                                        "sanitize_patterns": patterns})()
        self.colors = plugin.nocolors
        self.comparison_traceback: list[str] = []


def check_cell(stored, ran, config, patterns: dict, earlier: list) -> None:
    """nbval's verdict on one code cell (``IPyNbCell.runtest`` after execution): ``stored``
    the cell as the notebook keeps it, ``ran`` the same cell executed, ``earlier`` the
    executed cells before it (a cell never reached because one of them raised fails)."""
    options = _options(stored)
    if options["skip"]:
        pytest.skip("tagged nbval-skip")
    errors = [o for o in ran.get("outputs", []) if o.get("output_type") == "error"]
    if errors and not options["check_exception"]:
        error = errors[0]
        pytest.fail("Cell execution caused an exception:\n"
                    + plugin._indent(stored.source) + "\n"
                    + "\n".join(error.get("traceback", [])), pytrace=False)
    if ran.get("execution_count") is None:
        stopped = [i for i, c in enumerate(earlier)
                   if any(o.get("output_type") == "error" for o in c.get("outputs", []))]
        pytest.fail(f"the cell was not run: Cell {stopped[0] if stopped else '?'} raised "
                    "before it", pytrace=False)
    if stored.execution_count is None and stored.outputs:
        pytest.fail("Unrun reference cell has outputs", pytrace=False)
    if options["check"] and stored.execution_count is not None:
        compare = _Compare(config, patterns)
        outs = plugin.coalesce_streams([nbformat.from_dict(o) for o in ran.outputs])
        if not compare.compare_outputs(outs, plugin.coalesce_streams(stored.outputs)):
            pytest.fail("Cell outputs differ:\n" + plugin._indent(stored.source) + "\n"
                        + "\n".join(compare.comparison_traceback), pytrace=False)


CELLS = [pytest.param(path.stem, i, id=f"{path.name}::Cell {i}",
                      marks=[pytest.mark.xdist_group(f"notebook-{path.stem}"),
                             pytest.mark.slow])
         for path in NOTEBOOKS for i in range(len(_code_cells(path)))]


@pytest.fixture(scope="module")
def patterns() -> dict:
    return dict(plugin.get_sanitize_patterns(SANITIZE.read_text()))


@pytest.mark.parametrize("stem, index", CELLS)
def test_cell(stem, index, executed_notebook, patterns, pytestconfig):
    stored = _code_cells(ROOT / "notebooks" / f"{stem}.ipynb")
    ran = _code_cells(executed_notebook(f"notebooks/{stem}"))
    assert len(ran) == len(stored), "the executed copy has other code cells"
    check_cell(stored[index], ran[index], pytestconfig, patterns, ran[:index])


# --------------------------------------------------------------------------- the check fails


def _cell(source: str, outputs: list, tags=(), count=1):
    return nbformat.v4.new_code_cell(source, metadata={"tags": list(tags)},
                                     execution_count=count,
                                     outputs=[nbformat.from_dict(o) for o in outputs])


def _text(text: str) -> dict:
    return {"output_type": "execute_result", "execution_count": 1, "metadata": {},
            "data": {"text/plain": text}}


CHECKED = ("nbval-check-output",)


@pytest.mark.parametrize("stored, ran, earlier, message", [
    (_cell("x", [_text("41")], CHECKED), _cell("x", [_text("42")]), [],
     "Cell outputs differ"),
    (_cell("x", [_text("41")], CHECKED), _cell("x", []), [], "Cell outputs differ"),
    (_cell("1/0", []), _cell("1/0", [{"output_type": "error", "ename": "ZeroDivisionError",
                                       "evalue": "division by zero",
                                       "traceback": ["ZeroDivisionError"]}]), [],
     "caused an exception"),
    (_cell("y", []), _cell("y", [], count=None),
     [_cell("1/0", [{"output_type": "error", "ename": "E", "evalue": "", "traceback": []}])],
     "not run: Cell 0 raised"),
])
def test_the_cell_check_fails_as_nbval_does(stored, ran, earlier, message, pytestconfig):
    with pytest.raises(pytest.fail.Exception, match=message):
        check_cell(stored, ran, pytestconfig, {}, earlier)


def test_the_cell_check_passes_what_nbval_lax_passes(pytestconfig):
    patterns = dict(plugin.get_sanitize_patterns(SANITIZE.read_text()))
    # an untagged cell's outputs are not compared; a tagged one's after sanitising
    check_cell(_cell("x", [_text("41")]), _cell("x", [_text("42")]), pytestconfig,
               patterns, [])
    check_cell(_cell("f", [_text("<f at 0x7f00aa>")], CHECKED),
               _cell("f", [_text("<f at 0x55bbcc>")]), pytestconfig, patterns, [])
    # a stream split in two messages is the stream stored in one
    stream = {"output_type": "stream", "name": "stdout"}
    check_cell(_cell("p", [stream | {"text": "a\nb\n"}], CHECKED),
               _cell("p", [stream | {"text": "a\n"}, stream | {"text": "b\n"}]),
               pytestconfig, patterns, [])
