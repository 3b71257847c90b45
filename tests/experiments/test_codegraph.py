"""The import graph and the per-system code fingerprints behind cell keys: one system's
change recomputes only its own cells, a shared layer's change recomputes all of them, and
presentation never enters a key. Proved on a copy of the package, edited as a developer
would."""

from __future__ import annotations

import shutil
import textwrap

import pytest

from lorasched.experiments import codegraph, grid

SYSTEMS = ("pdftsp", "titan", "allpass")


def _fingerprints(root) -> dict[str, str]:
    # code_fingerprint is cached per (system, root): each edit below gets a fresh root
    return {s: grid.code_fingerprint(s, root) for s in SYSTEMS}


def _fresh(tmp_path, name: str = "copy"):
    """A copy of the package's source under ``tmp_path``."""
    root = tmp_path / name / "lorasched"
    shutil.copytree(codegraph.PACKAGE_ROOT, root,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return root


@pytest.fixture
def copy(tmp_path):
    """The package's fingerprints (those of an unedited copy:
    :func:`test_the_copy_has_the_package_fingerprints`), and a function that edits a module
    of a fresh copy and returns that copy's fingerprints."""
    def edited(module: str) -> dict[str, str]:
        root = _fresh(tmp_path)
        with (root / module).open("a") as fh:
            fh.write("\n\ndef _appended_by_the_test():\n    return 1\n")
        return _fingerprints(root)

    return {s: grid.code_fingerprint(s) for s in SYSTEMS}, edited


def test_the_copy_has_the_package_fingerprints(tmp_path):
    before = _fingerprints(_fresh(tmp_path))
    assert before == {s: grid.code_fingerprint(s) for s in SYSTEMS}
    assert len(set(before.values())) == 3


@pytest.mark.slow
@pytest.mark.parametrize("system", SYSTEMS)
def test_a_change_in_one_system_recomputes_only_its_cells(copy, system):
    before, edited = copy
    module = {"pdftsp": "pdftsp/kernels.py", "titan": "titan/milp.py",
              "allpass": "allpass/scalers.py"}[system]
    after = edited(module)
    assert after[system] != before[system]
    assert {s: after[s] for s in SYSTEMS if s != system} == {
        s: before[s] for s in SYSTEMS if s != system}


@pytest.mark.slow
@pytest.mark.parametrize("module", ["model/system.py", "experiments/runner.py"])
def test_a_change_in_a_shared_layer_recomputes_every_system(copy, module):
    before, edited = copy
    after = edited(module)
    assert all(after[s] != before[s] for s in SYSTEMS)


@pytest.mark.slow
@pytest.mark.parametrize("module", ["experiments/executor.py", "experiments/store.py",
                                    "experiments/kept.py", "experiments/sweep.py"])
def test_how_cells_are_run_and_stored_never_enters_a_key(copy, module):
    """Only the cell runner's code stands for what a cell computes: the orchestration
    around it (serial or Dask, the store, kept results' format) recomputes no cell."""
    before, edited = copy
    assert edited(module) == before


def test_lp_is_shared_by_the_systems_that_solve_lps(copy):
    before, edited = copy
    after = edited("lp/master.py")
    assert after["pdftsp"] != before["pdftsp"] and after["titan"] != before["titan"]
    assert after["allpass"] == before["allpass"]  # allpass solves no LP


@pytest.mark.slow
@pytest.mark.parametrize("module", ["figures/base.py", "plotting/pdftsp.py", "explorer/app.py",
                                    "bench/scale.py", "cli/__init__.py", "cli/simulate.py",
                                    "figures/pdftsp/fig04.py"])
def test_presentation_never_enters_a_key(copy, module):
    before, edited = copy
    assert edited(module) == before


def test_the_code_that_judges_claims_is_fingerprinted_with_its_presentation(tmp_path):
    """A ledger is made again when the rules that judge the claims change: its fingerprint
    takes the presentation layers (the figures) that the cells' keys leave out."""
    root = _fresh(tmp_path)
    files = list(root.rglob("*.py"))
    before = codegraph.fingerprint(files, root, presentation=True)
    cells = codegraph.fingerprint(files, root)
    with (root / "figures" / "causes.py").open("a") as fh:
        fh.write("\n\nSTRICT = True\n")
    assert codegraph.fingerprint(files, root, presentation=True) != before
    assert codegraph.fingerprint(files, root) == cells


@pytest.mark.parametrize("module", ["experiments/progress.py", "experiments/sweep.py"])
def test_the_progress_bar_and_the_sweeps_around_the_runner_never_enter_a_key(copy, module):
    """What forecasts the cells' time, shows progress or starts the workers cannot change a
    number: editing it keeps every finished (and shipped) cell."""
    before, edited = copy
    assert edited(module) == before


def test_documentation_and_comments_do_not_change_a_key(tmp_path):
    base = 'def f(x):\n    """Doc."""\n    return x + 1  # one\n'
    same = 'def f(x):\n    """Other words."""\n\n    return x + 1  # another comment\n'
    other = 'def f(x):\n    """Doc."""\n    return x + 2\n'
    assert codegraph.code_text(base) == codegraph.code_text(same) != codegraph.code_text(other)
    assert codegraph.code_text('"""Only a docstring."""\n') == codegraph.code_text("")


def _package(tmp_path, files: dict[str, str]):
    root = tmp_path / "pkg" / "lorasched"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_reachable_follows_each_form_of_import(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "from .a import main\n",
        "a/__init__.py": "",
        "a/main.py": "from . import helper\nfrom ..b import tools\nfrom ..c.deep import f\n"
                     "import lorasched.d\n",
        "a/helper.py": "import numpy\n",
        "a/unused.py": "from ..e import x\n",
        "b/__init__.py": "", "b/tools.py": "", "b/other.py": "",
        "c/__init__.py": "from .x import y\n", "c/x.py": "", "c/deep.py": "def f(): pass\n",
        "d.py": "", "e.py": "",
    })
    found = {str(p.relative_to(root)) for p in codegraph.reachable(["a.main"], root)}
    assert found == {"a/main.py", "a/helper.py", "b/__init__.py", "b/tools.py",
                     "c/deep.py", "d.py"}
    # a package imported by name is reached through its __init__, which is followed
    assert {str(p.relative_to(root)) for p in codegraph.reachable(["c"], root)} == {
        "c/__init__.py", "c/x.py"}
