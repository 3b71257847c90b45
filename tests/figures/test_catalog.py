"""lorasched.figures.catalog: one catalogue per system (its pages, their sweeps, the call
that computes them), each argument of ``reproduce`` honoured or refused by name."""

from __future__ import annotations

import pytest

from lorasched.experiments import Sweep
from lorasched.figures import allpass, catalog, pdftsp, titan
from lorasched.figures.base import Figure, default_store
from lorasched.model.errors import InputError


class _Page(Figure):
    """A page of one tiny sweep, named after its key."""

    system = "pdftsp"

    def __init__(self, key: str):
        self.key = key

    def sweeps(self, size="small", seeds=None):
        return {"main": Sweep(name=f"{self.key}_{size}", system="pdftsp", base={"nodes": 2},
                              axes={}, algorithms=("pdftsp",), seeds=tuple(range(1, (seeds
                                                                                    or 1) + 1)))}


PAGES = {"a": _Page("a"), "b": _Page("b")}
EXTRA = _Page("extra")


@pytest.fixture()
def batches(monkeypatch):
    """What each batch of cells was asked to run, instead of running it."""
    calls = []
    monkeypatch.setattr(catalog, "run_figures", lambda figures, size, store, **kw: calls.append(
        {"figures": [f.key for f in figures], "size": size, "store": store, **kw}) or "report")
    return calls


def test_a_catalogue_of_sweeps_hands_every_argument_to_its_batch(batches):
    cat = catalog.Catalogue(PAGES, "section 5", extra=(EXTRA,))
    assert cat.reproduce("small", "/s", seeds=3, figures=["b"], workers=2,
                         scheduler="tcp://h:1", serial=True, progress=False) == "report"
    assert batches == [{"figures": ["b"], "size": "small", "store": "/s", "seeds": 3,
                        "workers": 2, "scheduler": "tcp://h:1", "serial": True,
                        "progress": False, "name": "section 5 (small)"}]
    cat.reproduce("full")  # every page, never the extra ones; the defaults passed on
    assert batches[1] == {"figures": ["a", "b"], "size": "full", "store": None, "seeds": None,
                          "workers": None, "scheduler": None, "serial": False,
                          "progress": True, "name": "section 5 (full)"}
    with pytest.raises(InputError, match=r"one of \['a', 'b'\], got 'c'"):
        cat.reproduce("small", figures=["c"])
    with pytest.raises(InputError, match="size must be one of"):
        cat.reproduce("medium")
    assert len(batches) == 2


def test_sweeps_are_the_chosen_pages_or_every_page_and_the_extra_ones():
    cat = catalog.Catalogue(PAGES, "section 5", extra=(EXTRA,))
    assert [s.name for s in cat.sweeps("small")] == ["a_small", "b_small", "extra_small"]
    assert [s.name for s in cat.sweeps("full", 2, ["b"])] == ["b_full"]
    assert cat.sweeps("small", 2, ["a"])[0].seeds == (1, 2)
    assert cat.figure("a") is PAGES["a"] and cat.chosen(["b", "a"]) == [PAGES["b"], PAGES["a"]]
    assert cat.chosen() == cat.chosen([]) == list(PAGES.values())
    with pytest.raises(InputError, match="got 'c'"):
        cat.figure("c")


def _of_runs(calls):
    """A catalogue whose pages read common runs: its sweeps the ``runs`` function's."""
    def runs(size, seeds, figures):
        calls.append({"size": size, "seeds": seeds, "figures": figures})
        return [PAGES["a"].sweep(size, seeds)]
    return catalog.Catalogue(PAGES, "Allpass", runs=runs)


def test_a_catalogue_of_common_runs_runs_its_sweeps_where_told(monkeypatch, batches):
    calls, ran = [], []
    cat = _of_runs(calls)
    monkeypatch.setattr(catalog, "run_sweeps", lambda sweeps, store, **kw: ran.append(
        ([s.name for s in sweeps], store, kw)) or "report")
    assert [s.name for s in cat.sweeps("small", 2, ["b"])] == ["a_small"]
    assert cat.reproduce("small", "/s", seeds=2, figures=["b"], workers=3,
                         scheduler="tcp://h:1", serial=True, progress=False) == "report"
    cat.reproduce("full")  # every run of the system: figures None
    assert calls == [{"size": "small", "seeds": 2, "figures": ["b"]}] * 2 + [
        {"size": "full", "seeds": None, "figures": None}]
    assert ran[0] == (["a_small"], "/s", {"progress": False, "name": "Allpass (small)",
                                          "workers": 3, "scheduler": "tcp://h:1",
                                          "serial": True})
    assert ran[1][1] == default_store("full") and batches == []
    with pytest.raises(InputError, match="got 'c'"):
        cat.sweeps("small", None, ["c"])


def test_the_three_systems_build_their_functions_from_one_catalogue(batches):
    for module, name in ((pdftsp, "section 5"), (titan, "TITAN section 5")):
        cat = module.CATALOGUE
        assert cat.figures is module.FIGURES and cat.runs is None
        assert module.reproduce == cat.reproduce and module.sweeps == cat.sweeps
        assert module.figure == cat.figure
        module.reproduce("small", "/s", workers=3, serial=True, progress=False)
        assert batches[-1]["name"] == f"{name} (small)"
        assert batches[-1]["figures"] == list(module.FIGURES)
        assert (batches[-1]["workers"], batches[-1]["serial"]) == (3, True)
        # the batch of all pages adds the sensitivity page's sweeps
        assert len(module.sweeps("small")) > len(module.sweeps("small", None,
                                                               list(module.FIGURES)))
    assert allpass.CATALOGUE.figures is allpass.FIGURES and allpass.CATALOGUE.runs
    assert allpass.reproduce == allpass.CATALOGUE.reproduce
    assert allpass.sweeps == allpass.CATALOGUE.sweeps
    # the batch of all pages adds the sensitivity page's runs and the second look's
    assert len(allpass.sweeps("small")) > len(allpass.sweeps("small", None,
                                                             list(allpass.FIGURES)))
