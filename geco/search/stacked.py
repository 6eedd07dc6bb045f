"""Every group's feasible space stacked into flat arrays, so that one vectorised call draws or
sets values for many (candidate, group) pairs at once.

On a wide table a generation mutates about a hundred groups; a handful of numpy calls per group
and operator cost more than the draws themselves. Stacked, the groups' cumulative weights form
one increasing array (each group's shifted by the total weight of the groups before it), so a
weighted draw for any group is one ``searchsorted`` into it, clamped to the group's slice; the
same holds for a prefix of a group's values (sorted by distance to ``x``), which selective
mutation samples from. The laws are those of one table sampled alone: weighted, and distinct by
successive sampling (repeated draws skipping repeats) or exponential keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geco.problem.feasible_space import GroupSpace
from geco.search.population import positions_within
from geco.search.sampling import SPARSE_RATIO, first_distinct

__all__ = ["StackedSpaces"]

#: repeated-draw rounds before the rows still short of m distinct values use exponential keys
_ROUNDS = 4


@dataclass(frozen=True)
class StackedSpaces:
    """The feasible spaces of all groups of one instance in flat arrays (group ``g``'s values
    at ``start[g] : start[g] + size[g]``, in its distance order)."""

    start: np.ndarray  # (G,) first flat index of each group's values
    size: np.ndarray  # (G,) number of feasible values
    cumulative: np.ndarray  # flat cumulative weights, group g's shifted by base[g]: increasing
    base: np.ndarray  # (G,) total weight of the groups before g
    weights: np.ndarray  # flat weights
    rank_key: np.ndarray  # flat g * len(ranks) + rank of the value's distance: increasing
    ranks: np.ndarray  # every distinct distance of any group's values, ascending
    n_features: np.ndarray  # (G,) features per group
    feature_start: np.ndarray  # (G,) into features
    features: np.ndarray  # flat: each group's feature indices
    value_start: np.ndarray  # (G,) into values
    values: np.ndarray  # flat: each group's (size, n_features) table, row-major

    @staticmethod
    def of(spaces: Sequence[GroupSpace]) -> StackedSpaces:
        size = np.array([len(s) for s in spaces], dtype=np.intp)
        start = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.intp)
        weights = np.concatenate([np.asarray(s.weights, dtype=np.float64) for s in spaces])
        totals = np.array([float(s.cumulative[-1]) if len(s) else 0.0 for s in spaces])
        base = np.concatenate([[0.0], np.cumsum(totals)[:-1]])
        cumulative = np.concatenate(
            [np.asarray(s.cumulative, dtype=np.float64) + b for s, b in zip(spaces, base)]
        )
        distance = np.concatenate([np.asarray(s.distance, dtype=np.float64) for s in spaces])
        ranks, rank = StackedSpaces.ranks_of(distance)
        owner = np.repeat(np.arange(len(spaces)), size)
        rank_key = owner * len(ranks) + rank
        n_features = np.array([len(s.features) for s in spaces], dtype=np.intp)
        feature_start = np.concatenate([[0], np.cumsum(n_features)[:-1]]).astype(np.intp)
        value_start = np.concatenate([[0], np.cumsum(size * n_features)[:-1]]).astype(np.intp)
        return StackedSpaces(
            start, size, cumulative, base, weights, rank_key, ranks, n_features, feature_start,
            np.concatenate([np.asarray(s.features, dtype=np.intp) for s in spaces]), value_start,
            np.concatenate([np.asarray(s.values, dtype=np.float64).reshape(-1) for s in spaces]),
        )  # fmt: skip

    @staticmethod
    def ranks_of(distance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``np.unique(distance)`` and each distance's place in it (``np.searchsorted``), from one
        stable sort: each group's distances are ascending already, runs the sort merges."""
        if len(distance) == 0 or np.isnan(distance).any():  # NaN: np.unique's own rule for it
            ranks = np.unique(distance)
            return ranks, np.searchsorted(ranks, distance)
        order = np.argsort(distance, kind="stable")
        ordered = distance[order]
        new = np.empty(len(ordered), dtype=bool)
        new[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
        rank = np.empty(len(ordered), dtype=np.intp)
        rank[order] = np.cumsum(new) - 1
        return ordered[new], rank

    # ------------------------------------------------------------------ lookups
    def closer(self, group: np.ndarray, distance: np.ndarray) -> np.ndarray:
        """Per pair: how many of ``group``'s values are strictly closer to ``x`` than
        ``distance`` (the length of the prefix selective mutation samples from). Exact: the
        distances are compared through their ranks among all the groups' distances."""
        return self._count_below(group, distance, "left")

    def not_farther(self, group: np.ndarray, distance: np.ndarray) -> np.ndarray:
        """Per pair: how many of ``group``'s values are at most ``distance`` from ``x``."""
        return self._count_below(group, distance, "right")

    def _count_below(self, group: np.ndarray, distance: np.ndarray, side: str) -> np.ndarray:
        """Values of each pair's group whose distance rank is below ``distance``'s insertion
        point among all distances (``side`` as in ``searchsorted``)."""
        key = group * len(self.ranks) + np.searchsorted(self.ranks, distance, side=side)
        return np.searchsorted(self.rank_key, key, side="left") - self.start[group]

    def cells(self, group: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every feature of every pair's group: the pair, the column and the feature's place in
        the group (one entry per feature, pairs in order)."""
        f = self.n_features[group]
        pair = np.repeat(np.arange(len(group)), f)
        place = positions_within(f)
        return pair, self.features[self.feature_start[group][pair] + place], place

    def assign(self, rows: np.ndarray, who: np.ndarray, group: np.ndarray, index: np.ndarray) -> None:
        """In place: row ``who[i]`` takes value ``index[i]`` of ``group[i]`` (all its features)."""
        pair, cols, place = self.cells(group)
        g = group[pair]
        rows[who[pair], cols] = self.values[self.value_start[g] + index[pair] * self.n_features[g] + place]

    def reset(self, rows: np.ndarray, who: np.ndarray, group: np.ndarray, x: np.ndarray) -> None:
        """In place: row ``who[i]`` takes ``x``'s values on ``group[i]``."""
        pair, cols, _ = self.cells(group)
        rows[who[pair], cols] = x[cols]

    # ------------------------------------------------------------------ draws
    def draw(self, rng: np.random.Generator, group: np.ndarray, limit: np.ndarray | None = None) -> np.ndarray:
        """One weighted draw per pair among ``group``'s first ``limit`` values (all of them
        when ``limit`` is None; at least one)."""
        group = np.asarray(group, dtype=np.intp)
        if len(group) == 0:
            return np.empty(0, dtype=np.intp)
        lim = self.size[group] if limit is None else np.asarray(limit, dtype=np.intp)
        return self._draws(group, lim, rng.random(len(group)))

    def _draws(self, group: np.ndarray, lim: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Inverse-CDF draws (``u`` uniform in [0, 1), shape (n,) or (n, k)) into each pair's
        prefix, as local indices."""
        lo = self.base[group]
        hi = self.cumulative[self.start[group] + lim - 1]
        if u.ndim == 2:
            lo, hi, lim, first = lo[:, None], hi[:, None], lim[:, None], self.start[group][:, None]
        else:
            first = self.start[group]
        flat = np.searchsorted(self.cumulative, lo + u * (hi - lo), side="right")
        return np.clip(flat - first, 0, lim - 1)

    def draw_distinct(
        self, rng: np.random.Generator, group: np.ndarray, m: int, limit: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per pair, ``min(m, L)`` distinct weighted draws among ``group``'s first ``L`` values
        (``L = limit``, or the group's size when None). Returns ``(index, valid)``, both
        (pairs, m'), each row's valid indices sorted; ``m'`` is the most any pair gets.
        :func:`geco.search.kernels.distinct_children` draws exactly so, in one compiled pass."""
        group = np.asarray(group, dtype=np.intp)
        lim = self.size[group] if limit is None else np.asarray(limit, dtype=np.intp)
        n = len(group)
        width = int(min(m, lim.max())) if n else 0
        index = np.zeros((n, width), dtype=np.intp)
        valid = np.zeros((n, width), dtype=bool)
        if n == 0 or width == 0:
            return index, valid
        every = lim <= m  # the whole prefix: nothing to draw
        if every.any():
            cols = np.arange(width)
            index[every] = cols
            valid[every] = cols[None, :] < lim[every, None]
        long = ~every & (lim >= SPARSE_RATIO * m)
        pending = np.flatnonzero(long)
        draws = np.empty((len(pending), 0), dtype=np.intp)
        for _ in range(_ROUNDS):
            if len(pending) == 0:
                break
            more = self._draws(group[pending], lim[pending], rng.random((len(pending), 2 * m)))
            draws = np.concatenate([draws, more], axis=1)
            take, done = first_distinct(draws, m)
            index[pending[done]] = np.sort(draws[done][take[done]].reshape(-1, m), axis=1)
            valid[pending[done]] = True
            pending, draws = pending[~done], draws[~done]
        # exponential keys: the short prefixes together (each row as wide as the longest of
        # them, under SPARSE_RATIO * m), then the long rows whose repeated draws fell short (a
        # value dominating the group) one group at a time, so no short row pays their width
        short = np.flatnonzero(~every & ~long)
        for rows in [short] + [pending[group[pending] == g] for g in np.unique(group[pending])]:
            if len(rows):
                index[rows] = self._by_keys(rng, group[rows], lim[rows], m)
                valid[rows] = True
        return index, valid

    def _by_keys(self, rng, group: np.ndarray, lim: np.ndarray, m: int) -> np.ndarray:
        """``m`` distinct weighted draws per pair (``lim > m``) by exponential keys ``E / w``:
        the ``m`` smallest keys of a row are a weighted sample without replacement."""
        width = int(lim.max())
        cols = np.arange(width)
        inside = cols[None, :] < lim[:, None]
        at = np.where(inside, self.start[group][:, None] + cols[None, :], 0)
        keys = rng.standard_exponential((len(group), width)) / self.weights[at]
        keys[~inside] = np.inf
        return np.sort(np.argpartition(keys, m - 1, axis=1)[:, :m], axis=1)
