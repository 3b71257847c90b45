"""Allpass's pressure (eqs. 1-2) and scalers (Algorithms 1-2): hand-worked ticks pin the
numbers, a brute-force loop checks the pressure on random instances."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lorasched.allpass.pressure import (
    SLIP,
    TICK_S,
    UNITS,
    WINDOW_S,
    demand,
    necessary_demand,
    pressure,
    pressure_detail,
    window_set,
)
from lorasched.allpass.scalers import G_DN, R_DN, ServerfulScaler, ServerlessScaler

# -- pressure ----------------------------------------------------------------------------


def brute_demand(t, T, deadline, remaining, include_overdue=False):
    total = 0.0
    for d, r in zip(deadline, remaining, strict=True):
        if (include_overdue or t < d) and d <= t + T:
            total += r
    return total


def brute_pressure(t, windows, capacity, deadline, remaining, include_overdue=False):
    best = -1.0
    for T in windows:
        D = brute_demand(t, T, deadline, remaining, include_overdue)
        if capacity == 0:
            ratio = math.inf if D > 0 else 0.0
        else:
            ratio = D / (capacity * T)
        best = max(best, ratio)
    return best


def test_window_set_is_every_minute_up_to_thirty():
    w = window_set()
    assert w[0] == TICK_S == 60.0 and w[-1] == WINDOW_S == 1800.0 and w.size == 30
    np.testing.assert_array_equal(np.diff(w), 60.0)


def test_demand_window_is_half_open():
    deadline = [100.0, 160.0, 161.0, 50.0, 100.0 + 1e-9]
    remaining = [1.0, 2.0, 4.0, 8.0, 16.0]
    # (100, 160]: the deadline at t is out, the one at t + T in, the one after out
    assert demand(100.0, 60.0, deadline, remaining) == 2.0 + 16.0
    assert demand(100.0, 60.0, deadline, remaining, include_overdue=True) == 1 + 2 + 8 + 16
    np.testing.assert_array_equal(demand(100.0, [60.0, 61.0], deadline, remaining),
                                  [18.0, 22.0])


def test_jobs_outside_every_window_add_nothing():
    windows = window_set()
    deadline = [-5.0, 0.0, 1800.001, 1e6]   # overdue, at t, after the largest window
    remaining = [500.0, 500.0, 500.0, 500.0]
    assert pressure(0.0, windows, 1.0, deadline, remaining) == 0.0
    assert pressure(0.0, windows, 0.0, deadline, remaining) == 0.0  # nothing: 0 even at C=0
    # one job inside: only it counts; its binding window is the first holding it
    detail = pressure_detail(0.0, windows, 2.0, deadline + [90.0], remaining + [600.0])
    assert detail.window == 120.0 and detail.demand == 600.0
    assert detail.p == 600.0 / (2.0 * 120.0)


def test_zero_capacity_rule():
    windows = window_set()
    assert pressure(0.0, windows, 0.0, [600.0], [1.0]) == math.inf
    assert pressure(0.0, windows, 0.0, [600.0], [0.0]) == 0.0
    assert pressure(0.0, windows, 0.0, [], []) == 0.0


def test_hand_worked_pressure():
    # two jobs, 1 and 2 hours of work, due in 10 and 30 minutes, 3 workers of rate 1
    deadline, remaining = [600.0, 1800.0], [3600.0, 7200.0]
    # T = 600: 3600 / 1800 = 2; T = 1800: 10800 / 5400 = 2 as well; T = 1200: 1.0
    assert pressure(0.0, [600.0, 1200.0, 1800.0], 3.0, deadline, remaining) == 2.0
    assert pressure(0.0, [1200.0], 3.0, deadline, remaining) == 1.0
    assert pressure_detail(0.0, [1200.0, 1800.0, 600.0], 3.0, deadline, remaining).window \
        == 1800.0


@pytest.mark.parametrize("seed", range(40))
def test_pressure_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    t = float(rng.uniform(-1000, 1000))
    deadline = t + rng.uniform(-600, 2400, n)
    if n and rng.random() < 0.5:     # deadlines exactly on window edges
        k = rng.integers(0, n, n // 3)
        deadline[k] = t + 60.0 * rng.integers(0, 31, k.size)
    remaining = rng.exponential(900.0, n) * (rng.random(n) < 0.9)
    windows = (window_set() if rng.random() < 0.5
               else np.sort(rng.uniform(1.0, 3000.0, int(rng.integers(1, 10)))))
    capacity = float(rng.choice([0.0, rng.uniform(0.1, 20.0)]))
    for overdue in (False, True):
        got = pressure(t, windows, capacity, deadline, remaining, include_overdue=overdue)
        want = brute_pressure(t, windows, capacity, deadline, remaining, overdue)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
        Ds = demand(t, windows, deadline, remaining, include_overdue=overdue)
        for T, D in zip(windows, Ds, strict=True):
            assert D == pytest.approx(brute_demand(t, T, deadline, remaining, overdue),
                                      rel=1e-12, abs=1e-12)


def numpy_pressure(t, windows, capacity, deadline, remaining, factor):
    """Eqs. (1)-(2) with overdue jobs as numpy sums them (prefix sums by np.cumsum, the
    first max by np.argmax): the floats the compiled kernel must give exactly."""
    order = np.argsort(deadline, kind="stable")
    cum = np.concatenate(([0.0], np.cumsum(remaining[order])))
    D = factor * cum[np.searchsorted(deadline[order], t + windows, side="right")]
    ratio = (D / (capacity * windows) if capacity > 0
             else np.where(D > 0, math.inf, 0.0))
    k = int(np.argmax(ratio))
    return float(ratio[k]), float(windows[k]), float(D[k])


@pytest.mark.parametrize("seed", range(40))
def test_overdue_pressure_kernel_gives_numpys_floats(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 200))
    t = float(rng.uniform(0, 1e5))
    deadline = t + rng.choice([-600.0, 0.0, 60.0, 1800.0], n) * (rng.random(n) < 0.3) \
        + rng.uniform(-600, 2400, n) * (rng.random(n) < 0.7)        # many ties
    remaining = rng.lognormal(5.0, 3.0, n) * (rng.random(n) < 0.9)  # sums that round
    windows = (window_set() if rng.random() < 0.5
               else rng.uniform(1.0, 3000.0, int(rng.integers(1, 10))))  # any order
    capacity = float(rng.choice([0.0, float(rng.integers(1, 30)), rng.uniform(0.1, 20.0)]))
    for factor, units in ((1.0, "paper"), (SLIP, "slip")):
        got = pressure_detail(t, windows, capacity, deadline, remaining,
                              include_overdue=True, units=units)
        assert tuple(got) == numpy_pressure(t, windows, capacity, deadline, remaining,
                                            factor)


@pytest.mark.parametrize("call, match", [
    (lambda: demand(0.0, 0.0, [1.0], [1.0]), "T must"),
    (lambda: demand(0.0, [60.0, -1.0], [1.0], [1.0]), "T must"),
    (lambda: demand(math.nan, 60.0, [1.0], [1.0]), "t must"),
    (lambda: demand(0.0, 60.0, [1.0, 2.0], [1.0]), "remaining must have"),
    (lambda: demand(0.0, 60.0, [[1.0]], [[1.0]]), "deadline must be a 1-D"),
    (lambda: demand(0.0, 60.0, [math.inf], [1.0]), "deadline must be finite"),
    (lambda: demand(0.0, 60.0, [1.0], [-1.0]), "remaining must be finite and >= 0"),
    (lambda: pressure(0.0, [], 1.0, [1.0], [1.0]), "windows must"),
    (lambda: pressure(0.0, [60.0], -1.0, [1.0], [1.0]), "capacity must be >= 0"),
    (lambda: pressure(0.0, [60.0], math.inf, [1.0], [1.0]), "capacity must be a finite"),
    (lambda: window_set(1800.0, 700.0), "whole multiple"),
    (lambda: window_set(0.0), "horizon must"),
])
def test_pressure_bad_inputs_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# -- Algorithm 1 -------------------------------------------------------------------------


def test_serverless_hand_worked_ticks():
    s = ServerlessScaler()
    assert s.F == 300.0 and s.tau == -math.inf
    assert s.step(1.5) == 305.0          # min(100, 10 * 0.5) = 5
    assert s.step(20.0) == 405.0         # min(100, 10 * 19) = 100
    assert s.step(0.5) == 404.0          # -min(30, 2 * 0.5) = -1
    assert s.step(1.0) == 404.0          # p = 1: the else branch, -min(30, 0) = 0
    assert s.step(0.0) == 402.0          # -min(30, 2) = -2
    assert s.step(math.inf, now=7.0) == 502.0  # no capacity, some demand: + R_up
    assert s.tau == 7.0 and s.ticks == 6
    assert s.delta(1.1) == pytest.approx(1.0) and s.delta(0.9) == pytest.approx(-0.2)


def test_serverless_clamps_at_zero_and_bounds():
    s = ServerlessScaler(F0=1.0, G_dn=100.0)
    assert s.delta(0.0) == -30.0
    assert s.step(0.0) == 0.0            # 1 - 30 clamped at 0
    assert s.step(0.0) == 0.0
    assert s.step(1.2) == pytest.approx(2.0)  # grows back from 0
    b = ServerlessScaler(F0=300.0, F_min=250.0, F_max=320.0)
    assert [b.step(p) for p in (20.0, 20.0, 0.0, 0.0, 0.0, 0.0)] == [320.0, 320.0, 318.0,
                                                                      316.0, 314.0, 312.0]
    assert ServerlessScaler(F0=260.0, F_min=250.0, R_dn=30.0, G_dn=100.0).step(0.0) == 250.0


def test_serverless_sequence_and_snapshot():
    s = ServerlessScaler()
    ps = [2.0, 3.0, 0.2, 0.9, 1.0, 15.0]
    F = 300.0
    for p in ps:
        F = max(0.0, F + (min(100.0, 10.0 * (p - 1)) if p > 1 else -min(30.0, 2.0 * (1 - p))))
        assert s.step(p) == pytest.approx(F)
    state = s.snapshot()
    after = [s.step(p) for p in (0.1, 4.0, 0.0)]
    s.restore(state)
    assert s.F == pytest.approx(F) and s.ticks == len(ps)
    assert [s.step(p) for p in (0.1, 4.0, 0.0)] == after


@pytest.mark.parametrize("kwargs, match", [
    ({"G_up": -1.0}, "G_up must"), ({"R_up": math.nan}, "R_up must"),
    ({"G_dn": math.inf}, "G_dn must"), ({"R_dn": -0.5}, "R_dn must"),
    ({"F0": -1.0}, "F0 must"), ({"F_min": 400.0}, "F0 must lie"),
    ({"F_max": 100.0}, "F0 must lie"), ({"F_min": 10.0, "F_max": 5.0}, "F_max must"),
])
def test_serverless_bad_inputs_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ServerlessScaler(**kwargs)


@pytest.mark.parametrize("p", [math.nan, -0.1, True, "2"])
def test_serverless_bad_pressure(p):
    with pytest.raises(ValueError, match="p must"):
        ServerlessScaler().step(p)


# -- Algorithm 2 -------------------------------------------------------------------------

OFFERS = [0.9, 0.4, 1.2, 0.4, 0.7]   # $/h; cheapest first: 1, 3, 4, 0, 2
IDLE = [1.1, 2.5, 0.3, 2.5]          # dearest first: 1, 3, 0, 2


def test_serverful_evident_scale_out():
    # 10 workers of rate 1 over 30 min serve 18000 s; 36000 s are due: p = 2
    d = ServerfulScaler(1.0).decide(36000.0, 10.0, 1800.0, 2.0, OFFERS, IDLE)
    assert d.shortfall == 18000.0
    assert d.add == 10                   # ⌈18000 / 1800⌉
    assert d.add_offers == (1, 3, 4, 0, 2) and d.fallback == 5
    assert d.remove == ()
    d = ServerfulScaler(1.0).decide(18001.0, 10.0, 1800.0, 1.01, OFFERS, IDLE)
    assert d.add == 1 and d.add_offers == (1,) and d.fallback == 0


def test_serverful_evident_scale_in():
    # 10 workers serve 18000 s; 9000 s due: ⌊9000 / 1800⌋ = 5 to release, 4 are idle
    d = ServerfulScaler(1.0).decide(9000.0, 10.0, 1800.0, 0.5, OFFERS, IDLE)
    assert d.add == 0 and d.remove == (1, 3, 0, 2) and d.shortfall == -9000.0
    d = ServerfulScaler(1.0).decide(14000.0, 10.0, 1800.0, 14000 / 18000, OFFERS, IDLE)
    assert d.remove == (1, 3)            # ⌊4000 / 1800⌋ = 2, the two dearest
    # 10 workers of rate 2 (C = 20): each serves 3600 s in the window
    d = ServerfulScaler(2.0).decide(9000.0, 20.0, 1800.0, 0.25, OFFERS, IDLE)
    assert d.remove == (1, 3, 0, 2)      # ⌊(36000 - 9000) / 3600⌋ = 7, capped at 4 idle
    d = ServerfulScaler(2.0).decide(9000.0, 10.0, 1800.0, 0.5, OFFERS, IDLE)
    assert d.remove == (1, 3)            # 5 workers of rate 2: ⌊9000 / 3600⌋ = 2
    # p = 1 and p from a shorter window than the one passed: neither trigger acts
    d = ServerfulScaler(1.0).decide(18000.0, 10.0, 1800.0, 1.0, OFFERS, IDLE)
    assert d.add == 0 and d.remove == ()
    d = ServerfulScaler(1.0).decide(9000.0, 10.0, 1800.0, 3.0, OFFERS, IDLE)
    assert d.add == 0 and d.remove == ()  # p > 1 but D < C T in this window: never below 0


def test_serverful_no_capacity():
    d = ServerfulScaler(1.0).decide(5000.0, 0.0, 1800.0, math.inf, [], IDLE)
    assert d.add == 3 and d.add_offers == () and d.fallback == 3   # ⌈5000 / 1800⌉


def test_serverful_literal_reading():
    lit = ServerfulScaler(1.0, reading="literal")
    # scale-out: Δ = max(0, 36000 - 10) = 35990 (work minus rate, as printed): ⌈19.99⌉ = 20
    d = lit.decide(36000.0, 10.0, 1800.0, 2.0, OFFERS, IDLE)
    assert d.shortfall == 35990.0 and d.add == 20 and d.fallback == 15
    # scale-in: whenever D <= C, Δ = 0 and nothing is ever released
    for D in (0.0, 5.0, 10.0):
        d = lit.decide(D, 10.0, 1800.0, D / 18000.0, OFFERS, IDLE)
        assert d.shortfall == 0.0 and d.add == 0 and d.remove == ()
    # ... but with C a rate, p < 1 and D - C >= μT the print releases ⌊(D - C) / (μT)⌋
    d = lit.decide(9000.0, 10.0, 1800.0, 0.5, OFFERS, IDLE)
    assert d.shortfall == 8990.0 and d.remove == (1, 3, 0, 2)      # ⌊4.99⌋ = 4
    d = lit.decide(4000.0, 10.0, 1800.0, 4000 / 18000, OFFERS, IDLE)
    assert d.remove == (1, 3)                                       # ⌊3990 / 1800⌋ = 2
    # the evident reading on the same tick releases for the surplus instead
    ev = ServerfulScaler(1.0).decide(4000.0, 10.0, 1800.0, 4000 / 18000, OFFERS, IDLE)
    assert ev.remove == (1, 3, 0, 2)                                # ⌊14000 / 1800⌋ = 7 > 4


def test_serverful_literal_never_scales_in_in_consistent_units():
    # the literal reading with C passed as the window's capacity C T: p < 1 means D < C,
    # so Δ = 0
    rng = np.random.default_rng(3)
    lit = ServerfulScaler(1.0, reading="literal")
    for _ in range(200):
        CT = float(rng.uniform(0, 1e5))
        D = float(rng.uniform(0, CT))
        d = lit.decide(D, CT, 1800.0, D / CT if CT else 0.0, OFFERS, IDLE)
        assert d.remove == () and d.add == 0


def test_serverful_rounding_and_snapshot():
    d = ServerfulScaler(1.0).decide(0.3 * 3 * 6000.0, 0.0, 600.0, 2.0)   # 5400.000000000001
    assert d.add == 9
    s = ServerfulScaler(1.0)
    s.restore(s.snapshot())
    assert s.snapshot() == {}


@pytest.mark.parametrize("call, match", [
    (lambda: ServerfulScaler(0.0), "mu must be > 0"),
    (lambda: ServerfulScaler(1.0, reading="printed"), "reading must be one of"),
    (lambda: ServerfulScaler().decide(-1.0, 1.0, 60.0, 1.0), "demand must"),
    (lambda: ServerfulScaler().decide(1.0, math.nan, 60.0, 1.0), "capacity must"),
    (lambda: ServerfulScaler().decide(1.0, 1.0, 0.0, 1.0), "window must be > 0"),
    (lambda: ServerfulScaler().decide(1.0, 1.0, 60.0, -1.0), "p must"),
    (lambda: ServerfulScaler().decide(1.0, 1.0, 60.0, 2.0, [[1.0]]), "offer_prices must"),
    (lambda: ServerfulScaler().decide(1.0, 1.0, 60.0, 0.5, [], [-1.0]), "idle_prices must"),
])
def test_serverful_bad_inputs_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def brute_necessary(t, T, deadline, remaining):
    """Work job by job that must be done by t + T for each deadline to hold."""
    total = 0.0
    for d, r in zip(deadline, remaining, strict=True):
        if d <= t + T:
            total += r
        else:
            total += min(r, max(0.0, r - (d - (t + T))))
    return total


def test_necessary_demand_hand_worked():
    # a 5 h job due in 6 h needs nothing in the next 30 min, 1 h 30 min in the next 2.5 h
    t = 1000.0
    assert necessary_demand(t, [1800.0], [t + 6 * 3600], [5 * 3600])[0] == 0.0
    assert necessary_demand(t, [2.5 * 3600], [t + 6 * 3600], [5 * 3600])[0] == \
        pytest.approx(1.5 * 3600)
    # overdue and in-window jobs count whole
    assert necessary_demand(t, [60.0], [t - 5, t + 30], [100.0, 200.0])[0] == 300.0


@pytest.mark.parametrize("seed", range(5))
def test_necessary_demand_matches_brute_force_and_bounds_eq1(seed):
    rng = np.random.default_rng(seed)
    t = float(rng.uniform(0, 1e4))
    deadline = t + rng.uniform(-3600, 4 * 3600, 40)
    remaining = rng.uniform(0, 7200, 40)
    windows = window_set()
    got = necessary_demand(t, windows, deadline, remaining)
    want = [brute_necessary(t, T, deadline, remaining) for T in windows]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)
    # never below eq. (1) with overdue jobs counted
    eq1 = demand(t, windows, deadline, remaining, include_overdue=True)
    assert np.all(got >= eq1 - 1e-9)
    detail = pressure_detail(t, windows, 3.0, deadline, remaining, rule="laxity")
    assert detail.p == pytest.approx(np.max(got / (3.0 * windows)))


def test_pressure_rule_named():
    with pytest.raises(ValueError, match="rule"):
        pressure_detail(0.0, [60.0], 1.0, [10.0], [5.0], rule="slack")


# -- units="slip" (a hypothesis about the authors' code, not the default) ------------------


def test_units_default_is_the_papers_and_slip_is_sixty_times_d():
    assert UNITS == ("paper", "slip") and SLIP == 60.0
    deadline, remaining = [600.0, 1800.0], [3600.0, 7200.0]
    windows = [600.0, 1200.0, 1800.0]
    paper = pressure_detail(0.0, windows, 3.0, deadline, remaining)
    assert pressure_detail(0.0, windows, 3.0, deadline, remaining, units="paper") == paper
    slip = pressure_detail(0.0, windows, 3.0, deadline, remaining, units="slip")
    # the same binding window; D and p 60 times larger (D's seconds against C T in minutes)
    assert slip.window == paper.window == 600.0
    assert slip.demand == 60.0 * paper.demand == 60.0 * 3600.0
    assert slip.p == 60.0 * paper.p == pytest.approx(120.0)
    assert pressure(0.0, windows, 3.0, deadline, remaining, units="slip") == slip.p
    # the same as the window counted in minutes against D in seconds
    minutes = np.asarray(windows) / 60.0
    assert slip.p == pytest.approx(max(brute_demand(0.0, T, deadline, remaining) / (3.0 * m)
                                       for T, m in zip(windows, minutes, strict=True)))
    # no demand stays no pressure; no capacity stays inf
    assert pressure(0.0, windows, 3.0, [1e6], [10.0], units="slip") == 0.0
    assert pressure(0.0, windows, 0.0, deadline, remaining, units="slip") == math.inf


def test_slip_applies_to_the_laxity_rule_too():
    t, windows = 0.0, window_set()
    deadline, remaining = [t + 3 * 3600], [2 * 3600.0]
    lax = pressure_detail(t, windows, 1.0, deadline, remaining, rule="laxity")
    lax_slip = pressure_detail(t, windows, 1.0, deadline, remaining, rule="laxity",
                               units="slip")
    assert lax_slip.p == pytest.approx(60.0 * lax.p) and lax_slip.window == lax.window


def test_slip_makes_algorithm2_add_as_for_a_window_in_minutes():
    # what Algorithm 2 receives under the slip: (60 D - C T) / (mu T) workers
    d = pressure_detail(0.0, [1800.0], 2.0, [1800.0], [1800.0], units="slip")
    assert d.p == pytest.approx(30.0)
    dec = ServerfulScaler().decide(d.demand, 2.0, d.window, d.p)
    assert dec.add == math.ceil((60 * 1800.0 - 2.0 * 1800.0) / 1800.0) == 58
    paper = pressure_detail(0.0, [1800.0], 2.0, [1800.0], [1800.0])
    assert ServerfulScaler().decide(paper.demand, 2.0, paper.window, paper.p).add == 0


def test_units_named():
    with pytest.raises(ValueError, match="units must be one of"):
        pressure_detail(0.0, [60.0], 1.0, [10.0], [5.0], units="minutes")
    with pytest.raises(ValueError, match="units must be one of"):
        pressure(0.0, [60.0], 1.0, [10.0], [5.0], units="")


# -- what sec. 5.1's constants do ------------------------------------------------------------


@pytest.mark.parametrize("p", [0.0, 0.25, 0.5, 0.999, 1.0])
def test_r_dn_never_binds_with_the_papers_gains(p):
    # p >= 0, so G_dn (1 - p) <= G_dn = 2 < R_dn = 30: F falls at most 2 s a tick
    assert G_DN == 2.0 and R_DN == 30.0
    paper = ServerlessScaler()
    assert paper.delta(p) == -G_DN * (1 - p) >= -G_DN
    for R_dn in (2.0, 1e9):              # any R_dn >= G_dn moves F the same way
        assert ServerlessScaler(R_dn=R_dn).delta(p) == paper.delta(p)
    assert ServerlessScaler(R_dn=1.0).delta(0.0) == -1.0      # below G_dn it would bind


def test_tau_is_recorded_but_moves_nothing():
    a, b = ServerlessScaler(), ServerlessScaler()
    for k, p in enumerate([3.0, 0.2, 1.5, 0.0]):
        a.step(p, now=60.0 * k)
        b.step(p, now=1e6 + 7.0 * k)
        assert a.F == b.F
    assert a.tau == 180.0 and b.tau != a.tau
