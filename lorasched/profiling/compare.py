"""Measured tables beside published numbers: the spread over repeats (:func:`spread`), the
ratio to the published GPT-2 XL model per configuration (:func:`against_published`), the
gain of several adapters on one base model (:func:`adapter_scaling`) beside the
multi-adapter systems' published gains (:data:`PUBLISHED_MULTI_ADAPTER`), and runs on
measured against published speeds (:func:`pdftsp_days`, :func:`titan_runs`,
:func:`allpass_runs`). See
:doc:`/reference/gpu_profiles`.
"""

from __future__ import annotations

import pandas as pd

from ..allpass.workload import PER_EPOCH_S, allpass_scenario
from ..model.errors import InputError
from ..model.profiles import PUBLISHED_MULTI_ADAPTER as PUBLISHED_MULTI_ADAPTER  # the H200 page
from ..model.traces import trace_dir
from ..pdftsp.workload import synthetic_scenario
from ..systems import simulate
from ..titan.workload import titan_scenario
from . import table as measured
from .harness import Config, PublishedWorkload

#: the folder of the shipped measured tables
PROFILES = trace_dir() / "profiles"

def shipped(label: str = "H200") -> dict[str, measured.MeasuredTable]:
    """The shipped measured tables of GPU ``label`` (``traces/profiles/<label>-*.csv``), by
    model."""
    paths = sorted(PROFILES.glob(f"{label}-*.csv"))
    if not paths:
        raise InputError(f"no measured tables of {label!r} in {PROFILES}")
    tables = {}
    for path in paths:
        t = measured.read(path)
        tables[t.rows[0]["model"]] = t
    return tables


def frame(table: measured.MeasuredTable) -> pd.DataFrame:
    """The table's rows as a DataFrame, with ``spread``: (slowest - fastest) / median block
    step time."""
    df = pd.DataFrame(table.rows)
    df["spread"] = (df["step_time_max_s"] - df["step_time_min_s"]) / df["step_time_s"]
    return df


def spread(tables: dict[str, measured.MeasuredTable]) -> pd.DataFrame:
    """Per model: configurations, repeats, and the median and largest spread over repeats."""
    rows = []
    for model, t in tables.items():
        df = frame(t)
        rows.append({"model": model, "configurations": len(df),
                     "repeats": int(df["repeats"].min()),
                     "median spread": float(df["spread"].median()),
                     "largest spread": float(df["spread"].max()),
                     "did not fit": len(t.skipped)})
    return pd.DataFrame(rows)


def against_published(table: measured.MeasuredTable, gpu: str = "A100") -> pd.DataFrame:
    """GPT-2 XL's measured rows beside the published model on ``gpu`` (``A100`` or ``A40``:
    :class:`~lorasched.profiling.harness.PublishedWorkload`), per configuration: samples
    per second and memory (GB), measured and published, and their ratios."""
    rows = []
    for r in table.rows:
        if r["model"] != "gpt2-xl":
            raise InputError(f"the published model is GPT-2 XL's; this table is {r['model']}")
        config = Config("gpt2-xl", gpu, r["rank"], r["micro_batch"], r["seq_len"],
                        r["adapters"])
        p = PublishedWorkload(config)
        published_sps = r["adapters"] * r["micro_batch"] / p.step_s
        rows.append({"rank": r["rank"], "micro_batch": r["micro_batch"],
                     "adapters": r["adapters"], "samples/s measured": r["samples_per_s"],
                     f"samples/s published {gpu}": published_sps,
                     "speed ratio": r["samples_per_s"] / published_sps,
                     "memory GB measured": r["peak_memory_gb"],
                     f"memory GB published {gpu}": p.memory_gb,
                     "memory ratio": r["peak_memory_gb"] / p.memory_gb})
    return pd.DataFrame(rows)


def adapter_scaling(table: measured.MeasuredTable, rank: int = 16) -> pd.DataFrame:
    """Samples per second with 2, 4, 8 adapters sharing the base model over one adapter,
    at the same micro-batch, sequence length and ``rank``: the gain of sharing (1: none)."""
    df = frame(table)
    df = df[df["rank"] == rank]
    one = df[df["adapters"] == 1].set_index(["seq_len", "micro_batch"])["samples_per_s"]
    rows = []
    for r in df[df["adapters"] > 1].itertuples():
        key = (r.seq_len, r.micro_batch)
        if key in one.index:
            rows.append({"model": r.model, "seq_len": r.seq_len, "micro_batch": r.micro_batch,
                         "adapters": r.adapters, "samples/s": r.samples_per_s,
                         "samples/s, 1 adapter": float(one[key]),
                         "gain": r.samples_per_s / float(one[key])})
    return pd.DataFrame(rows)


def pdftsp_days(node, *, nodes: int = 20, load="high", seed: int = 1,
                policy: str = "pdftsp") -> pd.DataFrame:
    """One synthetic pdFTSP day (:func:`lorasched.synthetic_scenario`, same seed) on
    ``nodes`` nodes of the published model's A100s, of its A100/A40 mix, and of the
    measured GPU ``node`` (a :class:`~lorasched.pdftsp.node_profile.NodeProfile`), run by
    ``policy``: tasks, admitted, welfare, the load factor and the node's C_kp."""
    rows = []
    for name, options in ((f"published {PUBLISHED_GPU}", {"gpu": PUBLISHED_GPU}),
                          ("published A100/A40 mix", {"gpu": "mix"}),
                          (f"measured {node.label}", {"measured_gpu": node})):
        scenario = synthetic_scenario(nodes=nodes, load=load, seed=seed, **options)
        result = simulate(scenario, policy, seed=seed)
        a = result.attrs
        rows.append({"cluster": name, "tasks": a["n_tasks"], "admitted": a["n_admitted"],
                     "welfare": a["welfare"],
                     "load factor": scenario.attrs["load_factor"],
                     "C_kp (samples per slot)": int(scenario["compute_capacity"].max())})
    return pd.DataFrame(rows)


#: the published model's GPU the measured one is put beside
PUBLISHED_GPU = "A100"


def titan_runs(lut, *, jobs: int = 16, nodes: int = 1, seed: int = 0,
               policies=("titan", "srtf")) -> pd.DataFrame:
    """TITAN's authors' FM-1 workload (``jobs`` drawn with ``seed``) on ``nodes`` x 4 GPUs,
    the jobs a one-GPU LUT can run (those requesting one GPU), on the measured ``lut`` and
    on the authors' LUT of the same model (V100) for the same jobs: average JCT (h) per
    policy."""
    measured_s = titan_scenario(lut=lut, oversize="drop", jobs=jobs, nodes=nodes, seed=seed,
                                model=lut.attrs["model"])
    authors = titan_scenario(gpu="V100", oversize="drop", jobs=jobs, nodes=nodes, seed=seed,
                             model=lut.attrs["model"])
    authors = authors.isel(job=authors["name"].isin(measured_s["name"].values).values)
    rows = []
    for policy in policies:
        for name, scenario in ((f"authors' LUT ({authors.attrs['gpu']})", authors),
                               (f"measured LUT ({lut.attrs['gpu']})", measured_s)):
            result = simulate(scenario, policy, seed=seed)
            rows.append({"policy": policy, "LUT": name, "jobs": result.attrs["n_jobs"],
                         "average JCT (h)": result.attrs["avg_jct_h"],
                         "makespan (h)": result.attrs["makespan_h"]})
    return pd.DataFrame(rows)


def allpass_epochs(per_epoch_s: dict) -> pd.DataFrame:
    """Per Allpass model measured (``per_epoch_s``, from
    :func:`~lorasched.profiling.table.allpass_per_epoch` under the assumed epochs of
    :data:`~lorasched.profiling.table.ALLPASS_EPOCH`): Table 4's A100 seconds, the assumed
    epoch and the measured seconds, and the epoch size (samples) at which the measured
    speed would take Table 4's seconds."""
    rows = []
    for model, seconds in per_epoch_s.items():
        samples, seq_len, micro_batch = measured.ALLPASS_EPOCH[model]
        speed = samples / seconds  # samples per second, measured
        rows.append({"model": model, "stand-in": measured.ALLPASS_ARCHITECTURES[model],
                     "Table 4, A100 (s)": PER_EPOCH_S[model], "assumed epoch (samples)": samples,
                     "seq_len": seq_len, "micro_batch": micro_batch,
                     "measured (s)": seconds,
                     "samples in Table 4's seconds at the measured speed":
                         PER_EPOCH_S[model] * speed})
    return pd.DataFrame(rows)


def allpass_runs(per_epoch_s: dict, *, label: str, jobs: int = 60, source: str = "helios",
                 seed: int = 1, policy: str = "allpass") -> pd.DataFrame:
    """One Allpass scenario with Table 4's A100 per-epoch seconds and with ``per_epoch_s``
    (measured on ``label``), run by ``policy``: cost, average JCT and the jobs' work."""
    rows = []
    for name, options in (("Table 4 (A100)", {}),
                          (f"measured ({label})", {"per_epoch_s": per_epoch_s,
                                                   "per_epoch_label": f"{label} (measured)"})):
        scenario = allpass_scenario(jobs=jobs, source=source, seed=seed, **options)
        result = simulate(scenario, policy, seed=seed)
        a = result.attrs
        rows.append({"per-epoch seconds": name, "jobs": jobs,
                     "work (GPU-h)": float(scenario["work_s"].sum()) / 3600.0,
                     "cost (USD)": a["cost_usd"], "average JCT (min)": a["avg_jct_s"] / 60})
    return pd.DataFrame(rows)
