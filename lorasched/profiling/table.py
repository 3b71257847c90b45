"""Measured LoRA throughput tables: the CSV ``lorasched profile`` writes, its reader, and what
each system takes from it (:func:`pdftsp_profile`, :func:`pdftsp_node`,
:func:`titan_placements` and :func:`titan_lut`, :func:`allpass_epoch_s`,
:func:`allpass_per_epoch`). The format: :doc:`/reference/gpu_profiles`.
"""

from __future__ import annotations

import csv
import io
import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import xarray as xr

from ..model import limits
from ..model.errors import InputError, read_text
from ..pdftsp.node_profile import NodeProfile
from ..titan.lut import from_frames

#: the columns of a measured table, in order
COLUMNS = ("model", "gpu_label", "rank", "micro_batch", "seq_len", "adapters", "steps",
           "repeats", "step_time_s", "step_time_min_s", "step_time_max_s", "samples_per_s",
           "tokens_per_s", "peak_memory_gb", "base_memory_gb")
#: columns a table written before they existed may lack: their values then (a function of
#: the row read so far)
OPTIONAL = {"repeats": lambda r: 1, "step_time_min_s": lambda r: r["step_time_s"],
            "step_time_max_s": lambda r: r["step_time_s"]}
#: the columns that identify a configuration: one row each
KEY = ("model", "gpu_label", "rank", "micro_batch", "seq_len", "adapters")
#: columns holding whole numbers >= 1
COUNTS = ("rank", "micro_batch", "seq_len", "adapters", "steps", "repeats")
#: columns holding numbers >= 0
REALS = ("step_time_s", "step_time_min_s", "step_time_max_s", "samples_per_s",
         "tokens_per_s", "peak_memory_gb", "base_memory_gb")
#: the first comment line of a measured table
MAGIC = "lorasched measured profile"

#: the architectures ``lorasched profile`` builds (from their published configurations,
#: random weights): name -> (family, configuration). Sizes that fit one GPU.
ARCHITECTURES = {
    # pdFTSP's GPT-2 (Radford et al. 2019; Hugging Face gpt2 configs)
    "gpt2": ("gpt2", {"n_layer": 12, "n_embd": 768, "n_head": 12, "n_positions": 1024,
                      "vocab_size": 50257}),
    "gpt2-xl": ("gpt2", {"n_layer": 48, "n_embd": 1600, "n_head": 25, "n_positions": 1024,
                         "vocab_size": 50257}),
    # Allpass's Llama 2 / 3 (Touvron et al. 2023; Meta's Llama-2-7b / Llama-3-8B configs)
    "llama2-7b": ("llama", {"num_hidden_layers": 32, "hidden_size": 4096,
                            "intermediate_size": 11008, "num_attention_heads": 32,
                            "num_key_value_heads": 32, "vocab_size": 32000,
                            "max_position_embeddings": 4096}),
    "llama3-8b": ("llama", {"num_hidden_layers": 32, "hidden_size": 4096,
                            "intermediate_size": 14336, "num_attention_heads": 32,
                            "num_key_value_heads": 8, "vocab_size": 128256,
                            "max_position_embeddings": 8192, "rope_theta": 500000.0}),
    # TITAN's ViT-L/16 and RoBERTa (Dosovitskiy et al. 2021; Liu et al. 2019)
    "vit-large": ("vit", {"num_hidden_layers": 24, "hidden_size": 1024,
                          "intermediate_size": 4096, "num_attention_heads": 16,
                          "image_size": 224, "patch_size": 16}),
    "roberta-base": ("roberta", {"num_hidden_layers": 12, "hidden_size": 768,
                                 "intermediate_size": 3072, "num_attention_heads": 12,
                                 "vocab_size": 50265, "max_position_embeddings": 514}),
    # a few layers of each family, for tests on a CPU
    "tiny-gpt2": ("gpt2", {"n_layer": 2, "n_embd": 64, "n_head": 2, "n_positions": 128,
                           "vocab_size": 1000, "bos_token_id": 0, "eos_token_id": 0}),
    "tiny-llama": ("llama", {"num_hidden_layers": 2, "hidden_size": 64,
                             "intermediate_size": 128, "num_attention_heads": 4,
                             "num_key_value_heads": 2, "vocab_size": 1000,
                             "max_position_embeddings": 128}),
}

#: Allpass's benchmark models (sec. 5.1, Table 4) -> the measured architecture standing in
#: for each. The paper's "BERT" is distilbert-base-uncased (6 layers); roberta-base (12
#: layers, the same encoder family) stands in for it. LLaMA2-13B has no stand-in.
ALLPASS_ARCHITECTURES = {"LLaMA3-8B": "llama3-8b", "BERT": "roberta-base"}
#: Allpass's LoRA rank (sec. 5.1: r = 16)
ALLPASS_RANK = 16
#: ASSUMPTION (the paper names the data sets but gives no epoch size, sequence length or
#: batch): one epoch of Table 4 = one pass over the named data set's training split,
#: model -> (samples, seq_len, micro_batch). BERT: IMDB's 25,000 training reviews (Maas et
#: al. 2011) at BERT's 512 tokens; LLaMA: Alpaca's 52,002 instructions (Taori et al. 2023)
#: at 1024 tokens, the shortest measured. Micro-batch 8: Hugging Face Trainer's default.
ALLPASS_EPOCH = {"LLaMA3-8B": (52_002, 1024, 8), "BERT": (25_000, 512, 8)}


@dataclass
class MeasuredTable:
    """A measured table: its rows (dicts of :data:`COLUMNS`), its provenance, and the
    configurations that did not fit in the device's memory (``skipped``: dicts of
    :data:`KEY`, written as the provenance line ``did_not_fit``)."""

    rows: list[dict]
    provenance: dict = field(default_factory=dict)
    path: str = ""
    skipped: list[dict] = field(default_factory=list)

    def select(self, **where) -> list[dict]:
        """The rows whose columns equal ``where``."""
        return [r for r in self.rows if all(r[k] == v for k, v in where.items())]


def row(*, model: str, gpu_label: str, rank: int, micro_batch: int, seq_len: int,
        adapters: int, steps: int, step_time_s: float, peak_memory_gb: float,
        base_memory_gb: float, repeats: int = 1, step_time_min_s: float | None = None,
        step_time_max_s: float | None = None) -> dict:
    """One row, its throughputs derived from the step time (over ``repeats`` timed blocks
    of ``steps`` steps: ``step_time_s`` the median block's, the fastest and slowest beside
    it)."""
    samples = adapters * micro_batch / step_time_s
    return {"model": model, "gpu_label": gpu_label, "rank": rank,
            "micro_batch": micro_batch, "seq_len": seq_len, "adapters": adapters,
            "steps": steps, "repeats": repeats, "step_time_s": step_time_s,
            "step_time_min_s": step_time_s if step_time_min_s is None else step_time_min_s,
            "step_time_max_s": step_time_s if step_time_max_s is None else step_time_max_s,
            "samples_per_s": samples, "tokens_per_s": samples * seq_len,
            "peak_memory_gb": peak_memory_gb, "base_memory_gb": base_memory_gb}


def _skipped_text(skipped: list[dict]) -> str:
    return "; ".join(" ".join(f"{k}={c[k]}" for k in KEY) for c in skipped)


def write(path, table: MeasuredTable) -> Path:
    """Write ``table`` as a measured CSV (provenance first, as comment lines)."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"--out: {path} is a folder; name the CSV file to write")
    out = io.StringIO()
    out.write(f"# {MAGIC}\n")
    provenance = dict(table.provenance)
    if table.skipped:
        provenance["did_not_fit"] = _skipped_text(table.skipped)
    for key, value in provenance.items():
        out.write(f"# {key}: {' '.join(str(value).split())}\n")
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for r in table.rows:
        writer.writerow({k: (f"{r[k]:.10g}" if k in REALS else r[k]) for k in COLUMNS})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(out.getvalue())
    return path


def read(path) -> MeasuredTable:
    """A measured CSV, validated: :class:`InputError` naming the file, the line, the column
    and the rule for anything wrong."""
    text = read_text(path, "measured profile")
    lines = text.splitlines()
    provenance, first = {}, 0
    while first < len(lines) and lines[first].startswith("#"):
        body = lines[first][1:].strip()
        if ":" in body:
            key, _, value = body.partition(":")
            provenance[key.strip()] = value.strip()
        first += 1
    if first == 0 or lines[0][1:].strip() != MAGIC:
        raise InputError(f"{path} line 1: not a lorasched measured profile (its first line "
                         f"must be '# {MAGIC}')")
    reader = csv.DictReader(lines[first:])
    header = reader.fieldnames or []
    missing = [c for c in COLUMNS if c not in header and c not in OPTIONAL]
    if missing:
        raise InputError(f"{path} line {first + 1}: columns {missing} missing (a measured "
                         f"profile has {list(COLUMNS)})")
    rows = []
    for n, raw in enumerate(reader, start=first + 2):
        r = {"model": raw["model"].strip(), "gpu_label": raw["gpu_label"].strip()}
        if not r["model"] or not r["gpu_label"]:
            raise InputError(f"{path} line {n}: model and gpu_label must not be empty")
        for col in COUNTS + REALS:
            if col not in header:  # an OPTIONAL column
                r[col] = OPTIONAL[col](r)
                continue
            value = (raw.get(col) or "").strip()
            try:
                x = float(value)
            except ValueError:
                raise InputError(f"{path} line {n}, column {col!r}: {value!r} is not a "
                                 "number") from None
            if not math.isfinite(x) or x < 0 or (col in COUNTS and (x < 1 or x != int(x))):
                rule = "a whole number >= 1" if col in COUNTS else "a finite number >= 0"
                raise InputError(f"{path} line {n}, column {col!r}: {value} is not {rule}")
            r[col] = int(x) if col in COUNTS else x
        limits.at_most([r["step_time_s"]], limits.MAX_STEP_S, f"{path}, column 'step_time_s'",
                       lambda i, n=n: f"line {n}")
        if r["step_time_s"] <= 0:
            raise InputError(f"{path} line {n}, column 'step_time_s': must be > 0")
        key = {c: r[c] for c in KEY}
        if any({c: o[c] for c in KEY} == key for o in rows):
            raise InputError(f"{path} line {n}: a second row for {key}")
        rows.append(r)
    if not rows:
        raise InputError(f"{path}: no rows")
    return MeasuredTable(rows, provenance, str(path))


# --------------------------------------------------------------------------- readers


def _one(table: MeasuredTable, what: str, **where) -> dict:
    found = table.select(**where)
    if not found:
        raise InputError(f"{table.path or 'measured profile'}: no row for {what} "
                         f"({', '.join(f'{k}={v}' for k, v in where.items())})")
    return found[0]


def pdftsp_profile(table: MeasuredTable, *, model: str, gpu_label: str, rank: int,
                   seq_len: int, slot_minutes: float = 10.0) -> dict:
    """What pdFTSP's scenarios take from a measured table, for one GPU: ``speed``
    (micro-batch -> s_ik, samples per slot of one task alone), ``memory_gb`` (micro-batch
    -> r_i, its peak memory less the base model's), ``base_model_memory_gb`` (r_b) and
    ``capacity`` (C_kp: the most samples per slot any row of adapters reached)."""
    slot_s = slot_minutes * 60.0
    rows = table.select(model=model, gpu_label=gpu_label, rank=rank, seq_len=seq_len)
    single = [r for r in rows if r["adapters"] == 1]
    if not single:
        _one(table, "one adapter", model=model, gpu_label=gpu_label, rank=rank,
             seq_len=seq_len, adapters=1)
    return {
        "speed": {r["micro_batch"]: int(r["samples_per_s"] * slot_s) for r in single},
        "memory_gb": {r["micro_batch"]: max(r["peak_memory_gb"] - r["base_memory_gb"], 0.0)
                      for r in single},
        "base_model_memory_gb": max(r["base_memory_gb"] for r in single),
        "capacity": int(max(r["samples_per_s"] for r in rows) * slot_s),
    }


#: published specifications of the GPUs measured here: label -> memory (GB), power (W) and
#: the source; a measured node needs them beside its table (C_km and the operating cost)
GPU_SPECS = {
    "H200": {"memory_gb": 141.0, "power_w": 700.0,
             "source": "NVIDIA H200 Tensor Core GPU datasheet (2024): 141 GB HBM3e, "
                       "max. thermal design power up to 700 W (SXM)"},
}


def pdftsp_node(table: MeasuredTable, *, model: str, gpu_label: str, rank: int,
                seq_len: int, slot_minutes: float = 10.0,
                spec: dict | None = None) -> NodeProfile:
    """A :class:`~lorasched.pdftsp.node_profile.NodeProfile` of the GPU ``gpu_label``
    measured for ``model`` (:func:`pdftsp_profile`), its memory and power from ``spec``
    (default: :data:`GPU_SPECS` of the label), for
    :func:`lorasched.synthetic_scenario`'s ``measured_gpu``."""
    if spec is None:
        if gpu_label not in GPU_SPECS:
            raise InputError(f"no published specification of {gpu_label!r} (memory, power):"
                             f" give spec=; known: {sorted(GPU_SPECS)}")
        spec = GPU_SPECS[gpu_label]
    got = pdftsp_profile(table, model=model, gpu_label=gpu_label, rank=rank, seq_len=seq_len,
                         slot_minutes=slot_minutes)
    where = table.path or "a measured table"
    return NodeProfile(label=gpu_label, speed=got["speed"], memory_gb=got["memory_gb"],
                       base_model_memory_gb=got["base_model_memory_gb"],
                       capacity=got["capacity"], memory_capacity_gb=float(spec["memory_gb"]),
                       power_w=float(spec["power_w"]), slot_minutes=float(slot_minutes),
                       source=f"{model} rank {rank}, {seq_len} tokens on {gpu_label}: "
                              f"{Path(where).name}; {spec.get('source', 'spec given')}")


def titan_placements(table: MeasuredTable, *, model: str, gpu_label: str, rank: int,
                     seq_len: int) -> list[dict]:
    """The rows of a TITAN LUT ``placements`` table for one GPU (one adapter):
    ``placement`` "1", ``local_bsz``, ``step_time``, ``sync_time`` 0."""
    rows = table.select(model=model, gpu_label=gpu_label, rank=rank, seq_len=seq_len,
                        adapters=1)
    if not rows:
        _one(table, "one adapter", model=model, gpu_label=gpu_label, rank=rank,
             seq_len=seq_len, adapters=1)
    return [{"placement": "1", "local_bsz": r["micro_batch"], "step_time": r["step_time_s"],
             "sync_time": 0.0} for r in sorted(rows, key=lambda r: r["micro_batch"])]


def titan_memory(table: MeasuredTable, *, model: str, gpu_label: str, rank: int,
                 seq_len: int) -> list[dict]:
    """The rows of a TITAN LUT ``memory`` table for one GPU (one adapter): ``local_bsz``,
    ``gpu_memory`` (GB, the peak)."""
    rows = table.select(model=model, gpu_label=gpu_label, rank=rank, seq_len=seq_len,
                        adapters=1)
    return [{"local_bsz": r["micro_batch"], "gpu_memory": r["peak_memory_gb"]}
            for r in sorted(rows, key=lambda r: r["micro_batch"])]


def titan_lut(table: MeasuredTable, *, model: str, gpu_label: str, rank: int = 16,
              seq_len: int) -> xr.Dataset:
    """A TITAN LUT of one GPU (placement "1") from a measured table: its
    :func:`titan_placements` and :func:`titan_memory` through
    :func:`lorasched.titan.lut.from_frames`, attrs ``gpu`` = ``gpu_label`` and ``model``;
    what ``titan_scenario(lut=...)`` takes."""
    placements = pd.DataFrame(titan_placements(table, model=model, gpu_label=gpu_label,
                                               rank=rank, seq_len=seq_len))
    memory = pd.DataFrame(titan_memory(table, model=model, gpu_label=gpu_label, rank=rank,
                                       seq_len=seq_len))
    where = table.path or "a measured profile"
    device = table.provenance.get("device")
    source = (f"{where}: LoRA rank {rank}, seq_len {seq_len}, one adapter on one GPU"
              + (f" ({device})" if device else "") + " (lorasched profile)")
    return from_frames(placements, memory, gpu=gpu_label, model=model, source=source)


def allpass_epoch_s(table: MeasuredTable, *, model: str, gpu_label: str, rank: int,
                    seq_len: int, micro_batch: int, samples: int) -> float:
    """Seconds of one epoch of ``samples`` samples, one adapter at ``micro_batch`` (what
    Allpass's Table 4 gives per model)."""
    r = _one(table, "the epoch", model=model, gpu_label=gpu_label, rank=rank,
             seq_len=seq_len, micro_batch=micro_batch, adapters=1)
    return samples / r["samples_per_s"]


def _tables(tables) -> list[MeasuredTable]:
    """A table, a path or an iterable of them, as tables (paths read and validated)."""
    one = isinstance(tables, (MeasuredTable, str, Path))
    items = [tables] if one else list(tables) if isinstance(tables, Iterable) else None
    if not items:
        raise InputError(f"tables must be a measured table, a path or a list of them, got "
                         f"{tables!r}")
    return [t if isinstance(t, MeasuredTable) else read(t) for t in items]


def allpass_per_epoch(tables, *, gpu_label: str = "H200", rank: int = ALLPASS_RANK,
                      epoch: dict | None = None) -> dict[str, float]:
    """Allpass's per-epoch seconds measured on ``gpu_label``, for
    ``lorasched.allpass_scenario(per_epoch_s=...)``.

    Parameters
    ----------
    tables : MeasuredTable, path or list of them
        Measured tables (e.g. the shipped ``traces/profiles/H200-*.csv``).
    gpu_label : str
        The GPU whose rows are read.
    rank : int
        The LoRA rank (default Allpass's 16).
    epoch : dict, optional
        Model -> (samples, seq_len, micro_batch) of one epoch (default
        :data:`ALLPASS_EPOCH`, an assumption).

    Returns
    -------
    dict
        Model of Table 4 -> seconds of one epoch (:func:`allpass_epoch_s` of the model's
        :data:`ALLPASS_ARCHITECTURES` stand-in), for each model whose stand-in has rows for
        ``gpu_label``; the others are left out (the scenario keeps Table 4's A100 value).

    Raises
    ------
    InputError
        A bad argument, a table that breaks its format, a stand-in with rows for
        ``gpu_label`` but none for the epoch's configuration, or no model measured at all.
    """
    if not isinstance(gpu_label, str) or not gpu_label:
        raise InputError(f"gpu_label must be a non-empty string, got {gpu_label!r}")
    if isinstance(rank, bool) or not isinstance(rank, numbers.Integral) or rank < 1:
        raise InputError(f"rank must be a whole number >= 1, got {rank!r}")
    epoch = ALLPASS_EPOCH if epoch is None else epoch
    if not isinstance(epoch, dict) or any(
            m not in ALLPASS_ARCHITECTURES or not isinstance(v, tuple) or len(v) != 3
            or any(isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < 1
                   for x in v) for m, v in epoch.items()):
        raise InputError(f"epoch must map models of {list(ALLPASS_ARCHITECTURES)} to "
                         f"(samples, seq_len, micro_batch) whole numbers >= 1, got {epoch!r}")
    return _allpass_per_epoch(_tables(tables), gpu_label, int(rank), epoch)


def _allpass_per_epoch(tables: list[MeasuredTable], gpu_label: str, rank: int,
                       epoch: dict) -> dict[str, float]:
    out = {}
    for name, (samples, seq_len, micro_batch) in epoch.items():
        arch = ALLPASS_ARCHITECTURES[name]
        holding = [t for t in tables if t.select(model=arch, gpu_label=gpu_label)]
        # the first table with the epoch's row, else the first with the stand-in (raises)
        holding.sort(key=lambda t: not t.select(model=arch, gpu_label=gpu_label, rank=rank,
                                                seq_len=seq_len, micro_batch=micro_batch,
                                                adapters=1))
        if holding:
            out[name] = allpass_epoch_s(holding[0], model=arch, gpu_label=gpu_label, rank=rank,
                                        seq_len=seq_len, micro_batch=micro_batch,
                                        samples=samples)
    if not out:
        raise InputError(f"no measured rows for gpu_label {gpu_label!r} of "
                         f"{sorted(ALLPASS_ARCHITECTURES[m] for m in epoch)} in "
                         f"{[t.path or 'a table' for t in tables]}")
    return out
