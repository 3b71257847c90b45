"""lorasched.figures.catalog: one catalogue per system (its pages, their sweeps, the call
that computes them), each argument of ``reproduce`` honoured or refused by name."""

from __future__ import annotations

import pytest

from lorasched.experiments import Sweep
from lorasched.figures import allpass, catalog, pdftsp, titan
from lorasched.figures.allpass import catalog as allpass_catalog
from lorasched.figures.base import Figure
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


def _in_memory(calls):
    def compute(size, store, *, seeds, figures, progress):
        calls.append({"size": size, "store": store, "seeds": seeds,
                      "figures": [f.key for f in figures], "progress": progress})
        return catalog.Report(computed=1)
    return catalog.Catalogue(PAGES, "Allpass", compute=compute)


@pytest.mark.parametrize("given", [{"workers": 2}, {"scheduler": "tcp://h:1"},
                                   {"serial": True}])
def test_an_in_memory_catalogue_refuses_where_cells_run_by_name(given, batches):
    calls = []
    cat = _in_memory(calls)
    (arg, value), = given.items()
    with pytest.raises(InputError, match=rf"^{arg}={value!r}: Allpass's pages are computed "
                                         "in memory"):
        cat.reproduce("small", **given)
    assert calls == [] and batches == []


def test_an_in_memory_catalogue_passes_the_rest_to_its_computation(batches):
    calls = []
    cat = _in_memory(calls)
    assert cat.reproduce("small", "/s", seeds=2, figures=["b"], progress=False).computed == 1
    cat.reproduce("full", workers=None, scheduler=None, serial=False)  # the defaults: fine
    assert calls == [{"size": "small", "store": "/s", "seeds": 2, "figures": ["b"],
                      "progress": False},
                     {"size": "full", "store": None, "seeds": None, "figures": ["a", "b"],
                      "progress": True}]
    assert batches == []
    with pytest.raises(InputError, match="computed in memory, not as sweeps"):
        cat.sweeps("small")


def test_the_three_systems_build_their_functions_from_one_catalogue(batches):
    for module, name in ((pdftsp, "section 5"), (titan, "TITAN section 5")):
        cat = module.CATALOGUE
        assert cat.figures is module.FIGURES and cat.compute is None
        assert module.reproduce == cat.reproduce and module.sweeps == cat.sweeps
        assert module.figure == cat.figure
        module.reproduce("small", "/s", workers=3, serial=True, progress=False)
        assert batches[-1]["name"] == f"{name} (small)"
        assert batches[-1]["figures"] == list(module.FIGURES)
        assert (batches[-1]["workers"], batches[-1]["serial"]) == (3, True)
        # the batch of all pages adds the sensitivity page's sweeps
        assert len(module.sweeps("small")) > len(module.sweeps("small", None,
                                                               list(module.FIGURES)))
    assert allpass.CATALOGUE.figures is allpass.FIGURES and allpass.CATALOGUE.compute
    assert allpass.reproduce == allpass.CATALOGUE.reproduce and not hasattr(allpass, "sweeps")
    with pytest.raises(InputError, match="workers=2: Allpass's pages"):
        allpass.reproduce("small", workers=2)


def test_allpass_runs_its_batch_only_for_pages_that_draw_from_it(monkeypatch, tmp_path):
    ran = []
    monkeypatch.setattr(allpass_catalog, "runs", lambda size, seeds, progress, store: ran.append(
        (size, seeds, progress, store)) or {"run": 1, "other": 2})
    report = allpass.reproduce("small", tmp_path, figures=["fig01"], progress=False)
    assert (report.computed, report.skipped, ran) == (0, 0, [])  # Fig. 1: the traces only
    report = allpass.reproduce("small", tmp_path, seeds=1, figures=["fig01", "fig07"],
                               progress=False)
    assert ran == [("small", 1, False, tmp_path)]
    assert (report.computed, report.skipped, report.failed) == (2, 0, [])
    # with the batch file there, the runs are found done
    (tmp_path / "batch.pkl").write_bytes(b"")
    monkeypatch.setattr(allpass_catalog, "_cache", lambda store, size, seeds: tmp_path /
                        "batch.pkl")
    assert allpass.reproduce("small", tmp_path, progress=False).skipped == 2
