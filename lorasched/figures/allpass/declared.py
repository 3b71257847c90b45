"""Every run an Allpass page reads, declared as sweeps of the experiment engine that keep
their results (``keep = true``): the policies of sec. 5.1 in both setups, the other readings,
the runs beyond the text, the counterfactual runs, the sequential design's added seeds, and
an alternative's changed runs (:class:`Part`). :func:`kept_runs` runs what a store lacks
through :func:`lorasched.experiments.run_sweeps` and reads the kept results back, keyed as
the pages read them, ``(setup, algorithm key, seed)``. See :doc:`/reference/figures`.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import xarray as xr

from ... import systems
from ...allpass.scalers import F0
from ...experiments import Store, Sweep, grid, run_sweeps
from ...model.errors import InputError
from ...model.system import policy_options
from ..base import check_size, default_store, locked
from ..sensitivity import Alternative
from ..sequential import Design

#: the two deployment setups of sec. 5.1, as the scenario's capacity
SETUPS = {"limited": 30, "unlimited": "none"}
#: every policy, in the paper's order of appearance
ALGORITHMS = ["allpass", "tl_np", "tl_p", "sjf_np", "sjf_p", "hpa", "modal",
              "allpass_fixed60", "allpass_fixed600"]
#: the other readings of the paper, run in the limited setup: key -> (policy, options, label)
READINGS = {
    "allpass_literal": ("allpass", {"reading": "literal"},
                        "Algorithm 2 as printed (D - C, a rate from work)"),
    "allpass_window": ("allpass", {"overdue": False},
                       "eq. (1)'s literal window (t, t + T]: overdue jobs add no demand"),
    "allpass_overhead": ("allpass", {"checkpoint_s": 140.0, "restore_s": 140.0},
                         "Fig. 8's 1.4 min as an average over all jobs: 1.4 / 0.3 = 4.7 min "
                         "per demotion (the paper's 70 % served serverless)"),
    "allpass_laxity": ("allpass", {"demand": "laxity"},
                       "lorasched's option, not the paper's: the work each window must "
                       "deliver for the deadlines to hold"),
}
#: runs outside the paper's text, in both setups (the readings page): key -> (policy,
#: options, label). The units slip is a hypothesis about the authors' code, never the
#: default; the queue-all oracle is lorasched's baseline, a floor under any provisioning rule
BEYOND_TEXT = {
    "allpass_slip": ("allpass", {"units": "slip"},
                     "units slip (a hypothesis about the authors' code): D's seconds against "
                     "C_t T in minutes, p 60 times larger"),
    "queue_all_oracle": ("queue_all_oracle", {},
                         f"oracle: F fixed at F0 = {F0:g} s, a worker rented for every "
                         "queued job at once, up to the cap"),
}
#: baselines' runs with the mechanism a why names changed, for the readings page's causes
#: table only, in the limited setup: key -> (policy, options, label)
COUNTERFACTUAL_RUNS = {
    "tl_p_overhead": ("tl_p", {"checkpoint_s": 140.0, "restore_s": 140.0},
                      "TL-P with 4.7 min of checkpoint and restore per preemption (Fig. 8's "
                      "overhead read per demotion, as for Allpass)"),
}
_JOBS = {"full": 200, "small": 40}
_SEEDS = {"full": 20, "small": 5}
#: the claims' sequential design by size (:mod:`..sequential`): the pages' seeds, then three
#: times as many for the headline rows they leave undecided
DESIGNS = {size: Design(n, 3 * n) for size, n in _SEEDS.items()}
#: how many sets of runs :func:`kept_runs` keeps in memory (each page of a notebook reads the
#: same set: read once)
CACHED = 8


def seed_list(size: str, seeds: int | None = None) -> list[int]:
    """The seeds of the pages' runs at ``size``: 1 to the size's count, or to ``seeds``."""
    check_size(size)
    return list(range(1, (_SEEDS[size] if seeds is None else int(seeds)) + 1))


def paper_sweep(size: str = "full", seeds: int | None = None) -> Sweep:
    """The pages' main runs as a sweep declaration: every policy of :data:`ALGORITHMS` in
    both setups (:data:`SETUPS`) on the pages' seeds, their results kept. ``lorasched
    export-sweeps`` writes it as ``allpass_<size>.toml``; the other runs the pages read are
    :func:`parts`."""
    return Sweep.from_dict({
        "name": f"allpass_{size}", "system": "allpass", "base": {"jobs": _JOBS[size]},
        "axes": {"setup": {name: {"capacity": cap} for name, cap in SETUPS.items()}},
        "algorithms": list(ALGORITHMS), "seeds": seed_list(size, seeds), "keep": True,
        "description": "Allpass and its baselines in the limited and unlimited setups of "
                       "sec. 5.1 (the runs behind Figs. 6-12)"})


@dataclass(frozen=True)
class Part:
    """A sweep of runs the pages read, and the pages' key of each of its algorithms.

    Parameters
    ----------
    sweep : Sweep
        Its runs, kept (``keep``).
    keys : tuple, optional
        ``(algorithm, key)`` pairs: an algorithm of the sweep and the key the pages read its
        runs under (``("allpass", "allpass_literal")`` for a reading); an algorithm not
        named keeps its own.
    """

    sweep: Sweep
    keys: tuple = ()  # ((algorithm, key), ...)

    def key(self, algorithm: str) -> str:
        """The pages' key of ``algorithm``'s runs."""
        return dict(self.keys).get(algorithm, algorithm)


def _setups(names) -> dict:
    return {name: {"capacity": SETUPS[name]} for name in names}


def _variant(size: str, seeds: list, kind: str, key: str, policy: str, options: dict,
             setups) -> Part:
    """One reading, run beyond the text or counterfactual run: ``policy`` with
    ``options``, read under ``key``."""
    short = key.removeprefix(f"{policy}_") if key != policy else key
    label = "beyond text" if kind == "beyond" else f"{kind} {short}"
    sweep = Sweep.from_dict({
        "name": f"allpass_{size}_{kind}_{short}", "system": "allpass",
        "base": {"jobs": _JOBS[size]}, "axes": {"setup": _setups(setups)},
        "algorithms": [policy], "options": {policy: dict(options)} if options else {},
        "seeds": seeds, "keep": True, "label": label,
        "description": f"Allpass's pages: {key}"})
    return Part(sweep, ((policy, key),))


def parts(size: str = "small", seeds: int | None = None) -> list[Part]:
    """The runs every page of Figs. 6-12 and the readings page reads: the main runs
    (:func:`paper_sweep`), each reading of :data:`READINGS` (limited setup), each run of
    :data:`BEYOND_TEXT` (both setups) and of :data:`COUNTERFACTUAL_RUNS` (limited), on the
    pages' seeds (:func:`seed_list`)."""
    chosen = seed_list(size, seeds)
    out = [Part(paper_sweep(size, seeds))]
    for kind, runs, setups in (("reading", READINGS, ["limited"]),
                               ("beyond", BEYOND_TEXT, list(SETUPS)),
                               ("counterfactual", COUNTERFACTUAL_RUNS, ["limited"])):
        for key, (policy, options, _) in runs.items():
            out.append(_variant(size, chosen, kind, key, policy, options, setups))
    return out


def look_parts(size: str = "small", design: Design | None = None) -> list[Part]:
    """The sequential design's added seeds (``first + 1`` to ``cap``, default
    :data:`DESIGNS` of ``size``): the same sets of runs as :func:`parts`, each its own sweep
    labelled as the second look (``look 2``)."""
    d = DESIGNS[size] if design is None else design
    if d.cap <= d.first:
        raise InputError(f"a second look needs more seeds than the first: {d}")
    seeds = list(range(d.first + 1, d.cap + 1))
    out = []
    for part in parts(size, d.first):
        sweep = Sweep.from_dict({**part.sweep.to_dict(), "seeds": seeds,
                                 "name": f"{part.sweep.name}_look2",
                                 "label": " ".join(["look 2", part.sweep.label]).strip()})
        out.append(Part(sweep, part.keys))
    return out


def alternative_part(size: str, alt: Alternative, seeds, label: str) -> Part:
    """The runs ``alt`` changes, on ``seeds``: with a scenario change every policy of
    :data:`ALGORITHMS` again (in the limited setup for a cap, in both otherwise), with
    options the policies that take them (those ``alt.policies`` names, if any) in both
    setups, each with the options it accepts. ``label`` names its cells in reports."""
    system = systems.get("allpass")
    if alt.scenario:
        setups = ["limited"] if "capacity" in alt.scenario else list(SETUPS)
        axis = {s: {"capacity": SETUPS[s], **{k: v for k, v in alt.scenario.items()
                                              if k == "capacity"}} for s in setups}
        base = {"jobs": _JOBS[size], **{k: v for k, v in alt.scenario.items()
                                        if k != "capacity"}}
        algorithms, options = list(ALGORITHMS), {}
    else:
        chosen = {a: {k: v for k, v in alt.options.items()
                      if k in policy_options(system.policy(a))}
                  for a in ALGORITHMS if not alt.policies or a in alt.policies}
        options = {a: o for a, o in chosen.items() if o}
        if not options:
            raise InputError(f"{alt.label}: no policy of {ALGORITHMS} takes its options")
        axis, base, algorithms = _setups(SETUPS), {"jobs": _JOBS[size]}, list(options)
    sweep = Sweep.from_dict({
        "name": f"allpass_{size}_alternative_{alt.slug}", "system": "allpass", "base": base,
        "axes": {"setup": axis}, "algorithms": algorithms, "options": options,
        "seeds": [int(s) for s in seeds], "keep": True, "label": label,
        "description": f"Allpass's runs under {alt.label}"})
    return Part(sweep)


# --------------------------------------------------------------------------- running, reading
_CACHE: OrderedDict = OrderedDict()


def kept_runs(chosen: list[Part], size: str, store=None, *, serial: bool | None = None,
              workers: int | None = None, scheduler: str | None = None,
              progress: bool = False) -> Runs:
    """The checked runs of ``chosen``, ``(setup, key, seed) -> result Dataset``: the cells
    ``store`` lacks run through the engine first (:func:`lorasched.experiments.run_sweeps`),
    then each kept result is read back when first asked for
    (:meth:`lorasched.experiments.Store.result`, :class:`Runs`).

    Parameters
    ----------
    chosen : list of Part
        The runs.
    size : str
        ``"small"`` or ``"full"``: the default store's, and the default of ``serial``.
    store : path, False or None
        The folder of finished cells (default :func:`..base.default_store` of ``size``;
        ``False``: a temporary folder, nothing kept).
    serial : bool, optional
        Run missing cells in this process (default: at the small size) rather than on
        Dask.
    workers, scheduler, progress
        As :func:`lorasched.experiments.run_sweeps` takes them.

    Returns
    -------
    Runs
        The runs. The same object for the same runs and store while it is among the last
        :data:`CACHED` read in this process.

    Raises
    ------
    RuntimeError
        Naming the cells that failed.
    """
    check_size(size)
    where = None if store is False else Path(default_store(size) if store is None
                                             else store).resolve()
    ident = (str(where), tuple(p.sweep.to_json() for p in chosen))
    if ident in _CACHE:
        _CACHE.move_to_end(ident)
        return _CACHE[ident]
    options = {"serial": size == "small" if serial is None else serial, "workers": workers,
               "scheduler": scheduler, "progress": progress}
    if where is None:
        with tempfile.TemporaryDirectory(prefix="lorasched-allpass-") as tmp:
            _complete(chosen, Path(tmp), options)
            out = _read(chosen, Store(tmp)).loaded()  # before the folder goes
    else:
        _complete(chosen, where, options)
        out = _read(chosen, Store(where))
    _CACHE[ident] = out
    while len(_CACHE) > CACHED:
        _CACHE.popitem(last=False)
    return out


def complete(chosen: list[Part], size: str, store=None, *, serial: bool | None = None,
             workers: int | None = None, scheduler: str | None = None,
             progress: bool = False) -> None:
    """Run the cells of ``chosen`` that ``store`` (default the size's) lacks, as one batch,
    so that :func:`kept_runs` of any of them then only reads; arguments as
    :func:`kept_runs` takes them (``store=False``: nothing to complete)."""
    check_size(size)
    if store is not False:
        where = Path(default_store(size) if store is None else store).resolve()
        _complete(chosen, where, {"serial": size == "small" if serial is None else serial,
                                  "workers": workers, "scheduler": scheduler,
                                  "progress": progress})


def _complete(chosen: list[Part], where: Path, options: dict) -> None:
    """Run the cells of ``chosen`` that the store at ``where`` lacks; while one process
    runs them, another asking for the same store waits, then finds them done (two notebooks
    of ``make book``, two test workers)."""
    keys = [c.key for p in chosen for c in grid.cells(p.sweep)]
    if set(keys) <= set(Store(where).done(keys)):
        return
    with locked(where / "allpass-runs"):
        report = run_sweeps([p.sweep for p in chosen], where, name="Allpass runs", **options)
    if report.interrupted:
        raise KeyboardInterrupt
    if report.failed:
        lines = "\n".join(f"  {d}: {e}" for d, e in report.failed)
        raise RuntimeError(f"{len(report.failed)} Allpass run(s) failed:\n{lines}")


@dataclass(frozen=True)
class _Kept:
    """Where one kept run is: its store's folder and cell key, its scenario (the offer book
    is shared by the runs of one scenario), and the metrics and file digest its record
    holds."""

    folder: str
    key: str
    scenario: str
    metrics: dict
    sha256: str  # the kept result file's, as its record gives it


#: results read so far in this process, by (store folder, cell key); and the offer book of
#: each scenario, held once (the same in every policy's run of it)
_DECODED: dict = {}
_BOOKS: dict = {}


class Runs(Mapping):
    """``(setup, algorithm key, seed) -> result Dataset``, what :func:`kept_runs` returns:
    each run read from its store's kept result when first asked for (a page reads a few runs
    whole and the metrics of all, which the store's records hold: :meth:`measured`), or a
    Dataset held in memory. ``a | b``: the runs of both, ``b``'s where both have a key."""

    def __init__(self, entries: dict):
        self._entries = dict(entries)

    def __getitem__(self, key) -> xr.Dataset:
        entry = self._entries[key]
        return entry if isinstance(entry, xr.Dataset) else _result(entry)

    def __iter__(self):
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key) -> bool:
        return key in self._entries

    def __or__(self, other: Mapping) -> Runs:
        more = other._entries if isinstance(other, Runs) else dict(other)
        return Runs({**self._entries, **more})

    def measured(self, key) -> dict:
        """The run's metrics (``lorasched.allpass.system.measure``): its record's for a
        kept run, equal bit for bit to measuring the result read back."""
        entry = self._entries[key]
        if isinstance(entry, _Kept):
            return entry.metrics
        return systems.get("allpass").measure(entry, entry)

    def moved(self, keys: dict) -> Runs:
        """The runs of ``keys``' values under its keys (``{new: old}``), none read."""
        return Runs({new: self._entries[old] for new, old in keys.items()})

    def source(self) -> str | None:
        """A SHA-256 of which result file each key reads (their recorded digests), none
        read: the same runs give the same source; None where a run is held in memory."""
        if not all(isinstance(e, _Kept) for e in self._entries.values()):
            return None
        pairs = sorted((json.dumps(k), e.sha256) for k, e in self._entries.items())
        return hashlib.sha256(json.dumps(pairs).encode()).hexdigest()

    def loaded(self) -> Runs:
        """The same runs, every one read into memory now."""
        return Runs({k: self[k] for k in self._entries})


def _result(entry: _Kept) -> xr.Dataset:
    """The kept run ``entry``, read once per process; its offer book held once per scenario
    (checked equal), as the runs shared it when they were computed."""
    at = (entry.folder, entry.key)
    if at not in _DECODED:
        result = Store(entry.folder).result(entry.key)
        book = result["price_per_gpu_h"].variable
        shared = _BOOKS.setdefault(entry.scenario, book)
        if shared is not book and np.array_equal(shared.values, book.values, equal_nan=True):
            book.data = shared.data
        _DECODED[at] = result
    return _DECODED[at]


def _read(chosen: list[Part], store: Store) -> Runs:
    """Every kept run of ``chosen``, keyed as the pages read them, each read when first
    asked for (:class:`Runs`)."""
    cells = [(part, cell) for part in chosen for cell in grid.cells(part.sweep)]
    records = store.done([cell.key for _, cell in cells])
    folder = str(store.folder)
    entries = {}
    for part, cell in cells:
        record = records[cell.key]
        entry = _Kept(folder, cell.key, json.dumps([cell.params["scenario"],
                                                    cell.params["seed"]], sort_keys=True),
                      record["metrics"], record["result"]["sha256"])
        for where in cell.where:
            at = dict(where)
            entries[at["setup"], part.key(at["algorithm"]), at["seed"]] = entry
    return Runs(entries)


def clear_cache() -> None:
    """Forget the runs :func:`kept_runs` holds in memory (the next call reads the store)."""
    _CACHE.clear()
    _DECODED.clear()
    _BOOKS.clear()
