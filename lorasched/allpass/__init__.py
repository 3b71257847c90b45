"""Allpass (2025): fine-tuning jobs across serverless, marketplace and conventional GPU clouds.

:mod:`.clouds`, :mod:`.workload`, :mod:`.scenario`, :mod:`.pressure` (eqs. 1-2),
:mod:`.scalers` (Algorithms 1-2), :mod:`.cluster`, :mod:`.env` (the provisioning each minute
as a decision problem), :mod:`.policies`, :mod:`.result`, :mod:`.system`, :mod:`.flags` (its
``lorasched simulate`` flags), :mod:`.diagnose`. The
model: :doc:`/allpass_model`; the details: :doc:`/reference/allpass_cluster`,
:doc:`/reference/allpass_data`.
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
