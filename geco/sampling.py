"""Frequency-weighted sampling, vectorised over many rows at once.

GeCo samples a group's new values in proportion to how often they occur in the data, so that
counterfactuals stay plausible. The search needs thousands of such draws per generation, so no
draw may cost a Python-level loop:

* without replacement: exponential keys ``E / w`` (Efraimidis-Spirakis, equivalent to Gumbel
  top-k); the ``m`` smallest keys of a row are a weighted sample without replacement;
* one draw from a prefix of a table (sorted by distance, for selective mutation): inverse CDF on
  the cumulative weights, with a per-row prefix length.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sample_distinct", "sample_distinct_from_prefix", "sample_from_prefix", "sample_with_replacement"]

# Above this many keys per call, draw in chunks of rows to bound memory.
_MAX_KEYS = 4_000_000


def sample_distinct(rng: np.random.Generator, weights: np.ndarray, rows: int, m: int) -> np.ndarray:
    """``rows`` independent weighted samples of ``min(m, K)`` distinct indices into ``weights``.

    Returns an int array of shape (rows, min(m, K))."""
    k = len(weights)
    m = min(m, k)
    if rows == 0 or m == 0:
        return np.empty((rows, m), dtype=np.intp)
    if m == k:
        # every index is drawn; only the order would be random and it does not matter
        return np.broadcast_to(np.arange(k), (rows, k)).copy()
    inv_w = 1.0 / np.asarray(weights, dtype=np.float64)
    chunk = max(1, _MAX_KEYS // k)
    out = np.empty((rows, m), dtype=np.intp)
    for start in range(0, rows, chunk):
        stop = min(rows, start + chunk)
        keys = rng.standard_exponential((stop - start, k)) * inv_w
        part = np.argpartition(keys, m - 1, axis=1)[:, :m]
        out[start:stop] = np.sort(part, axis=1)
    return out


def sample_distinct_from_prefix(
    rng: np.random.Generator, weights: np.ndarray, limit: np.ndarray, m: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per row, up to ``m`` distinct weighted draws from indices ``[0, limit[row])``.

    Returns ``(index, valid)``, both (rows, min(m, K)); ``valid`` is False where a row's prefix
    held fewer than ``m`` indices."""
    limit = np.asarray(limit, dtype=np.intp)
    k = len(weights)
    m = min(m, k)
    rows = len(limit)
    if rows == 0 or m == 0:
        return np.empty((rows, m), dtype=np.intp), np.zeros((rows, m), dtype=bool)
    kmax = int(limit.max())
    inv_w = 1.0 / np.asarray(weights[:kmax], dtype=np.float64)
    keys = rng.standard_exponential((rows, kmax)) * inv_w
    keys[np.arange(kmax)[None, :] >= limit[:, None]] = np.inf
    mm = min(m, kmax)
    part = np.argpartition(keys, mm - 1, axis=1)[:, :mm] if mm < kmax else np.broadcast_to(
        np.arange(kmax), (rows, kmax)
    ).copy()
    part = np.sort(part, axis=1)
    valid = part < limit[:, None]
    return part, valid


def sample_from_prefix(
    rng: np.random.Generator, cumulative: np.ndarray, limit: np.ndarray
) -> np.ndarray:
    """One weighted draw per row from indices ``[0, limit[row])`` (``limit >= 1``)."""
    limit = np.asarray(limit, dtype=np.intp)
    total = cumulative[limit - 1]
    u = rng.random(len(limit)) * total
    idx = np.searchsorted(cumulative, u, side="right")
    return np.minimum(idx, limit - 1)


def sample_with_replacement(rng: np.random.Generator, cumulative: np.ndarray, n: int) -> np.ndarray:
    """``n`` weighted draws with replacement."""
    if n == 0:
        return np.empty(0, dtype=np.intp)
    u = rng.random(n) * cumulative[-1]
    return np.minimum(np.searchsorted(cumulative, u, side="right"), len(cumulative) - 1)
