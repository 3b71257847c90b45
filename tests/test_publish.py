"""Publishing: the GitHub workflow (checked against GitHub's schema, offline), and `make
publish` (.ci/publish.py) committing a small built book to a scratch clone's gh-pages
branch, whose front page then opens from the branch's own files with nothing loaded from
off the machine."""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest
import yaml
from _browser import ARTIFACTS, new_page, screenshot

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"
PUBLISH = ROOT / ".ci" / "publish.py"


def _schema_check(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema",
                           "vendor.github-workflows", str(path)],
                          capture_output=True, text=True)


def test_the_workflow_is_valid_for_github():
    proc = _schema_check(WORKFLOW)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("breakage, mistake", [
    (lambda w: w["jobs"]["test"].pop("runs-on"), "runs-on"),
    (lambda w: w["jobs"]["book"].update(step=w["jobs"]["book"].pop("steps")), "step"),
    (lambda w: w["jobs"]["book"].update({"timeout-minutes": "two hours"}), "two hours"),
])
@pytest.mark.slow
def test_the_schema_check_catches_a_broken_workflow(tmp_path, breakage, mistake):
    """The check can fail: a workflow with a job missing runs-on, a misspelt key or a
    timeout in words is refused, and the message names it."""
    workflow = yaml.safe_load(WORKFLOW.read_text())
    breakage(workflow)
    broken = tmp_path / "book.yml"
    broken.write_text(yaml.safe_dump(workflow, sort_keys=False))
    proc = _schema_check(broken)
    assert proc.returncode != 0 and mistake in proc.stdout + proc.stderr, proc.stdout


def test_the_workflow_runs_what_the_project_has():
    """What the schema cannot know: the make targets and scripts it runs exist, the
    files its caches hash exist, its Python is the project's, and Pages is deployed from
    main only, after the book is built and the tests pass."""
    text = WORKFLOW.read_text()
    workflow = yaml.safe_load(text)
    targets = {t for rule in re.findall(r"^([a-zA-Z.][\w. -]*?)\s*:(?!=)",
                                        (ROOT / "Makefile").read_text(), re.MULTILINE)
               for t in rule.split()}
    runs = [s["run"] for job in workflow["jobs"].values() for s in job["steps"] if "run" in s]
    for line in runs:
        for target in re.findall(r"\bmake (\S+)", line):
            assert target in targets, f"the workflow runs `make {target}`: no such target"
        for script in re.findall(r"(?:^|\s)(\.ci/\S+|\.venv/bin/\S+)", line):
            assert script.startswith(".venv/") or (ROOT / script).is_file(), script
    for name in re.findall(r"hashFiles\(([^)]*)\)", text):
        for path in re.findall(r"'([^']+)'", name):
            assert (ROOT / path).is_file(), f"the cache key hashes {path}: no such file"
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "requires-python"]
    assert requires == ">=3.11"
    assert {job.get("container") for job in workflow["jobs"].values()} >= {
        "python:3.11-bookworm"}
    book, deploy = workflow["jobs"]["book"], workflow["jobs"]["deploy"]
    assert book["needs"] == "test" and deploy["needs"] == "book"
    assert "refs/heads/main" in book["if"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert workflow[True]["schedule"]  # weekly (YAML reads the key `on` as True)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


@pytest.mark.browser
def test_publish_commits_a_small_build_to_gh_pages(browser, built_book, tmp_path):
    site = built_book
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(clone)],
                   check=True)
    # a site with a page that loads a script from the web is refused, nothing committed
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "index.html").write_text('<script src="https://cdn.example.org/x.js"></script>')
    refused = subprocess.run([sys.executable, str(PUBLISH), str(bad), "--repo", str(clone)],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "cdn.example.org" in refused.stderr
    assert "gh-pages" not in _git(clone, "branch", "--list", "gh-pages")

    done = subprocess.run([sys.executable, str(PUBLISH), str(site), "--repo", str(clone)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "publish: gh-pages at" in done.stdout and "git push origin gh-pages" in done.stdout
    files = set(_git(clone, "ls-tree", "-r", "--name-only", "gh-pages").split())
    assert {"index.html", ".nojekyll", "data/SHA256SUMS", "_static/plotly.min.js"} <= files
    grep = subprocess.run(["git", "grep", "-l", "-F", str(ROOT), "gh-pages"], cwd=clone,
                          capture_output=True, text=True)
    assert grep.stdout == "", f"files naming {ROOT}: {grep.stdout}"
    # the front page, opened from the branch's own files
    out = tmp_path / "branch"
    archive = tmp_path / "branch.tar"
    subprocess.run(["git", "archive", "-o", str(archive), "gh-pages"], cwd=clone, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(out, filter="data")
    page, log = new_page(browser)
    try:
        page.goto((out / "index.html").as_uri(), wait_until="load")
        log.settle(page)
        shot = screenshot(page, ARTIFACTS / "publish" / "index.png")
        title = page.title()
    finally:
        page.context.close()
    assert "lorasched" in title.lower(), title
    assert not log.problems, "\n".join(log.problems) + f"\nscreenshot: {shot}"


def test_the_downloadable_notebooks_name_no_local_path():
    """book/_ext/sources.py: papermill's absolute input and output paths become
    ``notebooks/<name>.ipynb``; a notebook without them is left alone."""
    import json

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    try:
        import sources
    finally:
        sys.path.remove(str(ROOT / "book" / "_ext"))
    nb = {"cells": [], "metadata": {"papermill": {
        "input_path": "/home/me/lorasched/notebooks/fig08_load.ipynb",
        "output_path": "/home/me/lorasched/book/notebooks/fig08_load.ipynb",
        "parameters": {"size": "full"}}}}
    scrubbed = json.loads(sources.scrub(json.dumps(nb)))["metadata"]["papermill"]
    assert scrubbed == {"input_path": "notebooks/fig08_load.ipynb",
                        "output_path": "notebooks/fig08_load.ipynb",
                        "parameters": {"size": "full"}}
    assert sources.scrub(json.dumps({"cells": [], "metadata": {}})) is None
