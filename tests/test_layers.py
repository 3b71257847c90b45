"""The architecture, enforced: imports only go downward, none hides inside a function, and
the generic engines name no system. The import graph is the library's own
(:mod:`lorasched.experiments.codegraph`, which the cell keys follow too).

Layers, bottom to top (a module may import from its own layer's package or any lower
layer; the system packages may not import each other):
model < lp < jobsim < {pdftsp, titan, allpass} < plugins < systems < gym < experiments
< figures < plotting < suite < explorer < service < bench < profiling < cli (the command
line's package) and the package's public face (``lorasched/__init__.py``).
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

import lorasched
from lorasched.experiments import codegraph

ROOT = Path(lorasched.__file__).resolve().parent
SYSTEM_PACKAGES = ("pdftsp", "titan", "allpass")
LAYERS = [("model",), ("lp",), ("jobsim",), SYSTEM_PACKAGES, ("plugins",), ("systems",),
          ("gym",), ("experiments",), ("figures",), ("plotting",), ("suite",), ("explorer",),
          ("service",), ("bench",), ("profiling",),
          ("cli", "__main__", "__init__")]
#: modules that must not name a system: the experiment engine, the LP engine, the plug-in
#: contract and the loader of plug-in policies, the form of a system's flags and the
#: command that reads them (jobsim may cite the papers whose queue definitions it implements)
GENERIC = ("experiments", "lp", "plugins.py", "model/system.py", "model/flags.py",
           "cli/simulate.py")
#: what counts as naming a system (its registry name, and the baselines' names, which
#: belong to pdFTSP's paper)
SYSTEM_WORDS = re.compile(r"pdftsp|titan|allpass|\beft\b|\bntm\b", re.IGNORECASE)


def _top(parts: tuple[str, ...]) -> str:
    """The first component under the package: a sub-package or a module name."""
    return parts[0] if parts else "__init__"


def _rank(top: str) -> int:
    for i, layer in enumerate(LAYERS):
        if top in layer:
            return i
    raise AssertionError(f"lorasched/{top} is in no layer: add it to LAYERS in this test")


def violations(root: Path, package: str = "lorasched") -> list[str]:
    """Every upward import, sibling-system import and function-level import of the
    package under ``root``, as readable lines."""
    found = []
    for path in sorted(root.rglob("*.py")):
        here = codegraph.module_parts(path, root)
        rank = _rank(_top(here) if here else "__init__")
        reported = set()  # "from ..x import m" reaches x and x.m: one finding per statement
        for node, target, nested in codegraph.imports(path, root, package):
            where = f"{path.relative_to(root)}:{node.lineno}"
            if (id(node), _top(target)) in reported:
                continue
            reported.add((id(node), _top(target)))
            if nested:
                found.append(f"{where}: imports {'.'.join(target) or package} inside "
                             "a function")
                continue
            if here and target[:1] == here[:1]:
                continue  # within its own sub-package
            top = _top(target)
            target_rank = _rank(top)
            if target_rank > rank:
                found.append(f"{where}: imports {'.'.join(target) or package} from a "
                             "higher layer")
            elif target_rank == rank and top != _top(here) and rank == 3:
                found.append(f"{where}: system {_top(here)} imports system {top}")
    return found


def test_imports_only_go_downward_and_none_hide_in_functions():
    assert violations(ROOT) == []


def test_the_generic_engines_name_no_system():
    offenders = []
    for entry in GENERIC:
        paths = [ROOT / entry] if entry.endswith(".py") else sorted((ROOT / entry).rglob("*.py"))
        assert paths and all(p.is_file() for p in paths), f"{entry} is missing"
        for path in paths:
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if SYSTEM_WORDS.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []


def test_every_subpackage_and_module_is_in_a_layer():
    tops = {p.name if p.is_dir() else p.stem for p in ROOT.iterdir()
            if (p.is_dir() and (p / "__init__.py").is_file()) or p.suffix == ".py"}
    for top in tops:
        _rank(top)


@pytest.mark.parametrize("module, source, expected", [
    ("model/bad.py", "from ..pdftsp import kernels\n", "from a higher layer"),
    ("model/bad.py", "from ..experiments.grid import cells\n", "from a higher layer"),
    ("pdftsp/bad.py", "from .. import __version__\n", "from a higher layer"),
    ("pdftsp/bad.py", "import lorasched.figures\n", "from a higher layer"),
    ("pdftsp/bad.py", "def f():\n    from . import kernels\n", "inside a function"),
    ("titan/bad.py", "from ..pdftsp import kernels\n", "imports system pdftsp"),
    ("experiments/bad.py", "def f():\n    from ..model import traces\n",
     "inside a function"),
])
def test_the_checker_finds_each_kind_of_violation(tmp_path, module, source, expected):
    root = tmp_path / "lorasched"
    for pkg in ("model", "pdftsp", "titan", "experiments", "figures"):
        (root / pkg).mkdir(parents=True)
        (root / pkg / "__init__.py").write_text("")
        (root / pkg / "kernels.py").write_text("")
    (root / "__init__.py").write_text("__version__ = '0'\n")
    (root / module).write_text(textwrap.dedent(source))
    found = violations(root)
    assert len(found) == 1 and expected in found[0], found


def test_the_checker_accepts_downward_and_sibling_module_imports(tmp_path):
    root = tmp_path / "lorasched"
    for pkg in ("model", "pdftsp", "experiments"):
        (root / pkg).mkdir(parents=True)
        (root / pkg / "__init__.py").write_text("")
    (root / "__init__.py").write_text("from .experiments import grid\n")
    (root / "model" / "traces.py").write_text("import numpy\n")
    (root / "pdftsp" / "kernels.py").write_text("from ..model import traces\n")
    (root / "pdftsp" / "auction.py").write_text("from . import kernels\nfrom .kernels import *\n")
    (root / "experiments" / "grid.py").write_text(
        "from ..model.traces import numpy\ndef f():\n    import json\n")
    assert violations(root) == []


def _docstring_layers(doc: str) -> list[tuple[str, ...]]:
    """The chain "a < b < {c, d} < ..." that follows "(imports go downward):" in ``doc``."""
    chain = doc.split("(imports go downward):", 1)[1].split(".")[0]
    return [tuple(n.strip(" {}\n") for n in layer.split(","))
            for layer in " ".join(chain.split()).split("<")]


def test_the_package_docstring_lists_the_layers_this_test_enforces():
    want = [layer if layer[0] != "cli" else ("cli",) for layer in LAYERS]
    assert _docstring_layers(lorasched.__doc__) == want
    broken = lorasched.__doc__.replace("< gym <", "<")
    assert _docstring_layers(broken) != want
