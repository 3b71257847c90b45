"""Numbers for people: the one formatter of every number a page's tables and prose show, and
:func:`quote` for the numbers the prose derives from the data (:doc:`/reference/figures`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: what a missing number shows
MISSING = "—"


def _finite(x) -> bool:
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def num(x, digits: int = 3, sign: bool = False) -> str:
    """``x`` to ``digits`` significant digits; whole (with thousands separators) from 100
    on: ``0.346``, ``12.3``, ``2,572``; ``sign``: a leading ``+`` on positive numbers."""
    if not _finite(x):
        return MISSING
    x = float(x)
    plus = "+" if sign else ""
    if abs(x) >= 100 or x == 0:
        return f"{x:{plus},.0f}"
    text = f"{x:{plus}.{digits}g}"
    if "e" in text:  # tiny numbers: plain decimals rather than scientific notation
        text = f"{x:{plus}.{digits - 1 - math.floor(math.log10(abs(x)))}f}"
    return text


def pct(x, sign: bool = True) -> str:
    """A percentage (``x`` already in percent): ``+3.4 %``, ``-38 %`` (whole from 10 on)."""
    if not _finite(x):
        return MISSING
    plus = "+" if sign else ""
    return f"{float(x):{plus}.0f} %" if abs(float(x)) >= 10 else f"{float(x):{plus}.1f} %"


def usd(x, cents: bool | None = None, digits: int | None = None) -> str:
    """A dollar amount: ``$236.69`` (cents below $10,000, or when ``cents``), else
    ``$344,326``; negative amounts ``-$5.00``; ``digits``: to that many significant digits
    instead (``$0.006284``: amounts below a cent)."""
    if not _finite(x):
        return MISSING
    x = float(x)
    cents = abs(x) < 10_000 if cents is None else cents
    if digits is not None:
        body = num(abs(x), digits)
    else:
        body = f"{abs(x):,.2f}" if cents else f"{abs(x):,.0f}"
    return ("-" if x < 0 else "") + "$" + body


def minutes(x) -> str:
    """A duration in minutes: ``41.4 min``."""
    return f"{num(x)} min" if _finite(x) else MISSING


def seconds(x) -> str:
    """A duration in seconds: ``0.21 s``, ``1,573 s``."""
    return f"{num(x)} s" if _finite(x) else MISSING


def interval(est, fmt=num, unit_seeds: str = "seeds") -> str:
    """An :class:`~lorasched.figures.verdicts.Estimate` as text: ``+3.4 % (95 %: +1.0 %
    to +5.8 %, 3 seeds)``, or the bare number when it has no spread."""
    if not est.spread:
        return fmt(est.mean) + (f" ({est.n} {unit_seeds}, all equal)" if est.n > 1 else "")
    level = f"{100 * getattr(est, 'level', 0.95):g} %"
    return f"{fmt(est.mean)} ({level}: {fmt(est.low)} to {fmt(est.high)}, {est.n} {unit_seeds})"


def joined(items) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = [str(i) for i in items]
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def signed_pct(x) -> str:
    """:func:`pct` with its sign (for use as an :func:`interval` formatter)."""
    return pct(x, sign=True)


#: the columns of a page's table of quoted numbers
QUOTED_COLUMNS = ["quantity", "value", "as quoted"]
#: the rows :func:`quote` records while a :func:`quoting` block is open (None: none is)
_QUOTES: ContextVar[list | None] = ContextVar("lorasched_quotes", default=None)


def quote(quantity: str, value, fmt: Callable = num) -> str:
    """``fmt(value)``, the way a page's prose prints a number it derives from its data;
    inside :func:`quoting` the number is also recorded as a row ``(quantity, value, as
    quoted)`` of the page's table of quoted numbers. ``quantity`` names what it is
    ("Titan's welfare growth from K = 15 to 20, %")."""
    text = fmt(value)
    rows = _QUOTES.get()
    if rows is not None and _finite(value):
        rows.append((str(quantity), float(value), text))
    return text


def quote_interval(quantity: str, est, fmt: Callable = num,
                   unit_seeds: str = "seeds") -> str:
    """:func:`interval` of ``est``, its mean and bounds each a :func:`quote` (``quantity``
    with ", mean over seeds", ", 95 % low", ", 95 % high")."""
    names = iter([f"{quantity}, mean over seeds", f"{quantity}, 95 % low",
                  f"{quantity}, 95 % high"] if est.spread else [quantity])
    return interval(est, lambda x: quote(next(names), x, fmt), unit_seeds)


@contextmanager
def quoting() -> Iterator[list]:
    """Collect the rows :func:`quote` records inside the block: a list, filled as the
    block runs, every call a row (an inner block takes its own)."""
    rows: list = []
    token = _QUOTES.set(rows)
    try:
        yield rows
    finally:
        _QUOTES.reset(token)
