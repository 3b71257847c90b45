"""Allpass (2025): fine-tuning jobs across serverless, marketplace and conventional GPU clouds.

The shape every system package shares: :mod:`.workload` (the jobs and the scenario builder,
:func:`allpass_scenario`), :mod:`.scenario` (:func:`validate`, :func:`to_arrays`),
:mod:`.policies`, :mod:`.decisions` (what a policy returns, :class:`Run`), :mod:`.result`,
:mod:`.diagnostics` (why demoted jobs queue), :mod:`.system` (the ``System`` and
:func:`simulate`), :mod:`.env` (the provisioning each minute as a decision problem) and
:mod:`.flags` (its ``lorasched simulate`` flags). Allpass's own: :mod:`.clouds`,
:mod:`.pressure` (eqs. 1-2), :mod:`.scalers` (Algorithms 1-2) and :mod:`.cluster`. The
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
from .decisions import Run
from .policies import REGISTRY as POLICIES
from .pressure import Pressure, demand, pressure, pressure_detail, window_set
from .result import assemble, check_result
from .scalers import ServerfulDecision, ServerfulScaler, ServerlessScaler
from .scenario import AllpassArrays, to_arrays, validate
from .system import SYSTEM, simulate
from .workload import (
    MIXTURE,
    PER_EPOCH_S,
    SEREN_TABLE1,
    allpass_scenario,
    allpass_workload,
    fig1_shares,
    fit_mixture,
    mixture_stats,
    table1_stats,
    trace_table1,
)

__all__ = [
    "POLICIES", "SYSTEM", "AllpassArrays", "Run", "allpass_scenario", "assemble",
    "check_result", "simulate", "to_arrays", "validate",
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
