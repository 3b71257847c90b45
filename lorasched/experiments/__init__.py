"""The experiment engine: declared sweeps of any system, run serially or on Dask, resumably.

One module per job, and none of them names a system (they reach systems only through
:mod:`lorasched.systems`):

* :mod:`.declaration` — :class:`~.declaration.Sweep`: a validated declaration (system, base
  scenario, axes, policies, seeds, options, bound), from a dict or a TOML/YAML/JSON file;
* :mod:`.grid` — the coordinates and the cells of a sweep, and their content-hash keys;
* :mod:`.store` — one JSON file per finished or failed cell, written atomically, and a kept
  cell's result Dataset beside it (:meth:`~.store.Store.result`);
* ``runner`` — one cell: build, run, check, measure (the code every cell key hashes);
* ``kept`` — a kept result as netCDF bytes and back, exactly;
* ``executor`` — many cells serially or on dask.distributed;
* :mod:`.progress` — the batch's progress bar and its forecast of the time left;
* ``assembly`` — finished cells to an ``xarray.Dataset`` and a netCDF file;
* :mod:`.sweep` — :func:`~.sweep.run_sweep` and :func:`~.sweep.run_sweeps`, which tie those
  together;
* :mod:`.shipped` — finished cells kept with the repository, seeded into a store where their
  keys match the code;
* ``compare`` — are two stores' cells the same numbers?
* ``calibrate`` — a policy's constants scanned on held-out data, saved to a file.
"""

from . import calibrate, grid, kept, shipped
from .assembly import assemble_results, without_timings
from .compare import compare_stores
from .declaration import Sweep
from .grid import Cell, cell_key, code_fingerprint
from .store import Store, default_store
from .sweep import SweepReport, run_sweep, run_sweeps

__all__ = ["Cell", "calibrate", "grid", "kept", "Store", "Sweep", "SweepReport", "assemble_results",
           "cell_key", "code_fingerprint", "compare_stores", "default_store", "run_sweep",
           "run_sweeps", "shipped", "without_timings"]
