"""Column generation on HiGHS: a restricted master packing LP over columns in groups
(:class:`MasterLP`) and the loop around it (:func:`column_generation`), knowing nothing of
what a column stands for. The LP: :doc:`/reference/offline`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import highspy
import numpy as np
from tqdm import tqdm

from ..model.errors import InputError

INF = highspy.kHighsInf


class Column(NamedTuple):
    """One column of the master: ``group``, objective ``value`` (v_c), ``cells`` (a tuple of
    index arrays into the capacity arrays, each cell at most once), ``use`` (per resource,
    its coefficient at each cell: an array aligned with the cells, or one number for all)
    and an opaque ``label`` kept for the caller. Two columns with the same group, label and
    cells are the same column."""

    group: int
    value: float
    cells: tuple[np.ndarray, ...]
    use: tuple
    label: object = None


class MasterLP:
    """Restricted master LP (module docstring); resource rows are added lazily, per cell.

    Row layout: one convexity row per group, then, for each cell that some column uses, one
    row per resource (in the order of ``capacities``) whose right-hand side is that
    resource's capacity at the cell. Rows of new cells are numbered in the order the
    columns first use them.

    ``options`` sets further HiGHS options by name (e.g. ``{"simplex_scale_strategy": 0}``,
    which the offline bound uses); a refused option raises ``ValueError`` naming it.

    Columns are added in batches (:meth:`add_columns`, one ``addRows`` and one ``addCols``
    per batch): HiGHS keeps the basis of the last solve, so the next solve starts from it
    (new columns nonbasic at 0, new rows' slacks basic). The model, and hence every solve,
    is the same as when the columns are added one by one.
    """

    def __init__(self, n_groups: int, capacities: Sequence[np.ndarray],
                 options: dict | None = None, stall_iterations: int | None = None):
        self.h = highspy.Highs()
        self.h.setOptionValue("output_flag", False)
        self.h.setOptionValue("threads", 1)
        # re-solves after adding columns must start from the last basis: presolve would
        # discard it (measured: 10x slower re-solves)
        self.h.setOptionValue("presolve", "off")
        self.h.setOptionValue("solver", "simplex")
        for name, value in (options or {}).items():  # further HiGHS options, by name
            if self.h.setOptionValue(name, value) != highspy.HighsStatus.kOk:
                raise InputError(f"HiGHS option {name!r} = {value!r} was refused")
        self.h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self.stall_iterations = stall_iterations
        self.stalls = 0  # solves taken as stalled and solved again (see :meth:`solve_lp`)
        if stall_iterations is not None:
            self.h.setOptionValue("simplex_iteration_limit", int(stall_iterations))
        self.n_groups = n_groups
        self.capacities = tuple(capacities)
        self.n_resources = len(self.capacities)
        shape = self.capacities[0].shape
        self.row_of = np.full(shape, -1, dtype=np.int64)  # first resource row of a cell
        self._cells: list[tuple[np.ndarray, ...]] = []  # cells with rows, in row order
        self.n_cells = 0
        self.col_group: list[int] = []
        self.col_cells: list[tuple[np.ndarray, ...]] = []
        self.col_label: list = []
        self.col_value: list[float] = []
        self.seen: set = set()
        self._add_rows(np.full(n_groups, 1.0))

    def _add_rows(self, upper: np.ndarray) -> None:
        n = upper.shape[0]
        self.h.addRows(n, np.full(n, -INF), upper.astype(float), 0,
                       np.zeros(n, dtype=np.int32), np.empty(0, dtype=np.int32),
                       np.empty(0))

    @property
    def n_rows(self) -> int:
        return self.n_groups + self.n_resources * self.n_cells

    @property
    def n_columns(self) -> int:
        return len(self.col_group)

    def add_columns(self, columns: Sequence[Column]) -> int:
        """Add ``columns`` in this order, skipping those already in the master (same group,
        label and cells). Returns the number added."""
        fresh = []
        for column in columns:
            key = (column.group, column.label, *(ix.tobytes() for ix in column.cells))
            if key not in self.seen:
                self.seen.add(key)
                fresh.append(column)
        if not fresh:
            return 0
        R = self.n_resources
        row_of = self.row_of
        next_row = self.n_rows
        new = []
        for column in fresh:
            # a column uses each cell once, so its new cells are distinct; rows follow the
            # order of first use, as if added one by one
            miss = row_of[column.cells] < 0
            if miss.any():
                cells = tuple(ix[miss] for ix in column.cells)
                n_new = cells[0].size
                row_of[cells] = next_row + R * np.arange(n_new)
                next_row += R * n_new
                new.append(cells)
        if new:
            cells = tuple(np.concatenate(ix) for ix in zip(*new, strict=True))
            n_new = cells[0].size
            upper = np.empty(R * n_new)
            for r, cap in enumerate(self.capacities):
                upper[r::R] = cap[cells]
            self._add_rows(upper)
            self.n_cells += n_new
            self._cells.append(cells)
        n = len(fresh)
        sizes = np.array([1 + R * c.cells[0].size for c in fresh], dtype=np.int64)
        col_start = np.zeros(n, dtype=np.int32)
        np.cumsum(sizes[:-1], out=col_start[1:])
        index = np.empty(int(sizes.sum()), dtype=np.int32)
        value = np.empty(index.size)
        for m, column in enumerate(fresh):
            p = int(col_start[m])
            end = p + sizes[m]
            rows = row_of[column.cells]
            index[p] = column.group
            value[p] = 1.0
            for r in range(R):
                index[p + 1 + r: end: R] = rows + r
                value[p + 1 + r: end: R] = column.use[r]
        cost = np.array([c.value for c in fresh], dtype=float)
        self.h.addCols(n, cost, np.zeros(n), np.ones(n), index.size, col_start, index, value)
        for column in fresh:
            self.col_group.append(column.group)
            self.col_cells.append(column.cells)
            self.col_label.append(column.label)
            self.col_value.append(column.value)
        return n

    def solve_lp(self) -> tuple[float, np.ndarray, tuple[np.ndarray, ...]]:
        """Solve the LP; return ``(objective, mu[n_groups], (pi_r per resource, in the shape
        of the capacities))``, duals clipped at 0.

        With ``stall_iterations`` (a count, so results stay machine-independent), a solve
        that needs more simplex iterations than that is taken as stalled and solved again
        from a fresh basis with the primal simplex (:attr:`stalls` counts them). Seen once:
        the warm-started dual simplex on a 712-column master ran 6.3 million iterations
        (222 s), where every other solve of that run took at most a few hundred."""
        self.h.run()
        status = self.h.getModelStatus()
        if (self.stall_iterations is not None
                and status == highspy.HighsModelStatus.kIterationLimit):
            self.stalls += 1
            _, strategy = self.h.getOptionValue("simplex_strategy")
            self.h.clearSolver()
            self.h.setOptionValue("simplex_iteration_limit", 2**31 - 1)
            self.h.setOptionValue("simplex_strategy", 4)  # primal
            self.h.run()
            status = self.h.getModelStatus()
            self.h.setOptionValue("simplex_strategy", strategy)
            self.h.setOptionValue("simplex_iteration_limit", int(self.stall_iterations))
        if status != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"master LP: {self.h.modelStatusToString(status)}")
        dual = np.asarray(self.h.getSolution().row_dual)
        mu = np.maximum(dual[: self.n_groups], 0.0)
        duals = tuple(np.zeros(cap.shape) for cap in self.capacities)
        if self.n_cells:
            if len(self._cells) > 1:
                self._cells = [tuple(np.concatenate(ix) for ix in zip(*self._cells,
                                                                       strict=True))]
            cells = self._cells[0]
            rows = self.row_of[cells]
            for r, d in enumerate(duals):
                d[cells] = np.maximum(dual[rows + r], 0.0)
        return self.h.getInfo().objective_function_value, mu, duals

    def solve_integer(self, time_limit: float, mip_rel_gap: float, max_nodes: int = 2**31 - 1,
                      options: dict | None = None):
        """Make every column binary and solve the MILP over the columns generated.

        ``max_nodes`` (branch-and-bound nodes) limits the work deterministically;
        ``time_limit`` (seconds) makes the outcome depend on the machine's speed;
        ``options`` sets further HiGHS options for this solve, by name (a refused one
        raises ``ValueError`` naming it). Returns (selected column indices, objective,
        HiGHS dual bound, HiGHS MIP gap, hit_limit).
        """
        n = self.n_columns
        if n == 0:
            return np.empty(0, dtype=np.int64), 0.0, 0.0, 0.0, False
        self.h.changeColsIntegrality(
            n, np.arange(n, dtype=np.int32),
            np.array([highspy.HighsVarType.kInteger] * n))
        self.h.setOptionValue("time_limit", float(time_limit))
        self.h.setOptionValue("mip_rel_gap", float(mip_rel_gap))
        self.h.setOptionValue("mip_max_nodes", int(max_nodes))
        self.h.setOptionValue("presolve", "on")
        for name, value in (options or {}).items():
            if self.h.setOptionValue(name, value) != highspy.HighsStatus.kOk:
                raise InputError(f"HiGHS option {name!r} = {value!r} was refused")
        self.h.run()
        status = self.h.getModelStatus()
        hit = status != highspy.HighsModelStatus.kOptimal
        info = self.h.getInfo()
        if info.primal_solution_status == 0:  # no incumbent
            return np.empty(0, dtype=np.int64), 0.0, float(info.mip_dual_bound), np.inf, hit
        x = np.asarray(self.h.getSolution().col_value)
        chosen = np.flatnonzero(x > 0.5)
        return (chosen, float(info.objective_function_value), float(info.mip_dual_bound),
                float(info.mip_gap), hit)

    def solve_fixed(self, time_limit: float, mip_rel_gap: float, max_nodes: int = 2**31 - 1,
                    options: dict | None = None, tol: float = 1e-6):
        """RENS (Berthold 2014, "RENS: the optimal rounding"): keep the columns the last LP
        solution sets to 1, drop those it sets to 0, and solve a MILP over the fractional
        ones alone -- their convexity and resource rows, each with what the columns set to
        1 leave of its right-hand side -- with HiGHS (``time_limit``, ``max_nodes``,
        ``mip_rel_gap`` and ``options`` as in :meth:`solve_integer`). A column counts as
        set to 1 (0) when its value is within ``tol`` of it. The model of this master is left
        as it is (still an LP). Returns what :meth:`solve_integer` returns; the dual bound is
        NaN (the sub-MILP bounds only its neighbourhood) and the gap is the sub-MILP's."""
        n = self.n_columns
        if n == 0:
            return np.empty(0, dtype=np.int64), 0.0, np.nan, 0.0, False
        x = np.asarray(self.h.getSolution().col_value)
        if x.size != n:  # columns added since the last LP solve
            self.solve_lp()
            x = np.asarray(self.h.getSolution().col_value)
        lp = self.h.getLp()
        start = np.asarray(lp.a_matrix_.start_)
        index = np.asarray(lp.a_matrix_.index_)
        value = np.asarray(lp.a_matrix_.value_)
        cost = np.asarray(lp.col_cost_)
        one = x >= 1.0 - tol
        frac = (x > tol) & ~one
        per_col = np.diff(start)
        col_of = np.repeat(np.arange(n), per_col)
        in_one = one[col_of]
        left = np.asarray(lp.row_upper_, dtype=float).copy()
        np.subtract.at(left, index[in_one], value[in_one])
        chosen = np.flatnonzero(one)
        gap, hit = 0.0, False
        if frac.any():
            cols = np.flatnonzero(frac)
            in_frac = frac[col_of]
            rows, sub_index = np.unique(index[in_frac], return_inverse=True)
            sub_start = np.zeros(cols.size + 1, dtype=np.int32)
            np.cumsum(per_col[cols], out=sub_start[1:])
            sub = highspy.HighsLp()
            sub.num_col_, sub.num_row_ = int(cols.size), int(rows.size)
            sub.sense_ = highspy.ObjSense.kMaximize
            sub.col_cost_ = cost[cols]
            sub.col_lower_ = np.zeros(cols.size)
            sub.col_upper_ = np.ones(cols.size)
            sub.row_lower_ = np.full(rows.size, -INF)
            # within the LP's feasibility tolerance a row may be a hair over: none is left
            sub.row_upper_ = np.maximum(left[rows], 0.0)
            sub.a_matrix_.format_ = highspy.MatrixFormat.kColwise
            sub.a_matrix_.num_col_, sub.a_matrix_.num_row_ = sub.num_col_, sub.num_row_
            sub.a_matrix_.start_ = sub_start
            sub.a_matrix_.index_ = sub_index.astype(np.int32)
            sub.a_matrix_.value_ = value[in_frac]
            sub.integrality_ = [highspy.HighsVarType.kInteger] * int(cols.size)
            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
            h.setOptionValue("threads", 1)
            h.setOptionValue("time_limit", float(time_limit))
            h.setOptionValue("mip_rel_gap", float(mip_rel_gap))
            h.setOptionValue("mip_max_nodes", int(max_nodes))
            for name, val in (options or {}).items():
                if h.setOptionValue(name, val) != highspy.HighsStatus.kOk:
                    raise InputError(f"HiGHS option {name!r} = {val!r} was refused")
            h.passModel(sub)
            h.run()
            hit = h.getModelStatus() != highspy.HighsModelStatus.kOptimal
            info = h.getInfo()
            if info.primal_solution_status != 0:  # an incumbent (empty is always one)
                picked = cols[np.asarray(h.getSolution().col_value) > 0.5]
                chosen = np.sort(np.concatenate([chosen, picked]))
                gap = float(info.mip_gap)
        return chosen, float(cost[chosen].sum()), np.nan, gap, hit


@dataclass
class ColumnGeneration:
    """Outcome of :func:`column_generation`."""

    master: MasterLP
    lp_value: float  # value of the last restricted master LP
    bound: float  # smallest valid dual objective seen (>= LP optimum)
    iterations: int
    converged: bool  # no column priced out, or the bound met the LP within gap_tol
    seconds: float
    history: list = field(default_factory=list)  # (iteration, lp value, dual bound, columns)


#: ``price(mu, duals) -> (columns, lagrangian)``: the improving columns at the duals, and
#: ``sum_g max(0, best value of group g at the duals)`` (the groups' part of a dual bound)
Pricing = Callable[[np.ndarray, tuple[np.ndarray, ...]], tuple[Sequence[Column], float]]


def column_generation(master: MasterLP, price: Pricing, *, max_iterations: int = 200,
                      time_limit: float = np.inf, gap_tol: float = 0.0,
                      progress: bool = False, desc: str = "column generation",
                      start: float | None = None) -> ColumnGeneration:
    """Alternate pricing and master solves, starting from zero duals.

    Each iteration prices at the current duals, adds the columns returned and takes the
    dual objective ``lagrangian + sum_r sum_e U_r[e] pi_r[e]`` as a bound -- valid (weak
    duality) when the pricing is exact or a relaxation, since then ``(max(0, best value of
    g), pi)`` is dual feasible; the smallest seen is kept. Stops when no column is added
    (LP optimal: the bound becomes the LP value), once ``bound - LP <= gap_tol * |bound|``,
    after ``max_iterations``, or when ``time_limit`` seconds since ``start`` (default: now)
    have passed.
    """
    start = time.perf_counter() if start is None else start
    mu = np.zeros(master.n_groups)
    duals = tuple(np.zeros(cap.shape) for cap in master.capacities)
    lp_value = 0.0
    best_bound = np.inf
    history = []
    converged = False
    it = 0
    bar = tqdm(total=max_iterations, desc=desc, unit="it", disable=not progress)
    while it < max_iterations:
        it += 1
        columns, lagrangian = price(mu, duals)
        added = master.add_columns(columns)
        dual_obj = lagrangian
        for cap, d in zip(master.capacities, duals, strict=True):
            dual_obj = dual_obj + float((cap * d).sum())
        best_bound = min(best_bound, dual_obj)
        if added == 0:
            converged = True
            history.append((it, lp_value, best_bound, master.n_columns))
            break
        lp_value, mu, duals = master.solve_lp()
        history.append((it, lp_value, best_bound, master.n_columns))
        bar.update(1)
        bar.set_postfix(lp=f"{lp_value:.4g}", bound=f"{best_bound:.4g}",
                        cols=master.n_columns)
        if best_bound - lp_value <= gap_tol * abs(best_bound):
            converged = True  # proven within gap_tol (also catches round-off at gap_tol=0)
            break
        if time.perf_counter() - start > time_limit:
            break
    bar.close()
    if converged:
        best_bound = min(best_bound, lp_value) if master.n_columns else 0.0
    return ColumnGeneration(master, lp_value, best_bound, it, converged,
                            time.perf_counter() - start, history)
