"""requirements.lock, environment.yml and the book's "Built with" table agree with pyproject.toml.

requirements.lock (uv, `make lock`) pins every package exactly for CPython 3.11 on Linux;
pyproject.toml keeps ranges; environment.yml is generated from the lock by .ci/lock_env.py;
book/_ext/versions.py compares the installed versions with the lock on the book's front page.
"""

import importlib.util
import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
ENVIRONMENT = ROOT / "environment.yml"
PYPROJECT = ROOT / "pyproject.toml"

# The environment the lock is for: CPython 3.11 on Linux x86_64.
TARGET = default_environment() | {
    "python_version": "3.11",
    "python_full_version": "3.11.0",
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_machine": "x86_64",
    "os_name": "posix",
}


def load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lock_env = load_module("lorasched_lock_env", ROOT / ".ci" / "lock_env.py")


def logical_lines(text):
    """A requirements file's lines, continuations joined, comments dropped."""
    joined = re.sub(r"\\\n", " ", text)
    lines = (re.sub(r"(^|\s)#.*$", "", line).strip() for line in joined.splitlines())
    return [line for line in lines if line]


def lock_requirements():
    """(Requirement, hashes) of every requirement line of the lock."""
    entries = []
    for line in logical_lines(LOCK.read_text(encoding="utf-8")):
        assert not line.startswith("-"), f"an option line in the lock: {line!r}"
        hashes = re.findall(r"--hash=(\S+)", line)
        entries.append((Requirement(re.sub(r"\s--hash=\S+", "", line).strip()), hashes))
    return entries


def lock_pins():
    """{normalised name: version} of the lock."""
    pins = {}
    for requirement, _ in lock_requirements():
        (specifier,) = requirement.specifier
        pins[canonicalize_name(requirement.name)] = specifier.version
    return pins


def pyproject_requirements():
    """The core dependencies and the dev and book extras of pyproject.toml."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    return [Requirement(r) for r in project["dependencies"] + extras["dev"] + extras["book"]]


def test_every_requirement_of_the_lock_is_an_exact_pin_with_hashes():
    entries = lock_requirements()
    assert len(entries) > 50
    for requirement, hashes in entries:
        specifiers = list(requirement.specifier)
        assert len(specifiers) == 1, requirement
        assert specifiers[0].operator == "==", requirement
        assert "*" not in specifiers[0].version, requirement
        assert requirement.url is None, requirement
        assert hashes and all(h.startswith("sha256:") for h in hashes), requirement
    names = [canonicalize_name(requirement.name) for requirement, _ in entries]
    assert len(names) == len(set(names)), "a package pinned twice"


def test_the_lock_leaves_out_lorasched_itself():
    assert "lorasched" not in lock_pins()
    assert not re.search(r"^\s*-e\b", LOCK.read_text(encoding="utf-8"), re.MULTILINE)


def test_every_dependency_of_pyproject_is_in_the_lock():
    pins = lock_pins()
    missing = [str(r) for r in pyproject_requirements() if canonicalize_name(r.name) not in pins]
    assert not missing, f"not in requirements.lock (run `make lock`): {missing}"


def test_the_lock_pins_satisfy_the_ranges_of_pyproject():
    pins = lock_pins()
    outside = [
        f"{r} but the lock pins {pins[canonicalize_name(r.name)]}"
        for r in pyproject_requirements()
        if (r.marker is None or r.marker.evaluate(TARGET))
        and not r.specifier.contains(Version(pins[canonicalize_name(r.name)]), prereleases=True)
    ]
    assert not outside, outside
    # the ranges that matter are really there, so the check above checks something
    ranged = {canonicalize_name(r.name): r.specifier for r in pyproject_requirements()}
    assert not ranged["jupyter-book"].contains("2.0.0")
    assert Version(pins["jupyter-book"]).major == 1


RL = ROOT / "requirements-rl.txt"


def rl_pins(text=None):
    """{normalised name: Version} of requirements-rl.txt (or of ``text``)."""
    pins = {}
    for line in logical_lines(RL.read_text(encoding="utf-8") if text is None else text):
        requirement = Requirement(line)
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", f"not an exact pin: {line!r}"
        pins[canonicalize_name(requirement.name)] = Version(specifier.version)
    return pins


def rl_problems(rl, lock):
    """What is wrong with the rl pins ``rl`` beside the lock's pins ``lock``."""
    extra = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"][
        "optional-dependencies"]["rl"]
    problems = []
    for r in map(Requirement, extra):
        name = canonicalize_name(r.name)
        version = rl.get(name) or (Version(lock[name]) if name in lock else None)
        if version is None:
            problems.append(f"{r.name}: pinned nowhere")
        elif not r.specifier.contains(version, prereleases=True):
            problems.append(f"{r.name}: {version} outside {r.specifier}")
    problems += [f"{name}: pinned in both files" for name in sorted(set(rl) & set(lock))]
    return problems


def test_requirements_rl_pins_the_rl_extra_beside_the_lock():
    assert rl_problems(rl_pins(), lock_pins()) == []
    assert rl_pins()["torch"].local == "cpu"          # the CPU build, never PyPI's CUDA one
    # a pin missing, out of its range, or twice is found
    pins = rl_pins()
    assert rl_problems({k: v for k, v in pins.items() if k != "sb3-contrib"},
                       lock_pins()) == ["sb3-contrib: pinned nowhere"]
    assert rl_problems(pins | {"torch": Version("2.1.0")}, lock_pins()) == [
        "torch: 2.1.0 outside >=2.13"]
    assert rl_problems(pins | {"numpy": Version("2.0.0")}, lock_pins()) == [
        "numpy: pinned in both files"]


def test_the_lock_header_says_how_to_refresh_it():
    header = LOCK.read_text(encoding="utf-8").split("\n", 5)[:5]
    comments = [line for line in header if line.startswith("#")]
    assert comments, "no header comment"
    assert any("make lock" in line for line in comments), comments
    assert "uv" in comments[0]
    # ... and `make lock` is what compiles it
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^lock:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe, "no `lock` target in the Makefile"
    assert "uv pip compile" in recipe[1] and "-o requirements.lock" in recipe[1]
    assert ".ci/lock_env.py requirements.lock environment.yml" in recipe[1]
    flags = re.search(r"^LOCK_FLAGS :=(.*(?:\\\n.*)*)", makefile, re.MULTILINE)[1]
    assert "--python-version 3.11" in flags and "--python-platform linux" in flags
    # the venv is installed from the lock (uv, hashes required; pip if uv fails), the
    # project without dependencies
    assert ("uv pip install --python $(BIN)/python --require-hashes --compile-bytecode \\\n"
            "\t  -r requirements.lock" in makefile)
    assert "|| \\\n\t  $(BIN)/python -m pip install -r requirements.lock" in makefile
    assert "pip install --no-deps -e ." in makefile
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make lock" in readme and "requirements.lock" in readme


def test_environment_yml_pins_python_311_and_the_lock_exactly():
    text = ENVIRONMENT.read_text(encoding="utf-8")
    assert text.startswith("# generated from requirements.lock by `make lock`; do not edit")
    environment = yaml.safe_load(text)
    dependencies = environment["dependencies"]
    assert "python=3.11" in dependencies
    (pip,) = [d["pip"] for d in dependencies if isinstance(d, dict)]
    assert pip[-1] == "-e ."
    pinned = {}
    for line in pip[:-1]:
        requirement = Requirement(line)
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", line
        pinned[canonicalize_name(requirement.name)] = specifier.version
    assert len(pinned) == len(pip) - 1, "a package pinned twice"
    assert pinned == lock_pins()


def test_environment_yml_is_what_lock_env_writes_from_the_lock():
    expected = lock_env.environment_yml(LOCK.read_text(encoding="utf-8"))
    assert ENVIRONMENT.read_text(encoding="utf-8") == expected, "run `make lock`"


SMALL_LOCK = """\
# This file was autogenerated by uv via the following command:
#    make lock
numpy==2.4.6 \\
    --hash=sha256:aaaa \\
    --hash=sha256:bbbb
    # via
    #   lorasched (pyproject.toml)
    #   numba
--index-url https://example.org/simple
Jupyter_Book==1.0.4.post1 --hash=sha256:cccc
    # via lorasched (pyproject.toml)
pywin32==311 ; sys_platform == 'win32'
"""

SMALL_ENVIRONMENT = """\
# generated from requirements.lock by `make lock`; do not edit.
# conda env create -f environment.yml && conda activate lorasched
# Python 3.11 from conda-forge; every other package through pip, at the exact versions of
# requirements.lock (conda-forge's names and versions need not match PyPI's), then lorasched.
name: lorasched
channels:
  - conda-forge
dependencies:
  - python=3.11
  - pip
  - pip:
      - numpy==2.4.6
      - Jupyter_Book==1.0.4.post1
      - "pywin32==311; sys_platform == 'win32'"
      - -e .
"""


def test_lock_env_writes_the_environment_of_a_small_lock():
    assert lock_env.environment_yml(SMALL_LOCK) == SMALL_ENVIRONMENT
    parsed = yaml.safe_load(SMALL_ENVIRONMENT)["dependencies"][2]["pip"]
    assert parsed[2] == "pywin32==311; sys_platform == 'win32'"


@pytest.mark.parametrize("line", ["numpy>=2", "numpy", "numpy==2.*x", "-e .", "numpy @ file:///x"])
def test_lock_env_refuses_what_is_not_an_exact_pin(line):
    text = SMALL_LOCK + line + "\n"
    if line.startswith("-"):  # an option line is skipped, not a requirement
        assert len(lock_env.lock_pins(text)) == 3
    else:
        with pytest.raises(ValueError, match="not an exact"):
            lock_env.lock_pins(text)


versions = load_module("lorasched_book_versions", ROOT / "book" / "_ext" / "versions.py")


def test_versions_reports_each_mismatch_with_the_lock():
    lock = "numpy==2.4.5 \\\n    --hash=sha256:aa\nSphinx==7.4.7\njupyter_book==1.0.4\n"
    installed = {"numpy": "2.4.6", "sphinx": "7.4.7", "jupyter-book": "1.0.4", "dask": "1.0"}
    packages = ("numpy", "sphinx", "jupyter-book", "dask", "voila")
    rows, mismatches = versions.version_rows(lock, installed, "3.12.1", packages)
    assert rows == [
        ("Python", "3.12.1", "3.11.*"),
        ("numpy", "2.4.6", "2.4.5"),
        ("sphinx", "7.4.7", "7.4.7"),
        ("jupyter-book", "1.0.4", "1.0.4"),
        ("dask", "1.0", ""),
        ("voila", "not installed", ""),
    ]
    assert mismatches == [
        "built with Python 3.12.1, the lock is for Python 3.11",
        "built with numpy 2.4.6, the lock says 2.4.5",
        "built with dask 1.0, which the lock does not pin",
    ]
    summary = versions.summary("requirements.lock", True, mismatches)
    assert "built with numpy 2.4.6, the lock says 2.4.5" in summary
    assert versions.summary("requirements.lock", True, []).startswith("Every one")
    # a package the lock pins but that is not installed
    _, missing = versions.version_rows("voila==0.5.13\n", {"voila": None}, "3.11.7", ["voila"])
    assert missing == ["built without voila, the lock says 0.5.13"]
    # no lock: nothing compared
    rows, mismatches = versions.version_rows(None, installed, "3.11.7", packages)
    assert mismatches == [] and rows[1] == ("numpy", "2.4.6", "")


def test_versions_has_a_row_per_key_package_in_this_environment():
    rows, mismatches = versions.version_rows(LOCK.read_text(encoding="utf-8"))
    assert [row[0] for row in rows] == ["Python", *versions.KEY_PACKAGES]
    assert rows[0][1].startswith("3.")
    pins = lock_pins()
    for name, installed, locked in rows[1:]:
        assert installed != "not installed", name
        assert locked == pins[canonicalize_name(name)], name
    assert versions.LOCK_PYTHON == lock_env.PYTHON == "3.11"
    for mismatch in mismatches:
        assert mismatch.startswith("built with ")
