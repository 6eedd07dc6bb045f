"""Frequency-weighted sampling helpers shared by the search.

GeCo samples a group's new values in proportion to how often they occur in the data, so that
counterfactuals stay plausible. The operators draw for many groups at once through
:mod:`geco.search.stacked` (weighted draws without replacement by exponential keys ``E / w``, or, for
tables much longer than the sample, by draws with replacement skipping repeats: successive
weighted sampling, the same law); what they share lives here: the threshold between the two, the
first-``m``-distinct mask, and plain draws with replacement from one table (the action cascade's
repairs).
"""

from __future__ import annotations

import numpy as np

__all__ = ["SPARSE_RATIO", "first_distinct", "sample_with_replacement"]

#: tables with at least this many values per wanted sample use repeated draws (see above)
SPARSE_RATIO = 4


def first_distinct(draws: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``draws``: a mask of the first ``m`` distinct values (in draw order) and
    whether the row holds ``m`` of them."""
    order = np.argsort(draws, axis=1, kind="stable")
    flat = (order + (np.arange(len(draws)) * draws.shape[1])[:, None]).reshape(-1)
    s = draws.reshape(-1)[flat].reshape(draws.shape)
    new_sorted = np.ones(s.shape, dtype=bool)
    new_sorted[:, 1:] = s[:, 1:] != s[:, :-1]
    first = np.empty(draws.size, dtype=bool)
    first[flat] = new_sorted.reshape(-1)
    first = first.reshape(draws.shape)
    take = first & (np.cumsum(first, axis=1) <= m)
    return take, take.sum(axis=1) == m


def sample_with_replacement(rng: np.random.Generator, cumulative: np.ndarray, n: int) -> np.ndarray:
    """``n`` weighted draws with replacement."""
    if n == 0:
        return np.empty(0, dtype=np.intp)
    u = rng.random(n) * cumulative[-1]
    return np.minimum(np.searchsorted(cumulative, u, side="right"), len(cumulative) - 1)
