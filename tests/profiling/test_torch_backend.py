"""lorasched.profiling.torch_backend: `lorasched profile --backend torch` on a CPU with tiny
models. torch, transformers and peft are the optional extra `lorasched[profile]`, not in
the lock: without them these tests are skipped (and `test_profiler` checks the message
that says how to install them)."""

from __future__ import annotations

import pytest

from lorasched.cli import main
from lorasched.profiling import table as measured

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")


@pytest.mark.parametrize("model", ["tiny-gpt2", "tiny-llama"])
def test_profile_times_tiny_models_on_a_cpu(tmp_path, model):
    out = tmp_path / f"{model}.csv"
    assert main(["profile", "--model", model, "--gpu-label", "CPU", "--device", "cpu",
                 "--dtype", "float32", "--ranks", "4,8", "--micro-batches", "1,2",
                 "--adapters", "1,2", "--seq-len", "32", "--warmup", "1", "--steps", "2",
                 "--out", str(out), "--no-progress"]) == 0
    table = measured.read(out)
    assert len(table.rows) == 8
    assert all(r["step_time_s"] > 0 and r["samples_per_s"] > 0 for r in table.rows)
    assert table.provenance["device"] == "cpu" and "torch" in table.provenance
    lut = measured.titan_placements(table, model=model, gpu_label="CPU", rank=4, seq_len=32)
    assert [r["local_bsz"] for r in lut] == [1, 2]
