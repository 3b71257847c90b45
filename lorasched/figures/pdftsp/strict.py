"""Titan held to one standard: the per-slot gaps the figures' Titan certified
(:func:`titan_runs`, :func:`titan_gaps`), its runs with the largest gaps re-run at the
paper's solver's default gap of 0.01 % (:data:`STRICT_OPTIONS`, :func:`rerun_worst`, kept
as data in :data:`STRICT_FILE`), and whether a figure's verdicts move with those runs in
place of its own (:func:`substitute`, :func:`verdict_moves`)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from ...experiments import Sweep
from ...experiments.grid import cells
from ...experiments.store import Store
from ...experiments.sweep import run_sweep
from ...model.errors import InputError
from ...pdftsp.baselines import titan_per_slot as _titan
from ..base import check_size, default_store
from ..numbers import num, pct, quote
from .common import _and

#: the gap each figure's Titan is asked to certify in every slot (lorasched's standard)
STANDARD_GAP = _titan.MILP_REL_GAP
#: the paper's standard: it names Gurobi, whose default relative gap (MIPGap) is 0.01 %
STRICT_REL_GAP = 1e-4
#: branch-and-bound nodes a slot at most in the strict re-run (the figures': 200); a
#: count, so the re-run is the same on every machine
STRICT_MAX_NODES = 5_000
#: Titan's options in the strict re-run: the figures' compact MILP, to 0.01 %
STRICT_OPTIONS = {"solver": "milp", "mip_rel_gap": STRICT_REL_GAP,
                  "mip_max_nodes": STRICT_MAX_NODES}
#: the strict re-runs, a row per run (:func:`rerun_worst` writes it, the pages read it)
STRICT_FILE = Path(__file__).with_name("titan_strict.csv")
#: the command that re-runs a figure's worst runs into :data:`STRICT_FILE`
COMMAND = "lorasched bench titan-strict --figure {key} --size {size} --count {count}"
#: the columns of :data:`STRICT_FILE` before the re-run's metrics
_FILE_COLUMNS = ("figure", "size", "part", "at", "seed", "gap_before", "capped_before",
                 "key", "options", "command", "made", "cpu_seconds", "wall_seconds",
                 "task_gap")
#: the dimensions of a figure's data that are not its settings
_NOT_SETTINGS = ("constants", "algorithm", "seed")


# ------------------------------------------------------------------------ the gaps
def _pct(fraction: float) -> str:
    """A standard's gap (a fraction) in percent: "1 %", "0.01 %"."""
    return f"{num(100 * float(fraction))} %"


def _slots(n: int) -> str:
    """"no slot", "1 slot", "47 slots"."""
    return "no slot" if n == 0 else f"{n} slot{'' if n == 1 else 's'}"


def _data_pct(percent: float) -> str:
    """A measured gap, already in percent, as the pages show percentages: "37 %"."""
    return pct(percent, sign=False)


def titan_runs(data) -> pd.DataFrame:
    """Every run of Titan (the progress objective) behind a figure's data: one row per
    setting and seed where it ran, with ``part`` (the data's part, "" for one dataset),
    ``at`` (its setting, JSON ``{dimension: label}``), ``seed``, ``max_gap`` (the largest
    certified gap of a slot of that day, a fraction) and ``slots_hit_limit`` (its slots
    stopped by the node count). Empty where the data hold no gaps."""
    parts = data if isinstance(data, dict) else {"": data}
    rows = []
    for part, ds in parts.items():
        rows += _runs_of(part, ds)
    return pd.DataFrame(rows, columns=["part", "at", "seed", "max_gap", "slots_hit_limit"])


def _runs_of(part: str, ds: xr.Dataset) -> list[dict]:
    """:func:`titan_runs`'s rows of one dataset."""
    if "max_gap" not in ds or "algorithm" not in ds.dims or \
            "titan" not in [str(a) for a in ds["algorithm"].values]:
        return []
    one = ds.isel(constants=0) if "constants" in ds.dims else ds  # Titan ignores them
    gap = one["max_gap"].sel(algorithm="titan", drop=True)
    capped = one["slots_hit_limit"].sel(algorithm="titan", drop=True)
    settings = [d for d in gap.dims if d not in _NOT_SETTINGS]
    gap, capped = gap.transpose(*settings, "seed"), capped.transpose(*settings, "seed")
    rows = []
    for index in np.ndindex(gap.shape):
        g = float(gap.values[index])
        if not np.isfinite(g):  # Titan runs on the costly seeds only
            continue
        at = {d: _label(gap[d].values[i]) for d, i in zip(settings, index[:-1], strict=True)}
        rows.append({"part": part, "at": json.dumps(at), "seed": int(gap["seed"].values[index[-1]]),
                     "max_gap": g, "slots_hit_limit": int(capped.values[index])})
    return rows


def _label(value):
    """A coordinate label as plain JSON (a number stays a number)."""
    return value.item() if hasattr(value, "item") else value


def titan_gaps(data) -> dict:
    """Titan's per-slot solve over the runs behind a figure's data (:func:`titan_runs`):
    ``runs``, ``max_gap`` (the largest certified gap of any slot of any run, a fraction;
    NaN without runs), ``capped`` (the slots stopped at the node count, summed), ``over``
    (the runs whose largest gap exceeds :data:`STANDARD_GAP`) and ``worst`` (the run with
    the largest gap, a row of :func:`titan_runs`; None without runs)."""
    runs = titan_runs(data)
    if runs.empty:
        return {"runs": 0, "max_gap": float("nan"), "capped": 0, "over": 0, "worst": None}
    worst = runs.loc[runs["max_gap"].idxmax()].to_dict()
    return {"runs": len(runs), "max_gap": float(runs["max_gap"].max()),
            "capped": int(runs["slots_hit_limit"].sum()),
            "over": int((runs["max_gap"] > STANDARD_GAP).sum()), "worst": worst}


def run_words(row: dict) -> str:
    """A run as a reader names it: "trace = helios, seed 6" (with its part, if any)."""
    at = json.loads(row["at"]) if isinstance(row["at"], str) else dict(row["at"])
    where = ", ".join(f"{d} = {v}" for d, v in at.items())
    part = f"part {row['part']}: " if row.get("part") else ""
    return f"{part}{where + ', ' if where else ''}seed {int(row['seed'])}"


def worst_runs(data, count: int) -> pd.DataFrame:
    """The ``count`` runs of Titan with the largest per-slot gaps behind a figure's data
    (:func:`titan_runs`' rows, largest first; fewer where fewer ran)."""
    if int(count) < 1:
        raise InputError(f"count must be at least 1, got {count!r}")
    runs = titan_runs(data)
    return runs.sort_values("max_gap", ascending=False, kind="stable").head(int(count)) \
        .reset_index(drop=True)


# ------------------------------------------------------------------ the strict re-run
def strict_sweep(fig, size: str, run: dict, options: dict | None = None) -> Sweep:
    """The sweep that re-runs one of ``fig``'s runs of Titan (a row of
    :func:`titan_runs`) with ``options`` (default :data:`STRICT_OPTIONS`): its part's
    sweep at that setting and seed, Titan alone (pdFTSP's constants and any bound
    dropped), its result kept whole (its per-slot bounds: :func:`task_gaps`)."""
    parts = fig.sweeps(size)
    part = run.get("part") or fig.key
    if part not in parts:
        raise InputError(f"{fig.number}: its data have no part {part!r} ({sorted(parts)}); "
                         "a figure that reads another's runs re-runs them there")
    decl = parts[part].to_dict()
    at = json.loads(run["at"]) if isinstance(run["at"], str) else dict(run["at"])
    axes = {}
    for axis, settings in decl["axes"].items():
        if axis == "constants":
            continue
        if axis not in at:
            raise InputError(f"{fig.number}: the run names no setting of {axis!r}")
        label = str(at[axis])
        kept = ({k: v for k, v in settings.items() if str(k) == label}
                if isinstance(settings, dict) else [v for v in settings if str(v) == label])
        if not kept:
            raise InputError(f"{fig.number}: {axis} has no setting {label!r}")
        axes[axis] = kept
    for key in ("bound", "bound_options", "seed_limit"):
        decl.pop(key, None)
    decl.update(name=f"{fig.key}_titan_strict_{size}", algorithms=["titan"],
                options={"titan": dict(STRICT_OPTIONS if options is None else options)},
                seeds=[int(run["seed"])], axes=axes, keep=True)
    return Sweep.from_dict(decl)


def rerun_worst(fig, size: str = "full", count: int = 3, *, data=None, store=None,
                options: dict | None = None, out_path=STRICT_FILE,
                provenance: dict | None = None) -> pd.DataFrame:
    """Re-run ``fig``'s ``count`` runs of Titan with the largest per-slot gaps
    (:func:`worst_runs` of ``data``, default the figure's data at ``size``) at the strict
    standard (``options``, default :data:`STRICT_OPTIONS`), each a cell of
    :func:`strict_sweep` computed (resumably) in ``store`` (default the book's store's
    sibling ``<size>-titan-strict``). Returns their rows (:func:`read_strict`'s columns)
    and, with ``out_path``, writes them there in place of that figure's rows at ``size``
    (the other rows kept). Each row says when its cell was computed (``made``, UTC) and
    carries ``provenance`` (where it was computed: commit, machine, versions) as columns."""
    check_size(size)
    data = fig.data(size) if data is None else data
    worst = worst_runs(data, count)
    if worst.empty:
        raise InputError(f"{fig.number}: its data hold no run of Titan to re-run")
    store = Path(store) if store is not None else _strict_store(size)
    rows = []
    for run in worst.to_dict("records"):
        sweep = strict_sweep(fig, size, run, options)
        report = run_sweep(sweep, store=store, serial=True, progress=False)
        if report.failed:
            raise RuntimeError(f"{fig.number}: the strict re-run of {run_words(run)} failed: "
                               f"{report.failed[0][1]}")
        (cell,) = cells(sweep)
        record = Store(store).raw(cell.key)
        tasks = task_gaps(Store(store).result(cell.key))
        rows.append({"figure": fig.key, "size": size, "part": run["part"], "at": run["at"],
                     "seed": int(run["seed"]), "gap_before": float(run["max_gap"]),
                     "capped_before": int(run["slots_hit_limit"]), "key": cell.key,
                     "options": json.dumps(sweep.options["titan"], sort_keys=True),
                     "command": COMMAND.format(key=fig.key, size=size, count=count),
                     "made": time.strftime("%Y-%m-%d %H:%M", time.gmtime(
                         (Store(store).done_dir / f"{cell.key}.json").stat().st_mtime)),
                     **{f"provenance {k}": v for k, v in (provenance or {}).items()},
                     "cpu_seconds": float(record.get("cpu_seconds", np.nan)),
                     "wall_seconds": float(record.get("seconds", np.nan)),
                     "task_gap": float(np.nanmax(tasks)) if np.isfinite(tasks).any() else 0.0,
                     **{k: float(v) for k, v in record["metrics"].items()}})
    out = pd.DataFrame(rows)
    if out_path is not None:
        _write(out, Path(out_path))
    return out


def task_gaps(result: xr.Dataset) -> np.ndarray:
    """Each slot's certified gap on Titan's own objective, the tasks it completes, in a
    kept result of Titan (NaN where no task arrived): (B - n) / B, n the tasks the slot
    admits and B the least whole number at or above the slot's bound. The slot's gap
    (``titan_gap``) also counts the cell penalty that picks among schedules of as many
    tasks (:data:`~lorasched.pdftsp.baselines.titan_per_slot.CELL_PENALTY` a cell, less
    than one task in all), so it stays above zero where the tasks are proven optimal;
    as that penalty is under one task, B bounds the tasks."""
    bound = result["titan_lp_bound"].values
    admitted = np.asarray(result["admitted"].values, dtype=bool)
    arrival = np.asarray(result["arrival"].values, dtype=np.int64)
    n = np.bincount(arrival[admitted], minlength=bound.size)[:bound.size].astype(float)
    whole = np.ceil(bound - 1e-6)
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.where(whole > 0, (whole - n) / whole, 0.0)
    return np.where(np.isfinite(bound), np.maximum(gap, 0.0), np.nan)


def _strict_store(size: str) -> Path:
    """Where the strict re-runs keep their cells: a sibling of the book's store."""
    store = default_store(size)
    return store.with_name(f"{store.name}-titan-strict")


def _write(rows: pd.DataFrame, path: Path) -> None:
    """``rows`` into the file at ``path`` in place of its rows of their figure and size."""
    old = read_strict(path)
    if not old.empty:
        mine = old["figure"].isin(rows["figure"]) & old["size"].isin(rows["size"])
        rows = pd.concat([old[~mine], rows], ignore_index=True)
    rows = rows[[*_FILE_COLUMNS, *(c for c in rows.columns if c not in _FILE_COLUMNS)]]
    rows.to_csv(path, index=False)


def read_strict(path=STRICT_FILE, figure: str | None = None,
                size: str | None = None) -> pd.DataFrame:
    """The strict re-runs kept in ``path`` (:func:`rerun_worst`'s rows; empty if there is
    no file), those of ``figure`` and ``size`` where given."""
    path = Path(path)
    if not path.is_file():
        return pd.DataFrame(columns=list(_FILE_COLUMNS))
    rows = pd.read_csv(path, dtype={"part": str, "at": str, "figure": str, "size": str},
                       keep_default_na=False, na_values=[""])
    rows["part"] = rows["part"].fillna("")
    if figure is not None:
        rows = rows[rows["figure"] == figure]
    if size is not None:
        rows = rows[rows["size"] == size]
    return rows.reset_index(drop=True)


def current(fig, size: str, rows: pd.DataFrame, data) -> str:
    """Why the strict re-runs ``rows`` cannot stand in for ``data``'s runs ("" if they
    can): a row whose cell this code would key otherwise (the re-run was made by other
    code), or whose run's gap before is not the gap of that run in ``data`` (the runs it
    re-ran are not these)."""
    runs = titan_runs(data).set_index(["part", "at", "seed"])
    for row in rows.to_dict("records"):
        sweep = strict_sweep(fig, size, row, json.loads(row["options"]))
        if cells(sweep)[0].key != row["key"]:
            return (f"the re-run of {run_words(row)} was made by other code than this "
                    "build's (its cell's key differs)")
        where = (row["part"], row["at"], int(row["seed"]))
        if where not in runs.index or not np.isclose(runs.loc[where, "max_gap"],
                                                     row["gap_before"], rtol=1e-9):
            return (f"the re-run of {run_words(row)} started from another run than this "
                    "build's")
    return ""


def substitute(data, rows: pd.DataFrame):
    """``data`` (a figure's dataset, or its parts) with Titan's metrics at each re-run's
    setting and seed (``rows``: :func:`read_strict`'s) replaced by the re-run's, for
    every pdFTSP constant (Titan ignores them); a copy."""
    if isinstance(data, dict):
        return {p: _substitute(ds, rows[rows["part"] == p]) for p, ds in data.items()}
    return _substitute(data, rows[rows["part"] == ""])


def _substitute(ds: xr.Dataset, rows: pd.DataFrame) -> xr.Dataset:
    out = ds.copy(deep=True)
    for row in rows.to_dict("records"):
        at = {d: v for d, v in json.loads(row["at"]).items()}
        at.update(algorithm="titan", seed=int(row["seed"]))
        for var in out.data_vars:
            if var in row and "algorithm" in out[var].dims:
                out[var].loc[at] = float(row[var])
    return out


def verdict_moves(fig, before, after) -> pd.DataFrame:
    """``fig``'s claims judged on ``before`` and on ``after`` (its data with the strict
    re-runs in place, :func:`substitute`): one row per claim, ``claim``, the variant,
    ``ours`` and ``verdict`` under each (suffixed ``at 1 %`` and ``at 0.01 %``) and
    ``moved`` (True where the verdict differs)."""
    a, b = fig.claims(before), fig.claims(after)
    if len(a) != len(b) or list(a["claim"]) != list(b["claim"]):
        raise InputError(f"{fig.number}: the claims on the strict re-run are not the "
                         "figure's claims")
    variant = fig.variant_column
    out = pd.DataFrame({"claim": a["claim"], variant: a[variant],
                        f"ours at {_pct(STANDARD_GAP)}": a["ours"],
                        f"ours at {_pct(STRICT_REL_GAP)}": b["ours"],
                        f"verdict at {_pct(STANDARD_GAP)}": a["verdict"],
                        f"verdict at {_pct(STRICT_REL_GAP)}": b["verdict"]})
    out["moved"] = a["verdict"].values != b["verdict"].values
    return out.reset_index(drop=True)


# ------------------------------------------------------------------------- the words
#: the name under which the pages quote the largest per-slot gap (as the setting does)
GAP_QUOTE = "Titan: the largest certified gap of a slot, %"


def gaps_text(data) -> str:
    """The line under a figure's claims table: the standard each slot of Titan is asked
    for against the paper's, and over the runs behind the table the largest certified gap
    of a slot (and whose run), the runs with a slot above the standard and the slots the
    node count stopped ("" without runs)."""
    g = titan_gaps(data)
    if not g["runs"]:
        return ""
    standard = _pct(STANDARD_GAP)
    text = (f"Titan behind this table: each slot's mixed-integer program is asked for a "
            f"certified gap of {standard} within {num(_titan.MILP_MAX_NODES)} "
            f"branch-and-bound nodes (lorasched's standard; the paper names Gurobi, whose "
            f"default is {_pct(STRICT_REL_GAP)}). Over its {g['runs']} runs here the largest "
            "certified gap of a slot is "
            + quote(GAP_QUOTE, 100 * g["max_gap"], _data_pct)
            + f" ({run_words(g['worst'])})")
    text += (f"; {g['over']} of the runs ha{'s' if g['over'] == 1 else 've'} a slot above "
             f"{standard}" if g["over"] else f"; no run has a slot above {standard}")
    return text + f", and {_slots(g['capped'])} stopped at the node count."


def strict_text(fig, data, size: str, path=STRICT_FILE) -> str:
    """What the strict re-run of ``fig``'s worst runs at ``size`` found
    (:data:`STRICT_FILE`), in words: their gaps before and after, and whether the claims'
    verdicts move with them in place of the figure's; or that its runs above the standard
    were not re-run, or why the kept re-run does not apply here ("" where no run exceeds
    :data:`STANDARD_GAP` and none was re-run)."""
    g = titan_gaps(data)
    rows = read_strict(path, fig.key, size)
    command = f"`{COMMAND.format(key=fig.key, size=size, count='N')}`"
    if rows.empty:
        if not g["over"]:
            return ""
        return (f"Its runs above {_pct(STANDARD_GAP)} have not been re-run at "
                f"{_pct(STRICT_REL_GAP)} at this size: {command} re-runs the N with the "
                "largest gaps and says whether a verdict moves.")
    stale = current(fig, size, rows, data)
    if stale:
        return (f"A re-run at {_pct(STRICT_REL_GAP)} is kept in the repository, but {stale}, "
                f"so it is not used here; {command} makes it again.")
    moves = verdict_moves(fig, data, substitute(data, rows))
    opts = json.loads(rows["options"].iloc[0])
    stopped = int(rows["slots_hit_limit"].sum())
    before = _and(f"{run_words(r)} ({_data_pct(100 * r['gap_before'])}, "
                  f"{_slots(int(r['capped_before']))} stopped)" for r in rows.to_dict("records"))
    which = ("the run with the largest gap" if len(rows) == 1 else
             f"the {len(rows)} runs with the largest gaps")
    text = (f"Re-run at {_pct(opts['mip_rel_gap'])} within {num(opts['mip_max_nodes'])} "
            f"nodes a slot (`{rows['command'].iloc[0]}`, {num(rows['cpu_seconds'].sum())} "
            f"CPU-s), {which}, {before}, certif{'ies' if len(rows) == 1 else 'y'} at most "
            + quote(f"{fig.number}: Titan's largest per-slot gap re-run at "
                    f"{_pct(opts['mip_rel_gap'])}, %", 100 * rows["max_gap"].max(),
                    _data_pct)
            + f" in a slot ({_data_pct(100 * rows['task_gap'].max())} on the tasks alone: a "
            "slot's gap also counts the cell penalty that picks among schedules of as many tasks), "
            + f"with {_slots(stopped)} stopped at the node count. ")
    moved = moves[moves["moved"]]
    them = "it" if len(rows) == 1 else "them"
    if moved.empty:
        return text + (f"With {them} in place of the figure's runs, each of its {len(moves)} "
                       "claims keeps its verdict.")
    variant = fig.variant_column
    before_col, after_col = [c for c in moves.columns if c.startswith("verdict at")]
    return text + (f"With {them} in place of the figure's runs, {len(moved)} of its "
                   f"{len(moves)} claims change verdict: " + "; ".join(
                       r["claim"] + (f" ({r[variant]})" if r[variant] else "")
                       + f" from {r[before_col]} to {r[after_col]}"
                       for r in moved.to_dict("records")) + ".")
