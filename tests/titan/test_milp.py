"""TITAN's allocation MILP and task merger (lorasched.titan.milp) against hand-worked
examples and brute-force enumeration on tiny instances."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from lorasched.titan import allocation_set, solve_allocation, solve_with_merging

A = (1, 2, 4)


def _random_T(rng, rows, forbid=0.2):
    """Random progress rates in [0, 1) with about ``forbid`` of the entries NaN or -inf."""
    T = rng.random((rows, len(A)))
    mask = rng.random(T.shape) < forbid
    T[mask] = rng.choice([np.nan, -np.inf], size=int(mask.sum()))
    return T


def _options(row):
    """None (not run) and every allowed allocation index of one progress row."""
    return [None] + [c for c in range(len(row)) if math.isfinite(row[c])]


def _brute_allocation(T, M):
    """Optimum of eqs. (1)-(4) by enumerating every choice per job."""
    best = 0.0
    for choice in itertools.product(*[_options(row) for row in T]):
        if sum(A[c] for c in choice if c is not None) <= M:
            best = max(best, sum(T[i][c] for i, c in enumerate(choice) if c is not None))
    return best


def _brute_merging(T, merged_T, groups, M, reading):
    """Optimum of eqs. (5)-(11) under one reading of (9)-(10), by enumeration."""
    best = 0.0
    n = len(T)
    for choice in itertools.product(*[_options(row) for row in list(T) + list(merged_T)]):
        alone, merged = choice[:n], choice[n:]
        gpus = sum(A[c] for c in choice if c is not None)
        if gpus > M:
            continue
        runs = [k for k, c in enumerate(merged) if c is not None]
        if reading == "pairwise":
            ok = all((alone[i] is not None) + sum(i in groups[k] for k in runs) <= 1
                     for i in range(n))
        else:
            ok = all(
                (merged[k] is not None) + sum(alone[i] is not None for i in groups[k]) <= 1
                and (merged[k] is not None)
                + sum(1 for k1 in runs if k1 != k and set(groups[k1]) & set(groups[k])) <= 1
                for k in range(len(groups)))
        if ok:
            value = sum(T[i][c] for i, c in enumerate(alone) if c is not None)
            value += sum(merged_T[k][c] * (1 + len(groups[k])) / 2
                         for k, c in enumerate(merged) if c is not None)
            best = max(best, value)
    return best


def test_allocation_set_values():
    """A = {1, 2, 4m} is cut at max_gpus."""
    assert allocation_set(16) == (1, 2, 4, 8, 12, 16)
    assert allocation_set(0) == ()
    assert allocation_set(1) == (1,)
    assert allocation_set(3) == (1, 2)
    assert allocation_set(11) == (1, 2, 4, 8)


def test_allocation_set_rejects_negative():
    """A negative or non-integer max_gpus is refused by name."""
    with pytest.raises(ValueError, match="max_gpus"):
        allocation_set(-1)
    with pytest.raises(ValueError, match="max_gpus"):
        allocation_set(2.5)


@pytest.mark.parametrize("seed", range(8))
def test_solve_allocation_matches_brute_force(seed):
    """On random tiny instances with forbidden entries the MILP optimum equals enumeration."""
    rng = np.random.default_rng(seed)
    T = _random_T(rng, int(rng.integers(2, 5)))
    M = int(rng.integers(3, 9))
    result = solve_allocation(T, M, A)
    assert result.objective == pytest.approx(_brute_allocation(T, M), abs=1e-9)
    assert result.gpus_used <= M
    assert result.status == "Optimal"
    for i, a in enumerate(result.gpus):
        assert a == 0 or math.isfinite(T[i, A.index(a)])
    assert result.objective == pytest.approx(
        sum(T[i, A.index(a)] for i, a in enumerate(result.gpus) if a), abs=1e-12)


def test_solve_allocation_hand_example():
    """Two jobs: M=4 splits 2+2 (0.55 beats 0.5 for job 1 on 4); M=3 gives 1+2."""
    T = [[0.1, 0.2, 0.3], [0.2, 0.35, 0.5]]
    four = solve_allocation(T, 4, A)
    assert four.gpus == (2, 2)
    assert four.objective == pytest.approx(0.55)
    three = solve_allocation(T, 3, A)
    assert three.gpus == (1, 2)
    assert three.objective == pytest.approx(0.45)
    assert solve_allocation(T, 0, A).gpus == (0, 0)


def test_solve_allocation_respects_forbidden_entries():
    """A NaN (not measured) allocation is never chosen even when it would be best."""
    T = [[0.1, np.nan, 0.9], [0.2, 0.3, -np.inf]]
    result = solve_allocation(T, 2, A)
    assert result.gpus == (1, 1)
    assert result.objective == pytest.approx(0.3)


def test_solve_allocation_default_allocations():
    """Without allocations, T's columns follow allocation_set(M)."""
    result = solve_allocation([[0.1, 0.2, 0.4, 0.5]], 8)
    assert result.gpus == (8,)


def test_solve_allocation_validation_names_item():
    """Bad inputs raise errors naming the argument and the job/allocation at fault."""
    with pytest.raises(ValueError, match=r"T\[1, 2\] \(job 1, allocation 4 GPUs\)"):
        solve_allocation([[0.1, 0.2, 0.3], [0.1, 0.2, -0.5]], 4, A)
    with pytest.raises(ValueError, match=r"T\[0, 0\]"):
        solve_allocation([[np.inf, 0.2, 0.3]], 4, A)
    with pytest.raises(ValueError, match="shape"):
        solve_allocation([[0.1, 0.2]], 4, A)
    with pytest.raises(ValueError, match="gpus_available"):
        solve_allocation([[0.1, 0.2, 0.3]], -1, A)
    with pytest.raises(ValueError, match=r"allocations\[1\]"):
        solve_allocation([[0.1, 0.2, 0.3]], 4, (1, 0, 4))


@pytest.mark.parametrize("reading", ["pairwise", "literal"])
@pytest.mark.parametrize("seed", range(6))
def test_merging_matches_brute_force(seed, reading):
    """On random tiny instances each reading's optimum equals its own enumeration."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(3, 5))
    candidates = [g for size in (2, 3) for g in itertools.combinations(range(n), size)]
    picks = rng.choice(len(candidates), size=int(rng.integers(1, 4)), replace=False)
    groups = [candidates[p] for p in sorted(picks)]
    T = _random_T(rng, n)
    merged_T = _random_T(rng, len(groups))
    M = int(rng.integers(4, 9))
    result = solve_with_merging(T, merged_T, groups, M, A, constraints=reading)
    assert result.objective == pytest.approx(
        _brute_merging(T, merged_T, groups, M, reading), abs=1e-9)
    assert result.gpus_used <= M
    assert result.constraints == reading


def test_merging_pairwise_no_job_runs_twice():
    """Under the pairwise reading every job runs in at most one execution."""
    rng = np.random.default_rng(7)
    groups = [(0, 1), (1, 2), (2, 3), (0, 3)]
    for _ in range(5):
        result = solve_with_merging(_random_T(rng, 4), _random_T(rng, 4, 0.0) * 2, groups, 8, A)
        count = [int(a > 0) for a in result.gpus]
        for group, _ in result.merged:
            for i in group:
                count[i] += 1
        assert max(count) <= 1


def test_literal_forbids_two_members_alone():
    """Literal (9) lets one member of a candidate set run alone; pairwise lets both."""
    T = [[1.0, 0.0], [1.0, 0.0]]
    merged_T = [[0.0, 0.1]]
    literal = solve_with_merging(T, merged_T, [(0, 1)], 2, (1, 2), constraints="literal")
    pairwise = solve_with_merging(T, merged_T, [(0, 1)], 2, (1, 2), constraints="pairwise")
    assert literal.objective == pytest.approx(1.0)
    assert sorted(literal.gpus) == [0, 1]
    assert pairwise.objective == pytest.approx(2.0)
    assert pairwise.gpus == (1, 1)
    assert literal.merged == pairwise.merged == ()


def test_literal_forbids_disjoint_groups_sharing_a_neighbour():
    """Literal (10) excludes disjoint candidates that both overlap a third; pairwise not."""
    T = np.zeros((4, 1))
    merged_T = [[1.0], [0.0], [1.0]]
    groups = [(0, 1), (1, 2), (2, 3)]
    literal = solve_with_merging(T, merged_T, groups, 4, (1,), constraints="literal")
    pairwise = solve_with_merging(T, merged_T, groups, 4, (1,), constraints="pairwise")
    assert literal.objective == pytest.approx(1.5)
    assert pairwise.objective == pytest.approx(3.0)
    assert pairwise.merged == (((0, 1), 1), ((2, 3), 1))


def test_merging_weight_applied():
    """A merged job's progress counts (1 + |mj|) / 2 times: 0.3 * 1.5 = 0.45 beats 0.4."""
    T = [[0.4], [0.1]]
    result = solve_with_merging(T, [[0.3]], [(0, 1)], 1, (1,))
    assert result.merged == (((0, 1), 1),)
    assert result.gpus == (0, 0)
    assert result.objective == pytest.approx(0.45)
    three = solve_with_merging([[0.1]] * 3, [[0.4]], [(0, 1, 2)], 1, (1,))
    assert three.objective == pytest.approx(0.8)


def test_merging_validation_names_item():
    """Bad groups, merged_T or reading raise errors naming the argument and the item."""
    T = [[0.1, 0.2, 0.3]] * 3
    with pytest.raises(ValueError, match=r"merged_T\[0, 1\] \(group 0, allocation 2 GPUs\)"):
        solve_with_merging(T, [[0.1, -1.0, 0.3]], [(0, 1)], 4, A)
    with pytest.raises(ValueError, match=r"groups\[1\] must merge at least 2"):
        solve_with_merging(T, [[0.1] * 3] * 2, [(0, 1), (2,)], 4, A)
    with pytest.raises(ValueError, match=r"groups\[0\] holds 3"):
        solve_with_merging(T, [[0.1] * 3], [(0, 3)], 4, A)
    with pytest.raises(ValueError, match=r"groups\[0\] repeats a job"):
        solve_with_merging(T, [[0.1] * 3], [(1, 1)], 4, A)
    with pytest.raises(ValueError, match=r"groups\[1\] .* repeats groups\[0\]"):
        solve_with_merging(T, [[0.1] * 3] * 2, [(0, 1), (1, 0)], 4, A)
    with pytest.raises(ValueError, match="one row per group"):
        solve_with_merging(T, [[0.1] * 3] * 2, [(0, 1)], 4, A)
    with pytest.raises(ValueError, match="constraints"):
        solve_with_merging(T, [[0.1] * 3], [(0, 1)], 4, A, constraints="strict")
