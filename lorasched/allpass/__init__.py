"""Allpass (2025): an adaptive scheduler across serverless, marketplace and conventional
GPU clouds.

* :mod:`.clouds` — the three providers of Tables 2-3 (price, billing rule, start-up
  time), billing, start-up draws and a model of the Vast.ai A100 offer book calibrated
  to the $0.74/GPU-h of Fig. 12.
* :mod:`.pressure` — the demand bound D(t, T) and the pressure ratio p(t) (eqs. 1-2).
* :mod:`.scalers` — the serverless scaler (Algorithm 1) and the serverful scaler
  (Algorithm 2, literal and evident readings).

Under construction (issue 13): the scenario, the two-tier engine, the baselines, the
result and its checker, and the book part are still to come.
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
]
