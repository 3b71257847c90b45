"""Sensitivity of a paper's headline verdicts to the numbers lorasched chose where the paper
is silent: each alternative value's verdicts beside lorasched's choice, paired on seed, the
flips, and the prose said from that table (each system's declaration: its ``sensitivity``
module)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

from ..model.errors import InputError
from .base import Prose, check_size, paragraphs, seed_words
from .tables import styled
from .verdicts import CONTRADICTED, MAGNITUDE_OFF, REPRODUCED, VERDICTS

#: the column of lorasched's own choice, the one every alternative is compared with
CHOICE = "lorasched's choice"
#: what names a claim's row in every column
KEY = ["figure", "claim", "setting"]
#: how a flipped cell is drawn
FLIP_STYLE = "background-color: #fde2b8"


@dataclass(frozen=True)
class Alternative:
    """One alternative value of one number lorasched chose.

    Parameters
    ----------
    number : str
        The number it changes, as the page names it ("co-location gain").
    value : str
        Its value as the table's column shows it ("1.0").
    scenario : dict, optional
        The scenario parameters it sets.
    options : dict, optional
        The policy options it sets (every policy that accepts one).
    source : str, optional
        Where the value comes from (a measurement, a published system, a bracket).
    policies : tuple of str, optional
        The policies whose ``options`` it sets (default: every policy that accepts one;
        name them where another policy has an option of the same name that means
        something else).
    """

    number: str
    value: str
    scenario: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    source: str = ""
    policies: tuple = ()

    @property
    def label(self) -> str:
        """The table's column: ``"<number> = <value>"``."""
        return f"{self.number} = {self.value}"

    @property
    def slug(self) -> str:
        """The label as a name for a sweep (letters, digits and ``_``)."""
        return re.sub(r"[^a-z0-9]+", "_", self.label.lower()).strip("_")


def alternatives_table(alternatives) -> pd.DataFrame:
    """The alternatives as the page lists them: the number, its value, its source."""
    return pd.DataFrame([{"number": a.number, "value": a.value, "source": a.source}
                         for a in alternatives])


def verdict_table(columns: dict) -> pd.DataFrame:
    """Rows: the claims (``figure``, ``claim``, ``setting``); columns: each label of
    ``columns`` (label -> claims rows with :data:`KEY` and ``verdict``), the first being
    :data:`CHOICE`. ``InputError`` when a column lacks a claim the first has, adds one, or
    holds a verdict that is not one of :data:`~.verdicts.VERDICTS`."""
    if not columns:
        raise InputError("no columns: the table needs lorasched's choice at least")
    frames = {}
    for label, rows in columns.items():
        frame = pd.DataFrame(rows)
        missing = [c for c in [*KEY, "verdict"] if c not in frame.columns]
        if missing:
            raise InputError(f"column {label!r}: its rows lack {missing}")
        bad = sorted(set(frame["verdict"]) - set(VERDICTS))
        if bad:
            raise InputError(f"column {label!r}: {bad} not verdicts of the rule")
        if frame.duplicated(KEY).any():
            raise InputError(f"column {label!r}: a claim is listed twice")
        frames[label] = frame.set_index(KEY)["verdict"]
    first, *rest = frames
    order = frames[first].index
    for label in rest:
        index = frames[label].index
        lacks, extra = order.difference(index), index.difference(order)
        if len(lacks) or len(extra):
            raise InputError(f"column {label!r} lacks {list(lacks)} and adds {list(extra)}: "
                             f"every column must judge the claims of {first!r}")
    out = pd.DataFrame({label: frames[label].reindex(order) for label in frames})
    return out.reset_index()


def verdict_columns(table: pd.DataFrame) -> list[str]:
    """The verdict columns of :func:`verdict_table`'s table (lorasched's choice first)."""
    return [c for c in table.columns if c not in KEY]


def flips(table: pd.DataFrame) -> pd.DataFrame:
    """Where an alternative's verdict differs from lorasched's choice (True), per cell of
    the verdict columns (the first column never)."""
    cols = verdict_columns(table)
    return pd.DataFrame({c: table[c] != table[cols[0]] for c in cols})


#: the verdicts that decide a claim one way: a flip between two of them is a reversal; a
#: flip to or from any other (inconclusive, consistent but not decided, not testable) is
#: one more seeds or another setting may settle
DECIDED = (REPRODUCED, MAGNITUDE_OFF, CONTRADICTED)


def reversals(table: pd.DataFrame) -> pd.DataFrame:
    """Per cell of the verdict columns: True where the alternative turns one decided verdict
    (:data:`DECIDED`) into another."""
    cols = verdict_columns(table)
    decided = table[cols].isin(DECIDED)
    return flips(table) & decided & decided[[cols[0]]].values


def flip_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Every flip, one row each: the claim, the alternative, the verdict under lorasched's
    choice and under the alternative."""
    cols = verdict_columns(table)
    changed = flips(table)
    rows = [{**{k: table.at[i, k] for k in KEY}, "alternative": c,
             "verdict": table.at[i, cols[0]], "becomes": table.at[i, c]}
            for c in cols[1:] for i in table.index if changed.at[i, c]]
    return pd.DataFrame(rows, columns=[*KEY, "alternative", "verdict", "becomes"])


def styled_table(table: pd.DataFrame):
    """The table for display: verdicts coloured as on every claims table, each flipped cell
    shaded (:data:`FLIP_STYLE`)."""
    cols = verdict_columns(table)
    out = table.rename(columns={c: f"verdict: {c}" for c in cols})
    changed = flips(table).rename(columns={c: f"verdict: {c}" for c in cols})
    shade = pd.DataFrame("", index=out.index, columns=out.columns)
    for c in changed.columns:
        shade[c] = changed[c].map(lambda f: FLIP_STYLE if f else "")
    return styled(out).apply(lambda _: shade, axis=None)


def _claim(row) -> str:
    return f"{row['figure']}, {row['claim']}" + (f" ({row['setting']})" if row["setting"]
                                                 else "")


def _most(changed: pd.DataFrame, cols: list[str], n: int) -> str:
    """"the alternative that flips most: <label> (k of n)", from the flips table."""
    per_alt = changed[cols[1:]].sum()
    most = per_alt[per_alt == per_alt.max()].index.tolist()
    return (f"the alternative{'s' if len(most) > 1 else ''} that flip"
            f"{'' if len(most) > 1 else 's'} most: {', '.join(most)} "
            f"({int(per_alt.max())} of {n})")


def findings(table: pd.DataFrame, seeds: int) -> Prose:
    """The page's prose, every number and word from ``table``: how many claims keep their
    verdict under every alternative, then each flip, grouped by claim."""
    cols = verdict_columns(table)
    changed = flips(table)
    n, k = len(table), len(cols) - 1
    steady = int((~changed.any(axis=1)).sum())
    head = (f"Of the {n} claims re-tested here, each on {seeds} seed"
            f"{'s' if seeds != 1 else ''} paired with lorasched's choice, {steady} keep "
            f"their verdict under all {k} alternatives")
    if steady == n:
        return Prose(head + ": no verdict flips.")
    lines = []
    for i in table.index[changed.any(axis=1)]:
        row = table.loc[i]
        moves = "; ".join(f"*{row[c]}* under {c}" for c in cols[1:] if changed.at[i, c])
        lines.append(f"- **{_claim(row)}**: *{row[cols[0]]}* under lorasched's choice; "
                     f"{moves}.")
    flipped = int(changed[cols[1:]].values.sum())
    reversed_ = reversals(table)[cols[1:]]
    n_rev = int(reversed_.values.sum())
    held = int((~reversed_.any(axis=1)).sum())
    kinds = (f" Of the {flipped} flipped verdict{'s' if flipped != 1 else ''}, {n_rev} "
             f"turn{'s' if n_rev == 1 else ''} one decided verdict (reproduced, magnitude off, "
             f"contradicted) into another; the rest move to or from an undecided one, which "
             f"more seeds may settle. {held} of the {n} claims see no such reversal under "
             f"any alternative.")
    most = _most(changed, cols, n)
    return paragraphs(head + f", and {n - steady} flip under at least one. "
                      f"{most[0].upper()}{most[1:]}." + kinds, "\n".join(lines))


def what_flips(table: pd.DataFrame, seeds: int, page: str) -> Prose:
    """What a paper's headline page says of its sensitivity page (``page``, linked), every
    word from ``table``: in one sentence, how many claims keep their verdict under every
    alternative, how many flip, how many of those turn one decided verdict into another
    (a reversal) and the alternative that flips most; then each claim that flips, its
    verdict under lorasched's choice and under each alternative that moves it."""
    cols = verdict_columns(table)
    changed = flips(table)
    reversed_ = reversals(table)
    n, k = len(table), len(cols) - 1
    steady = int((~changed.any(axis=1)).sum())
    head = (f"The [sensitivity page]({page}.ipynb) re-tests {n} claim{'s' if n != 1 else ''} "
            f"on {seed_words(seeds)}, paired, under {k} other value{'s' if k != 1 else ''} of "
            "the numbers lorasched chose where the paper is silent: ")
    if steady == n:
        return Prose(head + f"{'every one keeps its' if n != 1 else 'it keeps its'} verdict "
                     "under every alternative.")
    moved, n_flip = [], n - steady
    for i in table.index[changed.any(axis=1)]:
        row = table.loc[i]
        into = {}
        for c in cols[1:]:
            if changed.at[i, c]:
                into.setdefault(row[c], []).append(c)
        ways = "; ".join(f"*{v}* under {', '.join(alts)}" for v, alts in into.items())
        rev = " (a reversal)" if reversed_.loc[i].any() else ""
        moved.append(f"- {_claim(row)}: *{row[cols[0]]}*, becomes {ways}{rev}.")
    n_rev = int(reversed_.any(axis=1).sum())
    keep = "keeps its" if steady == 1 else "keep their"
    rev = ("none of them from one decided verdict (reproduced, magnitude off, contradicted) "
           "to another" if n_rev == 0 else
           f"{n_rev} of {'it' if n_flip == 1 else 'them'} from one decided verdict "
           "(reproduced, magnitude off, contradicted) to another")
    sentence = (head + f"{steady} {keep} verdict under every one and {n_flip} "
                f"flip{'s' if n_flip == 1 else ''}, {rev}; {_most(changed, cols, n)}.")
    return paragraphs(sentence, "\n".join(moved))


__all__ = ["CHOICE", "DECIDED", "KEY", "Alternative", "alternatives_table", "findings", "flip_rows",
           "flips", "reversals", "styled_table", "verdict_columns", "verdict_table",
           "what_flips"]


class SensitivityPage:
    """What each paper's sensitivity page shares, mixed in before its figure class: the
    seeds per size (:attr:`seed_counts`), the verdict table of :meth:`columns`, no claims of
    its own (it re-runs other pages' tests) and a build note that says on how many seeds
    each alternative runs."""

    key, number = "sensitivity", "Sensitivity"
    title = "Sensitivity of the headline to lorasched's numbers"
    #: seeds per alternative, by size
    seed_counts: dict = {}
    #: where the alternatives run, said after the seeds in the build note ("" or " at ...")
    run_where = ""

    def seeds(self, size: str, seeds: int | None = None) -> int:
        """The seeds each alternative runs: :attr:`seed_counts` at ``size``, or ``seeds``."""
        check_size(size)
        return self.seed_counts[size] if seeds is None else int(seeds)

    def columns(self, data) -> dict:
        """Label -> the claims rows of that column (``figure``, ``claim``, ``setting``,
        ``verdict``, ``ours``)."""
        raise NotImplementedError

    def table(self, data) -> pd.DataFrame:
        """:func:`verdict_table` of :meth:`columns`."""
        return verdict_table(self.columns(data))

    def claim_rows(self, data):
        return []

    def build_note(self, size: str = "small", seeds: int | None = None):
        n = self.seeds(size, seeds)
        note = super().build_note(size, n)
        return type(note)(f"{note} Each alternative is run on {seed_words(n)}{self.run_where}, "
                          "lorasched's choice on the same seeds.")
