"""Allpass's Fig. 12: marketplace prices Allpass obtained, the paper's numbers beside ours."""

from __future__ import annotations

import numpy as np

from ...allpass.clouds import PROVIDERS
from ..base import Prose, paragraphs
from ..centres import centre, seeds_estimate
from ..inventory import cite
from ..numbers import num, pct, usd
from ..verdicts import CALIBRATION, DEPENDENT, RATIO, SAVING, judge
from .common import (
    CLOUD_NAMES,
    PAPER_FIG10,
    PAPER_FIG12,
    AllpassData,
    AllpassFigure,
    claim,
    row_of,
    row_says,
)


def per_gpu_h(x: float) -> str:
    return f"{usd(x)}/GPU-h"


class Fig12(AllpassFigure):
    key, number, title = "fig12", "Fig. 12", "Marketplace prices Allpass obtained"
    page = "allpass_fig12"

    fitted = {"average marketplace price": (
        CALIBRATION, "A calibration check, so counted apart: lorasched fitted the offer "
                     "prices' spread so that the offers Allpass rents average the paper's "
                     "price (the Allpass model's marketplace); it checks the fit and "
                     "reproduces nothing."),
              "saving against": (
        DEPENDENT, "Not independent, so counted apart: the saving follows from the average "
                   "marketplace price, which lorasched fitted to the paper's.")}
    sentences = {"average marketplace price": cite("A.2a", "price"),
                 "saving against Lambda": cite("A.2a", "Lambda"),
                 "saving against Modal": cite("A.2a", "Modal")}

    def first_rows(self, data: AllpassData):
        price = data.values("vast_price_mean", "limited", "allpass")
        est = seeds_estimate(price, RATIO)
        rows = [claim("average marketplace price", "limited", per_gpu_h(PAPER_FIG12["price"]),
                      est, judge(est, PAPER_FIG12["price"]), self._why(data), per_gpu_h,
                      paper_value=PAPER_FIG12["price"])]
        for p, key in (("lambda", "vs_lambda"), ("modal", "vs_modal")):
            name = CLOUD_NAMES[p]
            saving = seeds_estimate(100 * (1 - price / PROVIDERS[p].price_per_gpu_h), SAVING)
            rows.append(claim(f"saving against {name}", "limited", pct(PAPER_FIG12[key]),
                              saving, judge(saving, PAPER_FIG12[key]),
                              f"{name} bills {per_gpu_h(PROVIDERS[p].price_per_gpu_h)}; the "
                              "saving follows the marketplace price, "
                              f"{per_gpu_h(centre(price))} here (the price row measures why).",
                              pct,
                              paper_value=PAPER_FIG12[key]))
        return rows

    @staticmethod
    def book(run) -> tuple[float, float]:
        """The offer book over a run's span: the cheapest offer's price and the average
        offer's, each averaged over the minutes ($/GPU-h)."""
        p = run["price_per_gpu_h"].values
        end = int(np.ceil(run["finish_s"].values.max() / 60)) + 1
        p = p[:end]
        return float(np.nanmean(np.nanmin(p, axis=1))), float(np.nanmean(p))

    def _why(self, data: AllpassData) -> str:
        cheapest = data.per_seed("limited", "allpass", lambda r: self.book(r)[0])
        mean = data.per_seed("limited", "allpass", lambda r: self.book(r)[1])
        peak = data.m("max_workers", "limited", "allpass")
        return (f"Over the runs, the offer book's cheapest A100 costs {per_gpu_h(centre(cheapest))}"
                f" and its average offer {per_gpu_h(centre(mean))}; Allpass rents "
                f"at most {num(peak)} serverful workers at once on average, so the "
                "cheapest-first rule stays near the cheapest offers (the paper rented up to "
                f"{num(PAPER_FIG10['allpass_peak'])}).")

    def findings(self, data: AllpassData) -> Prose:
        price = data.values("vast_price_mean", "limited", "allpass")
        lam = data.m("cost_lambda_usd", "limited", "allpass")
        # each claim said from its own claims row's verdict
        rows = self.claim_rows(data)
        said = [row_says(row_of(rows, "average marketplace price"),
                         "the average marketplace price Allpass obtained")]
        said += [row_says(row_of(rows, f"saving against {CLOUD_NAMES[p]}"),
                          f"its saving against {CLOUD_NAMES[p]}'s price")
                 for p in ("lambda", "modal")]
        return paragraphs(
            "Average marketplace price (weighted by lease time): "
            f"{per_gpu_h(centre(price))} over the seeds, {per_gpu_h(price.min())} to "
            f"{per_gpu_h(price.max())} by seed. The offer book is a model "
            f"whose price spread was calibrated to the paper's {usd(PAPER_FIG12['price'])} "
            "(Fig. 12), so closeness here checks the selection rule, not the market.",
            "On this page's claims: " + "; ".join(said) + ".",
            f"Lambda, the conventional cloud Allpass falls back on when the marketplace has "
            f"no offer, bills {usd(lam)} on average per run.")
