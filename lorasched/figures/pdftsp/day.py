"""The day chapter's measurements of pdFTSP's mechanism (:func:`mechanism`: task merging,
utilisation, prices at rejection) and their prose (:func:`mechanism_findings`); see
:doc:`/reference/figures`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from ... import systems
from ...pdftsp import diagnostics
from ...pdftsp.auction import declared_bounds
from ...pdftsp.mechanism import AuctionReplay
from ..base import Prose, paragraphs
from ..numbers import num
from .common import CALIBRATED, LEMMA2, _pct

#: policy label -> (algorithm, options); the calibrated pair is added by :func:`mechanism`
POLICIES = {LEMMA2: ("pdftsp", {"constants": "lemma2"}), "EFT": ("eft", {}),
            "NTM": ("ntm", {})}


def mechanism(scenario: xr.Dataset, *, calibrated: dict | None = None,
              seed: int = 1) -> dict[str, pd.DataFrame]:
    """``{"merging": one row per policy (welfare, admitted, shared cells, utilisation,
    median task share of a node), "priced_out": one row per task that pdFTSP with the
    Lemma-2 constants rejects for a non-positive surplus, "b_bar": b̄_il of eq. (7) of each
    task it admits, in units of v_min}``. ``calibrated``: pdFTSP's
    calibrated options (``{"alpha": .., "beta": ..}``), added as a row if given."""
    policies = dict(POLICIES)
    if calibrated:
        policies = {LEMMA2: policies[LEMMA2], CALIBRATED: ("pdftsp", dict(calibrated)),
                    **{k: v for k, v in policies.items() if k != LEMMA2}}
    rows = []
    for label, (algorithm, options) in policies.items():
        result = systems.simulate(scenario, algorithm, seed=seed, **options)
        systems.check_result(result)
        rows.append({"policy": label, "welfare": float(result.attrs["welfare"]),
                     "admitted": int(result.attrs["n_admitted"]),
                     **diagnostics.merging(result)})
    merging = pd.DataFrame(rows).set_index("policy")
    replay = AuctionReplay(scenario, constants="lemma2", snapshot_every=scenario.sizes["task"])
    v_min = declared_bounds(replay.arrays)[0]
    b_bar = np.array([d.b_bar for d in replay.decisions if d.admitted]) / v_min
    return {"merging": merging,
            "priced_out": diagnostics.priced_out(scenario, constants="lemma2"),
            "b_bar": pd.Series(b_bar, name="b_bar (v_min)")}


#: the columns of :func:`lorasched.pdftsp.diagnostics.priced_out` a reader is shown, in words
PRICED_OUT_WORDS = {
    "compute_used": ("compute in use on its best schedule's cells", "share"),
    "memory_used": ("memory in use on its best schedule's cells", "share"),
    "lam_hat": ("compute price λ there", "v_max per sample"),
    "lam_floor": ("Lemma 2's floor for λ there", "v_max per sample"),
    "phi_hat": ("memory price φ there", "v_max·s per GB and slot"),
    "phi_floor": ("Lemma 2's floor for φ there", "v_max·s per GB and slot"),
    "compute_charge": ("compute's part of the price quoted", "share"),
    "value_density": ("its bid per sample", "v_min"),
}


def priced_out_table(m: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The tasks pdFTSP with the Lemma-2 constants prices out (:func:`mechanism`'s
    ``priced_out``), one row per measured quantity in words with its unit: the quartiles
    over those tasks (shares as percentages)."""
    po = m["priced_out"]
    rows = []
    for column, (what, unit) in PRICED_OUT_WORDS.items():
        if column not in po:
            continue
        q = po[column].quantile([0.25, 0.5, 0.75]).to_numpy()
        fmt = ((lambda x: _pct(100 * x, "")) if unit == "share"
               else (lambda x: num(float(x))))
        rows.append({"quantity": what, "unit": "" if unit == "share" else unit,
                     "25 %": fmt(q[0]), "median": fmt(q[1]), "75 %": fmt(q[2])})
    return pd.DataFrame(rows).set_index("quantity")


def mechanism_findings(m: dict[str, pd.DataFrame]) -> Prose:
    """The mechanism paragraph: every number from :func:`mechanism`'s tables, every word
    ("merges", "barely") chosen by a test on them."""
    t, po, b_bar = m["merging"], m["priced_out"], m["b_bar"]
    lemma, ntm, eft = t.loc[LEMMA2], t.loc["NTM"], t.loc["EFT"]
    text = [f"With the Lemma-2 constants pdFTSP uses {lemma['used_cells']:.0f} cells; "
            f"{_pct(100 * lemma['shared_cells'], '')} of them ever hold two tasks or more, "
            f"against {_pct(100 * eft['shared_cells'], '')} under EFT, and its utilisation "
            f"is {lemma['utilisation']:.2f}, EFT's {eft['utilisation']:.2f} and that of NTM, "
            f"which never merges, {ntm['utilisation']:.2f}."]
    if lemma["shared_cells"] < 0.5 * eft["shared_cells"]:
        text.append("In this respect it behaves more like NTM (no task merging) than like "
                    "the multi-LoRA scheduler it is meant to be.")
    if CALIBRATED in t.index:
        cal = t.loc[CALIBRATED]
        text.append(f"With the calibrated constants {_pct(100 * cal['shared_cells'], '')} of "
                    f"its used cells hold two tasks or more and utilisation is "
                    f"{cal['utilisation']:.2f}; welfare is {cal['welfare']:.0f} against "
                    f"{lemma['welfare']:.0f} with the Lemma-2 constants.")
    if len(po):
        med = po.median()
        above = float((po["lam_hat"] > po["lam_floor"]).mean())
        text.append(
            f"{len(po)} tasks are priced out (a non-positive surplus, eq. 11). On the cells of "
            f"their best schedules a median {_pct(100 * med['compute_used'], '')} of the "
            f"compute is in use, yet the compute price λ there stands at "
            f"{med['lam_hat']:.2f} v_max, where Lemma 2's proof needs only "
            f"{med['lam_floor']:.2f} v_max (v_max (2^u − 1) at used share u); for "
            f"{_pct(100 * above, '')} of them λ is above that floor. The memory price φ adds "
            f"{_pct(100 * (1 - med['compute_charge']), '')} of the price they are quoted "
            "(median), since eq. (14) charges both.")
        ratio = med["lam_hat"] / med["lam_floor"] if med["lam_floor"] > 0 else float("inf")
        if ratio > 1.5:
            text.append(
                f"Prices stand {ratio:.1f} times the floor (medians) because of eq. (7): each "
                "admission adds α b̄ times the used share to λ, and b̄, the welfare per unit "
                f"of resource, is a median {float(b_bar.median()):.2f} v_min over the admitted "
                "tasks, while the proof's floor takes b̄ = 1 in units of v_min. "
                f"A task takes a median {_pct(100 * lemma['task_share_median'], '')} of a "
                f"node's compute, and at {_pct(100 * med['compute_used'], '')} in use the "
                f"cells already price as the floor would only at "
                f"{_pct(100 * float(np.log2(1 + med['lam_hat'])), '')} in use.")
    return paragraphs(" ".join(text))
