"""A Sphinx extension: papermill's injected-parameters cell is left out of the pages.

papermill runs a notebook with the parameters it is given by adding, after the cell tagged
``parameters``, a cell tagged ``injected-parameters`` that sets them again (``size =
"full"`` under the page's own ``size = "small"``). It says nothing to a reader, so this
extension tags it ``remove-cell`` when Sphinx reads the notebook (the ``source-read``
event, before MyST-NB parses it), and MyST-NB leaves it out. MyST-NB's removal tags are
fixed (``remove-cell``, ``remove-input``, ...; no setting adds one). The notebook offered
for download keeps the cell: it records what the page was run with.
"""

from __future__ import annotations

import json

#: the tag papermill gives the cell it adds, and the one MyST-NB leaves out
INJECTED = "injected-parameters"
REMOVE = "remove-cell"


def remove_injected(text: str) -> str | None:
    """The notebook ``text`` (JSON) with every injected-parameters cell also tagged
    ``remove-cell``; None when it has none (or is not a notebook)."""
    try:
        nb = json.loads(text)
    except ValueError:
        return None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        return None
    changed = False
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if INJECTED in tags and REMOVE not in tags:
            tags.append(REMOVE)
            changed = True
    return json.dumps(nb, ensure_ascii=False) if changed else None


def _source_read(app, docname: str, source: list[str]) -> None:
    if not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    text = remove_injected(source[0])
    if text is not None:
        source[0] = text


def setup(app):
    app.connect("source-read", _source_read)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
