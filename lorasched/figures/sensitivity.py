"""Sensitivity of a paper's headline verdicts to the numbers lorasched chose where the paper
is silent (and to settings and readings other than the paper's): each alternative's verdicts
beside lorasched's choice, paired on seed, the flips, the claims whose verdict a choice of
lorasched's decides (:func:`dependent`, which the ledger's build applies to the headline), and
the prose said from that table (each system's declaration: its ``sensitivity`` module)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

from ..model.errors import InputError
from .base import Prose, check_size, paragraphs, seed_words
from .numbers import joined
from .tables import styled
from .verdicts import CONTRADICTED, DEPENDS_ON, MAGNITUDE_OFF, REPRODUCED, VERDICTS

#: the column of lorasched's own choice, the one every alternative is compared with
CHOICE = "lorasched's choice"
#: what names a claim's row in every column
KEY = ["figure", "claim", "setting"]
#: how a flipped cell is drawn
FLIP_STYLE = "background-color: #fde2b8"
#: the column the ledger adds to a published table: the verdict the headline judged the claim
#: under lorasched's choice, with every look of its design (Allpass's second look judges on
#: more seeds than the alternatives run), "" where the headline does not count the claim:
#: what an alternative's verdict is compared with (:func:`dependent`)
HEADLINE = "headline (every look)"
#: the headline's column as the page shows it, and what it shows for a claim the headline
#: does not count (no verdict of the rule: the column is not a verdict column)
HEADLINE_SHOWN, NOT_COUNTED = "in the headline, every look", "not counted there"

#: the kinds of alternative: another value of a number lorasched chose where the paper is
#: silent (only these can make a headline verdict :data:`~.verdicts.DEPENDS_ON`), a setting
#: other than the one the paper states (its number, its cap, its cluster's GPU: where the
#: claims meet contention, say), and another reading of how the paper ran
CHOSEN, SETTING, READING = "choice", "setting", "reading"
KINDS = {CHOSEN: "a number lorasched chose where the paper is silent",
         SETTING: "a setting other than the paper's",
         READING: "another reading of how the paper ran"}


@dataclass(frozen=True)
class Alternative:
    """One alternative value of one number lorasched chose, or one setting or reading other
    than the paper's.

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
    kind : str
        What it varies (:data:`KINDS`): :data:`CHOSEN`, a number lorasched chose where the
        paper is silent; :data:`SETTING`, a setting other than the paper's; :data:`READING`,
        another reading of how the paper ran. Every alternative names its own
        (``InputError`` otherwise).
    """

    number: str
    value: str
    scenario: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    source: str = ""
    policies: tuple = ()
    kind: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InputError(f"alternative {self.label!r}: kind must be one of "
                             f"{sorted(KINDS)}, got {self.kind!r}")

    @property
    def label(self) -> str:
        """The table's column: ``"<number> = <value>"``."""
        return f"{self.number} = {self.value}"

    @property
    def slug(self) -> str:
        """The label as a name for a sweep (letters, digits and ``_``)."""
        return re.sub(r"[^a-z0-9]+", "_", self.label.lower()).strip("_")


def alternatives_table(alternatives) -> pd.DataFrame:
    """The alternatives as the page lists them: the number, its value, what kind of
    alternative it is (:data:`KINDS`, in words), its source."""
    return pd.DataFrame([{"number": a.number, "value": a.value, "kind": KINDS[a.kind],
                          "source": a.source} for a in alternatives])


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
    """The verdict columns of :func:`verdict_table`'s table (lorasched's choice first; the
    headline's verdict, :data:`HEADLINE`, where the ledger added it, is none of them)."""
    return [c for c in table.columns if c not in (*KEY, HEADLINE)]


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


def moves(choice: str, other: str) -> bool:
    """Whether an alternative's verdict ``other`` moves a claim the headline judged
    ``choice`` under lorasched's choice: a decided verdict (:data:`DECIDED`) turned into
    another decided one. A move to an undecided verdict (inconclusive, consistent) is left
    out: the seeds cannot tell there, which contradicts neither verdict (a limit of four
    hours, which no job reaches, makes TL-P and TL-NP one policy: the difference the claim
    orders is nil), and the alternatives run on the first look's seeds, fewer than a second
    look decides on."""
    return choice in DECIDED and other in DECIDED and choice != other


def dependent(table: pd.DataFrame, alternatives) -> dict:
    """The claims of ``table`` whose verdict depends on lorasched's choice: ``{(figure,
    claim, setting): (verdict, [(label, verdict), ...], verdict on the alternatives'
    seeds)}``: the verdict under lorasched's choice (the headline's, :data:`HEADLINE`,
    where the ledger gave it; else its column's), each alternative of kind :data:`CHOSEN`
    that moves it (:func:`moves`) with its verdict, in the table's order, and the verdict
    of lorasched's choice's column. An alternative of another kind (a setting, a reading)
    never makes a claim depend. ``InputError`` where a verdict column is no alternative's
    label (its kind unknown)."""
    cols = verdict_columns(table)
    kinds = {a.label: a.kind for a in alternatives}
    unknown = [c for c in cols[1:] if c not in kinds]
    if unknown:
        raise InputError(f"columns {unknown} are no alternative's: their kind is unknown")
    chosen = [c for c in cols[1:] if kinds[c] == CHOSEN]
    out = {}
    for _, row in table.iterrows():
        verdict = row.get(HEADLINE, "") or row[cols[0]]
        moved = [(c, row[c]) for c in chosen if moves(verdict, row[c])]
        if moved:
            out[tuple(row[k] for k in KEY)] = (verdict, moved, row[cols[0]])
    return out


def depends_clause(verdict: str, moved: list, alternatives, choices: dict,
                   paired: str | None = None) -> str:
    """What a claim whose verdict depends on lorasched's choice says of it, with the
    verdict marker of :data:`~.verdicts.DEPENDS_ON`: "its verdict depends on lorasched's
    choice: contradicted at lorasched's <number>, <lorasched's value>; reproduced at
    <alternative's label>", ``moved`` as :func:`dependent` gives it and ``choices`` the
    number -> lorasched's value in words (each system's ``choices()``); ``paired``, the
    verdict of lorasched's choice on the alternatives' own seeds where it is another (a
    second look decided the headline's on more seeds)."""
    number = {a.label: a.number for a in alternatives}
    numbers = list(dict.fromkeys(number[label] for label, _ in moved))
    if len(numbers) == 1:
        ours = f"{numbers[0]}, {choices[numbers[0]]}" if choices.get(numbers[0]) else numbers[0]
    else:
        ours = "values of " + joined(f"the {n} ({choices[n]})" if choices.get(n) else
                                     f"the {n}" for n in numbers)
    seeds = f", {paired} on the alternatives' own seeds" if paired and paired != verdict \
        else ""
    others = "; ".join(f"{v} at {label}" for label, v in moved)
    return f"its verdict {DEPENDS_ON}: {verdict} at lorasched's {ours}{seeds}; {others}"


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
    """The table for display: verdicts coloured as on every claims table (the headline's,
    where the ledger gave it, last), each flipped cell shaded (:data:`FLIP_STYLE`)."""
    cols = verdict_columns(table)
    head = [HEADLINE] if HEADLINE in table.columns else []
    out = table[[*KEY, *cols, *head]].rename(columns={c: f"verdict: {c}" for c in cols})
    if head:  # a claim the headline does not count has no verdict there, so says so
        out[HEADLINE] = out[HEADLINE].replace("", NOT_COUNTED)
        out = out.rename(columns={HEADLINE: HEADLINE_SHOWN})
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


def _kinds(alternatives) -> str:
    """How many alternatives of each kind, in words: "4 other values of numbers lorasched
    chose where the paper is silent, 2 settings other than the paper's"."""
    words = {CHOSEN: ("other value of a number lorasched chose where the paper is silent",
                      "other values of numbers lorasched chose where the paper is silent"),
             SETTING: ("setting other than the paper's", "settings other than the paper's"),
             READING: ("other reading of how the paper ran",
                       "other readings of how the paper ran")}
    n = {k: sum(a.kind == k for a in alternatives) for k in KINDS}
    return ", ".join(f"{n[k]} {words[k][n[k] != 1]}" for k in KINDS if n[k])


def depends_text(table: pd.DataFrame, alternatives, choices: dict | None = None) -> str:
    """What the table says of the claims whose verdict depends on lorasched's choice
    (:func:`dependent`), with the marker of :data:`~.verdicts.DEPENDS_ON`: how many, then
    each with its verdicts (:func:`depends_clause`), one line each; where none does, that
    none does."""
    found = dependent(table, alternatives)
    rule = ("another value of a number lorasched chose where the paper is silent turns a "
            "decided verdict (reproduced, magnitude off, contradicted) into another")
    apart = ("a setting or a reading other than the paper's never makes a headline verdict "
             "depend")
    if not any(a.kind == CHOSEN for a in alternatives):
        return (f"None of these alternatives is a number lorasched chose where the paper is "
                f"silent, so no claim's verdict here {DEPENDS_ON} ({apart}).")
    if not found:
        return (f"No claim's verdict {DEPENDS_ON}: for none does {rule.replace('turns', 'turn')} "
                f"({apart}).")
    counted = ({tuple(r[k] for k in KEY) for _, r in table.iterrows() if r[HEADLINE]}
               if HEADLINE in table.columns else None)
    n = len(found)
    lines = [f"- {_claim(dict(zip(KEY, key, strict=True)))}: "
             f"{depends_clause(verdict, moved, alternatives, choices or {}, paired)}"
             + ("" if counted is None or key in counted else
                " (a claim the headline does not count)") + "."
             for key, (verdict, moved, paired) in found.items()]
    if counted is None:  # a table judged now, on seeds of the caller's choosing
        reads = (f"where the headline counts {'it' if n == 1 else 'one'}, it reads "
                 f"*{DEPENDS_ON}*, with both verdicts")
    else:
        k = len(set(found) & counted)
        reads = ("the headline does not count " + ("it" if n == 1 else "them") if not k else
                 f"the headline counts it as *{DEPENDS_ON}*, with both verdicts" if n == 1
                 else f"the headline counts {k} of them, each as *{DEPENDS_ON}*, with both "
                 "verdicts")
    return (f"For {n} claim{'s' if n != 1 else ''} {rule}: {reads} ({apart}).\n\n"
            + "\n".join(lines))


def findings(table: pd.DataFrame, seeds: int, alternatives=None,
             choices: dict | None = None) -> Prose:
    """The page's prose, every number and word from ``table``: how many claims keep their
    verdict under every alternative, then each flip, grouped by claim; with
    ``alternatives`` (the table's, with their kinds), then the claims whose verdict depends
    on lorasched's choice (:func:`depends_text`, ``choices`` lorasched's values)."""
    cols = verdict_columns(table)
    changed = flips(table)
    n, k = len(table), len(cols) - 1
    steady = int((~changed.any(axis=1)).sum())
    head = (f"Of the {n} claims re-tested here, each on {seeds} seed"
            f"{'s' if seeds != 1 else ''} paired with lorasched's choice, {steady} keep "
            f"their verdict under all {k} alternatives"
            + (f" ({_kinds(alternatives)})" if alternatives else ""))
    depends = depends_text(table, alternatives, choices) if alternatives else ""
    if steady == n:
        return paragraphs(head + ": no verdict flips.", depends)
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
                      f"{most[0].upper()}{most[1:]}." + kinds, "\n".join(lines), depends)


def what_flips(table: pd.DataFrame, seeds: int, page: str, alternatives=None,
               choices: dict | None = None) -> Prose:
    """What a paper's headline page says of its sensitivity page (``page``, linked), every
    word from ``table``: in one sentence, how many claims keep their verdict under every
    alternative, how many flip, how many of those turn one decided verdict into another
    (a reversal) and the alternative that flips most; then each claim that flips, its
    verdict under lorasched's choice and under each alternative that moves it; with
    ``alternatives`` (the table's, with their kinds), the kinds counted and then the claims
    whose verdict depends on lorasched's choice (:func:`depends_text`, ``choices``
    lorasched's values)."""
    cols = verdict_columns(table)
    changed = flips(table)
    reversed_ = reversals(table)
    n, k = len(table), len(cols) - 1
    steady = int((~changed.any(axis=1)).sum())
    under = (f"{k} alternative{'s' if k != 1 else ''} ({_kinds(alternatives)})"
             if alternatives else
             f"{k} other value{'s' if k != 1 else ''} of the numbers lorasched chose where "
             "the paper is silent")
    head = (f"The [sensitivity page]({page}.ipynb) re-tests {n} claim{'s' if n != 1 else ''} "
            f"on {seed_words(seeds)}, paired, under {under}: ")
    depends = depends_text(table, alternatives, choices) if alternatives else ""
    if steady == n:
        return paragraphs(head + f"{'every one keeps its' if n != 1 else 'it keeps its'} "
                          "verdict under every alternative.", depends)
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
    return paragraphs(sentence, "\n".join(moved), depends)


__all__ = ["CHOICE", "CHOSEN", "DECIDED", "HEADLINE", "KEY", "KINDS", "READING", "SETTING",
           "Alternative", "alternatives_table", "dependent", "depends_clause", "depends_text",
           "findings", "flip_rows", "flips", "moves", "reversals", "styled_table",
           "verdict_columns", "verdict_table", "what_flips"]


class SensitivityPage:
    """What each paper's sensitivity page shares, mixed in before its figure class: the
    seeds per size (:attr:`seed_counts`), the verdict table of :meth:`columns`, no claims of
    its own (it re-runs other pages' tests) and a build note that says on how many seeds
    each alternative runs."""

    key, number = "sensitivity", "Sensitivity"
    title = "Sensitivity of the headline to lorasched's numbers"
    #: the alternatives (:class:`Alternative`), each of its kind
    alternatives: tuple = ()
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

    def choices(self) -> dict:
        """lorasched's value of each number the alternatives change, in words, by number."""
        return {}

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
