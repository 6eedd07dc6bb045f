"""The rows a search has scored, by hash, with their P(desired): a row the search makes again
(about a tenth of a generation's candidates were scored in an earlier one, then left the
population) takes its number from here instead of the engine.

Only for exact engines (every tier bit-identical to ``predict_proba``, and a row's number the
same in any block): the number reused is the one scoring it again would give, so the search and
its explanation are the same. Rows are known by the 64-bit hash the search's de-duplication
already trusts (:func:`geco.problem.hashing.cell_hashes`); a collision would give one row
another's number inside the search, never in an answer, whose options the model confirms.
The table is the compiled kernels' (open addressing in three arrays this object owns)."""

from __future__ import annotations

from types import ModuleType

import numpy as np

__all__ = ["ScoredRows"]


class ScoredRows:
    """Hash -> P(desired) of the rows scored so far in one search (see the module docstring)."""

    def __init__(self, kernels: ModuleType, capacity: int = 1 << 13):
        self.kernels = kernels
        self.count = 0
        self._alloc(capacity)

    def _alloc(self, capacity: int) -> None:
        self.keys = np.zeros(capacity, dtype=np.uint64)
        self.values = np.empty(capacity)
        self.used = np.zeros(capacity, dtype=bool)

    def __len__(self) -> int:
        return self.count

    def find(self, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per hash: whether its row was scored, and its number (NaN where not)."""
        return self.kernels.scored_find(self.keys, self.values, self.used, np.ascontiguousarray(hashes, dtype=np.uint64))

    def add(self, hashes: np.ndarray, probs: np.ndarray) -> None:
        """Remember the numbers ``probs`` of the rows ``hashes`` (the table doubles to stay at
        most half full)."""
        hashes = np.ascontiguousarray(hashes, dtype=np.uint64)
        if 2 * (self.count + len(hashes)) > len(self.keys):
            keys, values, capacity = self.keys[self.used], self.values[self.used], len(self.keys)
            while 2 * (self.count + len(hashes)) > capacity:
                capacity *= 2
            self._alloc(capacity)
            self.kernels.scored_insert(self.keys, self.values, self.used, keys, values)
        self.count += int(self.kernels.scored_insert(self.keys, self.values, self.used, hashes,
                                                     np.ascontiguousarray(probs, dtype=np.float64)))  # fmt: skip
