"""Fig. 5: average JCT against workload density."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..base import paragraphs
from .common import ALGORITHMS, NAMES, WORKLOADS, TitanFigure, cell, fmt


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

    def claim_rows(self, ds):
        rows = []
        dens = [float(d) for d in ds["density"].values]
        for wl in ds["workload"].values:
            wl = str(wl)
            m = ds["avg_jct_h"].sel(workload=wl).mean("seed")
            rising = [a for a in ALGORITHMS
                      if np.all(np.diff(m.sel(algorithm=a).values) >= 0)]
            rows.append({"claim": "average JCT grows with density, every policy",
                         "variant": WORKLOADS[wl], "paper": "yes",
                         "ours": f"{len(rising)} of {len(ALGORITHMS)} policies",
                         "verdict": "agrees" if len(rising) == len(ALGORITHMS)
                         else "disagrees"})
            gap = (m.sel(algorithm="srtf") - m.sel(algorithm="titan")).values
            rows.append({"claim": "gap SRTF - TITAN grows with density",
                         "variant": WORKLOADS[wl], "paper": "yes",
                         "ours": f"{gap[0]:.2f} h at {dens[0]:g} -> {gap[-1]:.2f} h at "
                                 f"{dens[-1]:g}",
                         "verdict": "agrees" if gap[-1] > gap[0] else "disagrees"})
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
                f"On the {WORKLOADS[wl]}, from density {d0:g} to {d1:g} the average JCT "
                f"goes from {s['srtf'][0]:.2f} to {s['srtf'][1]:.2f} h under SRTF, from "
                f"{s['tiresias'][0]:.2f} to {s['tiresias'][1]:.2f} h under Tiresias and "
                f"from {s['titan'][0]:.2f} to {s['titan'][1]:.2f} h under TITAN. "
                + (f"{best[0]} has the shortest average JCT at every density."
                   if best else "No policy has the shortest average JCT at every density."))
        return paragraphs(*out)
