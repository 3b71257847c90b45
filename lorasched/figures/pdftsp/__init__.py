"""pdFTSP's section 5, figure by figure: one :class:`~lorasched.figures.base.Figure` each
(``FIGURES``), their shared setting (:mod:`.common`), the calibration page, the day
chapter's measurements and the reproduction summary. Sizes and algorithms:
:doc:`/reference/figures`.
"""

from ..tables import styled
from .catalog import CATALOGUE, FIGURES, figure, reproduce, sweeps
from .common import (
    ALGORITHMS,
    BASELINES,
    CALIBRATED,
    LEMMA2,
    NAMES,
    ORACLE,
    PANELS,
    TITAN,
    TITAN_BUDGET_OPTIONS,
    TITAN_OPTIONS,
    TUNED_BASELINES,
    VARIANTS,
    base,
    by_method,
    welfare_table,
)
from .overview import (
    cost_plus_findings,
    setting_verdicts_findings,
    setting_verdicts_table,
    summary,
    titan_budget_text,
    titan_setting_verdicts,
    tuned_findings,
    verdict_counts,
)
from .sweep_figure import SweepFigure
from .titan_words import titan_setting
from .tuning import calibration, pdftsp_constants

__all__ = ["ALGORITHMS", "BASELINES", "CALIBRATED", "CATALOGUE", "FIGURES", "LEMMA2", "NAMES",
           "ORACLE", "PANELS", "TITAN", "TITAN_BUDGET_OPTIONS", "TITAN_OPTIONS", "TUNED_BASELINES",
           "VARIANTS",
           "SweepFigure", "base", "by_method", "calibration",
           "cost_plus_findings",
           "figure", "pdftsp_constants", "reproduce", "setting_verdicts_findings",
           "setting_verdicts_table", "styled", "summary", "sweeps", "titan_budget_text",
           "titan_setting", "titan_setting_verdicts", "tuned_findings", "verdict_counts",
           "welfare_table"]
