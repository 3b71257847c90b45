"""lorasched.figures.publish: a page's links to its data files, the files published into the
built book with their checksums and checked, and the data page's table of them. (Writing and
reading the files: test_datafiles.py.)"""

from __future__ import annotations

import hashlib

import pandas as pd
import pytest

import lorasched
from lorasched.figures import FIGURES, datafiles, publish


def test_a_page_links_the_files_it_wrote(tmp_path):
    fig = FIGURES["titan"]["table2"]
    data = fig.data("small")
    links = publish.data_files(fig, data, "small", folder=tmp_path)
    assert links.files == ("titan/table2.nc", "titan/table2_claims.csv")
    assert links.sizes == tuple((tmp_path / f).stat().st_size for f in links.files)
    assert (tmp_path / "titan" / "table2_claims.csv").read_text() == \
        fig.claims(data).to_csv(index=False)
    page = links._repr_html_()
    assert 'href="../data/titan/table2.nc"' in page and 'href="../data/SHA256SUMS"' in page
    assert 'lorasched.figures.load("titan/table2")' in page and "quoted" not in page
    assert repr(links) == "data files: titan/table2.nc, titan/table2_claims.csv"


def test_the_links_name_each_file_and_its_size():
    fig = FIGURES["titan"]["fig04"]
    assert fig.quotes
    links = publish.DataLinks(fig, tuple(datafiles.page_files(fig)), (999, 1500, 2_500_000))
    page = links._repr_html_()
    assert '<a href="../data/titan/fig04.nc" download>fig04.nc</a> (netCDF, 999 bytes' in page
    assert "(its claims table, 1.5 kB)" in page
    assert ('<a href="../data/titan/fig04_quoted.csv" download>fig04_quoted.csv</a> (the '
            "numbers its prose derives from them, 2.5 MB)") in page
    assert "titan/fig04_quoted.csv" in publish.expected_files()
    assert "titan/table2_quoted.csv" not in publish.expected_files()


def test_publish_copies_every_figure_s_files_with_their_checksums(tmp_path):
    source, site = tmp_path / "data", tmp_path / "site"
    names = publish.expected_files()
    assert len(names) == len(set(names)) and "allpass/runs.nc" in names
    with pytest.raises(lorasched.InputError, match="no data file for"):
        publish.publish(source, site)
    for i, name in enumerate(names):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes(bytes([i % 256]) * (i + 1))
    (source / "pdftsp" / "retired.nc").write_bytes(b"a figure no page shows")
    assert publish.publish(source, site) == names
    lines = (site / "data" / "SHA256SUMS").read_text().splitlines()
    assert [line.split("  ")[1] for line in lines] == names
    assert not (site / "data" / "pdftsp" / "retired.nc").exists()
    assert publish.verify(site) == []
    (site / "data" / names[0]).write_bytes(b"tampered")
    assert publish.verify(site) == [names[0]]


def test_sha256_is_the_file_s_checksum(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"lorasched" * 200_000)  # more than one block of 1 MiB
    assert publish.sha256(path) == hashlib.sha256(b"lorasched" * 200_000).hexdigest()


def test_the_listing_has_a_row_per_figure_page_with_its_links():
    table = publish.listing()
    assert list(table.columns) == ["key", "page", "data (netCDF)", "claims (CSV)",
                                   "quoted numbers (CSV)"]
    assert list(table["key"]) == [f"{s}/{k}" for s, figs in FIGURES.items() for k in figs]
    row = table.set_index("key").loc["allpass/fig07"]
    assert row["data (netCDF)"] == ('<a href="../data/allpass/runs.nc" download>'
                                    "allpass/runs.nc</a>")
    assert row["claims (CSV)"].startswith('<a href="../data/allpass/fig07_claims.csv"')
    quotes = {f"{s}/{k}" for s, figs in FIGURES.items() for k, f in figs.items() if f.quotes}
    assert quotes and set(table.loc[table["quoted numbers (CSV)"] != "", "key"]) == quotes
    assert isinstance(table, pd.DataFrame) and not table["page"].eq("").any()
