"""pdFTSP's alpha and beta: the held-out calibration and how much it leaves on the table (the
sweeps ``calibration``, ``evaluation`` and ``rules``; :doc:`/reference/figures`).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import xarray as xr

from ...experiments import Sweep
from ...experiments import calibrate as _calibrate
from ...pdftsp.auction import default_alpha_beta
from ...pdftsp.scenario import to_arrays
from ...pdftsp.workload import synthetic_scenario
from ..base import Figure, check_size, gain, paragraphs
from ..numbers import quote
from .common import _SEEDS, CALIBRATION_SEEDS, _pct, base, calibration_grid

RULES = {"Lemma 2": "lemma2", "v_max units": "vmax"}


def base_of(ds: xr.Dataset) -> dict:
    """The base scenario of a sweep's dataset (from its recorded declaration)."""
    return dict(json.loads(ds.attrs["sweep"])["base"])


class Calibration(Figure):
    system = "pdftsp"
    key, number, title = "calibration", "Calibration", "pdFTSP's α and β on a held-out day"
    quotes = True
    page = "calibration"

    def sweeps(self, size: str = "small", seeds: int | None = None) -> dict[str, Sweep]:
        check_size(size)
        n = _SEEDS[size] if seeds is None else int(seeds)
        evaluation = list(range(1, n + 1))
        grid = calibration_grid()
        return {
            "calibration": _calibrate.calibration_sweep(
                "pdftsp", "pdftsp", base(size), grid, seeds=CALIBRATION_SEEDS,
                name=f"calibration_{size}"),
            "evaluation": _calibrate.calibration_sweep(
                "pdftsp", "pdftsp", base(size), grid, seeds=evaluation,
                name=f"calibration_eval_{size}"),
            "rules": Sweep.from_dict({
                "name": f"calibration_rules_{size}", "system": "pdftsp",
                "description": "pdFTSP's named constant rules",
                "base": base(size), "axes": {"constants": list(RULES.values())},
                "algorithms": ["pdftsp"], "seeds": list(CALIBRATION_SEEDS) + evaluation}),
        }

    # ---------------------------------------------------------------- the numbers
    @staticmethod
    def surfaces(data: dict) -> dict[str, xr.DataArray]:
        """Mean welfare over alpha x beta on the calibration day and the evaluation days."""
        grid = calibration_grid()
        return {part: _calibrate.surface_of(data[part], "pdftsp", grid, "welfare")
                for part in ("calibration", "evaluation")}

    def table(self, data: dict) -> pd.DataFrame:
        """One row per setting -- the two rules, the calibrated pair, and the evaluation
        days' best pair in hindsight -- with alpha, beta and the mean welfare on each day."""
        surf = self.surfaces(data)
        rules = data["rules"]
        cal_seeds = list(CALIBRATION_SEEDS)
        eval_seeds = [s for s in rules["seed"].values if s not in cal_seeds]
        chosen, _ = _calibrate.best_setting(surf["calibration"])
        hindsight, _ = _calibrate.best_setting(surf["evaluation"])
        # the rules' alpha and beta follow from declared numbers, the same on every day
        arrays = to_arrays(synthetic_scenario(**base_of(rules), seed=cal_seeds[0]))
        rows = []
        for label, rule in RULES.items():
            one = rules.sel(algorithm="pdftsp", constants=rule)
            alpha, beta = default_alpha_beta(arrays, rule)
            rows.append({"setting": label, "alpha": alpha, "beta": beta,
                         "calibration day": float(one["welfare"].sel(seed=cal_seeds).mean()),
                         "evaluation days": float(one["welfare"].sel(seed=eval_seeds).mean())})
        for label, at in (("calibrated (held-out day)", chosen),
                          ("best on the evaluation days (hindsight)", hindsight)):
            rows.append({"setting": label, "alpha": float(at["alpha"]),
                         "beta": float(at["beta"]),
                         "calibration day": float(surf["calibration"].sel(at)),
                         "evaluation days": float(surf["evaluation"].sel(at))})
        return pd.DataFrame(rows).set_index("setting")

    def claim_rows(self, data) -> list[dict]:
        return []  # the paper states no constants: nothing to compare with

    def findings(self, data: dict) -> str:
        t = self.table(data)
        lemma, vmax = t.loc["Lemma 2"], t.loc["v_max units"]
        cal = t.loc["calibrated (held-out day)"]
        best = t.loc["best on the evaluation days (hindsight)"]
        left = gain(best["evaluation days"], cal["evaluation days"])
        same = (cal["alpha"], cal["beta"]) == (best["alpha"], best["beta"])
        surf = self.surfaces(data)["evaluation"]
        close = surf >= 0.97 * float(surf.max())
        near = int(close.sum())
        chosen_close = bool(close.sel(alpha=cal["alpha"], beta=cal["beta"]))
        text = [
            f"On the calibration day the scan picks α = {cal['alpha']:g}, β = {cal['beta']:g} "
            f"(welfare {cal['calibration day']:.0f}); on the evaluation days that pair gives "
            f"{cal['evaluation days']:.0f} on average."
            + (" It is also the evaluation days' best pair: nothing was left on the table."
               if same else
               f" The evaluation days' best pair in hindsight, α = {best['alpha']:g}, "
               f"β = {best['beta']:g}, gives {best['evaluation days']:.0f}: the held-out "
               "choice leaves "
               + quote("welfare the held-out choice leaves on the table, %", left,
                       lambda v: _pct(v, "")) + " on the table."),
            f"{near} of the {surf.size} pairs of the grid come within 3 % of the evaluation "
            "days' best; the calibrated pair is " + ("one of them." if chosen_close
                                                      else "not among them."),
            f"The Lemma-2 rule (α = {quote('α of the Lemma-2 rule', lemma['alpha'])}, "
            f"β = {quote('β of the Lemma-2 rule', lemma['beta'])}) gives "
            f"{lemma['evaluation days']:.0f} on the evaluation days, "
            f"{_pct(gain(lemma['evaluation days'], cal['evaluation days']))} against the "
            f"calibrated pair; measuring money in units of v_max instead (α = "
            f"{quote('α in units of v_max', vmax['alpha'])}, "
            f"β = {quote('β in units of v_max', vmax['beta'])}, no scan) gives "
            f"{vmax['evaluation days']:.0f} "
            f"({_pct(gain(vmax['evaluation days'], cal['evaluation days']))})."]
        return paragraphs(" ".join(text))

    @staticmethod
    def log_ticks(values) -> list[str]:
        """Axis labels for a heatmap of the grid ("0", "10", ...)."""
        return [f"{v:g}" for v in np.asarray(values, dtype=float)]
