"""The Helios substitute for TITAN's private workload (lorasched.titan.helios)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from lorasched.titan.authors import _read_scale, titansched_dir
from lorasched.titan.helios import (
    PAPER_JOBS,
    WINDOW_S,
    dataset_classes,
    helios_workload,
    short_job_fraction,
)
from lorasched.titan.lut import load_lut, step_time

VARIABLES = ("name", "submit_s", "application", "model", "dataset", "requested_gpus",
             "target_batch_size", "samples_per_epoch", "total_samples", "total_iterations",
             "duration_s", "trace_gpus", "gpu_time_s", "scale_class")


@pytest.fixture(scope="module")
def default():
    return helios_workload()


def test_default_shape_and_attrs(default):
    ds = default
    assert isinstance(ds, xr.Dataset)
    assert ds.sizes["job"] == PAPER_JOBS
    assert set(VARIABLES) <= set(ds.data_vars)
    assert all(ds[v].dims == ("job",) for v in VARIABLES)
    assert ds.attrs["density"] == 1.0 and ds.attrs["model"] == "vit-large"
    assert ds.attrs["gpu"] == "V100" and ds.attrs["seed"] == 0
    assert ds.attrs["merge_key"] == "application" and ds.attrs["workload"] == "helios"
    assert "Helios" in ds.attrs["source"]
    assert ds["name"].values.tolist() == [f"helios-{i}" for i in range(PAPER_JOBS)]
    assert (ds["model"] == "vit-large").all()
    apps = [f"{m}@{d}" for m, d in zip(ds["model"].values, ds["dataset"].values, strict=True)]
    assert ds["application"].values.tolist() == apps
    scale = _read_scale(titansched_dir() / "dataset_scale.csv")
    assert ds["samples_per_epoch"].values.tolist() == [scale[d] for d in
                                                       ds["dataset"].values]
    np.testing.assert_array_equal(ds["total_samples"],
                                  ds["total_iterations"] * ds["target_batch_size"])
    np.testing.assert_allclose(ds["gpu_time_s"], ds["duration_s"] * ds["requested_gpus"])


def test_density_scales_the_job_count():
    assert helios_workload(density=0.5).sizes["job"] == 160
    assert helios_workload(jobs=100, density=1.5).sizes["job"] == 150


def test_same_seed_same_dataset_other_seed_differs(default):
    xr.testing.assert_identical(default, helios_workload(seed=0))
    other = helios_workload(seed=1)
    assert not other.equals(default)
    assert not np.array_equal(other["duration_s"].values, default["duration_s"].values)


def test_submissions_in_the_window_and_sorted(default):
    s = default["submit_s"].values
    assert ((s >= 0) & (s < WINDOW_S)).all()
    assert (np.diff(s) >= 0).all()


def test_requests_within_the_cap(default):
    gpus = default["requested_gpus"].values
    assert ((gpus >= 1) & (gpus <= 16)).all()
    np.testing.assert_array_equal(gpus, np.minimum(default["trace_gpus"].values, 16))
    d = default["duration_s"].values
    assert ((d >= 300) & (d < 36000)).all()
    assert (d * default["trace_gpus"].values < 100 * 3600).all()


def test_durations_are_honoured(default):
    lut = load_lut("V100", "vit-large")
    for a, b, n, d in zip(default["requested_gpus"].values,
                          default["target_batch_size"].values,
                          default["total_iterations"].values,
                          default["duration_s"].values, strict=True):
        step = step_time(lut, int(a), int(b))
        assert abs(n * step - d) <= step


def test_class_proportions(default):
    n = default.sizes["job"]
    share = {c: float((default["scale_class"] == c).sum()) / n
             for c in ("small", "medium", "large")}
    assert share["small"] == pytest.approx(0.3, abs=0.05)
    assert share["medium"] == pytest.approx(0.6, abs=0.05)
    assert share["large"] == pytest.approx(0.1, abs=0.05)
    # the class follows GPU time: every small job is at most every medium one, and so on
    gt = default["gpu_time_s"].values
    cls = default["scale_class"].values
    assert gt[cls == "small"].max() < gt[cls == "medium"].min()
    assert gt[cls == "medium"].max() < gt[cls == "large"].min()
    classes = dataset_classes()["vit-large"]
    for c, d in zip(cls, default["dataset"].values, strict=True):
        assert d in classes[c]


def test_dataset_class_table_covers_the_four_models():
    classes = dataset_classes()
    assert sorted(classes) == ["roberta-base", "roberta-large", "vit", "vit-large"]
    assert sum(len(v) for c in classes.values() for v in c.values()) == 36
    assert classes["roberta-base"]["large"] == ["qqp", "mnli", "snli"]
    assert classes["vit"]["small"] == ["Bingsu#Cat_and_Dog", "frgfm#imagenette"]
    scale = _read_scale(titansched_dir() / "dataset_scale.csv")
    assert all(d in scale for c in classes.values() for v in c.values() for d in v)


def test_short_job_fraction():
    # measured on the shipped Helios Venus trace after the 5 min-10 h, < 100 GPU-h filter
    assert short_job_fraction() == pytest.approx(0.562, abs=0.005)


@pytest.mark.parametrize("kwargs, word", [
    ({"jobs": 0}, "jobs"), ({"jobs": 1.5}, "jobs"), ({"jobs": True}, "jobs"),
    ({"density": 0}, "density"), ({"density": float("nan")}, "density"),
    ({"density": float("inf")}, "density"), ({"density": "1"}, "density"),
    ({"model": "gpt"}, "model"), ({"gpu": "H100"}, "gpu"), ({"seed": -1}, "seed"),
])
def test_bad_arguments_raise_naming_them(kwargs, word):
    with pytest.raises(ValueError, match=word):
        helios_workload(**kwargs)


def test_too_many_jobs_raise_with_the_counts():
    with pytest.raises(ValueError, match=r"100000 jobs requested .* only \d+ "):
        helios_workload(jobs=100_000)


def test_other_model_and_gpu():
    ds = helios_workload(jobs=40, model="roberta-base", gpu="A100", seed=3)
    assert ds.sizes["job"] == 40 and (ds["model"] == "roberta-base").all()
    assert set(ds["dataset"].values) <= {d for v in dataset_classes()["roberta-base"].values()
                                         for d in v}


def test_a_lut_of_ones_own_names_its_own_gpu():
    """With ``lut``, ``gpu`` names the LUT's GPU, shipped or not; it must be a string."""
    lut = load_lut("A100", "vit-large").assign_attrs(gpu="H100")
    ds = helios_workload(jobs=10, gpu="H100", lut=lut)
    assert ds.attrs["gpu"] == "H100"
    with pytest.raises(ValueError, match=r"gpu must be a string, got \['H100'\]"):
        helios_workload(jobs=10, gpu=["H100"], lut=lut)
