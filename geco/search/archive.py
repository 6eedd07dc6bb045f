"""The archive: the best counterfactual of every Δ a search has seen.

The population keeps only the ``q`` best rows, so variants of one change can crowd out every
other kind of change; the archive remembers each Δ's best counterfactual for good. The search
picks its distinct options from it (:meth:`Archive.options`), puts options the population lost
back into it (:meth:`Archive.pool`) and returns it along with the final population.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from geco.search.population import Pool, key_words, words_keys
from geco.search.ranking import nearest
from geco.search.row_cells import RowCells

__all__ = ["Archive"]

_FIELDS = ("words", "hashes", "prob", "dist", "score")


class Archive:
    """The best counterfactual of every Δ seen, in the order the Δ were first archived: rows,
    changed groups (as key words: :meth:`changed_of`), row hashes, probability, distance and
    score in growing arrays (one slot per Δ; the first ``len(archive)`` are filled). Given ``x`` and each
    column's group (rows of the Δ-representation, ``x`` outside their changed groups), a row is
    kept as its changed groups' cells (:class:`geco.search.row_cells.RowCells`) and read back
    whole by :meth:`rows_of`; otherwise whole. A Δ's key is its words'
    (:func:`geco.search.population.words_keys`); ``keys`` lists them by slot, ``slot`` maps
    them to slots. ``kernels``: :mod:`geco.search.kernels` to find the slots with (an index of
    the key words, no Python step per Δ) and to pick the options with (the same slots and picks),
    or None."""

    def __init__(self, d: int, g: int, kernels: Any = None, x: np.ndarray | None = None,
                 group_of_feature: np.ndarray | None = None):  # fmt: skip
        self.kernels = kernels
        self._slot: dict[Hashable, int] = {}  # the numpy reference's look-up
        self.n = 0
        #: the rows, as their changed groups' cells where ``x`` is given (:mod:`geco.search.row_cells`)
        self.row_cells = RowCells(d, g, x, group_of_feature)
        self.g = g
        #: the changed groups, as key words only (:meth:`changed_of`: a byte per group and Δ
        #: would take more than the cells of a Δ of a few groups)
        self.words = key_words(np.zeros((16, g), dtype=bool))
        self.hashes = np.zeros(16, dtype=np.uint64)
        self.prob, self.dist, self.score = np.empty(16), np.empty(16), np.empty(16)
        self._index = np.full(64, -1, dtype=np.intp)  # the kernels' index of the key words

    def __len__(self) -> int:
        return self.n

    @property
    def keys(self) -> list[Hashable]:
        """The archived Δ's keys, by slot."""
        return words_keys(self.words[: self.n])

    @property
    def slot(self) -> dict[Hashable, int]:
        """Δ key -> slot."""
        return dict(zip(self.keys, range(self.n))) if self.kernels is not None else self._slot

    def keys_of(self, slots: np.ndarray) -> list[Hashable]:
        """The keys of the Δ in ``slots``."""
        return words_keys(self.words[slots])

    def offer(self, rows: np.ndarray, changed: np.ndarray, hashes: np.ndarray, prob: np.ndarray, dist: np.ndarray,
              score: np.ndarray, words: np.ndarray | None = None) -> None:  # fmt: skip
        """Keep each row (of distinct Δ) that is its Δ's first or beats its best; ``words``: the
        rows' key words when the caller has them (else made from ``changed``)."""
        words = key_words(changed) if words is None else words
        self._room(len(words))
        n0 = self.n
        if self.kernels is not None:
            slots, self.n = self.kernels.archive_slots(self._index, self.words, n0, words)
        else:
            keys = words_keys(words)
            get = self._slot.get
            slots = np.fromiter((get(key, -1) for key in keys), dtype=np.intp, count=len(keys))
            fresh = np.flatnonzero(slots < 0)
            slots[fresh] = np.arange(n0, n0 + len(fresh))
            self._slot.update(zip([keys[i] for i in fresh.tolist()], range(n0, n0 + len(fresh))))
            self.n = n0 + len(fresh)
        fresh = np.flatnonzero(slots >= n0)
        old = np.flatnonzero(slots < n0)
        better = old[score[old] < self.score[slots[old]]]
        take = np.concatenate([fresh, better])
        at = slots[take]
        self.row_cells.write(at, rows[take], changed[take], at >= n0)
        self.words[at] = words[take]
        self.hashes[at] = hashes[take]
        self.prob[at], self.dist[at], self.score[at] = prob[take], dist[take], score[take]

    def offer_best(self, pool: Pool, starts: np.ndarray, ok: np.ndarray) -> None:
        """:meth:`offer` each Δ's best counterfactual: per block of ``pool`` (Δ starting at
        ``starts``), its lowest finite score among the ``ok`` rows (ties: the first)."""
        if self.kernels is None:
            cf_score = np.where(ok, pool.score, np.inf)
            sizes = np.diff(np.append(starts, len(pool)))
            first = np.lexsort((cf_score, np.repeat(np.arange(len(starts)), sizes)))[starts]
            best = first[np.isfinite(cf_score[first])]
            self.offer(pool.rows[best], pool.changed[best], pool.hashes[best], pool.prob[best], pool.dist[best],
                       pool.score[best], pool.words[best])  # fmt: skip
            return
        self._room(len(starts))  # one new Δ per block at most
        fields = (pool.rows, pool.changed, pool.words, pool.hashes, pool.prob, pool.dist, pool.score)
        self.n = self.kernels.offer_blocks(self._index, tuple(getattr(self, f) for f in _FIELDS), self.row_cells,
                                           self.n, starts, fields, ok)  # fmt: skip

    def _room(self, more: int) -> None:
        """Room for ``more`` new Δ: the arrays grown (at least doubled) when short, and the
        kernels' index of the key words rebuilt to at least twice the slots it may hold (the
        cells grow as they are written)."""
        n = self.n + more
        if n > len(self.score):
            self._grow(max(n, 2 * len(self.score)))
        self.row_cells.room(n, 0)
        if self.kernels is not None and 2 * n > len(self._index):
            size = len(self._index)
            while size < 2 * n:
                size *= 2
            self._index = self.kernels.index_words(size, self.words, self.n)

    def _grow(self, size: int) -> None:
        for name in _FIELDS:
            a = getattr(self, name)
            b = np.zeros((size, *a.shape[1:]), dtype=a.dtype)
            b[: self.n] = a[: self.n]
            setattr(self, name, b)

    @property
    def nbytes(self) -> int:
        """Bytes the archived Δ take: their cells, and per slot its cells' offset and the other
        fields (not the room to grow, nor the kernels' index: those depend on which search ran)."""
        per_slot = self.row_cells.offsets.itemsize + sum(getattr(self, name)[:1].nbytes for name in _FIELDS)
        return self.row_cells.values.itemsize * self.row_cells.top + self.n * per_slot

    def rows_of(self, slots: np.ndarray) -> np.ndarray:
        """The full rows of ``slots``."""
        slots = np.asarray(slots, dtype=np.intp)
        if self.kernels is not None:
            return self.kernels.read_cells(self.row_cells, self.words, slots)
        return self.row_cells.read(slots, self.changed_of(slots))

    def changed_of(self, slots: np.ndarray) -> np.ndarray:
        """The changed groups of ``slots``: (n, g) bool, from their key words."""
        words = np.ascontiguousarray(self.words[slots], dtype="<u8")  # as key_words packed them: little-endian
        bits = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")
        return bits[:, : self.g].astype(bool)

    def pool(self, slots: np.ndarray | None = None) -> Pool:
        """The archived rows of ``slots`` (default: all) as established population rows, in
        slot order (not key order)."""
        slots = np.arange(self.n) if slots is None else np.asarray(slots, dtype=np.intp)
        words, hashes, prob, dist, score = (getattr(self, name)[slots] for name in _FIELDS)
        return Pool(self.rows_of(slots), self.changed_of(slots), words, hashes, prob, dist, score, np.ones(len(slots), dtype=bool))

    def options(self, count: int) -> tuple[np.ndarray, list[Hashable]]:
        """:meth:`option_slots` with the options' Δ keys instead of their slots."""
        out, slots = self.option_slots(count)
        return out, self.keys_of(slots)

    def option_slots(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The best ``count`` archived counterfactuals whose changed groups do not include those
        of a better one (distinct kinds of change): their scores (padded with inf) and slots.
        Greedy in score order (ties: archive order) over the best archived Δ only, widened when
        they run out: the picks are among the best, and the archive grows to thousands of Δ."""
        out = np.full(count, np.inf)
        if not self.n:
            return out, np.zeros(0, dtype=np.intp)
        scores = self.score[: self.n]
        width = 8 * count
        by_score = nearest(scores, width)  # the first chunk; the whole order only when needed
        if self.kernels is not None:  # one greedy pass, widened to every Δ when the chunk falls short
            picks = self.kernels.distinct_options(by_score, self.words, count)
            if len(picks) < count and len(by_score) < self.n:  # the same greedy over every Δ, unsorted
                picks = self.kernels.greedy_options(scores, self.words[: self.n], count)
            out[: len(picks)] = scores[picks]
            return out, np.asarray(picks, dtype=np.intp)
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
        out[: len(picks)] = scores[picks]
        return out, np.asarray(picks, dtype=np.intp)
