"""The one shape of the three system packages: the same module name for the same job in
``pdftsp/``, ``titan/`` and ``allpass/``, each job done in its module and nowhere else in the
package, and the table on *Where things live* (book/reference/layout.md) that says so.
Like tests/test_layers.py for the layers, this module is where the shape is declared."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
import typing
from pathlib import Path

import pytest

from lorasched import systems

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = ROOT / "book" / "reference" / "layout.md"

#: the shared modules: name -> the job it does in every system package
SHAPE = {
    "workload": "build a scenario (the System's build_scenario)",
    "scenario": "validate a scenario and give its plain arrays (validate, to_arrays)",
    "policies": "the policies' registry (REGISTRY, the System's policies)",
    "decisions": "what a policy returns (the type result.assemble takes)",
    "result": "a result from the decisions, and its checker (assemble, check_result)",
    "diagnostics": "what explains a result beyond its metrics",
    "system": "the System and simulate",
    "env": "the online decision as a decision problem (for the random policy and gym)",
    "flags": "the flags of lorasched simulate",
}
#: names another system once gave one of the shared jobs: a module of one of these names
#: in a system package is a twin of a shared module
TWINS = {
    "diagnose": "diagnostics", "diagnosis": "diagnostics", "simulation": "system",
    "simulate": "system", "validation": "scenario", "validate": "scenario",
    "build": "workload", "builder": "workload", "builders": "workload",
    "generator": "workload", "output": "decisions", "outputs": "decisions",
    "registry": "policies", "arrays": "scenario", "checks": "result", "check": "result",
    "accounting": "result", "environment": "env", "cli": "flags",
}
#: functions that do a shared job, and the module that alone may define them
JOB_FUNCTIONS = {"validate": "scenario", "to_arrays": "scenario", "simulate": "system",
                 "assemble": "result", "check_result": "result"}
PACKAGES = {name: f"lorasched.{name}" for name in systems.SYSTEMS}


def modules_of(package: str) -> list[str]:
    """The dotted names of a package's modules, sub-packages' included."""
    pkg = importlib.import_module(package)
    return [m.name for m in pkgutil.walk_packages(pkg.__path__, prefix=f"{package}.")]


def shape_problems(package: str, system, names: list[str] | None = None) -> list[str]:
    """What breaks the one shape in ``package`` (the System ``system``'s package), whose
    modules are ``names`` (default: those it holds)."""
    problems = []
    names = modules_of(package) if names is None else names
    short = {n.removeprefix(f"{package}.") for n in names}
    problems += [f"{package} has no module {m!r} ({job})" for m, job in SHAPE.items()
                 if m not in short]
    problems += [f"{package}.{m} is a twin of the shared module {TWINS[m.split('.')[-1]]!r}"
                 for m in sorted(short) if m.split(".")[-1] in TWINS]
    if problems:
        return problems

    def where(obj) -> str:
        return getattr(obj, "__module__", "").removeprefix(f"{package}.")

    checks = {"build_scenario": (system.build_scenario, "workload"),
              "validate": (system.validate, "scenario"),
              "simulate": (system.simulate, "system"),
              "check_result": (system.check_result, "result")}
    problems += [f"{system.name}'s {job} is defined in {where(fn)!r}, not {want!r}"
                 for job, (fn, want) in checks.items() if where(fn) != want]
    policies = importlib.import_module(f"{package}.policies")
    if getattr(policies, "REGISTRY", None) is not system.policies:
        problems.append(f"{package}.policies.REGISTRY is not the System's registry")
    result = importlib.import_module(f"{package}.result")
    hints = typing.get_type_hints(result.assemble)
    second = list(inspect.signature(result.assemble).parameters)[1]
    output = hints.get(second)
    if where(output) != "decisions":
        problems.append(f"{package}.result.assemble takes {output!r}, not a type of "
                        f"{package}.decisions")
    for name in names:
        module = importlib.import_module(name)
        here = name.removeprefix(f"{package}.")
        for fn_name, home in JOB_FUNCTIONS.items():
            fn = vars(module).get(fn_name)
            if inspect.isfunction(fn) and fn.__module__ == name and here != home:
                problems.append(f"{name} defines {fn_name}, the job of {package}.{home}")
    return problems


@pytest.mark.parametrize("system", sorted(PACKAGES))
def test_each_system_package_has_the_shared_modules_doing_their_jobs(system):
    assert shape_problems(PACKAGES[system], systems.SYSTEMS[system]) == []


def test_a_missing_module_a_twin_and_a_job_done_elsewhere_are_named():
    package, system = PACKAGES["allpass"], systems.SYSTEMS["allpass"]
    renamed = [m.replace(".diagnostics", ".diagnose") for m in modules_of(package)]
    problems = shape_problems(package, system, renamed)
    assert any("no module 'diagnostics'" in p for p in problems)
    assert any("allpass.diagnose is a twin of the shared module 'diagnostics'" in p
               for p in problems)
    borrowed = dataclasses.replace(system, simulate=systems.SYSTEMS["titan"].simulate)
    assert any("simulate is defined in 'lorasched.titan.system'" in p
               for p in shape_problems(package, borrowed))
    # a shared job's function defined in another module of the package
    titan = PACKAGES["titan"]
    problems = shape_problems(titan, systems.SYSTEMS["titan"],
                              modules_of(titan) + ["lorasched.allpass.system"])
    assert any("lorasched.allpass.system defines simulate" in p for p in problems)


def layout_table() -> dict[str, dict[str, str]]:
    """The table "One shape" of *Where things live*: module -> system -> what it holds
    there (the columns named after a system)."""
    text = LAYOUT.read_text()
    section = text[text.index("### One shape"):]
    section = section[:section.index("\n#", 1)]
    rows = {}
    header = None
    for line in section.splitlines():
        if not line.startswith("|") or set(line) <= set("|- "):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if header is None:
            header = cells
            continue
        module = re.match(r"`(\w+)`", cells[0])[1]
        rows[module] = {system.lower(): held for system, held
                        in zip(header[1:], cells[1:], strict=True)
                        if system.lower() in PACKAGES}
    return rows


def test_the_layout_page_tables_the_shared_modules_of_each_system():
    rows = layout_table()
    assert list(rows) == list(SHAPE)
    for module, by_system in rows.items():
        for system, held in by_system.items():
            package = PACKAGES[system]
            names = set(re.findall(r"`([A-Za-z_]\w*)`", held))
            defined = vars(importlib.import_module(f"{package}.{module}"))
            assert names and names <= set(defined), (module, system, names - set(defined))
