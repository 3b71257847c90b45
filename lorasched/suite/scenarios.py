"""The suite's versioned definition: per system and size, the scenarios (a base, axes of
traces x loads x cluster sizes, seeds), the bound and the metrics its report shows.

Any change to :data:`DEFINITION` must bump :data:`SUITE_VERSION` (a test pins the
definition's hash to the version); two reports of one version ran the same cells.
"""

from __future__ import annotations

import copy
import hashlib
import json

from .. import systems
from ..experiments import Sweep
from ..model.errors import InputError

#: The suite's version (reports of the same version and size ran the same scenarios).
SUITE_VERSION = "2"
#: The sizes (``small`` runs on a laptop in minutes, ``full`` is for papers).
SIZES = ("small", "full")
#: the level of every interval of the report
LEVEL = 0.95

#: Per system, ``metrics`` (the columns of its table, the system's metric names or a
#: ratio's name), ``ratios`` (name -> numerator, denominator, meaning: ``bound`` is the
#: sweep's bound), ``timings`` (the machine-dependent columns: decision time, then the
#: policy's run time), ``bound`` (a bound of the system, or None), ``options`` (a built-in
#: policy's options, when it runs) and per size the sweep: ``base`` (scenario
#: parameters), ``axes`` (traces x loads x cluster sizes) and ``seeds``
DEFINITION: dict = {
    "pdftsp": {
        "metrics": ["welfare", "welfare_to_bound", "provider_utility", "admitted_share"],
        "ratios": {"welfare_to_bound": ["welfare", "bound",
                                        "welfare / the offline LP bound (1: the bound)"],
                   "admitted_share": ["n_admitted", "n_tasks",
                                      "admitted tasks / arrived tasks"]},
        "timings": ["decision_time_mean", "wall_seconds"],
        "bound": "lp",
        # Titan's per-slot MILP as the figure pages run it (solved to the same gap, several
        # times faster than the library's default root-node setting)
        "options": {"titan": {"solver": "columns", "mip": "rens_lean"},
                    "titan_oracle": {"solver": "columns", "mip": "rens_lean"}},
        "sizes": {
            # the figure pages' small day (10 % of the paper's cluster and load, 48 slots)
            "small": {"base": {"gpu": "mix", "vendors": 5, "deadline_policy": "slack",
                               "slots": 48},
                      "axes": {"trace": {"poisson": {"trace": None},
                                         "philly": {"trace": "philly"}},
                               "load": {"medium (5)": {"load": 5.0},
                                        "high (8)": {"load": 8.0}},
                               "nodes": [10, 20]},
                      "seeds": [1, 2, 3]},
            # the paper's day (sec. 5.1) and Fig. 7's traces
            "full": {"base": {"gpu": "mix", "vendors": 5, "deadline_policy": "slack",
                              "slots": 144},
                     "axes": {"trace": {"poisson": {"trace": None},
                                        "mlaas": {"trace": "mlaas"},
                                        "philly": {"trace": "philly"},
                                        "helios": {"trace": "helios"}},
                              "load": {"light (30)": {"load": 30.0},
                                       "medium (50)": {"load": 50.0},
                                       "high (80)": {"load": 80.0}},
                              "nodes": [50, 100]},
                     "seeds": list(range(1, 11))},
        },
    },
    "titan": {
        "metrics": ["avg_jct_h", "makespan_h"],
        "ratios": {},
        "timings": ["solve_time_mean", "wall_seconds"],
        "bound": None,
        "options": {},
        "sizes": {
            # the figure pages' small workloads (40 jobs at density 1)
            "small": {"base": {"gpus_per_node": 4, "jobs": 40},
                      "axes": {"workload": ["authors", "helios"], "density": [1.0, 2.0],
                               "nodes": [8, 16]},
                      "seeds": [1, 2, 3]},
            # the paper's workloads (Fig. 5's densities) on the authors' code's cluster
            # (8 x 4) and the paper's (16 x 4)
            "full": {"base": {"gpus_per_node": 4},
                     "axes": {"workload": ["authors", "helios"],
                              "density": [0.5, 1.0, 1.5, 2.0], "nodes": [8, 16]},
                     "seeds": list(range(1, 11))},
        },
    },
    "allpass": {
        "metrics": ["cost_usd", "median_jct_min", "p90_jct_min", "avg_jct_min"],
        "ratios": {},
        "timings": ["wall_seconds"],
        "bound": None,
        "options": {},
        "sizes": {
            # 40 jobs (the figure pages' small), the cap of sec. 5.1 scaled with the jobs
            # (30 x 40 / 200 = 6) so that it binds
            "small": {"base": {"jobs": 40},
                      "axes": {"source": ["helios", "mixture"],
                               "capacity": {"capped (6)": {"capacity": 6},
                                            "unlimited": {"capacity": "none"}}},
                      "seeds": [1, 2, 3]},
            # sec. 5.1's 200 jobs, limited (30 workers) and unlimited setups
            "full": {"base": {"jobs": 200},
                     "axes": {"source": ["helios", "mixture"],
                              "capacity": {"capped (30)": {"capacity": 30},
                                           "unlimited": {"capacity": "none"}}},
                     "seeds": list(range(1, 11))},
        },
    },
}


def definition_hash(definition: dict | None = None) -> str:
    """The hash of the suite's definition, which its version names.

    Parameters
    ----------
    definition : dict, optional
        A definition shaped as :data:`DEFINITION` (default: :data:`DEFINITION`).

    Returns
    -------
    str
        16 hexadecimal digits of the SHA-256 of its canonical JSON.
    """
    definition = DEFINITION if definition is None else definition
    if not isinstance(definition, dict):
        raise InputError(f"definition must be a dict, got {type(definition).__name__}")
    text = json.dumps(definition, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def check_size(size: str) -> None:
    """Refuse a size the suite does not define.

    Parameters
    ----------
    size : str
        One of :data:`SIZES`.

    Raises
    ------
    InputError
        Naming the size and the choices.
    """
    if size not in SIZES:
        raise InputError(f"size must be one of {SIZES}, got {size!r}")


def check_system(system: str) -> None:
    """Refuse a system the suite does not cover.

    Parameters
    ----------
    system : str
        A key of :data:`DEFINITION`.

    Raises
    ------
    InputError
        Naming the system and the choices.
    """
    if system not in DEFINITION:
        raise InputError(f"system {system!r} is not in the suite; choose one of "
                         f"{sorted(DEFINITION)}")


def system_definition(system: str) -> dict:
    """One system's part of the definition (a copy).

    Parameters
    ----------
    system : str
        A key of :data:`DEFINITION`.

    Returns
    -------
    dict
        Its ``metrics``, ``ratios``, ``timings``, ``bound``, ``options`` and ``sizes``.

    Raises
    ------
    InputError
        If the suite does not cover ``system``.
    """
    check_system(system)
    return copy.deepcopy(DEFINITION[system])


def declaration(system: str, size: str, algorithms) -> dict:
    """The sweep declaration of one system's cells at one size.

    Parameters
    ----------
    system : str
        A key of :data:`DEFINITION`.
    size : str
        One of :data:`SIZES`.
    algorithms : sequence of str
        The policies to run, names in the system's registry.

    Returns
    -------
    dict
        A declaration for :meth:`~lorasched.experiments.declaration.Sweep.from_dict`, named
        ``suite<version>_<system>_<size>``.

    Raises
    ------
    InputError
        For an unknown system or size, or no policy.
    """
    check_size(size)
    part = system_definition(system)
    algorithms = list(algorithms)
    if not algorithms:
        raise InputError(f"suite: no policy selected for system {system!r}")
    setting = part["sizes"][size]
    decl = {"name": f"suite{SUITE_VERSION}_{system}_{size}", "system": system,
            "description": f"lorasched suite {SUITE_VERSION}, {system}, size {size}",
            "base": setting["base"], "axes": setting["axes"], "algorithms": algorithms,
            "seeds": list(setting["seeds"])}
    options = {a: o for a, o in part["options"].items() if a in algorithms}
    if options:
        decl["options"] = options
    if part["bound"] is not None:
        decl["bound"] = part["bound"]
    return decl


def sweep(system: str, size: str, algorithms) -> Sweep:
    """The validated sweep of one system's cells at one size (:func:`declaration`).

    Parameters
    ----------
    system : str
        A key of :data:`DEFINITION`.
    size : str
        One of :data:`SIZES`.
    algorithms : sequence of str
        The policies to run, names in the system's registry.

    Returns
    -------
    ~lorasched.experiments.declaration.Sweep

    Raises
    ------
    InputError
        For an unknown system, size or policy.
    """
    systems.get(system)
    return Sweep.from_dict(declaration(system, size, algorithms))
