"""`make publish`: commit the built book to the checkout's gh-pages branch (ghp-import, the
Jupyter Book convention), without pushing.

    python .ci/publish.py [SITE] [--repo PATH] [--branch gh-pages]

SITE (default book/_build/html) is checked first, and nothing is committed if it fails:
it has an index.html and the figures' data with their SHA256SUMS (data/, written by
`make book`), every checksum matches, no file names an absolute path of this machine (the
checkout's folder, the site's, the home folder), no page links a file: URL, and no page
loads anything from off the site (a script, stylesheet, image, font or frame from http(s):
or //; links <a> may point anywhere). Then the site becomes one commit on the branch
(with .nojekyll, so that GitHub Pages serves the _static/ folders), the previous one its
parent. Prints the branch, its
commit, the number of files and their size. To serve it: `git push origin gh-pages`, then
in the repository's Settings > Pages choose "Deploy from a branch", gh-pages, / (root): the
book is at https://<owner>.github.io/<repository>/ (the workflow
.github/workflows/book.yml deploys it with GitHub's Pages action instead).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXT = {".html", ".js", ".css", ".json", ".txt", ".md", ".ipynb", ".svg", ".xml", ".csv"}
#: elements whose src/href the browser fetches as the page loads
FILE_URL = re.compile(r"\s(?:src|href)\s*=\s*[\"'](file:[^\"']*)", re.IGNORECASE)
LOADS = re.compile(r"<(script|link|img|iframe|source|video|audio|embed)\b[^>]*?"
                   r"\s(?:src|href)\s*=\s*[\"']((?:https?:)?//[^\"']+)", re.IGNORECASE)


def problems(site: Path, repo: Path = ROOT) -> list[str]:
    """Everything that keeps ``site`` from being published (empty: nothing)."""
    out = []
    if not (site / "index.html").is_file():
        return [f"{site}: no index.html (build the book first: make book)"]
    manifest = site / "data" / "SHA256SUMS"
    if not manifest.is_file():
        out.append(f"{site}: no data/SHA256SUMS (the figures' data: make book writes it)")
    else:
        for line in manifest.read_text().splitlines():
            digest, name = line.split("  ", 1)
            path = site / "data" / name
            if not path.is_file():
                out.append(f"data/{name}: in SHA256SUMS but missing")
            elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                out.append(f"data/{name}: its SHA-256 differs from SHA256SUMS")
    local = sorted({f"{p}/" for p in (ROOT, repo, site, Path.home())})
    for path in sorted(site.rglob("*")):
        if not path.is_file() or path.suffix not in TEXT:
            continue
        text = path.read_text(errors="replace")
        rel = path.relative_to(site)
        for word in local:
            if word in text:
                out.append(f"{rel}: names a local path ({word!r})")
        if path.suffix == ".html":
            out += [f"{rel}: <{tag}> loads {url} from off the site"
                    for tag, url in LOADS.findall(text)]
            out += [f"{rel}: links a file: URL ({url})" for url in FILE_URL.findall(text)]
    return out


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", default=str(ROOT / "book" / "_build" / "html"))
    parser.add_argument("--repo", default=str(ROOT), help="the checkout to commit into")
    parser.add_argument("--branch", default="gh-pages")
    args = parser.parse_args(argv)
    site, repo = Path(args.site).resolve(), Path(args.repo).resolve()
    found = problems(site, repo)
    if found:
        print(f"publish: {len(found)} problem(s), nothing committed:", file=sys.stderr)
        for line in found[:40]:
            print(f"  {line}", file=sys.stderr)
        return 2
    import ghp_import  # the book extra; imported here so that the checks run without it

    source = git(repo, "rev-parse", "--short", "HEAD")
    cwd = os.getcwd()
    os.chdir(repo)  # ghp-import works on the repository of the working directory
    try:
        ghp_import.ghp_import(str(site), branch=args.branch, nojekyll=True, push=False,
                              mesg=f"The book built from {source}")
    finally:
        os.chdir(cwd)
    commit = git(repo, "rev-parse", "--short", args.branch)
    sizes = [int(line.split()[3]) for line in
             git(repo, "ls-tree", "-r", "-l", args.branch).splitlines()]
    print(f"publish: {args.branch} at {commit} (the book built from {source}): "
          f"{len(sizes)} files, {sum(sizes) / 1e6:.1f} MB. Push it with "
          f"`git push origin {args.branch}`.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
