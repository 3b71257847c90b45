"""TITAN's throughput look-up table (lorasched.titan.lut) on the authors' shipped
measurements and on small hand-made tables."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from lorasched.titan import (
    GPUS,
    MODELS,
    best_configuration,
    compact_placement,
    from_frames,
    load_lut,
    lut_dir,
    paper_batches,
    step_time,
    throughput,
)

LUT = lut_dir()


def _csv_row(gpu, model, placement, local_bsz):
    """step_time, sync_time of one row of a shipped placements CSV (read with csv, not
    pandas, so the check is independent of the loader)."""
    with open(LUT / gpu / f"{model}_placements.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["placement"] == placement and int(row["local_bsz"]) == local_bsz:
                return float(row["step_time"]), float(row["sync_time"])
    raise AssertionError(f"no row {placement} {local_bsz}")


@pytest.fixture(scope="module")
def a100():
    return load_lut("A100", "vit-large")


def _copy_model(tmp_path, gpu="A100", model="vit-large"):
    (tmp_path / gpu).mkdir(parents=True, exist_ok=True)
    for path in (LUT / gpu).glob(f"{model}_*.csv"):
        shutil.copy(path, tmp_path / gpu / path.name)
    return tmp_path / gpu / f"{model}_placements.csv"


def test_shipped_data_sits_with_its_licence_and_readme():
    """The default folder is traces/titansched/lut, with LICENSE and README beside it."""
    assert LUT.parts[-3:] == ("traces", "titansched", "lut")
    assert "MIT License" in (LUT.parent / "LICENSE").read_text()
    readme = (LUT.parent / "README.md").read_text()
    assert "gaow0007/TitanSched" in readme and "f71cf44" in readme and "WeiGao" in readme


@pytest.mark.parametrize("gpu", GPUS)
@pytest.mark.parametrize("model", MODELS)
def test_every_shipped_pair_loads_with_dims_units_and_provenance(gpu, model):
    """Every shipped (gpu, model) loads: dims, units, coords, attrs, row count."""
    lut = load_lut(gpu, model)
    assert lut["step_time"].dims == ("placement", "local_bsz")
    assert lut["sync_time"].dims == ("placement", "local_bsz")
    assert lut["step_time"].attrs["units"] == "s" and lut["sync_time"].attrs["units"] == "s"
    assert lut["memory"].dims == ("memory_bsz",) and lut["memory"].attrs["units"] == "GB"
    assert lut["context_switch_s"].dims == ("app",)
    assert lut["context_switch_s"].attrs["units"] == "s"
    assert lut.attrs["gpu"] == gpu and lut.attrs["model"] == model
    assert "gaow0007/TitanSched" in lut.attrs["source"] and "f71cf44" in lut.attrs["source"]
    assert "MIT" in lut.attrs["source"]
    rows = sum(1 for _ in open(LUT / gpu / f"{model}_placements.csv")) - 1
    assert int(np.isfinite(lut["step_time"].values).sum()) == rows
    assert np.all(np.diff(lut["local_bsz"].values) > 0)
    assert set(lut["gpus"].values.tolist()) == set(range(1, 17))
    assert np.all(lut["sync_time"].values[np.isfinite(lut["sync_time"].values)] >= 0)


def test_a_value_read_back_equals_the_csv(a100):
    """One cell of the Dataset equals the CSV row it came from."""
    t, y = _csv_row("A100", "vit-large", "44", 64)
    assert a100["step_time"].sel(placement="44", local_bsz=64).item() == t
    assert a100["sync_time"].sel(placement="44", local_bsz=64).item() == y
    first = pd.read_csv(LUT / "A100" / "vit-large_memory.csv").iloc[0]
    assert a100["memory"].sel(memory_bsz=int(first.local_bsz)).item() == first.gpu_memory
    switch = pd.read_csv(LUT / "A100" / "vit-large_context_switch.csv").iloc[0]
    assert a100["context_switch_s"].sel(app=switch.app).item() == switch.time_cost


def test_gpus_and_nodes_coords_come_from_the_placement_strings(a100):
    """gpus = sum of the placement's digits, nodes = its number of digits."""
    assert a100["gpus"].sel(placement="44").item() == 8
    assert a100["nodes"].sel(placement="44").item() == 2
    assert a100["gpus"].sel(placement="1444").item() == 13
    assert a100["nodes"].sel(placement="1444").item() == 4
    for p, g, n in zip(a100["placement"].values, a100["gpus"].values, a100["nodes"].values,
                       strict=True):
        assert g == sum(int(c) for c in p) and n == len(p)


def test_compact_placement_takes_fewest_then_fullest_nodes(a100):
    """The most compact placement: fewest nodes, then fullest nodes ('14' before '23')."""
    expected = {1: "1", 4: "4", 5: "14", 6: "24", 8: "44", 9: "144", 10: "244", 13: "1444",
                14: "2444", 16: "4444"}
    assert {g: compact_placement(a100, g) for g in expected} == expected


def test_step_time_at_a_measured_local_batch_equals_the_csv(a100):
    """512 on 8 GPUs = local batch 64 on placement '44': the CSV's step_time exactly."""
    assert step_time(a100, 8, 512) == _csv_row("A100", "vit-large", "44", 64)[0]


def test_step_time_interpolates_linearly_between_measured_local_batches(a100):
    """Local batch 80 lies between measured 64 and 96: linear interpolation by hand."""
    t64 = _csv_row("A100", "vit-large", "44", 64)[0]
    t96 = _csv_row("A100", "vit-large", "44", 96)[0]
    by_hand = t64 + (80 - 64) / (96 - 64) * (t96 - t64)
    assert step_time(a100, 8, 8 * 80) == pytest.approx(by_hand, rel=1e-12)


def test_accumulation_splits_into_micro_steps_and_only_the_last_syncs(a100):
    """Local batch above the largest that fits: k micro-steps, k - 1 of them without sync."""
    # the memory table's largest local batch is 256: global 2048 on 4 GPUs = local 512,
    # k = ceil(512 / 256) = 2 micro-steps of 256: one without sync, one with
    t, y = _csv_row("A100", "vit-large", "4", 256)
    assert step_time(a100, 4, 1024) == t  # local 256: no accumulation
    assert step_time(a100, 4, 2048) == pytest.approx((t - y) + t, rel=1e-12)
    # global 4096 on 4 GPUs = local 1024: k = 4 micro-steps, 3 without sync
    assert step_time(a100, 4, 4096) == pytest.approx(3 * (t - y) + t, rel=1e-12)
    # max_local_bsz = 100 on 2 GPUs, global 400: local 200, k = 2, micro 100, interpolated
    t96, y96 = _csv_row("A100", "vit-large", "2", 96)
    t128, y128 = _csv_row("A100", "vit-large", "2", 128)
    t100 = t96 + (100 - 96) / (128 - 96) * (t128 - t96)
    y100 = y96 + (100 - 96) / (128 - 96) * (y128 - y96)
    assert step_time(a100, 2, 400, max_local_bsz=100) == pytest.approx(
        (t100 - y100) + t100, rel=1e-12)


def test_the_authors_micro_batch_never_passes_the_global_batch():
    """micro_batch="floor" (the authors' simulator): RoBERTa-large, global batch 128 on one
    V100 (largest local batch 20): k = 7 micro-steps of 18, not 19, so 126 samples a step,
    and the time per global batch is that step's per sample times 128."""
    from lorasched.titan.lut import estimated_step_time
    lut = load_lut("V100", "roberta-large")
    t16, y16 = _csv_row("V100", "roberta-large", "1", 16)
    t20, y20 = _csv_row("V100", "roberta-large", "1", 20)

    def at(b):
        return (t16 + (b - 16) / 4 * (t20 - t16), y16 + (b - 16) / 4 * (y20 - y16))
    t19, y19 = at(19)
    t18, y18 = at(18)
    assert step_time(lut, 1, 128) == pytest.approx(t19 + 6 * (t19 - y19), rel=1e-12)
    floor = (t18 + 6 * (t18 - y18)) * 128 / 126
    assert step_time(lut, 1, 128, micro_batch="floor") == pytest.approx(floor, rel=1e-12)
    # their remaining-time estimate: one micro-step more, on the same micro-batch
    assert estimated_step_time(lut, 1, 128, micro_batch="floor") == pytest.approx(
        (t18 + 7 * (t18 - y18)) * 128 / 126, rel=1e-12)
    # where the global batch divides evenly the two agree (192 on one GPU: 10 x 19 = 190
    # still floors; 160 on one GPU: 8 x 20 exactly)
    assert step_time(lut, 1, 160, micro_batch="floor") == step_time(lut, 1, 160)
    assert step_time(lut, 1, 192, micro_batch="floor") != step_time(lut, 1, 192)
    with pytest.raises(ValueError, match="micro_batch must be one of"):
        step_time(lut, 1, 128, micro_batch="round")


def test_throughput_is_one_over_iterations_times_step_time(a100):
    """T_{i,a} = 1 / (total_iterations * step_time)."""
    assert throughput(a100, 8, 512, 1000) == pytest.approx(
        1 / (1000 * step_time(a100, 8, 512)), rel=1e-12)
    with pytest.raises(ValueError, match="total_iterations"):
        throughput(a100, 8, 512, 0)


def test_paper_batches_are_64_to_512_in_sqrt2_steps():
    """The paper's candidate global batches, 64 to 512 in base-sqrt(2) steps."""
    assert paper_batches() == [64, 91, 128, 181, 256, 362, 512]


@pytest.mark.parametrize("gpu, model, gpus", [("A100", "vit-large", 1), ("A100", "vit", 8),
                                              ("V100", "roberta-large", 4),
                                              ("V100", "vit-large", 16)])
def test_best_configuration_is_the_brute_force_minimum_of_time_per_sample(gpu, model, gpus):
    """best_configuration = the minimum of step_time / batch over the candidates."""
    lut = load_lut(gpu, model)
    candidates = paper_batches() + [1024, 3000]
    best = None
    for batch in candidates:
        try:
            per_sample = step_time(lut, gpus, batch) / batch
        except ValueError:
            continue
        if best is None or per_sample < best[1]:
            best = (batch, per_sample)
    assert best_configuration(lut, gpus, candidates) == best


def test_unknown_gpu_or_model_lists_the_choices():
    """An unknown gpu or model is refused with the choices listed."""
    with pytest.raises(ValueError, match=r"model 'gpt'.*'vit-large'"):
        load_lut("A100", "gpt")
    with pytest.raises(ValueError, match=r"gpu 'H100'.*\['A100', 'V100'\]"):
        load_lut("H100", "vit")


def test_a_csv_missing_a_column_is_named(tmp_path):
    """A placements CSV without sync_time: the error names the file and the column."""
    path = _copy_model(tmp_path)
    pd.read_csv(path).drop(columns="sync_time").to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"vit-large_placements\.csv: missing column "
                                         r"'sync_time'"):
        load_lut("A100", "vit-large", folder=tmp_path)


@pytest.mark.parametrize("value, shown", [("-0.5", "'-0.5'"), ("nan", "'nan'"),
                                          ("inf", "'inf'")])
def test_a_negative_or_non_finite_time_names_file_line_and_column(tmp_path, value, shown):
    """A bad step_time: the error names the file, the line and the column."""
    path = _copy_model(tmp_path)
    lines = path.read_text().splitlines()
    fields = lines[3].split(",")  # line 4 of the file (header is line 1)
    fields[2] = value
    lines[3] = ",".join(fields)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=rf"vit-large_placements\.csv, line 4, column "
                                         rf"'step_time'.*{shown}"):
        load_lut("A100", "vit-large", folder=tmp_path)


def test_a_negative_context_switch_time_is_named(tmp_path):
    """A negative time_cost in the context-switch CSV: file, line and column named."""
    _copy_model(tmp_path)
    (tmp_path / "A100" / "vit-large_context_switch.csv").write_text(
        "app,time_cost\nfood101,-3\n")
    with pytest.raises(ValueError, match=r"context_switch\.csv, line 2, column 'time_cost'"):
        load_lut("A100", "vit-large", folder=tmp_path)


def test_gpus_without_a_placement_lists_the_counts_available(a100):
    """17 GPUs is not measured: the error lists the GPU counts available."""
    with pytest.raises(ValueError, match=r"gpus=17.*available: \[1, 2, 3, .*16\]"):
        step_time(a100, 17, 512)


def test_a_local_batch_outside_the_measured_range_is_refused():
    """No extrapolation: a local batch below or above the measured range is refused."""
    lut = load_lut("V100", "vit-large")  # measured local_bsz 4 .. 256
    with pytest.raises(ValueError, match=r"local batch 2 .*gpus=16.*\[4, 256\]"):
        step_time(lut, 16, 32)
    with pytest.raises(ValueError, match=r"local batch 512 .*gpus=1"):
        step_time(lut, 1, 512, max_local_bsz=1000)


def test_bad_arguments_are_named(a100):
    """Non-positive or non-integer gpus, global batch, max_local_bsz are refused by name."""
    with pytest.raises(ValueError, match="gpus must be a positive integer"):
        step_time(a100, 0, 512)
    with pytest.raises(ValueError, match="global_batch must be a positive integer"):
        step_time(a100, 8, 51.2)
    with pytest.raises(ValueError, match="max_local_bsz must be a positive integer"):
        step_time(a100, 8, 512, max_local_bsz=-1)
    with pytest.raises(ValueError, match=r"batch_range\[1\]"):
        best_configuration(a100, 8, [64, 0])
    with pytest.raises(ValueError, match="non-empty"):
        best_configuration(a100, 8, [])
    with pytest.raises(ValueError, match="xarray.Dataset"):
        step_time({"step_time": 1}, 8, 512)


def test_from_frames_round_trips_the_shipped_tables(a100):
    """from_frames on the CSVs' rows builds the same Dataset as load_lut."""
    base = LUT / "A100"
    built = from_frames(pd.read_csv(base / "vit-large_placements.csv", dtype={"placement": str}),
                        pd.read_csv(base / "vit-large_memory.csv"),
                        pd.read_csv(base / "vit-large_context_switch.csv"),
                        gpu="A100", model="vit-large", source=a100.attrs["source"])
    xr.testing.assert_identical(built, a100)


def test_from_frames_takes_a_users_own_measurements():
    """A user's small table (integer placements, a gap) works; a bad row is named."""
    table = pd.DataFrame({"placement": [1, 1, 2, 2, 11],
                          "local_bsz": [8, 16, 8, 16, 8],
                          "step_time": [1.0, 2.0, 0.6, 1.1, 0.8],
                          "sync_time": [0.0, 0.0, 0.1, 0.1, 0.3]})
    lut = from_frames(table, gpu="H100", model="mine", source="my lab, 2024")
    assert list(lut["placement"].values) == ["1", "2", "11"]
    assert np.isnan(lut["step_time"].sel(placement="11", local_bsz=16).item())
    assert "memory" not in lut and "context_switch_s" not in lut
    assert step_time(lut, 2, 24) == pytest.approx(0.6 + 4 / 8 * 0.5)  # '2' before '11'
    with pytest.raises(ValueError, match=r"placements table, row 2, column 'sync_time'"):
        from_frames(table.assign(sync_time=[0.0, 0.0, -1.0, 0.1, 0.3]), gpu="H100",
                    model="mine", source="x")
    with pytest.raises(ValueError, match=r"placements table: missing column 'step_time'"):
        from_frames(table.drop(columns="step_time"), gpu="H100", model="mine", source="x")
    with pytest.raises(ValueError, match=r"duplicate \(placement, local_bsz\) \('1', 8\)"):
        from_frames(pd.concat([table, table.iloc[:1]]), gpu="H100", model="mine",
                    source="x")


def test_the_default_folder_is_the_repositorys_traces():
    """load_lut without folder reads the files under the repository's traces/."""
    assert LUT == Path(__file__).resolve().parents[2] / "traces" / "titansched" / "lut"


def test_with_scalability_adds_full_nodes_from_the_scalability_table():
    from lorasched.titan.lut import with_scalability
    lut = load_lut("V100", "vit")
    wide = with_scalability(lut, 8)
    assert wide["gpus"].values.max() == 32 and "44444444" in wide["placement"].values
    table = pd.read_csv(lut_dir() / "V100" / "vit_scalability.csv")
    row = table[(table.num_nodes == 8) & (table.num_replicas == 32) & (table.local_bsz == 16)]
    assert float(wide["step_time"].sel(placement="44444444", local_bsz=16)) == \
        pytest.approx(float(row["step_time"].iloc[0]))
    # 5 nodes: no row; the midpoint of 4 nodes (placements table) and 6 (scalability)
    mid = (wide["step_time"].sel(placement="4444") + wide["step_time"].sel(placement="444444"))
    np.testing.assert_allclose(wide["step_time"].sel(placement="44444").values,
                               (mid / 2).values)
    assert step_time(wide, 32, 256) > 0 and step_time(lut, 16, 256) == step_time(wide, 16, 256)
    assert with_scalability(lut, 4) is lut  # nothing to add up to 16 GPUs
