"""The length of TITAN's merged job (SoCC'22 sec. 4.2, Table 2): the iterations a job
merged from several runs, by the authors' fitted law or another reading
(:doc:`/titan_model`); :class:`~lorasched.titan.cluster.TitanCluster` runs the authors'
code's own merged job."""

from __future__ import annotations

import math

import numpy as np

from ..model.errors import InputError

#: the authors' fitted law of iterations against dataset scale S (samples), first commit:
#: iterations = P0 + P1 * ln(S) (fit.py on three points; used for merged jobs' length)
LOG_LAW = (-6761.0, 2327.0)
#: how a merged job's length is computed, see merged_iterations
MERGE_LENGTHS = ("log", "sum", "first", "authors")


def merged_iterations(iterations, scale, rule: str = "log") -> float:
    """Iterations of the merged job of members with ``iterations`` and dataset ``scale``.

    ``"log"`` (default): the authors' law that iterations grow with the log of the dataset
    scale, L(S) = P0 + P1 ln S (:data:`LOG_LAW`), applied to the summed scale relative to
    the longest member: ``N_max * L(sum S) / L(S of N_max)``; two jobs on one dataset of
    75,000 samples (imagenet-split-1) then take about 8 % longer merged than the longer
    one alone. ``"sum"``:
    the merged job does all the members' iterations (no saving; merging then helps only by
    packing). ``"first"``: the first member's iterations alone, whatever the others'. The
    paper gives no formula; its Table 2 only shows merged durations. ``"authors"``, the
    authors' code (``MtaskFoundationModelJob`` at f71cf44), needs the members' batches:
    :class:`~lorasched.titan.cluster.TitanCluster` runs a pair so (job A, of the dataset
    earlier in their list, its samples at the two batches summed); here it raises.
    """
    it = np.asarray(iterations, dtype=float)
    sc = np.asarray(scale, dtype=float)
    if rule == "sum":
        return float(it.sum())
    if rule == "first":  # the first member's length alone
        return float(it[0])
    if rule == "authors":
        raise InputError("merge_length='authors' needs the members' batches and the "
                         "authors' dataset order: TitanCluster on a scenario of setup "
                         "'authors_code' runs it")
    if rule != "log":
        raise InputError(f"merge_length must be one of {MERGE_LENGTHS}, got {rule!r}")
    longest = int(np.argmax(it))
    p0, p1 = LOG_LAW
    law = p0 + p1 * math.log(float(sc.sum()))
    base = p0 + p1 * math.log(float(sc[longest]))
    if base <= 0:  # scale below the law's range: fall back to proportional scaling
        return float(it[longest] * sc.sum() / sc[longest])
    return float(it[longest] * law / base)


__all__ = ["LOG_LAW", "MERGE_LENGTHS", "merged_iterations"]
