"""A sweep's grid: its coordinates, and its cells with content-hash keys.

A *cell* is one unit of work: one policy on one scenario with one seed, or (``algorithm
is None``) a bound on one scenario. Its key hashes its parameters (system included), the
package's source (:func:`code_fingerprint`) and, for a policy defined outside the
package, that policy's source: a cell computed by other code is never reused. Cells that
would run the same thing (an option axis that a policy ignores) are one cell that fills
several positions of the dataset.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
from dataclasses import dataclass
from itertools import product
from pathlib import Path

import numpy as np

from .. import systems
from ..model.system import policy_options, source_fingerprint
from .declaration import Sweep, json_default

#: folders and modules that do not change a cell's numbers: editing them keeps finished
#: cells valid (figure objects, plots, widgets, benchmarks, the command line)
PRESENTATION = ("figures", "present", "cli.py", "__main__.py")


def _code(source: str) -> str:
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


@functools.cache
def code_fingerprint() -> str:
    """A hash of the package's code, presentation excepted: part of every cell key.

    Comments, docstrings and layout are left out, so correcting the documentation keeps
    finished cells valid; any change to the code itself recomputes them."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] not in PRESENTATION:
            digest.update(str(rel).encode())
            digest.update(_code(path.read_text()).encode())
    return digest.hexdigest()[:16]


def cell_key(params: dict) -> str:
    """A content hash of a cell's parameters and of the code that computes it."""
    text = json.dumps(params, sort_keys=True, default=json_default)
    extra = ""
    if params.get("algorithm") is not None:
        run = systems.get(params["system"]).policy(params["algorithm"])
        extra = source_fingerprint(run)
    return hashlib.sha256((code_fingerprint() + extra + text).encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Cell:
    """One unit of work: a policy run, or (``algorithm is None``) a bound."""

    key: str  # content hash of ``params``; names the cell in the store
    params: dict  # {"system", "scenario": {...}, "algorithm": name|None, "options", "seed"}
    where: tuple  # ((dim, label), ...): the positions in the dataset that take this result

    def describe(self) -> str:
        what = self.params["algorithm"] or f"bound={self.params['bound']}"
        coords = ", ".join(f"{d}={v}" for d, v in self.where[0])
        return f"{what} [{coords}]"


def dims(sweep: Sweep) -> tuple:
    """The dataset's dimensions: the axes, then ``algorithm`` and ``seed``."""
    return (*sweep.axes, "algorithm", "seed")


def coords(sweep: Sweep) -> dict:
    """Coordinate labels of every dimension (numbers stay numbers where they can)."""
    out = {}
    for axis, settings in sweep.axes.items():
        values = (list(settings) if sweep.compound(axis)
                  else [p[axis] for p in settings.values()])
        numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
        out[axis] = np.array(values) if numeric else np.array([str(v) for v in values])
    out["algorithm"] = np.array(sweep.algorithms)
    out["seed"] = np.array(sweep.seeds, dtype=np.int64)
    return out


def cells(sweep: Sweep) -> list[Cell]:
    """Every distinct unit of work of ``sweep``, with the dataset positions it fills."""
    system = systems.get(sweep.system)
    labels = coords(sweep)
    found: dict[str, tuple[dict, list]] = {}
    settings = [list(s.values()) for s in sweep.axes.values()]
    accepted = {alg: policy_options(system.policy(alg)) for alg in sweep.algorithms}
    for point in product(*[range(len(s)) for s in settings]):
        merged = {}
        for s, j in zip(settings, point, strict=True):
            merged.update(s[j])
        where_axes = tuple((axis, labels[axis][j].item())
                           for axis, j in zip(sweep.axes, point, strict=True))
        scenario = dict(sweep.base)
        scenario.update({p: v for p, v in merged.items() if p in system.scenario_parameters})
        extra = {p: v for p, v in merged.items() if p not in system.scenario_parameters}
        for seed in sweep.seeds:
            jobs = [*sweep.algorithms, *([None] if sweep.bound is not None else [])]
            for alg in jobs:
                params = {"system": sweep.system, "scenario": scenario, "algorithm": alg,
                          "seed": seed}
                if alg is None:
                    params.update(bound=sweep.bound, options=dict(sweep.bound_options))
                    where = (*where_axes, ("seed", seed))
                else:
                    opts = dict(sweep.options.get(alg, {}))
                    opts.update({p: v for p, v in extra.items() if p in accepted[alg]})
                    params["options"] = opts
                    if sweep.repeats > 1:
                        params["repeats"] = sweep.repeats
                    where = (*where_axes, ("algorithm", alg), ("seed", seed))
                key = cell_key(params)
                found.setdefault(key, (params, []))[1].append(where)
    return [Cell(key, params, tuple(where)) for key, (params, where) in found.items()]
