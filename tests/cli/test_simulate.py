"""``lorasched simulate`` built from the systems' declared flags
(:mod:`lorasched.cli.simulate`, :mod:`lorasched.model.flags`): a system added with its
:class:`~lorasched.model.flags.Flags` and nothing else is on the command line, its flags
shown, taken and refused to the other systems by name."""

from __future__ import annotations

import json

import numpy as np
import pytest
import xarray as xr

from lorasched import systems
from lorasched.cli import main
from lorasched.cli import simulate as cli_simulate
from lorasched.model.flags import Flag, Flags, positive_int
from lorasched.model.system import System, timed_run


def _toy_scenario(size: int = 3, colour: str = "red", seed: int = 0) -> xr.Dataset:
    return xr.Dataset({"x": ("item", np.arange(size, dtype=float))},
                      attrs={"system": "toy", "colour": colour})


def _double(arrays, rng, *, scale: float = 1.0):
    return 2 * scale * arrays


def _plain(arrays, rng):
    return arrays


def _toy_simulate(scenario, algorithm="double", seed=0, **options):
    out, _ = timed_run(TOY.policy(algorithm), algorithm, scenario["x"].values, seed, options)
    return xr.Dataset({"y": ("item", out)}, attrs={
        "system": "toy", "algorithm": algorithm, "options": json.dumps(options),
        "total": float(out.sum())})


TOY = System(name="toy", title="Toy (a test): one row of numbers",
             build_scenario=_toy_scenario, scenario_parameters=frozenset({"size", "colour"}),
             policies={"double": _double, "plain": _plain}, simulate=_toy_simulate,
             check_result=lambda result: None, metrics={"total": "the sum"},
             measure=lambda scenario, result: {"total": result.attrs["total"]})
TOY_FLAGS = Flags(scenario="a row of numbers", flags=(
    Flag("--jobs", "items of the row", parameter="size", type=positive_int),
    Flag("--colour", "the row's colour (red)", choices=("red", "blue")),
    Flag("--scale", "double's factor (1)", type=float),
), hints={"--gpu": "has no GPUs"})


@pytest.fixture
def toy(monkeypatch):
    """The toy system registered, flags and all, for one test."""
    monkeypatch.setitem(systems.SYSTEMS, "toy", TOY)
    monkeypatch.setitem(systems.FLAGS, "toy", TOY_FLAGS)
    monkeypatch.setenv("COLUMNS", "1000")  # one help line per flag


def _help(capsys, *command: str) -> str:
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    return capsys.readouterr().out


def _refused(argv, capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1, err
    return err


def test_a_new_system_is_on_the_command_line_with_its_flags(toy, tmp_path, capsys):
    assert "jobs on three GPU clouds (allpass) or a row of numbers (toy)" in _help(capsys)
    text = _help(capsys, "simulate")
    assert "toy (--system toy):" in text and "--system {allpass,pdftsp,titan,toy}" in text
    assert "--colour {red,blue} the row's colour (red)" in " ".join(text.split())
    assert "allpass: jobs of the workload (200); toy: items of the row" in text
    assert "toy: double, plain" in text
    out = tmp_path / "toy.nc"
    assert main(["simulate", "--system", "toy", "--jobs", "4", "--colour", "blue",
                 "--scale", "3", "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"double: total 36 -> {out}\n"  # 6 * (0+1+2+3)
    result = xr.load_dataset(out)
    assert json.loads(result.attrs["options"]) == {"scale": 3.0}
    assert main(["simulate", "--system", "toy", "--algorithm", "plain"]) == 0
    assert capsys.readouterr().out == "plain: total 3\n"


def test_a_new_system_s_flags_are_refused_to_the_others_and_theirs_to_it(toy, capsys):
    assert ("--scale is Toy's (--system toy); pdftsp has no such setting"
            in _refused(["simulate", "--scale", "2"], capsys))
    assert ("--load is pdFTSP's; --system toy has no such setting"
            in _refused(["simulate", "--system", "toy", "--load", "light"], capsys))
    assert ("--jobs is TITAN's and Allpass's and Toy's (--system titan, allpass or toy); "
            "pdftsp has no such setting" in _refused(["simulate", "--jobs", "2"], capsys))
    assert ("--gpu: --system toy has no GPUs"
            in _refused(["simulate", "--system", "toy", "--gpu", "A100"], capsys))
    assert ("--scale is an option of double; --algorithm plain has no such option"
            in _refused(["simulate", "--system", "toy", "--algorithm", "plain", "--scale",
                         "2"], capsys))
    assert ("--algorithm 'triple': unknown algorithm 'triple' for system 'toy'; choose one "
            "of double, plain" in _refused(["simulate", "--system", "toy", "--algorithm",
                                            "triple"], capsys))


def test_every_declared_flag_sets_a_parameter_option_or_keyword_of_its_system():
    for name, declared in systems.FLAGS.items():
        system = systems.get(name)
        kinds = {f.name: cli_simulate._kind(system, f) for f in declared.flags}
        assert set(kinds.values()) <= {"scenario", "option", "keyword"}, (name, kinds)
    assert cli_simulate._kind(systems.get("titan"), Flag("--progress")) == "keyword"
    assert cli_simulate._kind(systems.get("pdftsp"), Flag("--payment")) == "option"
    assert cli_simulate._kind(systems.get("allpass"), Flag("--trace", parameter="source")) \
        == "scenario"
    with pytest.raises(ValueError, match="--colour: system 'titan' has no scenario "
                       "parameter, policy option or simulate keyword 'colour'"):
        cli_simulate._kind(systems.get("titan"), Flag("--colour"))


def test_systems_sharing_a_flag_must_agree_on_its_form(monkeypatch):
    bad = Flags(flags=(Flag("--nodes", "toy nodes", type=positive_int, default=5,
                            topic="GPU nodes"),))
    monkeypatch.setitem(systems.SYSTEMS, "toy", TOY)
    monkeypatch.setitem(systems.FLAGS, "toy", bad)
    with pytest.raises(ValueError, match="--nodes: pdftsp and toy declare another default"):
        main(["simulate", "--help"])


def test_a_declaration_is_checked_when_made():
    with pytest.raises(ValueError, match="starts with --"):
        Flag("nodes")
    with pytest.raises(ValueError, match=r"declared twice: \['--a'\]"):
        Flags(flags=(Flag("--a"), Flag("--a")))
    with pytest.raises(ValueError, match="--a requires --b, which is not declared"):
        Flags(flags=(Flag("--a", requires="--b"),))
    assert Flag("--gpus-per-node").parameter == "gpus_per_node"


TINY = ["simulate", "--nodes", "3", "--slots", "12", "--load", "4", "--vendors", "2"]


def _options(argv, tmp_path) -> dict:
    out = tmp_path / "run.nc"
    assert main([*TINY, *argv, "--out", str(out)]) == 0
    return json.loads(xr.load_dataset(out).attrs["options"])


def test_the_own_policy_gets_every_default_another_only_what_is_given(tmp_path, capsys):
    """pdFTSP's own policy records its flags' defaults; a baseline gets none of them (its
    options stay empty) but a flag given that it takes."""
    assert _options([], tmp_path) == {
        "candidates": "auto", "constants": "lemma2", "payment": "critical",
        "progress": False, "solver": "paper", "work_resolution": 8}
    assert _options(["--algorithm", "eft"], tmp_path) == {}
    assert _options(["--algorithm", "titan", "--work-resolution", "4"], tmp_path) == {
        "work_resolution": 4}
    refused = _refused([*TINY, "--algorithm", "eft", "--payment", "paper"], capsys)
    assert "--payment is an option of pdftsp, random; --algorithm eft has no such option" in refused


def test_a_constants_file_sits_between_the_defaults_and_the_flags_given(tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text('system = "pdftsp"\nalgorithm = "pdftsp"\n[options]\nalpha = 1.5\n'
                    'beta = 25.0\npayment = "paper"\nwork_resolution = 4\n')
    got = _options(["--constants", str(path), "--alpha", "7", "--work-resolution", "6"],
                   tmp_path)
    assert "constants" not in got  # the file's options instead
    assert got == {"alpha": 7.0, "beta": 25.0, "payment": "paper", "work_resolution": 6,
                   "solver": "paper", "candidates": "auto", "progress": False}
    path.write_text('system = "pdftsp"\nalgorithm = "pdftsp"\n[options]\n'
                    'work_resolution = 0\n')
    assert (f"constants file {path}: options.work_resolution = 0 is not a value of "
            "--work-resolution" in _refused([*TINY, "--constants", str(path)], capsys))
