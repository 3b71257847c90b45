"""TITAN's flags of ``lorasched simulate``: the workload and cluster of
:func:`.workload.titan_scenario`, the options of TITAN's policies (:mod:`.policies`), and
the line a run prints (:class:`~lorasched.model.flags.Flags`)."""

from __future__ import annotations

from ..model.flags import Flag, Flags, Run, positive_int
from .lut import GPUS


def describe(run: Run) -> str:
    """The line of one run: the workload and cluster, JCT, makespan, merging, MILP solves."""
    a, result = run.result.attrs, run.result
    solves = result.sizes["decision"]
    return (f"{run.algorithm}: {a['n_jobs']} jobs ({run.values['workload']} workload, density "
            f"{run.values['density']:g}, {a['model']} on {a['gpus']} {a['gpu']} GPUs), seed "
            f"{run.seed}: average JCT {a['avg_jct_h']:.3f} h, makespan {a['makespan_h']:.2f} h, "
            f"setup {a.get('setup', 'paper')}, {a['n_merged_jobs']} jobs merged, "
            f"{a['switch_h']:.2f} GPU-h switching, {solves} MILP solves"
            + (f" (mean {result['solve_s'].values.mean() * 1e3:.1f} ms, max "
               f"{result['solve_s'].values.max() * 1e3:.1f} ms)" if solves else ""))


FLAGS = Flags(scenario="a fine-tuning workload", flags=(
    Flag("--nodes", "16 nodes x 4 GPUs", type=positive_int, topic="GPU nodes"),
    Flag("--gpu", "the LUT's GPU, V100", choices=GPUS, topic="node type"),
    Flag("--trace", "helios for the Helios-derived workload (default: the authors' workload)",
         parameter="workload", choices=("helios",)),
    Flag("--jobs", "jobs at density 1 of the helios workload (320)", type=positive_int),
    Flag("--density", "workload density: 0.5, 1, 1.5, 2 (1)", type=float, default=1.0),
    Flag("--model", "the LUT's model: vit, vit-large, roberta-base, roberta-large",
         default="vit-large"),
    Flag("--gpus-per-node", "(4)", type=positive_int, default=4),
    Flag("--preemptive", "TITAN re-allocates running jobs at each event (the authors' later "
         "code); default non-preemptive, as the paper", action="store_true"),
    Flag("--candidates", "merge candidate sets (pairs)",
         choices=("pairs", "all_pairs", "application", "cross_dataset")),
    Flag("--constraints", "reading of the merger's constraints (9)-(10) (pairwise)",
         choices=("pairwise", "literal")),
    Flag("--setup", "paper (16 x 4 GPUs, event-driven; default) or authors_code (the TITAN "
         "authors' simulator: 8 x 4 GPUs, ticks of 120/300 s, measured restarts plus a "
         "checkpoint, jobs up to 32 GPUs, TITAN preemptive)", choices=("paper", "authors_code")),
    Flag("--ckpt-s", "authors_code: checkpoint seconds added to every start (30)", type=float),
    Flag("--oversize", "a job requesting more GPUs than the cluster has: an error (default), "
         "its request capped at the cluster's GPUs, or dropped", choices=("error", "cap", "drop")),
    Flag("--objective", "TITAN's MILP objective: eq. (1) (paper) or the authors' code's FAIR "
         "(authors_fair, with --algorithm titan-nomerge)", choices=("paper", "authors_fair")),
    Flag("--progress", "finished jobs", action="store_true", default=False,
         topic="show a progress bar"),
), describe=describe)
