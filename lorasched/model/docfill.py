"""Docstrings that share text, as SciPy's ``scipy._lib.doccer`` writes them: each shared
numpydoc fragment once, in a dict of named fragments, and a decorator (:func:`filler`)
that fills it into every docstring that names it.

A docstring names a fragment by a line that holds only ``%(name)s``; the fragment goes
there, each of its lines indented as that line is, so the filled docstring reads as if
written out (and Sphinx's autodoc, which reads ``__doc__`` at import, renders it). The rest
of the docstring is kept as it is: a ``%`` or a brace in it needs no escaping.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from textwrap import indent
from typing import TypeVar

from .errors import InputError

F = TypeVar("F", bound=Callable)

#: a line that is a placeholder only: its indentation, then ``%(name)s``
_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)%\((?P<name>\w+)\)s[ \t]*$", re.MULTILINE)
#: a placeholder anywhere
_ANY = re.compile(r"%\(\w*\)s")


def fill(doc: str, fragments: Mapping[str, str]) -> str:
    """``doc`` with each line ``%(name)s`` replaced by the fragment ``name``.

    Parameters
    ----------
    doc : str
        A docstring, as written (indented).
    fragments : mapping of str to str
        The fragments by name; each is cleaned (:func:`inspect.cleandoc`), then indented
        as its placeholder's line.

    Returns
    -------
    str
        The filled docstring.

    Raises
    ------
    InputError
        If a placeholder names no fragment, or one is left that is not alone on its line.
    """
    def put(match: re.Match) -> str:
        name = match["name"]
        if name not in fragments:
            raise InputError(f"docstring fragment {name!r} is not one of {sorted(fragments)}")
        return indent(inspect.cleandoc(fragments[name]), match["indent"])

    filled = _PLACEHOLDER.sub(put, doc)
    left = _ANY.search(filled)
    if left:
        raise InputError(f"docstring placeholder {left[0]!r} is not alone on its line")
    return filled


def filler(fragments: Mapping[str, str]) -> Callable[[F], F]:
    """A decorator that fills its function's docstring from ``fragments`` (:func:`fill`).

    Parameters
    ----------
    fragments : mapping of str to str
        The fragments by name.

    Returns
    -------
    callable
        ``doc(func) -> func``, with ``func.__doc__`` filled in place (left ``None`` where
        Python runs with ``-OO``, which drops docstrings).
    """
    fragments = dict(fragments)

    def doc(func: F) -> F:
        if func.__doc__ is not None:
            func.__doc__ = fill(func.__doc__, fragments)
        return func

    return doc
