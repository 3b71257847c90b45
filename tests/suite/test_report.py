"""A whole (tiny) suite run: the report folder has every file, a plug-in policy's row shows
its origin, a rerun computes nothing, and :func:`comparable` says why two reports differ."""

from __future__ import annotations

import copy
import json

import pandas as pd
import pytest
from _suite import POLICIES, TINY, use_tiny

from lorasched import systems
from lorasched.model.errors import InputError
from lorasched.suite import comparable, read_report, report, run_suite, scenarios, tables


def plugin_policy(arrays, rng):
    """A test-only plug-in: TITAN's SRTF under another name, defined outside lorasched."""
    return systems.get("titan").policy("srtf")(arrays, rng)


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    """One tiny suite run (serial) with a plug-in policy registered for TITAN."""
    out = tmp_path_factory.mktemp("suite") / "report"
    titan = systems.get("titan")
    with pytest.MonkeyPatch.context() as mp:
        use_tiny(mp)
        titan.register("suite_plugin", plugin_policy)
        try:
            first = run_suite("small", [*POLICIES[:1], "titan:srtf,suite_plugin",
                                        *POLICIES[2:]], out, serial=True, progress=False)
            again = run_suite("small", [*POLICIES[:1], "titan:srtf,suite_plugin",
                                        *POLICIES[2:]], out, serial=True, progress=False)
        finally:
            titan.unregister("suite_plugin")
    return first, again


def test_the_report_folder_has_every_file(done):
    first, _ = done
    names = {"report.json", "report.md", "report.html", "results.csv",
             *(f"{s}.{x}" for s in TINY for x in ("csv", "nc"))}
    assert names <= {p.name for p in first.out.iterdir()}
    head = read_report(first.out)
    assert set(head["files"]) == names
    assert head["suite_version"] == scenarios.SUITE_VERSION and head["size"] == "small"
    assert head["systems"]["pdftsp"]["seeds"] == [1, 2]
    assert head["systems"]["pdftsp"]["scenarios"] == 2
    assert {"platform", "processor", "cpus", "python"} <= set(head["machine"])
    assert len(head["code_fingerprint"]) == 16 and head["date"]
    md = (first.out / "report.md").read_text()
    for system in TINY:
        assert f"## {system}" in md
    assert "| pdftsp | " in md and "| suite_plugin | " in md and "†" in md
    html = (first.out / "report.html").read_text()
    assert "<html>" in html and "Plotly.newPlot" in html
    assert "<script src=\"http" not in html and len(html) > 1_000_000  # plotly.js inlined
    long = pd.read_csv(first.out / "results.csv")
    assert list(long.columns) == tables.COLUMNS
    assert set(long.system) == set(TINY)
    pdftsp = pd.read_csv(first.out / "pdftsp.csv", index_col="policy")
    assert list(pdftsp.index) == ["pdftsp", "eft"]
    assert (pdftsp["welfare_to_bound"] > 0).all() and (pdftsp["welfare_to_bound"] <= 1).all()


def test_a_plug_in_row_shows_its_module_and_source_fingerprint(done):
    first, _ = done
    titan = pd.read_csv(first.out / "titan.csv", index_col="policy")
    assert titan.loc["srtf", "origin"] == "built-in"
    origin = titan.loc["suite_plugin", "origin"]
    assert origin.startswith(f"plug-in {plugin_policy.__module__} ")
    head = read_report(first.out)
    plugin = next(p for p in head["systems"]["titan"]["policies"]
                  if p["name"] == "suite_plugin")
    assert plugin["origin"] == "plug-in" and origin.endswith(plugin["fingerprint"])
    assert "Plug-in policies: suite_plugin" in (first.out / "report.md").read_text()
    # the same numbers as SRTF's: the plug-in is SRTF
    assert titan.loc["suite_plugin", "avg_jct_h"] == titan.loc["srtf", "avg_jct_h"]


def test_a_rerun_computes_nothing_and_reports_the_same_numbers(done):
    first, again = done
    cells = 2 * 2 * 3 + 2 * 2 + 2 * 2  # pdFTSP: 2 loads x 2 seeds x (2 policies + bound)
    assert (first.computed, first.skipped, first.failed) == (cells, 0, [])
    assert (again.computed, again.skipped, again.failed) == (0, cells, [])
    long = pd.read_csv(again.out / "results.csv")
    before = tables.summary(first.datasets["titan"], "titan")
    after = long[long.system == "titan"].reset_index(drop=True)
    pd.testing.assert_frame_equal(before[tables.COLUMNS[:-1]], after[tables.COLUMNS[:-1]],
                                  check_dtype=False)


def test_reports_of_the_same_suite_and_code_are_comparable(done):
    first, again = done
    verdict = comparable(first.out, again.header)
    assert verdict.ok and verdict.reasons == [] and bool(verdict)
    assert verdict.describe() == "comparable"


@pytest.mark.parametrize("change, reason", [
    (lambda h: h.update(size="full"), "size differs: 'small' vs 'full'"),
    (lambda h: h.update(suite_version="0"), "suite_version differs"),
    (lambda h: h.update(definition="0" * 16), "definition differs"),
    (lambda h: h["systems"]["titan"].update(code_fingerprint="f" * 16),
     "titan: code fingerprint differs"),
    (lambda h: h["systems"]["allpass"].update(seeds=[1, 2, 3]), "allpass: seeds differ"),
    (lambda h: h["systems"]["titan"]["policies"][1].update(fingerprint="e" * 16),
     "titan: policy 'suite_plugin' differs"),
    (lambda h: h.update(systems={}), "no system in common"),
])
def test_comparable_says_why_two_reports_are_not(done, change, reason):
    head = done[0].header
    other = copy.deepcopy(head)
    change(other)
    verdict = comparable(head, other)
    assert not verdict.ok and any(reason in r for r in verdict.reasons), verdict.reasons
    assert verdict.describe().startswith("NOT comparable:")


def test_another_machine_or_policy_set_is_a_note_not_a_reason(done):
    head = done[0].header
    other = copy.deepcopy(head)
    other["machine"]["cpus"] += 1
    other["systems"]["titan"]["policies"] = other["systems"]["titan"]["policies"][:1]
    verdict = comparable(head, other)
    assert verdict.ok
    assert any("different machines" in n for n in verdict.notes)
    assert any("policies in one report only: ['suite_plugin']" in n for n in verdict.notes)


def test_reading_a_folder_that_is_no_report_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="no suite report header"):
        read_report(tmp_path)
    (tmp_path / report.HEADER).write_text(json.dumps({"suite": "other"}))
    with pytest.raises(InputError, match="not a lorasched suite report header"):
        read_report(tmp_path)
