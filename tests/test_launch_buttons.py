"""The notebook pages' launch buttons (Binder, Colab): shown when, and only when,
book/_config.yml names a repository URL (book/_ext/launch.py). Checked on the extension's
function, on the book's configuration, and on a one-page book built with Jupyter Book."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from types import SimpleNamespace

import nbformat
import pytest
import yaml
from _book import BIN, BOOK, ROOT, toc_notebooks

_SPEC = importlib.util.spec_from_file_location("launch", BOOK / "_ext" / "launch.py")
launch = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(launch)

CONFIG = yaml.safe_load((BOOK / "_config.yml").read_text())
BUTTONS = {"notebook_interface": "classic", "binderhub_url": "https://mybinder.org",
           "jupyterhub_url": "https://hub.example.org", "thebe": True,
           "colab_url": "https://colab.research.google.com"}
OFF = {"notebook_interface": "classic", "binderhub_url": "", "jupyterhub_url": "",
       "thebe": False, "colab_url": "", "deepnote_url": "", "jupyterlite_url": ""}
REPOSITORY = "https://github.com/example/lorasched"


@pytest.mark.parametrize("options", [
    {"launch_buttons": BUTTONS, "repository_url": ""},
    {"launch_buttons": BUTTONS, "repository_url": None},
    {"launch_buttons": BUTTONS},
], ids=["empty", "none", "missing"])
def test_without_a_repository_every_launch_service_is_off(options):
    assert launch.launch_buttons(options) == OFF
    assert options["launch_buttons"]["binderhub_url"] == "https://mybinder.org"  # a copy


def test_with_a_repository_the_launch_buttons_are_as_configured():
    options = {"launch_buttons": BUTTONS, "repository_url": REPOSITORY}
    assert launch.launch_buttons(options) == BUTTONS


def test_the_extension_switches_the_sphinx_config_it_is_given():
    """The config-inited handler rewrites html_theme_options' launch_buttons, only."""
    config = SimpleNamespace(html_theme_options={"launch_buttons": BUTTONS,
                                                 "repository_url": "", "logo": {}})
    launch._config_inited(None, config)
    assert config.html_theme_options == {"launch_buttons": OFF, "repository_url": "",
                                         "logo": {}}
    config = SimpleNamespace(html_theme_options={"launch_buttons": BUTTONS,
                                                 "repository_url": REPOSITORY})
    launch._config_inited(None, config)
    assert config.html_theme_options["launch_buttons"] == BUTTONS
    config = SimpleNamespace(html_theme_options={"repository_url": ""})
    launch._config_inited(None, config)
    assert config.html_theme_options == {"repository_url": ""}


def test_the_book_names_binder_and_colab_and_its_repository_section():
    """_config.yml: Binder and Colab named, no hub, no thebe; the repository section present
    with its URL (empty until the book is published; without it Jupyter Book fills in its own
    repository's); the extension registered; and each notebook page's launch path
    (path_to_book/page) is the notebook committed in notebooks/ (book/notebooks/ is made by
    `make book` and not committed)."""
    buttons, repository = CONFIG["launch_buttons"], CONFIG["repository"]
    assert buttons["binderhub_url"] == "https://mybinder.org"
    assert buttons["colab_url"] == "https://colab.research.google.com"
    assert buttons["jupyterhub_url"] == "" and buttons["thebe"] is False
    assert "url" in repository and repository["branch"] == "main"
    assert CONFIG["sphinx"]["local_extensions"]["launch"] == "_ext"
    assert "launch" in CONFIG["sphinx"]["config"]["extensions"]
    committed = set((ROOT / "notebooks").glob("*.ipynb"))
    launched = {ROOT / repository["path_to_book"] / f"{name}.ipynb" for name in toc_notebooks()}
    assert launched and launched <= committed, sorted(map(str, launched - committed))


def _tiny_book(dest, url: str) -> None:
    """A one-notebook book configured as book/_config.yml, with only the launch extension of
    the book's own, and ``url`` as its repository."""
    config = yaml.safe_load((BOOK / "_config.yml").read_text())
    config["repository"]["url"] = url
    local = config["sphinx"]["local_extensions"]
    config["sphinx"]["config"]["extensions"] = [
        name for name in config["sphinx"]["config"]["extensions"]
        if name == "launch" or name not in local]
    config["sphinx"]["local_extensions"] = {"launch": "_ext"}
    (dest / "_ext").mkdir(parents=True)
    shutil.copyfile(BOOK / "_ext" / "launch.py", dest / "_ext" / "launch.py")
    (dest / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    (dest / "_toc.yml").write_text("format: jb-book\nroot: notebooks/page\n")
    notebook = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}},
        cells=[nbformat.v4.new_markdown_cell("# A page"),
               nbformat.v4.new_code_cell("1 + 1", execution_count=1, outputs=[
                   nbformat.v4.new_output("execute_result", {"text/plain": "2"},
                                          execution_count=1)])])
    (dest / "notebooks").mkdir()
    nbformat.write(notebook, dest / "notebooks" / "page.ipynb")


def _built_page(book) -> str:
    """``jupyter-book build -W -n`` of ``book``; the notebook page's HTML."""
    proc = subprocess.run(
        [str(BIN / "jupyter-book"), "build", str(book), "-W", "-n", "--keep-going"],
        capture_output=True, text=True, cwd=book,
        env={**os.environ, "PYTHONPATH": str(ROOT),
             "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"},
    )
    assert proc.returncode == 0, f"jupyter-book build failed:\n{proc.stdout[-4000:]}\n" \
                                 f"{proc.stderr[-4000:]}"
    return (book / "_build" / "html" / "notebooks" / "page.html").read_text()


def test_a_built_page_has_no_launch_links_without_a_repository(tmp_path):
    _tiny_book(tmp_path / "book", "")
    html = _built_page(tmp_path / "book")
    assert "A page" in html  # the notebook page itself
    assert "mybinder.org" not in html
    assert "colab.research.google.com" not in html


def test_a_built_page_launches_its_notebook_on_binder_and_colab_with_a_repository(tmp_path):
    _tiny_book(tmp_path / "book", REPOSITORY)
    html = _built_page(tmp_path / "book")
    assert ('href="https://mybinder.org/v2/gh/example/lorasched/main'
            '?urlpath=tree/notebooks/page.ipynb"') in html
    assert ('href="https://colab.research.google.com/github/example/lorasched/blob/main/'
            'notebooks/page.ipynb"') in html
