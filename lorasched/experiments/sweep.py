"""Declarative, parallel and resumable sweeps: a parameter grid x algorithms x seeds.

Every figure of the paper's section 5 is a sweep. A sweep is declared once (a TOML or YAML
file, or the same as a Python ``dict``)::

    name = "fig08_load"
    algorithms = ["pdftsp", "titan", "eft", "ntm"]
    seeds = 5                     # seeds 1..5, or an explicit list [1, 2, 3]
    bound = "lp"                  # optional: "lp" (column-generation LP bound) or "opt"

    [base]                        # keyword arguments of lorasched.synthetic_scenario
    nodes = 100
    gpu = "mix"

    [axes]                        # the grid: one dimension per axis
    load = ["light", "medium", "high"]

    [options.titan]               # options of one algorithm (see lorasched.simulate)
    max_cg_iterations = 10

An axis is either a scenario parameter (any argument of :func:`~lorasched.synthetic_scenario`),
an algorithm option (passed to the sweep's algorithms that accept it), or a *compound* axis:
a table of labelled settings, each a dict of such parameters (``[axes.setting]`` with
``small = {nodes = 50, load = "light"}``). A cell is one point of the grid x one algorithm x
one seed; it builds ``synthetic_scenario(**base, **axis values, seed=seed)`` and runs
``simulate(scenario, algorithm, seed=seed, **options)``. Cells that would run the same thing
(an option axis that an algorithm ignores) are computed once. With ``bound``, one extra
cell per grid point and seed computes an upper bound on the offline optimum, and the
results hold ``competitive_ratio = bound / welfare`` (Fig. 12).

:func:`run_sweep` executes the pending cells serially or on dask.distributed (an embedded
``LocalCluster`` sized to the machine by default, or an existing scheduler), persists every
finished cell as soon as it completes (one JSON file per cell, written atomically, in the
*store* folder beside the output), skips cells already in the store (a cell's key hashes
its parameters and the package's source, so a code change recomputes), records a failing cell
with its parameters and traceback while the others go on, and finally writes the
:class:`xarray.Dataset` (:data:`METRICS` over dims ``axes + (algorithm, seed)``; the
declaration is the JSON attribute ``sweep``). A cell's outcome depends only on its
parameters, so serial and parallel runs give the same numbers, bit for bit, except the
measured times (:data:`TIMINGS`) and a bound stopped by its wall-clock ``time_limit``.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import math
import os
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path

import numpy as np
import xarray as xr
from tqdm import tqdm

from ..pdftsp import policies as algorithms

#: per-cell results, with units; stored as variables over ``axes + (algorithm, seed)``
METRICS = {
    "welfare": "social welfare, eq. (3), USD",
    "user_utility": "users' utility, eq. (1), USD",
    "provider_utility": "provider's utility, eq. (2), USD",
    "revenue": "payments collected, USD",
    "value": "bids of admitted tasks, USD",
    "operating_cost": "operating cost of the schedule, USD",
    "vendor_cost": "pre-processing vendors' cost, USD",
    "n_admitted": "admitted tasks",
    "n_tasks": "tasks that arrived",
    "load_factor": "offered work / what the cluster can process in the horizon",
    "decision_time_mean": "mean decision time per task, s",
    "decision_time_median": "median decision time per task, s",
    "wall_seconds": "wall time of the algorithm on the whole scenario, s",
}
#: per grid point and seed, with ``bound``
BOUND_METRICS = {
    "bound": "upper bound on the offline optimum's welfare, USD",
    "bound_converged": "1 if the bound is the LP optimum (lp) / a proven optimum (opt)",
    "bound_seconds": "wall time of the bound, s",
}
#: measured times: they differ between runs; everything else is reproducible bit for bit
TIMINGS = ("decision_time_mean", "decision_time_median", "wall_seconds", "bound_seconds")
BOUNDS = ("lp", "opt")
_KEYS = {"name", "base", "axes", "algorithms", "seeds", "options", "bound", "bound_options",
         "description"}


def _scenario_parameters() -> set[str]:
    from ..pdftsp.workload import synthetic_scenario

    return set(inspect.signature(synthetic_scenario).parameters) - {"seed", "model"}


def _algorithm_options(name: str) -> set[str]:
    params = inspect.signature(algorithms.get(name)).parameters
    return {p for p in params if p not in ("arrays", "rng", "attrs")}


def _plain(value, where: str):
    """A JSON scalar (str, int, float, bool, None); numpy scalars become Python ones."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise ValueError(f"{where}: {value!r} is not a scalar (string, number, boolean)")


@dataclass(frozen=True)
class Cell:
    """One unit of work: an algorithm run, or (``algorithm is None``) a bound."""

    key: str  # content hash of ``params``; names the cell in the store
    params: dict  # {"scenario": {...}, "algorithm": name|None, "options": {...}, "seed": s}
    where: tuple  # ((dim, label), ...): the positions in the dataset that take this result

    def describe(self) -> str:
        what = self.params["algorithm"] or f"bound={self.params['bound']}"
        coords = ", ".join(f"{d}={v}" for d, v in self.where[0])
        return f"{what} [{coords}]"


@dataclass(frozen=True)
class Sweep:
    """A sweep declaration; build it with :meth:`from_dict` or :meth:`from_file`."""

    name: str
    base: dict
    axes: dict  # axis -> {label: {param: value}}
    algorithms: tuple
    seeds: tuple
    options: dict = field(default_factory=dict)  # algorithm -> {option: value}
    bound: str | None = None
    bound_options: dict = field(default_factory=dict)
    description: str = ""

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_file(cls, path) -> Sweep:
        """Read a ``.toml``, ``.yaml``/``.yml`` or ``.json`` declaration."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"sweep file {path} does not exist")
        text = path.read_text()
        suffix = path.suffix.lower()
        try:
            if suffix == ".toml":
                import tomllib

                data = tomllib.loads(text)
            elif suffix in (".yaml", ".yml"):
                import yaml

                data = yaml.safe_load(text)
            elif suffix == ".json":
                data = json.loads(text)
            else:
                raise ValueError(f"sweep file {path}: unknown format {suffix!r} "
                                 "(use .toml, .yaml, .yml or .json)")
        except ValueError as exc:  # tomllib/json errors are ValueErrors; say which file
            if str(path) in str(exc):
                raise
            raise ValueError(f"sweep file {path}: {exc}") from None
        except Exception as exc:  # yaml.YAMLError
            raise ValueError(f"sweep file {path}: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError(f"sweep file {path}: expected a table of settings at the top")
        data.setdefault("name", path.stem)
        try:
            return cls.from_dict(data)
        except ValueError as exc:
            raise ValueError(f"sweep file {path}: {exc}") from None

    @classmethod
    def from_dict(cls, data: dict) -> Sweep:
        """Validate a declaration; errors name the offending key and value."""
        unknown = sorted(set(data) - _KEYS)
        if unknown:
            raise ValueError(f"unknown sweep key(s) {unknown}; allowed: {sorted(_KEYS)}")
        name = str(data.get("name", "sweep"))
        algs = data.get("algorithms")
        if isinstance(algs, str):
            algs = [algs]
        if not algs:
            raise ValueError("'algorithms' must list at least one of "
                             f"{sorted(algorithms.REGISTRY)}")
        for a in algs:
            if a not in algorithms.REGISTRY:
                raise ValueError(f"algorithms: unknown algorithm {a!r}; choose from "
                                 f"{sorted(algorithms.REGISTRY)}")
        if len(set(algs)) != len(algs):
            raise ValueError(f"algorithms: listed twice in {list(algs)}")
        seeds = data.get("seeds", [1])
        if isinstance(seeds, bool):
            raise ValueError(f"seeds must be a count or a list of integers, got {seeds!r}")
        if isinstance(seeds, int):
            if seeds < 1:
                raise ValueError(f"seeds: a count must be >= 1, got {seeds}")
            seeds = list(range(1, seeds + 1))
        if not isinstance(seeds, list | tuple) or not seeds or not all(
                isinstance(s, int | np.integer) and not isinstance(s, bool) for s in seeds):
            raise ValueError(f"seeds must be a count or a non-empty list of integers, got "
                             f"{seeds!r}")
        seeds = tuple(int(s) for s in seeds)
        if len(set(seeds)) != len(seeds):
            raise ValueError(f"seeds: a seed is listed twice in {list(seeds)}")

        scenario_params = _scenario_parameters()
        options_of = {a: _algorithm_options(a) for a in algs}
        all_options = set().union(*options_of.values())

        def check_param(param: str, where: str) -> None:
            if param == "seed":
                raise ValueError(f"{where}: 'seed' is set by 'seeds', not by a parameter")
            if param not in scenario_params and param not in all_options:
                raise ValueError(f"{where}: {param!r} is neither a scenario parameter "
                                 f"{sorted(scenario_params)} nor an option of "
                                 f"{list(algs)} {sorted(all_options)}")

        base = dict(data.get("base", {}))
        for param, value in base.items():
            if param not in scenario_params:
                raise ValueError(f"base: {param!r} is not a scenario parameter; choose from "
                                 f"{sorted(scenario_params)} (algorithm options go in "
                                 "[options.<algorithm>])")
            if param != "arrivals":
                base[param] = _plain(value, f"base.{param}")

        axes = {}
        for axis, values in dict(data.get("axes", {})).items():
            if axis in ("algorithm", "seed"):
                raise ValueError(f"axes: {axis!r} is a dimension of every sweep; use "
                                 "'algorithms' / 'seeds'")
            if isinstance(values, dict):  # compound axis: label -> {param: value}
                if not values:
                    raise ValueError(f"axes.{axis}: no settings")
                settings = {}
                for label, params in values.items():
                    if not isinstance(params, dict) or not params:
                        raise ValueError(f"axes.{axis}.{label}: a setting must be a "
                                         f"non-empty table of parameters, got {params!r}")
                    for p, v in params.items():
                        check_param(p, f"axes.{axis}.{label}")
                        params[p] = _plain(v, f"axes.{axis}.{label}.{p}")
                    settings[str(label)] = dict(params)
            else:
                if not isinstance(values, list | tuple) or not values:
                    raise ValueError(f"axes.{axis}: expected a non-empty list of values, got "
                                     f"{values!r}")
                check_param(axis, f"axes.{axis}")
                plain = [_plain(v, f"axes.{axis}") for v in values]
                labels = [str(v) for v in plain]
                if len(set(labels)) != len(labels):
                    raise ValueError(f"axes.{axis}: a value is listed twice in {plain}")
                settings = {str(v): {axis: v} for v in plain}
            axes[str(axis)] = settings

        options = {}
        for alg, opts in dict(data.get("options", {})).items():
            if alg not in algs:
                raise ValueError(f"options.{alg}: {alg!r} is not among the sweep's "
                                 f"algorithms {list(algs)}")
            if not isinstance(opts, dict):
                raise ValueError(f"options.{alg}: expected a table of options, got {opts!r}")
            for opt, value in opts.items():
                if opt not in options_of[alg]:
                    raise ValueError(f"options.{alg}: unknown option {opt!r}; {alg} accepts "
                                     f"{sorted(options_of[alg])}")
                opts[opt] = _plain(value, f"options.{alg}.{opt}")
            options[alg] = dict(opts)

        bound = data.get("bound")
        if bound in (False, "", "none"):
            bound = None
        if bound is not None and bound not in BOUNDS:
            raise ValueError(f"bound must be one of {BOUNDS} or absent, got {bound!r}")
        bound_options = dict(data.get("bound_options", {}))
        if bound_options and bound is None:
            raise ValueError("bound_options given but no 'bound'")
        if bound is not None:
            allowed = _bound_options(bound)
            for opt, value in bound_options.items():
                if opt not in allowed:
                    raise ValueError(f"bound_options: unknown option {opt!r} for bound "
                                     f"{bound!r}; allowed {sorted(allowed)}")
                bound_options[opt] = _plain(value, f"bound_options.{opt}")
        return cls(name=name, base=base, axes=axes, algorithms=tuple(algs), seeds=seeds,
                   options=options, bound=bound, bound_options=bound_options,
                   description=str(data.get("description", "")))

    def to_dict(self) -> dict:
        """The declaration as plain data (what :meth:`from_dict` accepts)."""
        axes = {}
        for axis, settings in self.axes.items():
            if not self.compound(axis):
                axes[axis] = [p[axis] for p in settings.values()]
            else:
                axes[axis] = {label: dict(p) for label, p in settings.items()}
        out = {"name": self.name, "description": self.description, "base": dict(self.base),
               "axes": axes, "algorithms": list(self.algorithms), "seeds": list(self.seeds),
               "options": {a: dict(o) for a, o in self.options.items()}}
        if self.bound is not None:
            out["bound"] = self.bound
            out["bound_options"] = dict(self.bound_options)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, default=_json_default)

    # ----------------------------------------------------------------- the grid
    def compound(self, axis: str) -> bool:
        """True for an axis of labelled settings, False for a list of values."""
        return not all(list(p) == [axis] and label == str(p[axis])
                       for label, p in self.axes[axis].items())

    @property
    def dims(self) -> tuple:
        return (*self.axes, "algorithm", "seed")

    def coords(self) -> dict:
        """Coordinate labels of every dimension (numbers stay numbers where they can)."""
        coords = {}
        for axis, settings in self.axes.items():
            values = (list(settings) if self.compound(axis)
                      else [p[axis] for p in settings.values()])
            numeric = all(isinstance(v, int | float) and not isinstance(v, bool)
                          for v in values)
            coords[axis] = np.array(values) if numeric else np.array([str(v) for v in values])
        coords["algorithm"] = np.array(self.algorithms)
        coords["seed"] = np.array(self.seeds, dtype=np.int64)
        return coords

    def cells(self) -> list[Cell]:
        """Every distinct unit of work, with the dataset positions it fills."""
        scenario_params = _scenario_parameters()
        coords = self.coords()
        found: dict[str, tuple[dict, list]] = {}
        settings = [list(s.values()) for s in self.axes.values()]
        for point in product(*[range(len(s)) for s in settings]):
            merged = {}
            for s, j in zip(settings, point, strict=True):
                merged.update(s[j])
            where_axes = tuple((axis, coords[axis][j].item())
                               for axis, j in zip(self.axes, point, strict=True))
            scenario = dict(self.base)
            scenario.update({p: v for p, v in merged.items() if p in scenario_params})
            extra = {p: v for p, v in merged.items() if p not in scenario_params}
            for seed in self.seeds:
                jobs = [(alg, alg) for alg in self.algorithms]
                if self.bound is not None:
                    jobs.append((None, None))
                for alg, label in jobs:
                    if alg is None:
                        params = {"scenario": scenario, "algorithm": None, "bound": self.bound,
                                  "options": dict(self.bound_options), "seed": seed}
                        where = (*where_axes, ("seed", seed))
                    else:
                        opts = dict(self.options.get(alg, {}))
                        accepted = _algorithm_options(alg)
                        opts.update({p: v for p, v in extra.items() if p in accepted})
                        params = {"scenario": scenario, "algorithm": alg, "options": opts,
                                  "seed": seed}
                        where = (*where_axes, ("algorithm", label), ("seed", seed))
                    key = cell_key(params)
                    if key not in found:
                        found[key] = (params, [])
                    found[key][1].append(where)
        return [Cell(key, params, tuple(where)) for key, (params, where) in found.items()]


def _bound_options(bound: str) -> set[str]:
    if bound == "lp":
        from ..pdftsp.colgen import offline_upper_bound as fn
    else:
        from ..pdftsp.offline import offline_opt as fn
    return {p for p in inspect.signature(fn).parameters if p not in ("scenario", "progress")}


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{value!r} is not JSON serialisable")


#: modules that do not change a cell's numbers; editing them keeps finished cells valid
_PRESENTATION = {"plots.py", "bench.py", "cli.py", "widgets.py", "figures.py"}


@functools.cache
def code_fingerprint() -> str:
    """A hash of the package's source (presentation modules excepted): part of every cell
    key, so that finished cells computed by other code are not reused."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        if path.name not in _PRESENTATION:
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cell_key(params: dict) -> str:
    """A content hash of a cell's parameters and of the code that computes it."""
    text = json.dumps(params, sort_keys=True, default=_json_default)
    return hashlib.sha256((code_fingerprint() + text).encode()).hexdigest()[:20]


# --------------------------------------------------------------------------- one cell
def build_scenario(params: dict, seed: int):
    """``synthetic_scenario(**params, seed=seed)``; with ``vendors=0`` and no
    ``preprocessing_share`` given, nobody needs pre-processing."""
    from ..pdftsp.workload import synthetic_scenario

    params = dict(params)
    if params.get("vendors") == 0 and "preprocessing_share" not in params:
        params["preprocessing_share"] = 0.0
    return synthetic_scenario(**params, seed=seed)


def run_cell(params: dict) -> dict:
    """Run one cell and return its metrics (plain floats); raises what the run raises."""
    from ..pdftsp.result import check_result
    from ..pdftsp.simulation import simulate

    scenario = build_scenario(params["scenario"], params["seed"])
    if params["algorithm"] is None:
        start = time.perf_counter()
        if params["bound"] == "lp":
            from ..pdftsp.colgen import offline_upper_bound

            ub = offline_upper_bound(scenario, **params["options"])
            bound, converged = ub.bound, ub.converged
        else:
            from ..pdftsp.offline import offline_opt

            opt = offline_opt(scenario, **params["options"])
            converged = opt.attrs["opt_status"] == "Optimal"
            bound = opt.attrs["opt_objective"] if converged else opt.attrs["opt_bound"]
        return {"bound": float(bound), "bound_converged": float(converged),
                "bound_seconds": time.perf_counter() - start}
    result = simulate(scenario, params["algorithm"], seed=params["seed"], **params["options"])
    check_result(result)
    a = result.attrs
    times = result["decision_time"].values
    out = {m: float(a[m]) for m in METRICS if m in a}
    out["load_factor"] = float(scenario.attrs["load_factor"])
    out["decision_time_mean"] = float(times.mean()) if times.size else 0.0
    out["decision_time_median"] = float(np.median(times)) if times.size else 0.0
    out["wall_seconds"] = float(a["wall_seconds"])
    return out


def _guarded(params: dict) -> dict:
    """Run a cell on a worker: never raises, the error travels back as data."""
    try:
        return {"ok": True, "metrics": run_cell(params)}
    except Exception as exc:  # noqa: BLE001 - any failure of a cell is recorded, not fatal
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()}


# --------------------------------------------------------------------------- the store
class Store:
    """One JSON file per finished (``done/``) or failed (``failed/``) cell, written
    atomically, plus the declaration (``sweep.json``). Safe to kill at any moment."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.done_dir = self.folder / "done"
        self.failed_dir = self.folder / "failed"

    def open(self, sweep: Sweep) -> None:
        self.done_dir.mkdir(parents=True, exist_ok=True)
        self.failed_dir.mkdir(parents=True, exist_ok=True)
        _atomic_write(self.folder / "sweep.json", sweep.to_json())

    def done(self) -> dict[str, dict]:
        out = {}
        if not self.done_dir.is_dir():
            return out
        for path in self.done_dir.glob("*.json"):
            try:
                record = json.loads(path.read_text())
            except (OSError, ValueError):
                continue  # a torn file cannot exist (atomic writes); ignore foreign ones
            out[path.stem] = record
        return out

    def failed(self) -> dict[str, dict]:
        out = {}
        if self.failed_dir.is_dir():
            for path in self.failed_dir.glob("*.json"):
                try:
                    out[path.stem] = json.loads(path.read_text())
                except (OSError, ValueError):
                    continue
        return out

    def put(self, cell: Cell, outcome: dict) -> None:
        record = {"key": cell.key, "params": cell.params, "cell": cell.describe()}
        if outcome["ok"]:
            record["metrics"] = outcome["metrics"]
            _atomic_write(self.done_dir / f"{cell.key}.json",
                          json.dumps(record, default=_json_default))
            (self.failed_dir / f"{cell.key}.json").unlink(missing_ok=True)
        else:
            record["error"] = outcome["error"]
            record["traceback"] = outcome["traceback"]
            _atomic_write(self.failed_dir / f"{cell.key}.json",
                          json.dumps(record, default=_json_default))


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def default_store(out) -> Path:
    """Where a sweep writing ``out`` keeps its cells: ``<out>.cells/``."""
    return Path(str(out) + ".cells")


# --------------------------------------------------------------------------- running
@dataclass
class SweepReport:
    """What :func:`run_sweep` did: the dataset and which cells ran, were skipped, failed."""

    dataset: xr.Dataset
    computed: int
    skipped: int
    failed: list  # [(cell description, error)]
    interrupted: bool = False


def _cost(cell: Cell) -> tuple:
    """Submission order: slow kinds of cells and big scenarios first (better balance)."""
    from ..pdftsp.workload import LOADS

    s = cell.params["scenario"]
    weight = {"titan": 3, None: 2}.get(cell.params["algorithm"], 0)
    load = s.get("load", "high")
    load = LOADS.get(load, load) if isinstance(load, str) else load
    return (-weight, -float(s.get("nodes", 100)), -float(load or 0), cell.key)


def run_sweep(sweep: Sweep | dict | str | os.PathLike, out=None, *, store=None,
              scheduler: str | None = None, workers: int | None = None,
              serial: bool = False, progress: bool = True,
              on_cell=None) -> SweepReport:
    """Run a sweep; return a :class:`SweepReport` (write ``out`` as netCDF if given).

    ``store`` (default ``<out>.cells``; required without ``out``) keeps finished cells:
    a second call skips them. ``serial=True`` runs in this process; otherwise the cells go
    to dask.distributed: the scheduler at ``scheduler`` (``"tcp://host:port"``) or an
    embedded ``LocalCluster`` of ``workers`` single-threaded processes (default: one per
    CPU). ``on_cell(cell, outcome)`` is called after each cell is persisted.
    A ``KeyboardInterrupt`` stops the sweep; finished cells stay in the store.
    """
    if not isinstance(sweep, Sweep):
        sweep = Sweep.from_dict(sweep) if isinstance(sweep, dict) else Sweep.from_file(sweep)
    if out is None and store is None:
        raise ValueError("run_sweep needs out= (a .nc path) or store= (a folder)")
    if out is not None:
        folder = Path(out).resolve().parent
        if not folder.is_dir():
            raise ValueError(f"out: folder {folder} does not exist")
    store = Store(store if store is not None else default_store(out))
    store.open(sweep)
    cells = sweep.cells()
    finished = store.done()
    failed, computed, skipped, interrupted = _execute(
        cells, finished, store, name=sweep.name, serial=serial, scheduler=scheduler,
        workers=workers, progress=progress, on_cell=on_cell)
    dataset = assemble_results(sweep, cells, finished, failed)
    if out is not None and not interrupted:
        _write_netcdf(dataset, Path(out))
    return SweepReport(dataset, computed=computed, skipped=skipped,
                       failed=list(failed.values()), interrupted=interrupted)


def _execute(cells: list[Cell], finished: dict, store: Store, *, name: str, serial: bool,
             scheduler, workers, progress: bool, on_cell=None) -> tuple:
    """Run the cells not in ``finished`` (updated in place), persisting each in ``store``.

    Returns ``(failed, computed, skipped, interrupted)``."""
    pending = sorted([c for c in cells if c.key not in finished], key=_cost)
    skipped = len(cells) - len(pending)
    failed: dict[str, tuple] = {}
    computed = 0
    bar = tqdm(total=len(cells), initial=skipped, desc=name, unit="cell",
               disable=not progress, dynamic_ncols=True)
    bar.set_postfix(failed=0)

    def record(cell: Cell, outcome: dict) -> None:
        nonlocal computed
        store.put(cell, outcome)
        if outcome["ok"]:
            finished[cell.key] = {"metrics": outcome["metrics"]}
            computed += 1
        else:
            failed[cell.key] = (cell.describe(), outcome["error"])
            bar.write(f"cell failed: {cell.describe()}: {outcome['error']}")
        bar.update(1)
        bar.set_postfix(failed=len(failed))
        if on_cell is not None:
            on_cell(cell, outcome)

    interrupted = False
    try:
        if pending and serial:
            for cell in pending:
                record(cell, _guarded(cell.params))
        elif pending:
            _run_dask(pending, record, scheduler=scheduler, workers=workers)
    except KeyboardInterrupt:
        interrupted = True
        bar.write(f"interrupted: {len(finished)} of {len(cells)} cells are in {store.folder}; "
                  "run the same command again to resume")
    finally:
        bar.close()
    return failed, computed, skipped, interrupted


def run_sweeps(sweeps, store, *, scheduler: str | None = None, workers: int | None = None,
               serial: bool = False, progress: bool = True, name: str = "sweeps",
               on_cell=None) -> SweepReport:
    """Run the cells of several sweeps as ONE batch into one ``store`` folder.

    Cells shared by several sweeps (the same scenario, algorithm, options and seed) run
    once, and one pool of workers stays busy across all of them, so this is faster than
    calling :func:`run_sweep` for each. Afterwards ``run_sweep(s, store=store)`` finds every
    cell of ``s`` done and only assembles its dataset. The report's ``dataset`` is empty.
    """
    sweeps = [s if isinstance(s, Sweep) else
              (Sweep.from_dict(s) if isinstance(s, dict) else Sweep.from_file(s))
              for s in sweeps]
    store = Store(store)
    union: dict[str, Cell] = {}
    for sweep in sweeps:
        store.open(sweep)
        for cell in sweep.cells():
            union.setdefault(cell.key, cell)
    finished = store.done()
    failed, computed, skipped, interrupted = _execute(
        list(union.values()), finished, store, name=name, serial=serial,
        scheduler=scheduler, workers=workers, progress=progress, on_cell=on_cell)
    return SweepReport(xr.Dataset(), computed=computed, skipped=skipped,
                       failed=list(failed.values()), interrupted=interrupted)


def _run_dask(pending: list[Cell], record, *, scheduler, workers) -> None:
    import logging

    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        n = workers or os.cpu_count() or 1
        logging.getLogger("distributed").setLevel(logging.ERROR)
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
    try:
        by_future = {}
        for cell in pending:
            future = client.submit(_guarded, cell.params, key=f"cell-{cell.key}", pure=False)
            by_future[future] = cell
        for future in as_completed(list(by_future)):
            cell = by_future.pop(future)
            try:
                outcome = future.result()
            except Exception as exc:  # noqa: BLE001 - e.g. a worker died (KilledWorker)
                outcome = {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                           "traceback": traceback.format_exc()}
            record(cell, outcome)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def assemble_results(sweep: Sweep, cells: list[Cell], finished: dict,
                     failed: dict | None = None) -> xr.Dataset:
    """The results Dataset from finished cells (NaN where a cell is missing or failed)."""
    coords = sweep.coords()
    dims = sweep.dims
    shape = tuple(len(coords[d]) for d in dims)
    index = {d: {v.item(): j for j, v in enumerate(coords[d])} for d in dims}
    data = {m: np.full(shape, np.nan) for m in METRICS}
    bound_dims = tuple(d for d in dims if d != "algorithm")
    bound_shape = tuple(len(coords[d]) for d in bound_dims)
    bounds = {m: np.full(bound_shape, np.nan) for m in BOUND_METRICS}
    for cell in cells:
        rec = finished.get(cell.key)
        if rec is None:
            continue
        for where in cell.where:
            pos = dict(where)
            if cell.params["algorithm"] is None:
                at = tuple(index[d][pos[d]] for d in bound_dims)
                for m in BOUND_METRICS:
                    bounds[m][at] = rec["metrics"][m]
            else:
                at = tuple(index[d][pos[d]] for d in dims)
                for m in METRICS:
                    data[m][at] = rec["metrics"].get(m, math.nan)
    ds = xr.Dataset({m: (dims, v) for m, v in data.items()}, coords=coords)
    if sweep.bound is not None:
        for m, v in bounds.items():
            ds[m] = (bound_dims, v)
        welfare = ds["welfare"].where(ds["welfare"] > 0)
        ds["competitive_ratio"] = (ds["bound"] / welfare).transpose(*dims)
        ds["competitive_ratio"].attrs["long_name"] = ("bound / online welfare (>= the true "
                                                      "competitive ratio OPT/ALG)")
    for m, text in {**METRICS, **BOUND_METRICS}.items():
        if m in ds:
            ds[m].attrs["long_name"] = text
            if m in TIMINGS:
                ds[m].attrs["timing"] = 1
    failed = failed or {}
    ds.attrs["sweep"] = sweep.to_json()
    ds.attrs["name"] = sweep.name
    ds.attrs["cells"] = len(cells)
    ds.attrs["cells_done"] = sum(1 for c in cells if c.key in finished)
    ds.attrs["failed_cells"] = json.dumps([{"cell": d, "error": e} for d, e in failed.values()])
    from .. import __version__

    ds.attrs["lorasched_version"] = __version__
    ds.attrs["code_fingerprint"] = code_fingerprint()
    return ds


def _write_netcdf(ds: xr.Dataset, out: Path) -> None:
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    os.close(fd)
    try:
        ds.to_netcdf(tmp)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def without_timings(ds: xr.Dataset) -> xr.Dataset:
    """``ds`` without the measured times: what must agree between any two runs."""
    return ds.drop_vars([v for v in TIMINGS if v in ds])
