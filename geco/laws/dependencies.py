"""Functional dependencies (``a`` determines ``b``) and 1:1 codes, proposed as PLAF ``group``s.

A group makes the search take its columns' values together, as tuples seen in the data, so a
counterfactual cannot pair a value of ``a`` with a ``b`` no row has with it. Mining: on a sample,
the rows are sorted by each candidate determinant and every column is checked at once for a
change inside a run of equal determinant values; the pairs that pass are then counted exactly
on every row by group-by counts of value pairs (the rows that break ``a -> b`` are those whose
``b`` is not the most common one for their ``a``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from geco.laws.columns import ColumnFacts, codes
from geco.laws.law import Law
from geco.laws.text import count, name

__all__ = ["components", "fd_broken", "mine_groups"]

MIN_ROWS_PER_VALUE = 10  # a determinant's values must each be seen this often on average
EXPLAINED = 0.9  # a near-dependency must account for this share of b's variation


def fd_broken(a: np.ndarray, b: np.ndarray, n_b: int) -> int:
    """Rows breaking ``a -> b`` (codes ``a``, ``b`` with ``b < n_b``): rows whose ``b`` is not
    the most common ``b`` among the rows with their ``a``."""
    key = a.astype(np.int64) * n_b + b
    pairs, counts = np.unique(key, return_counts=True)
    owner = pairs // n_b
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    return len(a) - int(np.maximum.reduceat(counts, starts).sum())


def _sample_codes(X: pd.DataFrame, cols: Sequence[ColumnFacts], sample: np.ndarray) -> np.ndarray:
    return np.column_stack([pd.factorize(X[f.name].to_numpy()[sample], use_na_sentinel=False)[0]
                            for f in cols]).astype(np.int32)  # fmt: skip


def _candidates(C: np.ndarray, determinants: np.ndarray, near: float) -> list[tuple[int, int]]:
    """Pairs (a, b) the sample does not rule out: sorted by ``a``, ``b`` changes inside a run
    of equal ``a`` on few rows."""
    m = C.shape[0]
    limit = math.ceil(2 * near * m) + 3
    out = []
    for a in np.flatnonzero(determinants):
        order = np.argsort(C[:, a], kind="stable")
        Cs = C[order]
        same = Cs[1:, a] == Cs[:-1, a]
        changes = np.count_nonzero((Cs[1:] != Cs[:-1]) & same[:, None], axis=0)
        changes[a] = limit + 1
        out.extend((int(a), int(b)) for b in np.flatnonzero(changes <= limit))
    return out


def mine_groups(
    X: pd.DataFrame, facts: Sequence[ColumnFacts], sample: np.ndarray, near: float
) -> list[Law]:
    """Groups for the exact dependencies among ``facts`` (active when one column determines all
    the others of its group, so the group adds nothing beyond the dependencies) and comments for
    the near ones (broken by at most ``near`` of the rows)."""
    cols = [f for f in facts if f.n_distinct > 1]
    if len(cols) < 2:
        return []
    n = len(X)
    C = _sample_codes(X, cols, sample)
    sample_distinct = np.array([len(np.unique(C[:, i])) for i in range(len(cols))])
    determinants = (sample_distinct * MIN_ROWS_PER_VALUE <= len(sample)) & np.array(
        [f.n_distinct * MIN_ROWS_PER_VALUE <= n for f in cols]
    )
    full: dict[int, tuple[np.ndarray, int]] = {}

    def full_codes(i: int) -> tuple[np.ndarray, int]:
        if i not in full:
            full[i] = codes(X[cols[i].name])
        return full[i]

    exact: dict[tuple[int, int], int] = {}
    near_laws: list[Law] = []
    allowed = math.floor(near * n)
    for a, b in _candidates(C, determinants, near):
        (ca, _), (cb, nb) = full_codes(a), full_codes(b)
        k = fd_broken(ca, cb, nb)
        if k == 0:
            exact[(a, b)] = 0
        elif k <= allowed and k <= (1 - EXPLAINED) * (n - int(np.bincount(cb).max())):
            near_laws.append(Law(
                "group", (cols[a].name, cols[b].name), f"group {name(cols[a].name)}, {name(cols[b].name)}",
                n, k, False, f"{cols[a].name} determines {cols[b].name} except on {count(k)} of {count(n)} rows",
            ))  # fmt: skip
        if len(full) > 64:  # keep a wide table's memory bounded
            full.clear()
    laws = [law for comp in components(exact, len(cols)) for law in _groups(comp, exact, cols, n)]
    grouped = {c for law in laws for c in law.columns}
    return laws + [law for law in near_laws if not set(law.columns) <= grouped]


def components(edges: dict[tuple[int, int], int], n: int) -> list[list[int]]:
    """Connected components (of two or more columns) of the dependency graph, in column order."""
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in edges:
        parent[root(a)] = root(b)
    comps: dict[int, list[int]] = {}
    for i in range(n):
        comps.setdefault(root(i), []).append(i)
    return [c for c in comps.values() if len(c) > 1]


def _groups(comp: list[int], exact: dict, cols: Sequence[ColumnFacts], n: int) -> list[Law]:
    """Disjoint groups for one component: repeatedly the column that determines the most others
    left, with them (active: the group says only what the dependencies say); a dependency
    between two groups so formed is a comment (a column belongs to one group only)."""
    held = f"holds on {count(n)} of {count(n)} rows"
    left = list(comp)
    laws, placed = [], {}
    while True:
        deps = {k: [o for o in left if o != k and (k, o) in exact] for k in left}
        k = max(left, key=lambda k: len(deps[k]), default=None)
        if k is None or not deps[k]:
            break
        members = sorted([k, *deps[k]])
        names = [cols[i].name for i in members]
        statement = "group " + ", ".join(name(c) for c in names)
        if all((o, k) in exact for o in deps[k]):
            note = f"1:1 codes: {' <-> '.join(names)}; {held}"
        else:
            note = f"{cols[k].name} determines {', '.join(cols[o].name for o in deps[k])}; {held}"
        laws.append(Law("group", tuple(names), statement, n, 0, True, note))
        placed.update(dict.fromkeys(members, statement))
        left = [o for o in left if o not in members]
    for a, b in exact:
        if a in comp and b in placed and placed.get(a) != placed[b]:
            note = (f"{cols[a].name} determines {cols[b].name}; {held}; {cols[b].name} is in "
                    f"'{placed[b]}' already (a column belongs to one group only)")  # fmt: skip
            laws.append(Law("group", (cols[a].name, cols[b].name),
                            f"group {name(cols[a].name)}, {name(cols[b].name)}", n, 0, False, note))  # fmt: skip
    return laws
