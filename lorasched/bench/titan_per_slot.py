"""``lorasched bench titan``: Titan-per-slot's K = 100 high-load day under each per-slot
MILP setting (:data:`lorasched.pdftsp.baselines.titan_per_slot.MIP_SETTINGS`), each run in its own
process by :func:`lorasched.bench.scale.measure`, and the speed page's table and
words about it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pandas as pd

from ..experiments.grid import code_fingerprint
from ..experiments.store import Store
from ..model.errors import InputError
from . import scale

#: the day of the Titan comparison: K = 100, high load, 144 slots
TITAN_DAY = {"kind": "day", "nodes": 100, "load": "high", "algorithm": "titan"}


def titan_settings(settings=("root", "rens_lean", "rens_pscost", "rens", "rounding",
                             "nodes1000"),
                   seeds=(1, 2, 3), *,
                   algorithm: str = "titan", day: dict | None = None, out_path=None,
                   merge: bool = False, progress=print) -> pd.DataFrame:
    """Titan-per-slot's day (:data:`TITAN_DAY`) under each per-slot MILP setting
    (:data:`lorasched.pdftsp.baselines.titan_per_slot.MIP_SETTINGS`) and seed, each in its own
    process: seconds, admitted tasks, welfare, slots at a limit and the certified per-slot
    gap. ``day`` replaces :data:`TITAN_DAY` (tests use a tiny one). Prints the table;
    writes it as JSON to ``out_path`` if given. With ``merge``, the rows of ``out_path``'s
    settings that are not measured now are kept, and its ``notes`` say where and when
    they were measured."""
    day = TITAN_DAY if day is None else day
    kept, notes = [], {}
    if merge and out_path is not None and Path(out_path).is_file():
        old = json.loads(Path(out_path).read_text())
        kept = [r for r in old["rows"] if r["setting"] not in settings]
        for setting in dict.fromkeys(r["setting"] for r in kept):
            before = old.get("notes", {}).get(setting)
            notes[setting] = (f"kept from the run of {old['date']} on {old['machine']['cpu']} "
                              f"(code {old['code']}), not measured again"
                              + (f"; then: {before}" if before else ""))
    rows = []
    for setting in settings:
        for seed in seeds:
            progress(f"  measuring {algorithm} with mip={setting!r}, seed {seed} ...")
            got = scale.measure({**day, "algorithm": algorithm, "seed": int(seed),
                           "options": {"solver": "columns", "mip": setting}})
            rows.append({"setting": setting, "seed": int(seed), **got})
    table = pd.DataFrame(rows)
    cols = ["setting", "seed", "run_seconds", "admitted", "welfare", "slots_hit_limit",
            "gap_mean", "gap_max", "peak_gb"]
    progress(table[[c for c in cols if c in table]].to_string(index=False))
    if out_path is not None:
        Path(out_path).write_text(json.dumps(
            {"machine": scale.machine(), "code": code_fingerprint("pdftsp"),
             "command": "lorasched bench titan",
             "date": time.strftime("%Y-%m-%d %H:%M"), "rows": rows + kept,
             **({"notes": notes} if notes else {})}, indent=1))
    return table


#: the readings of Titan per slot that :func:`titan_gaps` compares: the converged one (the
#: library's default, each slot's compact MILP to a certified 1 % gap, solved in stages),
#: the same MILP solved by HiGHS from its own first incumbent with up to 2,000 nodes a slot
#: (the solve before the stages) and the budget-limited one (10 rounds of column
#: generation, then RENS)
TITAN_READINGS = {"converged": {},
                  "converged, HiGHS alone": {"milp_start": "none", "mip_max_nodes": 2000},
                  "budget-limited": {"solver": "columns", "mip": "rens_lean"}}


def titan_gaps(nodes=(30, 50, 100, 200), seeds=(1,), *, day: dict | None = None,
               readings=tuple(TITAN_READINGS), out_path=None, progress=print) -> pd.DataFrame:
    """Titan-per-slot's day (medium load; ``day`` replaces it, tests use a tiny one) at each
    ``nodes`` and seed under each reading of :data:`TITAN_READINGS`, with pdFTSP's day
    beside it, each in its own process: the certified per-slot gap (median, 90th
    percentile, max), welfare, slots at a limit and CPU seconds. Prints the table; writes
    it as JSON to ``out_path`` if given."""
    base = {"kind": "day", "load": "medium"} if day is None else dict(day)
    rows = []
    for k in nodes:
        for seed in seeds:
            day = {**base, "nodes": int(k), "seed": int(seed)}
            progress(f"  measuring pdFTSP, K = {k}, seed {seed} ...")
            got = scale.measure({**day, "algorithm": "pdftsp"})
            rows.append({"reading": "pdFTSP", "nodes": int(k), "seed": int(seed), **got})
            for reading in readings:
                progress(f"  measuring Titan ({reading}), K = {k}, seed {seed} ...")
                got = scale.measure({**day, "algorithm": "titan",
                                     "options": TITAN_READINGS[reading]})
                rows.append({"reading": reading, "nodes": int(k), "seed": int(seed), **got})
    table = pd.DataFrame(rows)
    cols = ["reading", "nodes", "seed", "cpu_seconds", "welfare", "admitted",
            "slots_hit_limit", "slots_over_gap", "gap_median", "gap_p90", "gap_max", "stages"]
    progress(table[[c for c in cols if c in table]].to_string(index=False))
    if out_path is not None:
        Path(out_path).write_text(json.dumps(
            {"machine": scale.machine(), "code": code_fingerprint("pdftsp"),
             "command": "lorasched bench titan --gaps", "load": base["load"],
             "date": time.strftime("%Y-%m-%d %H:%M"), "rows": rows}, indent=1))
    return table


def titan_cells(store) -> pd.DataFrame:
    """The Titan cells of a sweep store (``lorasched reproduce``'s, e.g. a fresh clone's
    ``build/sweeps/full`` after ``make book``), one row per algorithm and setting: the
    seeds, each day's CPU seconds (least, most, sum), the largest certified gap of any
    slot per seed (%) and the slots stopped by the node count. A setting is named by the
    scenario values in which it differs from the common one (``attrs["common"]``: per
    key, the value most of the store's Titan cells hold)."""
    cells = [r for r in Store(store).done().values()
             if r["params"].get("system") == "pdftsp"
             and str(r["params"].get("algorithm", "")).startswith("titan")]
    if not cells:
        raise InputError(f"no Titan cell in the store {store}")
    common = _common_scenario([r["params"]["scenario"] for r in cells])
    rows = [{"algorithm": r["params"]["algorithm"],
             "setting": ", ".join(f"{k}={v}" for k, v in sorted(r["params"]["scenario"].items())
                                  if common.get(k, object()) != v) or "common",
             "seed": int(r["params"]["seed"]), "cpu_seconds": float(r["cpu_seconds"]),
             "gap_max": 100 * float(r["metrics"].get("max_gap", float("nan"))),
             "slots_hit_limit": int(r["metrics"].get("slots_hit_limit", 0))}
            for r in cells]
    frame = pd.DataFrame(rows).sort_values(["algorithm", "setting", "seed"])
    table = frame.groupby(["algorithm", "setting"], sort=True).agg(
        seeds=("seed", lambda s: " ".join(map(str, s))),
        cpu_min=("cpu_seconds", "min"), cpu_max=("cpu_seconds", "max"),
        cpu_sum=("cpu_seconds", "sum"),
        gap_max=("gap_max", lambda g: " / ".join(f"{v:.2g}" for v in g)),
        slots_hit_limit=("slots_hit_limit", "sum")).reset_index()
    table.attrs["common"] = common
    return table


def _common_scenario(scenarios: list[dict]) -> dict:
    """Per scenario key, the value most of ``scenarios`` hold (the first such in order);
    a key most of them lack is left out."""
    keys = dict.fromkeys(k for s in scenarios for k in s)
    common = {}
    for k in keys:
        values = [json.dumps(s[k], sort_keys=True) if k in s else None for s in scenarios]
        most = max(dict.fromkeys(values), key=values.count)
        if most is not None:
            common[k] = json.loads(most)
    return common


def titan_cells_text(table: pd.DataFrame) -> str:
    """:func:`titan_cells` as printed: the table, then the cells' CPU seconds in all."""
    common = ", ".join(f"{k}={v}" for k, v in sorted(table.attrs.get("common", {}).items()))
    return (f"setting: what differs from the common one ({common})\n"
            + table.to_string(index=False, float_format=lambda v: f"{v:,.0f}")
            + f"\n{int(table['seeds'].str.split().str.len().sum())} Titan cells, "
            f"{table['cpu_sum'].sum():,.0f} CPU-seconds in all")


#: what each setting is, for the book's table
SETTING_NAMES = {"root": "root node only (default)",
                 "rens_lean": "MILP over the LP's fractional columns, pseudo-cost "
                              "branching, small cut pool (the figures')",
                 "rens_pscost": "MILP over the LP's fractional columns, pseudo-cost "
                                "branching (the figures' before)",
                 "rens": "MILP over the LP's fractional columns (the figures' before that)",
                 "rounding": "HiGHS's LP completion (earlier)",
                 "nodes1000": "1000 nodes (default before)"}


def titan_summary(data: dict) -> pd.DataFrame:
    """Per MILP setting of a :func:`titan_settings` JSON: the seeds, and the mean over
    them of the day's seconds, admitted tasks, welfare, slots at a limit and certified
    per-slot gap (mean and worst slot)."""
    rows = pd.DataFrame(data["rows"])
    out = rows.groupby("setting", sort=False).agg(
        seeds=("seed", lambda s: " ".join(str(v) for v in sorted(s))),
        seconds=("run_seconds", "mean"), seconds_max=("run_seconds", "max"),
        admitted=("admitted", "mean"), welfare=("welfare", "mean"),
        slots_hit_limit=("slots_hit_limit", "mean"), gap_mean=("gap_mean", "mean"),
        gap_max=("gap_max", "max"))
    return out


def titan_table(data: dict) -> pd.DataFrame:
    """:func:`titan_summary` as text, one row per setting, for the book."""
    summ = titan_summary(data)
    return pd.DataFrame({
        "setting": [SETTING_NAMES.get(k, k) for k in summ.index],
        "seeds": summ["seeds"],
        "day, s (mean / max)": [f"{a:,.0f} / {b:,.0f}" for a, b in
                                zip(summ["seconds"], summ["seconds_max"], strict=True)],
        "admitted": [f"{v:,.0f}" for v in summ["admitted"]],
        "welfare, USD": [f"{v:,.1f}" for v in summ["welfare"]],
        "slots at a limit": [f"{v:.0f}" for v in summ["slots_hit_limit"]],
        "certified gap, mean / worst slot": [f"{a:.1%} / {b:.1%}" for a, b in
                                             zip(summ["gap_mean"], summ["gap_max"],
                                                 strict=True)],
    }).set_index("setting")


def titan_findings(data: dict) -> str:
    """The comparison in words, every number from ``data``: the default's time against
    the goal (300 s a day), and each other setting's welfare and time against the
    default's on the seeds both ran."""
    rows = pd.DataFrame(data["rows"])
    default = rows[rows["setting"] == "root"].set_index("seed")
    if default.empty:
        return "The default setting (`root`) was not measured."
    goal = scale.GOALS["titan_seconds"]
    worst = default["run_seconds"].max()
    parts = [f"With the default (`mip=\"root\"`), Titan's K = 100 high-load day takes "
             f"{default['run_seconds'].min():,.0f}-{worst:,.0f} s on seeds "
             f"{', '.join(map(str, default.index))}: the goal of {goal} s is "
             + ("met." if worst <= goal else "not met.")]
    for setting in rows["setting"].unique():
        if setting == "root":
            continue
        other = rows[rows["setting"] == setting].set_index("seed")
        seeds = sorted(set(other.index) & set(default.index))
        if not seeds:
            continue
        dw = (other.loc[seeds, "welfare"] / default.loc[seeds, "welfare"] - 1) * 100
        da = other.loc[seeds, "admitted"] - default.loc[seeds, "admitted"]
        ratio = other.loc[seeds, "run_seconds"] / default.loc[seeds, "run_seconds"]
        parts.append(
            f"`{setting}` ({SETTING_NAMES.get(setting, setting)}), on seed"
            f"{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}: welfare "
            f"{dw.min():+.1f} % to {dw.max():+.1f} % and {da.min():+,.0f} to "
            f"{da.max():+,.0f} admitted tasks against the default, in "
            f"{ratio.min():.2g}-{ratio.max():.2g} times its time"
            + (" (one of the two comes from another run, see the header: the time ratio "
               "compares two runs)." if {setting, "root"} & set(data.get("notes", {}))
               else "."))
    parts += [_same_optimum(rows, data.get("notes", {}), new, old)
              for new, old in SAME_OPTIMUM]
    return " ".join(p for p in parts if p)


#: pairs of settings (later, earlier) that solve each slot's sub-MILP to the same optimum
SAME_OPTIMUM = (("rens_lean", "rens_pscost"), ("rens_pscost", "rens"))


def _same_optimum(rows: pd.DataFrame, notes: dict, new: str, old: str) -> str:
    """Setting ``new`` against ``old`` (a pair of :data:`SAME_OPTIMUM`) on the seeds both
    ran, when both were measured in the same run: the same per-slot optimum, so any
    difference in the day comes from which optimal schedule a slot keeps."""
    if {new, old} & set(notes):
        return ""
    got = rows[rows["setting"] == new].set_index("seed")
    before = rows[rows["setting"] == old].set_index("seed")
    seeds = sorted(set(got.index) & set(before.index))
    if not seeds:
        return ""
    ratio = got.loc[seeds, "run_seconds"] / before.loc[seeds, "run_seconds"]
    da = got.loc[seeds, "admitted"] - before.loc[seeds, "admitted"]
    dw = (got.loc[seeds, "welfare"] / before.loc[seeds, "welfare"] - 1) * 100
    return (f"Against `{old}`, measured in the same run, `{new}` takes "
            f"{ratio.min():.2f}-{ratio.max():.2f} times its time on seed"
            f"{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}, with "
            f"{da.min():+,.0f} to {da.max():+,.0f} admitted tasks and welfare "
            f"{dw.min():+.1f} % to {dw.max():+.1f} %: each slot's sub-MILP reaches the same "
            "optimum under both, and the days part where a slot keeps another of its optimal "
            "schedules.")
