"""pdFTSP's misses by root cause: the headline rows that are not reproduced grouped by the
root cause :mod:`.causes` declares for each (:func:`root_cause_table`), and the headline's
finding from them (:func:`findings`): what the misses share, what the calibrated constants
bring back against the baselines as the paper ran them and against the baselines tuned
alike (the fair comparison, which counts), and how pdFTSP fares tuned against tuned."""

from __future__ import annotations

import math

import pandas as pd

from .. import causes as _causes
from ..base import Prose, paragraphs
from ..glossary import spelled_out
from ..numbers import MISSING, num, pct, quote, quote_interval
from ..prose import says
from ..verdicts import CONTRADICTED, INCONCLUSIVE, REPRODUCED, Estimate
from . import common
from .causes import ROOT_CAUSES, root_cause

#: what a cause test can conclude, best first (:func:`~..causes.status`)
STATUSES = (_causes.EXPLAINED, _causes.PARTLY, _causes.NOT_FOUND, _causes.UNDECIDED,
            _causes.CIRCULAR)
#: the columns of :func:`root_cause_table`
COLUMNS = ["root cause", "rows", "which rows", "counterfactual", "finding (counted)",
           "against untuned baselines (not counted)", "rows the two disagree on"]
#: the system's name in a summary's tables
_SYSTEM = "pdFTSP"


def _own(table: pd.DataFrame) -> pd.DataFrame:
    """``table``'s pdFTSP rows (all of them where it has no ``system`` column)."""
    if "system" in table.columns:
        table = table[table["system"] == _SYSTEM]
    return table.reset_index(drop=True)


def rooted(causes: pd.DataFrame) -> pd.DataFrame:
    """pdFTSP's rows of ``causes`` (the summary's causes table, :func:`~..summary.causes`,
    or the ledger's) with their root cause (``root``: its key, :func:`~.causes.root_cause`,
    ``InputError`` for a row none is declared for), the finding that counts (``counted``:
    the table's ``cause``, else :func:`~..causes.status` of its effect) and what its
    counterfactuals in an unfair comparison would find were they counted (``uncounted``,
    "" where it has none: :func:`~..causes.uncounted`)."""
    out = _own(causes).copy()
    out["root"] = [root_cause(f, c) for f, c in zip(out["figure"], out["claim"], strict=True)]
    effects = out["effect"].fillna("").astype(str)
    out["counted"] = (out["cause"] if "cause" in out.columns else
                      [_causes.status(v, e) for v, e in zip(out["verdict"], effects,
                                                            strict=True)])
    out["uncounted"] = [_causes.status(v, _causes.uncounted(e)) if _causes.uncounted(e)
                        else "" for v, e in zip(out["verdict"], effects, strict=True)]
    return out


def _tally(statuses) -> str:
    """"1 explained, 10 partly explained" (the statuses in :data:`STATUSES`' order)."""
    counts = pd.Series(list(statuses)).value_counts()
    return ", ".join(f"{int(counts[s])} {s}" for s in STATUSES if s in counts.index)


def root_cause_table(causes: pd.DataFrame) -> pd.DataFrame:
    """pdFTSP's headline rows that are compared and not reproduced (``causes``, the
    summary's causes table), grouped by root cause (:data:`~.causes.ROOT_CAUSES`' order):
    the cause, how many rows it accounts for and which, the counterfactuals they were
    judged again on, and what those find by the strict rule -- the finding that counts
    (against the baselines tuned alike, where pdFTSP's constants are tuned), what the
    comparison against the baselines as the paper ran them would find (not counted), and
    on how many rows the two disagree. The rows sum to ``causes``' pdFTSP rows."""
    rows = rooted(causes)
    out = []
    for key, root in ROOT_CAUSES.items():
        group = rows[rows["root"] == key]
        if group.empty:
            continue
        tests = dict.fromkeys(t for c in group["counterfactual"]
                              for t in str(c).split(_causes.SEPARATOR))
        unfair = group[group["uncounted"] != ""]
        out.append({
            "root cause": root.label, "rows": len(group),
            "which rows": _which(group),
            "counterfactual": "; ".join(tests),
            "finding (counted)": _tally(group["counted"]),
            "against untuned baselines (not counted)": _tally(unfair["uncounted"])
            if len(unfair) else MISSING,
            "rows the two disagree on": int((unfair["uncounted"] != unfair["counted"]).sum())
            if len(unfair) else MISSING})
    table = pd.DataFrame(out, columns=COLUMNS)
    if int(table["rows"].sum()) != len(rows):  # every row in one group, and once
        raise RuntimeError(f"the root causes group {int(table['rows'].sum())} rows of "
                           f"{len(rows)}")
    return table


def _which(group: pd.DataFrame) -> str:
    """The rows of ``group`` by figure, claim and pdFTSP setting ("Fig. 4, K=5: pdFTSP
    over EFT (Lemma 2); ...")."""
    setting = next((group[c] for c in ("setting", "variant") if c in group.columns),
                   pd.Series("", index=group.index))
    return "; ".join(f"{f}, {c}" + (f" ({v})" if isinstance(v, str) and v else "")
                     for f, c, v in zip(group["figure"], group["claim"], setting, strict=True))


def _count(quantity: str, k: int) -> str:
    """A count as the prose prints it (:func:`~..numbers.quote`)."""
    return quote(quantity, k, num)


def _rows(k: int) -> str:
    return "row" if k == 1 else "rows"


def shared(causes: pd.DataFrame) -> str:
    """What pdFTSP's misses share, in words: the rows the largest root cause accounts for,
    the cause, and the other causes with their counts ("" where no row misses)."""
    table = root_cause_table(causes)
    if table.empty:
        return ""
    n = int(table["rows"].sum())
    lead = table.loc[table["rows"].idxmax()]
    what = ROOT_CAUSES[_key(lead["root cause"])].what

    def rows_of(r) -> str:
        return _count(f"rows of root cause: {r['root cause']}", int(r["rows"]))

    others = [f"{r['root cause']} ({rows_of(r)})" for _, r in table.iterrows()
              if r["root cause"] != lead["root cause"]]
    rows = rooted(causes)
    against = rows["verdict"] == CONTRADICTED
    k = int((against & (rows["root"] == _key(lead["root cause"]))).sum())
    of = (f" ({_count('contradicted rows of the leading root cause', k)} of the "
          f"{_count('contradicted rows', int(against.sum()))} contradicted)"
          if against.any() else "")
    return (f"**What the misses share.** Of pdFTSP's "
            f"{_count('headline rows compared and not reproduced', n)} headline {_rows(n)} "
            f"that are compared and not reproduced, {rows_of(lead)}{of} share one root "
            f"cause, {lead['root cause']}: {what}."
            + (f" The others: {', '.join(others)}." if others else ""))


def _key(label: str) -> str:
    """The key of the root cause labelled ``label``."""
    return next(k for k, r in ROOT_CAUSES.items() if r.label == label)


#: the root cause the calibrated constants take away (:data:`~.causes.ROOT_CAUSES`)
PRICES = "prices"


def _rank(status: str) -> int:
    return STATUSES.index(status) if status in STATUSES else len(STATUSES)


def returns(causes: pd.DataFrame) -> str:
    """What pdFTSP's constants calibrated on the held-out day bring back of the rows whose
    root cause is Lemma 2's prices (:data:`PRICES`), in words: whether the paper's margins
    come back (wholly, in part, or not), by what the strict rule finds of those rows
    against the baselines as the paper ran them (not counted) and against the baselines
    tuned alike (the fair comparison, which counts), and on how many rows the two
    disagree ("" where no row has that root cause)."""
    rows = rooted(causes)
    group = rows[(rows["root"] == PRICES) & (rows["uncounted"] != "")]
    k = len(group)
    if not k:
        return ""
    fair, unfair = list(group["counted"]), list(group["uncounted"])
    back = {name: sum(s in (_causes.EXPLAINED, _causes.PARTLY) for s in found)
            for name, found in (("fair", fair), ("unfair", unfair))}
    whole = {name: sum(s == _causes.EXPLAINED for s in found)
             for name, found in (("fair", fair), ("unfair", unfair))}
    only = ("The paper's margins come back only with pdFTSP's α and β calibrated on the "
            "held-out day in place of Lemma 2's")
    if not back["fair"] and not back["unfair"]:
        lead = ("Calibrating pdFTSP's α and β on the held-out day in place of Lemma 2's does "
                "not bring the paper's margins back")
    elif not back["fair"]:
        lead = f"{only}, and only against the baselines as the paper ran them"
    elif whole["fair"] == k:
        lead = only
    else:
        lead = f"{only}, and then only in part"
    worse = sum(_rank(f) > _rank(u) for f, u in zip(fair, unfair, strict=True))
    better = sum(_rank(f) < _rank(u) for f, u in zip(fair, unfair, strict=True))
    split = ""
    if worse or better:
        split = (f" The two comparisons disagree on "
                 f"{_count('rows the two comparisons disagree on', worse + better)} of the "
                 f"{k}; tuned against tuned, the calibrated constants explain less on "
                 f"{_count('rows the fair comparison finds less on', worse)} "
                 f"and more on {_count('rows the fair comparison finds more on', better)}, "
                 "and the fair comparison is the one that counts.")
    return (f"**What the calibrated constants bring back.** {lead}. Of the "
            f"{_count('rows whose root cause is the prices', k)} {_rows(k)} whose root cause "
            "is the prices, against the paper's baselines as it ran them (pdFTSP tuned, its "
            f"baselines not: shown, not counted) {_tally(unfair)}; against the baselines "
            f"tuned alike on the same day, the fair comparison that counts, {_tally(fair)}."
            + split)


#: how :func:`standing` says each verdict of a calibrated row's comparison with the best
#: tuned baseline (``{head}``: what the row measures, ``{number}``: ours)
_STANDS = {
    REPRODUCED: "it leads, as the paper reports of its own constants: its {head} is {number}",
    CONTRADICTED: "unlike the paper, it trails: its {head} is {number}",
    INCONCLUSIVE: "whether it leads the seeds cannot tell: its {head} is {number}",
}


def _estimate(row) -> Estimate | None:
    """A record's estimate (its ``centre``, ``low``, ``high``, ``n`` and ``level``), None
    where it has none."""
    try:
        centre, low, high = (float(row[c]) for c in ("centre", "low", "high"))
    except (KeyError, TypeError, ValueError):
        return None
    if not all(math.isfinite(v) for v in (centre, low, high)):
        return None
    level = row.get("level", 0.95)
    return Estimate(centre, low, high, int(row.get("n", 1)),
                    level=float(level) if level == level else 0.95)


def tuned_rows(records: pd.DataFrame) -> pd.DataFrame:
    """pdFTSP's rows of ``records`` that compare its calibrated constants with the best
    baseline tuned alike: each "pdFTSP is the best" claim and its gain over cost-plus
    (:data:`~.common.COST_PLUS_CLAIM`), in the calibrated setting."""
    own = _own(records)
    setting = own["setting"] if "setting" in own.columns else own["variant"]
    best = own["claim"].str.contains("best", regex=False) | (
        own["claim"] == common.COST_PLUS_CLAIM)
    return own[best & (setting == common.VARIANTS[common.CALIBRATED])].reset_index(drop=True)


def standing(records: pd.DataFrame) -> str:
    """How pdFTSP fares tuned against tuned, in words: of its rows that compare the
    calibrated constants with the best baseline tuned alike (:func:`tuned_rows`, from
    ``records``: the ledger's records, or the summary's claims with ``readings``), the
    count by verdict, then each row's setting and margin in a sentence marked with its
    verdict (:func:`~..prose.says`), every number a :func:`~..numbers.quote` of the row's
    estimate ("" where there is no such row)."""
    rows = tuned_rows(records)
    if rows.empty:
        return ""
    said = []
    for r in rows.to_dict("records"):
        head, _, rest = str(r["ours"]).partition(": ")
        head = f"gain {head}" if head.startswith("over ") else head
        est = _estimate(r)
        number = (quote_interval(f"{r['figure']}, {r['claim']}, calibrated: {head}, %", est,
                                 pct) if est is not None else rest.split("; ")[0])
        words = _STANDS.get(r["verdict"])
        if words is None:  # a verdict a comparison with the best does not have
            continue
        said.append(says(r["verdict"], f"{r['figure']}, {r['claim']}: "
                         + words.format(head=head, number=number), r["claim"],
                         common.VARIANTS[common.CALIBRATED]))
    counts = rows["verdict"].value_counts()
    tally = ", ".join(f"{_count(f'tuned against tuned rows {v}', int(counts[v]))} {v}"
                      for v in (REPRODUCED, CONTRADICTED, INCONCLUSIVE) if v in counts.index)
    n = len(rows)
    return ("**Tuned against tuned.** pdFTSP's calibrated constants against the baselines "
            "tuned alike on the same held-out day (Titan, which has nothing to tune; EFT "
            "and NTM at their tuned posted price; cost-plus at its tuned markup), in its "
            f"{_count('rows comparing calibrated pdFTSP with the best tuned baseline', n)} "
            f"comparisons with the best of them: {tally}. " + "; ".join(said) + ".")


def findings(records: pd.DataFrame, causes: pd.DataFrame) -> Prose:
    """The pdFTSP headline's finding, every number from ``records`` (the ledger's records,
    or the summary's claims with ``readings``) and ``causes`` (the summary's causes
    table): what the misses share (:func:`shared`), what the calibrated constants bring
    back against untuned and tuned baselines (:func:`returns`), and how pdFTSP fares tuned
    against tuned (:func:`standing`); the abbreviations it uses spelled out first."""
    out = paragraphs(shared(causes), returns(causes), standing(records))
    terms = spelled_out(out)
    return Prose((f"Abbreviations below: {terms}. " if terms else "") + out)


__all__ = ["COLUMNS", "PRICES", "STATUSES", "findings", "returns", "root_cause_table",
           "rooted", "shared", "standing", "tuned_rows"]
