"""``lorasched reproduce``: where cells run (--workers, --scheduler, --serial) goes to the
batch of the systems whose pages are sweeps; Allpass, computed in memory, refuses it when
named alone and is not handed it with --system all."""

from __future__ import annotations

import pytest

from lorasched.cli import main
from lorasched.cli import reproduce as command
from lorasched.figures.allpass import catalog as allpass_catalog
from lorasched.figures.base import SystemReport


@pytest.fixture()
def nothing_runs(monkeypatch):
    """The batch and Allpass's runs recorded, not run."""
    calls = {"batch": [], "allpass": []}

    class Done:
        interrupted, cells = False, []

    def batch(sweeps_by_system, size, store, **kw):
        calls["batch"].append({"systems": list(sweeps_by_system), **kw})
        return Done(), {name: SystemReport() for name in sweeps_by_system}

    monkeypatch.setattr(command, "reproduce_together", batch)
    monkeypatch.setattr(allpass_catalog, "runs", lambda size, seeds, progress, store:
                        calls["allpass"].append(size) or {})
    return calls


def test_all_systems_with_workers_run_the_batch_on_them_and_allpass_in_memory(
        nothing_runs, tmp_path, capsys):
    assert main(["reproduce", "--system", "all", "--size", "small", "--workers", "2",
                 "--store", str(tmp_path), "--no-progress"]) == 0
    assert nothing_runs["batch"] == [{"systems": ["pdftsp", "titan"], "workers": 2,
                                      "scheduler": None, "serial": False, "progress": False}]
    assert nothing_runs["allpass"] == ["small"]
    assert "allpass (small): 0 cells computed" in capsys.readouterr().out


@pytest.mark.parametrize("option, value, arg", [("--workers", "2", "workers=2"),
                                                ("--scheduler", "tcp://h:1",
                                                 "scheduler='tcp://h:1'"),
                                                ("--serial", None, "serial=True")])
def test_allpass_alone_refuses_where_cells_run_by_name(nothing_runs, tmp_path, capsys,
                                                      option, value, arg):
    argv = ["reproduce", "--system", "allpass", "--size", "small", "--store", str(tmp_path),
            option, *([value] if value else [])]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert f"lorasched: error: {arg}: Allpass's pages are computed in memory" in \
        capsys.readouterr().err
    assert nothing_runs["allpass"] == [] and nothing_runs["batch"] == []
