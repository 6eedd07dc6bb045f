"""The Δ-representation: a population stored grouped by the set of groups it changes.

A candidate is ``x`` with some groups replaced. GeCo stores each candidate only by what it changes:
the population is a mapping from Δ (a bitmask of changed groups) to a :class:`Block` holding just
Δ's feature columns, plus per-row probability, distance and score. Scoring and distances then run
on narrow columns, and a compiled model specialised to Δ can score the block directly.

``representation="full"`` keeps whole rows in every block instead (same search, for comparison).

New candidates are produced by the operators as :class:`Candidates` (full rows + a boolean
changed-group matrix) and split into blocks by :func:`to_blocks`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Block", "Candidates", "Pool", "group_keys", "key_order", "key_words", "mask_key", "row_hashes", "to_blocks"]


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


@dataclass
class Block:
    """All candidates that change exactly the groups in ``key``, stored on Δ's columns."""

    key: int  # bitmask of changed groups (bit g = group g)
    groups: np.ndarray  # bool (G,): the changed groups
    cols: np.ndarray  # feature indices held (Δ's features, or all features in "full" mode)
    values: np.ndarray  # (n, len(cols))
    prob: np.ndarray
    dist: np.ndarray
    score: np.ndarray
    established: np.ndarray  # bool: survived the previous selection

    def __len__(self) -> int:
        return len(self.values)

    def nbytes(self) -> int:
        return sum(
            a.nbytes for a in (self.values, self.prob, self.dist, self.score, self.established)
        )

    def full_rows(self, x: np.ndarray) -> np.ndarray:
        rows = np.tile(x, (len(self.values), 1))
        rows[:, self.cols] = self.values
        return rows

    def take(self, keep: np.ndarray) -> Block:
        return Block(
            self.key, self.groups, self.cols, self.values[keep], self.prob[keep],
            self.dist[keep], self.score[keep], self.established[keep],
        )  # fmt: skip


def mask_key(groups: np.ndarray) -> int:
    """Bitmask integer of a boolean group vector (bit g set iff group g changed)."""
    packed = np.packbits(np.asarray(groups, dtype=bool), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def group_keys(changed: np.ndarray) -> np.ndarray:
    """One sortable key per row identifying its changed-group set (int64 bitmask when the groups
    fit in 62 bits, else packed bytes)."""
    G = changed.shape[1]
    if G <= 62:
        return changed.astype(np.int64) @ (np.int64(1) << np.arange(G, dtype=np.int64))
    packed = np.packbits(changed, axis=1, bitorder="little")
    return packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)


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


def to_blocks(
    cands: Candidates, group_of_feature: np.ndarray, full: bool = False,
    dist: np.ndarray | None = None,
) -> list[Block]:
    """Split candidates into one block per distinct changed-group set, in ascending key order.
    ``dist`` (one per candidate), when given, is carried into the blocks."""
    if len(cands) == 0:
        return []
    uniq, inverse = np.unique(group_keys(cands.changed), return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(len(uniq) + 1))
    rows = cands.rows[order]  # one gather; every block is then a contiguous slice
    changed = cands.changed[order]
    dist = dist[order] if dist is not None else None
    d = rows.shape[1]
    int_keys = uniq.dtype == np.int64
    starts, stops = bounds[:-1], bounds[1:]
    groups = changed[starts]  # (B, G): each block's changed groups
    if full:
        cols_of = [np.arange(d) for _ in range(len(uniq))]
    else:  # every block's feature indices from one nonzero over the (B, d) feature mask
        owner, col = np.nonzero(groups[:, group_of_feature])
        cols_of = np.split(col, np.searchsorted(owner, np.arange(1, len(uniq))))
    keys = uniq.tolist() if int_keys else [int.from_bytes(k.tobytes(), "little") for k in uniq]
    prob, score = np.empty(len(rows)), np.empty(len(rows))
    dist = dist if dist is not None else np.empty(len(rows))
    estab = np.zeros(len(rows), dtype=bool)
    blocks = []
    for b, cols in enumerate(cols_of):
        lo, hi = int(starts[b]), int(stops[b])
        blocks.append(
            Block(
                keys[b], groups[b], cols, rows[lo:hi, cols], prob[lo:hi], dist[lo:hi],
                score[lo:hi], estab[lo:hi],
            )
        )
    blocks.sort(key=lambda blk: blk.key)
    return blocks


def key_words(changed: np.ndarray) -> np.ndarray:
    """Each row's changed-group bitmask as 64-bit words, least significant word first:
    (n, ceil(G / 64)) uint64. Rows sort by it (:func:`key_order`) as their bitmask integers do."""
    n, g = changed.shape
    w = max(1, -(-g // 64))
    padded = np.zeros((n, 64 * w), dtype=bool)
    padded[:, :g] = changed
    return np.packbits(padded, axis=1, bitorder="little").view("<u8").astype(np.uint64, copy=False)


def key_order(words: np.ndarray) -> np.ndarray:
    """Stable order of rows by Δ key (the bitmask integer), given :func:`key_words`."""
    if words.shape[1] == 1:
        return np.argsort(words[:, 0], kind="stable")
    return np.lexsort(words.T)  # the last word (most significant) is the primary key


@dataclass
class Pool:
    """Candidates of many Δ in one flat set of arrays, the search's population: full rows sorted
    by Δ key (ascending), each Δ's rows in the order they arrived. Equivalent to one
    :class:`Block` per Δ in key order, without per-Δ objects: on wide data a generation meets
    hundreds of Δ of a few rows each, and per-Δ Python work would dominate the search.

    ``rows`` hold ``x`` outside each row's changed groups (as :meth:`Block.full_rows` would),
    except in "full" representation, where they are kept as the operators made them."""

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
    def merge(a: Pool, b: Pool) -> Pool:
        """Both pools' rows in key order; within a Δ, ``a``'s rows first."""
        if len(b) == 0:
            return a
        if len(a) == 0:
            return b
        both = Pool(*(np.concatenate([u, v]) for u, v in zip(a.fields(), b.fields())))
        return both.take(key_order(both.words))

    def fields(self) -> tuple[np.ndarray, ...]:
        return (self.rows, self.changed, self.words, self.hashes, self.prob, self.dist, self.score,
                self.established)  # fmt: skip

    def starts(self) -> np.ndarray:
        """Index of each Δ's first row (Δ in key order)."""
        if len(self) == 0:
            return np.zeros(0, dtype=np.intp)
        new = np.ones(len(self), dtype=bool)
        new[1:] = (self.words[1:] != self.words[:-1]).any(axis=1)
        return np.flatnonzero(new)

    def block_keys(self, starts: np.ndarray) -> list[int] | list[bytes]:
        """Hashable keys, one per Δ, of the Δ starting at ``starts``: the bitmask integer (as
        :func:`mask_key`) when the groups fit in 64 bits, else the words' bytes (one-to-one with
        it, and made without a Python step per Δ)."""
        w = self.words[starts]
        if w.shape[1] == 1:
            return w[:, 0].tolist()
        return np.ascontiguousarray(w).view(np.dtype((np.void, 8 * w.shape[1]))).reshape(-1).tolist()
