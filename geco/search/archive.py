"""The archive: the best counterfactual of every Δ a search has seen.

The population keeps only the ``q`` best rows, so variants of one change can crowd out every
other kind of change; the archive remembers each Δ's best counterfactual for good. The search
picks its distinct options from it (:meth:`Archive.options`), puts options the population lost
back into it (:meth:`Archive.pool`) and returns it along with the final population.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from geco.search.population import Pool, key_words
from geco.search.ranking import nearest

__all__ = ["Archive"]

_FIELDS = ("rows", "changed", "words", "hashes", "prob", "dist", "score")


class Archive:
    """The best counterfactual of every Δ seen, in the order the Δ were first archived: rows,
    changed groups (also as key words), row hashes, probability, distance and score in growing
    arrays (one slot per Δ; the first ``len(archive)`` are filled). ``slot`` maps a Δ key to its
    slot, ``keys`` lists the keys by slot. ``kernels``: :mod:`geco.search.kernels` to pick the
    options with (the same picks), or None."""

    def __init__(self, d: int, g: int, kernels: Any = None):
        self.kernels = kernels
        self.slot: dict[Hashable, int] = {}
        self.keys: list[Hashable] = []
        self.n = 0
        self.rows, self.changed = np.empty((16, d)), np.zeros((16, g), dtype=bool)
        self.words = key_words(self.changed)
        self.hashes = np.zeros(16, dtype=np.uint64)
        self.prob, self.dist, self.score = np.empty(16), np.empty(16), np.empty(16)

    def __len__(self) -> int:
        return self.n

    def offer(self, keys: Sequence[Hashable], rows: np.ndarray, changed: np.ndarray, hashes: np.ndarray,
              prob: np.ndarray, dist: np.ndarray, score: np.ndarray, words: np.ndarray | None = None) -> None:  # fmt: skip
        """Keep each row (of distinct Δ ``keys``) that is its Δ's first or beats its best;
        ``words``: the rows' key words when the caller has them (else made from ``changed``)."""
        get = self.slot.get
        slots = np.fromiter((get(key, -1) for key in keys), dtype=np.intp, count=len(keys))
        old = np.flatnonzero(slots >= 0)
        better = old[score[old] < self.score[slots[old]]]
        fresh = np.flatnonzero(slots < 0)
        if len(fresh):
            n = self.n + len(fresh)
            if n > len(self.score):
                self._grow(max(n, 2 * len(self.score)))
            slots[fresh] = np.arange(self.n, n)
            added = [keys[i] for i in fresh.tolist()]
            self.slot.update(zip(added, range(self.n, n)))
            self.keys.extend(added)
            self.n = n
        take = np.concatenate([fresh, better])
        at = slots[take]
        self.rows[at], self.changed[at] = rows[take], changed[take]
        self.words[at] = key_words(changed[take]) if words is None else words[take]
        self.hashes[at] = hashes[take]
        self.prob[at], self.dist[at], self.score[at] = prob[take], dist[take], score[take]

    def _grow(self, size: int) -> None:
        for name in _FIELDS:
            a = getattr(self, name)
            b = np.zeros((size, *a.shape[1:]), dtype=a.dtype)
            b[: self.n] = a[: self.n]
            setattr(self, name, b)

    def pool(self, slots: np.ndarray | None = None) -> Pool:
        """The archived rows of ``slots`` (default: all, as views) as established population
        rows, in slot order (not key order)."""
        if slots is None:
            slots = slice(0, self.n)
        rows, changed, words, hashes, prob, dist, score = (getattr(self, name)[slots] for name in _FIELDS)
        return Pool(rows, changed, words, hashes, prob, dist, score, np.ones(len(rows), dtype=bool))

    def options(self, count: int) -> tuple[np.ndarray, list[Hashable]]:
        """The best ``count`` archived counterfactuals whose changed groups do not include those
        of a better one (distinct kinds of change): their scores (padded with inf) and Δ keys.
        Greedy in score order (ties: archive order) over the best archived Δ only, widened when
        they run out: the picks are among the best, and the archive grows to thousands of Δ."""
        out, keys = np.full(count, np.inf), []
        if not self.n:
            return out, keys
        scores = self.score[: self.n]
        width = 8 * count
        by_score = nearest(scores, width)  # the first chunk; the whole order only when needed
        if self.kernels is not None:  # one greedy pass, widened to every Δ when the chunk falls short
            picks = self.kernels.distinct_options(by_score, self.words, count)
            if len(picks) < count and len(by_score) < self.n:
                picks = self.kernels.distinct_options(np.argsort(scores, kind="stable"), self.words, count)
            out[: len(picks)] = scores[picks]
            return out, [self.keys[j] for j in picks.tolist()]
        picks: list[int] = []
        start = 0
        while len(picks) < count and start < self.n:
            if len(by_score) < min(start + width, self.n):
                by_score = np.argsort(scores, kind="stable")
            cand = by_score[start : start + width]
            start, width = start + width, 4 * width
            words = self.words[cand]  # changed groups as bit words: w ⊇ p iff w & p == p
            alive = np.ones(len(cand), dtype=bool)
            for p in self.words[picks]:  # drop supersets of the picks so far (earlier chunks)
                alive &= ~np.all(words & p == p, axis=1)
            while len(picks) < count:
                left = np.flatnonzero(alive)
                if len(left) == 0:
                    break
                j = left[0]  # candidates are in score order
                picks.append(int(cand[j]))
                alive &= ~np.all(words & words[j] == words[j], axis=1)  # supersets of the pick, and it
        for i, j in enumerate(picks):
            out[i] = scores[j]
            keys.append(self.keys[j])
        return out, keys
