"""Rows kept as the values of the columns their Δ changes (the archive's rows).

A row of the Δ-representation holds ``x`` outside its changed groups, so its changed groups'
columns say all of it. :class:`RowCells` keeps, per slot, those columns' values (ascending
column order) in one flat array, and rebuilds full rows from ``x`` when they are read. A slot's
columns follow from its Δ, which never changes once the slot exists, so a better row of the same
Δ overwrites the slot's cells in place. On wide data this is what keeps the archive small: with
1,000 features a search archives tens of thousands of Δ that change a few dozen columns each,
as full rows several hundred megabytes. Without ``x`` (rows as the operators made them: the
"full" representation, or any rows) every column of a row is a cell.
"""

from __future__ import annotations

import numpy as np

from geco.search.population import positions_within

__all__ = ["RowCells"]


class RowCells:
    """Rows of ``d`` columns and ``g`` groups stored by slot as their changed groups' cells
    (every column where ``x`` is None). ``group_of_feature``: each column's group.
    ``offsets[slot]``: where the slot's cells start in ``values``; ``top``: the cells in use."""

    def __init__(self, d: int, g: int, x: np.ndarray | None = None, group_of_feature: np.ndarray | None = None):
        if (x is None) != (group_of_feature is None):
            raise ValueError("x and group_of_feature go together")
        self.d = d
        self.x = None if x is None else np.asarray(x, dtype=np.float64)
        #: each column's group; every column in group 0 of a one-group stand-in where rows are whole
        self.group_of_feature = (np.zeros(d, dtype=np.intp) if group_of_feature is None
                                 else np.asarray(group_of_feature, dtype=np.intp))  # fmt: skip
        self.every = x is None
        #: columns per group
        self.group_columns = np.bincount(self.group_of_feature, minlength=g).astype(np.int64)
        self.values = np.empty(max(64, 16 * d))
        self.offsets = np.zeros(16, dtype=np.int64)
        self.top = 0

    def counts(self, changed: np.ndarray) -> np.ndarray:
        """Cells of each row of changed groups ``changed``."""
        if self.every:
            return np.full(len(changed), self.d, dtype=np.int64)
        return changed.astype(np.int64) @ self.group_columns

    def columns(self, changed: np.ndarray) -> np.ndarray:
        """Which columns are cells, per row of ``changed``: (n, d) bool."""
        if self.every:
            return np.ones((len(changed), self.d), dtype=bool)
        return changed[:, self.group_of_feature]

    def room(self, slots: int, cells: int) -> None:
        """Room for ``slots`` slots in all and ``cells`` more cells (arrays at least doubled when short)."""
        if slots > len(self.offsets):
            grown = np.zeros(max(slots, 2 * len(self.offsets)), dtype=np.int64)
            grown[: len(self.offsets)] = self.offsets
            self.offsets = grown
        if self.top + cells > len(self.values):
            grown = np.empty(max(self.top + cells, 2 * len(self.values)))
            grown[: self.top] = self.values[: self.top]
            self.values = grown

    def write(self, slots: np.ndarray, rows: np.ndarray, changed: np.ndarray, fresh: np.ndarray) -> None:
        """Store ``rows`` (changed groups ``changed``) in ``slots``, distinct; ``fresh``: which
        slots are new (their cells are placed after the ones in use, in slot order), the others
        are overwritten in place. Needs :meth:`room` for the slots (the cells grow here)."""
        counts = self.counts(changed)
        new = np.flatnonzero(fresh)
        new = new[np.argsort(slots[new], kind="stable")]
        self.room(0, int(counts[new].sum()))
        ends = self.top + np.cumsum(counts[new])
        self.offsets[slots[new]] = ends - counts[new]
        if len(new):
            self.top = int(ends[-1])
        self.values[self._positions(self.offsets[slots], counts)] = rows[self.columns(changed)]

    def read(self, slots: np.ndarray, changed: np.ndarray) -> np.ndarray:
        """The full rows of ``slots`` (changed groups ``changed``, one row per slot)."""
        n = len(changed)
        out = np.empty((n, self.d)) if self.every else np.broadcast_to(self.x, (n, self.d)).copy()
        if n:
            out[self.columns(changed)] = self.values[self._positions(self.offsets[slots], self.counts(changed))]
        return out

    @staticmethod
    def _positions(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """The cell positions of rows whose cells start at ``starts``, ``counts`` each, row after row."""
        return np.repeat(starts, counts) + positions_within(counts)
