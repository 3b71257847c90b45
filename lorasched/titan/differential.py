"""TITAN's authors' simulator as a differential oracle: their runs' per-job outputs, kept
as data with their provenance (``traces/titansched/authors_runs``, :func:`authors_run`),
joined job by job with lorasched's run of the same jobs in the authors'-code setup
(:func:`compare`), and what the join finds (:func:`agreement`, :func:`first_divergence`).
The runs and the command lines: :doc:`/reference/titan_data`.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from ..model.errors import InputError
from ..model.traces import trace_dir
from .authors import dataset_index

#: the folder of the authors' runs (one CSV per workload and policy, and ``runs.json``)
RUNS_FOLDER = ("titansched", "authors_runs")
#: the authors' policies run, by the name of their run's file, and lorasched's policy and
#: options that do what their code does (their FAIR objective; their merger: pairs across
#: datasets, the merged job as theirs, ``merge_length="authors"``)
AS_RUN = {
    "srtf": ("srtf", {}),
    "tiresias": ("tiresias", {}),
    "titan_nomerge": ("titan_nomerge", {"objective": "authors_fair"}),
    "titan_merge": ("titan", {"candidates": "cross_dataset", "merge_length": "authors",
                              "objective": "authors_fair"}),
}
#: the relative JCT differences a job is counted as agreeing within
TOLERANCES = (0.01, 0.10)
#: the columns of a run's file that :func:`authors_run` needs
COLUMNS = ("name", "submission_s", "first_start_s", "restarts", "completion_s", "jct_s",
           "num_gpus")


def runs_folder() -> Path:
    """The folder of the authors' runs."""
    return trace_dir().joinpath(*RUNS_FOLDER)


@lru_cache(maxsize=1)
def _index() -> tuple[dict, ...]:
    path = runs_folder() / "runs.json"
    if not path.is_file():
        raise InputError(f"{path}: the authors' runs' index is missing")
    return tuple(json.loads(path.read_text()))


def runs() -> pd.DataFrame:
    """The index of the authors' runs: workload, policy, file, the exact command, the
    repository commit, wall seconds, average JCT and makespan (h) as their result file
    prints them, whether its files are byte for byte the result files committed in their
    repository, and whether its per-job values equal theirs (the number format aside)."""
    keep = ["workload", "policy", "file", "jobs", "avg_jct_h", "makespan_h", "wall_s",
            "matches_committed_result", "commit", "command"]
    return pd.DataFrame([{k: r.get(k) for k in keep} | {
        "equals committed result": r.get("per_job_csv_numerically_equal_to_committed")}
        for r in _index()])


def parse_workload(workload: str) -> tuple[float, str]:
    """``"FM-1.5-vit-large"`` -> ``(1.5, "vit-large")``: the authors' workload's density
    and model."""
    parts = str(workload).split("-", 2)
    if len(parts) != 3 or parts[0] != "FM":
        raise InputError(f"workload must be FM-<density>-<model>, got {workload!r}")
    try:
        density = float(parts[1])
    except ValueError:
        raise InputError(f"workload {workload!r}: density {parts[1]!r} is not a number") \
            from None
    return density, parts[2]


def authors_run(workload: str, policy: str) -> pd.DataFrame:
    """The per-job output of the authors' run of ``policy`` (:data:`AS_RUN`'s keys) on
    ``workload`` (``"FM-1-vit"``): one row per job, seconds from the trace's start."""
    if policy not in AS_RUN:
        raise InputError(f"policy must be one of {list(AS_RUN)}, got {policy!r}")
    row = next((r for r in _index() if r["workload"] == workload and r["policy"] == policy),
               None)
    if row is None:
        have = sorted({r["workload"] for r in _index()})
        raise InputError(f"no authors' run of {policy!r} on {workload!r}; workloads run: "
                         f"{have}")
    frame = pd.read_csv(runs_folder() / row["file"])
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"{row['file']}: columns {missing} missing")
    return frame


def redated(theirs: pd.DataFrame) -> pd.DataFrame:
    """The authors' run with each merged job's completion dated from the merged job's end.

    Their simulator dates a merged pair's completion, for each member, from member A's
    submission (``split_after_complete``: ``completion_time - self.submission_time +
    fm_job.submission_time``, the merged job's submission copied from A, the member whose
    dataset comes first in their list): A's completion is the merged job's end, B's is
    shifted by B's submission less A's, and B's JCT is A's. Here both members complete at
    the merged job's end, each JCT from the member's own submission, as lorasched counts
    it. A run without merged jobs is returned unchanged."""
    if "merged_with" not in theirs.columns or theirs["merged_with"].isna().all():
        return theirs
    out = theirs.copy()
    by_name = out.set_index(out["name"].astype(str))
    for i, row in out[out["merged_with"].notna()].iterrows():
        me, other = str(row["name"]), str(row["merged_with"])
        first = min((me, other), key=lambda n: (dataset_index(str(
            by_name.loc[n, "application"])), n))
        end = float(by_name.loc[first, "completion_s"])
        out.loc[i, "completion_s"] = end
        out.loc[i, "jct_s"] = end - float(row["submission_s"])
    return out


#: how :func:`compare` reads their merged jobs' completions: as their files print them, or
#: dated from the merged job's end (:func:`redated`)
CLOCKS = ("printed", "merged_end")


def compare(theirs: pd.DataFrame, result: xr.Dataset,
            clock: str = "printed") -> pd.DataFrame:
    """The authors' run ``theirs`` (:func:`authors_run`) and lorasched's ``result`` on the
    same jobs, joined by name, in submission order: each job's submission, first start,
    JCT (s) and GPUs requested in both, ``rel``, lorasched's JCT over theirs minus one,
    ``length ratio`` (lorasched's samples over theirs, where their file has them) and
    ``cause``, the named cause of a job that differs (``LENGTH``, ``MERGED``,
    ``START``, ``RUN``). ``clock="merged_end"`` reads their merged jobs' completions from
    the merged job's end (:func:`redated`; a merged job that differs then has its own
    cause, not ``MERGED``). A job missing from either side is an error naming it."""
    if clock not in CLOCKS:
        raise InputError(f"clock must be one of {CLOCKS}, got {clock!r}")
    if clock == "merged_end":
        theirs = redated(theirs)
    ours = pd.DataFrame({"name": result["name"].values.astype(str),
                         "submission_s (ours)": result["submit_s"].values,
                         "first_start_s (ours)": result["start_s"].values,
                         "jct_s (ours)": result["jct_s"].values,
                         "num_gpus (ours)": result["requested_gpus"].values})
    mine = set(ours["name"])
    other = set(theirs["name"].astype(str))
    if mine != other:
        odd = sorted(mine ^ other)
        raise InputError(f"the runs' jobs differ: {len(odd)} job(s) in one run only, e.g. "
                         f"{odd[:3]}")
    table = theirs[list(COLUMNS)].rename(columns={
        c: f"{c} (theirs)" for c in COLUMNS if c != "name"}).merge(ours, on="name")
    table["rel"] = table["jct_s (ours)"] / table["jct_s (theirs)"] - 1.0
    if "max_progress_samples" in theirs.columns:  # each job's length, samples
        samples = pd.Series(result["total_iterations"].values
                            * result["target_batch_size"].values,
                            index=result["name"].values.astype(str))
        theirs_samples = theirs.set_index(theirs["name"].astype(str))["max_progress_samples"]
        table["length ratio"] = (samples[table["name"]].to_numpy()
                                 / theirs_samples[table["name"]].to_numpy())
    if "merge_kind" in theirs.columns and clock == "printed":  # the jobs their run merged
        kind = theirs.set_index(theirs["name"].astype(str))["merge_kind"]
        table["merged (theirs)"] = kind[table["name"]].notna().to_numpy()
    table["cause"] = [_cause(r) for r in table.to_dict("records")]
    return table.sort_values(["submission_s (theirs)", "name"], kind="stable") \
        .reset_index(drop=True)


#: a job's length (samples) counted as the same in both runs within this share
SAME_LENGTH = 0.01
#: the named causes of a job that differs (:func:`compare`'s ``cause``)
LENGTH, MERGED, START, RUN = (
    "its length differs", "their run merged it (their clock dates its completion from the "
    "other member's submission)",
    "it starts at another time", "it runs differently")


def _cause(row: dict) -> str:
    """What tells a job's JCT apart in the two runs, first that applies: its own length
    (the samples its curve and dataset give it), a merge in their run (their simulator
    dates a member's completion from the other member's submission, :func:`redated`),
    its first start (an earlier difference moved it in the queue), else how it ran (GPUs,
    restarts); empty when it agrees within ``TOLERANCES``' first."""
    if abs(row["rel"]) <= TOLERANCES[0]:
        return ""
    if abs(row.get("length ratio", 1.0) - 1.0) > SAME_LENGTH:
        return LENGTH
    if row.get("merged (theirs)", False):
        return MERGED
    if row["first_start_s (ours)"] != row["first_start_s (theirs)"]:
        return START
    return RUN


def agreement(table: pd.DataFrame) -> dict:
    """What :func:`compare`'s ``table`` finds: the jobs, how many agree within each of
    ``TOLERANCES``, and both runs' average JCT and makespan (h: the last completion
    after the first submission)."""
    rel = table["rel"].abs().to_numpy()
    out = {"jobs": len(table)}
    for tol in TOLERANCES:
        out[f"within {100 * tol:g} %"] = int(np.sum(rel <= tol))
    for side in ("theirs", "ours"):
        jct = table[f"jct_s ({side})"].to_numpy(dtype=float)
        submit = table[f"submission_s ({side})"].to_numpy(dtype=float)
        out[f"avg JCT (h, {side})"] = float(jct.mean() / 3600)
        out[f"makespan (h, {side})"] = float(((submit + jct).max() - submit.min()) / 3600)
    return out


def first_divergence(table: pd.DataFrame, tolerance: float = TOLERANCES[0]):
    """The first job, in submission order, whose JCT differs by more than ``tolerance``
    (relative): its row of :func:`compare`'s table, or ``None`` when every job agrees."""
    off = table[table["rel"].abs() > tolerance]
    return None if off.empty else off.iloc[0]


__all__ = ["AS_RUN", "CLOCKS", "COLUMNS", "LENGTH", "MERGED", "RUN", "SAME_LENGTH", "START",
           "TOLERANCES", "agreement", "authors_run", "compare", "first_divergence",
           "parse_workload", "redated", "runs", "runs_folder"]
