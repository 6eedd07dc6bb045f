"""The seeds' passes over the data's desired rows compiled: per row, the OR of its groups'
status bits, the sums of their distance terms and the largest (what
:class:`geco.problem.seed_index.Projection` computes group by group). With few groups each row
is read whole, its groups in order, its sums in registers: 2.6x faster on Credit's 14 groups
than sweeping the rows group by group (which loads and stores every row's sums once per
group), 1.2x slower on the wide table's 114, which keeps the sweep."""

from __future__ import annotations

import numpy as np

from geco.search.kernels.common import inlined, jit

__all__ = ["ROW_BY_ROW_GROUPS", "classify_rows", "projected_rows", "row_tables", "tight_sums"]


#: up to this many groups a row's codes are read together (row by row); past it, group by
#: group (a row's codes lie a row of the index apart, and a hundred such streams miss the cache)
ROW_BY_ROW_GROUPS = 48


@inlined
def _nan_max(m, v):
    """``np.maximum(m, v)`` of two floats: the larger, a NaN winning (the reference's rule)."""
    return v if v > m or v != v else m


@inlined
def _row_sums(codes, i, status, additive, linf):
    """Row ``i``'s OR of its groups' status bits, sum of their additive terms (group order)
    and largest linf (a NaN wins, as np.maximum's)."""
    s = np.uint8(0)
    t = 0.0
    m = 0.0
    for g in range(codes.shape[0]):
        c = codes[g, i]
        s |= status[c]
        t += additive[c]
        m = _nan_max(m, linf[c])
    return s, t, m


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
                top[i] = _nan_max(top[i], linf[c])
        return out_status, total, top
    for i in range(N):  # row by row, its groups in order: the same sums, held in registers
        s, t, m = _row_sums(codes, i, status, additive, linf)
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
    if G > ROW_BY_ROW_GROUPS:  # group by group (a hundred streams a row apart miss the cache)
        for g in range(G):
            if skip[g]:
                continue
            for k in range(m):
                c = codes[g, idx[k]]
                linear[k] += linear_terms[c]
                squares[k] += square_terms[c]
                top[k] = _nan_max(top[k], top_terms[c])
        return linear, squares, top
    for k in range(m):  # row by row, its groups in order: the same sums, held in registers
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
            t = _nan_max(t, top_terms[c])
        linear[k] = a
        squares[k] = b
        top[k] = t
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


@jit
def _classify_rows(codes, status, additive, linf, w3, keep, sides, side_group, first_in, tables, not_as_is, changes):
    G, N = codes.shape
    n_imp = len(side_group) // 2
    sums = np.empty((N, 2))
    proven = np.empty(N, dtype=np.intp)
    moved = np.empty(N, dtype=np.intp)
    first_moved = np.empty(N, dtype=np.intp)
    lower_proven = np.empty(N)
    lower_moved = np.empty(N)
    n_proven = 0
    n_moved = 0
    swept = G > ROW_BY_ROW_GROUPS
    if swept:  # group by group first, as row_tables sweeps many groups
        row_status, row_total, row_top = _row_tables(codes, status, additive, linf)
    for i in range(N):  # row by row, its groups in order: row_tables' sums
        if swept:
            s, t, m = row_status[i], row_total[i], row_top[i]
        else:
            s, t, m = _row_sums(codes, i, status, additive, linf)
        f = -1
        if tables:  # the first implication whose condition holds and consequence does not
            for k in range(n_imp):
                if sides[2 * k, codes[side_group[2 * k], i]] and not sides[2 * k + 1, codes[side_group[2 * k + 1], i]]:
                    f = k
                    break
        else:
            f = first_in[i]
        sums[i, 0] = t
        sums[i, 1] = m
        if (s & not_as_is) == 0 and f < 0:
            proven[n_proven] = i
            lower_proven[n_proven] = (t + w3 * m) * keep
            n_proven += 1
        elif (s & changes) != 0:
            moved[n_moved] = i
            first_moved[n_moved] = f
            lower_moved[n_moved] = (t + w3 * m) * keep
            n_moved += 1
    return (proven[:n_proven], lower_proven[:n_proven], moved[:n_moved], first_moved[:n_moved], lower_moved[:n_moved],
            sums)  # fmt: skip


def classify_rows(codes: np.ndarray, status: np.ndarray, additive: np.ndarray, linf: np.ndarray, w3: float,
                  keep: float, sides: np.ndarray, side_group: np.ndarray, first: np.ndarray | None,
                  not_as_is: int, changes: int) -> tuple[np.ndarray, ...]:  # fmt: skip
    """The seeds' classification of the desired rows in one pass over their codes: the rows
    kept as they are (no ``not_as_is`` bit in any group's ``status``, no implication broken)
    and their lower bounds ``(total + w3 * top) * keep``; the rows moved (some group's status
    has a ``changes`` bit), the first implication each breaks (-1: none) and their lower
    bounds; every row's ``(total, top)`` (:func:`row_tables`' sums). The implications are read
    from ``sides``: per implication its condition's and its consequence's truth per flat tuple
    code (rows 2k and 2k + 1), each of the group ``side_group`` names; ``first`` (the first
    broken rule of every row, computed elsewhere) instead where a rule reads several groups."""
    tables = first is None
    return _classify_rows(
        np.ascontiguousarray(codes), status, additive, linf, float(w3), float(keep),
        np.ascontiguousarray(sides, dtype=np.bool_), np.asarray(side_group, dtype=np.intp),
        np.zeros(0, dtype=np.intp) if first is None else np.asarray(first, dtype=np.intp), tables,
        np.uint8(not_as_is), np.uint8(changes),
    )  # fmt: skip
