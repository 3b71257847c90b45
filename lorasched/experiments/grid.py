"""A sweep's grid: its coordinates, and its cells with content-hash keys (the parameters, the
code the system can reach, a policy's own source); see :doc:`/reference/engine`.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from itertools import product
from pathlib import Path

import numpy as np

from .. import systems
from ..model.system import policy_options, source_fingerprint
from . import codegraph
from .declaration import Sweep, json_default

#: the cell runner (:func:`.runner.run`): part of every system's fingerprint, its own code
#: only (it imports the system registry, hence every system); the orchestration around it
#: (:mod:`.executor`) is not, so that changing how cells are run recomputes none
RUNNER = ("experiments", "runner")


def system_modules(name: str) -> tuple[str, ...]:
    """The package's modules that define what system ``name`` hands the cell runner (its
    scenario builder, policies, simulate, checker, measure, cost hint and bounds), as
    dotted package-relative names; a policy defined outside the package is left out (its
    own source enters the cell key, :func:`cell_key`)."""
    system = systems.get(name)
    used = [system.build_scenario, system.simulate, system.check_result, system.measure,
            system.cost, *system.policies.values(), *(b.compute for b in system.bounds.values())]
    prefix = codegraph.PACKAGE + "."
    return tuple(sorted({fn.__module__[len(prefix):] for fn in used if fn is not None
                         and (getattr(fn, "__module__", None) or "").startswith(prefix)}))


def reached_by(name: str, root: Path = codegraph.PACKAGE_ROOT) -> list[Path]:
    """The source files whose code can change a cell of system ``name``: every module
    reachable from :func:`system_modules` by imports (:func:`.codegraph.reachable`), and
    the cell runner; presentation layers excepted."""
    paths = {*codegraph.reachable(system_modules(name), root),
             codegraph.source_file(root, RUNNER)}
    return sorted(p for p in paths if not codegraph.is_presentation(p, root))


@functools.cache
def code_fingerprint(system: str | None = None, root: Path = codegraph.PACKAGE_ROOT) -> str:
    """A hash of the code that computes system ``system``'s cells (:func:`reached_by`):
    part of each of its cells' keys, so editing one system's package recomputes none of
    another's cells. Without ``system``: the whole package, presentation excepted.

    Comments, docstrings and layout are left out, so correcting the documentation keeps
    finished cells valid; any change to the code itself recomputes them."""
    paths = root.rglob("*.py") if system is None else reached_by(system, root)
    return codegraph.fingerprint(paths, root)


#: cell parameters that name a cell for people but change nothing it computes: never in its
#: key (a sweep's ``label``)
UNKEYED = ("label",)


def cell_key(params: dict) -> str:
    """A content hash of a cell's parameters (those of :data:`UNKEYED` left out) and of the
    code that computes it."""
    keyed = {k: v for k, v in params.items() if k not in UNKEYED}
    text = json.dumps(keyed, sort_keys=True, default=json_default)
    extra = ""
    if params.get("algorithm") is not None:
        run = systems.get(params["system"]).policy(params["algorithm"])
        extra = source_fingerprint(run)
    code = code_fingerprint(params.get("system", systems.DEFAULT))
    return hashlib.sha256((code + extra + text).encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Cell:
    """One unit of work: a policy run, or (``algorithm is None``) a bound.

    Parameters
    ----------
    key : str
        The content hash of ``params``; names the cell in the store.
    params : dict
        ``{"system", "scenario": {...}, "algorithm": name or None, "options", "seed"}``,
        and where the sweep sets them ``repeats``, ``keep`` (a policy cell whose result is
        kept) and ``label`` (not in the key).
    where : tuple
        ``((dim, label), ...)``: the positions in the dataset that take this result.
    """

    key: str  # content hash of ``params``; names the cell in the store
    params: dict  # {"system", "scenario": {...}, "algorithm": name|None, "options", "seed"}
    where: tuple  # ((dim, label), ...): the positions in the dataset that take this result

    def describe(self) -> str:
        """The cell for a reader: the algorithm (or the bound) and its coordinates."""
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
                if seed not in sweep.seeds_of(alg):  # an expensive policy on fewer seeds
                    continue
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
                    if sweep.keep:
                        params["keep"] = True
                    where = (*where_axes, ("algorithm", alg), ("seed", seed))
                if sweep.label:
                    params["label"] = sweep.label
                key = cell_key(params)
                found.setdefault(key, (params, []))[1].append(where)
    return [Cell(key, params, tuple(where)) for key, (params, where) in found.items()]
