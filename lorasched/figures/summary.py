"""The reproduction summary of the three papers: every claim of every figure page in one
table, each row's "why" linked to the section of its page that measures it, the counts
by verdict and the summary's prose, all from those tables."""

from __future__ import annotations

import html

import pandas as pd

from . import allpass, pdftsp, titan
from .base import WHY_ANCHOR, Prose, check_size, paragraphs
from .verdicts import COMPARED, NOT_COMPARED, NOT_EXPLAINED, REPRODUCED, RULE, VERDICTS

#: the systems in the book's order, with the name a reader knows them by
SYSTEMS = {"pdftsp": "pdFTSP", "titan": "TITAN", "allpass": "Allpass"}
_SUMMARIES = {"pdftsp": pdftsp.summary, "titan": titan.summary, "allpass": allpass.summary}
#: the columns every system's summary gives; any other column names the claim's setting
_COMMON = ["figure", "claim", "paper", "ours", "verdict", "why", "page"]
COLUMNS = ["system", "figure", "claim", "setting", "paper", "ours", "verdict", "why", "page"]


def rule() -> Prose:
    """The verdict rule, as the summary page states it."""
    return Prose(RULE)


def _setting(row: pd.Series, extra: list[str]) -> str:
    return ", ".join(str(row[c]) for c in extra
                     if isinstance(row[c], str) and row[c].strip())


def tidy(system: str, table: pd.DataFrame) -> pd.DataFrame:
    """One system's summary table in the common columns, its variant columns joined into
    ``setting`` (a missing common column is a bug of that system's summary: KeyError)."""
    missing = [c for c in _COMMON if c not in table.columns]
    if missing:
        raise KeyError(f"{system}'s summary lacks the columns {missing}")
    extra = [c for c in table.columns if c not in _COMMON]
    out = table[_COMMON].copy()
    out["setting"] = table.apply(_setting, axis=1, extra=extra) if extra else ""
    out.insert(0, "system", SYSTEMS[system])
    return out[COLUMNS].reset_index(drop=True)


def claims(size: str = "small", *, seeds: int | None = None, store=None,
           systems=tuple(SYSTEMS)) -> pd.DataFrame:
    """Every claim of every figure page of ``systems``, in the common columns."""
    check_size(size)
    return pd.concat([tidy(s, _SUMMARIES[s](size, seeds=seeds, store=store))
                      for s in systems], ignore_index=True)


def counts(table: pd.DataFrame) -> pd.DataFrame:
    """Claims by system and verdict (the verdicts in the rule's order, the ones no row
    has left out), with the rows whose why is :data:`~.verdicts.NOT_EXPLAINED`, and a
    total row."""
    wide = pd.crosstab(table["system"], table["verdict"])
    wide = wide.reindex(index=[s for s in SYSTEMS.values() if s in set(table["system"])],
                        columns=[v for v in VERDICTS if v in set(table["verdict"])],
                        fill_value=0)
    wide["claims"] = wide.sum(axis=1)
    wide[NOT_EXPLAINED] = (table["why"] == NOT_EXPLAINED).groupby(table["system"]).sum()
    wide.loc["all"] = wide.sum()
    wide.index.name = "system"
    wide.columns.name = None
    return wide.astype(int)


def linked(table: pd.DataFrame) -> pd.DataFrame:
    """The table for the summary page: each figure links to its page and each why to the
    section of that page that measures it; the ``page`` column dropped."""
    out = table.copy()

    def link(row, text, anchor=""):
        if not row["page"]:
            return html.escape(str(text))
        return f'<a href="{row["page"]}.html{anchor}">{html.escape(str(text))}</a>'

    out["figure"] = [link(r, r["figure"]) for _, r in out.iterrows()]
    out["why"] = [link(r, r["why"], f"#{WHY_ANCHOR}") if r["why"] else ""
                  for _, r in out.iterrows()]
    return out.drop(columns="page")


def _share(k: int, n: int) -> str:
    return f"{k} of {n}" if n else "none"


def findings(table: pd.DataFrame) -> Prose:
    """The summary's prose: how many claims each verdict has, by system, and how many rows
    that are not reproduced leave their reason unexplained; every number from
    :func:`counts`."""
    c = counts(table)
    total = c.loc["all"]
    compared = int(sum(total.get(v, 0) for v in COMPARED))
    parts = [f"{total['claims']} claims across the three papers. {compared} have a "
             "number or a direction to compare: "
             + ", ".join(f"{total.get(v, 0)} {v}" for v in COMPARED) + ". The others: "
             + ", ".join(f"{total.get(v, 0)} {v}" for v in NOT_COMPARED) + "."]
    for system in c.index[:-1]:
        row = c.loc[system]
        sys_compared = int(sum(row.get(v, 0) for v in COMPARED))
        parts.append(f"{system}: {_share(int(row.get(REPRODUCED, 0)), sys_compared)} "
                     "compared claims reproduced ("
                     + ", ".join(f"{row.get(v, 0)} {v}" for v in COMPARED[1:]) + ").")
    unexplained = int(total[NOT_EXPLAINED])
    off = int(total["claims"] - total.get(REPRODUCED, 0))
    not_compared = int(sum(total.get(v, 0) for v in NOT_COMPARED))
    parts.append(f"Of the {off} rows that are not reproduced, {not_compared} "
                 + ("has nothing to compare and says" if not_compared == 1
                    else "have nothing to compare and say")
                 + " why; of the other "
                 f"{off - not_compared}, "
                 + (f"{unexplained} {'says' if unexplained == 1 else 'say'} "
                    f"\"{NOT_EXPLAINED}\"" if unexplained else "every one")
                 + (" and the rest carry" if unexplained else " carries")
                 + " a reason measured on its own page (the why column links to it).")
    return paragraphs(" ".join(parts[:1]), " ".join(parts[1:-1]), parts[-1])


__all__ = ["COLUMNS", "SYSTEMS", "claims", "counts", "findings", "linked", "rule", "tidy"]
