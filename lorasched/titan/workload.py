"""TITAN's scenarios (sec. 5) built: :func:`titan_scenario` from the authors' workloads
(``lorasched.titan.authors``) or a Helios day (``lorasched.titan.helios``) with the LUT's
step times, and :func:`build` from a job table and a LUT of one's own; each validated by
:func:`lorasched.titan.scenario.validate`. The variables: :doc:`/reference/titan_data`.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import xarray as xr

from ..model import limits
from ..model.errors import InputError
from .authors import dataset_index, load_workload
from .helios import helios_workload
from .lut import (
    MICRO_BATCH,
    estimated_step_time,
    load_lut,
    measured_gpus,
    step_time,
    with_scalability,
)
from .milp import allocation_set
from .scenario import SETUPS, validate

#: The workloads :func:`titan_scenario` builds.
WORKLOADS = ("authors", "helios")
#: the authors' code: nodes of its cluster and the largest job (run/exp_cluster, f71cf44)
AUTHORS_NODES, AUTHORS_MAX_JOB_GPUS = 8, 32
#: the authors' code's checkpoint cost added to every start and restart (``add_ckpt``)
AUTHORS_CKPT_S = 30.0


def titan_scenario(workload: str = "authors", density: float = 1.0, jobs: int | None = None,
                   model: str = "vit-large", gpu: str | None = None, nodes: int | None = None,
                   gpus_per_node: int = 4, seed: int = 0, setup: str = "paper",
                   ckpt_s: float | None = None, oversize: str = "error",
                   lut: xr.Dataset | None = None, target: str | None = None,
                   micro_batch: str | None = None) -> xr.Dataset:
    """A TITAN scenario: a pool of GPUs and fine-tuning jobs (the module docstring).

    Parameters
    ----------
    workload : {"authors", "helios"}, optional
        ``"authors"`` (default): TITAN's authors' workload ``FM-{density}-{model}``
        (``lorasched.titan.authors.load_workload``; shipped densities 1, 1.5, 2; density
        0.5 keeps a seeded random half of FM-1's jobs, lorasched's substitute, since the
        authors published no such file, so only that density depends on the seed).
        ``"helios"``: ``jobs x density`` jobs drawn from Helios Venus with GPU time
        converted to dataset scale (``lorasched.titan.helios.helios_workload``).
    density : float, optional
        Workload density (the paper's Fig. 5: 0.5, 1, 1.5, 2; default 1).
    jobs : int, optional
        Jobs at density 1. ``"helios"``: default 320, the paper's. ``"authors"``: default
        None, the file's own count (160 x density for ViT-L); a number draws ``jobs x
        density`` of the file's jobs at random (seeded; the small book build uses it).
    model, gpu : str, optional
        The LUT (``vit-large`` on ``V100`` by default: the paper's ViT-Large/16 and its
        cluster's V100 GPUs); with ``lut``, ``model`` names the workload's model and must be
        the LUT's, and ``gpu`` is the LUT's (given, it must match).
    nodes, gpus_per_node : int, optional
        The cluster (default: the setup's; paper 16 x 4 = 64 GPUs, authors' code 8 x 4).
    seed : int, optional
        Seeds the draw of the helios jobs and of the density-0.5 half (default 0).
    setup : {"paper", "authors_code"}, optional
        The paper's setup (default) or the TITAN authors' simulator's (module docstring).
    ckpt_s : float, optional
        ``"authors_code"`` only: the checkpoint seconds added to every start (default 30).
    oversize : {"error", "cap", "drop"}, optional
        A job that requests more GPUs than the cluster has: an error naming it (default),
        its request lowered to the cluster's GPUs (``"cap"``; the request is what the
        baselines run on, TITAN chooses its own allocation), or the job left out
        (``"drop"``). The attribute ``oversize_jobs`` counts the jobs capped or dropped.
        With ``lut``, a job requesting more GPUs than the LUT's largest measured placement
        counts as oversize too.
    lut : xarray.Dataset, optional
        A LUT of the user's own measurements (``lorasched.titan.lut.from_frames``, e.g.
        measured on one GPU by ``lorasched profile``: ``lorasched.profiling.table.titan_lut``)
        in place of the authors' ``load_lut(gpu, model)``; ``setup="paper"`` only. TITAN is
        offered the allocations the LUT measures, and the helios workload caps requests at
        its largest (:doc:`/reference/titan_data`).
    target : {"exact", "authors"}, optional
        ``workload="authors"``: how the workload file's target metrics are read
        (``lorasched.titan.authors.load_workload``; default: the setup's, ``"exact"`` for
        the paper's, ``"authors"``, their simulator's pandas 1.x reading, for
        ``"authors_code"``).
    micro_batch : {"ceil", "floor"}, optional
        How a step's per-GPU micro-batch is rounded (``lorasched.titan.lut.step_time``;
        default: the setup's, ``"ceil"`` for the paper's, ``"floor"``, their simulator's,
        for ``"authors_code"``).

    Returns
    -------
    xarray.Dataset
        The validated scenario (:func:`lorasched.titan.scenario.validate`),
        ``attrs["system"] == "titan"``.

    Raises
    ------
    InputError
        Naming the first argument out of its choices or range, a job that requests more
        GPUs than the cluster has or, with ``lut``, than the LUT measures
        (``oversize="error"``), a ``lut`` whose model or GPU differs from ``model`` or
        ``gpu``, or a LUT without the measured context switch ``setup="authors_code"``
        needs.
    """
    if oversize not in OVERSIZE:
        raise InputError(f"oversize must be one of {OVERSIZE}, got {oversize!r}")
    if setup not in SETUPS:
        raise InputError(f"setup must be one of {SETUPS}, got {setup!r}")
    if ckpt_s is not None and setup != "authors_code":
        raise InputError("ckpt_s applies to setup='authors_code' only")
    if ckpt_s is None:
        ckpt_s = AUTHORS_CKPT_S
    theirs = setup == "authors_code"
    target = ("authors" if theirs else "exact") if target is None else target
    micro_batch = ("floor" if theirs else "ceil") if micro_batch is None else micro_batch
    if micro_batch not in MICRO_BATCH:
        raise InputError(f"micro_batch must be one of {MICRO_BATCH}, got {micro_batch!r}")
    if (isinstance(ckpt_s, bool) or not isinstance(ckpt_s, numbers.Real)
            or not math.isfinite(ckpt_s) or ckpt_s < 0):
        raise InputError(f"ckpt_s must be a non-negative number of seconds, got {ckpt_s!r}")
    if nodes is None:
        nodes = AUTHORS_NODES if setup == "authors_code" else 16
    for name, value in (("nodes", nodes), ("gpus_per_node", gpus_per_node)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
            raise InputError(f"{name} must be a positive integer, got {value!r}")
    limits.at_most([nodes * gpus_per_node], limits.MAX_GPUS, "nodes x gpus_per_node",
                   lambda i: f"{nodes} x {gpus_per_node} GPUs")
    if workload not in WORKLOADS:
        raise InputError(f"workload must be one of {WORKLOADS}, got {workload!r}")
    if (isinstance(density, bool) or not isinstance(density, numbers.Real)
            or not math.isfinite(density) or density <= 0):
        raise InputError(f"density must be a positive number, got {density!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise InputError(f"seed must be an integer, got {seed!r}")
    if lut is None:
        gpu = "V100" if gpu is None else gpu
        lut, most = load_lut(gpu, model), None
    else:
        gpu, most = _given_lut(lut, model, gpu, setup)
    if workload == "helios":
        ds = helios_workload(jobs=320 if jobs is None else jobs, density=density,
                             model=model, gpu=gpu, seed=int(seed), lut=lut)
    else:
        ds = _authors(density, model, int(seed), jobs, target)
    if setup == "paper":
        ds = _fit(ds, nodes * gpus_per_node, oversize, most)
        return build(ds, lut, nodes * gpus_per_node, micro_batch=micro_batch,
                     nodes=int(nodes),
                     gpus_per_node=int(gpus_per_node), workload=workload,
                     density=float(density), seed=int(seed),
                     oversize_jobs=int(ds.attrs.get("oversize_jobs", 0)))
    if "context_switch_s" not in lut:
        raise InputError(f"setup='authors_code' needs the measured context switch of "
                         f"{model!r} on {gpu} ({model}_context_switch.csv)")
    switch = float(lut["context_switch_s"].max())
    M = nodes * gpus_per_node
    if gpus_per_node == 4:
        lut = with_scalability(lut, min(nodes, -(-AUTHORS_MAX_JOB_GPUS // 4)))
    allocs = authors_allocation_set(M)
    ds = _fit(ds, M, oversize)
    return build(ds, lut, M, allocations=allocs, job_cap=AUTHORS_MAX_JOB_GPUS,
                 micro_batch=micro_batch, estimated_widths=True, authors_merger=True,
                 oversize_jobs=int(ds.attrs.get("oversize_jobs", 0)),
                 nodes=int(nodes), gpus_per_node=int(gpus_per_node), workload=workload,
                 density=float(density), seed=int(seed), setup=setup,
                 context_switch_s=switch, ckpt_s=float(ckpt_s),
                 restart_s=switch + float(ckpt_s))


#: What :func:`titan_scenario` does with a job that requests more GPUs than the cluster has.
OVERSIZE = ("error", "cap", "drop")


def _given_lut(lut, model: str, gpu: str | None, setup: str) -> tuple[str, int]:
    """The GPU of a user's ``lut`` and its largest measured GPU count, after checking that
    it is a LUT of ``model`` (and of ``gpu`` if given) and that ``setup`` is the paper's."""
    if not isinstance(lut, xr.Dataset):
        raise InputError(f"lut must be an xarray.Dataset from load_lut/from_frames, got "
                         f"{type(lut).__name__}")
    if setup != "paper":
        raise InputError("lut applies to setup='paper' only (setup='authors_code' reads the "
                         "authors' context switch and scalability tables of their GPUs)")
    most = measured_gpus(lut)[-1]
    own_model, own_gpu = lut.attrs.get("model"), lut.attrs.get("gpu")
    if own_model != model:
        raise InputError(f"lut measures model {own_model!r} but model={model!r} names the "
                         "workload's; they must agree")
    if gpu is not None and gpu != own_gpu:
        raise InputError(f"lut measures gpu {own_gpu!r} but gpu={gpu!r}; leave gpu out "
                         "with lut")
    return own_gpu, most


def _fit(ds: xr.Dataset, gpus: int, oversize: str, most: int | None = None) -> xr.Dataset:
    """The job table with the jobs that request more than ``gpus`` GPUs, or than ``most``
    (the largest placement of a user's LUT) if given, capped or dropped (``oversize``;
    ``"error"`` leaves the cluster's excess to :func:`build`, which names the first)."""
    requested = ds["requested_gpus"].values
    limit = gpus if most is None else min(gpus, most)
    over = requested > limit
    if oversize == "error" and most is not None and (requested > most).any():
        j = int(np.flatnonzero(requested > most)[0])
        raise InputError(f"job {j} ({ds['name'].values[j]!r}): 'requested_gpus' = "
                         f"{requested[j]} exceeds the {most} GPU(s) of the largest placement "
                         f"the lut measures (oversize='cap' lowers such requests to "
                         f"{limit}, 'drop' leaves the jobs out)")
    if oversize == "error" or not over.any():
        return ds
    if oversize == "cap":
        ds = ds.copy()
        ds["requested_gpus"] = ("job", np.minimum(requested, limit).astype(requested.dtype))
    else:
        if over.all():
            what = (f"the cluster's {gpus} GPUs" if most is None else
                    f"{limit} GPU(s), what the cluster and the lut's placements allow")
            raise InputError(f"oversize='drop': every job requests more than {what}; none "
                             "is left")
        ds = ds.isel(job=np.flatnonzero(~over)).assign_coords(job=np.arange(int((~over).sum())))
    ds.attrs["oversize_jobs"] = int(over.sum())
    return ds


def authors_allocation_set(max_gpus: int) -> tuple[int, ...]:
    """The authors' code's allocations ``{1, 2, 3} u {4m}`` up to ``max_gpus``
    (``titan_utils.create_candidate_allocations``; 0, no allocation, aside)."""
    return tuple(a for a in (1, 2, 3) if a <= max_gpus) + tuple(range(4, max_gpus + 1, 4))


def _authors(density: float, model: str, seed: int, jobs: int | None,
             target: str = "exact") -> xr.Dataset:
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral)
                             or jobs < 1):
        raise InputError(f"jobs must be a positive integer or None, got {jobs!r}")
    half = math.isclose(density, 0.5)
    full = load_workload(1 if half else density, model, target=target)
    n = full.sizes["job"]
    keep = round(n / 2) if half else n
    if jobs is not None:
        want = round(jobs * density)
        if want > keep:
            raise InputError(f"jobs: {jobs} x density {density:g} = {want} jobs, but the "
                             f"authors' workload has {keep} at that density")
        keep = want
    if keep == n:
        return full
    pick = np.sort(np.random.default_rng(seed).choice(n, size=keep, replace=False))
    ds = full.isel(job=pick).assign_coords(job=np.arange(keep))
    ds.attrs.update(density=float(density), source=full.attrs["source"] + f"; {keep} of its "
                    f"{n} jobs drawn at random (lorasched, seed {seed})")
    return ds


def _estimated_widths(lut, batches, gpus: int, smallest: int, job_cap, micro_batch):
    """(B, gpus) the authors' estimate of seconds per iteration at each width 1..``gpus``
    for each batch; NaN past the job cap or where the LUT has no such placement."""
    out = np.full((len(batches), gpus), np.nan)
    measured = set(measured_gpus(lut))
    for b, bs in enumerate(np.asarray(batches).tolist()):
        cap = gpus if job_cap is None else min(job_cap, bs // smallest)
        for w in range(1, min(cap, gpus) + 1):
            if w in measured:
                try:
                    out[b, w - 1] = estimated_step_time(lut, w, bs, micro_batch=micro_batch)
                except ValueError:  # local batch outside the measured range
                    pass
    return out


def build(ds: xr.Dataset, lut: xr.Dataset, gpus: int, *, allocations=None,
          job_cap: int | None = None, micro_batch: str = "ceil",
          estimated_widths: bool = False, authors_merger: bool = False,
          **attrs) -> xr.Dataset:
    """A scenario from a job table ``ds`` (the variables of
    ``lorasched.titan.authors.load_workload``: ``name``, ``application``, ``submit_s``,
    ``requested_gpus``, ``target_batch_size``, ``total_iterations``,
    ``samples_per_epoch``) and a LUT, on ``gpus`` GPUs; use it for your own jobs and
    measurements. ``allocations`` (default the paper's set up to ``gpus``) and ``job_cap``
    (the authors' rule: no allocation above ``min(job_cap, batch // smallest measured local
    batch)``) shape ``iter_s``, ``micro_batch`` rounds each step's micro-batch
    (``lorasched.titan.lut.step_time``), ``estimated_widths`` adds
    ``estimated_width_s``, the authors' estimate at every width 1..``gpus``
    (``lorasched.titan.lut.estimated_step_time``), ``authors_merger`` adds the rows of
    every sum of two of the jobs' batches (the batch the authors' code runs a merged pair
    at) and each job's ``dataset_index`` (``lorasched.titan.authors.dataset_index``);
    ``attrs`` are added to the scenario's."""
    for var in ("name", "application", "submit_s", "requested_gpus", "target_batch_size",
                "total_iterations", "samples_per_epoch"):
        if var not in ds:
            raise InputError(f"job table has no {var!r}")
    requested = ds["requested_gpus"].values.astype(np.int64)
    names = ds["name"].values
    over = np.flatnonzero(requested > gpus)
    if over.size:
        j = int(over[0])
        raise InputError(f"job {j} ({names[j]!r}): 'requested_gpus' = {requested[j]} exceeds "
                         f"the cluster's {gpus} GPUs (oversize='cap' lowers such requests "
                         "to the cluster's GPUs, 'drop' leaves the jobs out)")
    batch = ds["target_batch_size"].values.astype(np.int64)
    batches, batch_id = np.unique(batch, return_inverse=True)
    if authors_merger:  # the merged pairs' batches too (rows no job points at)
        batches = np.unique(np.r_[batches, (batches[:, None] + batches[None, :]).ravel()])
        batch_id = np.searchsorted(batches, batch)
    measured = set(lut["gpus"].values.tolist())
    allocs = np.array(allocation_set(gpus) if allocations is None else allocations,
                      dtype=np.int64)
    smallest = int(lut["local_bsz"].values.min())
    iter_s = np.full((batches.size, allocs.size), np.nan)
    for b, bs in enumerate(batches.tolist()):
        cap = math.inf if job_cap is None else min(job_cap, bs // smallest)
        for c, a in enumerate(allocs.tolist()):
            if a in measured and a <= cap:
                try:
                    iter_s[b, c] = step_time(lut, a, bs, micro_batch=micro_batch)
                except ValueError:  # local batch outside the measured range: not offered
                    pass
    req_s, est_s = np.empty(requested.size), np.empty(requested.size)
    for j, (g, bs) in enumerate(zip(requested.tolist(), batch.tolist(), strict=True)):
        try:
            req_s[j] = step_time(lut, g, bs, micro_batch=micro_batch)
            est_s[j] = estimated_step_time(lut, g, bs, micro_batch=micro_batch)
        except ValueError as err:
            raise InputError(f"job {j} ({names[j]!r}): no step time for its "
                             f"requested_gpus={g} at batch {bs}: {err}") from None
    apps, app_id = np.unique(ds["application"].values.astype(str), return_inverse=True)
    extra = {}
    if authors_merger:
        extra["dataset_index"] = ("job", np.array(
            [dataset_index(x) for x in ds["application"].values.astype(str)], dtype=np.int64),
            {"long_name": "the dataset's place in the authors' code's list "
             "(lorasched.titan.authors.dataset_index)"})
    if estimated_widths:
        extra["estimated_width_s"] = (("batch", "width"), _estimated_widths(
            lut, batches, gpus, smallest, job_cap, micro_batch), {
            "units": "s per iteration", "long_name": "the authors' simulator's estimate at "
            "each width (lorasched.titan.lut.estimated_step_time)"})
    out = xr.Dataset(
        {
            "name": ("job", names.astype(object)),
            "application": ("job", ds["application"].values.astype(object)),
            "app_id": ("job", app_id.astype(np.int64)),
            "submit_s": ("job", ds["submit_s"].values.astype(float), {"units": "s"}),
            "requested_gpus": ("job", requested),
            "target_batch_size": ("job", batch),
            "batch_id": ("job", batch_id.astype(np.int64)),
            "total_iterations": ("job", ds["total_iterations"].values.astype(np.int64)),
            "samples_per_epoch": ("job", ds["samples_per_epoch"].values.astype(float)),
            "requested_iter_s": ("job", req_s, {"units": "s per iteration"}),
            "estimated_iter_s": ("job", est_s, {
                "units": "s per iteration", "long_name": "the authors' simulator's "
                "estimate on the requested GPUs (lorasched.titan.lut.estimated_step_time)"}),
            "iter_s": (("batch", "allocation"), iter_s,
                       {"units": "s per iteration", "long_name": "LUT step time"}),
            **extra,
        },
        coords={"job": np.arange(requested.size), "batch": batches,
                "allocation": allocs, "app": ("app", apps.astype(object)),
                **({"width": np.arange(1, gpus + 1)} if estimated_widths else {})},
        attrs={"system": "titan", "gpus": int(gpus), "gpu": lut.attrs.get("gpu", ""),
               "model": lut.attrs.get("model", ""),
               "source": ds.attrs.get("source", ""), "lut_source": lut.attrs.get("source", ""),
               "micro_batch": micro_batch, **attrs},
    )
    validate(out)
    return out
