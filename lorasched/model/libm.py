"""``exp`` and ``log`` of arrays by the C library (:func:`libm_exp`, :func:`libm_log`), for
the generators that turn seeded random draws into scenario data.

numpy (2.x, on a CPU with AVX-512) computes ``np.exp`` and ``np.log`` with its own SIMD
code, which differs from the C library's by one ulp on a few percent of inputs; elsewhere
it calls the C library. A bid or a duration drawn through ``np.exp`` would then depend on
the CPU that drew it, and one ulp can flip an admission, a price or a figure. Python's
``math`` calls the C library on every CPU, so a seed gives the same data everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np


def _elementwise(f: Callable[[float], float], x) -> np.ndarray:
    """``f`` of each element of ``x``, a float array of ``x``'s shape."""
    a = np.asarray(x, dtype=float)
    out = np.fromiter(map(f, a.ravel().tolist()), dtype=float, count=a.size)
    return out.reshape(a.shape)


def libm_exp(x) -> np.ndarray:
    """Element-wise exponential by the C library (``math.exp``), not numpy's SIMD code.

    numpy's AVX-512 ``exp`` differs by one ulp from the C library's on some inputs, so data
    generated through ``np.exp`` would depend on the CPU.

    Parameters
    ----------
    x : array_like
        Exponents, read as float64.

    Returns
    -------
    numpy.ndarray
        ``exp(x)``, float64, of ``x``'s shape (0-d for a scalar).

    Raises
    ------
    OverflowError
        Where ``exp`` of an element exceeds the largest float64 (``math.exp``'s rule).
    """
    return _elementwise(math.exp, x)


def libm_log(x) -> np.ndarray:
    """Element-wise natural logarithm by the C library (``math.log``), not numpy's SIMD code.

    numpy's AVX-512 ``log`` differs by one ulp from the C library's on some inputs, so data
    generated through ``np.log`` would depend on the CPU.

    Parameters
    ----------
    x : array_like
        Positive numbers, read as float64.

    Returns
    -------
    numpy.ndarray
        ``log(x)``, float64, of ``x``'s shape (0-d for a scalar).

    Raises
    ------
    ValueError
        Where an element is zero or negative (``math.log``'s rule).
    """
    return _elementwise(math.log, x)
