"""Reading TITAN's CSV tables with errors that name the file and the column."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..model.errors import InputError


def read_csv(path: Path, dtype, *, required: bool = False) -> pd.DataFrame | None:
    """A CSV as a DataFrame (no value is read as missing), or None if an optional table does
    not exist; ``FileNotFoundError`` for a required one, ``ValueError`` naming the file if
    it is not a readable CSV."""
    path = Path(path)
    if not path.is_file():
        if required:
            raise FileNotFoundError(f"table {str(path)!r} not found")
        return None
    try:
        return pd.read_csv(path, dtype=dtype, keep_default_na=False, na_values=[])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: not a readable CSV ({err})") from err


def require_columns(frame: pd.DataFrame, name, columns) -> None:
    """``ValueError`` naming the table ``name`` if a column of ``columns`` is missing or the
    table has no rows."""
    for column in columns:
        if column not in frame.columns:
            raise InputError(f"{name}: missing column {column!r} (has {list(frame.columns)}; "
                             f"needs {list(columns)})")
    if len(frame) == 0:
        raise InputError(f"{name}: no rows")
