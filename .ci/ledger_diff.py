"""The rows in the papers' own setting whose verdict or scope changed between two published
ledgers (data folders holding ledger.csv and ledger-counts.csv), the rows whose interval
method changed, the counts of each, and the cause tests of each: a closing note's before
and after.

    .venv/bin/python .ci/ledger_diff.py BEFORE_DATA_DIR AFTER_DATA_DIR
"""

from __future__ import annotations

import sys

import pandas as pd

OWN = ["paper", "calibration check", "not independent"]
KEY = ["system", "figure", "sentence"]
SHOWN = [*KEY, "claim a", "verdict b", "verdict a", "method b", "method a"]


def _read(folder: str, name: str) -> pd.DataFrame:
    return pd.read_csv(f"{folder}/{name}", dtype=str, keep_default_na=False)


def main(before: str, after: str) -> None:
    a, b = _read(before, "ledger.csv"), _read(after, "ledger.csv")
    for name, folder in (("before", before), ("after", after)):
        print(f"## counts {name}\n", _read(folder, "ledger-counts.csv").to_markdown(index=False))
    m = a[a.scope.isin(OWN)].merge(b[b.scope.isin(OWN)], on=KEY, how="outer",
                                   suffixes=(" b", " a"))
    moved = (m["verdict b"] != m["verdict a"]) | (m["scope b"] != m["scope a"])
    print("## changed own rows\n", m[moved][SHOWN].to_markdown(index=False))
    print("## method changed\n", m[m["method b"] != m["method a"]][SHOWN].to_markdown(index=False))
    for name, d in (("before", a), ("after", b)):
        c = d[(d.cause != "") & (d.scope == "paper")]
        print(f"## causes {name}\n",
              c.groupby(["system", "cause"]).size().unstack(fill_value=0).to_markdown())
    c = a[["id", "cause"]].merge(b[["id", "cause"]], on="id", how="outer",
                                 suffixes=(" b", " a")).fillna("")
    c = c[(c["cause b"] != c["cause a"]) & ((c["cause b"] != "") | (c["cause a"] != ""))]
    print("## cause rows changed\n", c.to_markdown(index=False))


if __name__ == "__main__":
    main(*sys.argv[1:3])
