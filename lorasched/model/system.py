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

#: A policy's positional arguments; every other parameter is an option.
POLICY_ARGUMENTS = ("arrays", "rng")


def policy_options(run: Callable) -> frozenset[str]:
    """The keyword options a policy accepts: its parameters beyond ``arrays, rng``.

    Parameters
    ----------
    run : callable
        A policy, ``run(arrays, rng, **options)``.

    Returns
    -------
    frozenset of str
        The names of its parameters other than :data:`POLICY_ARGUMENTS`.
    """
    params = inspect.signature(run).parameters
    return frozenset(p for p in params if p not in POLICY_ARGUMENTS)


def check_options(run: Callable, algorithm: str, options: dict) -> None:
    """Check that policy ``run`` accepts every option in ``options``.

    Parameters
    ----------
    run : callable
        A policy, ``run(arrays, rng, **options)``.
    algorithm : str
        The policy's name, for the message.
    options : dict
        Option name -> value, as they would be passed to ``run``.

    Raises
    ------
    InputError
        Naming the options ``run`` does not accept, and those it does.
    """
    params = inspect.signature(run).parameters
    unknown = sorted(set(options) - set(params))
    if unknown:
        allowed = sorted(p for p in params if p not in POLICY_ARGUMENTS)
        raise InputError(f"algorithm {algorithm!r} got unknown option(s) {unknown}; "
                        f"it accepts {allowed}")


def timed_run(run: Callable, algorithm: str, arrays, seed, options: dict):
    """Run a policy on a scenario's arrays with a seeded generator, timed.

    What every system's ``simulate`` does between building arrays and assembling.

    Parameters
    ----------
    run : callable
        The policy, ``run(arrays, rng, **options)``.
    algorithm : str
        The policy's name, for the messages.
    arrays
        The scenario's plain arrays, as the system's ``to_arrays`` builds them.
    seed : int or None
        Seeds ``numpy.random.default_rng(seed)``, the generator handed to ``run``.
    options : dict
        Keyword options of ``run``, checked first (:func:`check_options`).

    Returns
    -------
    output : object
        What ``run`` returned.
    seconds : float
        The wall seconds it took.

    Raises
    ------
    InputError
        If ``run`` does not accept one of ``options``.
    """
    check_options(run, algorithm, options)
    rng = np.random.default_rng(seed)
    clock = time.perf_counter()
    out = run(arrays, rng, **options)
    return out, time.perf_counter() - clock


def source_fingerprint(fn: Callable) -> str:
    """A hash of a function's source code, so that a sweep cell's key follows its policy.

    A policy written in a notebook or a user's module thus changes its sweep cells' keys
    when its code changes.

    Parameters
    ----------
    fn : callable
        The function, usually a policy.

    Returns
    -------
    str
        16 hexadecimal digits of the SHA-256 of its module and source (its qualified name
        when it has no source, a builtin or a lambda typed at a prompt), or ``""`` for
        lorasched's own functions, whose source the package fingerprint covers.
    """
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

    Parameters
    ----------
    compute : callable
        ``compute(scenario, **options)`` returns ``(bound, converged)``: the value and
        whether it is exact (an LP optimum, a proven optimum) rather than a limit's best.
    options : frozenset of str
        The keyword options ``compute`` accepts.
    description : str
        What the bound is, for a reader.
    """

    compute: Callable
    options: frozenset[str]
    description: str


@dataclass(frozen=True)
class System:
    """Everything the experiment engine needs to know of one paper's system.

    Parameters
    ----------
    name : str
        The system's name, the ``system`` attribute of its scenarios.
    title : str
        The paper, for a reader.
    build_scenario : callable
        ``build_scenario(**params, seed=seed)`` returns a validated ``xarray.Dataset``
        whose attribute ``system`` is ``name``.
    scenario_parameters : frozenset of str
        The parameter names ``build_scenario`` accepts.
    policies : dict
        Name -> ``run(arrays, rng, **options)``. This dict is the system's one registry:
        :meth:`register` adds to it, ``simulate`` and sweeps read it.
    simulate : callable
        ``simulate(scenario, policy, seed, **options)`` runs a policy and returns the
        result ``Dataset``.
    check_result : callable
        ``check_result(result)`` raises :class:`~lorasched.model.errors.ResultError`
        naming the broken constraint.
    metrics : dict
        Metric name -> meaning with unit.
    measure : callable
        ``measure(scenario, result)`` returns the metrics' values as floats.
    timings : tuple of str, optional
        The metrics that are measured times (they differ between runs; everything else
        is reproducible bit for bit).
    bounds : dict, optional
        Name -> :class:`Bound`.
    bound_metric : str, optional
        The metric a bound bounds (the engine stores ``bound / bound_metric`` as
        ``ratio_name``).
    ratio_name : str, optional
        The name of that ratio (default ``"ratio"``).
    cost : callable, optional
        ``cost(params)``: a sort key; cells are submitted cheapest-last (slow ones first).
    expected_seconds : callable, optional
        ``expected_seconds(params)``: a cell's expected CPU seconds on one core (a model
        fitted to measured cells); a batch's progress bar counts them, so that its
        estimate of the time left is honest from the start.
    validate : callable, optional
        ``validate(scenario)`` raises an :class:`~lorasched.model.errors.InputError`
        naming the first thing a scenario breaks (its schema, its ranges, the declared
        limits); :func:`lorasched.systems.load_scenario` runs it on a file.
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
    expected_seconds: Callable | None = None
    #: ``validate(scenario)`` raises an InputError naming the first thing a scenario of
    #: this system breaks (its schema, its ranges, the declared limits)
    validate: Callable | None = None

    def policy(self, name: str) -> Callable:
        """The ``run`` function of one of the system's policies.

        Parameters
        ----------
        name : str
            A key of the system's ``policies``.

        Returns
        -------
        callable
            ``run(arrays, rng, **options)``.

        Raises
        ------
        InputError
            If no policy is called ``name`` (a ``ValueError``), naming the choices.
        """
        try:
            return self.policies[name]
        except KeyError:
            raise InputError(f"unknown algorithm {name!r} for system {self.name!r}; "
                             f"choose one of {sorted(self.policies)}") from None

    def register(self, name: str, run: Callable, *, replace: bool = False) -> Callable:
        """Add a policy to the system's registry.

        The policy is registered in this process: a sweep that uses it runs serially, or
        on Dask workers that import the module defining it.

        Parameters
        ----------
        name : str
            The policy's name, an identifier.
        run : callable
            ``run(arrays, rng, **options)``: its first two parameters are ``arrays`` and
            ``rng``; every other one is an option.
        replace : bool, optional
            Redefine a policy already registered under ``name`` (default False).

        Returns
        -------
        callable
            ``run`` itself, so that this works as ``system.register("mine", my_run)`` or
            as a decorator through ``functools.partial``.

        Raises
        ------
        InputError
            If ``name`` is not an identifier, ``run`` is not callable or its first two
            parameters are not ``(arrays, rng)``, or another policy is registered under
            ``name`` and ``replace`` is False.
        """
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
        """Remove a policy added with :meth:`register`.

        Parameters
        ----------
        name : str
            The policy's name.

        Raises
        ------
        InputError
            If no policy is called ``name``.
        """
        self.policy(name)
        del self.policies[name]
