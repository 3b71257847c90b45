"""``lorasched profile``'s harness: time LoRA fine-tuning steps for a grid of configurations
and write a measured table (:func:`profile`), with the ``torch`` backend or the
``published`` one (:class:`PublishedWorkload`); see :doc:`/reference/gpu_profiles`.
"""

from __future__ import annotations

import datetime as _dt
import platform
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Protocol

from tqdm import tqdm

from ..model import profiles
from ..model.errors import InputError
from .table import ARCHITECTURES, KEY, MeasuredTable, row

#: the backends by name
BACKENDS = ("torch", "published")


class DoesNotFit(Exception):
    """Raised by a workload whose configuration does not fit in the device's memory: the
    harness records the configuration as skipped and goes on."""


@dataclass(frozen=True)
class Config:
    """One configuration to time."""

    model: str
    gpu_label: str
    rank: int
    micro_batch: int
    seq_len: int
    adapters: int = 1


class Workload(Protocol):
    """One configuration, ready to run. ``run(n)`` runs ``n`` training steps (each a step
    of every adapter) and returns their wall time in seconds, measured on the device
    (CUDA events on a GPU); ``reset_peak()`` and ``peak_memory_gb()`` bracket the timed
    steps; ``base_memory_gb`` is what the base model alone holds."""

    base_memory_gb: float

    def run(self, n: int) -> float: ...

    def reset_peak(self) -> None: ...

    def peak_memory_gb(self) -> float: ...

    def close(self) -> None: ...


def grid(model: str, gpu_label: str, ranks: Iterable[int], micro_batches: Iterable[int],
         seq_len: int, adapters: Iterable[int] = (1,)) -> list[Config]:
    """Every combination, validated: :class:`InputError` naming the option and the rule."""
    if model not in ARCHITECTURES:
        raise InputError(f"--model: {model!r} is not an architecture lorasched builds; "
                         f"one of {sorted(ARCHITECTURES)}")
    if not gpu_label or any(c in gpu_label for c in ",\n#"):
        raise InputError(f"--gpu-label: {gpu_label!r} must be a non-empty label without "
                         "commas, '#' or newlines")
    lists = {"--ranks": list(ranks), "--micro-batches": list(micro_batches),
             "--adapters": list(adapters), "--seq-len": [seq_len]}
    for flag, values in lists.items():
        if not values or any(isinstance(v, bool) or not isinstance(v, int) or v < 1
                             for v in values):
            raise InputError(f"{flag}: {values} must be whole numbers >= 1")
    return [Config(model, gpu_label, r, b, seq_len, a) for a in lists["--adapters"]
            for r in lists["--ranks"] for b in lists["--micro-batches"]]


def profile(configs: list[Config], build: Callable[[Config], Workload], *, warmup: int = 3,
            steps: int = 10, repeats: int = 1, provenance: dict | None = None,
            progress: bool = True,
            on_row: Callable[[MeasuredTable], None] | None = None) -> MeasuredTable:
    """Time every configuration with the workloads ``build`` makes; the measured table.

    Each configuration runs ``warmup`` untimed steps, then ``repeats`` timed blocks of
    ``steps`` steps: its row gives the median block's step time (the lower middle one for
    an even count), the fastest and slowest block's, and the peak memory over all blocks.
    A configuration whose workload raises :class:`DoesNotFit` is listed in the table's
    ``skipped``. ``on_row(table)`` is called with the table so far after each
    configuration (to save it as it grows).
    """
    for name, n, low in (("warmup", warmup, 0), ("steps", steps, 1), ("repeats", repeats, 1)):
        if isinstance(n, bool) or not isinstance(n, int) or n < low:
            raise InputError(f"--{name}: must be a whole number >= {low}, got {n!r}")
    table = MeasuredTable([], dict(provenance or {}))
    for config in tqdm(configs, desc="profile", unit="config", disable=not progress):
        try:
            table.rows.append(_measure(config, build, warmup, steps, repeats))
        except DoesNotFit:
            table.skipped.append({k: getattr(config, k) for k in KEY})
        if on_row is not None:
            on_row(table)
    return table


def _measure(config: Config, build, warmup: int, steps: int, repeats: int) -> dict:
    """One configuration's row (see :func:`profile`)."""
    work = build(config)
    try:
        if warmup:
            work.run(warmup)
        work.reset_peak()
        blocks = sorted(work.run(steps) / steps for _ in range(repeats))
        return row(model=config.model, gpu_label=config.gpu_label, rank=config.rank,
                   micro_batch=config.micro_batch, seq_len=config.seq_len,
                   adapters=config.adapters, steps=steps, repeats=repeats,
                   step_time_s=blocks[(repeats - 1) // 2], step_time_min_s=blocks[0],
                   step_time_max_s=blocks[-1], peak_memory_gb=work.peak_memory_gb(),
                   base_memory_gb=work.base_memory_gb)
    finally:
        work.close()


def provenance(backend: str, device: str = "", command: str = "", extra: dict | None = None,
               now: _dt.datetime | None = None) -> dict:
    """What a measured table records about where it was measured."""
    out = {"backend": backend, "device": device,
           "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
           "python": platform.python_version(), "lorasched": _version("lorasched")}
    for package in ("torch", "transformers", "peft"):
        found = _version(package)
        if found != "not installed":
            out[package] = found
    out.update({k: v for k, v in (extra or {}).items() if v not in ("", None)})
    out["date"] = (now or _dt.datetime.now(_dt.UTC)).isoformat(timespec="seconds")
    if command:
        out["command"] = command
    return out


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


# --------------------------------------------------------------------------- published


class PublishedWorkload:
    """The step that pdFTSP's scenarios assume (:mod:`lorasched.model.profiles`), as a
    workload: ``adapters`` tasks of micro-batch ``b`` share a node whose samples per second
    are ``min(C_kp, adapters x s_ik) / slot`` (eqs. of that module); memory is the base
    model plus each task's ``r_i``. Only GPT-2 XL at its 1,024-token context, on the GPUs
    of :data:`~lorasched.model.profiles.GPUS` (labels ``A100``, ``A40``); the rank does not
    enter (the published model has none)."""

    def __init__(self, config: Config):
        gpu = profiles.GPU_ALIASES.get(config.gpu_label, config.gpu_label)
        model = profiles.GPT2_XL
        if config.model != "gpt2-xl" or gpu not in profiles.GPUS:
            raise InputError(f"--backend published: the published profile is GPT-2 XL on "
                             f"{sorted(profiles.GPU_ALIASES)}; got --model {config.model} "
                             f"--gpu-label {config.gpu_label}")
        if config.seq_len != model.tokens_per_sample:
            raise InputError(f"--backend published: GPT-2 XL's samples are "
                             f"{model.tokens_per_sample} tokens; got --seq-len "
                             f"{config.seq_len}")
        slot_s = 600.0
        g = profiles.GPUS[gpu]
        one = profiles.task_speed(g, config.micro_batch, model, 10)
        per_slot = min(profiles.node_capacity(g, model, 10), config.adapters * one)
        self.step_s = config.adapters * config.micro_batch * slot_s / per_slot
        self.base_memory_gb = model.base_model_memory_gb
        self.memory_gb = (self.base_memory_gb
                          + config.adapters * profiles.task_memory(config.micro_batch, model))

    def run(self, n: int) -> float:
        return n * self.step_s  # a model's time: nothing runs

    def reset_peak(self) -> None:
        pass

    def peak_memory_gb(self) -> float:
        return self.memory_gb

    def close(self) -> None:
        pass
