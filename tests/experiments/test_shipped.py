"""Shipped cells (lorasched.experiments.shipped): the file round-trips, a damaged file is
refused with its line named, seeding takes only the wanted keys the store lacks, marks them
and keeps their numbers (NaN and infinities included), and shipping refuses cells that are
not finished or were not computed in the store."""

from __future__ import annotations

import json
import math

import pytest

from lorasched.experiments import shipped
from lorasched.experiments.grid import Cell
from lorasched.experiments.store import Store
from lorasched.model.errors import InputError


def cell(key: str) -> Cell:
    return Cell(key, {"system": "pdftsp", "scenario": {"nodes": 3}, "algorithm": "titan",
                      "options": {}, "seed": 1}, ((("seed", 1),),))


def computed(folder, keys) -> Store:
    """A store whose cells ``keys`` were computed (a NaN and an infinity among the metrics)."""
    store = Store(folder)
    store.done_dir.mkdir(parents=True)
    store.failed_dir.mkdir()
    for n, key in enumerate(keys):
        store.put(cell(key), {"ok": True, "metrics": {"welfare": 1.5 + n, "gap": math.nan,
                                                      "ratio": math.inf},
                              "seconds": 2.0, "cpu_seconds": 3.0 + n})
    return store


def test_a_file_round_trips_sorted_with_its_header(tmp_path):
    store = computed(tmp_path / "s", ["bb", "aa"])
    made = shipped.ship(store, ["bb", "aa"], {"commit": "abc"})
    shipped.write(tmp_path / "c.jsonl", made)
    lines = (tmp_path / "c.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["header"] == {"commit": "abc"}
    assert [json.loads(line)["key"] for line in lines[1:]] == ["aa", "bb"]
    again = shipped.read(tmp_path / "c.jsonl")
    assert again.records == made.records and again.cpu_seconds == pytest.approx(7.0)


@pytest.mark.parametrize("damage, words", [
    (lambda lines: lines[:-1] + [lines[-1][:40]], "line 3: not JSON"),  # a torn last line
    (lambda lines: lines[1:], "line 1: not a header"),
    (lambda lines: lines + [lines[-1]], "line 4: key bb a second time"),
    (lambda lines: lines + ['{"key": "cc", "params": {}}'], "line 4: a record without metrics"),
    (lambda lines: lines + ["[1, 2]"], "line 4: not a JSON object"),
    (lambda lines: [lines[0].replace('"version": 1', '"version": 9')] + lines[1:],
     "line 1: version 9"),
])
def test_a_damaged_file_is_refused_naming_its_line(tmp_path, damage, words):
    path = tmp_path / "c.jsonl"
    shipped.write(path, shipped.ship(computed(tmp_path / "s", ["aa", "bb"]), ["aa", "bb"], {}))
    path.write_text("\n".join(damage(path.read_text().splitlines())) + "\n")
    with pytest.raises(InputError, match=words):
        shipped.read(path)


def test_seeding_takes_the_wanted_keys_the_store_lacks_and_keeps_their_numbers(tmp_path):
    source = computed(tmp_path / "here", ["aa", "bb", "cc"])
    cells = shipped.ship(source, ["aa", "bb", "cc"], {})
    store = computed(tmp_path / "other", ["aa"])  # aa computed there already
    store.put(cell("bb"), {"ok": False, "error": "E", "traceback": "T"})  # bb failed once
    assert shipped.seed(store, cells, ["aa", "bb", "zz"]) == ["bb"]  # not cc: not wanted
    done = store.done()
    assert sorted(done) == ["aa", "bb"] and "bb" not in store.failed()
    assert done["bb"]["shipped"] is True and "shipped" not in done["aa"]
    assert done["bb"]["metrics"]["welfare"] == source.done()["bb"]["metrics"]["welfare"]
    assert math.isnan(done["bb"]["metrics"]["gap"]) and done["bb"]["metrics"]["ratio"] == math.inf
    assert shipped.seed(store, cells, ["aa", "bb"]) == []  # idempotent


def test_unseeding_forgets_only_the_shipped_records(tmp_path):
    cells = shipped.ship(computed(tmp_path / "here", ["aa", "bb"]), ["aa", "bb"], {})
    store = computed(tmp_path / "other", ["aa"])
    shipped.seed(store, cells, ["aa", "bb"])
    assert shipped.unseed(store) == ["bb"]
    assert sorted(store.done()) == ["aa"]


def test_shipping_refuses_unfinished_or_shipped_cells(tmp_path):
    store = computed(tmp_path / "s", ["aa"])
    with pytest.raises(InputError, match="1 of the 2 cells to ship are not finished"):
        shipped.ship(store, ["aa", "bb"], {})
    other = computed(tmp_path / "o", [])
    shipped.seed(other, shipped.ship(store, ["aa"], {}), ["aa"])
    with pytest.raises(InputError, match="were taken from shipped cells"):
        shipped.ship(other, ["aa"], {})
    written = shipped.ship(store, ["aa"], {})
    assert "shipped" not in written.records["aa"]


def test_files_merge_into_one_and_a_key_in_two_is_refused(tmp_path):
    one = shipped.ship(computed(tmp_path / "a", ["aa"]), ["aa"], {"commit": "one"})
    two = shipped.ship(computed(tmp_path / "b", ["bb"]), ["bb"], {"commit": "two"})
    both = shipped.merge([one, two])
    assert set(both.records) == {"aa", "bb"}
    assert both.header == {"parts": [{"commit": "one"}, {"commit": "two"}]}
    assert both.cpu_seconds == pytest.approx(6.0)
    with pytest.raises(InputError, match="shipped cell aa is in two files"):
        shipped.merge([one, two, one])


def test_a_written_file_gets_the_mode_open_would_give_it(tmp_path):
    """A shipped file is committed to the repository: not left private to its writer as
    the temporary file it is written through is (0600)."""
    import stat
    path = tmp_path / "c.jsonl"
    shipped.write(path, shipped.ship(computed(tmp_path / "s", ["aa"]), ["aa"], {}))
    (tmp_path / "plain").write_text("x")
    assert stat.S_IMODE(path.stat().st_mode) == \
        stat.S_IMODE((tmp_path / "plain").stat().st_mode)


def test_extending_keeps_the_shipped_adds_the_computed_and_says_where(tmp_path):
    old = shipped.ship(computed(tmp_path / "a", ["aa", "gone"]), ["aa", "gone"],
                       {"commit": "one"})
    store = computed(tmp_path / "b", ["bb"])
    shipped.seed(store, old, ["aa"])  # the batch took the shipped one, computed the new
    got = shipped.extend(old, store, ["aa", "bb"], {"commit": "two"})
    assert sorted(got.records) == ["aa", "bb"]  # a key no longer wanted leaves
    assert got.records["aa"] == old.records["aa"] and got.records["bb"]["cpu_seconds"] == 3.0
    assert got.header["commit"] == "one"
    assert got.header["added"] == [{"commit": "two", "cells": 1}]
    again = shipped.extend(got, store, ["aa", "bb"], {"commit": "three"})
    assert [a["cells"] for a in again.header["added"]] == [1, 0]
    with pytest.raises(InputError, match="not finished"):
        shipped.extend(old, store, ["aa", "bb", "cc"], {})
    # a new cell the store only took from a shipped file is refused, as ship refuses it
    other = computed(tmp_path / "c", [])
    shipped.seed(other, got, ["bb"])
    with pytest.raises(InputError, match="taken from shipped cells"):
        shipped.extend(old, other, ["aa", "bb"], {})


def test_rekeying_gives_each_record_this_code_s_key_and_says_why(tmp_path):
    """A re-keyed file holds the same records under the keys this code gives their
    parameters (what the stale-keys check then finds), none recomputed, and its header
    says why; an empty reason, or two records that would share a key, are refused."""
    from lorasched.experiments.grid import cell_key

    params = [{"system": "pdftsp", "scenario": {"nodes": n}, "algorithm": "titan",
               "options": {}, "seed": 1} for n in (3, 4)]
    old = shipped.Shipped({"commit": "one"}, {
        f"old{n}": {"key": f"old{n}", "params": p, "metrics": {"welfare": 1.0 + n},
                    "cpu_seconds": 9.0} for n, p in enumerate(params)})
    got = shipped.rekey(old, "the runner moved; recomputed cells equal", {"commit": "two"})
    assert sorted(got.records) == sorted(cell_key(p) for p in params)
    assert all(r["key"] == k for k, r in got.records.items())
    assert sorted(r["metrics"]["welfare"] for r in got.records.values()) == [1.0, 2.0]
    assert got.header["commit"] == "one"
    assert got.header["rekeyed"] == [{"commit": "two", "cells": 2,
                                      "why": "the runner moved; recomputed cells equal"}]
    shipped.write(tmp_path / "f.jsonl", got)
    assert shipped.read(tmp_path / "f.jsonl").records == got.records
    with pytest.raises(InputError, match="say why"):
        shipped.rekey(old, "  ", {})
    twice = shipped.Shipped({}, {"a": {"params": params[0]}, "b": {"params": params[0]}})
    with pytest.raises(InputError, match="two records"):
        shipped.rekey(twice, "why", {})
