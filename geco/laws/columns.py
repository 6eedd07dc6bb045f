"""What the miners need to know about each column, computed once: whether it is numeric, its
distinct values, its range, and integer codes (equal values, equal codes) for group-by counts.

Codes are made per column when asked for, so a wide table never has all its columns copied at
once; categorical columns reuse pandas' own codes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["ColumnFacts", "codes", "column_facts", "is_numeric"]


def is_numeric(s: pd.Series) -> bool:
    """Numeric in PLAF's sense: a number column (not bool, not categorical)."""
    return pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)


def codes(s: pd.Series) -> tuple[np.ndarray, int]:
    """(integer code per row, number of codes): equal values get equal codes; a missing value is
    a value of its own."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        c = s.cat.codes.to_numpy()
        n = len(s.cat.categories)
        if (c < 0).any():
            c = np.where(c < 0, n, c)
            n += 1
        return c, n
    c, uniques = pd.factorize(s, use_na_sentinel=False)
    return c, len(uniques)


@dataclass(frozen=True)
class ColumnFacts:
    """``n_distinct`` values on all rows; ``low``/``high`` the range of a numeric column (else
    None); ``integer``: a numeric column holding integers only, or a non-numeric one."""

    name: str
    numeric: bool
    n_distinct: int
    low: float | int | None
    high: float | int | None
    integer: bool


def column_facts(s: pd.Series) -> ColumnFacts:
    """The facts of one column (one pass: distinct count, range)."""
    numeric = is_numeric(s)
    if isinstance(s.dtype, pd.CategoricalDtype):
        c = s.cat.codes.to_numpy()
        n_distinct = int(np.count_nonzero(np.bincount(c + 1, minlength=1)))
    else:
        n_distinct = int(s.nunique(dropna=False))
    low = high = None
    integer = True
    if numeric:
        v = s.to_numpy()
        low, high = _plain(np.nanmin(v)), _plain(np.nanmax(v))
        integer = pd.api.types.is_integer_dtype(s.dtype)
    return ColumnFacts(str(s.name), numeric, n_distinct, low, high, integer)


def _plain(v: np.generic) -> float | int:
    """A numpy scalar as a Python number; an integral float as an int (for PLAF text)."""
    v = v.item()
    return int(v) if isinstance(v, float) and v.is_integer() else v
