"""Measure the tables of traces/profiles/ on a lent GPU.

Each entry of PLAN is one ``lorasched profile --backend torch`` (the function behind it,
``lorasched.profiling.measure.measure``), run in one process so that each base model is
built once for all its entries; the entries of a model go into one table,
``OUT/<gpu label>-<model>.csv``, rewritten after every configuration (a run cut short keeps
what it measured). From the repository root::

    python3 traces/profiles/measure_on_gpu.py OUT [--label H200] [--quick]

``--quick``: the tiny models on the CPU, to try the script anywhere. The lent GPU's image
has torch, transformers and peft but not lorasched's other dependencies, so only
``lorasched.profiling`` is imported (the package's ``__init__``, which imports every
system, is skipped).
"""

from __future__ import annotations

import argparse
import pathlib
import shlex
import sys
import tempfile
import time
import types

ROOT = pathlib.Path(__file__).resolve().parents[2]
if "lorasched" not in sys.modules:  # lorasched.profiling alone, not the whole package
    package = types.ModuleType("lorasched")
    package.__path__ = [str(ROOT / "lorasched")]
    sys.modules["lorasched"] = package

from lorasched.profiling import table as measured  # noqa: E402
from lorasched.profiling.measure import measure  # noqa: E402

RANKS = [8, 16, 64]
BATCHES = [1, 2, 4, 8]
ADAPTERS = [2, 4, 8]
#: model -> its entries. The full grid (every rank x micro-batch, then 2, 4 and 8 adapters
#: at rank 16) for the models of up to 1.5 B parameters; for the 7-8 B ones, whose steps
#: are ~5x longer, the rank at micro-batch 4, the micro-batches at rank 16, the adapters at
#: micro-batch 1, and at 2,048 tokens the micro-batches and the adapters at rank 16.
PLAN = {
    "gpt2-xl": [
        dict(seq_len=1024, ranks=RANKS, micro_batches=BATCHES, adapters=[1]),
        dict(seq_len=1024, ranks=[16], micro_batches=BATCHES, adapters=ADAPTERS)],
    "roberta-base": [
        dict(seq_len=512, ranks=RANKS, micro_batches=BATCHES, adapters=[1]),
        dict(seq_len=512, ranks=[16], micro_batches=BATCHES, adapters=ADAPTERS)],
    "vit-large": [  # 224 x 224 images: 196 patches and the class token
        dict(seq_len=197, ranks=RANKS, micro_batches=BATCHES, adapters=[1]),
        dict(seq_len=197, ranks=[16], micro_batches=BATCHES, adapters=ADAPTERS)],
    **{model: [
        dict(seq_len=1024, ranks=RANKS, micro_batches=[4], adapters=[1]),
        dict(seq_len=1024, ranks=[16], micro_batches=[1, 2, 8], adapters=[1]),
        dict(seq_len=1024, ranks=[16], micro_batches=[1], adapters=ADAPTERS),
        dict(seq_len=2048, ranks=[16], micro_batches=BATCHES, adapters=[1]),
        dict(seq_len=2048, ranks=[16], micro_batches=[1], adapters=ADAPTERS)]
       for model in ("llama2-7b", "llama3-8b")},
}
QUICK = {"tiny-gpt2": [dict(seq_len=32, ranks=[4, 8], micro_batches=[1, 2], adapters=[1]),
                       dict(seq_len=32, ranks=[4], micro_batches=[1], adapters=[2])],
         "tiny-llama": [dict(seq_len=32, ranks=[4], micro_batches=[1, 2], adapters=[1, 2])]}
TIMING = dict(warmup=1, steps=3, repeats=3)


def command(model: str, label: str, entry: dict, device: str, dtype: str) -> str:
    """The ``lorasched profile`` command line of one entry."""
    flags = ["--model", model, "--gpu-label", label, "--backend", "torch",
             "--device", device, "--dtype", dtype, "--seq-len", str(entry["seq_len"])]
    for key in ("ranks", "micro_batches", "adapters"):
        flags += [f"--{key.replace('_', '-')}", ",".join(map(str, entry[key]))]
    for key, value in TIMING.items():
        flags += [f"--{key}", str(value)]
    return "lorasched profile " + shlex.join(flags)


def _device_facts(device: str) -> dict:
    """The CUDA version and the GPU's memory, for the provenance."""
    import torch  # only where the script runs: the lent GPU's image has it

    if device != "cuda" or not torch.cuda.is_available():
        return {}
    props = torch.cuda.get_device_properties(0)
    return {"cuda": torch.version.cuda, "gpu_memory_gb": f"{props.total_memory / 1e9:.1f}",
            "multiprocessors": props.multi_processor_count}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--label", default="H200", help="the GPU's label in the tables")
    ap.add_argument("--quick", action="store_true", help="tiny models on the CPU")
    ap.add_argument("--only", nargs="*", help="these models of the plan only")
    ap.add_argument("--commit", default="", help="lorasched's commit, for the provenance")
    args = ap.parse_args(argv)
    plan = QUICK if args.quick else PLAN
    device, dtype = ("cpu", "float32") if args.quick else ("cuda", "bfloat16")
    args.out.mkdir(parents=True, exist_ok=True)
    extra = {"lorasched_commit": args.commit, **_device_facts(device)}
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="lorasched-profile-"))
    began = time.monotonic()
    for model, entries in plan.items():
        if args.only and model not in args.only:
            continue
        path = args.out / f"{args.label}-{model}.csv"
        done: list[measured.MeasuredTable] = []
        lines = []
        for entry in entries:
            lines.append(command(model, args.label, entry, device, dtype))

            def save(so_far, done=done, lines=tuple(lines), path=path):
                merged = measured.MeasuredTable(
                    [r for t in done for r in t.rows] + so_far.rows,
                    {**so_far.provenance, "command": " ; ".join(lines)}, str(path),
                    [c for t in done for c in t.skipped] + so_far.skipped)
                measured.write(path, merged)

            table = measure(model=model, gpu_label=args.label, device=device, dtype=dtype,
                            out=scratch / f"{model}.part.csv", command=lines[-1],
                            extra=extra, progress=False, on_row=save, **entry, **TIMING)
            done.append(table)
            print(f"{model} {entry}: {len(table.rows)} rows, {len(table.skipped)} did not "
                  f"fit, {time.monotonic() - began:.0f} s so far", flush=True)
    print(f"done in {time.monotonic() - began:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
