"""Orderings between numeric columns, ``cf.a >= cf.b``, that (nearly) every row obeys.

Sample, then verify: every ordered pair of numeric columns is compared on a sample of rows (one
vectorised comparison per column against all the others); the pairs the sample breaks on few
rows are then counted exactly on every row. A pair no sampled row breaks is always verified, so
no law of the whole table is missed."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from geco.laws.columns import ColumnFacts
from geco.laws.law import Law
from geco.laws.text import count, name

__all__ = ["mine_orderings"]


def _screen_limit(m: int, near: float) -> int:
    """Most sampled rows a pair may break and still be verified on every row: twice the rows a
    near-law may break, scaled to the sample, plus a margin for sampling noise."""
    return math.ceil(2 * near * m) + 3


def mine_orderings(
    X: pd.DataFrame, facts: Sequence[ColumnFacts], sample: np.ndarray, near: float
) -> list[Law]:
    """Every ``cf.a >= cf.b`` over the numeric ``facts`` broken by at most ``near`` of the rows
    (``cf.a == cf.b`` when both directions hold). Active: broken by no row and not already met by
    any two values seen (``min a >= max b``); else a comment saying which."""
    cols = [f for f in facts if f.numeric]
    if len(cols) < 2:
        return []
    n = len(X)
    S = np.column_stack([X[f.name].to_numpy(dtype=np.float64)[sample] for f in cols])
    breaks = np.stack([np.count_nonzero(~(S[:, [i]] >= S), axis=0) for i in range(len(cols))])
    np.fill_diagonal(breaks, S.shape[0] + 1)
    limit = _screen_limit(S.shape[0], near)
    allowed = math.floor(near * n)
    broken: dict[tuple[int, int], tuple[int, int]] = {}  # (i, j) -> (rows breaking, rows equal)
    for i, j in zip(*np.nonzero(breaks <= limit)):
        a, b = X[cols[i].name].to_numpy(), X[cols[j].name].to_numpy()
        k = n - int(np.count_nonzero(a >= b))
        if k <= allowed:
            broken[(int(i), int(j))] = (k, int(np.count_nonzero(a == b)))
    laws = []
    for (i, j), (k, equal) in sorted(broken.items()):
        a, b = cols[i], cols[j]
        if k == 0 and broken.get((j, i), (1,))[0] == 0:
            if i < j:  # the pair once, as an equality
                laws.append(Law("ordering", (a.name, b.name), f"cf.{name(a.name)} == cf.{name(b.name)}",
                                n, 0, True, f"holds on {count(n)} of {count(n)} rows: the same value in both"))  # fmt: skip
            continue
        laws.append(_ordering(a, b, n, k, equal))
    return laws


def _ordering(a: ColumnFacts, b: ColumnFacts, n: int, broken: int, equal: int) -> Law:
    statement = f"cf.{name(a.name)} >= cf.{name(b.name)}"
    if broken:
        note = f"broken by {count(broken)} of {count(n)} rows"
        return Law("ordering", (a.name, b.name), statement, n, broken, False, note)
    note = f"holds on {count(n)} of {count(n)} rows (equal on {count(equal)})"
    if a.low >= b.high:
        note += f"; already met by any values seen (min {a.name} {a.low} >= max {b.name} {b.high})"
        return Law("ordering", (a.name, b.name), statement, n, 0, False, note)
    return Law("ordering", (a.name, b.name), statement, n, 0, True, note)
