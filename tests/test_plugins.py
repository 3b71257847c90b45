"""Policies from installed packages (lorasched.plugins): the entry-point group
``lorasched.policies``, what a broken declaration does, and the repository's example
package installed, run in a parallel sweep on a LocalCluster."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import lorasched
from lorasched import plugins, systems

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "plugin"

GOOD = '''
def greedy(arrays, rng, *, markup: float = 1.0):
    """Admit nothing: the smallest valid pdFTSP policy."""
    from lorasched.pdftsp.decisions import Decisions
    return Decisions.empty(arrays.n_tasks, arrays.n_nodes, arrays.n_slots)


def wrong(x, y):
    return None
'''


def _distribution(folder: Path, name: str, entries: dict[str, str], module: str = "",
                  source: str = GOOD) -> None:
    """An installed distribution as pip leaves it: a module and a dist-info folder whose
    entry_points.txt declares ``entries`` in the group."""
    if module:
        (folder / f"{module}.py").write_text(textwrap.dedent(source))
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    lines = "\n".join(f"{k} = {v}" for k, v in entries.items())
    (info / "entry_points.txt").write_text(f"[{plugins.GROUP}]\n{lines}\n")


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A folder on sys.path to install fake distributions into; the registries are
    restored afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    monkeypatch.undo()
    for name in [m for m in sys.modules if m.startswith("fake_")]:
        del sys.modules[name]
    systems.load_plugins(reload=True)


def test_a_declared_policy_is_registered_and_runs(installed):
    _distribution(installed, "fake-good", {"pdftsp.greedy": "fake_good:greedy"}, "fake_good")
    found = systems.load_plugins(reload=True)
    (plugin,) = [p for p in found if p.distribution == "fake-good"]
    assert plugin.loaded and (plugin.system, plugin.policy) == ("pdftsp", "greedy")
    assert len(plugin.fingerprint) == 16  # its source enters its sweep cells' keys
    assert "greedy" in systems.get("pdftsp").policies
    scenario = lorasched.synthetic_scenario(nodes=2, load=1.0, slots=8, seed=1)
    result = lorasched.simulate(scenario, "greedy")
    lorasched.check_result(result)
    assert result.attrs["n_admitted"] == 0
    # uninstalled: the next look removes it again
    (installed / "fake-good-1.0.dist-info" / "entry_points.txt").write_text("")
    systems.load_plugins(reload=True)
    assert "greedy" not in systems.get("pdftsp").policies


@pytest.mark.parametrize(("entries", "why"), [
    ({"pdftsp.eft": "fake_bad:greedy"}, "a built-in policy of 'pdftsp'"),
    ({"nosuch.greedy": "fake_bad:greedy"}, "'<system>.<policy>'"),
    ({"greedy": "fake_bad:greedy"}, "'<system>.<policy>'"),
    ({"pdftsp.greedy": "fake_bad:missing"}, "cannot load fake_bad:missing: AttributeError"),
    ({"pdftsp.greedy": "fake_absent:greedy"}, "ModuleNotFoundError"),
    ({"pdftsp.wrong": "fake_bad:wrong"}, "first two parameters must be (arrays, rng)"),
    ({"pdftsp.bad-name": "fake_bad:greedy"}, "must be an identifier"),
])
def test_a_broken_declaration_is_reported_not_fatal(installed, entries, why):
    _distribution(installed, "fake-bad", entries, "fake_bad")
    with pytest.warns(plugins.PluginWarning, match="fake-bad") as caught:
        found = systems.load_plugins(reload=True)
    (plugin,) = [p for p in found if p.distribution == "fake-bad"]
    assert not plugin.loaded and why in plugin.error
    assert why in str(caught[0].message)
    assert systems.get("pdftsp").policies["eft"] is lorasched.pdftsp.baselines.eft.run
    assert "greedy" not in systems.get("pdftsp").policies


def test_two_packages_declaring_one_name_the_first_on_the_path_wins(installed, monkeypatch,
                                                                     tmp_path_factory):
    ahead = tmp_path_factory.mktemp("ahead")
    _distribution(installed, "fake-one", {"pdftsp.greedy": "fake_one:greedy"}, "fake_one")
    _distribution(ahead, "fake-two", {"pdftsp.greedy": "fake_two:greedy"}, "fake_two")
    monkeypatch.syspath_prepend(str(ahead))
    with pytest.warns(plugins.PluginWarning, match="already declared by fake-two"):
        found = systems.load_plugins(reload=True)
    mine = {p.distribution: p.loaded for p in found if p.distribution.startswith("fake-")}
    assert mine == {"fake-two": True, "fake-one": False}
    assert systems.get("pdftsp").policies["greedy"].__module__ == "fake_two"


SWEEPS = '''
import json, sys
import lorasched
from lorasched import systems
from lorasched.experiments import run_sweep

SWEEPS = {
    "pdftsp": ({"nodes": 2, "load": 1.0, "slots": 8}, ["cost_plus_example", "eft"]),
    "titan": ({"jobs": 6}, ["las", "fifo"]),
    "allpass": ({"jobs": 8}, ["edf_serverful", "modal"]),
}
METRIC = {"pdftsp": "welfare", "titan": "avg_jct_h", "allpass": "cost_usd"}

if __name__ == "__main__":
    out = {"plugins": [[p.name, p.loaded] for p in systems.load_plugins()]}
    for system, (base, algorithms) in SWEEPS.items():
        declared = {"name": system, "system": system, "base": base,
                    "algorithms": algorithms, "seeds": 2}
        report = run_sweep(declared, store=sys.argv[1] + "/" + system, workers=2,
                           progress=False)  # a LocalCluster of two worker processes
        serial = run_sweep(declared, store=sys.argv[1] + "/serial-" + system,
                           serial=True, progress=False)
        out[system] = {"failed": len(report.failed), "computed": report.computed,
                       "parallel": report.dataset[METRIC[system]].values.tolist(),
                       "serial": serial.dataset[METRIC[system]].values.tolist()}
    print(json.dumps(out))
'''


@pytest.mark.slow
@pytest.mark.xdist_group("cluster")
def test_the_example_package_installed_runs_in_a_parallel_sweep(tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "--target", str(target), str(EXAMPLE)],
                   check=True, capture_output=True)
    script = tmp_path / "sweeps.py"
    script.write_text(SWEEPS)
    env = {**os.environ, "PYTHONPATH": str(target)}
    run = subprocess.run([sys.executable, str(script), str(tmp_path / "store")], env=env,
                         capture_output=True, text=True, check=True)
    out = json.loads(run.stdout.splitlines()[-1])
    assert sorted(out["plugins"]) == [["allpass.edf_serverful", True],
                                      ["pdftsp.cost_plus_example", True], ["titan.las", True]]
    for system in ("pdftsp", "titan", "allpass"):
        assert out[system]["failed"] == 0 and out[system]["computed"] == 4, out[system]
        assert out[system]["parallel"] == out[system]["serial"]
