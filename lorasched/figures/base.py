"""One object per figure or table of a paper (:class:`Figure`): its sweeps, its data, its claims
(the paper's number, ours, a verdict) and its prose, all computed from the data; see
:doc:`/reference/figures`.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..experiments import Store, Sweep, grid, run_sweep, run_sweeps, shipped
from ..experiments.progress import expected_seconds
from ..experiments.progress import policy as policy_label
from ..model.errors import InputError
from . import inventory, numbers, prose, record
from .files import atomic_file, locked  # noqa: F401 - where the pages import them
from .runs import kept_result
from .verdicts import (
    BEYOND,
    NOT_EXPLAINED,
    NOT_RUN,
    PAPER,
    REASONS,
    REPRODUCED,
    SCOPES,
    VERDICTS,
    magnitude_note,
    per_seed,
    recording,
)

SIZES = ("small", "full")
CLAIM_COLUMNS = ["figure", "claim", "variant", "paper", "ours", "per seed", "verdict", "why",
                 "scope", "sentence"]
#: the heading of the section of a figure page that measures why its rows differ (its
#: anchor is what the summary's "why" column links to)
WHY_HEADING = "Why ours differs"
WHY_ANCHOR = "why-ours-differs"


#: each system's scale at a size in words, ``(size, seeds) -> str`` ("K = 10 compute
#: nodes, ..., 2 seeds (1 and 2)"), set by the system's figures package: what
#: :meth:`Figure.build_note` says a page ran
SCALES: dict = {}


def seed_words(n: int) -> str:
    """``n`` seeds as a page names them: "1 seed (1)", "3 seeds (1, 2 and 3)"."""
    seeds = [str(s) for s in range(1, n + 1)]
    listed = ", ".join(seeds[:-1]) + " and " + seeds[-1] if n > 1 else "".join(seeds)
    return f"{n} seed{'s' if n != 1 else ''} ({listed})" if n <= 5 else f"{n} seeds (1 to {n})"


def check_size(size: str) -> None:
    if size not in SIZES:
        raise InputError(f"size must be one of {SIZES}, got {size!r}")


def gain(a: float, b: float) -> float:
    """Relative improvement of ``a`` over ``b`` in percent (NaN if ``b`` <= 0)."""
    return 100.0 * (a / b - 1.0) if b > 0 else math.nan


#: a ``$`` that opens a dollar amount ("$236.69", "-$5"), not maths
_DOLLAR = re.compile(r"(?<!\\)\$(?=[0-9])")


class Prose(str):
    """Markdown text that a notebook renders as markdown when it is a cell's value. The
    ``$`` of a dollar amount is escaped, so MathJax does not take "$236.69 (of which
    $18.02" for maths."""

    def _repr_markdown_(self) -> str:
        return _DOLLAR.sub(r"\\$", str(self))


def paragraphs(*parts: str) -> Prose:
    """Join non-empty paragraphs into one :class:`Prose`."""
    return Prose("\n\n".join(p.strip() for p in parts if p and p.strip()))


def default_store(size: str = "small") -> Path:
    """Where finished cells are kept by default: ``$LORASCHED_STORE/<size>`` if set, else
    ``build/sweeps/<size>`` in the source checkout the package runs from (so the notebooks,
    ``lorasched reproduce`` and ``make book`` share it), else a per-user cache folder."""
    check_size(size)
    if os.environ.get("LORASCHED_STORE"):
        return Path(os.environ["LORASCHED_STORE"]) / size
    repo = Path(__file__).resolve().parents[2]
    if (repo / "pyproject.toml").is_file() and (repo / "lorasched").is_dir():
        return repo / "build" / "sweeps" / size
    return Path.home() / ".cache" / "lorasched" / "sweeps" / size


def shipped_file(size: str, system: str) -> Path | None:
    """Where the source checkout the package runs from keeps system ``system``'s shipped
    cells of ``size`` (``notebooks/cells/<system>-<size>.jsonl``,
    :mod:`lorasched.experiments.shipped`); None outside a checkout (an installed package).
    One file a system, so that each says where its own cells were computed."""
    check_size(size)
    folder = _cells_folder()
    return None if folder is None else folder / f"{system}-{size}.jsonl"


def _cells_folder() -> Path | None:
    """The checkout's ``notebooks/cells``; None outside a checkout."""
    repo = Path(__file__).resolve().parents[2]
    if (repo / "pyproject.toml").is_file() and (repo / "lorasched").is_dir():
        return repo / "notebooks" / "cells"
    return None


def default_shipped(size: str, system: str) -> Path | None:
    """:func:`shipped_file` of ``size`` and ``system`` where it exists, else None."""
    path = shipped_file(size, system)
    return path if path is not None and path.is_file() else None


def shipped_files(size: str = "full") -> list[Path]:
    """Every system's :func:`shipped_file` of ``size`` that exists in the checkout, sorted
    (none outside a checkout)."""
    check_size(size)
    folder = _cells_folder()
    return [] if folder is None else sorted(folder.glob(f"*-{size}.jsonl"))


def measured_where(keys, size: str, system: str, store=None) -> tuple[int, str]:
    """How many of the cells ``keys`` the store (default :func:`default_store` of ``size``)
    took from system ``system``'s shipped cells, and where those were computed, in words
    (the machine, the commit and the date of the file's header)."""
    keys = set(keys)
    done = Store(store if store is not None else default_store(size)).done(keys)
    taken = sum(1 for k in keys if done.get(k, {}).get(shipped.MARK))
    path = default_shipped(size, system)
    header = shipped.read(path).header if path is not None else {}
    return taken, (f"{header.get('machine', 'a machine not recorded')}, at commit "
                   f"{header.get('commit', '?')} on {header.get('made', '?')[:10]}")


def _finish_row(fig, r: dict) -> None:
    """A claim row made ready for its table, in place: its estimate turned into the
    per-seed column and the magnitude note, its sentence checked, its scope and why set."""
    est = r.pop("estimate", None)
    fmt = r.pop("fmt", None) or numbers.num
    paper_value = r.pop("paper_value", None)
    if est is not None:
        r.setdefault("per seed", per_seed(est, fmt) if est.n > 1 else "")
        note = magnitude_note(est, paper_value, r["verdict"])
        if note:
            r["ours"] = f"{r['ours']}; {note}"
    r.setdefault("per seed", "")
    r.setdefault("sentence", fig.sentence_of(r["claim"]))
    r["sentence"] = inventory.check_cite(fig.system, r["sentence"])
    r.setdefault("scope", fig.scope(r))
    fit = fig.fitted_scope(r) if r["scope"] == PAPER else None
    if fit is not None:  # judged as the others; counted apart, for a fit decides it
        r["scope"] = fit[0]
    if r["scope"] not in SCOPES:
        raise InputError(f"{fig.number}: scope {r['scope']!r} is not one of {SCOPES}")
    why = (r.get("why") or "").strip()
    if r["verdict"] == REPRODUCED:
        why = ""
    elif not why:
        why = REASONS.get(r["verdict"], NOT_EXPLAINED)
    r["why"] = why if fit is None else " ".join(filter(None, (fit[1], why)))


class Figure:
    """A figure or table of a paper. Subclasses set :attr:`key`, :attr:`number`,
    :attr:`title` and override :meth:`sweeps` (or :meth:`data`), :meth:`claims` and
    :meth:`findings`."""

    system: str = ""
    variant_column: str = "variant"  # the claims table's name for the variant column
    key: str = ""  # "fig08"
    #: the notebook of the figure's page, without suffix ("fig08_load"): the summary links
    #: each row's "why" to its section there
    page: str = ""
    #: the name of the page's data file (:mod:`.datafiles`), when pages share one; "": key
    data_name: str = ""
    number: str = ""  # "Fig. 8"
    title: str = ""
    #: whether the page's prose quotes numbers it derives from the data (:meth:`quoted`):
    #: its data files then include their table
    quotes: bool = False
    #: variables of the page's data that its data file leaves out: measured times the page
    #: makes no claim about, whose digits would only let a wrong number in its prose pass
    #: as held by the file
    unpublished: tuple = ()
    #: the paper's sentence (and part) each claim answers, by the start of the claim's
    #: name (:func:`.inventory.cite`), for a page whose rows do not cite it themselves
    sentences: dict = {}

    def __repr__(self) -> str:
        return f"<{self.system} {self.number}: {self.title}>"

    # ------------------------------------------------------------------ the experiment
    def sweeps(self, size: str = "small", seeds: int | None = None) -> dict[str, Sweep]:
        """The declared sweeps behind this figure, by part name (``{}``: not a sweep)."""
        return {}

    def runs(self, size: str = "small") -> dict[str, Sweep]:
        """The single runs the page reads whole beside its sweeps (a Gantt chart, every
        decision of a run), by name: kept sweeps of one cell (:func:`.runs.one_run`) that
        `lorasched reproduce` computes in its batch (``{}``: none)."""
        return {}

    def run(self, name: str, size: str = "small", *, store=None):
        """The result of the page's single run ``name`` (:meth:`runs`), read from
        ``store`` (default: ``size``'s; ``False``: a temporary folder), computed there
        first where it is missing."""
        runs = self.runs(size)
        if name not in runs:
            raise InputError(f"{self.number}: run must be one of {sorted(runs)}, got {name!r}")
        return kept_result(runs[name], default_store(size) if store is None else store)

    def sweep(self, size: str = "small", seeds: int | None = None) -> Sweep:
        """The figure's one sweep (``ValueError`` if it has none or several)."""
        parts = self.sweeps(size, seeds)
        if len(parts) != 1:
            raise InputError(f"{self.number} has {len(parts)} sweeps {sorted(parts)}; use "
                             ".sweeps()")
        return next(iter(parts.values()))

    def data(self, size: str = "small", *, store=None, seeds: int | None = None,
             workers: int | None = None, scheduler: str | None = None,
             serial: bool | None = None, progress: bool = False):
        """Run (or, with a ``store`` holding the finished cells, only assemble) the
        figure's sweeps: a ``Dataset``, or a dict of them if the figure has several.

        ``store``: the folder of finished cells (default :func:`default_store`; ``False``:
        a temporary folder, nothing kept). ``serial`` defaults to True for ``"small"``
        (starting Dask costs more than the cells) and False for ``"full"``. Raises
        ``RuntimeError`` naming the failed cells."""
        parts = self.sweeps(size, seeds)
        if not parts:
            raise NotImplementedError(f"{self.number} is not a sweep: override data()")
        serial = size == "small" if serial is None else serial
        store = default_store(size) if store is None else store
        out = {}
        with tempfile.TemporaryDirectory(prefix="lorasched-") as tmp:
            for part, sweep in parts.items():
                report = run_sweep(sweep, store=tmp if store is False else store,
                                   scheduler=scheduler, workers=workers, serial=serial,
                                   progress=progress)
                if report.failed:
                    lines = "\n".join(f"  {d}: {e}" for d, e in report.failed)
                    raise RuntimeError(f"{len(report.failed)} cell(s) of {sweep.name} "
                                       f"failed:\n{lines}")
                if report.interrupted:
                    raise KeyboardInterrupt
                out[part] = report.dataset
        return out[next(iter(out))] if len(out) == 1 else out

    # ------------------------------------------------------------------ the page
    def build_note(self, size: str = "small", seeds: int | None = None) -> Prose:
        """What size the page was built at, in words: a small build says it is small and
        what the paper's setting (``size = "full"``) runs instead; generated from the
        size, so a small build never claims the full one's scale."""
        check_size(size)
        scale = self.scale_words
        if size == "full":
            return Prose(f"This page runs the paper's setting (`size = \"full\"`): "
                         f"{scale('full', seeds)}.")
        return Prose(f"This page is a small build (`size = \"small\"`), so that it runs in "
                     f"seconds to minutes: {scale('small', seeds)}. The paper's setting, "
                     f"`size = \"full\"`, runs {scale('full', None)}.")

    def scale_words(self, size: str, seeds: int | None = None) -> str:
        """The page's scale in words (its system's, :data:`SCALES`)."""
        return SCALES[self.system](size, seeds)

    def describe(self, data) -> str:
        """One paragraph stating the setting of the figure's data."""
        return ""

    def claim_rows(self, data) -> list[dict]:
        """The claims as rows ``{claim, variant, paper, ours, verdict, why}``: the verdict
        from :func:`.verdicts.judge` (or a not-compared verdict), and for a row that is
        not reproduced, ``why`` -- a sentence with the number this page measures that
        shows the cause (:meth:`why` gives the section that measures it). Optional keys:
        ``estimate`` (the :class:`~.verdicts.Estimate` judged: its per-seed values fill
        the column "per seed", each by ``fmt``), ``paper_value`` (the paper's number: a
        *magnitude off* row then says ours / paper) and ``scope``
        (:data:`~.verdicts.PAPER`, the default; :data:`~.verdicts.WORKED`, a worked
        example; or :data:`~.verdicts.BEYOND`: a reading, an oracle, another setup, or a
        cell another figure counts) and ``sentence`` (the part of the paper's sentence it
        answers, :func:`.inventory.cite`: every row in the paper's own setting cites one,
        :func:`.inventory.problems`)."""
        raise NotImplementedError

    def sentence_of(self, claim: str) -> str:
        """The part of the paper's sentence that claim ``claim`` answers: the longest start
        of its name in :attr:`sentences` ("" if none)."""
        starts = [k for k in self.sentences if claim.startswith(k)]
        return self.sentences[max(starts, key=len)] if starts else ""

    def scope(self, row: dict) -> str:
        """Where a row without its own ``scope`` is counted: :data:`~.verdicts.BEYOND`
        for what the paper did not run, else :data:`~.verdicts.PAPER`; a page whose
        variants include settings of lorasched's overrides this."""
        return BEYOND if row["verdict"] == NOT_RUN else PAPER

    #: the claims (by the start of their names) of the paper's own setting whose number
    #: lorasched fitted (:data:`~.verdicts.CALIBRATION`) or that depend on a fitted number
    #: (:data:`~.verdicts.DEPENDENT`), and what was fitted: ``{start: (scope, why)}``
    fitted: dict = {}

    def fitted_scope(self, row: dict) -> tuple[str, str] | None:
        """The scope of :attr:`fitted` that ``row``'s claim falls under and what was
        fitted, or None."""
        return next((hit for start, hit in self.fitted.items()
                     if row["claim"].startswith(start)), None)

    def claims(self, data, *, readings: bool = False) -> pd.DataFrame:
        """The paper's reported numbers beside ours, with a verdict per claim and, for each
        row that is not reproduced, why (a not-compared verdict gives its own reason; a row
        with none says :data:`~.verdicts.NOT_EXPLAINED`). ``readings``: with the columns of
        :data:`.record.RECORD_COLUMNS` too, what each verdict was judged on, so that it can
        be judged again (:func:`.record.recount`); a row an earlier look judged first
        (:mod:`.sequential`) then says so in ``look`` and ``first verdict``, with that
        look's columns prefixed ``first``."""
        with recording() as log:
            rows = self.claim_rows(data)
        kept = []
        for r in rows:
            r.setdefault("variant", "")
            if r["verdict"] not in VERDICTS:
                raise InputError(f"{self.number}: verdict {r['verdict']!r} is not one of "
                                 f"{VERDICTS}")
            est, first = r.get("estimate"), r.pop("first", None)
            kept.append(record.of(est, r["verdict"], log, r.pop("instances", None))
                        | record.look_columns(r, first))
            _finish_row(self, r)
        out = pd.DataFrame(rows, columns=CLAIM_COLUMNS[1:])
        if readings:
            out = pd.concat([out, pd.DataFrame(kept, index=out.index)], axis=1)
        out.insert(0, "figure", self.number)
        return out.rename(columns={"variant": self.variant_column})

    def why(self, data) -> Prose:
        """The page's section :data:`WHY_HEADING`: for each claim that is not reproduced,
        its reason (the claims table's ``why``: the mechanism this page measures, every
        number from ``data``). A figure whose reasons need more than a sentence each (a
        table, a measured ladder) overrides this and keeps the bullets."""
        return self.why_bullets(self.claims(data))

    def why_bullets(self, claims: pd.DataFrame) -> Prose:
        """One bullet per claim that is not reproduced: the claim, its verdict, its why. The
        verdict is the one the page's claims table gives: where the build's ledger found a
        claim to depend on lorasched's choice (:func:`.prose.composed`), that verdict, its
        why opening with both verdicts."""
        variant = self.variant_column
        lines = []
        for r in claims.to_dict("records"):
            verdict, clause = prose.composed(r["verdict"], r["claim"], r.get(variant) or "")
            if verdict == REPRODUCED:
                continue
            what = r["claim"] + (f" ({r[variant]})" if r.get(variant) else "")
            why = " ".join(filter(None, (f"{clause[:1].upper()}{clause[1:]}." if clause
                                         else "", r["why"])))
            lines.append(f"- **{what}**: *{verdict}*. {why}")
        if not lines:
            return Prose("Every claim on this page is reproduced within the band of the "
                         "verdict rule.")
        return Prose("\n".join(lines))

    def findings(self, data) -> Prose:
        """The page's closing prose; every number in it comes from ``data``."""
        return Prose("")

    def quoted(self, data, **findings_options) -> pd.DataFrame:
        """The numbers the page's prose (:meth:`findings`, given ``findings_options``, and
        :meth:`why`) derives from ``data`` rather than reads off its tables -- a gain
        between two settings, a constant, a median time -- each named, with its unrounded
        value and as the prose prints it (every :func:`~lorasched.figures.numbers.quote`
        they make), a repeated one once. The page shows this table and its data files
        include it."""
        with numbers.quoting() as rows:
            self.findings(data, **findings_options)
            self.why(data)
        return pd.DataFrame(list(dict.fromkeys(rows)), columns=numbers.QUOTED_COLUMNS)


def pick(figures: dict, key: str) -> Figure:
    """``figures[key]``; ``ValueError`` naming the keys if there is none."""
    try:
        return figures[key]
    except (KeyError, TypeError):
        raise InputError(f"figure must be one of {sorted(figures)}, got {key!r}") from None


def figure_sweeps(figures, size: str = "full", seeds: int | None = None) -> list:
    """Every sweep of ``figures`` (a catalogue dict or a list of figures) at ``size``."""
    check_size(size)
    if isinstance(figures, dict):  # a catalogue: all its figures
        figures = list(figures.values())
    return [s for f in figures for s in (*f.sweeps(size, seeds).values(),
                                         *f.runs(size).values())]


def reproduce(figures, size: str = "full", store=None, *, seeds: int | None = None,
              workers: int | None = None, scheduler: str | None = None,
              serial: bool = False, progress: bool = True, name: str | None = None):
    """Run the cells of every sweep of ``figures`` as one batch into ``store`` (cells
    shared by several figures run once); returns the
    :class:`~lorasched.experiments.SweepReport`."""
    sweeps = figure_sweeps(figures, size, seeds)
    store = default_store(size) if store is None else store
    return run_sweeps(sweeps, store, scheduler=scheduler, workers=workers, serial=serial,
                      progress=progress, name=name or f"figures ({size})")


@dataclass
class SystemReport:
    """One system's share of :func:`reproduce_together`'s batch."""

    computed: int = 0
    skipped: int = 0
    failed: list = field(default_factory=list)  # [(cell description, error)]
    cell_seconds: float = 0.0  # the computed cells' wall seconds on their workers, summed
    cpu_seconds: float = 0.0  # and their CPU seconds
    #: per policy (:func:`lorasched.experiments.progress.policy`): [computed cells, CPU
    #: seconds, the CPU seconds its system's cost model expected of them]
    by_policy: dict = field(default_factory=dict)
    shipped: int = 0  # cells taken from the shipped cells (counted in ``skipped``)
    shipped_cpu_seconds: float = 0.0  # their CPU seconds where they were computed


def reproduce_together(sweeps_by_system: dict, size: str = "full", store=None, *,
                       workers: int | None = None, scheduler: str | None = None,
                       serial: bool = False, progress: bool = True,
                       shipped_cells: shipped.Shipped | None = None):
    """Run the cells of several systems' sweeps (``{system: [sweep, ...]}``) as ONE batch
    into ``store``: one pool of workers for all of them, so that no worker idles while
    another finishes one system's last cell (and the pool starts once). Cells are handed
    out in each system's cost order, the systems in the order given. With ``shipped_cells``
    (shipped cells, :func:`lorasched.experiments.shipped.read`), the batch's cells found
    there are first copied into the store (:func:`~lorasched.experiments.shipped.seed`)
    and not computed.

    Returns ``(report, {system: SystemReport})``: the batch's
    :class:`~lorasched.experiments.SweepReport` and each system's cells computed, found
    done (those taken from ``shipped_cells`` counted apart too) and failed, with the computed
    cells' wall and CPU seconds on their workers, summed, in all and per policy (a labelled
    sweep's cells apart: :func:`lorasched.experiments.progress.policy`)."""
    store = default_store(size) if store is None else store
    rank = {name: r for r, name in enumerate(sweeps_by_system)}
    per = {name: SystemReport() for name in sweeps_by_system}
    if shipped_cells is not None:
        batch = {c.key: c for group in sweeps_by_system.values() for s in group
                 for c in grid.cells(s)}
        for key in shipped.seed(Store(store), shipped_cells, batch):
            got = per[batch[key].params["system"]]
            got.shipped += 1
            record = shipped_cells.records[key]
            got.shipped_cpu_seconds += float(record.get("cpu_seconds", 0.0))

    def on_cell(cell, outcome):
        got = per[cell.params["system"]]
        if outcome["ok"]:
            got.computed += 1
            got.cell_seconds += outcome.get("seconds", 0.0)
            cpu = outcome.get("cpu_seconds", outcome.get("seconds", 0.0))
            got.cpu_seconds += cpu
            mine = got.by_policy.setdefault(policy_label(cell.params), [0, 0.0, 0.0])
            mine[0] += 1
            mine[1] += cpu
            mine[2] += expected_seconds(cell.params)
        else:
            got.failed.append((cell.describe(), outcome["error"]))

    sweeps = [s for group in sweeps_by_system.values() for s in group]
    report = run_sweeps(sweeps, store, scheduler=scheduler, workers=workers, serial=serial,
                        progress=progress, name=f"figures ({size})", on_cell=on_cell,
                        rank=lambda params: rank[params["system"]])
    total = {name: 0 for name in per}
    for cell in report.cells:
        total[cell.params["system"]] += 1
    for name, got in per.items():
        got.skipped = total[name] - got.computed - len(got.failed)
    return report, per
