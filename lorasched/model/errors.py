"""lorasched's two documented error classes, the error contract of every system:
:class:`InputError` (bad input, a ``ValueError``) and :class:`ResultError` (a result that
breaks its model, an ``AssertionError``); see :doc:`/reference/engine`.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: a scenario, a trace, a sweep, an option, a flag or a request.

    A ``ValueError``, so code that catches ``ValueError`` keeps working; the command line
    prints it as one line on stderr and exits with status 2.

    Parameters
    ----------
    message : str
        Names the file or variable, the item (task, job, line, cell, node) and the rule
        broken.
    """


class ResultError(AssertionError):
    """A result violates its system's model: a bug, not bad input.

    Raised by every system's ``check_result`` (:func:`lorasched.systems.check_result`).

    Parameters
    ----------
    message : str
        Names the constraint, the item (task, job, node, slot) and the values.
    """


def read_text(path, what: str = "file") -> str:
    """The text of ``path`` (UTF-8), or :class:`InputError` naming the file and what is
    wrong: missing, a folder, unreadable, or not UTF-8 (with the line and the byte)."""
    from pathlib import Path

    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a folder, not a {what}")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such {what}") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read the {what} ({err.strerror or err})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        raise InputError(f"{path} line {line}: byte 0x{raw[err.start]:02x} is not UTF-8 "
                         f"text; save the {what} as UTF-8") from None


def real_number(name: str, value, *, low: float | None = None) -> float:
    """``value`` as a finite float, or :class:`InputError` naming ``name`` and the rule
    (a real number, finite, at least ``low``). A bool or text is refused, not coerced."""
    import math
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be a real number, got {value!r} "
                         f"({type(value).__name__})")
    x = float(value)
    if not math.isfinite(x):
        raise InputError(f"{name} must be finite, got {value!r}")
    if low is not None and x < low:
        raise InputError(f"{name} must be >= {low:g}, got {value!r}")
    return x


def whole_number(name: str, value, *, low: int | None = None) -> int:
    """``value`` as an int, or :class:`InputError` naming ``name`` and the rule: a whole
    number (an int, or a float with no fractional part such as ``100.0``), at least ``low``.
    ``1.5``, ``True`` and text are refused, not truncated."""
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be a whole number, got {value!r} "
                         f"({type(value).__name__})")
    if not isinstance(value, numbers.Integral):
        x = float(value)
        if not x.is_integer():
            raise InputError(f"{name} must be a whole number, got {value!r}")
    n = int(value)
    if low is not None and n < low:
        raise InputError(f"{name} must be >= {low}, got {value!r}")
    return n
