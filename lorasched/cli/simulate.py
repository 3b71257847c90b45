"""``lorasched simulate``: one run of one policy on one scenario of any system, checked,
printed as one line and optionally written as netCDF.

The flags are the systems' own (:data:`lorasched.systems.FLAGS`): one that a single system
declares is listed in that system's group of the help, one that several declare with the
command's own. Each sets what its :class:`~lorasched.model.system.System` says it is: a
scenario parameter, a policy option or a keyword of its ``simulate``. A flag given with
another ``--system``, or to a policy without that option, is refused by name.
"""

from __future__ import annotations

import argparse
import inspect
import os
from pathlib import PurePath

from .. import systems
from ..experiments import calibrate as calibration
from ..model.errors import InputError
from ..model.flags import Flag, Flags, Run
from ..model.system import System, policy_options
from .arguments import seed_arg


def register(sub) -> None:
    """The ``simulate`` command: its own flags, the shared ones, a group per system."""
    p = sub.add_parser("simulate", help="run one algorithm on " + _or(
        f"{systems.flags(name).scenario} ({name})" for name in systems.SYSTEMS))
    p.add_argument("--system", default=systems.DEFAULT, choices=sorted(systems.SYSTEMS),
                   help=f"which paper's model ({systems.DEFAULT})")
    owners = _owners()
    for declared in owners.values():
        if len(declared) > 1:
            _add(p, declared)
    p.add_argument("--seed", type=seed_arg, default=1, help="random seed, >= 0 (1)")
    p.add_argument("--algorithm", default=None, help=_algorithm_help())
    p.add_argument("--out", default=None, help="write the result dataset (netCDF)")
    for name in systems.SYSTEMS:
        group = p.add_argument_group(f"{name} (--system {name}"
                                     + (", the default)" if name == systems.DEFAULT else ")"))
        for flag in systems.flags(name).flags:
            if len(owners[flag.name]) == 1:
                _add(group, owners[flag.name])
    p.set_defaults(run=simulate)


def simulate(args) -> int:
    """Run ``lorasched simulate`` for the system ``args.system`` names; 0 on success."""
    _check_out(args.out)
    system, declared = systems.get(args.system), systems.flags(args.system)
    _refuse_foreign(args, system.name)
    name = _policy(system, args.algorithm)
    values = {f.parameter: getattr(args, f.dest) for f in declared.flags}
    _check_values(declared, values, system.name)
    kinds = {f.parameter: _kind(system, f) for f in declared.flags}
    options = _options(system, declared, name, values, kinds)
    options.update({p: v for p, v in values.items() if kinds[p] == "keyword"})
    scenario = system.build_scenario(seed=args.seed, **{
        p: v for p, v in values.items() if kinds[p] == "scenario" and v is not None})
    result = systems.simulate(scenario, algorithm=name, seed=args.seed, **options)
    systems.check_result(result)
    if args.out:
        result.to_netcdf(args.out)
    run = Run(_spelled(name), _as_built(system, values, kinds), args.seed, scenario, result)
    print(_line(system, declared, run) + (f" -> {args.out}" if args.out else ""))
    return 0


# ------------------------------------------------------------------------ the parser


def _owners() -> dict[str, list[tuple[str, Flag]]]:
    """Flag name -> the systems declaring it and their declarations, in registry order."""
    owners: dict[str, list[tuple[str, Flag]]] = {}
    for name in systems.SYSTEMS:
        for flag in systems.flags(name).flags:
            owners.setdefault(flag.name, []).append((name, flag))
    return owners


def _add(parser, declared: list[tuple[str, Flag]]) -> None:
    """Add one flag, declared by one system or several (which must agree on its form)."""
    first = declared[0][1]
    for system, flag in declared[1:]:
        for field in ("type", "default", "action", "metavar", "topic"):
            if getattr(flag, field) != getattr(first, field):
                raise ValueError(f"{flag.name}: {declared[0][0]} and {system} declare "
                                 f"another {field}")
    kwargs = {"dest": first.dest, "default": first.default, "help": _help(declared)}
    kwargs.update({k: getattr(first, k) for k in ("type", "action", "metavar")
                   if getattr(first, k) is not None})
    if all(flag.choices for _, flag in declared):  # one that takes any value: no choices
        choices = {c for _, flag in declared for c in flag.choices}
        kwargs["choices"] = list(first.choices) if len(declared) == 1 else sorted(choices)
    parser.add_argument(first.name, **kwargs)


def _help(declared: list[tuple[str, Flag]]) -> str | None:
    """One system's words, or ``topic (a: words; b: words)``, or ``a: words; b: words``."""
    first = declared[0][1]
    if len(declared) == 1 and not first.topic:
        return first.help or None
    parts = "; ".join(f"{system}: {flag.help}" for system, flag in declared)
    return f"{first.topic} ({parts})" if first.topic else parts


def _algorithm_help() -> str:
    systems.load_plugins()  # installed plug-in packages' policies are listed too
    own = [next(iter(s.policies)) for s in systems.SYSTEMS.values()]
    return (f"a policy of the system (default its own: {_or(own)}); "
            + "; ".join(f"{name}: " + ", ".join(map(_spelled, s.policies))
                        for name, s in systems.SYSTEMS.items()))


# ----------------------------------------------------------------------- the checks


def _check_out(out: str | None) -> None:
    if not out:
        return
    if os.path.isdir(out):
        raise InputError(f"--out: {out} is a folder; name the file to write (e.g. run.nc)")
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise InputError(f"--out: folder {folder} does not exist")


def _refuse_foreign(args, chosen: str) -> None:
    """An InputError naming the first flag of another system given a value."""
    for name, declared in _owners().items():
        owners = [system for system, _ in declared]
        flag = declared[0][1]
        if chosen in owners or getattr(args, flag.dest) == flag.default:
            continue
        hint = systems.flags(chosen).hints.get(name)
        if hint:
            raise InputError(f"{name}: {_target(chosen)} {hint}")
        raise InputError(f"{name} is {_whose(owners)}; {_target(chosen)} has no such setting")


def _policy(system: System, given: str | None) -> str:
    """The policy ``--algorithm`` names (hyphens or underscores; default the system's own)."""
    name = (given or next(iter(system.policies))).replace("-", "_")
    if name not in system.policies:
        raise InputError(f"--algorithm {given!r}: unknown algorithm {given!r} for system "
                         f"{system.name!r}; choose one of "
                         + ", ".join(map(_spelled, system.policies)))
    return name


def _check_values(declared: Flags, values: dict, chosen: str) -> None:
    """The chosen system's choices of a shared flag, and the flags a flag requires."""
    by_name = {f.name: f for f in declared.flags}
    for flag in declared.flags:
        value = values[flag.parameter]
        if flag.choices and value is not None and value not in flag.choices:
            raise InputError(f"{flag.name} {value}: {_target(chosen)} takes "
                             f"{_or(flag.choices)}")
        needed = by_name.get(flag.requires)
        if needed and value != flag.default and values[needed.parameter] == needed.default:
            raise InputError(f"{flag.name} needs {needed.name}")


def _kind(system: System, flag: Flag) -> str:
    """What ``flag`` sets: a ``"scenario"`` parameter, an ``"option"`` of a policy or a
    ``"keyword"`` of the system's ``simulate``."""
    if flag.parameter in system.scenario_parameters:
        return "scenario"
    if any(flag.parameter in policy_options(run) for run in system.policies.values()):
        return "option"
    if flag.parameter in inspect.signature(system.simulate).parameters:
        return "keyword"
    raise ValueError(f"{flag.name}: system {system.name!r} has no scenario parameter, "
                     f"policy option or simulate keyword {flag.parameter!r}")


# ---------------------------------------------------------------------- the options


def _options(system: System, declared: Flags, name: str, values: dict, kinds: dict) -> dict:
    """The policy's options from the option flags: the system's own policy (its first)
    gets every value, defaults included (as its result records them), another policy
    what is given; a constants file's options come between the defaults and the flags
    given. A flag given to a policy without the option is refused."""
    accepted = policy_options(system.policies[name])
    own = name == next(iter(system.policies))
    defaults, files, given = {}, {}, {}
    for flag in (f for f in declared.flags if kinds[f.parameter] == "option"):
        value = values[flag.parameter]
        if flag.parameter not in accepted:
            if value != flag.default:
                raise InputError(f"{flag.name} is an option of {_takers(system, flag)}; "
                                 f"--algorithm {_spelled(name)} has no such option")
        elif isinstance(value, PurePath):
            files.update(_calibrated(system, declared, name, value))
        elif value != flag.default:
            given[flag.parameter] = value
        elif own and value is not None:
            defaults[flag.parameter] = value
    return {**defaults, **files, **given}


def _calibrated(system: System, declared: Flags, name: str, path) -> dict:
    """The options of a file written by ``lorasched calibrate`` for policy ``name``, each
    one the policy takes and, where a flag sets it, a value that flag would take."""
    found = calibration.options_from(path, system.name, name)
    accepted = policy_options(system.policies[name])
    by_parameter = {f.parameter: f for f in declared.flags}
    for key, value in found.items():
        if key not in accepted:
            raise InputError(f"constants file {path}: options.{key} is not an option of "
                             f"{name}; it accepts {sorted(accepted)}")
        flag = by_parameter.get(key)
        if flag is not None and flag.type is not None and not _parses(flag, value):
            raise InputError(f"constants file {path}: options.{key} = {value!r} is not a "
                             f"value of {flag.name}")
    return found


def _parses(flag: Flag, value) -> bool:
    try:
        flag.type(str(value))
    except (argparse.ArgumentTypeError, TypeError, ValueError):
        return False
    return True


# ------------------------------------------------------------------------- the line


def _as_built(system: System, values: dict, kinds: dict) -> dict:
    """The flags' values, a scenario parameter left out as the scenario builder's default."""
    params = inspect.signature(system.build_scenario).parameters
    return {p: params[p].default if v is None and kinds[p] == "scenario" and p in params
            else v for p, v in values.items()}


def _line(system: System, declared: Flags, run: Run) -> str:
    if declared.describe is not None:
        return declared.describe(run)
    metrics = system.measure(run.scenario, run.result)
    return f"{run.algorithm}: " + ", ".join(f"{k} {v:.4g}" for k, v in metrics.items())


# ------------------------------------------------------------------------ the words


def _spelled(policy: str) -> str:
    """A policy's name as the command line spells it (``tl_p``: tl-p)."""
    return policy.replace("_", "-")


def _or(items) -> str:
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def _target(system: str) -> str:
    """The chosen system as the user named it: the default needs no ``--system``."""
    return system if system == systems.DEFAULT else f"--system {system}"


def _whose(owners: list[str]) -> str:
    """``B's and C's (--system b or c)``: the systems' names as their titles begin, and
    the ``--system`` that picks them (the default needs none)."""
    words = " and ".join(systems.get(s).title.split(" (")[0] + "'s" for s in owners)
    others = [s for s in owners if s != systems.DEFAULT]
    return words + (f" (--system {_or(others)})" if others else "")


def _takers(system: System, flag: Flag) -> str:
    """The policies of ``system`` that take ``flag``'s option, spelled."""
    return ", ".join(_spelled(n) for n, run in system.policies.items()
                     if flag.parameter in policy_options(run))
