"""lorasched.profiling.table: the measured table's format, its reader's errors, and what
each system reads from it."""

from __future__ import annotations

import csv

import numpy as np
import pytest

import lorasched
from lorasched.allpass.workload import PER_EPOCH_S
from lorasched.model.traces import trace_dir
from lorasched.profiling import table as measured
from lorasched.profiling.compare import PROFILES

#: the shipped tables measured on a lent H200
SHIPPED = trace_dir() / "profiles"


def _table(rows=None) -> measured.MeasuredTable:
    rows = rows or [
        measured.row(model="gpt2", gpu_label="H100", rank=16, micro_batch=b, seq_len=512,
                     adapters=a, steps=10, step_time_s=0.01 * b * a ** 0.5,
                     peak_memory_gb=2.0 + 0.5 * b * a, base_memory_gb=0.4)
        for a in (1, 4) for b in (1, 2, 4)]
    return measured.MeasuredTable(rows, {"gpu": "NVIDIA H100 80GB HBM3", "date": "2026"})


def test_a_table_reads_back_as_written(tmp_path):
    table = _table()
    back = measured.read(measured.write(tmp_path / "t.csv", table))
    assert back.provenance == table.provenance
    assert len(back.rows) == 6
    for a, b in zip(table.rows, back.rows, strict=True):
        assert a.keys() == b.keys()
        for k in a:
            assert b[k] == (pytest.approx(a[k], rel=1e-9) if isinstance(a[k], float) else a[k])


def test_each_system_reads_its_numbers():
    table = _table()
    got = measured.pdftsp_profile(table, model="gpt2", gpu_label="H100", rank=16,
                                  seq_len=512)
    assert got["speed"] == {b: int(b / (0.01 * b) * 600) for b in (1, 2, 4)}
    assert got["memory_gb"][4] == pytest.approx(2.0 + 2.0 - 0.4)
    assert got["capacity"] == int(max(r["samples_per_s"] for r in table.rows) * 600)
    lut = measured.titan_placements(table, model="gpt2", gpu_label="H100", rank=16,
                                    seq_len=512)
    assert [r["local_bsz"] for r in lut] == [1, 2, 4]
    assert all(r["placement"] == "1" and r["sync_time"] == 0.0 for r in lut)
    assert measured.allpass_epoch_s(table, model="gpt2", gpu_label="H100", rank=16,
                                    seq_len=512, micro_batch=2, samples=1000) == \
        pytest.approx(1000 / 100.0)
    with pytest.raises(lorasched.InputError, match="no row for one adapter"):
        measured.pdftsp_profile(table, model="gpt2", gpu_label="A100", rank=16, seq_len=512)


#: a table written before the repeats and spread columns (which are optional)
HEADER = ",".join(c for c in measured.COLUMNS if c not in measured.OPTIONAL)
GOOD = "gpt2,H100,16,1,512,1,10,0.01,100,51200,2.5,0.4"


def test_a_table_without_the_spread_reads_as_one_repeat(tmp_path):
    path = tmp_path / "old.csv"
    path.write_text(f"# lorasched measured profile\n{HEADER}\n{GOOD}\n")
    r = measured.read(path).rows[0]
    assert (r["repeats"], r["step_time_min_s"], r["step_time_max_s"]) == (1, 0.01, 0.01)


def test_the_spread_and_what_did_not_fit_are_written_and_read(tmp_path):
    table = _table([measured.row(model="gpt2", gpu_label="H100", rank=16, micro_batch=1,
                                 seq_len=512, adapters=1, steps=4, repeats=3,
                                 step_time_s=0.02, step_time_min_s=0.019,
                                 step_time_max_s=0.025, peak_memory_gb=2.0,
                                 base_memory_gb=0.4)])
    table.skipped = [{"model": "gpt2", "gpu_label": "H100", "rank": 16, "micro_batch": 8,
                      "seq_len": 512, "adapters": 8}]
    back = measured.read(measured.write(tmp_path / "t.csv", table))
    assert (back.rows[0]["repeats"], back.rows[0]["step_time_min_s"],
            back.rows[0]["step_time_max_s"]) == (3, 0.019, 0.025)
    assert back.provenance["did_not_fit"] == (
        "model=gpt2 gpu_label=H100 rank=16 micro_batch=8 seq_len=512 adapters=8")


@pytest.mark.parametrize("text, rule", [
    (f"{HEADER}\n{GOOD}\n", "line 1: not a lorasched measured profile"),
    ("# lorasched measured profile\nmodel,rank\ngpt2,16\n", "columns ["),
    (f"# lorasched measured profile\n{HEADER}\n{GOOD.replace('0.01', 'fast')}\n",
     "line 3, column 'step_time_s': 'fast' is not a number"),
    (f"# lorasched measured profile\n{HEADER}\n{GOOD.replace(',16,', ',1.5,')}\n",
     "column 'rank': 1.5 is not a whole number >= 1"),
    (f"# lorasched measured profile\n{HEADER}\n{GOOD.replace(',10,0.01', ',10,0')}\n",
     "'step_time_s': must be > 0"),
    (f"# lorasched measured profile\n{HEADER}\n{GOOD.replace(',10,0.01', ',10,1e9')}\n",
     "exceeds lorasched's limit"),
    (f"# lorasched measured profile\n{HEADER}\n{GOOD}\n{GOOD}\n", "line 4: a second row"),
    (f"# lorasched measured profile\n{HEADER}\n", "no rows"),
])
def test_a_bad_table_is_refused_by_line_and_column(tmp_path, text, rule):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(lorasched.InputError, match=rule.replace("[", r"\[")):
        measured.read(path)


def test_out_must_be_a_file(tmp_path):
    with pytest.raises(lorasched.InputError, match="is a folder"):
        measured.write(tmp_path, _table())


def test_titan_builds_a_lut_from_a_measured_table():
    """The placement-1 rows and the memory rows are a LUT TITAN reads
    (lorasched.titan.lut.from_frames): the step time of each local batch as measured."""
    import pandas as pd

    from lorasched.titan.lut import from_frames

    table = _table()
    where = {"model": "gpt2", "gpu_label": "H100", "rank": 16, "seq_len": 512}
    lut = from_frames(pd.DataFrame(measured.titan_placements(table, **where)),
                      pd.DataFrame(measured.titan_memory(table, **where)), gpu="H100",
                      model="gpt2", source="measured by lorasched profile")
    assert lut["step_time"].sel(placement="1").values.tolist() == pytest.approx(
        [0.01, 0.02, 0.04])
    assert lut["memory"].values.tolist() == pytest.approx([2.5, 3.0, 4.0])


def test_a_measured_node_for_pdftsp_reads_the_shipped_h200_table():
    table = measured.read(PROFILES / "H200-gpt2-xl.csv")
    node = measured.pdftsp_node(table, model="gpt2-xl", gpu_label="H200", rank=16,
                                seq_len=1024)
    one = {r["micro_batch"]: r for r in table.select(rank=16, seq_len=1024, adapters=1)}
    assert node.speed == {b: int(r["samples_per_s"] * 600) for b, r in one.items()}
    assert node.memory_gb[4] == pytest.approx(one[4]["peak_memory_gb"]
                                              - one[4]["base_memory_gb"])
    assert node.capacity == int(max(r["samples_per_s"] for r in table.rows
                                    if r["rank"] == 16) * 600)
    assert (node.memory_capacity_gb, node.power_w) == (141.0, 700.0)
    assert "H200-gpt2-xl.csv" in node.source and "datasheet" in node.source
    with pytest.raises(lorasched.InputError, match="no published specification of 'B300'"):
        measured.pdftsp_node(table, model="gpt2-xl", gpu_label="B300", rank=16, seq_len=1024)


def _shipped_row(name: str, **where) -> dict:
    """One row of a shipped table read with the csv module alone (not measured.read)."""
    lines = [x for x in (SHIPPED / name).read_text().splitlines() if not x.startswith("#")]
    found = [r for r in csv.DictReader(lines) if all(r[k] == str(v) for k, v in where.items())]
    assert len(found) == 1
    return found[0]


def test_allpass_per_epoch_reads_the_shipped_h200_rows():
    """LLaMA3-8B from llama3-8b's row (not llama2-7b's, listed first), BERT from
    roberta-base's, at rank 16, micro-batch 8, one adapter and ALLPASS_EPOCH's samples and
    sequence lengths; LLaMA2-13B was not measured and is left out."""
    tables = sorted(SHIPPED.glob("H200-*.csv"))
    assert [t.name for t in tables].index("H200-llama2-7b.csv") < [
        t.name for t in tables].index("H200-llama3-8b.csv")
    got = measured.allpass_per_epoch(tables, gpu_label="H200")
    assert set(got) == {"LLaMA3-8B", "BERT"} and set(got) < set(PER_EPOCH_S)
    llama = _shipped_row("H200-llama3-8b.csv", model="llama3-8b", rank=16, micro_batch=8,
                         seq_len=1024, adapters=1)
    bert = _shipped_row("H200-roberta-base.csv", model="roberta-base", rank=16,
                        micro_batch=8, seq_len=512, adapters=1)
    assert got["LLaMA3-8B"] == pytest.approx(52_002 / float(llama["samples_per_s"]))
    assert got["BERT"] == pytest.approx(25_000 / float(bert["samples_per_s"]))
    assert got == pytest.approx({"LLaMA3-8B": 3678.9, "BERT": 102.89}, abs=0.01)
    # one table, or its path, reads the same; an epoch twice as long takes twice the time
    one = measured.allpass_per_epoch(str(SHIPPED / "H200-roberta-base.csv"))
    assert one == {"BERT": got["BERT"]}
    double = measured.allpass_per_epoch(measured.read(SHIPPED / "H200-roberta-base.csv"),
                                        epoch={"BERT": (50_000, 512, 8)})
    assert double["BERT"] == pytest.approx(2 * got["BERT"])


@pytest.mark.parametrize(("tables", "kwargs", "message"), [
    ("H200-llama2-7b.csv", {}, r"no measured rows for gpu_label 'H200' of \['llama3-8b', "
                              r"'roberta-base'\]"),
    ("H200-roberta-base.csv", {"gpu_label": "A100"}, "no measured rows for gpu_label 'A100'"),
    ("H200-llama3-8b.csv", {"epoch": {"LLaMA3-8B": (100, 4096, 8)}},
     "no row for the epoch .*seq_len=4096"),
    ("H200-llama3-8b.csv", {"rank": 0}, "rank"),
    ("H200-llama3-8b.csv", {"gpu_label": ""}, "gpu_label"),
    ("H200-llama3-8b.csv", {"epoch": {"LLaMA2-13B": (100, 1024, 8)}}, "epoch"),
    ("H200-llama3-8b.csv", {"epoch": {"BERT": (100, 512)}}, "epoch"),
    ("H200-llama3-8b.csv", {"epoch": {"BERT": (0, 512, 8)}}, "epoch"),
    ([], {}, "tables"),
])
def test_allpass_per_epoch_refuses_by_name(tables, kwargs, message):
    tables = SHIPPED / tables if isinstance(tables, str) else tables
    with pytest.raises(lorasched.InputError, match=message):
        measured.allpass_per_epoch(tables, **kwargs)


def test_a_scenario_on_the_measured_h200_simulates_and_checks():
    """The measured seconds go into allpass_scenario: LLaMA3-8B and BERT jobs take their
    H200 epochs, LLaMA2-13B jobs keep Table 4; Allpass runs on it and its result checks."""
    per = measured.allpass_per_epoch(sorted(SHIPPED.glob("H200-*.csv")))
    # a Helios window that holds jobs of all three models
    ds = lorasched.allpass_scenario(jobs=12, seed=2, book_hours=2, per_epoch_s=per,
                                    per_epoch_label="H200 (measured)", source="helios")
    default = lorasched.allpass_scenario(jobs=12, seed=2, book_hours=2, source="helios")
    model = ds["model"].values
    assert set(model) == set(PER_EPOCH_S)
    expected = np.array([per.get(m, PER_EPOCH_S[m]) for m in model])
    np.testing.assert_array_equal(ds["per_epoch_s"].values, expected)
    np.testing.assert_allclose(ds["work_s"], default["epochs"] * expected, rtol=1e-12)
    assert ds.attrs["per_epoch_from_LLaMA2-13B"] == "Table 4 (A100)"
    assert ds.attrs["per_epoch_from_BERT"] == "H200 (measured)"
    result = lorasched.simulate(ds, "allpass", seed=0)
    lorasched.check_result(result)


def test_titan_lut_is_the_shipped_measurement_on_one_gpu():
    """titan_lut: the LUT of one GPU that titan_scenario(lut=...) takes, its step times and
    memory the shipped H200 rows of ViT-L/16 at rank 16, one adapter."""
    table = measured.read(trace_dir() / "profiles" / "H200-vit-large.csv")
    lut = measured.titan_lut(table, model="vit-large", gpu_label="H200", seq_len=197)
    rows = table.select(model="vit-large", rank=16, adapters=1)
    assert (lut.attrs["gpu"], lut.attrs["model"]) == ("H200", "vit-large")
    assert "H200-vit-large.csv" in lut.attrs["source"]
    assert "NVIDIA H200" in lut.attrs["source"]
    assert lut["placement"].values.tolist() == ["1"]
    assert lut["local_bsz"].values.tolist() == [r["micro_batch"] for r in rows] == [1, 2, 4, 8]
    assert lut["step_time"].sel(placement="1").values.tolist() == [
        r["step_time_s"] for r in rows]
    assert lut["sync_time"].values.tolist() == [[0.0] * 4]
    assert lut["memory"].values.tolist() == [r["peak_memory_gb"] for r in rows]
    other = measured.titan_lut(table, model="vit-large", gpu_label="H200", rank=64,
                               seq_len=197)
    assert other["step_time"].values.tolist() != lut["step_time"].values.tolist()
    with pytest.raises(lorasched.InputError, match="no row for one adapter"):
        measured.titan_lut(table, model="vit-large", gpu_label="H200", rank=32, seq_len=197)
