"""lorasched.profiling.compare: the shipped measured tables beside the published numbers."""

from __future__ import annotations

import pytest

import lorasched
from lorasched.model import profiles
from lorasched.profiling import compare
from lorasched.profiling import table as measured
from lorasched.profiling.harness import Config, PublishedWorkload


@pytest.fixture(scope="module")
def tables():
    return compare.shipped("H200")


def test_the_shipped_tables_cover_the_measured_models(tables):
    assert set(tables) == {"gpt2-xl", "llama2-7b", "llama3-8b", "roberta-base", "vit-large"}
    for t in tables.values():
        assert t.provenance["device"] == "NVIDIA H200" and "lorasched profile" in \
            t.provenance["command"]
        assert all(r["repeats"] == 3 for r in t.rows)
        assert all(r["step_time_min_s"] <= r["step_time_s"] <= r["step_time_max_s"]
                   for r in t.rows)
    with pytest.raises(lorasched.InputError, match="no measured tables of 'B300'"):
        compare.shipped("B300")


def test_the_spread_is_the_blocks_range_over_the_median(tables):
    df = compare.frame(tables["llama2-7b"])
    r = tables["llama2-7b"].rows[0]
    assert df["spread"][0] == pytest.approx(
        (r["step_time_max_s"] - r["step_time_min_s"]) / r["step_time_s"])
    got = compare.spread(tables).set_index("model")
    assert got.loc["llama2-7b", "largest spread"] == pytest.approx(df["spread"].max())


def test_the_ratio_to_the_published_model_is_per_configuration(tables):
    df = compare.against_published(tables["gpt2-xl"], "A100")
    r = tables["gpt2-xl"].rows[5]
    p = PublishedWorkload(Config("gpt2-xl", "A100", r["rank"], r["micro_batch"],
                                 r["seq_len"], r["adapters"]))
    want = r["samples_per_s"] / (r["adapters"] * r["micro_batch"] / p.step_s)
    assert df["speed ratio"][5] == pytest.approx(want)
    assert df["memory ratio"][5] == pytest.approx(r["peak_memory_gb"] / p.memory_gb)
    with pytest.raises(lorasched.InputError, match="GPT-2 XL"):
        compare.against_published(tables["llama2-7b"])


def test_the_adapter_gain_is_over_one_adapter_at_the_same_micro_batch(tables):
    df = compare.adapter_scaling(tables["gpt2-xl"])
    assert sorted(set(df["adapters"])) == [2, 4, 8]
    row = df[(df["adapters"] == 4) & (df["micro_batch"] == 2)].iloc[0]
    t = tables["gpt2-xl"]
    four = t.select(rank=16, micro_batch=2, adapters=4)[0]["samples_per_s"]
    one = t.select(rank=16, micro_batch=2, adapters=1)[0]["samples_per_s"]
    assert row["gain"] == pytest.approx(four / one)


def test_every_published_gain_names_its_source():
    assert all(g["source"] and g["mean"] > 1 for g in compare.PUBLISHED_MULTI_ADAPTER)


def test_a_pdftsp_day_on_the_measured_node(tables):
    node = measured.pdftsp_node(tables["gpt2-xl"], model="gpt2-xl", gpu_label="H200",
                                rank=16, seq_len=1024)
    df = compare.pdftsp_days(node, nodes=3, load=4.0, seed=0).set_index("cluster")
    assert list(df.index) == ["published A100", "published A100/A40 mix", "measured H200"]
    assert df["tasks"].nunique() == 1  # the same tasks on each cluster
    assert df.loc["measured H200", "C_kp (samples per slot)"] == node.capacity
    assert (df["admitted"] <= df["tasks"]).all()


def test_titan_runs_put_the_same_one_gpu_jobs_on_both_luts(tables):
    lut = measured.titan_lut(tables["vit-large"], model="vit-large", gpu_label="H200",
                             seq_len=197)
    df = compare.titan_runs(lut, jobs=8, seed=0, policies=("srtf",))
    assert list(df["LUT"]) == ["authors' LUT (V100)", "measured LUT (H200)"]
    assert df["jobs"].nunique() == 1 and df["jobs"].iloc[0] > 0
    assert df["average JCT (h)"].iloc[0] != df["average JCT (h)"].iloc[1]


def test_allpass_runs_and_epochs_on_the_measured_seconds(tables):
    per_epoch = measured.allpass_per_epoch(list(tables.values()))
    epochs = compare.allpass_epochs(per_epoch).set_index("model")
    samples, _, _ = measured.ALLPASS_EPOCH["BERT"]
    speed = samples / per_epoch["BERT"]
    assert epochs.loc["BERT", "samples in Table 4's seconds at the measured speed"] == \
        pytest.approx(20.0 * speed)
    df = compare.allpass_runs(per_epoch, label="H200", jobs=20)
    assert list(df["per-epoch seconds"]) == ["Table 4 (A100)", "measured (H200)"]
    assert df["work (GPU-h)"].iloc[1] > df["work (GPU-h)"].iloc[0]


def test_measured_multi_adapter_range_is_the_shipped_tables():
    """profiles.MEASURED_MULTI_ADAPTER holds the GPT-2 XL table's smallest and largest gain."""
    got = compare.adapter_scaling(compare.shipped()["gpt2-xl"])["gain"]
    m = profiles.MEASURED_MULTI_ADAPTER
    assert (round(float(got.min()), 3), round(float(got.max()), 3)) == (m["low"], m["high"])
