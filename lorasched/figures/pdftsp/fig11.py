"""Fig. 11: individual rationality (bids against payments)."""

from __future__ import annotations

import numpy as np

from ...experiments import Sweep
from ..base import Figure, default_store, paragraphs
from ..inventory import cite
from ..runs import kept_result
from ..verdicts import REPRODUCED, Estimate, judge
from .common import base_run, dollars


class Fig11(Figure):
    """Individual rationality: bids against payments (not a sweep)."""

    system, variant_column = "pdftsp", "pdFTSP"
    key, number, title = "fig11", "Fig. 11", "Individual rationality"
    page = "fig11_rationality"

    def runs(self, size: str = "small") -> dict[str, Sweep]:
        """pdFTSP's day on the base scenario, seed 1 (:func:`.common.base_run`)."""
        return {"day": base_run(size)}

    def data(self, size: str = "small", *, seed: int = 1, n: int = 10, store=None,
             **_ignored) -> tuple:
        """A pdFTSP day on the base scenario (a kept run read from ``store``, default
        ``size``'s) and ``n`` of its admitted tasks drawn at random
        (``numpy.random.default_rng(seed)``), sorted. Returns ``(result, tasks)``."""
        result = kept_result(base_run(size, seed),
                             default_store(size) if store is None else store)
        admitted = np.flatnonzero(result["admitted"].values)
        tasks = np.sort(np.random.default_rng(seed).choice(
            admitted, size=min(n, admitted.size), replace=False))
        return result, tasks

    def claim_rows(self, data):
        result = data[0] if isinstance(data, tuple) else data
        adm = result["admitted"].values.astype(bool)
        slack = result["bid"].values[adm] - result["payment"].values[adm]
        ours = Estimate.point(float(slack.min()))
        row = {"claim": "every admitted task pays at most its bid", "estimate": ours,
               "paper": "at most its bid (Theorem 4)",
               "ours": f"all {int(adm.sum())} admitted tasks; smallest bid − payment "
                       f"{dollars(ours.mean)}",
               # the claim: bid - payment >= 0 for every admitted task
               "verdict": judge(ours, None, threshold=0.0, side=1),
               "sentence": cite("5.2k")}
        if row["verdict"] != REPRODUCED:
            row["why"] = (f"{int((slack < 0).sum())} of the {int(adm.sum())} admitted tasks pay "
                          f"more than their bid, by up to {dollars(float(-slack.min()))}.")
        return [row]

    def findings(self, data):
        result, tasks = data if isinstance(data, tuple) else (data, None)
        adm = result["admitted"].values.astype(bool)
        bid, pay = result["bid"].values[adm], result["payment"].values[adm]
        slack = bid - pay
        n, arrived = int(adm.sum()), result.sizes["task"]
        sample = ("" if tasks is None else
                  f", the {len(tasks)} sampled ones included")
        if slack.min() < 0:
            over = slack < 0
            return paragraphs(
                f"{int(over.sum())} of the {n} tasks pdFTSP admits on this day pay more than "
                f"their bid (by up to {dollars(float(-slack.min()))}): individual rationality "
                "fails here.")
        rule = result.attrs.get("pdftsp_payment_rule", "critical")
        critical = bool(np.allclose(pay, bid - result["surplus"].values[adm]))
        why = ("This holds by construction: a task is admitted only if its surplus F(il) is "
               "positive, i.e. if its bid exceeds the critical bid"
               + (", and it pays exactly the critical bid (checked here for every admitted "
                  "task)" if rule == "critical" and critical else "")
               + ". The same holds under eq. (14), which charges less: it leaves out the "
               "schedule's operating cost. `lorasched.check_result` asserts it for every "
               "simulated day.")
        return paragraphs(
            f"All {n} tasks pdFTSP admits on this day (of {arrived} that arrive) pay at most "
            f"their bid{sample}; the smallest margin, bid − payment, is "
            f"{dollars(float(slack.min()))}. {why}")


#: every figure of section 5, by key
