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

__all__ = ["pick_distinct"]


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
    changed = rows != x
    alive = np.ones(n, dtype=bool)
    chosen = [0]
    alive[0] = False
    while len(chosen) < k:
        s = chosen[-1]
        feats = np.flatnonzero(changed[s])
        covers = np.all(changed[:, feats], axis=1)
        diff = np.abs(rows[:, feats] - rows[s, feats]) / ranges[feats]
        cat = categorical[feats]
        if cat.any():
            diff[:, cat] = (rows[:, feats[cat]] != rows[s, feats[cat]]).astype(np.float64)
        # on each of the pick's features: within the gap, or the same change carried farther
        # (same side of x, at least as far)
        toward = rows[:, feats] - x[feats]
        mine = rows[s, feats] - x[feats]
        farther = (np.sign(toward) == np.sign(mine)) & (np.abs(toward) >= np.abs(mine)) & ~cat
        near = np.all((diff < gap) | farther, axis=1)
        alive &= ~(covers & near)
        left = np.flatnonzero(alive)
        if len(left) == 0:
            break
        chosen.append(int(left[0]))
        alive[left[0]] = False
    return np.asarray(chosen, dtype=np.intp)
