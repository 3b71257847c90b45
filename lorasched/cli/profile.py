"""``lorasched profiles`` and ``lorasched profile``: print the published GPU/model
profile table with its sources (:mod:`lorasched.model.profiles`); time LoRA fine-tuning
steps for a grid of configurations and write a measured table
(:mod:`lorasched.profiling.harness`, :mod:`lorasched.profiling.table`)."""

from __future__ import annotations

import shlex
import sys

from ..model.profiles import SOURCES, profile_table
from ..profiling import harness as profiler
from ..profiling import table as measured
from ..profiling import torch_backend as lora_torch
from ..profiling.measure import measure
from .arguments import positive_int


def register(sub) -> None:
    """The ``profiles`` and ``profile`` commands."""
    sub.add_parser("profiles", help="print the GPU/model profile table with sources"
                   ).set_defaults(run=profiles)
    _register_profile(sub)


def counts(text: str) -> list[int]:
    """``8,16,64``: whole numbers >= 1, comma-separated."""
    return [positive_int(part) for part in text.split(",") if part.strip()]


def _register_profile(sub) -> None:
    p = sub.add_parser(
        "profile", help="measure LoRA fine-tuning throughput and memory into a table",
        description="Time LoRA fine-tuning steps (warm-up, then timed steps) for every "
        "combination of --ranks, --micro-batches and --adapters, and write a measured "
        "table (CSV, its provenance in # lines) that lorasched's scenarios can read. "
        "--backend torch builds the model from its configuration with random weights "
        f"(needs {lora_torch.INSTALL}); --backend published writes what the scenarios "
        "assume today (GPT-2 XL on A100 or A40), in the same format.")
    p.add_argument("--model", required=True,
                   help=f"architecture: {', '.join(sorted(measured.ARCHITECTURES))}")
    p.add_argument("--gpu-label", required=True, help="the GPU's label in the table (H100)")
    p.add_argument("--ranks", type=counts, default=[16], help="LoRA ranks (8,16,64)")
    p.add_argument("--micro-batches", type=counts, default=[1, 2, 4],
                   help="samples per step of one adapter (1,2,4,8)")
    p.add_argument("--seq-len", type=positive_int, default=512, help="tokens per sample")
    p.add_argument("--adapters", type=counts, default=[1],
                   help="adapters sharing the base model (1,4)")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps first (3)")
    p.add_argument("--steps", type=positive_int, default=10,
                   help="timed steps of each block (10)")
    p.add_argument("--repeats", type=positive_int, default=1,
                   help="timed blocks per configuration: the table keeps the median block "
                   "and the spread (1)")
    p.add_argument("--backend", choices=profiler.BACKENDS, default="torch")
    p.add_argument("--device", default="cuda", help="torch device: cuda, cuda:1, cpu")
    p.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16", "float32"])
    p.add_argument("--seed", type=int, default=0, help="seed of the weights and inputs")
    p.add_argument("--out", required=True, help="the CSV file to write")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=profile)


def profiles(args) -> int:
    """``lorasched profiles``: every profile number with its source."""
    for row in profile_table():
        print(f"{row['quantity']:<45} {row['gpu']:<10} {row['value']!s:>12}  "
              f"[{row['source']}]")
    print("\nsources:")
    for key, text in SOURCES.items():
        print(f"  {key}: {text}")
    return 0


def profile(args) -> int:
    """``lorasched profile``: measure the grid, write the table, print a line per row."""
    table = measure(model=args.model, gpu_label=args.gpu_label, ranks=args.ranks,
                    micro_batches=args.micro_batches, seq_len=args.seq_len,
                    adapters=args.adapters, warmup=args.warmup, steps=args.steps,
                    repeats=args.repeats, backend=args.backend, device=args.device,
                    dtype=args.dtype, seed=args.seed, out=args.out,
                    command="lorasched profile " + shlex.join(sys.argv[2:]),
                    progress=not args.no_progress)
    for r in table.rows:
        print(f"{r['model']} on {r['gpu_label']}: rank {r['rank']}, micro-batch "
              f"{r['micro_batch']}, {r['adapters']} adapter(s): {r['step_time_s'] * 1e3:.1f} "
              f"ms a step, {r['samples_per_s']:.2f} samples/s, peak "
              f"{r['peak_memory_gb']:.1f} GB")
    for c in table.skipped:
        print(f"{c['model']}: rank {c['rank']}, micro-batch {c['micro_batch']}, "
              f"{c['adapters']} adapter(s): does not fit in the device's memory")
    print(f"{len(table.rows)} configurations -> {args.out}")
    return 0
