"""pdFTSP's section 5, figure by figure: one :class:`~lorasched.figures.base.Figure` each.

``FIGURES["fig08"]`` holds Fig. 8's sweep declaration, its claims (the paper's number,
ours, a verdict) and its closing prose; the notebook ``notebooks/fig08_load.ipynb`` only
calls it and plots. ``lorasched reproduce`` runs the cells of every figure's sweeps as
one parallel batch into a shared store first, so that the notebooks then only assemble
finished cells.

Modules: :mod:`.common` (the base scenario, sizes, the two pdFTSP variants, tables by method,
claim rows, prose helpers, :class:`SweepFigure`), one module per figure (:mod:`.fig04` ...
:mod:`.fig13`), :mod:`.catalog` (``FIGURES``, ``figure``, ``reproduce``) and
:mod:`.overview` (the reproduction summary and its prose).

Sizes
-----
``"full"`` is the paper's setting (section 5.1): one day of 144 ten-minute slots, a
data centre of ``K = 100`` nodes (50-200 in Fig. 4), half A100-80GB and half A40-48GB
("mix"), 5 labelling vendors, and Poisson arrivals. The paper does not say which load or
how many runs its figures use, except Fig. 8 (30, 50, 80 tasks per slot); lorasched uses
the medium load, 50 tasks per slot, everywhere else, and 3 seeds (error bars: one standard
deviation over seeds). ``"small"`` divides nodes and loads by 10 and uses 48 slots and 2
seeds, so that a figure runs in seconds (tests, quick looks).

Algorithms
----------
pdFTSP appears twice: with the constants alpha, beta of Lemma 2 as lorasched derives them
from declared bounds (the faithful default, ``"pdFTSP (Lemma 2)"``), and with constants
calibrated on a held-out day (``"pdFTSP (calibrated)"``): the alpha x beta scan of
:func:`.common.calibration_grid` on the base scenario with seed 101, which no figure
evaluates (they use seeds 1..3), keeping the pair of largest welfare, then used unchanged in
every figure (:func:`.common.calibration`; the calibration page shows the scan on both days).
Titan is the paper's: its own progress objective, no bids (``"Titan"``); Figs. 4 and 8 also
show the welfare-maximising variant, an oracle that sees every bid (``"Titan (welfare
oracle)"``). Titan solves one MILP per slot with 10 column-generation rounds and the MILP
setting :data:`.common.TITAN_OPTIONS` (see
:data:`lorasched.pdftsp.baselines.titan_per_slot.MIP_SETTINGS`;
the pages describe it from those settings). """

from ..base import styled
from .catalog import FIGURES, figure, reproduce, sweeps
from .common import (
    ALGORITHMS,
    BASELINES,
    CALIBRATED,
    LEMMA2,
    NAMES,
    ORACLE,
    TITAN_OPTIONS,
    VARIANTS,
    base,
    by_method,
    calibration,
    pdftsp_constants,
    titan_setting,
    welfare_table,
)
from .overview import (
    setting_verdicts_findings,
    setting_verdicts_table,
    summary,
    titan_budget_text,
    titan_setting_verdicts,
    verdict_counts,
)
from .sweep_figure import SweepFigure

__all__ = ["ALGORITHMS", "BASELINES", "CALIBRATED", "FIGURES", "LEMMA2", "NAMES", "ORACLE",
           "TITAN_OPTIONS", "VARIANTS", "SweepFigure", "base", "by_method", "calibration",
           "figure", "pdftsp_constants", "reproduce", "setting_verdicts_findings",
           "setting_verdicts_table", "styled", "summary", "sweeps", "titan_budget_text",
           "titan_setting", "titan_setting_verdicts", "verdict_counts", "welfare_table"]
