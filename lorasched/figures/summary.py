"""The reproduction summary of the three papers: every claim of every figure page, the
paper's own claims in the paper's own setting (each once) apart from everything beyond the
paper, each row's "why" linked to the section of its page that measures it, the counts by
verdict, and the prose (the summary's and each part's headline), all from those tables."""

from __future__ import annotations

import re

import pandas as pd

from . import allpass, glossary, inventory, pdftsp, titan
from . import causes as _causes
from . import readings as _readings
from . import record as _record
from . import sensitivity as _sensitivity
from . import sequential as _sequential
from .allpass import sequential as _allpass_sequential
from .allpass.causes import causes as _allpass_causes
from .allpass.sensitivity import SENSITIVITY as _ALLPASS_SENSITIVITY
from .base import WHY_ANCHOR, Prose, check_size, paragraphs
from .numbers import joined
from .pdftsp.causes import causes as _pdftsp_causes
from .pdftsp.sensitivity import SENSITIVITY as _PDFTSP_SENSITIVITY
from .tables import md_link
from .titan.causes import causes as _titan_causes
from .titan.sensitivity import SENSITIVITY as _TITAN_SENSITIVITY
from .verdicts import (
    BEYOND,
    CALIBRATION,
    COMPARED,
    CONSISTENT,
    CONTRADICTED,
    DEPENDS,
    DEPENDS_ON,
    FITTED,
    INCONCLUSIVE,
    MAGNITUDE_OFF,
    NOT_COMPARED,
    NOT_EXPLAINED,
    OWN,
    PAPER,
    REPRODUCED,
    RULE,
    VERDICTS,
    WORKED,
)

#: the systems in the book's order, with the name a reader knows them by
SYSTEMS = {"pdftsp": "pdFTSP", "titan": "TITAN", "allpass": "Allpass"}
_SUMMARIES = {"pdftsp": pdftsp.summary, "titan": titan.summary, "allpass": allpass.summary}
#: the columns every system's summary gives; any other column names the claim's setting
_COMMON = ["figure", "claim", "paper", "ours", "verdict", "why", "scope", "sentence", "page"]
#: columns a page's claims table has that the summary leaves to the page
_PAGE_ONLY = ["per seed"]
COLUMNS = ["system", "figure", "claim", "setting", "paper", "ours", "verdict", "why", "scope",
           "sentence", "page"]
#: the columns a system with a sequential design adds (:mod:`.sequential`): which look
#: judged the row, and its verdict at the first
LOOKS = ["look", "first verdict"]
#: the systems with a sequential design, by size
_DESIGNS = {"allpass": _allpass_sequential.design}
#: how many words of a row's why the summary shows (the rest is on the page, linked)
WHY_WORDS = 14
#: the end of a sentence: a full stop before a capital ("eq. (14)" is not one)
_SENTENCE = re.compile(r"\.\s+(?=[A-Z])")
#: a markdown link, ``[words](target)``
_LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")


def rule() -> Prose:
    """The verdict rule, as the summary page states it."""
    return Prose(RULE)


def _setting(row: pd.Series, extra: list[str]) -> str:
    return ", ".join(str(row[c]) for c in extra
                     if isinstance(row[c], str) and row[c].strip())


def tidy(system: str, table: pd.DataFrame, readings: bool = False) -> pd.DataFrame:
    """One system's summary table in the common columns, its variant columns joined into
    ``setting`` (a missing common column is a bug of that system's summary: KeyError);
    ``readings``: each row's per-seed values and record too (:data:`RECORDED`), where the
    table has them."""
    missing = [c for c in _COMMON if c not in table.columns]
    if missing:
        raise KeyError(f"{system}'s summary lacks the columns {missing}")
    recorded = [c for c in table.columns if _recorded(c)]
    looks = [c for c in LOOKS if c in table.columns and table["look"].max() > 1]
    if readings:
        looks = [c for c in LOOKS if c in table.columns]
    extra = [c for c in table.columns
             if c not in _COMMON + _PAGE_ONLY + LOOKS and c not in recorded]
    out = table[_COMMON + looks].copy()
    out["setting"] = table.apply(_setting, axis=1, extra=extra) if extra else ""
    out.insert(0, "system", SYSTEMS[system])
    kept = [c for c in _PAGE_ONLY + recorded if c in table.columns] if readings else []
    return pd.concat([out[COLUMNS + looks], table[kept]], axis=1).reset_index(drop=True)


def _recorded(column: str) -> bool:
    """Whether a claims table's column is part of a row's record (:data:`RECORDED`)."""
    base = column.removeprefix("first ")
    return base in _record.RECORD_COLUMNS or column == "first ours"


#: the record of a row (:mod:`.record`): the columns :func:`claims` adds with ``readings``
RECORDED = _record.RECORD_COLUMNS


def claims(size: str = "small", *, seeds: int | None = None, store=None,
           systems=tuple(SYSTEMS), readings: bool = False) -> pd.DataFrame:
    """Every claim of every figure page of ``systems``, in the common columns; with
    ``readings``, each row's per-seed values and record too (:func:`tidy`)."""
    check_size(size)
    return pd.concat([tidy(s, _SUMMARIES[s](size, seeds=seeds, store=store), readings)
                      for s in systems], ignore_index=True)


def headline_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's own claims in the paper's own setting, each once (scope
    :data:`~.verdicts.PAPER`)."""
    return table[table["scope"] == PAPER].reset_index(drop=True)


def beyond_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Everything else: readings, oracles, the authors' code's setup, lorasched's
    constants and settings (scope :data:`~.verdicts.BEYOND`)."""
    return table[table["scope"] == BEYOND].reset_index(drop=True)


def worked_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The worked examples: arithmetic a paper shows to explain its design, checked as
    tests of the implementation and counted apart (scope :data:`~.verdicts.WORKED`)."""
    return table[table["scope"] == WORKED].reset_index(drop=True)


def calibration_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's own claims that a fit of lorasched's decides: calibration checks (the
    fitted number itself) and claims not independent of a fit, judged as the others and
    counted apart (scopes :data:`~.verdicts.FITTED`)."""
    return table[table["scope"].isin(FITTED)].reset_index(drop=True)


def inventory_counts(table: pd.DataFrame) -> pd.DataFrame:
    """Per paper: its inventory's claim sentences and the claims they state
    (:func:`.inventory.counts`), the rows in the paper's own setting that answer them,
    its worked examples' checks and their rows, and how many of the inventory's parts
    no row answers or two rows answer (:func:`.inventory.problems`: zero when it holds)."""
    out = {}
    for system, name in SYSTEMS.items():
        rows = table[table["system"] == name]
        if rows.empty:
            continue
        c = inventory.counts(system)
        probs = inventory.problems(system, rows)
        if "rule" in rows.columns:  # with the records: the readings each claim declares
            probs += _readings.problems(system, rows)
        out[name] = {"claim sentences": c["sentences"], "of them repeats": c["repeats"],
                     "claims stated": c["claims"],
                     "rows (paper's setting)": int((rows["scope"] == PAPER).sum()),
                     "rows a fit decides": len(calibration_rows(rows)),
                     "worked checks": c["worked checks"],
                     "worked rows": int((rows["scope"] == WORKED).sum()),
                     "problems": len(probs)}
    wide = pd.DataFrame(out).T
    wide.index.name = "paper"
    return wide.astype(int)


def inventory_table(table: pd.DataFrame, system: str) -> pd.DataFrame:
    """``system``'s claim sentences, quoted with their section, each part beside the
    reading its sentence declares (:func:`.readings.text`), the row that answers it and
    that row's verdict (:func:`.inventory.table`)."""
    rows = table[table["system"] == SYSTEMS.get(system, system)]
    out = inventory.table(system, rows)
    out.insert(out.columns.get_loc("row"), "declared reading",
               out["sentence"].map(_readings.text(system)).fillna(""))
    return out


def counts(table: pd.DataFrame, causes: pd.DataFrame | None = None) -> pd.DataFrame:
    """Claims by system and verdict (the verdicts in the rule's order, the ones no row
    has left out), with the rows left :data:`~.verdicts.NOT_EXPLAINED` (by ``causes``,
    :func:`causes`, where given: no counterfactual found their cause; else the rows whose
    why says so), and a total row."""
    wide = pd.crosstab(table["system"], table["verdict"])
    wide = wide.reindex(index=[s for s in SYSTEMS.values() if s in set(table["system"])],
                        columns=[v for v in VERDICTS if v in set(table["verdict"])],
                        fill_value=0)
    wide["claims"] = wide.sum(axis=1)
    if causes is None:
        wide[NOT_EXPLAINED] = (table["why"].str.startswith(NOT_EXPLAINED)
                               .groupby(table["system"]).sum())
    else:
        # a circular counterfactual explains nothing: its row counts as not explained
        found = causes[causes["cause"].isin([_causes.NOT_FOUND, _causes.CIRCULAR])]
        found = found.groupby("system").size()
        wide[NOT_EXPLAINED] = found.reindex(wide.index, fill_value=0)
    wide.loc["all"] = wide.sum()
    wide.index.name = "system"
    wide.columns.name = None
    return wide.astype(int)


def linked(table: pd.DataFrame) -> pd.DataFrame:
    """The table for the summary page: each figure links to its page and each why (its
    :func:`short_why`) to the section of that page that measures it (anchor
    :data:`~.base.WHY_ANCHOR`), as markdown links that :func:`~.tables.styled` shows as HTML
    links; the ``page`` column dropped, and the looks' (:data:`LOOKS`: a second look's row
    says its seeds and level in ours)."""
    out = table.copy()

    def link(row, text, anchor=""):
        if not row["page"]:
            return str(text)
        return md_link(text, f"{row['page']}.ipynb{anchor}")

    out["figure"] = [link(r, r["figure"]) for _, r in out.iterrows()]
    out["why"] = [link(r, short_why(r["why"]), f"#{WHY_ANCHOR}") if r["why"] else ""
                  for _, r in out.iterrows()]
    return out.drop(columns=[c for c in ("page", "scope", *LOOKS) if c in out.columns])


def short_why(why: str, words: int = WHY_WORDS) -> str:
    """A row's why as the summary shows it: its first sentence, cut to ``words`` words
    (with an ellipsis); the whole reason is on the page the link leads to."""
    why = _LINK.sub(r"\1", why)  # a link inside the why: its words (the row links)
    first = _SENTENCE.split(why.strip(), maxsplit=1)[0].rstrip(".")
    cut = first.split()
    return " ".join(cut[:words]) + (" …" if len(cut) > words or first != why.strip().rstrip(".")
                                     else "")


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def _first_sentence(why: str) -> str:
    """A why's first sentence, whole (a link's words kept), without its full stop."""
    return _SENTENCE.split(_LINK.sub(r"\1", why).strip(), maxsplit=1)[0].rstrip(".")


def _share(k: int, n: int) -> str:
    return f"{k} of {n}" if n else "none"


def _tally(row, verdicts) -> str:
    return ", ".join(f"{int(row.get(v, 0))} {v}" for v in verdicts if int(row.get(v, 0)))


def findings(table: pd.DataFrame, causes: pd.DataFrame | None = None) -> Prose:
    """The summary's prose: the papers' own claims (each once, in the paper's setting) by
    verdict and system, then what lies beyond the papers, and how many rows that are not
    reproduced leave their reason unexplained (with ``causes``, :func:`causes`: what the
    counterfactuals find of the headline rows, :func:`causes_findings`); every number from
    :func:`counts` and :func:`cause_counts`."""
    head, beyond = headline_rows(table), beyond_rows(table)
    out = []
    if not head.empty:
        c = counts(head)
        total = c.loc["all"]
        compared = int(sum(total.get(v, 0) for v in COMPARED))
        text = [f"**The papers' own claims, in their own settings, each counted once:** "
                f"{total['claims']}. {compared} have a number or a direction to compare: "
                + (_tally(total, COMPARED) or "none") + "."]
        rest = _tally(total, NOT_COMPARED)
        if rest:
            text.append(f"The others: {rest}.")
        for system in c.index[:-1]:
            row = c.loc[system]
            n = int(sum(row.get(v, 0) for v in COMPARED))
            text.append(f"{system}: {_share(int(row.get(REPRODUCED, 0)), n)} compared "
                        "claims reproduced" + (f" ({_tally(row, COMPARED[1:])})"
                                               if _tally(row, COMPARED[1:]) else "") + ".")
        out.append(" ".join(text))
    if not beyond.empty:
        c = counts(beyond)
        total = c.loc["all"]
        out.append(f"**Beyond the papers** (readings, oracles, the authors' code's setup, "
                   f"lorasched's calibrated constants and extra settings, and cells another "
                   f"figure already counts): {total['claims']} rows, "
                   + _tally(total, VERDICTS) + ". They are not counted above.")
    fitted = calibration_rows(table)
    if not fitted.empty:
        total = counts(fitted).loc["all"]
        checks = int((fitted["scope"] == CALIBRATION).sum())
        out.append(f"**Claims a fit decides** (the paper's own claims whose number lorasched "
                   f"fitted to the paper's, {checks} calibration "
                   f"check{'s' if checks != 1 else ''}, or that depend on such a fit, "
                   f"{len(fitted) - checks} not independent): {total['claims']} "
                   f"row{'s' if total['claims'] != 1 else ''}, "
                   + _tally(total, VERDICTS) + ". They are judged as the others and not "
                   "counted above: a fit met says nothing of the paper's result.")
    worked = worked_rows(table)
    if not worked.empty:
        total = counts(worked).loc["all"]
        out.append(f"**Worked examples** (arithmetic a paper shows to explain its design, "
                   f"checked as tests of the implementation): {total['claims']} "
                   f"row{'s' if total['claims'] != 1 else ''}, "
                   + _tally(total, VERDICTS) + ". They are not counted above either.")
    if causes is not None:
        out.append("**Causes tested** (the papers' own claims that are compared and not "
                   "reproduced, each judged again on the counterfactual its why implies): "
                   + causes_findings(causes))
        return paragraphs(*out)
    c = counts(table)
    total = c.loc["all"]
    unexplained = int(total[NOT_EXPLAINED])
    off = int(total["claims"] - total.get(REPRODUCED, 0))
    not_compared = int(sum(total.get(v, 0) for v in NOT_COMPARED))
    out.append(f"Of all {off} rows that are not reproduced, {not_compared} "
               + ("has nothing to compare and says" if not_compared == 1
                  else "have nothing to compare and say")
               + " why; of the other "
               f"{off - not_compared}, "
               + (f"{unexplained} {'says' if unexplained == 1 else 'say'} "
                  f"\"{NOT_EXPLAINED}\"" if unexplained else "every one")
               + (" and the rest carry" if unexplained else " carries")
               + " a reason measured on its own page (the why column links to it).")
    return paragraphs(*out)


def second_look(table: pd.DataFrame, system: str) -> pd.DataFrame:
    """``system``'s headline rows that its sequential design judged a second time
    (:func:`claims`'s ``look`` 2), each with its verdict at both looks and ours at the
    second; none for a system without a design."""
    rows = table[table["system"] == SYSTEMS.get(system, system)]
    rows = rows[rows["scope"].isin(OWN)]  # a claim a fit decides is looked at again too
    if "look" not in rows.columns:
        rows = rows.assign(look=1, **{"first verdict": rows["verdict"]})
    taken = rows[rows["look"] == 2]
    out = taken[["figure", "claim", "setting"]].copy()
    out["first look"], out["second look"] = taken["first verdict"], taken["verdict"]
    out["ours"] = taken["ours"]
    return out.reset_index(drop=True)


def looks_findings(table: pd.DataFrame, system: str, size: str) -> Prose:
    """The sequential design of ``system`` in words (:meth:`.sequential.Design.text`), then
    what it did: how many headline rows the first look left undecided, how many of them
    the added seeds decided and which way, and the undecided before and after; every
    number from :func:`second_look` and ``table``."""
    design = _DESIGNS[system](size)
    taken = second_look(table, system)
    own = table[table["system"] == SYSTEMS.get(system, system)]
    head = own[own["scope"].isin(OWN)]
    now = int(head["verdict"].isin(_sequential.UNDECIDED).sum())
    n = len(taken)
    settled = taken[~taken["second look"].isin(_sequential.UNDECIDED)]
    ways = settled["second look"].value_counts()
    way = joined([f"{int(k)} {v}" for v, k in ways.items()])
    did = (f"The first look left {n} of the {len(head)} headline rows undecided; the "
           f"{design.cap - design.first} added seeds decided {len(settled)} of them"
           + (f" ({way})" if len(settled) else "")
           + f", so {now} of the {len(head)} remain{'s' if now == 1 else ''} undecided.")
    return paragraphs(design.text(), did)


#: the verdicts a part's headline names one by one, worst first
_MISSES = (CONTRADICTED, MAGNITUDE_OFF, DEPENDS_ON, DEPENDS, INCONCLUSIVE, CONSISTENT)
#: how many rows whose verdict depends on lorasched's choice a part's headline names
_DEPENDS_SAID = 3


def headline(table: pd.DataFrame, system: str) -> Prose:
    """The paragraph a paper's part opens with: of that paper's own claims in its own
    setting, what reproduces, what does not, and the measured reason of the misses that
    matter most (contradicted first, then magnitude off), then each claim whose verdict
    depends on lorasched's choice with both its verdicts, every word from ``table``
    (:func:`claims`)."""
    name = SYSTEMS.get(system, system)
    head = headline_rows(table)
    head = head[head["system"] == name]
    compared = head[head["verdict"].isin(COMPARED)]
    if compared.empty:
        return Prose(f"None of {name}'s own claims could be compared in this build.")
    n, k = len(compared), int((compared["verdict"] == REPRODUCED).sum())
    figs = list(dict.fromkeys(compared.loc[compared["verdict"] == REPRODUCED, "figure"]))
    text = [f"Of {name}'s {n} claims that this build compares in the paper's own setting "
            f"(each counted once), {k} reproduce"
            + (f" ({', '.join(figs)})" if figs else "") + "; "
            + (_tally(compared["verdict"].value_counts(), _MISSES) or "none miss") + "."]
    said = 0
    for verdict in (CONTRADICTED, MAGNITUDE_OFF):
        for r in compared[compared["verdict"] == verdict].to_dict("records"):
            if said == 2:
                break
            why = r["why"] if r["why"] and r["why"] != NOT_EXPLAINED else "not explained"
            text.append(f"{r['figure']}, {r['claim']}"
                        + (f" ({r['setting']})" if r.get("setting") else "")
                        + f", is {verdict}: paper {r['paper']}, ours {r['ours']}. "
                        f"Measured reason: {short_why(why, 40)}")
            said += 1
    hinge = compared[compared["verdict"] == DEPENDS_ON].to_dict("records")
    for r in hinge[:_DEPENDS_SAID]:
        text.append(f"{r['figure']}, {r['claim']}"
                    + (f" ({r['setting']})" if r.get("setting") else "")
                    + f": {_lower(_first_sentence(r['why']))}")
    if len(hinge) > _DEPENDS_SAID:
        text.append(f"{len(hinge) - _DEPENDS_SAID} more {DEPENDS_ON} (the table below)")
    out = " ".join(t if t.endswith((".", "…")) else t + "." for t in text)
    terms = glossary.spelled_out(out)
    return Prose((f"Abbreviations below: {terms}. " if terms else "") + out)


#: how each system's policies are tuned, where none has a constant tuned on data
UNTUNED = {
    "titan": "No policy is tuned on data here: TITAN, SRTF (shortest remaining time first) "
             "and Tiresias all run with fixed "
             "settings (Tiresias' first-queue limit of 4 GPU-hours as in the authors' "
             "simulator, TITAN's look-up table as published), so every comparison is untuned "
             "against untuned.",
    "allpass": "No policy is tuned on data here: Allpass's scalers and the baselines all run "
               "with the paper's constants, so every comparison is untuned against untuned.",
}


def tuning(table: pd.DataFrame, system: str) -> Prose:
    """What the comparison of tuned against tuned finds for ``system``: for pdFTSP, its
    calibrated constants against the baselines tuned alike
    (:func:`~.pdftsp.overview.tuned_findings`, from ``table``); for a system that tunes
    nothing, that every comparison is untuned against untuned (:data:`UNTUNED`)."""
    if system == "pdftsp":
        return pdftsp.tuned_findings(table)
    return Prose(UNTUNED[system])


def sensitivity_page(system: str):
    """``system``'s sensitivity page (its alternatives, their kinds, lorasched's values)."""
    return _SENSITIVITY[system]


def sensitivity_table(system: str, size: str = "small", *, seeds: int | None = None,
                      store=None) -> pd.DataFrame:
    """``system``'s sensitivity page's verdict table (its alternatives on its seeds, paired
    with lorasched's choice; its cells from ``store``): :func:`~.sensitivity.verdict_table`."""
    check_size(size)
    page = _SENSITIVITY[system]
    return page.table(page.data(size, seeds=seeds, store=store, serial=True))


def sensitivity(system: str, size: str = "small", *, store=None,
                table: pd.DataFrame | None = None) -> Prose:
    """What ``system``'s sensitivity page finds, as its headline page says it: the page's
    own verdict table (``table``, else :func:`sensitivity_table`) told by
    :func:`~.sensitivity.what_flips` (for a system with a sequential design, said to be the
    first look's)."""
    check_size(size)
    page = _SENSITIVITY[system]
    if table is None:
        table = sensitivity_table(system, size, store=store)
    out = _sensitivity.what_flips(table, page.seeds(size), page.page, page.alternatives,
                                  page.choices())
    if system in _DESIGNS:
        d = _DESIGNS[system](size)
        out = (f"Every verdict here is the first look's, on the pages' {d.first} seeds, each "
               f"alternative paired with lorasched's choice; the second look on {d.cap} "
               "seeds is not run under the alternatives. " + out)
    terms = glossary.spelled_out(out)
    return Prose((f"Abbreviations below: {terms}. " if terms else "") + out)


_CAUSES = {"pdftsp": _pdftsp_causes, "titan": _titan_causes, "allpass": _allpass_causes}
#: a causes table's columns, as the headline pages and the summary show it
CAUSE_COLUMNS = ["system", "figure", "claim", "setting", "verdict", "ours", "counterfactual",
                 "judged there", "ours there", "effect", "cause"]
#: what :func:`cause_counts` counts, in its order
_STATUSES = (_causes.EXPLAINED, _causes.PARTLY, _causes.NOT_FOUND, _causes.UNDECIDED,
             _causes.CIRCULAR)


def causes(size: str = "small", *, seeds: int | None = None, store=None,
           systems=tuple(SYSTEMS), table: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per paper, every headline row that is compared and not reproduced, with the
    counterfactual its why implies (where a page runs one: "none run here" otherwise),
    the row judged there, the effect (:func:`~.causes.line`) and what that finds
    (``cause``: :func:`~.causes.status`). With ``table`` (:func:`claims`), a row its
    sequential design judged a second time takes that verdict and ours (and leaves the
    table where it is now reproduced); the counterfactual's effect stays the first look's."""
    check_size(size)
    tables = []
    for s in systems:
        t = _CAUSES[s](size, seeds=seeds, store=store)
        if table is not None and "variant" in t.columns:
            t = _second_looked(t, table[table["system"] == SYSTEMS[s]])
        t.insert(0, "system", SYSTEMS[s])
        t["setting"] = t["variant"].fillna("").astype(str) if "variant" in t else ""
        t["cause"] = [_causes.status(v, e) for v, e in zip(t["verdict"], t["effect"],
                                                            strict=True)]
        tables.append(t)
    return pd.concat(tables, ignore_index=True)[CAUSE_COLUMNS]


def _second_looked(causes: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """``causes``'s rows (one paper's) as its headline's second look left them: the
    verdict and ours of the row that look took, the rows it reproduced left out."""
    if "look" not in table.columns:
        return causes
    taken = table[(table["scope"] == PAPER) & (table["look"] == 2)]
    again = {(r.figure, r.claim, r.setting): r for r in taken.itertuples()}
    out = causes.copy()
    keep = []
    for i, r in out.iterrows():
        hit = again.get((r["figure"], r["claim"], r["variant"] or ""))
        if hit is not None:
            out.at[i, "verdict"], out.at[i, "ours"] = hit.verdict, hit.ours
        keep.append(hit is None or hit.verdict != REPRODUCED)
    return out[keep].reset_index(drop=True)


def cause_counts(causes: pd.DataFrame) -> pd.DataFrame:
    """:func:`causes`'s rows by paper: how many, how many a counterfactual was run for,
    and how many of them each finding (:func:`~.causes.status`) holds, with a total
    row."""
    names = [s for s in SYSTEMS.values() if s in set(causes["system"])]
    wide = pd.crosstab(causes["system"], causes["cause"]).reindex(
        index=names, columns=list(_STATUSES), fill_value=0)
    wide.insert(0, "counterfactual run", (causes["counterfactual"] != _causes.NONE_RUN)
                .groupby(causes["system"]).sum().reindex(names, fill_value=0))
    wide.insert(0, "rows not reproduced", causes.groupby("system").size()
                .reindex(names, fill_value=0))
    wide.loc["all"] = wide.sum()
    wide.index.name = "system"
    wide.columns.name = None
    return wide.astype(int)


def causes_findings(causes: pd.DataFrame) -> Prose:
    """What the causes tables find, one sentence per paper, every number from
    :func:`cause_counts`."""
    c = cause_counts(causes)
    out = []
    for system in c.index[:-1]:
        row = c.loc[system]
        n, run = int(row["rows not reproduced"]), int(row["counterfactual run"])
        parts = [f"{int(row[s])} {s}" for s in _STATUSES if int(row[s])]
        out.append(f"{system}: of {n} headline row{'s' if n != 1 else ''} compared and not "
                   f"reproduced, {run} {'has' if run == 1 else 'have'} a counterfactual run; "
                   + ", ".join(parts) + ".")
    return Prose(
        " ".join(out) + f" The rule is strict: a row is {_causes.EXPLAINED} only where "
        "its counterfactual's own verdict is reproduced (the row comes into the band, or "
        f"its direction now holds); {_causes.PARTLY} where it moves toward the paper's "
        "number but stops short or overshoots; "
        f"{_causes.NOT_FOUND} where the row disagrees with the paper and no run moved it "
        "toward the paper (no move, a move away, or a sign flipped); "
        f"{_causes.UNDECIDED} where its seeds leave it undecided and no run moved it (its "
        f"cause is their spread); and {_causes.CIRCULAR} where the counterfactual's "
        "parameter was chosen to meet the row's own number. A counterfactual that runs "
        f"another algorithm than the paper's says so in its name "
        f"(\"{_causes.NOT_THE_PAPERS.strip(' ()')}\").")


#: each system's sensitivity page
_SENSITIVITY = {"pdftsp": _PDFTSP_SENSITIVITY, "titan": _TITAN_SENSITIVITY,
                "allpass": _ALLPASS_SENSITIVITY}


__all__ = ["CAUSE_COLUMNS", "COLUMNS", "SYSTEMS", "UNTUNED", "beyond_rows",
           "calibration_rows", "cause_counts", "causes", "causes_findings", "claims",
           "counts", "findings", "headline", "headline_rows", "inventory_counts",
           "inventory_table", "linked",
           "looks_findings", "rule", "second_look", "sensitivity", "sensitivity_page",
           "sensitivity_table",
           "short_why", "tidy", "tuning",
           "worked_rows"]
