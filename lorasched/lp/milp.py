"""A maximisation MILP given as sparse triplets, solved by HiGHS to a stated relative gap
with every limit a count (:func:`solve_milp`), knowing nothing of what its variables are."""

from __future__ import annotations

import math
from typing import NamedTuple

import highspy
import numpy as np

from ..model.errors import InputError
from .highs import run

INF = highspy.kHighsInf


class MilpSolution(NamedTuple):
    """What :func:`solve_milp` found: ``x`` (the incumbent, zeros if none), its ``value``,
    HiGHS's ``dual_bound`` (a valid bound on the optimum: the MILP is solved, not a
    neighbourhood of it), ``gap`` = (bound - value) / |bound| (0 when both are 0), whether a
    limit stopped it (``hit_limit``), and the branch-and-bound ``nodes`` explored."""

    x: np.ndarray
    value: float
    dual_bound: float
    gap: float
    hit_limit: bool
    nodes: int


def objective(cost, x) -> float:
    """``cost @ x`` summed exactly (:func:`math.fsum`), so that the value, and every choice
    between schedules made on it, is the same whatever the machine's BLAS and its thread
    count: a BLAS dot product splits a long sum between threads, and its last bits then
    depend on how many there are."""
    return math.fsum(np.asarray(cost, dtype=float) * np.asarray(x, dtype=float))


def solve_milp(cost, rows, cols, coef, row_lower, row_upper, *, binary=None,
               mip_rel_gap: float = 0.01, max_nodes: int = 100_000,
               options: dict | None = None, start=None) -> MilpSolution:
    """Maximise ``cost @ x`` subject to ``row_lower <= A x <= row_upper`` and
    ``0 <= x <= 1``, every variable integer (binary) unless ``binary`` (a bool mask) says
    otherwise, where ``A[rows[m], cols[m]] = coef[m]`` (duplicates are summed).

    HiGHS runs single-threaded (deterministic) until the relative gap is at most
    ``mip_rel_gap`` or ``max_nodes`` branch-and-bound nodes have been explored (a count,
    so the same model gives the same answer on any machine); ``options`` sets further
    HiGHS options by name (a refused one raises :class:`~lorasched.model.errors.InputError`).
    ``start``, a feasible ``x`` if given, is HiGHS's first incumbent (one that breaks a
    row or a bound raises :class:`~lorasched.model.errors.InputError`).
    """
    cost = np.asarray(cost, dtype=float)
    n = cost.size
    m = np.asarray(row_lower).size
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    coef = np.asarray(coef, dtype=float)
    if n == 0:
        return MilpSolution(np.zeros(0), 0.0, 0.0, 0.0, False, 0)
    order = np.lexsort((rows, cols))  # column-wise, rows ascending within a column
    rows, cols, coef = rows[order], cols[order], coef[order]
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.col_cost_ = cost
    lp.col_lower_ = np.zeros(n)
    lp.col_upper_ = np.ones(n)
    lp.row_lower_ = np.asarray(row_lower, dtype=float)
    lp.row_upper_ = np.asarray(row_upper, dtype=float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
    lp.a_matrix_.start_ = np.searchsorted(cols, np.arange(n + 1)).astype(np.int32)
    lp.a_matrix_.index_ = rows.astype(np.int32)
    lp.a_matrix_.value_ = coef
    integer = np.ones(n, dtype=bool) if binary is None else np.asarray(binary, dtype=bool)
    lp.integrality_ = [highspy.HighsVarType.kInteger if b else highspy.HighsVarType.kContinuous
                       for b in integer]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("mip_rel_gap", float(mip_rel_gap))
    h.setOptionValue("mip_max_nodes", int(max_nodes))
    for name, value in (options or {}).items():
        if h.setOptionValue(name, value) != highspy.HighsStatus.kOk:
            raise InputError(f"HiGHS option {name!r} = {value!r} was refused")
    h.passModel(lp)
    if start is not None:
        _set_start(h, lp, np.asarray(start, dtype=float), rows, cols, coef)
    _, status = run(h)
    info = h.getInfo()
    hit = status != highspy.HighsModelStatus.kOptimal
    nodes = int(info.mip_node_count)
    if status == highspy.HighsModelStatus.kInfeasible:
        raise RuntimeError("MILP infeasible (x = 0 should always be feasible)")
    if info.primal_solution_status == 0:  # no incumbent
        return MilpSolution(np.zeros(n), 0.0, float(info.mip_dual_bound), np.inf, hit, nodes)
    x = np.asarray(h.getSolution().col_value)
    value = float(info.objective_function_value)
    bound = float(info.mip_dual_bound)
    gap = (bound - value) / abs(bound) if bound != 0 else 0.0
    return MilpSolution(x, value, bound, max(gap, 0.0), hit, nodes)


def _set_start(h: highspy.Highs, lp: highspy.HighsLp, x: np.ndarray, rows, cols, coef,
               tolerance: float = 1e-7) -> None:
    """Give HiGHS ``x`` as its first incumbent, after checking that it is feasible."""
    if x.shape != (lp.num_col_,):
        raise InputError(f"start has shape {x.shape}, the model {lp.num_col_} variables")
    activity = np.bincount(rows, weights=coef * x[cols], minlength=lp.num_row_)
    lower, upper = np.asarray(lp.row_lower_), np.asarray(lp.row_upper_)
    if ((x < -tolerance) | (x > 1 + tolerance)).any() or (
            (activity < lower - tolerance) | (activity > upper + tolerance)).any():
        raise InputError("start breaks a row or a bound of the model")
    h.setSolution(lp.num_col_, np.arange(lp.num_col_, dtype=np.int32), x)
