"""Fast consistency checks of the book sources and the notebooks (nothing is executed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SUFFIXES = (".md", ".ipynb", ".rst")


def _toc_files(node) -> list[str]:
    """Every ``root``/``file`` entry of a Jupyter Book 1.x ``_toc.yml``, recursively."""
    found: list[str] = []
    if isinstance(node, dict):
        for key in ("root", "file"):
            if key in node:
                found.append(str(node[key]))
        for value in node.values():
            if isinstance(value, dict | list):
                found.extend(_toc_files(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_toc_files(item))
    return found


def _source(entry: str) -> Path | None:
    """The source file a toc entry refers to, or None if none exists."""
    path = BOOK / entry
    if path.suffix in SUFFIXES:
        return path if path.is_file() else None
    for suffix in SUFFIXES:
        if path.with_name(path.name + suffix).is_file():
            return path.with_name(path.name + suffix)
    return None


def _book_notebook_source(entry: str) -> Path | None:
    """Executed notebooks under book/notebooks/ are made by `make book` from notebooks/."""
    path = Path(entry)
    if path.parts[:1] == ("notebooks",):
        name = path.name if path.suffix else path.name + ".ipynb"
        source = ROOT / "notebooks" / name
        return source if source.is_file() else None
    return None


def test_toc_lists_only_existing_files():
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    assert toc.get("format") == "jb-book"
    entries = _toc_files(toc)
    assert entries, "_toc.yml lists no files"
    missing = [e for e in entries if _source(e) is None and _book_notebook_source(e) is None]
    assert not missing, f"_toc.yml lists files that do not exist: {missing}"


def test_notebooks_exist():
    assert NOTEBOOKS, "no notebooks in notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_parameters_and_no_outputs(path: Path):
    nb = json.loads(path.read_text())
    assert nb.get("nbformat") == 4
    cells = nb["cells"]
    tagged = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name}: {len(tagged)} cells tagged 'parameters', want 1"
    assert tagged[0]["cell_type"] == "code"
    with_outputs = [
        i
        for i, c in enumerate(cells)
        if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))
    ]
    assert not with_outputs, f"{path.name}: cells {with_outputs} have stored outputs"
