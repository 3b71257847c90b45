"""The suite's report folder: its header (``report.json``: suite version, size, lorasched's
version and code fingerprints, the policies and their origins, seeds, date, machine), the
tables (CSV, Markdown), the figure (HTML) and the datasets; and :func:`comparable`, which
says whether two reports' numbers may be compared, and why not.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..experiments.assembly import package_version, write_netcdf
from ..experiments.grid import code_fingerprint
from ..figures.base import atomic_file
from ..model.errors import InputError, read_text
from .figure import figure, write_html
from .scenarios import DEFINITION, LEVEL, SUITE_VERSION, check_size, definition_hash
from .selection import origin
from .tables import POOLED, TIMING_MARK, markdown, summary, wide

#: the header's file in a report folder
HEADER = "report.json"
#: the long table of every number (:func:`lorasched.suite.tables.summary`, all systems)
RESULTS = "results.csv"
#: the Markdown report: the header and a table per system
MARKDOWN = "report.md"
#: the figure, offline HTML
FIGURE = "report.html"
#: the header keys two reports must share to be compared at all
SAME = ("suite_version", "definition", "size")


def machine() -> dict:
    """The machine a report's times were measured on.

    Returns
    -------
    dict
        ``platform``, ``processor``, ``cpus`` and ``python``.
    """
    return {"platform": platform.platform(), "processor": _processor(),
            "cpus": os.cpu_count() or 0, "python": platform.python_version()}


def _processor() -> str:
    """The CPU's model name (Linux's ``/proc/cpuinfo``), else what ``platform`` says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@contextmanager
def _written(path):
    """:func:`~lorasched.figures.base.atomic_file`, the file readable by all (0644)."""
    with atomic_file(path) as tmp:
        yield tmp
        os.chmod(tmp, 0o644)


def header(size: str, policies: dict, datasets: dict, run: dict | None = None) -> dict:
    """A report's header: what ran, with which code, where and when.

    Parameters
    ----------
    size : str
        The suite's size.
    policies : dict
        System -> the policies run.
    datasets : dict
        System -> its suite sweep dataset (for its seeds and cell counts).
    run : dict, optional
        What the run did (``computed``, ``skipped``, ``failed``, ``wall_seconds``).

    Returns
    -------
    dict
        ``suite_version``, ``definition`` (:func:`~.scenarios.definition_hash`),
        ``size``, ``lorasched_version``, ``code_fingerprint`` (the whole package's),
        ``systems`` (per system: its ``code_fingerprint``, which its cells' keys hash,
        its ``policies`` with their :func:`~.selection.origin`, ``seeds``, ``scenarios``,
        ``cells`` and ``cells_done``), ``level``, ``date`` (UTC), ``machine`` and
        ``run``.
    """
    check_size(size)
    if not isinstance(policies, dict) or set(policies) != set(datasets):
        raise InputError("header: policies and datasets must name the same systems, got "
                         f"{sorted(policies)} and {sorted(datasets)}")
    per = {}
    for system, names in policies.items():
        ds = datasets[system]
        axes = [d for d in ds.dims if d not in ("algorithm", "seed")]
        scenarios = 1
        for d in axes:
            scenarios *= ds.sizes[d]
        per[system] = {"code_fingerprint": code_fingerprint(system),
                       "policies": [origin(system, p) for p in names],
                       "seeds": [int(s) for s in ds["seed"].values],
                       "scenarios": scenarios,
                       "cells": int(ds.attrs.get("cells", 0)),
                       "cells_done": int(ds.attrs.get("cells_done", 0))}
    return {"suite": "lorasched suite", "suite_version": SUITE_VERSION,
            "definition": definition_hash(), "size": size,
            "lorasched_version": package_version(), "code_fingerprint": code_fingerprint(),
            "systems": per, "level": LEVEL,
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "machine": machine(), "run": dict(run or {})}


def write_report(out, head: dict, datasets: dict) -> dict:
    """Write a report folder: header, tables, figure and datasets.

    Parameters
    ----------
    out : str or os.PathLike
        The folder (created if missing).
    head : dict
        The header (:func:`header`).
    datasets : dict
        System -> its suite sweep dataset.

    Returns
    -------
    dict
        File kind -> path of each file written: ``header``, ``results`` (the long CSV),
        ``markdown``, ``figure``, and per system ``<system>.csv`` (its policy x metric
        table of numbers) and ``<system>.nc`` (its dataset).
    """
    if not isinstance(head, dict) or "systems" not in head:
        raise InputError("head must be a report header (lorasched.suite.report.header)")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    long = pd.concat([summary(datasets[s], s) for s in head["systems"]], ignore_index=True)
    files = {}
    for system in head["systems"]:
        path = out / f"{system}.csv"
        table = wide(long[long["system"] == system])
        origins = {p["name"]: p for p in head["systems"][system]["policies"]}
        table.insert(0, "origin", [_origin_text(origins[p]) for p in table.index])
        with _written(path) as tmp:
            table.to_csv(tmp)
        files[f"{system}.csv"] = path
        path = out / f"{system}.nc"
        write_netcdf(datasets[system], path)
        os.chmod(path, 0o644)
        files[f"{system}.nc"] = path
    files["results"] = out / RESULTS
    with _written(files["results"]) as tmp:
        long.to_csv(tmp, index=False)
    files["markdown"] = out / MARKDOWN
    with _written(files["markdown"]) as tmp:
        tmp.write_text(report_markdown(head, long))
    files["figure"] = out / FIGURE
    with _written(files["figure"]) as tmp:
        write_html(figure(long, title=_title(head)), tmp)
    head = dict(head, files=sorted([*(p.name for p in files.values()), HEADER]))
    files["header"] = out / HEADER
    with _written(files["header"]) as tmp:
        tmp.write_text(json.dumps(head, indent=2, sort_keys=True) + "\n")
    return files


def _title(head: dict) -> str:
    return (f"lorasched suite {head['suite_version']} ({head['size']}), lorasched "
            f"{head['lorasched_version']}, code {head['code_fingerprint']}")


def _origin_text(p: dict) -> str:
    """A policy's origin for a table: ``built-in``, or ``plug-in <module> <fingerprint>``."""
    if not p["fingerprint"]:
        return p["origin"]
    return f"{p['origin']} {p['module']} {p['fingerprint']}"


def report_markdown(head: dict, long: pd.DataFrame) -> str:
    """The Markdown report: what ran, then a policy x metric table per system.

    Parameters
    ----------
    head : dict
        The header (:func:`header`).
    long : pandas.DataFrame
        The rows of :func:`~lorasched.suite.tables.summary` of every system.

    Returns
    -------
    str
    """
    if not isinstance(head, dict) or "systems" not in head:
        raise InputError("head must be a report header (lorasched.suite.report.header)")
    level = f"{head['level'] * 100:g} %"
    lines = [f"# {_title(head)}", "",
             f"Definition {head['definition']}; {head['date']}; "
             f"{head['machine']['processor']}, {head['machine']['cpus']} CPUs, Python "
             f"{head['machine']['python']}.", "",
             f"Each cell: the mean over seeds of the metric's mean over the suite's "
             f"scenarios, with its {level} Student-t interval over seeds in brackets. "
             f"{TIMING_MARK} machine-dependent (seconds on the machine above).", ""]
    for system, part in head["systems"].items():
        plugins = [p for p in part["policies"] if p["fingerprint"]]
        lines += [f"## {system}", "",
                  f"{part['scenarios']} scenarios x {len(part['seeds'])} seeds "
                  f"({', '.join(map(str, part['seeds']))}); code {part['code_fingerprint']}"
                  + (f"; bound {DEFINITION[system]['bound']}"
                     if DEFINITION.get(system, {}).get("bound") else "") + ".", "",
                  markdown(long, system, POOLED), ""]
        if plugins:
            lines += ["Plug-in policies: " + "; ".join(
                f"{p['name']} ({_origin_text(p)})" for p in plugins) + ".", ""]
    return "\n".join(lines)


def read_report(path) -> dict:
    """A report's header, from its folder or its ``report.json``.

    Parameters
    ----------
    path : str or os.PathLike
        A report folder or its header file.

    Returns
    -------
    dict
        The header.

    Raises
    ------
    InputError
        If there is no header there or it is not one.
    """
    path = Path(path)
    if path.is_dir():
        path = path / HEADER
    if not path.is_file():
        raise InputError(f"{path}: no suite report header (report.json)")
    try:
        head = json.loads(read_text(path, "suite report"))
    except ValueError as exc:
        raise InputError(f"{path}: not a suite report header ({exc})") from None
    if not isinstance(head, dict) or head.get("suite") != "lorasched suite":
        raise InputError(f"{path}: not a lorasched suite report header")
    return head


def results(path) -> pd.DataFrame:
    """A report's long table of numbers.

    Parameters
    ----------
    path : str or os.PathLike
        A report folder.

    Returns
    -------
    pandas.DataFrame
        The rows of ``RESULTS``.
    """
    path = Path(path) / RESULTS
    if not path.is_file():
        raise InputError(f"{path}: no such results table")
    return pd.read_csv(path)


@dataclass(frozen=True)
class Comparability:
    """Whether two suite reports may be compared, and why not.

    Parameters
    ----------
    reasons : list of str
        Why their numbers may not be compared (empty: they may be, for the policies both
        ran).
    notes : list of str, optional
        What differs without forbidding the comparison (the machine of the timings,
        policies only one ran, lorasched's version under the same code).
    """

    reasons: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the two reports' numbers may be compared."""
        return not self.reasons

    def __bool__(self) -> bool:
        return self.ok

    def describe(self) -> str:
        """The verdict for a reader: comparable or not, with every reason and note.

        Returns
        -------
        str
        """
        lines = ["comparable" if self.ok else "NOT comparable:"]
        lines += [f"  - {r}" for r in self.reasons]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def comparable(a, b) -> Comparability:
    """Whether two suite reports' numbers may be compared, and why not.

    They may when they ran the same suite (version, definition and size), and, per
    system both ran, with the same code (the system's code fingerprint, which its cells'
    keys hash), and, per plug-in policy both ran, the same source, on the same seeds. The
    machine-dependent columns compare only on the same machine (a note).

    Parameters
    ----------
    a, b : dict, str or os.PathLike
        Report headers (:func:`header`) or report folders.

    Returns
    -------
    Comparability
    """
    a = a if isinstance(a, dict) else read_report(a)
    b = b if isinstance(b, dict) else read_report(b)
    reasons, notes = [], []
    for key in SAME:
        if a.get(key) != b.get(key):
            reasons.append(f"{key} differs: {a.get(key)!r} vs {b.get(key)!r}")
    both = [s for s in a.get("systems", {}) if s in b.get("systems", {})]
    if not both:
        reasons.append(f"no system in common: {sorted(a.get('systems', {}))} vs "
                       f"{sorted(b.get('systems', {}))}")
    for s in both:
        x, y = a["systems"][s], b["systems"][s]
        if x["code_fingerprint"] != y["code_fingerprint"]:
            reasons.append(f"{s}: code fingerprint differs: {x['code_fingerprint']} vs "
                           f"{y['code_fingerprint']} (lorasched {a.get('lorasched_version')}"
                           f" vs {b.get('lorasched_version')})")
        if x["seeds"] != y["seeds"]:
            reasons.append(f"{s}: seeds differ: {x['seeds']} vs {y['seeds']}")
        px = {p["name"]: p for p in x["policies"]}
        py = {p["name"]: p for p in y["policies"]}
        for name in px.keys() & py.keys():
            if (px[name]["origin"], px[name]["fingerprint"]) != (py[name]["origin"],
                                                                 py[name]["fingerprint"]):
                reasons.append(f"{s}: policy {name!r} differs: {_origin_text(px[name])} "
                               f"vs {_origin_text(py[name])}")
        only = sorted(px.keys() ^ py.keys())
        if only:
            notes.append(f"{s}: policies in one report only: {only}")
    if a.get("machine") != b.get("machine"):
        notes.append(f"machine-dependent columns ({TIMING_MARK}) were measured on "
                     "different machines")
    if (not reasons and a.get("lorasched_version") != b.get("lorasched_version")):
        notes.append(f"lorasched {a.get('lorasched_version')} vs "
                     f"{b.get('lorasched_version')}, with the same code fingerprints")
    return Comparability(reasons, notes)
