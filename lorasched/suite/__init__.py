"""``lorasched suite``: a fixed, versioned benchmark of the three systems, run for any set
of policies (built-in or plug-in) into one report that says when two reports compare.

* :mod:`.scenarios` — the definition: per system and size the scenarios, seeds, bound and
  metrics, and :data:`~.scenarios.SUITE_VERSION`;
* :mod:`.selection` — which policies run, and where each comes from;
* :mod:`.tables` — means and 95 % intervals over seeds, as CSV and Markdown tables;
* :mod:`.figure` — the report's plotly figure;
* :mod:`.report` — the report folder, its header, and :func:`~.report.comparable`;
* :mod:`.runner` — :func:`~.runner.run_suite`, which ties those together.
"""

from .report import Comparability, comparable, read_report
from .runner import SuiteRun, run_suite, suite_sweeps
from .scenarios import DEFINITION, SIZES, SUITE_VERSION, definition_hash

__all__ = ["DEFINITION", "SIZES", "SUITE_VERSION", "Comparability", "SuiteRun",
           "comparable", "definition_hash", "read_report", "run_suite", "suite_sweeps"]
