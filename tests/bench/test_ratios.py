"""Benchmark regression checks by ratio: a slowdown of the kernels fails CI on any machine.

No absolute time is asserted (the guide: speed targets belong in benchmarks). Each test
times two implementations of the same computation on the same fixed instance in the same
run and asserts that their RATIO stays far beyond what a regression would leave: the numba
kernels against the same code run as pure Python (numba's ``NUMBA_DISABLE_JIT=1``, in a
subprocess), and the exact DP against brute-force enumeration. The floors are a tenth or
less of the ratios measured on a 2-core CI machine (printed by ``lorasched bench decision``
and in each assertion's message), so machine noise cannot fail them, while losing
compilation (object mode, a Python-level loop in the hot path) or an exponential blow-up
in the DP does.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from lorasched.bench import pdftsp as bench
from lorasched.pdftsp.scenario import ScenarioArrays
from lorasched.pdftsp.schedule import brute_force_schedule, schedule

#: measured on the 2-core CI machine: numba vs pure Python ~ 120x median on the day below;
#: exact DP vs brute force ~ 4,000x on the instance below
MIN_NUMBA_SPEEDUP = 15.0
MIN_DP_OVER_BRUTE = 50.0


def _best_of(fn, repeat: int) -> float:
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def brute_instance():
    """One task, 3 nodes, a 7-slot window, two vendors: up to (3 + 1)^7 = 16,384 placements
    per vendor for brute force, tens of microseconds for the DP. Fixed seed."""
    rng = np.random.default_rng(14)
    K, T = 3, 7
    arrays = ScenarioArrays(
        compute_capacity=np.full(K, 6, dtype=np.int64), memory_capacity=np.full(K, 10.0),
        base_model_memory=2.0, op_cost_rate=rng.choice([0.0, 0.1, 0.3], size=(K, T)),
        arrival=np.array([0]), deadline=np.array([T - 1]), memory=np.array([2.0]),
        work=np.array([9]), needs_preprocessing=np.array([True]), bid=np.array([60.0]),
        speed=np.array([[1, 2, 4]], dtype=np.int64),
        vendor_price=np.array([[1.5, 2.5]]), vendor_delay=np.array([[0, 1]]))
    lam = rng.choice([0.0, 0.5, 1.0, 2.0], size=(K, T))
    phi = rng.choice([0.0, 0.2, 1.0], size=(K, T))
    compute_left = np.full((K, T), 6, dtype=np.int64)
    memory_left = np.full((K, T), 8.0)
    return arrays, lam, phi, compute_left, memory_left


@pytest.mark.slow
def test_exact_dp_stays_far_faster_than_brute_force():
    arrays, lam, phi, cl, ml = brute_instance()
    exact = schedule(arrays, 0, lam, phi, cl, ml, solver="exact", work_resolution=12)
    brute = brute_force_schedule(arrays, 0, lam, phi, cl, ml)
    assert exact.surplus == pytest.approx(brute.surplus, abs=1e-9)  # same answer first
    t_dp = _best_of(lambda: schedule(arrays, 0, lam, phi, cl, ml, solver="exact",
                                     work_resolution=12), repeat=50)
    t_brute = _best_of(lambda: brute_force_schedule(arrays, 0, lam, phi, cl, ml), repeat=2)
    ratio = t_brute / t_dp
    assert ratio >= MIN_DP_OVER_BRUTE, (
        f"exact DP only {ratio:.0f}x faster than brute force ({t_dp * 1e6:.1f} us vs "
        f"{t_brute * 1e3:.1f} ms); floor {MIN_DP_OVER_BRUTE:.0f}x")


@pytest.mark.slow
def test_numba_kernels_stay_far_faster_than_pure_python():
    figures = bench.decision(nodes=20, slots=48, vendors=5, load=16.0, seed=3,
                             python_tasks=12, out=open("/dev/null", "w"))  # noqa: SIM115
    assert figures["sample_tasks"] == 12
    assert figures["speedup_median"] >= MIN_NUMBA_SPEEDUP, (
        f"numba kernels only {figures['speedup_median']:.0f}x faster than pure Python "
        f"(median {figures['sample_median_jit_us']:.1f} us vs "
        f"{figures['sample_median_python_us']:.0f} us); floor {MIN_NUMBA_SPEEDUP:.0f}x")
