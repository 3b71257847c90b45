"""GPU and model profiles: per-task speed, node capacity, task memory and base-model size, from
published specifications and measurements (:data:`SOURCES`) and labelled assumptions
(:func:`node_capacity`, :func:`task_speed`, :func:`task_memory`, :func:`profile_table`). The
derivation: :doc:`/reference/gpu_profiles`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: citations used by the tables below
SOURCES = {
    "a100-datasheet": "NVIDIA A100 Tensor Core GPU datasheet (2021): 80 GB HBM2e, "
    "BF16 dense 312 TFLOPS, max TDP 400 W (SXM4)",
    "a40-datasheet": "NVIDIA A40 datasheet (2020): 48 GB GDDR6, BF16 dense 149.7 TFLOPS, "
    "max power 300 W",
    "gpt2": "Radford et al. 2019, 'Language Models are Unsupervised Multitask Learners', "
    "Table 2; Hugging Face gpt2-xl config: 1,557,611,200 parameters, 48 layers, "
    "d_model 1600, 25 heads, context 1024",
    "kaplan": "Kaplan et al. 2020, 'Scaling Laws for Neural Language Models', sec. 2.1: "
    "training costs about 6N FLOPs per token",
    "lora": "Hu et al. 2021, 'LoRA: Low-Rank Adaptation of Large Language Models', "
    "sec. 4.2: 25% training speed-up over full fine-tuning (GPT-3 175B)",
    "megatron": "Narayanan et al. SC'21, 'Efficient Large-Scale Language Model Training on "
    "GPU Clusters Using Megatron-LM', Table 1: 1.7B GPT model at 137 TFLOPS per A100 = "
    "44% of peak",
    "korthikanti": "Korthikanti et al. 2022, 'Reducing Activation Recomputation in Large "
    "Transformer Models', eq. 1: activations per layer = s*b*h*(34 + 5*a*s/h) bytes",
    "run_clm": "Hugging Face transformers examples/pytorch/language-modeling/run_clm.py: "
    "texts are concatenated and grouped into blocks of the model's context (1024 for GPT-2)",
    "uptime": "Uptime Institute Global Data Center Survey 2023: average PUE 1.58",
    "eia": "U.S. EIA Electric Power Monthly, 2023 average retail price to industrial "
    "customers: about 8 cents per kWh",
    "aws": "AWS EC2 on-demand price of p4de.24xlarge (8x A100-80GB), us-east-1: "
    "$40.97 per hour, i.e. $5.12 per GPU-hour",
    "assumption": "modelling assumption of lorasched (not measured); change it freely",
}


@dataclass(frozen=True)
class GPUProfile:
    """One GPU model. Units: GB, TFLOPS (dense BF16), W."""

    name: str
    memory_gb: float
    peak_tflops: float
    power_w: float
    source: str


GPUS: dict[str, GPUProfile] = {
    "A100-80GB": GPUProfile("A100-80GB", 80.0, 312.0, 400.0, "a100-datasheet"),
    "A40-48GB": GPUProfile("A40-48GB", 48.0, 149.7, 300.0, "a40-datasheet"),
}

#: short names accepted by :func:`lorasched.synthetic_scenario`
GPU_ALIASES = {"A100": "A100-80GB", "A40": "A40-48GB"}


@dataclass(frozen=True)
class ModelProfile:
    """The shared base model and how its LoRA fine-tuning uses a GPU."""

    name: str = "GPT-2 XL"
    parameters: float = 1_557_611_200  # gpt2
    layers: int = 48  # gpt2
    hidden: int = 1600  # gpt2
    heads: int = 25  # gpt2
    tokens_per_sample: int = 1024  # run_clm (full context)
    lora_speedup: float = 1.25  # lora
    mfu: float = 0.44  # megatron
    batch_half_saturation: float = 2.0  # assumption
    task_overhead_gb: float = 1.0  # assumption: adapters, optimiser state, CUDA workspace
    micro_batches: tuple[int, ...] = (1, 2, 4)  # assumption: what users pick

    @property
    def flops_per_sample(self) -> float:
        """LoRA training FLOPs per sample: 6 N L / speed-up (kaplan, lora)."""
        return 6.0 * self.parameters * self.tokens_per_sample / self.lora_speedup

    @property
    def base_model_memory_gb(self) -> float:
        """r_b: 16-bit weights of the base model, GB."""
        return 2.0 * self.parameters / 1e9

    @property
    def activation_gb_per_sample(self) -> float:
        """Korthikanti et al. eq. 1, summed over layers, GB per sample."""
        s, h, a = self.tokens_per_sample, self.hidden, self.heads
        return self.layers * s * h * (34 + 5 * a * s / h) / 1e9


GPT2_XL = ModelProfile()


def node_capacity(gpu: GPUProfile, model: ModelProfile = GPT2_XL, slot_minutes=10) -> int:
    """C_kp: samples per slot of a saturated node (see module docstring)."""
    flops = model.mfu * gpu.peak_tflops * 1e12 * slot_minutes * 60
    return int(flops // model.flops_per_sample)


def task_speed(gpu: GPUProfile, batch: int, model: ModelProfile = GPT2_XL, slot_minutes=10):
    """s_ik: samples per slot of one task with micro-batch ``batch`` alone on ``gpu``."""
    cap = node_capacity(gpu, model, slot_minutes)
    return int(cap * batch // (batch + model.batch_half_saturation))


def task_memory(batch: int, model: ModelProfile = GPT2_XL) -> float:
    """r_i: GPU memory of one task with micro-batch ``batch``, GB (rounded up to 0.1 GB)."""
    gb = model.task_overhead_gb + batch * model.activation_gb_per_sample
    return math.ceil(gb * 10) / 10


def power_kw(gpu: GPUProfile) -> float:
    return gpu.power_w / 1000.0


#: operating cost and valuation calibration
PUE = 1.58  # uptime
ELECTRICITY_USD_PER_KWH = 0.08  # eia (daily mean; the diurnal shape is an assumption)
GPU_HOUR_USD = 40.97 / 8  # aws


def profile_table(model: ModelProfile = GPT2_XL, slot_minutes: int = 10) -> list[dict]:
    """Every derived profile number with its formula inputs and sources, one row each."""
    rows = [
        {"quantity": "base model memory r_b (GB)", "gpu": "any",
         "value": round(model.base_model_memory_gb, 2), "source": "gpt2"},
        {"quantity": "FLOPs per sample", "gpu": "any",
         "value": f"{model.flops_per_sample:.3e}", "source": "gpt2, kaplan, lora, run_clm"},
        {"quantity": "activation memory per sample (GB)", "gpu": "any",
         "value": round(model.activation_gb_per_sample, 2), "source": "korthikanti, gpt2"},
        {"quantity": "model FLOPs utilisation when saturated", "gpu": "any",
         "value": model.mfu, "source": "megatron"},
        {"quantity": "batch of half saturation", "gpu": "any",
         "value": model.batch_half_saturation, "source": "assumption"},
    ]
    for gpu in GPUS.values():
        rows.append({"quantity": "memory C_km (GB)", "gpu": gpu.name,
                     "value": gpu.memory_gb, "source": gpu.source})
        rows.append({"quantity": "peak BF16 TFLOPS", "gpu": gpu.name,
                     "value": gpu.peak_tflops, "source": gpu.source})
        rows.append({"quantity": "capacity C_kp (samples/slot)", "gpu": gpu.name,
                     "value": node_capacity(gpu, model, slot_minutes),
                     "source": "derived: mfu * peak * slot / FLOPs per sample"})
        for b in model.micro_batches:
            rows.append({"quantity": f"speed s_ik, micro-batch {b} (samples/slot)",
                         "gpu": gpu.name, "value": task_speed(gpu, b, model, slot_minutes),
                         "source": "derived: C_kp * b / (b + b_half)"})
    for b in model.micro_batches:
        rows.append({"quantity": f"task memory r_i, micro-batch {b} (GB)", "gpu": "any",
                     "value": task_memory(b, model), "source": "korthikanti + assumption"})
    return rows


#: published gains of training several LoRA adapters together, each with its source: the
#: systems, their baseline, the gain (mean and best where given) and what it measures
PUBLISHED_MULTI_ADAPTER = [
    {"system": "LoRAFusion", "against": "Megatron-LM", "mean": 1.47, "best": 1.96,
     "measure": "end-to-end training throughput",
     "source": "Zhu et al. 2025, LoRAFusion: Efficient LoRA Fine-Tuning for LLMs, "
               "arXiv:2510.00206, abstract"},
    {"system": "LoRAFusion", "against": "mLoRA", "mean": 1.29, "best": 1.46,
     "measure": "end-to-end training throughput",
     "source": "Zhu et al. 2025, arXiv:2510.00206, abstract"},
    {"system": "mLoRA", "against": "FSDP", "mean": 1 / 0.7, "best": None,
     "measure": "average task completion time, 30 % lower (as a speed-up: 1 / 0.7)",
     "source": "Ye et al. 2025, mLoRA: Fine-Tuning LoRA Adapters via Highly-Efficient "
               "Pipeline Parallelism in Multiple GPUs, VLDB 2025 (arXiv:2312.02515), "
               "abstract"},
]

#: the gain of several adapters sharing one base model on one GPU, measured by lorasched on
#: a lent H200 (``traces/profiles/H200-gpt2-xl.csv``, 2, 4 and 8 adapters run one after
#: another in each step with PEFT, micro-batches 1 to 8, rank 16; the book's page "Measured
#: on an H200"): the smallest and the largest samples per second over one adapter's
MEASURED_MULTI_ADAPTER = {"model": "gpt2-xl", "gpu": "H200", "low": 0.591, "high": 1.028,
                          "source": "traces/profiles/H200-gpt2-xl.csv "
                                    "(lorasched.profiling.compare.adapter_scaling)"}


def colocation_gain(gpu: GPUProfile, model: ModelProfile = GPT2_XL, slot_minutes=10) -> float:
    """The samples per slot of a full node over those of its fastest task alone (the
    largest micro-batch), as :func:`node_capacity` and :func:`task_speed` model them:
    pdFTSP's scenarios' co-location gain when none is set."""
    alone = max(task_speed(gpu, b, model, slot_minutes) for b in model.micro_batches)
    return node_capacity(gpu, model, slot_minutes) / alone
