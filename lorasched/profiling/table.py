"""Measured LoRA throughput tables: the CSV ``lorasched profile`` writes, its reader, and what
each system takes from it (:func:`pdftsp_profile`, :func:`titan_placements` and
:func:`titan_lut`, :func:`allpass_epoch_s`). The format: :doc:`/reference/gpu_profiles`.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import xarray as xr

from ..model import limits
from ..model.errors import InputError, read_text
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
