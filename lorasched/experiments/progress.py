"""The batch's progress bar: the CPU seconds the computed cells took, over those plus the
CPU seconds the cells left are forecast to take. A forecast is the system's cost model
(``expected_seconds``) times the ratio measured so far on the same policy's cells, so the
estimate of the time left corrects itself on a slower machine or a mispriced policy. Cells
found done (in the store, or shipped) are counted beside the bar, never in it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from tqdm import tqdm

from .. import systems
from .grid import Cell

#: a policy's forecast leans on the batch's ratio as if this many of its cells had run at
#: it, so that one outlier (a worker's first cell compiles the kernels) moves it little
PRIOR_CELLS = 3.0


def expected_seconds(params: dict) -> float:
    """The CPU seconds a cell with ``params`` is expected to take: its system's
    ``expected_seconds`` model, or one second where the system has none."""
    system = systems.get(params["system"])
    if system.expected_seconds is None:
        return 1.0
    return max(float(system.expected_seconds(params)), 1e-3)


def policy(params: dict) -> str:
    """A cell's policy for people and for the forecast: its algorithm, with the solver it
    names if any (``"<algorithm>:<solver>"``), or ``"bound <name>"`` for a bound's cell;
    then its sweep's ``label`` in brackets where it has one (``"<algorithm> [look 2]"``)."""
    if params["algorithm"] is None:
        name = f"bound {params.get('bound')}"
    else:
        solver = params.get("options", {}).get("solver")
        name = f"{params['algorithm']}:{solver}" if solver else str(params["algorithm"])
    return f"{name} [{params['label']}]" if params.get("label") else name


class Forecast:
    """CPU seconds spent and forecast for a batch's cells to compute.

    Parameters
    ----------
    cells : list of lorasched.experiments.grid.Cell
        The cells still to compute.
    expected : callable, optional
        ``expected(params)``: a cell's expected CPU seconds (default
        :func:`expected_seconds`, the systems' cost models).
    """

    def __init__(self, cells: list[Cell], expected: Callable | None = None):
        expected = expected_seconds if expected is None else expected
        self._expected = {c.key: expected(c.params) for c in cells}
        self._group = {c.key: (c.params["system"], policy(c.params)) for c in cells}
        self._left: dict = defaultdict(float)  # expected CPU-s of the cells left
        self._count: dict = defaultdict(int)
        for c in cells:
            self._left[self._group[c.key]] += self._expected[c.key]
            self._count[self._group[c.key]] += 1
        self._spent: dict = defaultdict(float)  # measured CPU-s of the cells done
        self._planned: dict = defaultdict(float)  # what the model expected of them

    @property
    def spent(self) -> float:
        """CPU seconds of the cells done."""
        return sum(self._spent.values())

    def ratio(self, group=None) -> float:
        """Measured over expected CPU seconds. Of the batch: of every cell done, leaning on
        the model (ratio 1) as if :data:`PRIOR_CELLS` of the batch's average cells had run
        at it; of ``group``: of its cells done, leaning on the batch's ratio as if
        :data:`PRIOR_CELLS` of its own average cells had run at that."""
        everything = sum(self._planned.values()) + sum(self._left.values())
        prior = PRIOR_CELLS * everything / sum(self._count.values())
        batch = (self.spent + prior) / (sum(self._planned.values()) + prior)
        if group is None:
            return batch
        prior = PRIOR_CELLS * (self._planned[group] + self._left[group]) / self._count[group]
        return (self._spent[group] + batch * prior) / (self._planned[group] + prior)

    def left(self) -> float:
        """CPU seconds forecast for the cells left."""
        return sum(e * self.ratio(g) for g, e in self._left.items() if e > 1e-9)

    def done(self, cell: Cell, cpu_seconds: float) -> None:
        """Count ``cell`` done after ``cpu_seconds``."""
        group = self._group[cell.key]
        expected = self._expected.pop(cell.key)
        self._left[group] = max(self._left[group] - expected, 0.0)
        self._spent[group] += cpu_seconds
        self._planned[group] += expected


class Bar:
    """The batch's bar: CPU seconds done of done + forecast (:class:`Forecast`), its rate
    the batch's CPU seconds per second since it began, and the cells counted beside it.

    Parameters
    ----------
    cells : list of lorasched.experiments.grid.Cell
        The cells to compute.
    found : int
        Cells of the batch found done (not computed, not in the bar).
    name : str
        The bar's label.
    progress : bool
        Whether to show it.
    """

    def __init__(self, cells: list[Cell], *, found: int, name: str, progress: bool):
        self.forecast = Forecast(cells)
        self.total_cells = len(cells) + found
        self.done = found
        self.failed = 0
        self._found = found
        # smoothing 0: the rate is the CPU seconds done over the time since the start (the
        # workers' throughput), not the last few cells' lumps
        self.bar = tqdm(total=self.forecast.left(), desc=name, unit=" CPU-s",
                        disable=not progress, dynamic_ncols=True, smoothing=0,
                        bar_format="{l_bar}{bar}| {n:.0f}/{total:.0f}{unit} "
                                   "[{elapsed}<{remaining}{postfix}]")
        self._postfix()

    def _postfix(self) -> None:
        found = {"found": self._found} if self._found else {}
        self.bar.set_postfix(cells=f"{self.done}/{self.total_cells}", **found,
                             failed=self.failed)

    def update(self, cell: Cell, cpu_seconds: float, ok: bool) -> None:
        """Count ``cell`` done (failed unless ``ok``) after ``cpu_seconds``."""
        self.forecast.done(cell, cpu_seconds)
        self.done += 1
        self.failed += not ok
        self.bar.total = self.forecast.spent + self.forecast.left()
        self.bar.update(cpu_seconds)
        self._postfix()

    def close(self) -> None:
        """Close the bar."""
        self.bar.close()
