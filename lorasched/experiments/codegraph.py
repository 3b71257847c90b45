"""The package's import graph (:func:`reachable`, from the source files alone) and the
fingerprint of the code a system can reach, without comments, docstrings or layout
(:func:`fingerprint`), which cell keys hash. The rules of the walk: :doc:`/reference/engine`.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable
from pathlib import Path

#: the package's source folder
PACKAGE_ROOT = Path(__file__).resolve().parents[1]
#: the package's import name
PACKAGE = "lorasched"
#: folders and modules that do not change a cell's numbers: editing them keeps finished
#: cells valid (figure objects, plots, the explorer, benchmarks, the profiler, the command
#: line)
PRESENTATION = ("figures", "plotting", "explorer", "bench", "profiling", "cli", "__main__.py")


def code_text(source: str) -> str:
    """The code of a module without its comments, docstrings and layout (its syntax tree
    with docstrings removed): what can change a number."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                       | ast.AsyncFunctionDef) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:]  # only dumped, never compiled: may be empty
    return ast.dump(tree, include_attributes=False)


def module_parts(path: Path, root: Path) -> tuple[str, ...]:
    """The package-relative name of a source file: ``("model", "traces")``; a package's
    ``__init__.py`` is named by its folder (``()`` for the package itself)."""
    parts = path.relative_to(root).with_suffix("").parts
    return parts[:-1] if parts[-1] == "__init__" else parts


def resolve(node: ast.Import | ast.ImportFrom, here: tuple[str, ...], is_pkg: bool,
            package: str = PACKAGE) -> list[tuple[str, ...]]:
    """The package-relative targets of an import statement in module ``here`` (empty if it
    imports nothing of the package). A target may name an attribute, not a module, as in
    ``from .. import name``: :func:`existing` trims it to the module."""
    if isinstance(node, ast.Import):
        return [tuple(a.name.split(".")[1:]) for a in node.names
                if a.name == package or a.name.startswith(package + ".")]
    if node.level == 0:
        if node.module != package and not (node.module or "").startswith(package + "."):
            return []
        base = tuple(node.module.split(".")[1:])
    else:
        anchor = here if is_pkg else here[:-1]
        base = anchor[: len(anchor) - (node.level - 1)] if node.level > 1 else anchor
        base = (*base, *(node.module.split(".") if node.module else ()))
    named = [(*base, a.name) for a in node.names]  # each name may be a module
    return named if node.module is None or not base else [base, *named]


def existing(root: Path, target: tuple[str, ...]) -> tuple[str, ...]:
    """``target`` trimmed to the longest prefix that is a module or package under ``root``."""
    while target and not (root.joinpath(*target).is_dir()
                          or root.joinpath(*target).with_suffix(".py").is_file()):
        target = target[:-1]
    return target


def source_file(root: Path, parts: tuple[str, ...]) -> Path:
    """The file of module ``parts``: ``a/b.py``, or ``a/b/__init__.py`` for a package."""
    folder = root.joinpath(*parts)
    return folder / "__init__.py" if folder.is_dir() else folder.with_suffix(".py")


def imports(path: Path, root: Path, package: str = PACKAGE):
    """Every import of the package in one file: ``(node, target parts, nested)``, where
    ``nested`` says the statement sits inside a function."""
    here = module_parts(path, root)
    is_pkg = path.name == "__init__.py"
    tree = ast.parse(path.read_text(), filename=str(path))
    nested = {id(n) for f in ast.walk(tree)
              if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
              for n in ast.walk(f) if isinstance(n, ast.Import | ast.ImportFrom)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for target in resolve(node, here, is_pkg, package):
                yield node, existing(root, target), id(node) in nested


def reachable(modules: Iterable[str], root: Path = PACKAGE_ROOT,
              package: str = PACKAGE) -> list[Path]:
    """The source files reached from ``modules`` (dotted, package-relative names such as
    ``"model.system"``) by following imports, the start modules included; sorted."""
    todo = [source_file(root, tuple(m.split("."))) for m in modules]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        for _, target, _ in imports(path, root, package):
            todo.append(source_file(root, target))
    return sorted(seen)


def is_presentation(path: Path, root: Path = PACKAGE_ROOT) -> bool:
    """Whether ``path`` is in a presentation layer (never part of a fingerprint)."""
    return path.relative_to(root).parts[0] in PRESENTATION


def fingerprint(paths: Iterable[Path], root: Path = PACKAGE_ROOT, *,
                presentation: bool = False) -> str:
    """A hash of the code (:func:`code_text`) of ``paths``, presentation layers left out
    unless ``presentation`` (what judges the claims, for one, is presentation code)."""
    digest = hashlib.sha256()
    for path in sorted(set(paths)):
        if presentation or not is_presentation(path, root):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(code_text(path.read_text()).encode())
    return digest.hexdigest()[:16]
