"""Picking k counterfactuals that are distinct options, not one answer k times.

Candidates come best first. The best is always picked. A later candidate is skipped when it
*repeats* an earlier pick: it changes every feature the pick changes (the same features, or those
and more), and on each of them its value is within ``gap`` of the pick's (a fraction of the
feature's range; a categorical value counts as 1 when it differs) or carries the pick's change
farther (same side of ``x``, at least as far). So "debt 38,508 -> 636" makes "-> 625", "-> 500"
and "-> 636, plus one more working hour" redundant, while "-> 12,000 and income +10 %" stays.
``gap = 0`` is the paper's plain top k.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pick_distinct", "repeats"]


def pick_distinct(
    rows: np.ndarray,
    x: np.ndarray,
    k: int,
    gap: float,
    ranges: np.ndarray,
    categorical: np.ndarray,
) -> np.ndarray:
    """Indices (into ``rows``, which are sorted best first) of up to ``k`` distinct options,
    best first."""
    n = len(rows)
    if gap <= 0 or n <= 1:
        return np.arange(min(k, n))
    alive = np.ones(n, dtype=bool)
    chosen = [0]
    alive[0] = False
    while len(chosen) < k:
        alive &= ~repeats(rows, rows[chosen[-1]], x, gap, ranges, categorical)
        left = np.flatnonzero(alive)
        if len(left) == 0:
            break
        chosen.append(int(left[0]))
        alive[left[0]] = False
    return np.asarray(chosen, dtype=np.intp)


def repeats(rows: np.ndarray, pick: np.ndarray, x: np.ndarray, gap: float, ranges: np.ndarray,
            categorical: np.ndarray) -> np.ndarray:  # fmt: skip
    """Per row of ``rows``: whether it repeats the option ``pick`` (one row, or one per row of
    ``rows``), as the module docstring says: it changes every feature its pick changes and on
    each of them lies within ``gap`` of the pick's value or carries the pick's change farther.
    Read on the columns some pick changes only."""
    cols = np.flatnonzero(np.any(np.atleast_2d(pick) != x, axis=0))
    x, cat = x[cols], categorical[cols]
    rows, pick = rows[:, cols], np.broadcast_to(pick[..., cols], (len(rows), len(cols)))
    toward, mine = rows - x, pick - x
    diff = np.abs(rows - pick) / ranges[cols]
    if cat.any():
        diff[:, cat] = (rows[:, cat] != pick[:, cat]).astype(np.float64)
    # on each of its pick's features: changed, and within the gap or the same change carried
    # farther (same side of x, at least as far)
    farther = (np.sign(toward) == np.sign(mine)) & (np.abs(toward) >= np.abs(mine)) & ~cat
    return np.all((mine == 0) | ((toward != 0) & ((diff < gap) | farther)), axis=1)
