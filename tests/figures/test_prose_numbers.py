"""Every number in a figure page's prose is one its claims table or its data hold.

A figure page's prose (what ``fig.findings`` and ``fig.why`` wrote, as the executed
notebook shows it) is read number by number. A number is *held* when

* its digits appear as a number of the page's claims table (the CSV the page wrote, the
  ``why`` column too: the table the page shows states the measured reason with its
  number, and the prose may quote it), or it is one of the page's quoted numbers (the
  CSV of :meth:`Figure.quoted <lorasched.figures.base.Figure.quoted>`: a number the
  prose derives from the data, named, with its unrounded value);
* or a value of the page's data (the netCDF file the page wrote: every variable,
  coordinate, dimension size and numeric attribute; and each variable's mean over its
  ``seed`` dimension, and its centre there as the claims take it: the geometric mean of a
  positive variable, the back-transformed mean of the logit of a share) printed at the
  number's precision is that number: 0.3462 holds "0.346" and "0.35", 2571.8 holds
  "2,572", 236.686 holds "$236.69"; a share 0.41 also holds "41 %" (the value times 100).
  An array of more than :data:`LARGE` values (a value per job or per tick) holds nothing
  element by element, and Allpass's runs hold through their metrics per seed
  (``AllpassData.metrics``), not their raw arrays: among tens of thousands of values any
  number is found by chance. How much a page's files hold by
  chance is measured too (:func:`chance`: at most :data:`CHANCE` of random numbers);
* or the digits appear in a text of the data (a label, a string coordinate or attribute);
* or it is structural: a reference (Fig. 8, Table 2, eq. (14), Lemma 2, Theorem 5,
  Algorithm 1, section 5; a lone number in parentheses, as in "eqs. (7) and (8)"), or the
  verdict rule's own "95 %" (the interval) and "25 %" (the band).

Signs and units are not compared (the prose may say "84 % more" where the table says
"+84 %"); inline code and link targets are not prose. The test of the built small book
(marker ``browser``, in the xdist group "book": it shares test_book's build) lists every
number that nothing holds, with its page and context.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lorasched.figures import datafiles
from lorasched.figures.numbers import num, pct, usd
from lorasched.figures.verdicts import BAND, LEVEL

#: a number as the book prints it: an optional sign and "$", digits (with thousands
#: separators), decimals, an optional percent sign; never part of a word ("A100", "4a",
#: "fig08", "2nd") or of a dotted name ("v1.2")
NUMBER = re.compile(r"(?<![\w.])(?P<sign>[+\-−])?(?P<usd>\$)?"
                    r"(?P<digits>\d{1,3}(?:,\d{3})+|\d+)(?P<decimals>\.\d+)?"
                    r"(?![\w]|\.\d)(?P<pct>\s?%)?")
#: what makes a number a reference rather than a value: the word before it
REFERENCE = re.compile(r"(?:\b(?:Figs?\.|Figures?|Tables?|[Ee]qs?\.|[Ee]quations?|Lemmas?|"
                       r"Theorems?|Algorithms?|[Ss]ections?|Appendix|Definitions?|"
                       r"Propositions?|constraints?)|§)\s*\(?$")
#: the verdict rule's own percentages (its interval's level and its band)
STRUCTURAL_PERCENTS = {num(LEVEL * 100), num(BAND * 100)}
#: words of context shown on each side of an unheld number
CONTEXT = 60
#: a numeric array of more values than this (a value per job or per tick) holds no number
#: element by element: among so many values a wrong number is found by chance (its mean
#: over seeds still holds, when that is small)
LARGE = 1_000
#: the most a page's claims table and data may hold of random numbers (:func:`chance`):
#: above it, the check could not tell a wrong number from a right one on that page
CHANCE = 0.7


@dataclass(frozen=True)
class Unheld:
    """A number of a page's prose that nothing holds."""

    page: str
    number: str
    context: str

    def __str__(self) -> str:
        return f"{self.page}: {self.number!r} in \"…{self.context}…\""


def prose_text(markdown: str) -> str:
    """``markdown`` as a reader reads it: inline code and link targets left out, escaped
    dollars plain."""
    text = re.sub(r"`[^`]*`", " ", markdown)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return text.replace("\\$", "$")


def numbers_in(text: str) -> list[tuple[str, str, int]]:
    """The numbers of ``text`` that are values: ``(as printed, digits, position)``, the
    digits without sign, "$", thousands separators or "%" (references left out)."""
    found = []
    for m in NUMBER.finditer(text):
        before = text[max(0, m.start() - 20):m.start()]
        if REFERENCE.search(before):
            continue
        if text[m.start() - 1:m.start()] == "(" and text[m.end():m.end() + 1] == ")" \
                and not m["usd"] and not m["pct"] and not m["decimals"]:
            continue  # "(8)": an equation's number
        digits = m["digits"].replace(",", "") + (m["decimals"] or "")
        if m["pct"] and num(float(digits)) in STRUCTURAL_PERCENTS:
            continue
        found.append((m.group(0).strip(), digits, m.start()))
    return found


def _leaves(obj):
    """The datasets, frames and arrays of a data tree (lorasched.figures.datafiles)."""
    import xarray as xr

    if isinstance(obj, dict):
        for v in obj.values():
            yield from _leaves(v)
    elif isinstance(obj, tuple | list):
        for v in obj:
            yield from _leaves(v)
    elif isinstance(obj, xr.Dataset | xr.DataArray | pd.DataFrame | np.ndarray):
        yield obj
    elif hasattr(obj, "metrics"):  # AllpassData: its metrics per seed, not the raw runs
        yield obj.metrics


@dataclass
class Held:
    """What a page's claims table and data hold: the digits of the claims' numbers and
    of the data's texts, and the data's values (absolute, sorted, unique)."""

    digits: set
    values: np.ndarray

    def holds(self, digits: str) -> bool:
        if digits in self.digits:
            return True
        x = float(digits)
        places = len(digits.partition(".")[2])
        tol = 0.5 * 10.0 ** -places * (1 + 1e-9)
        for scale in (1.0, 100.0):  # a value, or a share printed as a percentage
            lo = np.searchsorted(self.values, (x - tol) / scale, side="left")
            hi = np.searchsorted(self.values, (x + tol) / scale, side="right")
            if hi > lo:
                return True
        return False


def _seed_centres(var) -> np.ndarray:
    """The centres over ``seed`` that the claims take (``verdicts.estimate``): the geometric
    mean of a positive variable, and of a share (0 to 1) the mean of its logit (held 0.1 %
    from the ends, as the rule holds it) transformed back; NaN where neither applies."""
    v = np.asarray(var.transpose("seed", ...).values, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        geo = np.where((v > 0).all(axis=0), np.exp(np.log(np.where(v > 0, v, 1)).mean(axis=0)),
                       np.nan)
        p = np.clip(v, 0.001, 0.999)
        logit = np.log(p / (1 - p)).mean(axis=0)
        share = np.where(((v >= 0) & (v <= 1)).all(axis=0), 1 / (1 + np.exp(-logit)), np.nan)
    return np.concatenate([np.ravel(geo), np.ravel(share)])


def held_by(claims: pd.DataFrame, data) -> Held:
    """What ``claims`` (a claims table) and ``data`` (a figure's data tree) hold."""
    import xarray as xr

    digits: set[str] = set()
    texts: list[str] = [str(v) for c in claims.columns
                        for v in claims[c].tolist() if isinstance(v, str)]
    values: list[np.ndarray] = [np.asarray([v for c in claims.columns
                                            for v in claims[c].tolist()
                                            if isinstance(v, int | float)], dtype=float)]

    def take(array) -> None:
        a = np.asarray(array)
        if a.dtype.kind in "iufb":
            if a.size <= LARGE:
                values.append(a.astype(float).ravel())
        elif a.dtype.kind in "OUS":
            texts.extend(str(v) for v in a.ravel()[:10_000])

    def attrs(mapping) -> None:
        for v in mapping.values():
            if isinstance(v, str):
                texts.append(v)
            elif isinstance(v, int | float | np.number | list | tuple | np.ndarray):
                try:
                    take(np.asarray(v, dtype=float))
                except (TypeError, ValueError):
                    texts.append(str(v))

    for leaf in _leaves(data):
        if isinstance(leaf, xr.DataArray):
            leaf = leaf.to_dataset(name=leaf.name or "values")
        if isinstance(leaf, xr.Dataset):
            attrs(leaf.attrs)
            take(list(leaf.sizes.values()))
            for name, var in leaf.variables.items():
                take(var.values)
                attrs(var.attrs)
                if "seed" in var.dims and var.dtype.kind in "iuf" and name not in leaf.coords:
                    take(var.mean("seed").values)
                    take(_seed_centres(var))
        elif isinstance(leaf, pd.DataFrame):
            take(list(leaf.shape))
            for c in leaf.columns:
                take(leaf[c].to_numpy())
                texts.append(str(c))
            take(leaf.index.to_numpy())
        else:
            take(leaf)
    for text in texts:
        digits.update(d for _, d, _ in numbers_in(text))
    joined = np.concatenate([v[np.isfinite(v)] for v in values]) if values else np.zeros(0)
    return Held(digits, np.unique(np.abs(joined)))


def unheld(page: str, prose: str, held: Held) -> list[Unheld]:
    """Every number of ``prose`` (markdown) that ``held`` does not hold."""
    text = prose_text(prose)
    out = []
    for printed, digits, at in numbers_in(text):
        if not held.holds(digits):
            context = " ".join(text[max(0, at - CONTEXT):at + len(printed) + CONTEXT].split())
            out.append(Unheld(page, printed, context))
    return out


# ------------------------------------------------------------------- the built book

#: a cell whose output is a figure page's prose
PROSE_CALL = re.compile(r"\.(findings|why)\(")
DATA_LINK = re.compile(r'href="\.\./data/([^"]+\.(?:nc|csv))"')


def page_parts(notebook: dict) -> tuple[str, list[str]]:
    """An executed figure page's prose (the markdown its findings and why cells showed) and
    the data files it links (``system/name.nc``, ``system/name.csv``)."""
    prose, files = [], []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            html = "".join(data.get("text/html", ""))
            files += DATA_LINK.findall(html)
            if PROSE_CALL.search(source):
                text = data.get("text/markdown") or data.get("text/plain") or ""
                prose.append("".join(text))
    return "\n\n".join(prose), list(dict.fromkeys(files))


@lru_cache(maxsize=8)
def _data(path: str):
    return datafiles.read(path)


def page_held(notebooks: Path, site: Path):
    """``(page, prose, what its files hold)`` for every figure page of a built book
    (``notebooks``: its executed notebooks; ``site``: the built site, with data/)."""
    for path in sorted(notebooks.glob("*.ipynb")):
        prose, files = page_parts(json.loads(path.read_text()))
        nc = [f for f in files if f.endswith(".nc")]
        csv = [f for f in files if f.endswith(".csv")]
        if not nc or not csv or not prose:
            continue
        claims = pd.concat([pd.read_csv(site / "data" / f) for f in csv])
        held = [held_by(claims, _data(str(site / "data" / f))) for f in nc]
        yield (f"notebooks/{path.stem}", prose,
               Held(set().union(*(h.digits for h in held)),
                    np.unique(np.concatenate([h.values for h in held]))))


def book_unheld(notebooks: Path, site: Path) -> tuple[list[Unheld], int]:
    """Every unheld number of every figure page of a built book, and the number of pages
    read."""
    found, pages = [], 0
    for page, prose, held in page_held(notebooks, site):
        pages += 1
        found += unheld(page, prose, held)
    return found, pages


def chance(held: Held, n: int = 1_000, seed: int = 1) -> float:
    """The share of ``n`` random numbers as prose prints them (half with one decimal in
    [1, 99], half with two in [0.1, 9.9]; a seeded generator) that ``held`` holds: how
    likely a wrong number is to pass on that page."""
    rng = np.random.default_rng(seed)
    tries = ([f"{x:.1f}" for x in rng.uniform(1, 99, n // 2)]
             + [f"{x:.2f}" for x in rng.uniform(0.1, 9.9, n - n // 2)])
    return float(np.mean([held.holds(t) for t in tries]))


@pytest.mark.browser
def test_every_number_in_a_figure_page_prose_is_held_by_its_table_or_data(built_book):
    site = built_book
    found, pages = book_unheld(site.parents[1] / "notebooks", site)
    assert pages >= 25, f"only {pages} figure pages with prose and data files found"
    listing = "\n  ".join(str(u) for u in found)
    assert not found, (f"{len(found)} number(s) in figure pages' prose that neither the "
                       f"claims table, the quoted numbers nor the data hold:\n  {listing}")
    loose = {page: chance(held) for page, _, held in page_held(site.parents[1] / "notebooks",
                                                               site)}
    loose = {page: share for page, share in loose.items() if share > CHANCE}
    assert not loose, ("pages whose files hold so many values that a wrong number passes by "
                       f"chance (share of random numbers held, at most {CHANCE}): {loose}")


# ------------------------------------------------------------------- the check itself


def _claims() -> pd.DataFrame:
    return pd.DataFrame({
        "figure": ["Fig. 8"], "claim": ["pdFTSP's welfare beats EFT's by 84 %"],
        "variant": ["high load"], "paper": [84.0],
        "ours": ["+61 % (95 %: +52 % to +70 %, 3 seeds)"], "verdict": ["magnitude off"],
        "why": ["pdFTSP prices out 43 % of tasks."]})


def _data_tree():
    import xarray as xr

    return xr.Dataset(
        {"welfare": (("algorithm", "seed"), [[236.686, 240.0, 238.1], [1000.5, 2571.8, 90.0]]),
         "share": (("algorithm",), [0.37, 0.0346])},
        coords={"algorithm": ["pdftsp", "eft"], "seed": [1, 2, 3],
                "label": ("algorithm", ["pdFTSP (A100)", "EFT"])})


@pytest.mark.parametrize("text, expected", [
    ("welfare +84 % and $236.69, -3.4 %", [("+84 %", "84"), ("$236.69", "236.69"),
                                           ("-3.4 %", "3.4")]),
    ("2,572 tasks on 100 nodes", [("2,572", "2572"), ("100", "100")]),
    ("Fig. 8 and Table 2, eq. (14), eqs. (7) and (8), Lemma 2, Theorem 5", []),
    ("A100s, fig08, (4a), the 2nd, v1.2", []),
    ("the 95 % interval, within 25 % of it; 26 %", [("26 %", "26")]),
])
def test_numbers_are_read_as_printed_and_references_left_out(text, expected):
    assert [(p, d) for p, d, _ in numbers_in(text)] == expected


def test_a_number_the_table_or_data_hold_passes():
    held = held_by(_claims(), _data_tree())
    prose = (f"In Fig. 8, pdFTSP's welfare is {usd(236.686)} on seed 1 and "
             f"{num(238.262)} on average over 3 seeds, {pct(61)} above EFT's "
             f"(95 %: +52 % to +70 %); the paper says 84 %. EFT earns {num(2571.8)} on "
             f"seed 2. A share of {pct(37.0, sign=False)} of pdFTSP's tasks on its A100s "
             f"(the [table](fig08_load.ipynb)), `mip_max_nodes = 0`.")
    assert unheld("p", prose, held) == []


def test_a_number_nothing_holds_is_named_with_its_page_and_context():
    held = held_by(_claims(), _data_tree())
    prose = ("pdFTSP's welfare is $236.69 on seed 1, +61 % above EFT's; it prices out "
             "43 % of tasks (the why column says so), 44 % of them at high load, and earns "
             "$999.10 more than the paper's 1,234 tasks.")
    got = unheld("notebooks/fig08_load", prose, held)
    assert [(u.page, u.number) for u in got] == [
        ("notebooks/fig08_load", "44 %"), ("notebooks/fig08_load", "$999.10"),
        ("notebooks/fig08_load", "1,234")]
    assert "earns $999.10 more than" in got[1].context
    assert str(got[2]).startswith("notebooks/fig08_load: '1,234' in \"…")


def test_a_page_whose_prose_is_edited_to_a_wrong_number_is_named(tmp_path):
    """The whole route of the book's test on a built page in miniature: an executed
    notebook whose findings cell shows the prose, its data file and claims CSV in the
    site's data/ folder. Its prose passes; changed to a wrong number, it is named."""
    site = tmp_path / "site"
    (site / "data" / "pdftsp").mkdir(parents=True)
    datafiles.write(_data_tree(), site / "data" / "pdftsp" / "fig08.nc")
    _claims().to_csv(site / "data" / "pdftsp" / "fig08_claims.csv", index=False)
    links = ('<p>The data: <a href="../data/pdftsp/fig08.nc" download>fig08.nc</a> and '
             '<a href="../data/pdftsp/fig08_claims.csv" download>claims</a></p>')

    def executed(findings: str) -> dict:
        def cell(source, data):
            return {"cell_type": "code", "source": source, "metadata": {},
                    "outputs": [{"output_type": "execute_result", "data": data}]}
        return {"cells": [
            {"cell_type": "markdown", "source": "# Fig. 8: Load", "metadata": {}},
            cell("fig.findings(ds)", {"text/markdown": findings, "text/plain": "..."}),
            cell("data_files(fig, ds, size)", {"text/html": links, "text/plain": "..."})]}

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    good = "pdFTSP's welfare is $236.69 on seed 1, +61 % above EFT's (Fig. 8)."
    (notebooks / "fig08_load.ipynb").write_text(json.dumps(executed(good)))
    assert book_unheld(notebooks, site) == ([], 1)
    (notebooks / "fig08_load.ipynb").write_text(
        json.dumps(executed(good.replace("$236.69", "$263.69"))))
    found, pages = book_unheld(notebooks, site)
    assert pages == 1 and [(u.page, u.number) for u in found] == [
        ("notebooks/fig08_load", "$263.69")]


def test_structural_percentages_are_the_rule_s():
    assert STRUCTURAL_PERCENTS == {"95", "25"}
    assert math.isclose(LEVEL, 0.95) and math.isclose(BAND, 0.25)


def test_a_large_raw_array_holds_no_number_by_chance_but_its_seed_mean_does():
    import xarray as xr

    rng = np.random.default_rng(1)
    per_job = rng.uniform(0, 100, size=(2, 5_000))  # a value per job, two seeds
    data = xr.Dataset({"jct": (("seed", "job"), per_job),
                       "welfare": (("seed",), [236.686, 240.0])})
    held = held_by(_claims().iloc[:0], data)
    assert chance(held) < 0.01  # without the rule, nearly every number would pass
    assert held.holds("238.34") and held.holds("236.69")  # the small variable, its mean
    assert held.holds("238.337")  # and its geometric mean, the claims' centre
    loose = Held(set(), np.unique(per_job))  # the same values held element by element
    assert chance(loose) > 0.8
    assert held_by(_claims().iloc[:0], per_job[0]).values.size == 0
