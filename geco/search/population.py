"""The Δ-representation: the population grouped by the set of groups each candidate changes.

A candidate is ``x`` with some groups replaced; its Δ is the set of groups it changes (a bitmask,
bit g = group g). The search keeps its population as one :class:`Pool`: flat arrays of full rows
sorted by Δ key, so a Δ's rows are one contiguous slice. Scoring hands each Δ's slice to the
scorer on Δ's own columns (a compiled model specialised to Δ scores it directly); distances run
over all rows at once. ``representation="full"`` scores whole rows instead (for comparison).
The archive of each Δ's best counterfactual, which outgrows the population by far on wide data,
keeps its rows as their Δ's cells only (:mod:`geco.search.row_cells`).

New candidates are produced by the operators as :class:`Candidates` (full rows + a boolean
changed-group matrix).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Candidates", "Pool", "block_starts", "interleave", "key_order", "key_words", "mask_key", "positions_within",
           "words_keys"]


@dataclass
class Candidates:
    """New, unscored candidates: full encoded rows and which groups each one changes."""

    rows: np.ndarray  # (n, d)
    changed: np.ndarray  # (n, G) bool

    def __len__(self) -> int:
        return len(self.rows)

    @staticmethod
    def empty(d: int, g: int) -> Candidates:
        return Candidates(np.empty((0, d)), np.zeros((0, g), dtype=bool))

    @staticmethod
    def concat(parts: list[Candidates], d: int, g: int) -> Candidates:
        parts = [p for p in parts if len(p)]
        if not parts:
            return Candidates.empty(d, g)
        return Candidates(
            np.concatenate([p.rows for p in parts]), np.concatenate([p.changed for p in parts])
        )

    def take(self, keep: np.ndarray) -> Candidates:
        return Candidates(self.rows[keep], self.changed[keep])


def mask_key(groups: np.ndarray) -> int:
    """Bitmask integer of a boolean group vector (bit g set iff group g changed)."""
    packed = np.packbits(np.asarray(groups, dtype=bool), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def key_words(changed: np.ndarray) -> np.ndarray:
    """Each row's changed-group bitmask as 64-bit words, least significant word first:
    (n, ceil(G / 64)) uint64. Rows sort by it (:func:`key_order`) as their bitmask integers do."""
    n, g = changed.shape
    w = max(1, -(-g // 64))
    padded = np.zeros((n, 64 * w), dtype=bool)
    padded[:, :g] = changed
    return np.packbits(padded, axis=1, bitorder="little").view("<u8").astype(np.uint64, copy=False)


def interleave(a: np.ndarray, b: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Rows ``idx`` of ``a``'s rows followed by ``b``'s, in ``idx``'s order, without building the
    concatenation (only the rows taken are copied)."""
    in_a = idx < len(a)
    out = np.empty((len(idx), *a.shape[1:]), dtype=np.result_type(a, b))
    out[in_a], out[~in_a] = a[idx[in_a]], b[idx[~in_a] - len(a)]
    return out


def block_starts(words: np.ndarray) -> np.ndarray:
    """Index of each Δ's first row, for rows sorted by their :func:`key_words`."""
    if len(words) == 0:
        return np.zeros(0, dtype=np.intp)
    new = np.ones(len(words), dtype=bool)
    if words.shape[1] == 1:  # one word: compared as a vector, not row by row
        np.not_equal(words[1:, 0], words[:-1, 0], out=new[1:])
    else:
        new[1:] = (words[1:] != words[:-1]).any(axis=1)
    return np.flatnonzero(new)


def positions_within(sizes: np.ndarray) -> np.ndarray:
    """0, 1, ..., size - 1 for each of consecutive segments of ``sizes``, end to end (each
    segment's entries numbered within it)."""
    sizes = np.asarray(sizes)
    return np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)


def key_order(words: np.ndarray) -> np.ndarray:
    """Stable order of rows by Δ key (the bitmask integer), given :func:`key_words`."""
    if words.shape[1] == 1:
        return np.argsort(words[:, 0], kind="stable")
    return np.lexsort(words.T)  # the last word (most significant) is the primary key


@dataclass
class Pool:
    """Candidates of many Δ in one flat set of arrays, the search's population: full rows sorted
    by Δ key (ascending), each Δ's rows in the order they arrived. No per-Δ objects: on wide
    data a generation meets hundreds of Δ of a few rows each, and per-Δ Python work would
    dominate the search.

    ``rows`` hold ``x`` outside each row's changed groups, except in "full" representation,
    where they are kept as the operators made them."""

    rows: np.ndarray  # (n, d)
    changed: np.ndarray  # (n, G) bool
    words: np.ndarray  # (n, W) uint64: the Δ key (key_words)
    hashes: np.ndarray  # (n,) row_hashes(rows)
    prob: np.ndarray
    dist: np.ndarray
    score: np.ndarray
    established: np.ndarray  # bool: survived the previous selection

    def __len__(self) -> int:
        return len(self.rows)

    @staticmethod
    def empty(d: int, g: int) -> Pool:
        return Pool(
            np.empty((0, d)), np.zeros((0, g), dtype=bool), key_words(np.zeros((0, g), dtype=bool)),
            np.empty(0, dtype=np.uint64), np.empty(0), np.empty(0), np.empty(0), np.zeros(0, dtype=bool),
        )  # fmt: skip

    def take(self, keep: np.ndarray) -> Pool:
        return Pool(
            self.rows[keep], self.changed[keep], self.words[keep], self.hashes[keep], self.prob[keep],
            self.dist[keep], self.score[keep], self.established[keep],
        )  # fmt: skip

    @staticmethod
    def merge_order(a: Pool, b: Pool) -> np.ndarray:
        """Both pools' rows in key order (within a Δ, ``a``'s rows first) as indices into ``a``'s
        rows followed by ``b``'s, without copying any row: a selection keeps about ``q`` of them,
        so only those need copying (:meth:`gather`)."""
        return key_order(np.concatenate([a.words, b.words]))

    @staticmethod
    def gather(a: Pool, b: Pool, idx: np.ndarray) -> Pool:
        """The rows ``idx`` of ``a``'s rows followed by ``b``'s, in that order."""
        return Pool(*(interleave(u, v, idx) for u, v in zip(a.fields(), b.fields())))

    def fields(self) -> tuple[np.ndarray, ...]:
        return (self.rows, self.changed, self.words, self.hashes, self.prob, self.dist, self.score,
                self.established)  # fmt: skip

    def starts(self) -> np.ndarray:
        """Index of each Δ's first row (Δ in key order); computed once per ``words`` array (no
        operation changes a pool's keys in place: each makes a new pool)."""
        of, starts = self.__dict__.get("_starts", (None, None))
        if of is not self.words:
            starts = block_starts(self.words)
            self.__dict__["_starts"] = (self.words, starts)
        return starts

    def block_keys(self, starts: np.ndarray) -> list[int] | list[bytes]:
        """Hashable keys, one per Δ, of the Δ starting at ``starts`` (:func:`words_keys`)."""
        return words_keys(self.words[starts])


def words_keys(words: np.ndarray) -> list[int] | list[bytes]:
    """A hashable key per row of :func:`key_words`: the bitmask integer (as :func:`mask_key`)
    when the groups fit in 64 bits, else the words' bytes (one-to-one with it, and made without
    a Python step per row)."""
    if words.shape[1] == 1:
        return words[:, 0].tolist()
    return np.ascontiguousarray(words).view(np.dtype((np.void, 8 * words.shape[1]))).reshape(-1).tolist()
