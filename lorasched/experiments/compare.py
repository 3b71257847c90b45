"""Do two cell stores hold the same numbers? Cells matched by their parameters, every metric
but the measured times compared bit for bit (:func:`compare_stores`; :doc:`/reference/engine`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from .. import systems
from ..model.errors import InputError
from .declaration import json_default
from .grid import UNKEYED
from .store import Store


def _identity(params: dict) -> str:
    p = {k: v for k, v in params.items() if k not in UNKEYED}  # a name, not a number
    p.setdefault("system", systems.DEFAULT)
    return json.dumps(p, sort_keys=True, default=json_default)


def _timings(params: dict) -> set[str]:
    try:
        return {*systems.get(params.get("system", systems.DEFAULT)).timings, "bound_seconds"}
    except ValueError:
        return {"bound_seconds"}


def same(a, b) -> bool:
    """Equal, bit for bit, counting NaN as equal to NaN."""
    if a == b:
        return True
    return (isinstance(a, float) and isinstance(b, float) and math.isnan(a)
            and math.isnan(b))


@dataclass
class Comparison:
    """What :func:`compare_stores` found."""

    matched: int = 0
    equal: int = 0
    only_a: list = field(default_factory=list)  # cell descriptions
    only_b: list = field(default_factory=list)
    different: list = field(default_factory=list)  # (cell, metric, a, b)

    @property
    def identical(self) -> bool:
        return not (self.only_a or self.only_b or self.different)

    def __str__(self) -> str:
        lines = [f"{self.matched} cells in both stores, {self.equal} with identical "
                 f"numbers (timings aside); {len(self.only_a)} only in the first, "
                 f"{len(self.only_b)} only in the second, {len(self.different)} metric(s) "
                 "differ"]
        lines += [f"  differs: {c}: {m} = {a!r} vs {b!r}" for c, m, a, b in self.different[:20]]
        lines += [f"  only in the first: {c}" for c in self.only_a[:10]]
        lines += [f"  only in the second: {c}" for c in self.only_b[:10]]
        lines.append("IDENTICAL" if self.identical else "DIFFERENT")
        return "\n".join(lines)


def compare_stores(a, b) -> Comparison:
    """Compare the finished cells of store folders ``a`` and ``b``."""
    stores = []
    for folder in (a, b):
        store = Store(folder)
        if not store.done_dir.is_dir():
            raise InputError(f"{folder} is not a cell store (no done/ folder)")
        stores.append({_identity(r["params"]): r for r in store.done().values()})
    left, right = stores
    out = Comparison()
    for ident, rec in left.items():
        other = right.get(ident)
        if other is None:
            out.only_a.append(rec.get("cell", ident))
            continue
        out.matched += 1
        skip = _timings(rec["params"])
        names = (set(rec["metrics"]) | set(other["metrics"])) - skip
        diffs = [(rec.get("cell", ident), m, rec["metrics"].get(m), other["metrics"].get(m))
                 for m in sorted(names)
                 if not same(rec["metrics"].get(m), other["metrics"].get(m))]
        out.different += diffs
        out.equal += not diffs
    out.only_b = [r.get("cell", i) for i, r in right.items() if i not in left]
    return out
