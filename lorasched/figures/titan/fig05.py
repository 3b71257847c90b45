"""Fig. 5: average JCT against workload density."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..base import paragraphs
from ..numbers import num
from ..verdicts import GAIN, INCONCLUSIVE, REPRODUCED, judge_all
from .common import ALGORITHMS, NAMES, WORKLOADS, TitanFigure, alone_h, cell, fmt, judged


class Fig05(TitanFigure):
    key, number, title = "fig05", "Fig. 5", "Average JCT across workload density"

    def jct_table(self, ds) -> pd.DataFrame:
        rows = []
        for wl in ds["workload"].values:
            for a in ALGORITHMS:
                row = {"workload": WORKLOADS[str(wl)], "policy": NAMES[a]}
                for d in ds["density"].values:
                    row[f"density {float(d):g}"] = fmt(cell(ds, "avg_jct_h", workload=str(wl),
                                                            density=float(d), algorithm=a))
                rows.append(row)
        return pd.DataFrame(rows)

    page = "titan_fig05"

    def _alone(self, ds, wl: str) -> str:
        alone = alone_h(ds).sel(workload=wl).mean("seed")
        d0, d1 = (float(x) for x in ds["density"].values[[0, -1]])
        jobs = ds["n_jobs"].sel(workload=wl, algorithm="srtf").mean("seed")
        return (f"On this workload a job alone on its requested GPUs lasts "
                f"{num(float(alone.sel(density=d0)))} h on average at density {num(d0)} "
                f"({num(float(jobs.sel(density=d0)))} jobs) and "
                f"{num(float(alone.sel(density=d1)))} h at density {num(d1)} "
                f"({num(float(jobs.sel(density=d1)))} jobs)"
                + (": the denser draw holds shorter jobs, which offsets its extra load."
                   if float(alone.sel(density=d1)) < float(alone.sel(density=d0)) else
                   "; the jobs are not shorter at the higher density, so the spread is "
                   "between the seeds' draws."))

    def claim_rows(self, ds):
        rows = []
        d0, d1 = (float(x) for x in ds["density"].values[[0, -1]])
        for wl in ds["workload"].values:
            wl = str(wl)
            jct = ds["avg_jct_h"].sel(workload=wl)
            grow = {a: np.asarray(100 * (jct.sel(algorithm=a, density=d1)
                                         / jct.sel(algorithm=a, density=d0) - 1))
                    for a in ALGORITHMS}
            each = {a: judged("", "", v, None, side=1, scale=GAIN) for a, v in grow.items()}
            worst = judge_all(r["verdict"] for r in each.values())
            low = min(grow, key=lambda a: float(np.mean(grow[a])))
            row = dict(each[low])
            row.update(claim=f"average JCT grows from density {num(d0)} to {num(d1)}, "
                             "every policy (the least-growing policy's change)",
                       variant=WORKLOADS[wl], paper="grows", verdict=worst,
                       ours=f"{NAMES[low]}: {row['ours']}")
            if worst != REPRODUCED:
                row["why"] = ((row["why"] + " ") if worst == INCONCLUSIVE else "") \
                    + self._alone(ds, wl)
            rows.append(row)
            gap = np.asarray((jct.sel(algorithm="srtf", density=d1)
                              - jct.sel(algorithm="titan", density=d1))
                             - (jct.sel(algorithm="srtf", density=d0)
                                - jct.sel(algorithm="titan", density=d0)))
            row = judged(f"gap SRTF - TITAN grows from density {num(d0)} to {num(d1)} "
                         "(change of the gap)", WORKLOADS[wl], gap, None, side=1,
                         fmt=lambda x: f"{num(x, sign=True)} h", paper_text="grows")
            if row["verdict"] != REPRODUCED:
                row["why"] = ((row["why"] + " ") if row["verdict"] == INCONCLUSIVE
                              else "") + self._alone(ds, wl)
            rows.append(row)
        return rows

    def findings(self, ds):
        out = []
        for wl in ds["workload"].values:
            wl = str(wl)
            m = ds["avg_jct_h"].sel(workload=wl).mean("seed")
            d0, d1 = (float(x) for x in ds["density"].values[[0, -1]])
            s = {a: (float(m.sel(algorithm=a, density=d0)), float(m.sel(algorithm=a,
                                                                            density=d1)))
                 for a in ALGORITHMS}
            best = [NAMES[a] for a in ALGORITHMS
                    if all(float(m.sel(algorithm=a, density=d))
                           <= float(m.sel(density=d).min()) for d in ds["density"].values)]
            out.append(
                f"On the {WORKLOADS[wl]}, from density {num(d0)} to {num(d1)} the average JCT "
                f"goes from {num(s['srtf'][0])} to {num(s['srtf'][1])} h under SRTF (shortest "
                f"remaining time first), from {num(s['tiresias'][0])} to "
                f"{num(s['tiresias'][1])} h under Tiresias and from {num(s['titan'][0])} to "
                f"{num(s['titan'][1])} h under TITAN. "
                + (f"{best[0]} has the shortest average JCT at every density."
                   if best else "No policy has the shortest average JCT at every density."))
        return paragraphs(*out)
