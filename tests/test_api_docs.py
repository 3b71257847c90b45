"""The API reference: the book's "API reference" part lists pages that exist and name
importable objects, and every public callable has a numpydoc docstring (a one-line
summary, then Parameters or Returns) for napoleon to render."""

from __future__ import annotations

import importlib
import inspect
import re

import pytest
import yaml
from _book import BOOK, toc_files

import lorasched
from lorasched import systems
from lorasched.experiments import Store as SweepStore
from lorasched.model.system import System, policy_options
from lorasched.service import AuctionService, ServiceInputError
from lorasched.service.http import create_app
from lorasched.service.store import StateError, StoreError
from lorasched.service.store import Store as ServiceStore

API_CAPTION = "API reference"
#: a numpydoc section header: its name, then a line of dashes as long
SECTION = re.compile(r"^(?P<name>[A-Z][A-Za-z ]+)\n(?P<rule>-+)$", re.MULTILINE)
#: the sections one of which every public callable's docstring needs
NEEDED = ("Parameters", "Returns")
#: a directive of a page that names an object or sets the current module
DIRECTIVE = re.compile(r"^\.\. (?P<kind>automodule|py:module|currentmodule|autofunction|autoclass"
                       r"|autoexception|autodata)::\s+(?P<name>\S+)", re.MULTILINE)


def _takes_or_gives(obj) -> bool:
    """Whether ``obj`` has anything for a Parameters or Returns section: a parameter
    (beyond ``self``), or a return value (a method annotated ``-> None`` with no parameter,
    such as ``close()``, has neither)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return True
    params = [p for p in sig.parameters if p not in ("self", "cls")]
    return bool(params) or sig.return_annotation not in ("None", None)


def numpydoc_problems(obj) -> list[str]:
    """What keeps ``obj``'s docstring from being a numpydoc one: no docstring, a summary
    that is not one line ending in a period, or none of :data:`NEEDED`'s sections (where
    ``obj`` takes a parameter or returns a value)."""
    doc = inspect.getdoc(obj)
    if not doc:
        return ["no docstring"]
    problems = []
    lines = doc.splitlines()
    if not lines[0].rstrip().endswith(".") or (len(lines) > 1 and lines[1].strip()):
        problems.append(f"the summary is not one line ending in a period: {lines[0]!r}")
    sections = [m["name"] for m in SECTION.finditer(doc) if len(m["rule"]) == len(m["name"])]
    if not set(sections) & set(NEEDED) and _takes_or_gives(obj):
        problems.append(f"no {' or '.join(NEEDED)} section (sections: {sections})")
    return problems


def _public_methods(cls) -> list:
    """The public methods ``cls`` defines itself (not properties, not inherited ones)."""
    return [getattr(cls, name) for name, value in vars(cls).items()
            if not name.startswith("_") and inspect.isfunction(inspect.unwrap(
                value.__func__ if isinstance(value, classmethod | staticmethod) else value))]


def _documented() -> dict[str, object]:
    """The public API whose docstrings are checked: every callable of ``lorasched.__all__``
    and of pdFTSP's names that moved off the top level (``lorasched.MOVED``), their public
    methods, the System contract, every system's policies, the service and the sweep store."""
    out = {}
    for name in lorasched.__all__:
        obj = getattr(lorasched, name)
        if callable(obj):
            out[f"lorasched.{name}"] = obj
    for module, name in lorasched.MOVED.values():
        out[f"{module}.{name}"] = getattr(importlib.import_module(module), name)
    extra = {"System": System, "policy_options": policy_options,
             "AuctionService": AuctionService, "ServiceInputError": ServiceInputError,
             "create_app": create_app, "service.Store": ServiceStore,
             "StoreError": StoreError, "StateError": StateError,
             "experiments.Store": SweepStore}
    out.update(extra)
    for system in systems.SYSTEMS.values():
        for policy, run in system.policies.items():
            out[f"{system.name} policy {policy}"] = run
    for name, obj in list(out.items()):
        if inspect.isclass(obj):
            for method in _public_methods(obj):
                out[f"{name}.{method.__name__}"] = method
    return out


DOCUMENTED = _documented()


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_public_callables_have_numpydoc_sections(name):
    problems = numpydoc_problems(DOCUMENTED[name])
    assert not problems, f"{name}: " + "; ".join(problems)


def test_every_public_name_is_checked():
    """The parametrized test above covers every callable ``lorasched`` exports; the one
    name that is data (the registry of systems) is documented by its ``#:`` comment."""
    data = [n for n in lorasched.__all__ if not callable(getattr(lorasched, n))]
    assert data == ["SYSTEMS"]
    assert all(f"lorasched.{n}" in DOCUMENTED for n in lorasched.__all__ if n not in data)


def test_the_check_sees_a_docstring_without_sections():
    def old_style(scenario, seed=0):
        """Run ``scenario`` with ``seed``; returns its result."""

    def no_summary(x):
        """Half a sentence
        that runs on.

        Parameters
        ----------
        x : int
            Anything.
        """

    def short_rule(x):
        """Check x.

        Parameters
        ---
        x : int
        """

    def good(x):
        """Check ``x``.

        Parameters
        ----------
        x : int
            What to check.
        """

    def undocumented(x):
        pass

    assert numpydoc_problems(old_style) == [
        "no Parameters or Returns section (sections: [])"]
    assert numpydoc_problems(no_summary) == [
        "the summary is not one line ending in a period: 'Half a sentence'"]
    assert numpydoc_problems(short_rule) == [
        "no Parameters or Returns section (sections: [])"]
    assert numpydoc_problems(undocumented) == ["no docstring"]
    assert numpydoc_problems(good) == []


def _api_part() -> dict:
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    parts = [p for p in toc["parts"] if p.get("caption") == API_CAPTION]
    assert len(parts) == 1, f"_toc.yml has {len(parts)} parts captioned {API_CAPTION!r}"
    return parts[0]


def _api_pages() -> list:
    return [BOOK / entry for entry in toc_files(_api_part())]


def test_the_api_reference_is_the_last_part_and_its_pages_exist():
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text())
    assert toc["parts"][-1].get("caption") == API_CAPTION
    pages = _api_pages()
    assert pages and pages[0].name == "index.md"
    missing = [p.relative_to(BOOK).as_posix() for p in pages if not p.is_file()]
    assert not missing, f"the toc's API pages that do not exist: {missing}"
    # only_build_toc_files: a page left out of the toc would not be built at all
    unlisted = sorted(p.name for p in (BOOK / "api").iterdir()
                      if p.suffix in (".md", ".rst") and p not in pages)
    assert not unlisted, f"book/api/ pages missing from _toc.yml: {unlisted}"


def _objects(text: str) -> list[str]:
    """The full names of the objects a page's autodoc directives document: a name without
    its module is relative to the module set last (``automodule``, ``py:module``,
    ``currentmodule``)."""
    names, module = [], None
    for m in DIRECTIVE.finditer(text):
        if m["kind"] in ("automodule", "py:module", "currentmodule"):
            module = m["name"]
            importlib.import_module(module)
        elif m["name"].startswith("lorasched.") or module is None:
            names.append(m["name"])
        else:
            names.append(f"{module}.{m['name']}")
    return names


def _resolve(name: str):
    """The object called ``name`` (a module's attribute, or a class's)."""
    module, attrs = name, []
    while True:
        try:
            obj = importlib.import_module(module)
            break
        except ModuleNotFoundError:
            module, _, attr = module.rpartition(".")
            attrs.insert(0, attr)
    for attr in attrs:
        obj = getattr(obj, attr)
    return obj


@pytest.mark.parametrize("page", [p.name for p in _api_pages()])
def test_each_api_page_documents_importable_objects(page):
    """Every object a page asks autodoc for exists (the book build would warn only after
    every notebook had been executed)."""
    names = _objects((BOOK / "api" / page).read_text())
    assert names, f"{page} documents nothing"
    for name in names:
        _resolve(name)


def test_the_page_check_sees_a_missing_object():
    page = """```{eval-rst}
.. automodule:: lorasched.systems

.. autofunction:: simulate

.. autofunction:: lorasched.titan.policies.fifo

.. autoclass:: lorasched.model.system.System
```"""
    names = _objects(page)
    assert names == ["lorasched.systems.simulate", "lorasched.titan.policies.fifo",
                     "lorasched.model.system.System"]
    for name in names:
        _resolve(name)
    with pytest.raises(AttributeError):
        _resolve(_objects(page.replace("simulate", "simulate_all"))[0])


def test_the_index_lists_every_public_name():
    """The reference's front page is the package's public face: each name of
    ``lorasched.__all__`` is in one of its tables."""
    text = (BOOK / "api" / "index.md").read_text()
    listed = set(re.findall(r"^   ~[\w.]+\.(\w+)$", text, re.MULTILINE))
    missing = sorted(set(lorasched.__all__) - listed)
    assert not missing, f"lorasched.__all__ names missing from api/index.md: {missing}"
