"""The experiment engine: declared sweeps of any system, run serially or on Dask, resumably.

One module per job, none naming a system: :mod:`.declaration`, :mod:`.grid`,
:mod:`.codegraph`, :mod:`.store`, :mod:`.executor`, :mod:`.assembly`, :mod:`.sweep`,
:mod:`.compare`, :mod:`.calibrate`. See :doc:`/scale` and :doc:`/reference/engine`.
"""

from . import calibrate, grid
from .assembly import assemble_results, without_timings
from .compare import compare_stores
from .declaration import Sweep
from .grid import Cell, cell_key, code_fingerprint
from .store import Store, default_store
from .sweep import SweepReport, run_sweep, run_sweeps

__all__ = ["Cell", "calibrate", "grid", "Store", "Sweep", "SweepReport", "assemble_results",
           "cell_key", "code_fingerprint", "compare_stores", "default_store", "run_sweep",
           "run_sweeps", "without_timings"]
