"""TITAN's evaluation workloads (lorasched.titan.workload) on the authors' shipped files and
on small hand-made folders."""

from __future__ import annotations

import csv
import json
import math
import shutil

import numpy as np
import pytest
import xarray as xr

from lorasched.titan import (
    MAX_EPOCHS,
    WORKLOAD_COLUMNS,
    available_workloads,
    load_workload,
    merge_candidates,
    titansched_dir,
)

DATA = titansched_dir()
#: the README's job counts at density 1
PER_DENSITY = {"vit": 320, "vit-large": 160, "roberta-base": 120, "roberta-large": 60}
SHIPPED = [(d, m) for d in (1, 1.5, 2) for m in PER_DENSITY]


def _csv_rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _write_folder(tmp, rows, curve=None, scale=None):
    """A tiny TitanSched folder: one workload FM-1-toy.csv, one curve, one dataset scale."""
    (tmp / "workloads").mkdir(parents=True, exist_ok=True)
    (tmp / "curves").mkdir(exist_ok=True)
    header = list(rows[0]) if rows else list(WORKLOAD_COLUMNS)
    with open(tmp / "workloads" / "FM-1-toy.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows)
    if curve is None:
        curve = {"eval_accuracy": [0.5, 0.7, 0.8], "eval_accuracy_epoch": [1.0, 2.0, 3.0]}
    (tmp / "curves" / "hpo_task_info.json").write_text(
        json.dumps({"toy": {"data": {"1e-3": {"4": curve}}}}))
    scale = "dataset,samples_per_epoch\ndata,1000\n" if scale is None else scale
    (tmp / "dataset_scale.csv").write_text(scale)
    return tmp


def _job(name="j0", **over):
    row = {"name": name, "submission_time": "0", "application": "toy@data", "num_gpus": "2",
           "target_batch_size": "64", "target_lr": "1e-3", "target_gradient_steps": "4",
           "target_metric": "0.7"}
    row.update(over)
    return row


@pytest.fixture(scope="module")
def vit():
    return load_workload(1, "vit")


def test_shipped_files_sit_with_licence_and_readme():
    """The workloads, curves and dataset scale are shipped beside the LICENSE and README."""
    assert DATA.parts[-2:] == ("traces", "titansched")
    assert "MIT License" in (DATA / "LICENSE").read_text()
    readme = (DATA / "README.md").read_text()
    assert "gaow0007/TitanSched" in readme and "f71cf44" in readme
    assert "workloads/FM-{density}-{model}.csv" in readme and "dataset_scale.csv" in readme
    assert (DATA / "curves" / "hpo_task_info.json").is_file()
    assert (DATA / "curves" / "multi_task_info.json").is_file()


def test_available_workloads_lists_every_shipped_file():
    """available_workloads maps densities 1, 1.5, 2 to the four models."""
    assert available_workloads() == {d: tuple(sorted(PER_DENSITY)) for d in (1.0, 1.5, 2.0)}


@pytest.mark.parametrize(("density", "model"), SHIPPED)
def test_every_shipped_workload_loads_with_readme_job_count(density, model):
    """Each shipped workload loads with density x the README's per-model count of jobs,
    every submission in [0, 8 h) and every job length positive."""
    ds = load_workload(density, model)
    assert ds.sizes["job"] == round(density * PER_DENSITY[model])
    assert ds.sizes["job"] == len(_csv_rows(DATA / "workloads" / f"FM-{density:g}-{model}.csv"))
    assert ((ds["submit_s"] >= 0) & (ds["submit_s"] < 8 * 3600)).all()
    assert (ds["model"] == model).all()
    assert ((ds["epochs"] > 0) & (ds["epochs"] <= MAX_EPOCHS)).all()
    assert (ds["total_iterations"] > 0).all()
    assert ds.attrs["density"] == density and ds.attrs["model"] == model
    assert "gaow0007/TitanSched" in ds.attrs["source"] and "f71cf44" in ds.attrs["source"]
    assert "MIT" in ds.attrs["source"] and "application" in ds.attrs["merge_key"]


def test_columns_map_to_variables(vit):
    """name, submit_s, application split, requested_gpus etc. equal the CSV's values."""
    rows = _csv_rows(DATA / "workloads" / "FM-1-vit.csv")
    row = rows[3]
    assert vit["name"].values[3] == row["name"]
    assert vit["submit_s"].values[3] == float(row["submission_time"])
    assert vit["application"].values[3] == row["application"]
    assert f"{vit['model'].values[3]}@{vit['dataset'].values[3]}" == row["application"]
    assert vit["requested_gpus"].values[3] == int(row["num_gpus"])
    assert vit["target_batch_size"].values[3] == int(row["target_batch_size"])
    assert vit["target_lr"].values[3] == float(row["target_lr"])
    assert vit["target_gradient_steps"].values[3] == int(row["target_gradient_steps"])
    assert vit["target_metric"].values[3] == float(row["target_metric"])


@pytest.mark.parametrize(("density", "model", "row"), [(1, "vit", 0), (1, "vit", 2),
                                                       (2, "roberta-base", 5)])
def test_epochs_match_a_hand_reading_of_the_curve(density, model, row):
    """A job's epochs is the first epoch whose curve value reaches its target (found here
    by walking the JSON directly), and its length follows from the dataset scale."""
    job = _csv_rows(DATA / "workloads" / f"FM-{density:g}-{model}.csv")[row]
    curves = json.loads((DATA / "curves" / "hpo_task_info.json").read_text())
    m, dataset = job["application"].split("@")
    lr_key = next(k for k in curves[m][dataset] if float(k) == float(job["target_lr"]))
    entry = curves[m][dataset][lr_key][job["target_gradient_steps"]]
    metric = next(k for k in entry if not k.endswith("_epoch"))
    expected = MAX_EPOCHS
    for value, epoch in sorted(zip(entry[metric], entry[metric + "_epoch"], strict=True),
                               key=lambda p: p[1]):
        if value >= float(job["target_metric"]):
            expected = epoch
            break
    scale = {r["dataset"]: int(r["samples_per_epoch"])
             for r in _csv_rows(DATA / "dataset_scale.csv")}
    ds = load_workload(density, model)
    assert ds["epochs"].values[row] == expected
    assert ds["metric"].values[row] == metric
    assert ds["samples_per_epoch"].values[row] == scale[dataset]
    assert ds["total_samples"].values[row] == pytest.approx(expected * scale[dataset])


def test_first_vit_job_by_hand(vit):
    """Job 0 of FM-1-vit (imagenette, lr 4e-4, 1 step, target 0.9903) reaches it at epoch 9:
    9 x 9469 samples at batch 48 = ceil(1775.4) = 1776 iterations."""
    assert vit["epochs"].values[0] == 9.0
    assert vit["total_samples"].values[0] == 9 * 9469
    assert vit["total_iterations"].values[0] == 1776


def test_total_iterations_is_ceiling_of_samples_over_batch(vit):
    """total_iterations = ceil(total_samples / target_batch_size) for every job."""
    expected = [math.ceil(round(s / b, 9)) for s, b in
                zip(vit["total_samples"].values, vit["target_batch_size"].values, strict=True)]
    assert vit["total_iterations"].values.tolist() == expected
    assert vit["total_samples"].values == pytest.approx(
        vit["epochs"].values * vit["samples_per_epoch"].values)


def test_synthetic_folder_fallback_and_arithmetic(tmp_path):
    """On a hand-made folder: a reached target gives its epoch, an unreachable one the
    10-epoch fallback; lengths are epochs x 1000 samples over batch 64, rounded up."""
    folder = _write_folder(tmp_path, [_job("a", target_metric="0.7"),
                                      _job("b", target_metric="0.95", submission_time="5"),
                                      _job("c", target_metric="0.8", target_lr="0.001",
                                           target_batch_size="300", submission_time="1")])
    ds = load_workload(1, "toy", folder=folder)
    assert ds["epochs"].values.tolist() == [2.0, 10.0, 3.0]
    assert ds["reached"].values.tolist() == [True, False, True]
    assert ds["total_samples"].values.tolist() == [2000.0, 10000.0, 3000.0]
    assert ds["total_iterations"].values.tolist() == [32, 157, 10]
    assert ds["submit_s"].values.tolist() == [0.0, 5.0, 1.0]  # file order kept, unsorted
    assert ds.attrs["source"].endswith("FM-1-toy.csv")


def test_empty_curve_falls_back_to_max_epochs(tmp_path):
    """An empty curve gives the 10-epoch fallback, as in the authors' code."""
    folder = _write_folder(tmp_path, [_job()],
                           curve={"eval_f1": [], "eval_f1_epoch": []})
    ds = load_workload(1, "toy", folder=folder)
    assert ds["epochs"].values.tolist() == [float(MAX_EPOCHS)]
    assert not ds["reached"].values[0]


def test_learning_rate_and_steps_matched_by_value(tmp_path):
    """A learning rate written 0.001 or 1.0e-03 finds the curve keyed "1e-3"."""
    folder = _write_folder(tmp_path, [_job("a", target_lr="0.001"),
                                      _job("b", target_lr="1.0e-03",
                                           target_gradient_steps="4.0")])
    assert load_workload(1.0, "toy", folder=folder)["epochs"].values.tolist() == [2.0, 2.0]


@pytest.mark.parametrize(("over", "column", "words"), [
    ({"submission_time": "-1"}, "submission_time", ">= 0"),
    ({"target_batch_size": "0"}, "target_batch_size", "positive integer"),
    ({"num_gpus": "-2"}, "num_gpus", "positive integer"),
    ({"num_gpus": "1.5"}, "num_gpus", "positive integer"),
    ({"target_lr": "abc"}, "target_lr", "positive number"),
    ({"target_metric": "nan"}, "target_metric", "finite number"),
    ({"application": "toydata"}, "application", "model@dataset"),
    ({"target_lr": "2e-3"}, "target_lr", "no curve"),
    ({"target_gradient_steps": "8"}, "target_gradient_steps", "no curve"),
])
def test_bad_values_name_file_job_and_column(tmp_path, over, column, words):
    """A bad value raises ValueError naming the file, the job, the line and the column."""
    folder = _write_folder(tmp_path, [_job("ok"), _job("bad", **over)])
    with pytest.raises(ValueError) as err:
        load_workload(1, "toy", folder=folder)
    msg = str(err.value)
    assert "FM-1-toy.csv" in msg and "line 3" in msg and "'bad'" in msg
    assert repr(column) in msg and words in msg


def test_missing_column_names_file_and_column(tmp_path):
    """A workload without target_metric raises naming the file and the column."""
    row = _job()
    del row["target_metric"]
    folder = _write_folder(tmp_path, [row])
    with pytest.raises(ValueError, match=r"FM-1-toy\.csv: missing column 'target_metric'"):
        load_workload(1, "toy", folder=folder)


def test_duplicate_job_name_is_an_error(tmp_path):
    """Two jobs with one name raise, naming the file, the name and both lines."""
    folder = _write_folder(tmp_path, [_job("x"), _job("y"), _job("x")])
    with pytest.raises(ValueError, match=r"FM-1-toy\.csv, line 4 \(job 'x'\), column 'name': "
                                         r"duplicate job name \(first at line 2\)"):
        load_workload(1, "toy", folder=folder)


@pytest.mark.parametrize("app", ["other@data", "toy@unknown"])
def test_application_without_curve_names_it(tmp_path, app):
    """An application whose model or dataset has no curve raises naming the application."""
    folder = _write_folder(tmp_path, [_job("a", application=app)])
    with pytest.raises(ValueError, match=rf"job 'a'.*application {app!r} has no curve"):
        load_workload(1, "toy", folder=folder)


def test_application_without_dataset_scale_names_it(tmp_path):
    """A dataset with a curve but no samples_per_epoch raises naming the application."""
    folder = _write_folder(tmp_path, [_job("a")],
                           scale="dataset,samples_per_epoch\nelse,10\n")
    with pytest.raises(ValueError, match=r"application 'toy@data' has no dataset scale"):
        load_workload(1, "toy", folder=folder)


def test_bad_dataset_scale_names_file_line_and_column(tmp_path):
    """A non-positive samples_per_epoch raises naming dataset_scale.csv, line and column."""
    folder = _write_folder(tmp_path, [_job()], scale="dataset,samples_per_epoch\ndata,0\n")
    with pytest.raises(ValueError, match=r"dataset_scale\.csv, line 2, column "
                                         r"'samples_per_epoch'"):
        load_workload(1, "toy", folder=folder)


def test_malformed_curve_names_its_path(tmp_path):
    """A curve without its <metric>_epoch list raises naming the curve's keys."""
    folder = _write_folder(tmp_path, [_job()], curve={"eval_accuracy": [0.9]})
    with pytest.raises(ValueError, match=r"hpo_task_info\.json, curve toy -> data -> 1e-3 "
                                         r"-> 4"):
        load_workload(1, "toy", folder=folder)


def test_unknown_density_or_model_lists_choices():
    """Unknown density or model raises ValueError listing the shipped choices."""
    with pytest.raises(ValueError, match=r"density 3 .*\[1\.0, 1\.5, 2\.0\]"):
        load_workload(3, "vit")
    with pytest.raises(ValueError, match=r"model 'bert'.*'roberta-base'"):
        load_workload(1, "bert")
    with pytest.raises(ValueError, match="density must be a number"):
        load_workload("1", "vit")
    with pytest.raises(FileNotFoundError):
        load_workload(1, "vit", folder="/nonexistent/titansched")


def test_merge_candidates_group_equal_applications(vit):
    """merge_candidates returns exactly the groups (>= 2 jobs) sharing an application."""
    groups = merge_candidates(vit)
    apps = vit["application"].values
    expected = {}
    for i, app in enumerate(apps):
        expected.setdefault(app, []).append(i)
    assert sorted(groups) == sorted(tuple(g) for g in expected.values() if len(g) >= 2)
    for group in groups:
        assert len(group) >= 2 and list(group) == sorted(group)
        assert len({apps[i] for i in group}) == 1
    grouped = {i for g in groups for i in g}
    assert len(grouped) == sum(len(g) for g in groups)


def test_merge_candidates_small_case():
    """Singletons are left out; groups come in the order of their first job."""
    ds = xr.Dataset({"application": ("job", np.array(["a@x", "b@y", "a@x", "c@z", "b@y",
                                                      "a@x"], dtype=object))})
    assert merge_candidates(ds) == [(0, 2, 5), (1, 4)]
    with pytest.raises(ValueError):
        merge_candidates({"application": []})
    with pytest.raises(ValueError, match="application"):
        merge_candidates(xr.Dataset())


def test_copy_of_shipped_folder_loads_with_path_source(tmp_path):
    """The shipped files copied elsewhere load identically, with the file path as source."""
    for sub in ("workloads", "curves"):
        shutil.copytree(DATA / sub, tmp_path / sub)
    shutil.copy(DATA / "dataset_scale.csv", tmp_path / "dataset_scale.csv")
    copy = load_workload(1.5, "vit-large", folder=tmp_path)
    shipped = load_workload(1.5, "vit-large")
    assert copy.attrs["source"].endswith("FM-1.5-vit-large.csv")
    xr.testing.assert_identical(copy.drop_attrs(), shipped.drop_attrs())
