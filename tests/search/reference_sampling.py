"""The per-table weighted samplers the search used before its draws were stacked, kept as the
reference laws the stacked draws (geco.search.stacked) are tested against: without replacement by
exponential keys (Efraimidis-Spirakis), by repeated draws with replacement skipping repeats for
long tables (successive weighted sampling, the same law), and one draw from a prefix."""

from __future__ import annotations

import numpy as np

from geco.search.sampling import SPARSE_RATIO, first_distinct

# Above this many keys per call, draw in chunks of rows to bound memory.
_MAX_KEYS = 4_000_000


def sample_distinct(
    rng: np.random.Generator, weights: np.ndarray, rows: int, m: int,
    cumulative: np.ndarray | None = None,
) -> np.ndarray:
    """``rows`` independent weighted samples of ``min(m, K)`` distinct indices into ``weights``
    (``cumulative``: ``np.cumsum(weights)`` when the caller has it).

    Returns an int array of shape (rows, min(m, K)), each row sorted."""
    k = len(weights)
    m = min(m, k)
    if rows == 0 or m == 0:
        return np.empty((rows, m), dtype=np.intp)
    if m == k:
        # every index is drawn; only the order would be random and it does not matter
        return np.broadcast_to(np.arange(k), (rows, k)).copy()
    if k >= SPARSE_RATIO * m:
        if cumulative is None:
            cumulative = np.cumsum(np.asarray(weights, dtype=np.float64))
        return _distinct_by_repeated_draws(rng, weights, cumulative, rows, m)
    return _distinct_by_keys(rng, weights, rows, m)


def _distinct_by_keys(rng: np.random.Generator, weights: np.ndarray, rows: int, m: int) -> np.ndarray:
    k = len(weights)
    inv_w = 1.0 / np.asarray(weights, dtype=np.float64)
    chunk = max(1, _MAX_KEYS // k)
    out = np.empty((rows, m), dtype=np.intp)
    for start in range(0, rows, chunk):
        stop = min(rows, start + chunk)
        keys = rng.standard_exponential((stop - start, k)) * inv_w
        part = np.argpartition(keys, m - 1, axis=1)[:, :m]
        out[start:stop] = np.sort(part, axis=1)
    return out


def _distinct_by_repeated_draws(
    rng: np.random.Generator, weights: np.ndarray, cumulative: np.ndarray, rows: int, m: int
) -> np.ndarray:
    """Weighted draws with replacement until each row holds ``m`` distinct values (successive
    sampling); rows still short after a few rounds (a table dominated by a few values) fall back
    to exponential keys."""
    total = cumulative[-1]
    last = len(cumulative) - 1
    out = np.empty((rows, m), dtype=np.intp)
    pending = np.arange(rows)
    draws = np.empty((rows, 0), dtype=np.intp)
    for _ in range(4):
        u = rng.random((len(pending), 2 * m)) * total
        more = np.minimum(np.searchsorted(cumulative, u, side="right"), last)
        draws = np.concatenate([draws, more], axis=1)
        take, done = first_distinct(draws, m)
        out[pending[done]] = np.sort(draws[done][take[done]].reshape(-1, m), axis=1)
        pending, draws = pending[~done], draws[~done]
        if len(pending) == 0:
            return out
    out[pending] = _distinct_by_keys(rng, weights, len(pending), m)
    return out


def sample_distinct_from_prefix(
    rng: np.random.Generator, weights: np.ndarray, limit: np.ndarray, m: int,
    cumulative: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per row, up to ``m`` distinct weighted draws from indices ``[0, limit[row])``
    (``cumulative``: ``np.cumsum(weights)`` when the caller has it).

    Returns ``(index, valid)``, both (rows, min(m, K)); ``valid`` is False where a row's prefix
    held fewer than ``m`` indices."""
    limit = np.asarray(limit, dtype=np.intp)
    k = len(weights)
    m = min(m, k)
    rows = len(limit)
    if rows == 0 or m == 0:
        return np.empty((rows, m), dtype=np.intp), np.zeros((rows, m), dtype=bool)
    mm = min(m, int(limit.max()))
    index = np.zeros((rows, mm), dtype=np.intp)
    valid = np.zeros((rows, mm), dtype=bool)
    long = limit >= SPARSE_RATIO * m
    if long.any():  # repeated draws from each row's prefix (see sample_distinct)
        if cumulative is None:
            cumulative = np.cumsum(np.asarray(weights, dtype=np.float64))
        index[long], valid[long] = _prefix_by_repeated_draws(rng, weights, cumulative, limit[long], mm), True
    short = np.flatnonzero(~long)
    if len(short):
        lim = limit[short]
        kmax = int(lim.max())
        inv_w = 1.0 / np.asarray(weights[:kmax], dtype=np.float64)
        keys = rng.standard_exponential((len(short), kmax)) * inv_w
        keys[np.arange(kmax)[None, :] >= lim[:, None]] = np.inf
        ms = min(mm, kmax)
        part = np.argpartition(keys, ms - 1, axis=1)[:, :ms] if ms < kmax else np.broadcast_to(
            np.arange(kmax), (len(short), kmax)
        ).copy()
        part = np.sort(part, axis=1)
        index[short, :ms] = part
        valid[short, :ms] = part < lim[:, None]
    return index, valid


def _prefix_by_repeated_draws(
    rng: np.random.Generator, weights: np.ndarray, cumulative: np.ndarray, limit: np.ndarray, m: int
) -> np.ndarray:
    out = np.empty((len(limit), m), dtype=np.intp)
    pending = np.arange(len(limit))
    draws = np.empty((len(limit), 0), dtype=np.intp)
    for _ in range(4):
        lim = limit[pending]
        u = rng.random((len(pending), 2 * m)) * cumulative[lim - 1][:, None]
        more = np.minimum(np.searchsorted(cumulative, u, side="right"), lim[:, None] - 1)
        draws = np.concatenate([draws, more], axis=1)
        take, done = first_distinct(draws, m)
        out[pending[done]] = np.sort(draws[done][take[done]].reshape(-1, m), axis=1)
        pending, draws = pending[~done], draws[~done]
        if len(pending) == 0:
            return out
    lim = limit[pending]
    keys = rng.standard_exponential((len(pending), int(lim.max()))) / weights[: int(lim.max())]
    keys[np.arange(keys.shape[1])[None, :] >= lim[:, None]] = np.inf
    out[pending] = np.sort(np.argpartition(keys, m - 1, axis=1)[:, :m], axis=1)
    return out


def sample_from_prefix(
    rng: np.random.Generator, cumulative: np.ndarray, limit: np.ndarray
) -> np.ndarray:
    """One weighted draw per row from indices ``[0, limit[row])`` (``limit >= 1``)."""
    limit = np.asarray(limit, dtype=np.intp)
    total = cumulative[limit - 1]
    u = rng.random(len(limit)) * total
    idx = np.searchsorted(cumulative, u, side="right")
    return np.minimum(idx, limit - 1)
