"""TITAN's headline claims at density one on the Helios-derived workload under other values
of the numbers lorasched chose: the switch cost and the throughput look-up table
(:data:`ALTERNATIVES`)."""

from __future__ import annotations

from ...experiments import Sweep
from ...titan.switch import NAIVE_S, PIPELINED_S
from ..sensitivity import CHOICE, SETTING, Alternative, SensitivityPage
from ..verdicts import GAIN, RATIO
from .common import (
    _SEEDS,
    ALGORITHMS,
    PAPER_TABLE3,
    WORKLOADS,
    TitanFigure,
    base,
    change,
    judged,
    paper_change,
)
from .table3 import Table3
from .table4 import Table4

#: seeds per alternative, by size: the headline's, so that lorasched's choice's column is
#: the headline's verdict (the MILP policies' cells shipped, :mod:`...experiments.shipped`)
SEEDS = dict(_SEEDS)
#: the setting re-run: the paper's (Helios-derived workload, density one)
WORKLOAD, DENSITY = "helios", 1.0

ALTERNATIVES = (
    Alternative("switch cost", "x0", options={"switch_scale": 0.0},
                source="no switch cost: every start free", kind=SETTING),
    Alternative("switch cost", "x0.5", options={"switch_scale": 0.5},
                source="half the authors' measured seconds", kind=SETTING),
    Alternative("switch cost", "x2", options={"switch_scale": 2.0},
                source="twice the authors' measured seconds", kind=SETTING),
    Alternative("LUT", "A100", {"gpu": "A100"},
                source="the authors' A100 measurements of ViT-L/16 (lorasched's choice: "
                       "their V100 ones, the paper's cluster's GPU)", kind=SETTING),
)


def choices() -> dict:
    """lorasched's own value of each number the alternatives change, in words."""
    return {"switch cost": (f"x1: the authors' measured seconds per start, pipelined "
                            f"{PIPELINED_S[1]:g}-{max(PIPELINED_S.values()):g} s for TITAN, "
                            f"naive {NAIVE_S[1]:g}-{max(NAIVE_S.values()):g} s for the "
                            "others"),
            "LUT": "the authors' V100 measurements of ViT-L/16"}


_TABLE3, _TABLE4 = Table3(), Table4()


class Sensitivity(SensitivityPage, TitanFigure):
    """TITAN's headline claims at density one under each of :data:`ALTERNATIVES`, beside
    lorasched's choice, on :data:`SEEDS` seeds paired."""

    page = "sensitivity_titan"
    alternatives = ALTERNATIVES
    seed_counts = SEEDS

    def choices(self) -> dict:
        """lorasched's value of each number the alternatives change (:func:`choices`)."""
        return choices()
    run_where = " at density one"

    def sweeps(self, size: str = "small", seeds: int | None = None) -> dict[str, Sweep]:
        """One sweep per column: every policy of Table 3 at density one on the
        Helios-derived workload; lorasched's choice's cells are the shared sweep's."""
        n = self.seeds(size, seeds)
        out = {}
        for alt in (None, *self.alternatives):
            d = {"name": f"titan_{size}", "system": "titan",
                 "base": base(size), "axes": {"workload": [WORKLOAD], "density": [DENSITY]},
                 "algorithms": list(ALGORITHMS), "seeds": n}
            if alt is not None:
                d["name"] = f"titan_{alt.slug}_{size}"
                d["base"] = {**d["base"], **alt.scenario}
                d["axes"] = {**d["axes"], **{k: [v] for k, v in alt.options.items()}}
            out[CHOICE if alt is None else alt.label] = Sweep.from_dict(d)
        return out

    def columns(self, data) -> dict:
        return {label: rows(ds) for label, ds in data.items()}


def rows(ds) -> list[dict]:
    """The headline claims' tests at density one on one column's data: Table 3's (the
    page's own test: :func:`~.common.judged` of the per-seed change against the paper's)
    and Table 4's two shares at density one (Table 4's claims rows)."""
    if "switch_scale" in ds.dims:  # an alternative's one value
        ds = ds.isel(switch_scale=0, drop=True)
    name = WORKLOADS[WORKLOAD]
    at = {"workload": WORKLOAD, "density": DENSITY}
    out = []
    for claim, var, better, worse, col in _TABLE3.CLAIMS.values():
        r = judged(claim, name, change(ds, var, better, worse, **at),
                   paper_change(better, worse, col), scale=GAIN)
        out.append({"figure": _TABLE3.number, "claim": claim, "setting": name,
                    "verdict": r["verdict"], "ours": r["ours"]})
    paper = 100 * PAPER_TABLE3["tiresias"][0] / PAPER_TABLE3["srtf"][0]
    r = judged(_TABLE3.TIRESIAS, name, 100 + change(ds, "avg_jct_h", "tiresias", "srtf", **at),
               paper, scale=RATIO, threshold=0.0, side=1)
    out.append({"figure": _TABLE3.number, "claim": _TABLE3.TIRESIAS, "setting": name,
                "verdict": r["verdict"], "ours": r["ours"]})
    sides = {_TABLE4.side_claim(DENSITY, s) for s in ("faster", "slower")}
    for r in _TABLE4.claim_rows(ds.sel(workload=[WORKLOAD], density=[DENSITY])):
        if r["claim"] in sides:
            out.append({"figure": _TABLE4.number, "claim": r["claim"], "setting": name,
                        "verdict": r["verdict"], "ours": r["ours"]})
    return out


SENSITIVITY = Sensitivity()

__all__ = ["ALTERNATIVES", "SEEDS", "SENSITIVITY", "Sensitivity", "choices", "rows"]
