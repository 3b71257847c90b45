"""The ledger of a build: one record per claim of every page of the three papers, each
verdict computed once (:func:`build`) and every page rendering its rows from it. A record
holds the paper's sentence, the claim's reading (rule, paper's number and band, threshold,
side), its scale, each look's seeds, centre, interval and verdict, the final verdict (where
a number lorasched chose decides it, :func:`survive`, with its verdict under that choice),
the why and its cause test; :func:`recount` repeats every interval, verdict and count from
the published files alone (``lorasched recount DATA_DIR``). See :doc:`/reference/figures`."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from ..experiments import codegraph
from ..model.errors import InputError
from . import prose, readings, record, summary
from . import sensitivity as _sensitivity
from .allpass import common as allpass_common
from .base import check_size
from .datafiles import data_folder
from .files import atomic_file, locked
from .verdicts import DEPENDS_ON, NOT_COMPARED, OWN, PAPER, VERDICTS

#: the ledger's files, relative to a data folder: the records, the counts of the summary
#: as it printed them, and what the ledger was made from
LEDGER, COUNTS, HEADER = "ledger.csv", "ledger-counts.csv", "ledger.json"
#: the per-seed metrics of Allpass's second look (:func:`look_data`)
LOOKS_FILE = "allpass/looks.nc"
FILES = (LEDGER, COUNTS, HEADER, LOOKS_FILE,
         *(f"sensitivity-{s}.csv" for s in summary.SYSTEMS))
#: the key of a record: one claim of one page in one setting
KEY = ["system", "page", "claim", "setting"]
#: what a record holds beyond the summary's columns, in its order
_CAUSE = ["counterfactual", "judged there", "ours there", "effect", "cause"]
#: the columns :func:`survive` adds: a record's verdict under lorasched's choice, and the
#: clause that says which other value of a number lorasched chose gives which verdict, where
#: its final verdict is :data:`~.verdicts.DEPENDS_ON` ("" elsewhere)
AT_CHOICE, CLAUSE = "at choice", "depends"


def build(size: str = "small", *, store=None, tables: dict | None = None) -> pd.DataFrame:
    """Every claim of every page of the three papers at ``size``, judged once on the cells
    of ``store`` (default: the size's): :func:`.summary.claims` with each row's record
    (:mod:`.record`) and looks, joined with its cause test (:func:`.summary.causes`), one
    row per :data:`KEY`, with ``id`` its key in words; each headline record whose verdict a
    number lorasched chose decides made :data:`~.verdicts.DEPENDS_ON` (:func:`survive`, on
    the sensitivity ``tables``: :func:`sensitivity_tables`, made now where not given).
    ``RuntimeError`` where a row in the paper's own setting was judged by a reading its
    claim does not declare (:func:`.readings.problems`)."""
    check_size(size)
    table = summary.claims(size, store=store, readings=True)
    declared = [p for system, name in summary.SYSTEMS.items()
                for p in readings.problems(system, table[table["system"] == name])]
    if declared:  # a row judged by a reading its claim does not declare
        raise RuntimeError(f"{len(declared)} row(s) leave their declared reading, the "
                           f"first: {declared[0]}")
    tested = summary.causes(size, store=store, table=table)
    on = ["system", "figure", "claim", "setting"]
    lost = tested[on].merge(table[on], how="left", on=on, indicator=True)
    lost = lost[lost["_merge"] == "left_only"]
    if len(lost):  # a cause test whose claim is not in the table would vanish from it
        raise RuntimeError(f"{len(lost)} cause tests match no claim of the table, the "
                           f"first {'/'.join(map(str, lost.iloc[0][on]))!r}")
    joined = table.merge(tested[["system", "figure", "claim", "setting", *_CAUSE]],
                         how="left", on=["system", "figure", "claim", "setting"],
                         validate="many_to_one")
    joined.insert(0, "id", ["/".join(str(r[c]) for c in KEY if str(r[c]))
                            for _, r in joined.iterrows()])
    dup = joined["id"][joined["id"].duplicated()]
    if len(dup):
        raise RuntimeError(f"two records share the key {dup.iloc[0]!r}")
    if tables is None:
        tables = sensitivity_tables(size, store=store)
    return survive(joined, tables)


def survive(ledger: pd.DataFrame, tables: dict) -> pd.DataFrame:
    """``ledger`` with each headline record (scopes :data:`~.verdicts.OWN`) whose verdict
    depends on lorasched's choice made so: where another value of a number lorasched chose
    where the paper is silent (an alternative of kind :data:`~.sensitivity.CHOSEN` on its
    system's sensitivity page, ``tables`` by :func:`sensitivity_name`) turns the record's
    decided verdict into another decided one (:func:`~.sensitivity.dependent`, against the
    record's verdict: :func:`headlined`), its verdict becomes
    :data:`~.verdicts.DEPENDS_ON`, its verdict under lorasched's choice goes to
    :data:`AT_CHOICE` and the clause that says both (:func:`~.sensitivity.depends_clause`)
    to :data:`CLAUSE` and to the head of its why. A claim the headline does not count
    keeps its record."""
    out = ledger.copy()
    out[AT_CHOICE], out[CLAUSE] = "", ""
    own = out[out["scope"].isin(OWN)]
    at = {k: i for i, k in zip(own.index, _keys(own), strict=True)}
    for system, table in headlined(tables, ledger).items():
        page = summary.sensitivity_page(system)
        name = summary.SYSTEMS[system]
        found = _sensitivity.dependent(table, page.alternatives)
        counted = set(map(tuple, table.loc[table[_sensitivity.HEADLINE] != "",
                                           _sensitivity.KEY].values.tolist()))
        for key, (verdict, moved, paired) in found.items():
            if key not in counted:  # a claim the page re-tests that the headline does not count
                continue
            i = at[(name, *key)]
            clause = _sensitivity.depends_clause(verdict, moved, page.alternatives,
                                                 page.choices(), paired)
            why = str(out.at[i, "why"] or "")
            out.at[i, "why"] = f"{clause[0].upper()}{clause[1:]}." + (f" {why}" if why else "")
            out.at[i, "verdict"], out.at[i, AT_CHOICE], out.at[i, CLAUSE] = (
                DEPENDS_ON, verdict, clause)
    return out


def _keys(ledger: pd.DataFrame) -> list[tuple]:
    """Each record's ``(system's name, figure, claim, setting)``."""
    return list(map(tuple, ledger[["system", "figure", "claim", "setting"]].values.tolist()))


def headlined(tables: dict, ledger: pd.DataFrame) -> dict:
    """Each sensitivity table of ``tables`` (:func:`sensitivity_tables`), by system, with the
    verdict the headline judged each of its claims under lorasched's choice, every look
    taken (:data:`.sensitivity.HEADLINE`: the record's verdict, or its verdict at lorasched's
    choice where it depends on it; "" where the headline does not count the claim, scopes
    :data:`~.verdicts.OWN`): what an alternative's verdict is compared with, as the ledger
    and the pages compare it."""
    own = ledger[ledger["scope"].isin(OWN)]
    at_choice = (own[AT_CHOICE].where(own[AT_CHOICE] != "", own["verdict"])
                 if AT_CHOICE in own.columns else own["verdict"])
    judged = dict(zip(_keys(own), at_choice, strict=True))
    out = {}
    for system, name in summary.SYSTEMS.items():
        table = tables.get(sensitivity_name(system))
        if table is None:
            continue
        keyed = table[_sensitivity.KEY].values.tolist()
        out[system] = table.assign(**{_sensitivity.HEADLINE: [judged.get((name, *k), "")
                                                               for k in keyed]})
    return out


def counts(ledger: pd.DataFrame) -> pd.DataFrame:
    """The summary's counts, from the ledger alone: the paper's own claims in its own
    setting (scope :data:`~.verdicts.PAPER`), by system and final verdict, with the rows
    whose cause test found no cause and a total row (:func:`.summary.counts` with the
    ledger's :func:`causes`): the table the summary page shows."""
    return summary.counts(ledger[ledger["scope"] == PAPER].reset_index(drop=True),
                          causes(ledger))


def sensitivity_name(system: str) -> str:
    """The file of ``system``'s sensitivity verdicts, relative to a data folder."""
    return f"sensitivity-{system}.csv"


def sensitivity_tables(size: str, *, store=None) -> dict:
    """Each system's sensitivity verdict table (:func:`.summary.sensitivity_table`), by
    file name (:func:`sensitivity_name`): the verdicts of the alternatives to the numbers
    lorasched chose, judged once with the ledger."""
    return {sensitivity_name(s): summary.sensitivity_table(s, size, store=store)
            for s in summary.SYSTEMS}


def sensitivity(system: str, size: str = "small", *, seeds=None, store=None
                ) -> pd.DataFrame:
    """``system``'s sensitivity verdict table as its page and its headline show it: the
    ledger's (:func:`load` makes it with the ledger) at the page's own seeds, else judged
    now on ``seeds``."""
    if seeds is not None:
        return summary.sensitivity_table(system, size, seeds=seeds, store=store)
    folder = data_folder(size)
    load(size, store=store, folder=folder)
    return pd.read_csv(folder / sensitivity_name(system), dtype=str, keep_default_na=False)


def look_data(size: str, *, store=None) -> dict:
    """The per-seed metrics of the runs behind the looks that no page's data file holds,
    by file name: Allpass's second look (:data:`LOOKS_FILE`: every policy and reading on
    the design's ``cap`` seeds)."""
    d = allpass_common.DESIGNS[size]
    runs = allpass_common.looked_data(size, store, d.first, d.cap)
    return {LOOKS_FILE: runs.metrics}


def write(ledger: pd.DataFrame, folder, *, size: str, looks: dict | None = None,
          tables: dict | None = None) -> list[Path]:
    """Write ``ledger``, its counts, ``looks`` (:func:`look_data`) and ``tables``
    (:func:`sensitivity_tables`) into ``folder`` (a data folder), with a header saying
    what it was made from; the paths written."""
    folder = Path(folder)
    paths = []
    for name, frame in (tables or {}).items():
        with atomic_file(folder / name) as tmp:
            frame.to_csv(tmp, index=False)
        paths.append(folder / name)
    for name, ds in (looks or {}).items():
        with atomic_file(folder / name) as tmp:
            ds.to_netcdf(tmp)
        paths.append(folder / name)
    for name, frame in ((LEDGER, ledger), (COUNTS, counts(ledger))):
        with atomic_file(folder / name) as tmp:
            frame.to_csv(tmp, index=name == COUNTS)
        paths.append(folder / name)
    header = {"size": size, "code": judging_code(), "records": len(ledger),
              "made": datetime.now(UTC).isoformat(timespec="seconds")}
    with atomic_file(folder / HEADER) as tmp:
        tmp.write_text(json.dumps(header, indent=1) + "\n")
    return [*paths, folder / HEADER]


#: the ledger's numeric columns (every other column is text)
NUMERIC = ("n", "level", "centre", "low", "high", "paper number", "band low", "band high",
           "threshold", "side", "look")


def _numeric(column: str) -> bool:
    return column.removeprefix("first ") in NUMERIC


def read(folder) -> pd.DataFrame:
    """The ledger published in ``folder``, as :func:`build` made it: its numeric columns
    (:data:`NUMERIC`, and the first look's) as numbers, every other as text ("" where
    blank)."""
    path = Path(folder) / LEDGER
    if not path.is_file():
        raise InputError(f"{folder}: no {LEDGER} (make book writes it into the data folder)")
    out = pd.read_csv(path, dtype=str, keep_default_na=False)
    for c in out.columns:
        if _numeric(c):
            out[c] = pd.to_numeric(out[c].mask(out[c] == ""))
    return out


@functools.cache
def judging_code() -> str:
    """A hash of the whole package's code, the figures' included: a ledger is made again
    when the cells or the rules that judge them change (the cells' own keys leave the
    figures out, so that a page's words recompute no cell)."""
    return codegraph.fingerprint(codegraph.PACKAGE_ROOT.rglob("*.py"), presentation=True)


def _fresh(folder: Path, size: str) -> bool:
    try:
        header = json.loads((folder / HEADER).read_text())
    except (OSError, ValueError):
        return False
    return (header.get("size") == size and header.get("code") == judging_code()
            and (folder / LEDGER).is_file())


def load(size: str = "small", *, store=None, folder=None) -> pd.DataFrame:
    """The build's ledger: read from ``folder`` (default :func:`.datafiles.data_folder` of
    ``size``) where it was made by this code, else made now from ``store``'s cells
    (:func:`build`) and written there with the files it publishes beside it (one process
    makes it while the others wait, then read it). A ledger is the build's: made once per
    code and folder, whichever store a later call names."""
    check_size(size)
    folder = Path(data_folder(size) if folder is None else folder)
    with locked(folder / LEDGER):
        if not _fresh(folder, size):
            make(size, folder, store=store)
    return read(folder)


def make(size: str, folder, *, store=None) -> list[Path]:
    """Judge the ledger now (:func:`build`, on the sensitivity tables it publishes beside
    it) and write it into ``folder`` with its files (:func:`write`); the paths written."""
    tables = sensitivity_tables(size, store=store)
    led = build(size, store=store, tables=tables)
    return write(led, folder, size=size, looks=look_data(size, store=store),
                 tables={sensitivity_name(s): t for s, t in headlined(tables, led).items()})



def table(ledger: pd.DataFrame) -> pd.DataFrame:
    """The ledger in the summary's columns (:data:`.summary.COLUMNS` and its looks), what
    the summary's functions take."""
    looks = [c for c in summary.LOOKS if c in ledger.columns]
    return ledger[summary.COLUMNS + looks].copy()


def tables(size: str = "small", *, seeds=None, store=None, systems=tuple(summary.SYSTEMS)
           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The summary's claims table and causes table of ``systems``, as the summary and the
    headline pages take them (:func:`.summary.claims`, :func:`.summary.causes`): from the
    build's ledger (:func:`load`) at the size's own seeds, else (seeds of the caller's
    choosing) judged now."""
    if seeds is not None:
        claims = summary.claims(size, seeds=seeds, store=store, systems=systems)
        return claims, summary.causes(size, seeds=seeds, store=store, systems=systems,
                                      table=claims)
    led = load(size, store=store)
    led = led[led["system"].isin([summary.SYSTEMS[s] for s in systems])]
    return table(led).reset_index(drop=True), causes(led)


def causes(ledger: pd.DataFrame) -> pd.DataFrame:
    """The causes table (:func:`.summary.causes`' columns) from the ledger: every record
    of the paper's own setting with a cause test (a claim a fit decides keeps its cause
    test in its record and on its page, counted apart as it is)."""
    rows = ledger[(ledger["cause"].fillna("").astype(str) != "")
                  & (ledger["scope"] == PAPER)]
    return rows[summary.CAUSE_COLUMNS].reset_index(drop=True)


def page(fig, data, size: str = "small", seeds=None, *, store=None) -> pd.DataFrame:
    """Page ``fig``'s claims table as the book shows it: the build's ledger's records of
    the page (:func:`page_claims`: one verdict per claim, the same on every page), where
    the page runs at ``size``'s own seeds; else (seeds of the caller's choosing, which no
    ledger judged) the claims computed from ``data`` (:meth:`~.base.Figure.claims`). The
    page's prose then speaks for the same verdicts: a sentence about a record whose verdict
    depends on lorasched's choice says so (:func:`.prose.composing`)."""
    if seeds is not None:
        prose.composing({})
        return fig.claims(data)
    led = load(size, store=store)
    rows = led[led["verdict"] == DEPENDS_ON]  # every page's: a page may speak of another's
    prose.composing({(r["claim"], r["setting"]): (r[AT_CHOICE], r[CLAUSE])
                     for _, r in rows.iterrows()})
    return page_claims(led, fig)


def page_claims(ledger: pd.DataFrame, fig) -> pd.DataFrame:
    """Page ``fig``'s claims table rendered from the ledger: its records, in the page's
    columns (:meth:`~.base.Figure.claims`), the setting under the page's variant name; a
    row a second look judged says so in ``first look``. A page that states no claim (the
    calibration page) has none: the table is empty."""
    rows = ledger[(ledger["system"] == summary.SYSTEMS[fig.system])
                  & (ledger["page"] == fig.page)]
    out = pd.DataFrame({"figure": rows["figure"], "claim": rows["claim"],
                        fig.variant_column: rows["setting"], "paper": rows["paper"],
                        "ours": rows["ours"], "per seed": rows["per seed"],
                        "verdict": rows["verdict"], "why": rows["why"],
                        "scope": rows["scope"], "sentence": rows["sentence"]})
    if "look" in rows.columns and (rows["look"] == 2).any():
        out.insert(out.columns.get_loc("verdict") + 1, "first look",
                   [f"{v} ({int(n)} seeds)" if k == 2 else ""
                    for k, v, n in zip(rows["look"], rows["first verdict"],
                                       rows.get("first n", rows["n"]), strict=True)])
    return out.reset_index(drop=True)


@dataclass
class Recount:
    """What :func:`recount` found: every record counted again, and what differs."""

    records: int = 0
    #: records whose interval was made again from their values, whose verdict was judged
    #: again by their reading, whose compared verdict was composed from others (by its page,
    #: the worst of several settings; by the ledger, its verdict under lorasched's choice and
    #: under another value of it, :func:`survive`: not recounted, though the verdict under
    #: lorasched's choice is judged again), and whose verdict compares nothing
    intervals: int = 0
    verdicts: int = 0
    composed: int = 0
    depends: int = 0
    not_compared: int = 0
    differences: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences

    def __str__(self) -> str:
        head = (f"{self.records} records: {self.intervals} intervals made again from their "
                f"per-seed values, {self.verdicts} verdicts judged again by their reading, "
                f"{self.composed} compared verdicts composed by their page from several "
                f"settings (not recounted), {self.depends} composed by the ledger from "
                f"lorasched's choice and another value of it (their verdict under "
                f"lorasched's choice judged again), {self.not_compared} that compare "
                "nothing; "
                f"{len(self.differences)} difference(s)")
        return "\n".join([head, *(f"  {d}" for d in self.differences)])


def recount(folder) -> Recount:
    """Count the published ledger in ``folder`` again from its own files: every interval
    from its per-seed values, every verdict by its reading (a verdict that depends on
    lorasched's choice: its verdict under that choice, :data:`AT_CHOICE`), the final verdict
    from the looks, and every count of the summary (:data:`COUNTS`) from the records."""
    ledger = read(folder)
    out = Recount(records=len(ledger))
    for _, row in ledger.iterrows():
        row = row.to_dict()
        if row["verdict"] not in VERDICTS:
            out.differences.append(f"{row['id']}: verdict {row['verdict']!r} is no verdict")
            continue
        if row["verdict"] == DEPENDS_ON:
            at = row.get(AT_CHOICE, "")
            if at not in _sensitivity.DECIDED:
                out.differences.append(f"{row['id']}: {row['verdict']!r} with {at!r} under "
                                       "lorasched's choice, no decided verdict")
                continue
            row = row | {"verdict": at}
            out.depends += 1
        can = record.recountable(row)
        out.intervals += "interval" in can
        out.verdicts += "verdict" in can
        if row["verdict"] in NOT_COMPARED:
            out.not_compared += 1
        elif not can.endswith("verdict"):
            out.composed += 1
        out.differences += [f"{row['id']}: {d}" for d in record.recount(row)]
    published = pd.read_csv(Path(folder) / COUNTS, index_col=0)
    again = counts(ledger)
    for system in again.index.union(published.index):
        for verdict in again.columns.union(published.columns):
            a = _count(again, system, verdict)
            b = _count(published, system, verdict)
            if a != b:
                out.differences.append(f"count {system} / {verdict}: {b} published, "
                                       f"{a} recounted")
    return out


def _count(frame: pd.DataFrame, system, verdict) -> int:
    try:
        return int(frame.loc[system, verdict])
    except KeyError:
        return 0


__all__ = ["AT_CHOICE", "CLAUSE", "COUNTS", "FILES", "HEADER", "KEY", "LEDGER", "LOOKS_FILE",
           "Recount", "build", "causes", "counts", "headlined", "load", "look_data", "make",
           "page", "page_claims", "read", "recount", "sensitivity", "sensitivity_name",
           "sensitivity_tables", "survive", "table", "tables", "write"]
