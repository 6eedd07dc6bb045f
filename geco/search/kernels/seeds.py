"""The seeds' passes over the data's desired rows compiled: per row, the OR of its groups'
status bits, the sums of their distance terms and the largest (what
:class:`geco.problem.seed_index.Projection` computes group by group). With few groups each row
is read whole, its groups in order, its sums in registers: 2.6x faster on Credit's 14 groups
than sweeping the rows group by group (which loads and stores every row's sums once per
group), 1.2x slower on the wide table's 114, which keeps the sweep."""

from __future__ import annotations

import numpy as np

from geco.search.kernels.common import jit

__all__ = ["ROW_BY_ROW_GROUPS", "projected_rows", "row_tables", "tight_sums"]


#: up to this many groups a row's codes are read together (row by row); past it, group by
#: group (a row's codes lie a row of the index apart, and a hundred such streams miss the cache)
ROW_BY_ROW_GROUPS = 48


@jit
def _row_tables(codes, status, additive, linf):
    G, N = codes.shape
    out_status = np.zeros(N, dtype=np.uint8)
    total = np.zeros(N)
    top = np.zeros(N)
    if G > ROW_BY_ROW_GROUPS:
        for g in range(G):  # group by group: each row's sum in the reference's order
            for i in range(N):
                c = codes[g, i]
                out_status[i] |= status[c]
                total[i] += additive[c]
                v = linf[c]
                if v > top[i] or v != v:  # np.maximum: NaN wins
                    top[i] = v
        return out_status, total, top
    for i in range(N):  # row by row, its groups in order: the same sums, held in registers
        s = np.uint8(0)
        t = 0.0
        m = 0.0
        for g in range(G):
            c = codes[g, i]
            s |= status[c]
            t += additive[c]
            v = linf[c]
            if v > m or v != v:
                m = v
        out_status[i] = s
        total[i] = t
        top[i] = m
    return out_status, total, top


def row_tables(codes: np.ndarray, status: np.ndarray, additive: np.ndarray,
               linf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Per desired row (``codes``: (G, N) flat tuple codes), in one pass: the OR of its groups'
    ``status`` bits, the sum of their ``additive`` terms (group order) and the largest ``linf``
    (what :meth:`geco.problem.seed_index.Projection.row_status` and ``additive_sums`` compute
    group by group)."""
    return _row_tables(np.ascontiguousarray(codes), status, additive, linf)


@jit
def _tight_sums(codes, idx, skip, linear_terms, square_terms, top_terms):
    G = codes.shape[0]
    m = len(idx)
    linear = np.zeros(m)
    squares = np.zeros(m)
    top = np.zeros(m)
    for g in range(G):  # group by group: each row's sums in the reference's order
        if skip[g]:
            continue
        for k in range(m):
            c = codes[g, idx[k]]
            linear[k] += linear_terms[c]
            squares[k] += square_terms[c]
            v = top_terms[c]
            if v > top[k] or v != v:  # np.maximum: NaN wins
                top[k] = v
    return linear, squares, top


def tight_sums(codes: np.ndarray, idx: np.ndarray, skip: np.ndarray, terms: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """For desired rows ``idx``: the sums of their groups' first two ``terms`` and the largest of
    the third, leaving out the groups ``skip`` marks (what
    :meth:`geco.problem.seed_index.Projection.tight_bounds` sums group by group)."""
    return _tight_sums(np.ascontiguousarray(codes), np.asarray(idx, dtype=np.intp), skip, *terms)


@jit
def _projected_rows(codes, columns, idx, gof, in_space, status, stay, changes):
    G = codes.shape[0]
    d = columns.shape[0]
    m = len(idx)
    rows = np.empty((m, d))
    changed = np.empty((m, G), dtype=np.bool_)
    keep = np.empty(G, dtype=np.bool_)
    for k in range(m):
        i = idx[k]
        for g in range(G):
            c = codes[g, i]
            keep[g] = in_space[c]
            changed[k, g] = (status[c] & changes) != 0
        for j in range(d):
            rows[k, j] = columns[j, i] if keep[gof[j]] else stay[j]
    return rows, changed


def projected_rows(codes: np.ndarray, columns: np.ndarray, idx: np.ndarray, gof: np.ndarray, in_space: np.ndarray,
                   status: np.ndarray, stay: np.ndarray, changes: int) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Desired rows ``idx`` projected (``codes``: (G, N) flat tuple codes, ``columns``: (d, N)
    values; a group keeps a row's tuple where ``in_space`` holds for its code, else ``stay``'s
    values) and their changed groups (the code's ``status`` has a ``changes`` bit): what
    :meth:`geco.problem.seed_index.Projection.rows` computes in five passes over the rows, in one."""
    return _projected_rows(np.ascontiguousarray(codes), np.ascontiguousarray(columns), np.asarray(idx, dtype=np.intp),
                           np.asarray(gof, dtype=np.intp), in_space, status, stay, np.uint8(changes))
