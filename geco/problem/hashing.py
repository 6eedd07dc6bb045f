"""64-bit hashes of encoded rows, to de-duplicate candidates and feasible values: sorting 64-bit
integers is several times faster than sorting raw rows."""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["cell_hashes", "row_hashes"]


def row_hashes(rows: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row's exact bit pattern (-0.0 folded into 0.0). Used to deduplicate
    candidates: sorting 64-bit integers is several times faster than sorting raw rows; a collision
    (probability ~n^2 / 2^64) would only drop one candidate, never admit a wrong one."""
    bits = np.ascontiguousarray(rows + 0.0).view(np.uint64)
    h = np.full(len(rows), np.uint64(0x9E3779B97F4A7C15))
    mul = np.uint64(0xBF58476D1CE4E5B9)
    for j in range(bits.shape[1]):
        h ^= bits[:, j]
        h *= mul
        h ^= h >> np.uint64(31)
    return h


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, in place on uint64 ``z``."""
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z


@cache
def _column_salt(size: int) -> np.ndarray:
    """A fixed random-looking 64-bit salt for each column index below ``size`` (read-only)."""
    salt = _mix(np.arange(size, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15))
    salt.flags.writeable = False
    return salt


def cell_hashes(row: np.ndarray, col: np.ndarray, value: np.ndarray, n_rows: int) -> np.ndarray:
    """A 64-bit hash of each of ``n_rows`` rows from the cells where it differs from ``x``
    (``value`` in column ``col`` of row ``row``; ``row`` sorted): the wrapping sum of one mixed
    hash per cell, so a row costs its few changed cells, not a pass over every column. Rows
    without cells hash to 0. Equal rows of the same ``x`` hash equally when their cells cover
    the same columns (the search's cells are the Δ's columns, and equal rows have equal Δ:
    a group is marked changed exactly when its tuple differs from ``x``'s); a collision (probability ~n^2 / 2^64) would only drop one candidate, or give it another's number within
    the search (:mod:`geco.search.scored_rows`), never admit a wrong answer: the model confirms the options."""
    out = np.zeros(n_rows, dtype=np.uint64)
    if len(row) == 0:
        return out
    bits = np.ascontiguousarray(value + 0.0, dtype=np.float64).view(np.uint64)
    h = _mix(bits ^ _column_salt(1 << int(col.max()).bit_length())[col])
    total = np.cumsum(h, dtype=np.uint64)  # wraps modulo 2^64, as wanted
    last = np.flatnonzero(np.r_[row[1:] != row[:-1], True])
    sums = total[last]
    sums[1:] -= total[last[:-1]]
    out[row[last]] = sums
    return out
