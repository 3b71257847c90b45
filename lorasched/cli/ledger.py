"""``lorasched ledger`` and ``lorasched recount``: the build's ledger of claims made once
from the finished cells (every verdict of every page), and counted again by a reader from
the published files alone."""

from __future__ import annotations

import time
from pathlib import Path

from ..figures import ledger
from ..figures.datafiles import data_folder
from ..model.errors import InputError


def register(sub) -> None:
    """The ``ledger`` and ``recount`` commands."""
    led = sub.add_parser(
        "ledger", help="judge every claim of the three papers once, into the build's ledger",
        description="Judge every claim of every page of the three papers once, on the "
        "finished cells of the size's store (`lorasched reproduce` first), and write the "
        "ledger (one record per claim: the paper's sentence, its reading, each look's "
        "seeds, interval and verdict, the final verdict, the why and its cause test) with "
        "the summary's counts into the data folder, where the pages read it and `make "
        "book` publishes it. Made again only where the code changed (--force: always).")
    led.add_argument("--size", default="full", choices=["small", "full"])
    led.add_argument("--store", default=None,
                     help="folder of finished cells (default: build/sweeps/SIZE)")
    led.add_argument("--folder", default=None,
                     help="the data folder (default: build/figure-data/SIZE)")
    led.add_argument("--force", action="store_true", help="make it even if it is fresh")
    led.set_defaults(run=make)
    rec = sub.add_parser(
        "recount", help="count a published ledger again from its own files",
        description="Count the ledger published in DATA_DIR (a built book's data/ folder, "
        "or a data folder) again from its files alone: every interval from its per-seed "
        "values, every verdict by its reading, every count of the summary from the "
        "records. Exit status 0 if nothing differs, 1 if something does.")
    rec.add_argument("folder", metavar="DATA_DIR", help="the folder holding ledger.csv")
    rec.set_defaults(run=recount)


def make(args) -> int:
    """``lorasched ledger``: write the ledger, print what it holds and how long it took."""
    folder = Path(args.folder) if args.folder else data_folder(args.size)
    start, cpu = time.perf_counter(), time.process_time()
    if args.force:
        ledger.make(args.size, folder, store=args.store)
    table = ledger.load(args.size, store=args.store, folder=folder)
    print(f"ledger ({args.size}): {len(table)} records -> {folder / ledger.LEDGER} "
          f"({time.perf_counter() - start:.0f} s, {time.process_time() - cpu:.0f} CPU-s)")
    return 0


def recount(args) -> int:
    """``lorasched recount``: print the recount; 1 if anything differs."""
    if not Path(args.folder).is_dir():
        raise InputError(f"{args.folder}: no such folder")
    found = ledger.recount(args.folder)
    print(found)
    return 0 if found.ok else 1
