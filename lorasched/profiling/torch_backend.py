"""The ``torch`` backend of ``lorasched profile`` (:func:`workload`): LoRA fine-tuning steps
with PyTorch and PEFT on a model of a named architecture, random weights and inputs; torch,
transformers and peft are the optional extra ``lorasched[profile]``. See
:doc:`/reference/gpu_profiles`.
"""

from __future__ import annotations

import gc
import importlib
import time

from ..model.errors import InputError
from .harness import DoesNotFit
from .table import ARCHITECTURES

#: LoRA's target modules per family (the query and value projections), the first of the
#: names found in the model (transformers renamed some between major versions)
TARGETS = {"gpt2": [["c_attn"]], "llama": [["q_proj", "v_proj"]],
           "vit": [["query", "value"], ["q_proj", "v_proj"]],
           "roberta": [["query", "value"], ["q_proj", "v_proj"]]}


def targets(model, family: str) -> list[str]:
    """The target modules of :data:`TARGETS` that ``model`` has."""
    names = {name.rsplit(".", 1)[-1] for name, _ in model.named_modules()}
    for candidate in TARGETS[family]:
        if set(candidate) <= names:
            return candidate
    raise InputError(f"no LoRA target modules of {TARGETS[family]} in the {family} model")
INSTALL = "pip install 'lorasched[profile]' (torch, transformers, peft)"


def _modules():
    """torch, transformers and peft, imported in that order (the error names the first
    one missing)."""
    found = []
    for name in ("torch", "transformers", "peft"):
        try:
            found.append(importlib.import_module(name))
        except ImportError:
            raise InputError(f"--backend torch needs {name}: {INSTALL}") from None
    return tuple(found)


def build_model(name: str, transformers):
    """The model of architecture ``name`` with random weights, and its family."""
    family, cfg = ARCHITECTURES[name]
    if family == "gpt2":
        return transformers.GPT2LMHeadModel(transformers.GPT2Config(**cfg)), family
    if family == "llama":
        return transformers.LlamaForCausalLM(transformers.LlamaConfig(**cfg)), family
    if family == "vit":
        return (transformers.ViTForImageClassification(
            transformers.ViTConfig(**cfg, num_labels=1000)), family)
    return (transformers.RobertaForSequenceClassification(
        transformers.RobertaConfig(**cfg, num_labels=2)), family)


#: the base model of the last configuration, kept for the next one of the same model (one
#: at a time: a new model frees the last): (model, device, dtype, seed) -> (model, its GB)
_BASE: dict[tuple, tuple] = {}


def _base_model(config, torch, transformers, device, dtype: str, seed: int):
    """The base model of ``config`` on ``device`` in ``dtype`` with seeded random weights
    (initialised on the device itself: a 7B model's initialisation on a CPU takes minutes),
    and the GB it holds; reused while the model stays the same."""
    key = (config.model, str(device), dtype, seed)
    if key not in _BASE:
        release()
        torch.manual_seed(seed)
        with torch.device(device):
            model, _ = build_model(config.model, transformers)
        model.to(dtype=getattr(torch, dtype))
        gb = 0.0
        if device.type == "cuda":
            torch.cuda.synchronize()
            gb = torch.cuda.memory_allocated(device) / 1e9
        _BASE[key] = (model, gb)
    return _BASE[key]


def release() -> None:
    """Free the kept base model (and the GPU memory it held)."""
    for model, _ in _BASE.values():
        del model
    _BASE.clear()
    gc.collect()
    try:
        torch = importlib.import_module("torch")
    except ImportError:  # pragma: no cover - nothing was kept without torch
        return
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


class TorchWorkload:
    """One configuration on ``device`` (see the module docstring): LoRA adapters added to
    the kept base model (:func:`_base_model`), removed again by :meth:`close`. Running out of
    GPU memory raises :class:`~lorasched.profiling.harness.DoesNotFit`."""

    def __init__(self, config, *, device: str = "cuda", dtype: str = "bfloat16",
                 seed: int = 0):
        torch, transformers, peft = _modules()
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise InputError("--device cuda: no CUDA GPU visible to torch (use --device cpu "
                             "for a tiny model, or --backend published)")
        self.torch, self.device = torch, torch.device(device)
        self.cuda = self.device.type == "cuda"
        self.model = self.optimizers = self.batch = None
        try:
            self._setup(config, transformers, peft, dtype, seed)
        except torch.cuda.OutOfMemoryError as error:
            self.close()
            raise DoesNotFit(str(error).splitlines()[0]) from None

    def _setup(self, config, transformers, peft, dtype: str, seed: int) -> None:
        torch = self.torch
        family = ARCHITECTURES[config.model][0]
        base, self.base_memory_gb = _base_model(config, torch, transformers, self.device,
                                                dtype, seed)
        generator = torch.Generator().manual_seed(seed)
        lora = peft.LoraConfig(r=config.rank, lora_alpha=2 * config.rank, lora_dropout=0.0,
                               target_modules=targets(base, family),
                               fan_in_fan_out=family == "gpt2")  # GPT-2's Conv1D layers
        self.names = [f"adapter{i}" for i in range(config.adapters)]
        self.model = peft.get_peft_model(base, lora, adapter_name=self.names[0])
        for name in self.names[1:]:
            self.model.add_adapter(name, lora)
        self.model.to(self.device, dtype=getattr(torch, dtype))  # the adapters too
        self.optimizers = {}
        for name in self.names:
            params = [p for n, p in self.model.named_parameters() if f".{name}." in n]
            for p in params:
                p.requires_grad_(True)
            self.optimizers[name] = torch.optim.AdamW(params, lr=1e-4)
        b, s = config.micro_batch, config.seq_len
        if family == "vit":
            size = ARCHITECTURES[config.model][1]["image_size"]
            self.batch = {"pixel_values": torch.randn(b, 3, size, size, generator=generator)
                          .to(self.device, dtype=getattr(torch, dtype)),
                          "labels": torch.randint(0, 1000, (b,), generator=generator)
                          .to(self.device)}
        else:
            vocab = ARCHITECTURES[config.model][1].get("vocab_size", 1000)
            ids = torch.randint(0, vocab, (b, s), generator=generator).to(self.device)
            labels = (ids if family in ("gpt2", "llama")
                      else torch.randint(0, 2, (b,), generator=generator).to(self.device))
            self.batch = {"input_ids": ids, "labels": labels}
        self.model.train()

    def _step(self) -> None:
        for name in self.names:
            self.model.set_adapter(name)
            loss = self.model(**self.batch).loss
            loss.backward()
            self.optimizers[name].step()
            self.optimizers[name].zero_grad(set_to_none=True)

    def run(self, n: int) -> float:
        try:
            return self._run(n)
        except self.torch.cuda.OutOfMemoryError as error:
            raise DoesNotFit(str(error).splitlines()[0]) from None

    def _run(self, n: int) -> float:
        torch = self.torch
        if self.cuda:
            start, end = (torch.cuda.Event(enable_timing=True),
                          torch.cuda.Event(enable_timing=True))
            start.record()
            for _ in range(n):
                self._step()
            end.record()
            torch.cuda.synchronize()
            return start.elapsed_time(end) / 1000.0
        began = time.perf_counter()
        for _ in range(n):
            self._step()
        return time.perf_counter() - began

    def reset_peak(self) -> None:
        if self.cuda:
            self.torch.cuda.reset_peak_memory_stats(self.device)

    def peak_memory_gb(self) -> float:
        return (self.torch.cuda.max_memory_allocated(self.device) / 1e9 if self.cuda
                else 0.0)

    def close(self) -> None:
        """Remove the adapters from the kept base model and free what they held."""
        if self.model is not None:
            self.model.unload()  # the base model without its LoRA layers
        self.model = self.optimizers = self.batch = None
        gc.collect()
        if self.cuda:
            self.torch.cuda.empty_cache()


def workload(config, *, device: str = "cuda", dtype: str = "bfloat16", seed: int = 0):
    """A :class:`TorchWorkload` (``InputError`` saying how to install torch if missing)."""
    return TorchWorkload(config, device=device, dtype=dtype, seed=seed)


def device_name(device: str) -> str:
    """The GPU's name (or "cpu") for the table's provenance."""
    torch, _, _ = _modules()
    if device.startswith("cuda") and torch.cuda.is_available():
        return torch.cuda.get_device_name(torch.device(device))
    return "cpu"
