"""A data set in the schema's encoding, stored column by column.

Why it exists: the encoded form of a table as one ``(n, d)`` float64 array costs 8 bytes per cell,
about three times a pandas table whose categorical columns hold 1- or 2-byte codes, and every
per-column pass over it (counts, ranges, validation) strides across the whole array. Here each
column is one contiguous array in the narrowest dtype that holds its encoded values exactly
(category codes as small integers, numbers as float64); rows come out as float64 on request.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["EncodedTable", "as_table", "code_dtype"]


def code_dtype(n_categories: int) -> np.dtype:
    """The smallest signed integer dtype that holds the codes ``0 .. n_categories - 1``."""
    for dt in (np.int8, np.int16, np.int32):
        if n_categories - 1 <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.int64)


class EncodedTable:
    """``n`` rows x ``d`` encoded columns, each a 1-D array of its own dtype (kept as given:
    ``Schema.encode_table`` hands over fresh contiguous arrays, ``from_array`` views).

    ``column(j)`` is the stored array (no copy); ``take(rows)`` gives those rows as an ``(k, d)``
    float64 array; ``to_array()`` the whole table as one (built once, not pickled)."""

    def __init__(self, columns: Sequence[np.ndarray]):
        cols = [np.asarray(c) for c in columns]
        lengths = {len(c) for c in cols}
        if len(lengths) > 1 or any(c.ndim != 1 for c in cols):
            raise ValueError(f"columns must be 1-D arrays of one length, got lengths {sorted(lengths)}")
        self._columns = cols
        self._rows = lengths.pop() if lengths else 0
        self._array: np.ndarray | None = None

    @classmethod
    def from_array(cls, array: np.ndarray) -> EncodedTable:
        """A table over the columns of an encoded ``(n, d)`` float64 array (views, no copy)."""
        array = np.asarray(array, dtype=np.float64)
        if array.ndim != 2:
            raise ValueError(f"expected an (n, d) array, got shape {array.shape}")
        table = cls([array[:, j] for j in range(array.shape[1])])
        table._array = array
        return table

    def __len__(self) -> int:
        return self._rows

    @property
    def shape(self) -> tuple[int, int]:
        return (self._rows, len(self._columns))

    @property
    def nbytes(self) -> int:
        """Bytes held by the columns (not counting a cached ``to_array``)."""
        return sum(c.nbytes for c in self._columns)

    def column(self, j: int) -> np.ndarray:
        """Column ``j`` as stored (its own dtype); do not modify it."""
        return self._columns[j]

    def take(self, rows: np.ndarray | slice | Sequence[int]) -> np.ndarray:
        """The given rows (an index array or a slice) as a new ``(k, d)`` float64 array."""
        if self._array is not None:
            out = self._array[rows]
            return out.copy() if isinstance(rows, slice) else out
        if isinstance(rows, slice):
            n = len(range(*rows.indices(self._rows)))
        else:
            rows = np.asarray(rows, dtype=np.intp)
            n = len(rows)
        out = np.empty((n, len(self._columns)), dtype=np.float64)
        for j, c in enumerate(self._columns):
            out[:, j] = c[rows]
        return out

    def to_array(self) -> np.ndarray:
        """The whole table as one ``(n, d)`` float64 array (built on first use, then kept)."""
        if self._array is None:
            self._array = self.take(slice(None))
        return self._array

    def __getstate__(self) -> dict:
        return {"_columns": self._columns, "_rows": self._rows, "_array": None}

    def __repr__(self) -> str:
        return f"EncodedTable({self._rows} rows x {len(self._columns)} columns, {self.nbytes / 1e6:.1f} MB)"


def as_table(data: EncodedTable | np.ndarray) -> EncodedTable:
    """``data`` as a table: itself, or a table over an encoded ``(n, d)`` array's columns."""
    return data if isinstance(data, EncodedTable) else EncodedTable.from_array(data)
