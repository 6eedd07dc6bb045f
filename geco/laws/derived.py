"""Derived columns: a numeric column that is a monotone function of another on every row (the
same amount in another unit or scale, its logarithm, its bracket), proposed as a PLAF ``group``.

A counterfactual that moves ``income`` but not ``income_eur`` or ``income_band`` names a person
no row describes; grouped, the search takes the columns' values together, as pairs seen in the
data. The dependency miner (:mod:`geco.laws.dependencies`) cannot see these: it needs each
determinant value seen on many rows, as otherwise any column of distinct values "determines"
every other. A monotone map needs no repeats: on hundreds of rows, columns unrelated to each
other are never ordered alike by chance. So ``b`` is derived from ``a`` (of at least
:data:`MIN_DISTINCT` values, no missing one) when, the rows sorted by ``a``, ``b`` never
decreases (or never increases) and rows of equal ``a`` hold equal ``b``: screened on a few
rows, then on the sample, then checked on every row.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from geco.laws.columns import ColumnFacts
from geco.laws.dependencies import components
from geco.laws.law import Law
from geco.laws.text import count, name

__all__ = ["MIN_DISTINCT", "mine_derived"]

#: a column with fewer values is no determinant here (the dependency miner's, when seen often)
MIN_DISTINCT = 20
#: rows of the first screen (every pair of columns, cheap), before the sample's
SCREEN = 500


def _directions(a: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Per column of ``B``: +1 where it is a non-decreasing function of ``a`` on these rows, -1
    non-increasing, 0 neither (or constant). Rows of equal ``a`` must hold equal values."""
    order = np.argsort(a, kind="stable")
    step = np.diff(B[order], axis=0)
    tied = a[order][1:] == a[order][:-1]
    same_in_ties = ~(tied[:, None] & (step != 0)).any(axis=0)
    up, down = (step >= 0).all(axis=0), (step <= 0).all(axis=0)
    moves = (step != 0).any(axis=0)
    return np.where(same_in_ties & moves, np.where(up, 1, np.where(down, -1, 0)), 0)


def _pairs(values: np.ndarray, distinct: np.ndarray, determinants: np.ndarray) -> dict[tuple[int, int], int]:
    """(a, b) -> direction for the pairs these rows do not rule out: ``b`` of at most as many
    values as ``a`` (a function of ``a`` has no more)."""
    out = {}
    for a in np.flatnonzero(determinants):
        others = np.flatnonzero((distinct <= distinct[a]) & (np.arange(len(distinct)) != a))
        if len(others) == 0:
            continue
        sign = _directions(values[:, a], values[:, others])
        out.update({(int(a), int(others[j])): int(sign[j]) for j in np.flatnonzero(sign)})
    return out


def mine_derived(X: pd.DataFrame, facts: Sequence[ColumnFacts], sample: np.ndarray, proposed: Sequence[Law] = ()) -> list[Law]:
    """Groups of numeric columns each a monotone function of another (see the module docstring),
    but those ``proposed`` already (the dependency miner's groups, active or not): active where
    no column is in an active one of those (a column belongs to one group only), else a comment
    saying so."""
    taken = {c for law in proposed if law.active for c in law.columns}
    known = {frozenset(law.columns) for law in proposed}
    cols = [f for f in facts if f.numeric and f.n_distinct > 1 and not X[f.name].isna().any()]
    if len(cols) < 2:
        return []
    n = len(X)
    distinct = np.array([f.n_distinct for f in cols])
    determinants = distinct >= MIN_DISTINCT
    if not determinants.any():
        return []

    whole: dict[int, np.ndarray] = {}  # the columns still paired at the last stage, read once

    def values(i: int, rows: np.ndarray | None) -> np.ndarray:
        if rows is not None:
            return X[cols[i].name].iloc[rows].to_numpy(dtype=np.float64)  # the rows first, then as numbers
        if i not in whole:
            whole[i] = X[cols[i].name].to_numpy(dtype=np.float64)
        return whole[i]

    screen = sample[: min(SCREEN, len(sample))]
    candidates = _pairs(np.column_stack([values(i, screen) for i in range(len(cols))]), distinct, determinants)
    for rows in (sample, None):  # then the sample, then every row (only the columns still paired)
        found = {}
        for a in sorted({a for a, _ in candidates}):
            bs = [b for b in range(len(cols)) if (a, b) in candidates]
            sign = _directions(values(a, rows), np.column_stack([values(b, rows) for b in bs]))
            found.update({(a, b): int(s) for b, s in zip(bs, sign) if s == candidates[(a, b)]})
        candidates = found
    if not candidates:
        return []
    held = f"holds on {count(n)} of {count(n)} rows"
    laws = []
    for comp in components(candidates, len(cols)):
        names = [cols[i].name for i in comp]
        if set(names) <= taken or frozenset(names) in known:  # a dependency or 1:1 codes already
            continue
        clash = sorted(set(names) & taken)
        note = f"derived columns, on every row: {_relations(candidates, comp, cols)}; {held}"
        if clash:
            note += f"; {', '.join(clash)} is in a group already (a column belongs to one group only)"
        laws.append(Law("group", tuple(names), "group " + ", ".join(name(c) for c in names), n, 0, not clash, note))
    return laws


def _relations(pairs: dict[tuple[int, int], int], comp: list[int], cols: Sequence[ColumnFacts]) -> str:
    """The group's maps in words, from the column that determines the most others."""
    root = max(comp, key=lambda a: sum((a, b) in pairs for b in comp))
    words = []
    for b in comp:
        if b == root:
            continue
        a = root if (root, b) in pairs else next(a for a in comp if (a, b) in pairs)
        way = "rises" if pairs[(a, b)] > 0 else "falls"
        both = " (and determines it)" if (b, a) in pairs else ""
        words.append(f"{cols[b].name} {way} with {cols[a].name}{both}")
    return "; ".join(words)
