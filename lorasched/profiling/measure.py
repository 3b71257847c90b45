"""One measurement of ``lorasched profile`` (:func:`measure`): the grid, its workloads
(``torch`` or ``published``), the timing and the table written as it grows. The command
line and a script on a lent GPU both call it. See :doc:`/reference/gpu_profiles`.
"""

from __future__ import annotations

from . import harness, torch_backend
from . import table as measured


def measure(*, model: str, gpu_label: str, ranks, micro_batches, seq_len: int,
            adapters=(1,), warmup: int = 3, steps: int = 10, repeats: int = 1,
            backend: str = "torch", device: str = "cuda", dtype: str = "bfloat16",
            seed: int = 0, out, command: str = "", extra: dict | None = None,
            progress: bool = True, on_row=None) -> measured.MeasuredTable:
    """Time every combination of ``ranks``, ``micro_batches`` and ``adapters`` of
    ``model`` (samples of ``seq_len`` tokens) and write the measured table to ``out``
    after each configuration (a run cut short keeps what it measured).

    Parameters
    ----------
    model, gpu_label, ranks, micro_batches, seq_len, adapters
        The grid (:func:`~lorasched.profiling.harness.grid`).
    warmup, steps, repeats
        Untimed steps, then ``repeats`` timed blocks of ``steps`` steps
        (:func:`~lorasched.profiling.harness.profile`).
    backend : {"torch", "published"}
        PyTorch + PEFT on ``device`` in ``dtype`` with weights seeded by ``seed``, or the
        published model of :class:`~lorasched.profiling.harness.PublishedWorkload`.
    out : path-like
        The CSV to write.
    command : str
        The command line recorded in the table's provenance.
    extra : dict, optional
        More provenance lines (name -> text).
    progress : bool
        Whether to show a progress bar.
    on_row : callable, optional
        Also called with the table so far after each configuration.

    Returns
    -------
    MeasuredTable
        The table written.
    """
    configs = harness.grid(model, gpu_label, ranks, micro_batches, seq_len, adapters)
    if backend == "published":
        build, name = harness.PublishedWorkload, "none (published numbers)"
    else:
        name = torch_backend.device_name(device)

        def build(config):
            return torch_backend.workload(config, device=device, dtype=dtype, seed=seed)
    provenance = harness.provenance(backend, name, command, {
        "gpu_label": gpu_label, "dtype": dtype if backend == "torch" else "",
        "warmup": warmup, "seed": seed if backend == "torch" else "", **(extra or {})})

    def save(so_far: measured.MeasuredTable) -> None:
        measured.write(out, so_far)
        if on_row is not None:
            on_row(so_far)

    table = harness.profile(configs, build, warmup=warmup, steps=steps, repeats=repeats,
                            provenance=provenance, progress=progress,
                            on_row=save)
    measured.write(out, table)
    return table
