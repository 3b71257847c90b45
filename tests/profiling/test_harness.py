"""lorasched.profiling.harness: the harness times what its workload runs (a stand-in step
here: the torch backend needs the optional extra and, to mean anything, a GPU), and the
published backend writes exactly what pdFTSP's scenarios assume."""

from __future__ import annotations

import importlib.util

import pytest

import lorasched
from lorasched.cli import main
from lorasched.model import profiles
from lorasched.profiling import harness as profiler
from lorasched.profiling import table as measured


class StandIn:
    """A workload whose step takes ``step_s`` (a virtual clock) and whose memory grows
    with the steps run; it records every call."""

    def __init__(self, config, step_s=0.05, fail=False):
        self.config, self.step_s, self.fail = config, step_s, fail
        self.calls, self.base_memory_gb, self.steps_run = [], 1.5, 0

    def run(self, n):
        self.calls.append(("run", n))
        if self.fail:
            raise RuntimeError("out of memory")
        self.steps_run += n
        return n * self.step_s * self.config.adapters

    def reset_peak(self):
        self.calls.append(("reset_peak",))

    def peak_memory_gb(self):
        return self.base_memory_gb + 0.1 * self.config.micro_batch * self.config.adapters

    def close(self):
        self.calls.append(("close",))


def test_the_harness_warms_up_then_times_a_counted_number_of_steps():
    made = []

    def build(config):
        made.append(StandIn(config))
        return made[-1]

    configs = profiler.grid("tiny-llama", "CPU", [4, 8], [1, 2], 64, [1, 3])
    table = profiler.profile(configs, build, warmup=2, steps=5, progress=False,
                             provenance={"device": "stand-in"})
    assert len(table.rows) == len(configs) == 8
    for work in made:
        assert work.calls == [("run", 2), ("reset_peak",), ("run", 5), ("close",)]
    first = table.select(rank=4, micro_batch=2, adapters=3)[0]
    assert first["step_time_s"] == pytest.approx(0.05 * 3)
    assert first["samples_per_s"] == pytest.approx(3 * 2 / 0.15)
    assert first["tokens_per_s"] == pytest.approx(first["samples_per_s"] * 64)
    assert first["peak_memory_gb"] == pytest.approx(1.5 + 0.6)
    assert table.provenance == {"device": "stand-in"}


def test_repeated_blocks_give_the_median_and_the_spread():
    class Drifting(StandIn):
        """Each timed block slower than the last: 1, 2, 3, ... x the step."""

        def run(self, n):
            self.calls.append(("run", n))
            self.steps_run += 1
            return n * self.step_s * self.steps_run

    made, saved = [], []

    def build(config):
        made.append(Drifting(config))
        return made[-1]

    table = profiler.profile(profiler.grid("tiny-gpt2", "CPU", [4], [1, 2], 32), build,
                             warmup=1, steps=3, repeats=3, progress=False,
                             on_row=lambda t: saved.append(len(t.rows)))
    assert made[0].calls == [("run", 1), ("reset_peak",), ("run", 3), ("run", 3),
                             ("run", 3), ("close",)]
    r = table.rows[0]  # blocks 2, 3, 4 x the step after the warm-up
    assert (r["repeats"], r["step_time_min_s"], r["step_time_s"], r["step_time_max_s"]) == \
        (3, pytest.approx(0.1), pytest.approx(0.15), pytest.approx(0.2))
    assert saved == [1, 2]  # the table handed over after each configuration
    with pytest.raises(lorasched.InputError, match="--repeats"):
        profiler.profile([], build, repeats=0)


def test_a_configuration_that_does_not_fit_is_skipped_and_listed():
    class TooBig(StandIn):
        def run(self, n):
            if self.config.micro_batch > 2:
                raise profiler.DoesNotFit("out of memory")
            return super().run(n)

    made = []

    def build(config):
        made.append(TooBig(config))
        return made[-1]

    table = profiler.profile(profiler.grid("tiny-gpt2", "CPU", [4], [1, 2, 4, 8], 32), build,
                             progress=False)
    assert [r["micro_batch"] for r in table.rows] == [1, 2]
    assert [c["micro_batch"] for c in table.skipped] == [4, 8]
    assert all(w.calls[-1] == ("close",) for w in made)


def test_a_workload_that_fails_is_closed_and_the_error_raised():
    made = []

    def build(config):
        made.append(StandIn(config, fail=True))
        return made[-1]

    with pytest.raises(RuntimeError, match="out of memory"):
        profiler.profile(profiler.grid("tiny-gpt2", "CPU", [4], [1], 32), build,
                         progress=False)
    assert made[0].calls[-1] == ("close",)


@pytest.mark.parametrize("args, rule", [
    (("llama-70b", "H100", [8], [1], 512), "--model: 'llama-70b' is not an architecture"),
    (("gpt2", "", [8], [1], 512), "--gpu-label"),
    (("gpt2", "H,100", [8], [1], 512), "--gpu-label"),
    (("gpt2", "H100", [0], [1], 512), "--ranks"),
    (("gpt2", "H100", [8], [], 512), "--micro-batches"),
    (("gpt2", "H100", [8], [1], 0), "--seq-len"),
])
def test_a_bad_grid_is_refused_by_flag(args, rule):
    with pytest.raises(lorasched.InputError, match=rule):
        profiler.grid(*args)


def test_warmup_and_steps_are_counts():
    configs = profiler.grid("gpt2", "H100", [8], [1], 512)
    with pytest.raises(lorasched.InputError, match="--steps"):
        profiler.profile(configs, StandIn, steps=0, progress=False)
    with pytest.raises(lorasched.InputError, match="--warmup"):
        profiler.profile(configs, StandIn, warmup=-1, progress=False)


def test_the_published_backend_gives_back_the_scenarios_own_numbers(tmp_path):
    """`lorasched profile --backend published` then the pdFTSP reader: s_ik, C_kp, r_i and
    r_b are those of lorasched.model.profiles (within one sample per slot of 3,586 to
    10,758)."""
    out = tmp_path / "published.csv"
    assert main(["profile", "--backend", "published", "--model", "gpt2-xl", "--gpu-label",
                 "A100", "--micro-batches", "1,2,4", "--adapters", "1,4", "--seq-len",
                 "1024", "--out", str(out), "--no-progress"]) == 0
    table = measured.read(out)
    assert table.provenance["backend"] == "published"
    assert table.provenance["command"].startswith("lorasched profile")
    got = measured.pdftsp_profile(table, model="gpt2-xl", gpu_label="A100", rank=16,
                                  seq_len=1024)
    gpu, model = profiles.GPUS["A100-80GB"], profiles.GPT2_XL
    for b in (1, 2, 4):
        assert abs(got["speed"][b] - profiles.task_speed(gpu, b, model)) <= 1
        assert got["memory_gb"][b] == pytest.approx(profiles.task_memory(b, model))
    assert abs(got["capacity"] - profiles.node_capacity(gpu, model)) <= 1
    assert got["base_model_memory_gb"] == pytest.approx(model.base_model_memory_gb)


@pytest.mark.parametrize("argv, rule", [
    (["--model", "gpt2", "--gpu-label", "A100"], "the published profile is GPT-2 XL"),
    (["--model", "gpt2-xl", "--gpu-label", "H100"], "the published profile is GPT-2 XL"),
    (["--model", "gpt2-xl", "--gpu-label", "A40", "--seq-len", "512"], "1024 tokens"),
])
def test_the_published_backend_says_what_it_covers(tmp_path, capsys, argv, rule):
    with pytest.raises(SystemExit) as exit_:
        main(["profile", "--backend", "published", *argv, "--out", str(tmp_path / "x.csv"),
              "--no-progress"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and rule in err and err.count("\n") == 1


def test_the_torch_backend_without_torch_says_how_to_install_it(tmp_path, capsys):
    # the extra `rl` brings torch alone: the message is due while any of the three is absent
    if all(importlib.util.find_spec(m) for m in ("torch", "transformers", "peft")):
        pytest.skip("torch, transformers and peft are installed: nothing to say")
    with pytest.raises(SystemExit) as exit_:
        main(["profile", "--model", "tiny-gpt2", "--gpu-label", "CPU", "--device", "cpu",
              "--out", str(tmp_path / "x.csv"), "--no-progress"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "lorasched[profile]" in err and err.count("\n") == 1
