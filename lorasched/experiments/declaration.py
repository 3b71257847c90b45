"""A sweep's declaration (:class:`Sweep`): which system, a parameter grid, policies, seeds,
options and bound, from a dict or a TOML, YAML or JSON file, validated against the system
before anything runs. The keys: :doc:`/scale`; the rules: :doc:`/reference/engine`.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from .. import systems
from ..model.errors import InputError, read_text
from ..model.system import System, policy_options

KEYS = {"name", "system", "base", "axes", "algorithms", "seeds", "options", "bound",
        "bound_options", "description", "repeats", "seed_limit", "keep", "label"}


def plain(value, where: str):
    """A JSON scalar (str, int, float, bool, None); numpy scalars become Python ones."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise InputError(f"{where}: {value!r} is not a scalar (string, number, boolean)")


def json_default(value):
    """``json.dumps`` fallback for numpy values."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{value!r} is not JSON serialisable")


def _read(path: Path) -> dict:
    text = read_text(path, "sweep file")
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            data = tomllib.loads(text)
        elif suffix in (".yaml", ".yml"):
            data = yaml.safe_load(text)
        elif suffix == ".json":
            data = json.loads(text)
        else:
            raise InputError(f"sweep file {path}: unknown format {suffix!r} "
                             "(use .toml, .yaml, .yml or .json)")
    except ValueError as exc:  # tomllib/json errors are ValueErrors; say which file
        if str(path) in str(exc):
            raise
        raise InputError(f"sweep file {path}: {exc}") from None
    except yaml.YAMLError as exc:
        raise InputError(f"sweep file {path}: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(f"sweep file {path}: expected a table of settings at the top")
    return data


def _seeds(seeds) -> tuple[int, ...]:
    if isinstance(seeds, bool):
        raise InputError(f"seeds must be a count or a list of integers, got {seeds!r}")
    if isinstance(seeds, int):
        if seeds < 1:
            raise InputError(f"seeds: a count must be >= 1, got {seeds}")
        seeds = list(range(1, seeds + 1))
    if not isinstance(seeds, list | tuple) or not seeds or not all(
            isinstance(s, int | np.integer) and not isinstance(s, bool) for s in seeds):
        raise InputError(f"seeds must be a count or a non-empty list of integers, got "
                         f"{seeds!r}")
    seeds = tuple(int(s) for s in seeds)
    if len(set(seeds)) != len(seeds):
        raise InputError(f"seeds: a seed is listed twice in {list(seeds)}")
    return seeds


def _algorithms(algs, system: System) -> tuple[str, ...]:
    if isinstance(algs, str):
        algs = [algs]
    if not algs:
        raise InputError(f"'algorithms' must list at least one of {sorted(system.policies)}")
    for a in algs:
        if a not in system.policies:
            raise InputError(f"algorithms: unknown algorithm {a!r} for system "
                             f"{system.name!r}; choose from {sorted(system.policies)}")
    if len(set(algs)) != len(algs):
        raise InputError(f"algorithms: listed twice in {list(algs)}")
    return tuple(algs)


def _axes(raw: dict, check_param) -> dict:
    axes = {}
    for axis, values in dict(raw).items():
        if axis in ("algorithm", "seed"):
            raise InputError(f"axes: {axis!r} is a dimension of every sweep; use "
                             "'algorithms' / 'seeds'")
        if isinstance(values, dict):  # compound axis: label -> {param: value}
            if not values:
                raise InputError(f"axes.{axis}: no settings")
            settings = {}
            for label, params in values.items():
                if not isinstance(params, dict) or not params:
                    raise InputError(f"axes.{axis}.{label}: a setting must be a "
                                     f"non-empty table of parameters, got {params!r}")
                for p in params:
                    check_param(p, f"axes.{axis}.{label}")
                settings[str(label)] = {p: plain(v, f"axes.{axis}.{label}.{p}")
                                        for p, v in params.items()}
        else:
            if not isinstance(values, list | tuple) or not values:
                raise InputError(f"axes.{axis}: expected a non-empty list of values, got "
                                 f"{values!r}")
            check_param(axis, f"axes.{axis}")
            values = [plain(v, f"axes.{axis}") for v in values]
            labels = [str(v) for v in values]
            if len(set(labels)) != len(labels):
                raise InputError(f"axes.{axis}: a value is listed twice in {values}")
            settings = {str(v): {axis: v} for v in values}
        axes[str(axis)] = settings
    return axes


@dataclass(frozen=True)
class Sweep:
    """A validated sweep declaration: system, scenario grid, policies, seeds, options, bound.

    Build it with :meth:`from_dict` or :meth:`from_file` (the module docstring shows a
    declaration), which validate everything against the named system.

    Parameters
    ----------
    name : str
        The sweep's name.
    base : dict
        Keyword arguments of the system's scenario builder.
    axes : dict
        The grid, one dimension per axis: axis -> {label: {param: value}}.
    algorithms : tuple of str
        Names in the system's policy registry.
    seeds : tuple of int
        The seeds of every cell.
    options : dict, optional
        Algorithm -> {option: value}.
    bound : str, optional
        One of the system's bounds, computed per scenario.
    bound_options : dict, optional
        Options of the bound.
    description : str, optional
        For a reader.
    system : str, optional
        The system (default ``lorasched.systems.DEFAULT``).
    repeats : int, optional
        Runs per policy cell; measured times are the median over them (default 1).
    seed_limit : dict, optional
        Algorithm -> how many of ``seeds`` it runs (the first ones): an expensive policy on
        fewer seeds than the cheap ones; its cells on the other seeds are not run (NaN).
    keep : bool, optional
        Keep each policy cell's whole checked result Dataset beside its metrics, as netCDF
        (``<store>/results/<key>.nc``, read by :meth:`Store.result
        <lorasched.experiments.store.Store.result>`), for a reader that needs more than the
        metrics (per-job times, time series). Part of the cells' keys (default False).
    label : str, optional
        What the progress forecast and a batch's report of CPU seconds call the sweep's
        cells beside their policy (``"<algorithm> [<label>]"``,
        :func:`lorasched.experiments.progress.policy`); carried in the cells' parameters but
        not in their keys (default "": the policy alone).
    """

    name: str
    base: dict
    axes: dict  # axis -> {label: {param: value}}
    algorithms: tuple
    seeds: tuple
    options: dict = field(default_factory=dict)  # algorithm -> {option: value}
    bound: str | None = None
    bound_options: dict = field(default_factory=dict)
    description: str = ""
    system: str = systems.DEFAULT
    repeats: int = 1  # runs per policy cell; measured times are the median over them
    seed_limit: dict = field(default_factory=dict)  # algorithm -> its first N seeds
    keep: bool = False  # keep each policy cell's result Dataset (in the cells' keys)
    label: str = ""  # the cells' name in reports beside their policy (not in their keys)

    def seeds_of(self, algorithm: str | None) -> tuple:
        """The seeds a policy runs.

        Parameters
        ----------
        algorithm : str or None
            One of the sweep's algorithms, or None for the bound (every seed has one).

        Returns
        -------
        tuple of int
            The first ``seed_limit[algorithm]`` of :attr:`seeds`, or all of them.
        """
        n = self.seed_limit.get(algorithm) if algorithm is not None else None
        return self.seeds if n is None else self.seeds[:n]

    @classmethod
    def from_file(cls, path) -> Sweep:
        """Read and validate a declaration file.

        Parameters
        ----------
        path : str or os.PathLike
            A ``.toml``, ``.yaml``/``.yml`` or ``.json`` file; its stem is the sweep's
            name unless it names one.

        Returns
        -------
        Sweep

        Raises
        ------
        FileNotFoundError
            If there is no such file.
        InputError
            If ``path`` is a folder or the file cannot be read, naming the file and the
            offending key and value.
        """
        path = Path(path)
        if path.is_dir():
            raise InputError(f"{path}: is a folder, not a sweep file")
        if not path.is_file():
            raise FileNotFoundError(f"sweep file {path} does not exist")
        data = _read(path)
        data.setdefault("name", path.stem)
        try:
            return cls.from_dict(data)
        except ValueError as exc:
            raise InputError(f"sweep file {path}: {exc}") from None

    @classmethod
    def load(cls, sweep) -> Sweep:
        """A sweep from a Sweep, a dict or a file path.

        Parameters
        ----------
        sweep : Sweep, dict, str or os.PathLike
            A sweep (returned as it is), a declaration (:meth:`from_dict`) or a file
            (:meth:`from_file`).

        Returns
        -------
        Sweep

        Raises
        ------
        InputError
            As :meth:`from_dict` or :meth:`from_file`.
        """
        if isinstance(sweep, Sweep):
            return sweep
        return cls.from_dict(sweep) if isinstance(sweep, dict) else cls.from_file(sweep)

    @classmethod
    def from_dict(cls, data: dict) -> Sweep:
        """Validate a declaration against its system.

        Parameters
        ----------
        data : dict
            The declaration: the keys ``name``, ``system``, ``base``, ``axes``,
            ``algorithms``, ``seeds``, ``options``, ``bound``, ``bound_options``,
            ``description``, ``repeats``, ``seed_limit``, ``keep`` and ``label`` (the
            class docstring).

        Returns
        -------
        Sweep

        Raises
        ------
        InputError
            Naming the offending key and value: an unknown key or system, an algorithm
            not in the registry, a parameter that is neither a scenario parameter nor an
            option, an unknown option or bound.
        """
        unknown = sorted(set(data) - KEYS)
        if unknown:
            raise InputError(f"unknown sweep key(s) {unknown}; allowed: {sorted(KEYS)}")
        try:
            system = systems.get(data.get("system", systems.DEFAULT))
        except ValueError as exc:
            raise InputError(f"system: {exc}") from None
        algs = _algorithms(data.get("algorithms"), system)
        seeds = _seeds(data.get("seeds", [1]))
        scenario_params = system.scenario_parameters
        options_of = {a: policy_options(system.policy(a)) for a in algs}
        all_options = frozenset().union(*options_of.values())

        def check_param(param: str, where: str) -> None:
            if param == "seed":
                raise InputError(f"{where}: 'seed' is set by 'seeds', not by a parameter")
            if param not in scenario_params and param not in all_options:
                raise InputError(f"{where}: {param!r} is neither a scenario parameter "
                                 f"{sorted(scenario_params)} nor an option of "
                                 f"{list(algs)} {sorted(all_options)}")

        base = dict(data.get("base", {}))
        for param, value in base.items():
            if param not in scenario_params:
                raise InputError(f"base: {param!r} is not a scenario parameter; choose from "
                                 f"{sorted(scenario_params)} (algorithm options go in "
                                 "[options.<algorithm>])")
            if not isinstance(value, list | tuple):  # a series (e.g. arrivals) stays a list
                base[param] = plain(value, f"base.{param}")
        axes = _axes(data.get("axes", {}), check_param)

        options = {}
        for alg, opts in dict(data.get("options", {})).items():
            if alg not in algs:
                raise InputError(f"options.{alg}: {alg!r} is not among the sweep's "
                                 f"algorithms {list(algs)}")
            if not isinstance(opts, dict):
                raise InputError(f"options.{alg}: expected a table of options, got {opts!r}")
            for opt in opts:
                if opt not in options_of[alg]:
                    raise InputError(f"options.{alg}: unknown option {opt!r}; {alg} accepts "
                                     f"{sorted(options_of[alg])}")
            options[alg] = {o: plain(v, f"options.{alg}.{o}") for o, v in opts.items()}

        bound = data.get("bound")
        if bound in (False, "", "none"):
            bound = None
        if bound is not None and bound not in system.bounds:
            raise InputError(f"bound must be one of {tuple(system.bounds)} or absent, got "
                             f"{bound!r}")
        bound_options = dict(data.get("bound_options", {}))
        if bound_options and bound is None:
            raise InputError("bound_options given but no 'bound'")
        for opt, value in bound_options.items():
            if opt not in system.bounds[bound].options:
                raise InputError(f"bound_options: unknown option {opt!r} for bound "
                                 f"{bound!r}; allowed {sorted(system.bounds[bound].options)}")
            bound_options[opt] = plain(value, f"bound_options.{opt}")
        repeats = data.get("repeats", 1)
        if isinstance(repeats, bool) or not isinstance(repeats, int | np.integer) or repeats < 1:
            raise InputError(f"repeats must be a whole number >= 1, got {repeats!r}")
        seed_limit = {}
        for alg, n in dict(data.get("seed_limit", {})).items():
            if alg not in algs:
                raise InputError(f"seed_limit.{alg}: {alg!r} is not among the sweep's "
                                 f"algorithms {list(algs)}")
            if isinstance(n, bool) or not isinstance(n, int | np.integer) or not \
                    1 <= n <= len(seeds):
                raise InputError(f"seed_limit.{alg} must be a whole number from 1 to the "
                                 f"sweep's {len(seeds)} seeds, got {n!r}")
            if n < len(seeds):
                seed_limit[alg] = int(n)
        keep = data.get("keep", False)
        if not isinstance(keep, bool | np.bool_):
            raise InputError(f"keep must be true or false, got {keep!r}")
        label = data.get("label", "")
        if not isinstance(label, str) or label != label.strip() or "\n" in label:
            raise InputError(f"label must be one line of text without surrounding spaces, "
                             f"got {label!r}")
        return cls(name=str(data.get("name", "sweep")), base=base, axes=axes, algorithms=algs,
                   seeds=seeds, options=options, bound=bound, bound_options=bound_options,
                   description=str(data.get("description", "")), system=system.name,
                   repeats=int(repeats), seed_limit=seed_limit, keep=bool(keep), label=label)

    def compound(self, axis: str) -> bool:
        """Whether ``axis`` is a compound axis.

        Parameters
        ----------
        axis : str
            An axis of the sweep.

        Returns
        -------
        bool
            True for an axis of labelled settings, False for a list of values.
        """
        return not all(list(p) == [axis] and label == str(p[axis])
                       for label, p in self.axes[axis].items())

    def to_dict(self) -> dict:
        """The declaration as plain data.

        Returns
        -------
        dict
            What :meth:`from_dict` accepts.
        """
        axes = {}
        for axis, settings in self.axes.items():
            if not self.compound(axis):
                axes[axis] = [p[axis] for p in settings.values()]
            else:
                axes[axis] = {label: dict(p) for label, p in settings.items()}
        out = {"name": self.name, "system": self.system, "description": self.description,
               "base": dict(self.base), "axes": axes, "algorithms": list(self.algorithms),
               "seeds": list(self.seeds),
               "options": {a: dict(o) for a, o in self.options.items()}}
        if self.bound is not None:
            out["bound"] = self.bound
            out["bound_options"] = dict(self.bound_options)
        if self.repeats > 1:
            out["repeats"] = self.repeats
        if self.seed_limit:
            out["seed_limit"] = dict(self.seed_limit)
        if self.keep:
            out["keep"] = True
        if self.label:
            out["label"] = self.label
        return out

    def to_json(self) -> str:
        """The declaration as JSON.

        Returns
        -------
        str
            :meth:`to_dict` as JSON, keys sorted.
        """
        return json.dumps(self.to_dict(), sort_keys=True, default=json_default)

    def to_toml(self) -> str:
        """The declaration as a TOML file.

        Returns
        -------
        str
            The file's text, which :meth:`from_file` reads back.
        """
        d = self.to_dict()
        lines = [f"name = {_toml(d['name'])}", f"system = {_toml(d['system'])}"]
        if d["description"]:
            lines.append(f"description = {_toml(d['description'])}")
        lines += [f"algorithms = {_toml(d['algorithms'])}", f"seeds = {_toml(d['seeds'])}"]
        if "bound" in d:
            lines.append(f"bound = {_toml(d['bound'])}")
        if "repeats" in d:
            lines.append(f"repeats = {d['repeats']}")
        if d.get("keep"):
            lines.append("keep = true")
        if d.get("label"):
            lines.append(f"label = {_toml(d['label'])}")
        tables = [("base", d["base"]), ("axes", {a: v for a, v in d["axes"].items()
                                                 if not isinstance(v, dict)})]
        tables += [(f"axes.{_key(a)}", v) for a, v in d["axes"].items() if isinstance(v, dict)]
        tables += [(f"options.{a}", o) for a, o in d["options"].items() if o]
        if d.get("bound_options"):
            tables.append(("bound_options", d["bound_options"]))
        if d.get("seed_limit"):
            tables.append(("seed_limit", d["seed_limit"]))
        for title, table in tables:
            if table:
                lines += ["", f"[{title}]"]
                lines += [f"{_key(k)} = {_toml(v)}" for k, v in table.items()]
        return "\n".join(lines) + "\n"


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else _toml(k)


def _toml(v) -> str:
    """A TOML value for the plain data of a declaration."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {_toml(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, float):
        return repr(v)
    if v is None:
        raise InputError("TOML has no null: leave the setting out instead")
    return str(v)
