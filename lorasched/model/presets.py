"""Policies that are another policy with some options fixed, kept as data: a table of
:class:`Preset` rows, from which :func:`build` makes each preset's function, with its
signature (the base's options less the fixed ones) and its numpydoc docstring.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from textwrap import fill, indent

from .errors import InputError

#: a numpydoc section header: its name, then a line of dashes
_SECTION = re.compile(r"^([A-Z][A-Za-z ]+)\n-+\n", re.MULTILINE)


@dataclass(frozen=True)
class Preset:
    """One row of a system's ``PRESETS``: a policy that is another with options fixed.

    Parameters
    ----------
    name : str
        The policy's name: its registry key and its function's name.
    base : callable
        The policy it presets, ``base(arrays, rng, **options)``.
    fixed : dict
        The options it sets, name -> value.
    label : str
        The paper's name for it (``"Fixed-60s"``).
    source : str
        Where the paper shows it (``"Figure 11"``).
    description : str
        What it is, a phrase (``"Allpass with F fixed at 60 s"``).
    held : tuple of str, optional
        Options of ``base`` it does not offer either: they keep ``base``'s defaults.
    """

    name: str
    base: Callable
    fixed: Mapping[str, object]
    label: str
    source: str
    description: str
    held: tuple[str, ...] = ()

    @property
    def refused(self) -> tuple[str, ...]:
        """The options of :attr:`base` the preset does not take: the fixed, then the held."""
        return (*self.fixed, *self.held)


def _literal(value) -> str:
    """``value`` as a reader writes it in a call: ``60``, ``"naive"``, ``False``."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def _names(words, last: str = "and") -> str:
    """``a``, ``a`` and ``b``, ``a``, ``b`` and ``c`` (or ``last`` for "and")."""
    quoted = [f"``{w}``" for w in words]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} {last} {quoted[-1]}"


def _sections(doc: str) -> dict[str, str]:
    """A docstring's text before its first numpydoc section (key ``""``), then each
    section's name -> its body, cleaned (:func:`inspect.cleandoc`)."""
    text = inspect.cleandoc(doc or "") + "\n"
    parts = _SECTION.split(text)
    out = {"": parts[0].strip()}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        out[name.strip()] = body.rstrip()
    return out


def _entries(body: str, drop=()) -> list[str]:
    """The entries of a Parameters section's ``body`` (``name : type`` or ``a, b : type``,
    then an indented description), less the names in ``drop``: an entry of several names
    keeps the others."""
    entries: list[list[str]] = []
    for line in body.splitlines():
        if line and not line[0].isspace():
            entries.append([line])
        elif entries:
            entries[-1].append(line)
    drop, kept = set(drop), []
    for header, *rest in entries:
        names, colon, kind = header.partition(" : ")
        left = [n.strip() for n in names.split(",") if n.strip() not in drop]
        if left:
            kept.append("\n".join([", ".join(left) + colon + kind, *rest]))
    return kept


def documented(doc: str) -> list[str]:
    """The parameter names a numpydoc docstring's Parameters section documents.

    Parameters
    ----------
    doc : str
        The docstring.

    Returns
    -------
    list of str
        The names, in order.
    """
    body = _sections(doc).get("Parameters", "")
    return [n.strip() for entry in _entries(body)
            for n in entry.splitlines()[0].partition(" : ")[0].split(",")]


def docstring(preset: Preset) -> str:
    """The numpydoc docstring of ``preset``'s function, from the table and its base's.

    Parameters
    ----------
    preset : Preset
        The row.

    Returns
    -------
    str
        A summary line, the base and the options it fixes, then the base's Parameters
        (less those fixed or held), Returns, and a Raises section.
    """
    base = preset.base.__name__
    fixed = ", ".join(f"``{k}={_literal(v)}``" for k, v in preset.fixed.items())
    options = "the options are its"
    if preset.held:
        keep = "keeps its default" if len(preset.held) == 1 else "keep its defaults"
        options += f", less {_names(preset.held)}, which {keep}"
    parts = _sections(preset.base.__doc__)
    params = "\n".join(_entries(parts.get("Parameters", ""), preset.refused))
    text = [f'The policy ``{preset.name}``: {preset.description} ({preset.source}\'s '
            f'"{preset.label}").', "", fill(f":func:`{base}` with {fixed}; {options}.", 88),
            "", "Parameters", "----------", params]
    if "Returns" in parts:
        text += ["", "Returns", "-------", parts["Returns"]]
    raises = (f"If given an option it fixes ({_names(preset.refused, 'or')}); else as "
              f":func:`{base}`.")
    text += ["", "Raises", "------", "InputError", indent(fill(raises, 84), "    ")]
    return "\n".join(text) + "\n"


def build(preset: Preset, module: str) -> Callable:
    """The function of ``preset``: ``preset.base`` with ``preset.fixed``, refusing those.

    Parameters
    ----------
    preset : Preset
        The row.
    module : str
        The module that holds the function (its ``__module__``, for autodoc and pickle).

    Returns
    -------
    callable
        ``run(arrays, rng, **options)``, named ``preset.name``, whose ``__signature__`` is
        the base's less :attr:`Preset.refused`, whose docstring is :func:`docstring`'s and
        whose ``preset`` attribute is the row.

    Raises
    ------
    InputError
        If the name is not an identifier, or a fixed or held option is not a keyword
        option of the base.
    """
    if not preset.name.isidentifier():
        raise InputError(f"preset name must be an identifier, got {preset.name!r}")
    signature = inspect.signature(preset.base)
    options = [p for p in list(signature.parameters.values())[2:]
               if p.kind is inspect.Parameter.KEYWORD_ONLY]
    unknown = sorted(set(preset.refused) - {p.name for p in options})
    if unknown or len(set(preset.refused)) < len(preset.refused):
        raise InputError(f"preset {preset.name!r}: {unknown or list(preset.refused)} are not "
                         f"distinct keyword options of {preset.base.__name__!r}")
    refused, base, fixed = frozenset(preset.refused), preset.base, dict(preset.fixed)
    settings = ", ".join(f"{k}={v!r}" for k, v in fixed.items())
    own = signature.replace(parameters=[p for p in signature.parameters.values()
                                        if p.name not in refused])

    def run(*args, **options):
        given = [k for k in preset.refused if k in options]
        if given:
            raise InputError(f"policy {preset.name!r} fixes option(s) {given} (it is "
                             f"{base.__name__!r} with {settings}); run {base.__name__!r} "
                             "to set them")
        try:
            own.bind(*args, **options)
        except TypeError as exc:  # what a function of this signature would raise
            raise TypeError(f"{preset.name}() {exc}") from None
        return base(*args, **fixed, **options)

    run.__name__ = run.__qualname__ = preset.name
    run.__module__ = module
    run.__doc__ = docstring(preset)
    run.__signature__ = own
    run.preset = preset
    return run


def build_all(presets, module: str) -> tuple[Callable, ...]:
    """The functions of a table's presets, in its order (:func:`build`).

    Parameters
    ----------
    presets : sequence of Preset
        The table.
    module : str
        The module that holds them.

    Returns
    -------
    tuple of callable
        One per row.
    """
    return tuple(build(p, module) for p in presets)


def problems(module) -> list[str]:
    """Where a policies module disagrees with its ``PRESETS`` table.

    Parameters
    ----------
    module : module
        A system's policies module, with ``PRESETS`` and ``REGISTRY``.

    Returns
    -------
    list of str
        One line per disagreement: a row whose function is missing, misnamed, made from
        another row or not registered under its name; a signature that is not the base's
        less the refused options; a docstring whose Parameters are not the signature's; a
        registered preset that is not in the table. Empty when they agree.
    """
    found, rows = [], {id(p) for p in module.PRESETS}
    for p in module.PRESETS:
        run = getattr(module, p.name, None)
        if getattr(run, "preset", None) is not p:
            found.append(f"{p.name}: the module's {p.name} is not made from this row")
            continue
        if (run.__name__, run.__qualname__, run.__module__) != (p.name, p.name,
                                                               module.__name__):
            found.append(f"{p.name}: named {run.__module__}.{run.__qualname__}")
        if module.REGISTRY.get(p.name) is not run:
            found.append(f"{p.name}: REGISTRY[{p.name!r}] is not its function")
        want = [n for n in inspect.signature(p.base).parameters if n not in p.refused]
        have = list(inspect.signature(run).parameters)
        if have != want:
            found.append(f"{p.name}: signature {have}, not {want}")
        if documented(run.__doc__) != have:
            found.append(f"{p.name}: documents {documented(run.__doc__)}, not {have}")
    found += [f"{name}: registered as a preset but not in PRESETS"
              for name, run in module.REGISTRY.items()
              if hasattr(run, "preset") and id(run.preset) not in rows]
    return found
