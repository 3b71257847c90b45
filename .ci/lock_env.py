"""Write environment.yml from requirements.lock (run by `make lock`).

    python .ci/lock_env.py [requirements.lock [environment.yml]]

The conda environment gets Python 3.11 and pip from conda-forge, and every other package
through pip at the lock's exact version: conda-forge's package names and versions need not
match PyPI's, so pinning them as conda packages would not give the same environment. The
lock's hashes are left out: pip's hash-checking mode would refuse the `-e .` that follows.
Standard library only, so that it runs before the venv has anything but uv in it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

PYTHON = "3.11"

HEADER = """\
# generated from requirements.lock by `make lock`; do not edit.
# conda env create -f environment.yml && conda activate lorasched
# Python {python} from conda-forge; every other package through pip, at the exact versions of
# requirements.lock (conda-forge's names and versions need not match PyPI's), then lorasched.
"""

# `name==version`, optionally followed by an environment marker; nothing else is a pin.
PIN = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[A-Za-z0-9._+!-]+)\s*(?P<marker>;.*)?$"
)


def lock_requirements(lock_text: str) -> list[str]:
    """The requirement lines of a pip requirements file, without hashes or comments.

    Continuation lines (a trailing backslash) are joined first; `--hash` options and
    comments are dropped; other option lines (`--index-url ...`) are skipped.
    """
    logical = re.sub(r"\\\n", " ", lock_text)
    requirements = []
    for line in logical.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line)  # a comment: `#` at the start or after a space
        line = re.sub(r"\s--hash[=\s]\S+", "", line).strip()
        if line and not line.startswith("-"):
            requirements.append(line)
    return requirements


def lock_pins(lock_text: str) -> list[tuple[str, str, str]]:
    """(name, version, marker) of every requirement of the lock, in the lock's order.

    Raises ValueError naming any requirement that is not an exact `==` pin.
    """
    pins = []
    for requirement in lock_requirements(lock_text):
        match = PIN.match(requirement)
        if match is None:
            raise ValueError(f"not an exact `==` pin: {requirement!r}")
        marker = (match["marker"] or "").lstrip(";").strip()
        pins.append((match["name"], match["version"], marker))
    return pins


def environment_yml(lock_text: str, python: str = PYTHON) -> str:
    """The text of environment.yml for the lock given as text."""
    lines = [
        HEADER.format(python=python).rstrip("\n"),
        "name: lorasched",
        "channels:",
        "  - conda-forge",
        "dependencies:",
        f"  - python={python}",
        "  - pip",
        "  - pip:",
    ]
    for name, version, marker in lock_pins(lock_text):
        requirement = f"{name}=={version}" + (f"; {marker}" if marker else "")
        lines.append(f'      - "{requirement}"' if marker else f"      - {requirement}")
    lines.append("      - -e .")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    lock = Path(argv[1] if len(argv) > 1 else "requirements.lock")
    out = Path(argv[2] if len(argv) > 2 else "environment.yml")
    text = environment_yml(lock.read_text(encoding="utf-8"))
    out.write_text(text, encoding="utf-8")
    print(f"{out}: {len(lock_pins(lock.read_text(encoding='utf-8')))} pins from {lock}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
