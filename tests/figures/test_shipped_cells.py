"""The cells shipped in notebooks/cells/<system>-<size>.jsonl, which `make book` (full) and
`make test` (small) take instead of computing them: exactly each system's costly figure cells
of this code at that size (a change to the code that computes them fails here until `make
ship-cells` is run), each record's key its own parameters' key, and the cheapest of them
recomputed here, bit for bit."""

from __future__ import annotations

import math

import pytest

from lorasched import systems
from lorasched.experiments import grid, shipped
from lorasched.experiments.executor import run_cell
from lorasched.experiments.store import decode_metric
from lorasched.figures import pdftsp, titan
from lorasched.figures.base import shipped_file, shipped_files

#: the systems whose costly cells are shipped, and their catalogues
CATALOGUES = {"pdftsp": pdftsp.CATALOGUE, "titan": titan.CATALOGUE}
#: the sizes shipped
SIZES = ("full", "small")
#: the smallest K at which a pdFTSP figure's cell is its full size (the sensitivity page's
#: cells are smaller)
FULL_K = 50
#: a policy's cheapest shipped cell is recomputed if it took under this many CPU-seconds
CHEAP = 10.0

pytestmark = pytest.mark.skipif(shipped_file("full", "pdftsp") is None,
                                reason="not a source checkout: no shipped cells")


@pytest.fixture(scope="module", params=list(CATALOGUES))
def system(request) -> str:
    return request.param


@pytest.fixture(scope="module", params=SIZES)
def size(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def cells(system, size) -> shipped.Shipped:
    """The system's shipped cells of ``size``; none where its file is missing (so that the
    test of the keys fails, naming every cell)."""
    path = shipped_file(size, system)
    return shipped.read(path) if path.is_file() else shipped.Shipped(header={})


def stale(cells: shipped.Shipped, wanted: list[str], system: str, size: str = "full") -> str:
    """What differs between the shipped keys and ``wanted``, for a reader; "" if nothing."""
    missing, extra = sorted(set(wanted) - set(cells.records)), sorted(set(cells.records)
                                                                     - set(wanted))
    if not missing and not extra:
        return ""
    return (f"{len(missing)} of the {system} figures' {len(wanted)} costly cells at the {size} "
            f"size are not shipped and {len(extra)} shipped cells are no longer wanted "
            f"(shipped at {cells.header.get('commit', '?')}): the code that computes them "
            f"changed. Run `make ship-cells SHIP={system}` (about an hour on 2 cores for "
            f"pdFTSP, 20 min for TITAN; `SHIP_SIZES=small`: the small size's only, a minute) "
            f"and commit {shipped_file(size, system)}")


def test_every_file_is_a_systems_that_ships(size):
    assert {p.name for p in shipped_files(size)} == {f"{s}-{size}.jsonl" for s in CATALOGUES}


def test_the_shipped_cells_are_the_figures_costly_cells_of_this_code(cells, system, size):
    problem = stale(cells, CATALOGUES[system].shipped_keys(size), system, size)
    assert not problem, problem


def test_a_change_to_the_code_is_caught(cells, system, size, monkeypatch):
    """The check above fails once the code's fingerprint changes."""
    real = grid.code_fingerprint
    monkeypatch.setattr(grid, "code_fingerprint", lambda system=None, *a: real(system) + "x")
    assert "are not shipped" in stale(cells, CATALOGUES[system].shipped_keys(size), system,
                                      size)


def test_each_record_is_keyed_by_its_own_parameters_and_system(cells, system):
    assert all(grid.cell_key(r["params"]) == key for key, r in cells.records.items())
    assert {r["params"]["system"] for r in cells.records.values()} == {system}


def cheapest(cells: shipped.Shipped) -> list[dict]:
    """The cheapest shipped cell of each policy (a bound by its name) where it took under
    :data:`CHEAP` CPU-seconds, and the cheapest pdFTSP Titan cell of a figure's full size:
    about 25 CPU-s in all for pdFTSP (the LP bound's cheapest cell, 18 CPU-s, is left out)."""
    def kind(r):
        return r["params"]["algorithm"] or f"bound {r['params']['bound']}"

    by_cost = sorted(cells.records.values(), key=lambda r: (r["cpu_seconds"], r["key"]))
    picked = {}
    for r in by_cost:
        if r["cpu_seconds"] < CHEAP:
            picked.setdefault(kind(r), r)
        if (r["params"]["system"] == "pdftsp" and kind(r) == "titan"
                and r["params"]["scenario"]["nodes"] >= FULL_K):
            picked.setdefault("titan at full size", r)
    return list(picked.values())


def test_the_cheapest_shipped_cells_recompute_bit_for_bit(cells):
    assert cheapest(cells), "no shipped cell cheap enough to recompute"
    for record in cheapest(cells):
        params = record["params"]
        skip = {*systems.get(params["system"]).timings, "bound_seconds"}
        got = run_cell(params)
        want = {k: decode_metric(v) for k, v in record["metrics"].items()}
        assert set(got) == set(want), record["cell"]
        differ = [m for m in want if m not in skip and not (
            got[m] == want[m] or (math.isnan(got[m]) and math.isnan(want[m])))]
        assert not differ, f"{record['cell']}: {differ} differ from the shipped record"
