"""Allpass (2025): an adaptive scheduler across serverless, marketplace and conventional
GPU clouds.

* :mod:`.clouds` — the three providers of Tables 2-3 (price, billing rule, start-up
  time), billing, start-up draws and a model of the Vast.ai A100 offer book calibrated
  to the $0.74/GPU-h of Fig. 12.
* :mod:`.pressure` — the demand bound D(t, T) and the pressure ratio p(t) (eqs. 1-2).
* :mod:`.workload` — the evaluation's jobs (sec. 5.1): Helios Venus or a log-normal mixture
  fitted to Seren's Table 1, durations / 5 and inter-arrival times / 15, Table 4's models,
  soft deadlines 1-10x the duration; Table 1's statistics and Fig. 1's shares of a trace.
* :mod:`.scalers` — the serverless scaler (Algorithm 1) and the serverful scaler
  (Algorithm 2, literal and evident readings).

* :mod:`.scenario` — the evaluation's scenario: jobs, offer book and serverful cap.
* :mod:`.cluster` — the two-tier cluster as an event loop (serverless stints, demotion,
  the serverful queue, leases), shared by Allpass and every baseline.
* :mod:`.policies` — Allpass, Fixed-60s/600s, TL-P/TL-NP, SJF-P/SJF-NP, HPA, Modal.
* :mod:`.result` — the result Dataset and its checker; :mod:`.system` — the System;
  :mod:`.flags` — its flags of ``lorasched simulate``.
* :mod:`.diagnose` — why a run queued its demoted jobs (the readings page's mechanism).
"""

from .clouds import (
    OFFER_COLUMNS,
    PAPER_MEAN_PRICE,
    PROVIDERS,
    TIERS,
    Provider,
    bill,
    billed_seconds,
    cheapest,
    load_offer_book,
    mean_cheapest_price,
    offer_book,
    offer_prices,
    provider,
    save_offer_book,
    startup_times,
)
from .pressure import Pressure, demand, pressure, pressure_detail, window_set
from .scalers import ServerfulDecision, ServerfulScaler, ServerlessScaler
from .workload import (
    MIXTURE,
    PER_EPOCH_S,
    SEREN_TABLE1,
    allpass_workload,
    fig1_shares,
    fit_mixture,
    mixture_stats,
    table1_stats,
    trace_table1,
)

__all__ = [
    "OFFER_COLUMNS",
    "PAPER_MEAN_PRICE",
    "PROVIDERS",
    "TIERS",
    "Provider",
    "bill",
    "billed_seconds",
    "cheapest",
    "load_offer_book",
    "mean_cheapest_price",
    "offer_book",
    "offer_prices",
    "provider",
    "save_offer_book",
    "startup_times",
    "Pressure",
    "ServerfulDecision",
    "ServerfulScaler",
    "ServerlessScaler",
    "demand",
    "pressure",
    "pressure_detail",
    "window_set",
    "MIXTURE",
    "PER_EPOCH_S",
    "SEREN_TABLE1",
    "allpass_workload",
    "fig1_shares",
    "fit_mixture",
    "mixture_stats",
    "table1_stats",
    "trace_table1",
]
