"""Re-execute notebooks with their default (small) parameters and store, in the source
notebook, the outputs of the cells nbval compares (tag ``nbval-check-output``) and
nothing else: what ``make test`` checks them against.

    .venv/bin/python .ci/store_outputs.py notebooks/fig05_vendors.ipynb [...]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import papermill

ROOT = Path(__file__).resolve().parents[1]


def store(path: Path) -> None:
    nb = json.loads(path.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / path.name
        os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
        papermill.execute_notebook(str(path), str(out), kernel_name="python3",
                                   cwd=str(path.parent), progress_bar=False)
        ran = json.loads(out.read_text())
    ran_cells = [c for c in ran["cells"]
                 if "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
    assert len(ran_cells) == len(nb["cells"]), path
    for cell, done in zip(nb["cells"], ran_cells, strict=True):
        if cell["cell_type"] != "code":
            continue
        if "nbval-check-output" in cell.get("metadata", {}).get("tags", []):
            cell["outputs"] = done["outputs"]
            cell["execution_count"] = done["execution_count"]
        else:
            cell["outputs"] = []
            cell["execution_count"] = None
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    print(f"stored {path}")


if __name__ == "__main__":
    for name in sys.argv[1:]:
        store(Path(name).resolve())
