"""The plug-in contract between a system (one paper's model) and the experiment engine:
:class:`System`, its scenarios, policies ``run(arrays, rng, **options)``, metrics, checker
and bounds; see :doc:`/reference/engine`.
"""

from __future__ import annotations

import hashlib
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .errors import InputError

#: a policy's positional arguments; every other parameter is an option
POLICY_ARGUMENTS = ("arrays", "rng")


def policy_options(run: Callable) -> frozenset[str]:
    """The keyword options a policy accepts (its parameters beyond ``arrays, rng``)."""
    params = inspect.signature(run).parameters
    return frozenset(p for p in params if p not in POLICY_ARGUMENTS)


def check_options(run: Callable, algorithm: str, options: dict) -> None:
    """:class:`~lorasched.model.errors.InputError` naming the options ``run`` does not
    accept, and those it does."""
    params = inspect.signature(run).parameters
    unknown = sorted(set(options) - set(params))
    if unknown:
        allowed = sorted(p for p in params if p not in POLICY_ARGUMENTS)
        raise InputError(f"algorithm {algorithm!r} got unknown option(s) {unknown}; "
                        f"it accepts {allowed}")


def timed_run(run: Callable, algorithm: str, arrays, seed, options: dict):
    """Check ``options`` against ``run`` (:func:`check_options`), then run it on ``arrays``
    with ``numpy.random.default_rng(seed)``; returns its output and the wall seconds it
    took (what every system's ``simulate`` does between building arrays and assembling)."""
    check_options(run, algorithm, options)
    rng = np.random.default_rng(seed)
    clock = time.perf_counter()
    out = run(arrays, rng, **options)
    return out, time.perf_counter() - clock


def source_fingerprint(fn: Callable) -> str:
    """A hash of ``fn``'s source code, or ``""`` for lorasched's own functions (whose
    source the package fingerprint covers). A policy written in a notebook or a user's
    module thus changes its sweep cells' keys when its code changes."""
    module = getattr(fn, "__module__", "") or ""
    if module == "lorasched" or module.startswith("lorasched."):
        return ""
    try:
        text = inspect.getsource(fn)
    except (OSError, TypeError):  # no source (a builtin, a lambda typed at a prompt)
        text = getattr(fn, "__qualname__", repr(fn))
    return hashlib.sha256(f"{module}:{text}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Bound:
    """An upper bound on the offline optimum, computed per scenario.

    ``compute(scenario, **options)`` returns ``(bound, converged)``: the value and whether
    it is exact (an LP optimum, a proven optimum) rather than a limit's best."""

    compute: Callable
    options: frozenset[str]
    description: str


@dataclass(frozen=True)
class System:
    """Everything the experiment engine needs to know of one paper's system.

    * ``build_scenario(**params, seed=seed)`` returns a validated ``xarray.Dataset`` whose
      attribute ``system`` is ``name``; ``scenario_parameters`` are the names it accepts.
    * ``policies``: name -> ``run(arrays, rng, **options)``. This dict is the system's one
      registry: :meth:`register` adds to it, ``simulate`` and sweeps read it.
    * ``simulate(scenario, policy, seed, **options)`` runs a policy and returns the result
      ``Dataset``; ``check_result(result)`` raises naming the broken constraint.
    * ``metrics``: name -> meaning with unit; ``measure(scenario, result)`` returns their
      values as floats. ``timings`` names the ones that are measured times (they differ
      between runs; everything else is reproducible bit for bit).
    * ``bounds``: name -> :class:`Bound`; ``bound_metric`` is the metric a bound bounds
      (the engine stores ``bound / bound_metric`` as ``ratio_name``).
    * ``cost(params)``: a sort key; cells are submitted cheapest-last (slow ones first).
    * ``validate(scenario)``: raises naming what a scenario breaks
      (:func:`lorasched.systems.load_scenario` runs it on a file).
    """

    name: str
    title: str
    build_scenario: Callable
    scenario_parameters: frozenset[str]
    policies: dict[str, Callable]
    simulate: Callable
    check_result: Callable
    metrics: dict[str, str]
    measure: Callable
    timings: tuple[str, ...] = ()
    bounds: dict[str, Bound] = field(default_factory=dict)
    bound_metric: str | None = None
    ratio_name: str = "ratio"
    cost: Callable | None = None
    #: ``validate(scenario)`` raises an InputError naming the first thing a scenario of
    #: this system breaks (its schema, its ranges, the declared limits)
    validate: Callable | None = None

    def policy(self, name: str) -> Callable:
        """The ``run`` function of policy ``name``; ``ValueError`` naming the choices."""
        try:
            return self.policies[name]
        except KeyError:
            raise InputError(f"unknown algorithm {name!r} for system {self.name!r}; "
                             f"choose one of {sorted(self.policies)}") from None

    def register(self, name: str, run: Callable, *, replace: bool = False) -> Callable:
        """Add policy ``run`` under ``name`` (``replace=True`` to redefine one); returns
        ``run``, so it works as ``system.register("mine", my_run)`` or as a decorator
        through :func:`functools.partial`.

        The policy is registered in this process: a sweep that uses it runs serially, or
        on Dask workers that import the module defining it."""
        if not isinstance(name, str) or not name.isidentifier():
            raise InputError(f"policy name must be an identifier, got {name!r}")
        if not callable(run):
            raise InputError(f"policy {name!r}: expected a function run(arrays, rng, "
                             f"**options), got {type(run).__name__}")
        params = list(inspect.signature(run).parameters)
        if params[:2] != list(POLICY_ARGUMENTS):
            raise InputError(f"policy {name!r}: its first two parameters must be "
                             f"(arrays, rng), got {params[:2]}")
        if name in self.policies and self.policies[name] is not run and not replace:
            raise InputError(f"policy {name!r} is already registered for system "
                             f"{self.name!r}; pass replace=True to redefine it")
        self.policies[name] = run
        return run

    def unregister(self, name: str) -> None:
        """Remove a policy added with :meth:`register`."""
        self.policy(name)
        del self.policies[name]
