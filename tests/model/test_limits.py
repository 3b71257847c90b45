"""Declared limits (lorasched.model.limits): a finite but absurd magnitude is refused where
it is read, by an InputError naming the file or field, the item and the limit; the shipped
data and the papers' setups stay under every limit."""

import csv
import json
import shutil

import numpy as np
import pytest

import lorasched
from lorasched.allpass.clouds import load_offer_book
from lorasched.allpass.scenario import validate
from lorasched.allpass.workload import allpass_scenario
from lorasched.cli import main
from lorasched.model import limits
from lorasched.model.errors import InputError
from lorasched.model.traces import read_trace, trace_dir
from lorasched.titan.authors import load_workload
from lorasched.titan.lut import load_lut, lut_dir
from lorasched.titan.workload import titan_scenario

HEADER = "submit_time_s,duration_s,num_gpus,status\n"


def _trace(path, rows):
    path.write_text(HEADER + "".join(f"{r}\n" for r in rows))
    return path


def test_at_most_names_the_field_the_item_and_the_limit():
    limits.at_most([1.0, 2.0, np.nan], 2.0, "f.csv")  # equal and NaN pass
    with pytest.raises(InputError, match=r"^f\.csv, line 3: 5 exceeds lorasched's limit of "
                                         r"2 \(lorasched\.model\.limits\)$"):
        limits.at_most([1.0, 2.0, 5.0], 2.0, "f.csv", lambda i: f"line {i + 1}")
    assert isinstance(InputError("x"), ValueError)


@pytest.mark.parametrize("row, column", [("1e18,60,1,Pass", "submit_time_s"),
                                         ("0,1e18,1,Pass", "duration_s"),
                                         ("0,60,1000000,Pass", "num_gpus")])
def test_a_trace_row_beyond_a_limit_names_file_line_and_column(tmp_path, row, column):
    path = _trace(tmp_path / "t.csv", ["0,60,1,Pass", row])
    with pytest.raises(InputError, match=rf"t\.csv, line 3, column '{column}': .* exceeds "
                                         "lorasched's limit"):
        read_trace(path)


def test_an_allpass_trace_row_of_1e18_seconds_is_refused_before_sizing(tmp_path):
    """Under cost sizing one such row would shrink every other job to 1e-10 s."""
    rows = [f"{60 * i},{600 + i},1,Pass" for i in range(40)] + ["2400,1e18,1,Pass"]
    path = _trace(tmp_path / "huge.csv", rows)
    with pytest.raises(InputError, match=r"huge\.csv, line 42, column 'duration_s'"):
        allpass_scenario(jobs=20, source="helios", trace_file=path, book_hours=1)


def test_the_shipped_traces_stay_under_every_trace_limit():
    for path in sorted(trace_dir().glob("*.csv.gz")):
        t = read_trace(path)
        assert t.submit_s.max() <= limits.HORIZON_S
        assert t.duration_s.max() <= limits.MAX_DURATION_S
        assert t.num_gpus.max() <= limits.MAX_GPUS


def _copy_lut(tmp_path, gpu="V100", model="vit-large"):
    (tmp_path / gpu).mkdir(parents=True)
    for path in (lut_dir() / gpu).glob(f"{model}_*.csv"):
        shutil.copy(path, tmp_path / gpu / path.name)
    return tmp_path / gpu / f"{model}_placements.csv"


@pytest.mark.parametrize("column", ["step_time", "sync_time"])
def test_a_lut_step_time_of_1e18_seconds_is_refused(tmp_path, column):
    path = _copy_lut(tmp_path)
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    rows[2]["step_time"] = rows[2]["sync_time"] = "1e18"
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(InputError, match=r"vit-large_placements\.csv, line 4, column "
                                         r"'step_time': 1e\+18 exceeds"):
        load_lut("V100", "vit-large", folder=tmp_path)
    assert float(load_lut("V100", "vit-large")["step_time"].max()) <= limits.MAX_STEP_S


def _titan_folder(tmp_path, **over):
    (tmp_path / "workloads").mkdir()
    (tmp_path / "curves").mkdir()
    row = {"name": "j0", "submission_time": "0", "application": "toy@data", "num_gpus": "2",
           "target_batch_size": "64", "target_lr": "1e-3", "target_gradient_steps": "4",
           "target_metric": "0.7", **over}
    with open(tmp_path / "workloads" / "FM-1-toy.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(row))
        writer.writeheader()
        writer.writerow(row)
    curve = {"eval_accuracy": [0.5, 0.7], "eval_accuracy_epoch": [1.0, 2.0]}
    (tmp_path / "curves" / "hpo_task_info.json").write_text(
        json.dumps({"toy": {"data": {"1e-3": {"4": curve}}}}))
    (tmp_path / "dataset_scale.csv").write_text("dataset,samples_per_epoch\ndata,1000\n")
    return tmp_path


@pytest.mark.parametrize("column, value", [("submission_time", "1e18"),
                                           ("num_gpus", "1000000"),
                                           ("target_batch_size", "10000000"),
                                           ("target_gradient_steps", "10000000000")])
def test_a_titan_job_beyond_a_limit_names_file_job_and_column(tmp_path, column, value):
    folder = _titan_folder(tmp_path, **{column: value})
    with pytest.raises(InputError, match=rf"FM-1-toy\.csv, line 2 \(job 'j0'\), column "
                                         rf"'{column}': .* exceeds lorasched's limit"):
        load_workload(1, "toy", folder=folder)


def test_a_titan_cluster_beyond_the_gpu_limit_is_refused_before_any_allocation():
    with pytest.raises(InputError, match=r"nodes x gpus_per_node, 100000 x 100000 GPUs: "
                                         r"1e\+10 exceeds"):
        titan_scenario(nodes=100_000, gpus_per_node=100_000)


def test_the_cli_names_a_titan_cluster_beyond_the_limit_in_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--system", "titan", "--nodes", "100000", "--gpus-per-node",
              "100000"])
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and "\n" not in err and "exceeds lorasched's limit" in err
    assert "Traceback" not in err


def test_a_titan_scenario_variable_beyond_a_limit_or_a_duplicate_job_is_named():
    ds = titan_scenario(jobs=8, workload="helios", seed=1)
    bad = ds.copy(deep=True)
    bad["submit_s"].values[3] = 1e18
    with pytest.raises(InputError, match=r"'submit_s', job 3 .* exceeds"):
        lorasched.titan.scenario.validate(bad)
    bad = ds.copy(deep=True)
    bad["name"].values[5] = bad["name"].values[2]
    with pytest.raises(InputError, match=r"job 5 .*duplicate 'name' \(first at job 2\)"):
        lorasched.titan.scenario.validate(bad)
    bad = ds.copy(deep=True)
    bad["total_iterations"] = bad["total_iterations"].astype(str)
    with pytest.raises(InputError, match=r"'total_iterations' must hold numbers"):
        lorasched.titan.scenario.validate(bad)


def test_an_offer_book_beyond_the_price_or_horizon_limit_names_file_and_line(tmp_path):
    path = tmp_path / "book.csv"
    path.write_text("minute,price_per_gpu_h\n0,0.5\n1,5000\n")
    with pytest.raises(InputError, match=r"book\.csv, line 3, column 'price_per_gpu_h': 5000 "
                                         "exceeds"):
        load_offer_book(path)
    path.write_text("minute,price_per_gpu_h\n0,0.5\n100000000000,0.5\n")
    with pytest.raises(InputError, match=r"book\.csv, line 3, column 'minute': 1e\+11 exceeds"):
        load_offer_book(path)


def test_an_allpass_scenario_with_text_for_numbers_or_a_duplicate_job_is_named():
    ds = allpass_scenario(jobs=6, book_hours=1, seed=1)
    bad = ds.copy(deep=True)
    bad["work_s"] = bad["work_s"].astype(str)
    with pytest.raises(InputError, match=r"'work_s' must hold numbers"):
        validate(bad)
    bad = ds.copy(deep=True)
    bad["name"].values[4] = bad["name"].values[1]
    with pytest.raises(InputError, match=r"job 4 .*duplicate 'name' \(first at job 1\)"):
        validate(bad)
    bad = ds.copy(deep=True)
    bad["work_s"].values[2] = 1e18
    with pytest.raises(InputError, match=r"'work_s', job .* 1e\+18 exceeds"):
        validate(bad)


@pytest.mark.parametrize("kwargs, what", [({"nodes": 200_000}, "nodes"),
                                          ({"slots": 200_000}, "slots"),
                                          ({"nodes": 20_000, "slots": 10_000},
                                           "nodes x slots")])
def test_a_pdftsp_scenario_beyond_a_size_limit_is_refused_before_generation(kwargs, what):
    with pytest.raises(InputError, match=rf"^{what}, .* exceeds lorasched's limit"):
        lorasched.synthetic_scenario(**kwargs, load=1.0, seed=1)
