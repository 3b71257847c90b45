"""A Sphinx extension: a page shows the parameters it ran with, in its own parameters cell.

papermill runs a notebook with the parameters it is given by adding, after the cell tagged
``parameters``, a cell tagged ``injected-parameters`` that sets them again (``size =
"full"`` under the page's own ``size = "small"``). When Sphinx reads the notebook (the
``source-read`` event, before MyST-NB parses it), this extension folds the injected values
into the page's parameters cell, each line marked (``size = "full"  # injected by papermill
(make book); default "small"``), and tags the injected cell ``remove-cell``,
which MyST-NB leaves out: a reader who opens the parameters cell sees what the page ran
with, once. (Without the folding, the page showed ``size = "small"`` for a book run at
``size = "full"``.) MyST-NB's removal tags are fixed (``remove-cell``, ``remove-input``,
...; no setting adds one). Where the injected cell cannot be folded (it is no Python this
reads, or the page has no parameters cell), it is shown as it is. The notebook offered for
download is the executed one, as papermill wrote it.
"""

from __future__ import annotations

import ast
import json

#: the tag papermill gives the cell it adds, the one it looks for, and the one MyST-NB
#: leaves out
INJECTED = "injected-parameters"
PARAMETERS = "parameters"
REMOVE = "remove-cell"
#: what a folded line says after its value
NOTE = "injected by papermill (make book)"


def _tags(cell: dict) -> list:
    return cell.get("metadata", {}).get("tags", [])


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def assignments(code: str) -> dict[str, str] | None:
    """The names that ``code`` (papermill's injected cell) assigns, each with its value's
    source, in their order; None unless it is Python made only of plain assignments."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    out = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            return None
        out[node.targets[0].id] = " ".join(ast.get_source_segment(code, node.value).split())
    return out


def _same(a: str, b: str) -> bool:
    """Whether two values' source is the same value (``'x'`` and ``"x"`` are)."""
    try:
        return ast.literal_eval(a) == ast.literal_eval(b)
    except (ValueError, SyntaxError, TypeError):
        return a == b


def fold(parameters: str, injected: dict[str, str]) -> str | None:
    """The parameters cell's code ``parameters`` with each of ``injected``'s names set to
    its injected value (the line that set it replaced, marked :data:`NOTE` with the value
    it replaces; a name it did not set added at its end); None if it is not Python."""
    try:
        tree = ast.parse(parameters)
    except SyntaxError:
        return None
    lines = parameters.splitlines()
    spans = {}  # name -> (first line, last line, the value it sets), 0-based
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            value = " ".join(ast.get_source_segment(parameters, node.value).split())
            spans[node.targets[0].id] = (node.lineno - 1, node.end_lineno - 1, value)
    added = []
    for name, value in injected.items():
        line = f"{name} = {value}  # {NOTE}"
        if name not in spans:
            added.append(line)
            continue
        first, last, own = spans[name]
        if not _same(own, value):
            line += f"; default {own}"
        lines[first:last + 1] = [line] + [None] * (last - first)  # keep the line numbers
    return "\n".join([x for x in lines if x is not None] + added)


def fold_injected(text: str) -> str | None:
    """The notebook ``text`` (JSON) as its page shows it: each injected-parameters cell's
    values folded into the parameters cell (:func:`fold`) and the cell tagged
    ``remove-cell``; None when it has none to fold (or is not a notebook)."""
    try:
        nb = json.loads(text)
    except ValueError:
        return None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        return None
    cells = [c for c in nb["cells"] if isinstance(c, dict)]
    params = [c for c in cells if PARAMETERS in _tags(c) and INJECTED not in _tags(c)]
    changed = False
    for cell in cells:
        tags = _tags(cell)
        if INJECTED not in tags or REMOVE in tags:
            continue
        values = assignments(_source(cell))
        folded = fold(_source(params[0]), values) if params and values is not None else None
        if folded is None:
            continue  # shown as it is: the page does not hide what it ran with
        params[0]["source"] = folded
        cell["metadata"]["tags"].append(REMOVE)
        changed = True
    return json.dumps(nb, ensure_ascii=False) if changed else None


def _source_read(app, docname: str, source: list[str]) -> None:
    if not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    text = fold_injected(source[0])
    if text is not None:
        source[0] = text


def setup(app):
    app.connect("source-read", _source_read)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
