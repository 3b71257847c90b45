"""exp and log by the C library (lorasched.model.libm): exactly ``math.exp`` and
``math.log`` element by element, whatever SIMD code numpy picks on this CPU."""

import math

import numpy as np
import pytest

from lorasched.model.libm import libm_exp, libm_log

DRAWS = 100_000


def test_libm_exp_is_math_exp_on_every_draw():
    # the draws of the generators' log-uniform and log-normal values; numpy's AVX-512 exp
    # differs from the C library's by one ulp on a few percent of them
    x = np.random.default_rng(0).uniform(-12.0, 12.0, size=DRAWS)
    got = libm_exp(x)
    assert got.dtype == np.float64 and got.shape == x.shape
    np.testing.assert_array_equal(got, [math.exp(v) for v in x.tolist()])


def test_libm_log_is_math_log_on_every_draw():
    # values near 1 (a value density's spread): where numpy's AVX-512 log differs most often
    x = np.random.default_rng(1).uniform(0.5, 2.0, size=DRAWS)
    got = libm_log(x)
    assert got.dtype == np.float64 and got.shape == x.shape
    np.testing.assert_array_equal(got, [math.log(v) for v in x.tolist()])


def test_shape_and_scalars_kept():
    x = np.arange(6.0).reshape(2, 3)
    assert libm_exp(x).shape == (2, 3)
    assert libm_exp(x)[1, 2] == math.exp(5.0)
    assert libm_log(2.0).shape == () and float(libm_log(2.0)) == math.log(2.0)
    lo, hi = libm_log([0.5, 2])
    assert (lo, hi) == (math.log(0.5), math.log(2.0))
    assert libm_exp(np.empty((0, 4))).shape == (0, 4)


def test_out_of_domain_raises_as_math_does():
    with pytest.raises(ValueError):
        libm_log([1.0, 0.0])
    with pytest.raises(OverflowError):
        libm_exp([1.0, 1e4])
