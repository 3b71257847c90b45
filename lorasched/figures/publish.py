"""The data files of the figure pages, published: each page's links to its files
(:func:`data_files`), the files copied into the built book with their checksums
(:func:`publish`) and checked (:func:`verify`), and the book's table of them
(:func:`listing`). Writing and reading the files: :mod:`lorasched.figures.datafiles`.
"""

from __future__ import annotations

import hashlib
import html
import shutil
from pathlib import Path

import pandas as pd

from ..model.errors import InputError
from . import ledger
from .base import Figure
from .datafiles import FIGURES, file_names, page_files, quoted_name, write_page_files

#: the built site's folder of data files, relative to the site's root
SITE_FOLDER = "data"
#: the manifest published beside them (``sha256sum -c SHA256SUMS`` checks them)
MANIFEST = "SHA256SUMS"


class DataLinks:
    """What a page shows: links to its figure's data files (HTML; text elsewhere)."""

    def __init__(self, fig: Figure, files: tuple[str, ...], sizes: tuple[int, ...]):
        self.fig, self.files, self.sizes = fig, files, sizes

    def _repr_html_(self) -> str:
        href = [html.escape(f"../{SITE_FOLDER}/{f}") for f in self.files]
        name = [html.escape(Path(f).name) for f in self.files]
        key = html.escape(f"{self.fig.system}/{self.fig.key}")
        quoted = (f', and <a href="{href[2]}" download>{name[2]}</a> (the numbers its prose '
                  f"derives from them, {_human(self.sizes[2])})" if len(self.files) > 2
                  else "")
        return (f'<p class="lorasched-data">The data behind this page: '
                f'<a href="{href[0]}" download>{name[0]}</a> '
                f"(netCDF, {_human(self.sizes[0])}: every number its plots and verdicts "
                f'are computed from), <a href="{href[1]}" download>'
                f"{name[1]}</a> (its claims table, {_human(self.sizes[1])}){quoted}. "
                f"<code>lorasched.figures.load(\"{key}\")</code> reads the first back; "
                f'checksums in <a href="../{SITE_FOLDER}/{MANIFEST}">{MANIFEST}</a>.</p>')

    def __repr__(self) -> str:
        return f"data files: {', '.join(self.files)}"


def _human(n: int) -> str:
    for unit in ("bytes", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n} bytes"  # pragma: no cover


def data_files(fig: Figure, data, size: str = "full", folder=None, *,
               quoted: pd.DataFrame | None = None,
               claims: pd.DataFrame | None = None) -> DataLinks:
    """Write ``fig``'s data (what its page computed), its claims table and, for a figure
    that :attr:`~lorasched.figures.base.Figure.quotes`, its table of quoted numbers
    (``quoted``, if the page computed it already; else :meth:`Figure.quoted
    <lorasched.figures.base.Figure.quoted>`) into ``folder`` (default
    :func:`~lorasched.figures.datafiles.data_folder` of ``size``), by
    :func:`~lorasched.figures.datafiles.write_page_files`; the page's links to them."""
    paths = write_page_files(fig, data, size, folder, quoted=quoted, claims=claims)
    return DataLinks(fig, tuple(page_files(fig)), tuple(p.stat().st_size for p in paths))


def expected_files() -> list[str]:
    """Every figure's files (two, or three with its quoted numbers), relative to a data
    folder, in catalogue order, then the build's ledger (:data:`.ledger.FILES`)."""
    names = [f for figs in FIGURES.values() for fig in figs.values() for f in page_files(fig)]
    return list(dict.fromkeys(names + list(ledger.FILES)))  # a shared file once


def sha256(path) -> str:
    """The SHA-256 of the file ``path``'s bytes, as ``sha256sum`` prints it."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def publish(source, site) -> list[str]:
    """Copy every figure's files from ``source`` (a
    :func:`~lorasched.figures.datafiles.data_folder`) into the built ``site``'s ``data/``
    folder and write its ``SHA256SUMS`` (``sha256sum`` format, in catalogue order); the
    files published. A figure whose page did not write them is an
    error naming it (its page's links would be dead)."""
    source, target = Path(source), Path(site) / SITE_FOLDER
    names = expected_files()
    missing = [n for n in names if not (source / n).is_file()]
    if missing:
        raise InputError(f"{source}: no data file for {len(missing)} figure file(s), e.g. "
                         f"{missing[:3]}: build those pages first (make book)")
    if target.exists():
        shutil.rmtree(target)
    lines = []
    for name in names:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / name, target / name)
        lines.append(f"{sha256(target / name)}  {name}")
    (target / MANIFEST).write_text("\n".join(lines) + "\n")
    return names


def verify(site) -> list[str]:
    """The files of ``site``'s manifest whose checksum does not match (empty: all do)."""
    folder = Path(site) / SITE_FOLDER
    bad = []
    for line in (folder / MANIFEST).read_text().splitlines():
        digest, name = line.split("  ", 1)
        if not (folder / name).is_file() or sha256(folder / name) != digest:
            bad.append(name)
    return bad


def listing() -> pd.DataFrame:
    """Every figure page's data files, as a table with links (for the book's data page, one
    level below the site's root); ``key`` is what
    :func:`~lorasched.figures.datafiles.load` takes."""
    rows = []
    for system, figs in FIGURES.items():
        for fig in figs.values():
            nc, csv = file_names(fig)
            rows.append({"key": f"{system}/{fig.key}", "page": f"{fig.number}: {fig.title}",
                         "data (netCDF)": _anchor(nc), "claims (CSV)": _anchor(csv),
                         "quoted numbers (CSV)": _anchor(quoted_name(fig)) if fig.quotes
                         else ""})
    return pd.DataFrame(rows)


#: what each of the ledger's files holds (:data:`.ledger.FILES`), as the data page lists it
LEDGER_FILES = {
    ledger.LEDGER: "every claim of the three papers, one record each: its reading, each "
                   "look's values, interval and verdict, the final verdict (where it "
                   "depends on lorasched's choice, its verdict at that choice too), the why "
                   "and its cause test",
    ledger.COUNTS: "the summary's counts, as the summary page prints them",
    ledger.HEADER: "what the ledger was judged by: the size, the code's fingerprint, when",
    ledger.LOOKS_FILE: "the per-seed metrics of every run of Allpass's second look",
    **{ledger.sensitivity_name(s): f"{name}'s sensitivity verdicts: each alternative to a "
                                   "number lorasched chose (or to the paper's setting or "
                                   "reading), beside lorasched's choice"
       for s, name in (("pdftsp", "pdFTSP"), ("titan", "TITAN"), ("allpass", "Allpass"))},
}


def ledger_listing() -> pd.DataFrame:
    """The ledger's files (:data:`LEDGER_FILES`) as a table with links, for the data page
    (one level below the site's root)."""
    return pd.DataFrame([{"file": _anchor(name), "holds": what}
                         for name, what in LEDGER_FILES.items()])


def _anchor(name: str) -> str:
    return f'<a href="../{SITE_FOLDER}/{html.escape(name)}" download>{html.escape(name)}</a>'
