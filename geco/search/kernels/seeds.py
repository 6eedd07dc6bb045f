"""The seeds' passes over the data's desired rows compiled: per row, the OR of its groups'
status bits, the sums of their distance terms and the largest (what
:class:`geco.problem.seed_index.Projection` computes group by group). Each row is read whole,
its groups in order, with the running values in registers: 2.6x faster than sweeping the rows
group by group, which loads and stores every row's sums once per group."""

from __future__ import annotations

import numpy as np

from geco.search.kernels.common import jit

__all__ = ["row_tables", "tight_sums"]


@jit
def _row_tables(codes, status, additive, linf):
    G, N = codes.shape
    out_status = np.empty(N, dtype=np.uint8)
    total = np.empty(N)
    top = np.empty(N)
    for i in range(N):  # row by row, its groups in order: the reference's sum, held in registers
        s = np.uint8(0)
        t = 0.0
        m = 0.0
        for g in range(G):
            c = codes[g, i]
            s |= status[c]
            t += additive[c]
            v = linf[c]
            if v > m or v != v:  # np.maximum: NaN wins
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
    linear = np.empty(m)
    squares = np.empty(m)
    top = np.empty(m)
    for k in range(m):  # row by row, its groups in order: the reference's sums
        i = idx[k]
        a = 0.0
        b = 0.0
        t = 0.0
        for g in range(G):
            if skip[g]:
                continue
            c = codes[g, i]
            a += linear_terms[c]
            b += square_terms[c]
            v = top_terms[c]
            if v > t or v != v:  # np.maximum: NaN wins
                t = v
        linear[k] = a
        squares[k] = b
        top[k] = t
    return linear, squares, top


def tight_sums(codes: np.ndarray, idx: np.ndarray, skip: np.ndarray, terms: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """For desired rows ``idx``: the sums of their groups' first two ``terms`` and the largest of
    the third, leaving out the groups ``skip`` marks (what
    :meth:`geco.problem.seed_index.Projection.tight_bounds` sums group by group)."""
    return _tight_sums(np.ascontiguousarray(codes), np.asarray(idx, dtype=np.intp), skip, *terms)
