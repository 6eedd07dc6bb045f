"""The distance GeCo minimises: a weighted mix of l0, l1, l2 and linf over normalised features.

``dist = w0*l0/n + w1*l1/n + w2*sqrt(l2/n) + w3*linf`` where a numeric (or ordinal) feature
differs by ``|v - x| / range`` and a categorical feature by 0 or 1 (one feature, however the model
encodes it). ``n`` is the number of features.

Computed from the *cells* where a row differs from ``x`` (row, column, difference), never from
whole rows: a candidate differs from ``x`` only in its Δ's few columns, and on a wide table a
pass over every column of every candidate would cost more than the search's own work. Every
caller gets the same numbers for the same row: the sums run over a row's nonzero differences in
column order, whichever subset of columns the caller passes.

Costs (PLAF ``cost`` statements, :class:`plaf_grammar.FeatureCosts`): a changed feature's
normalised difference is multiplied by the cost of the direction it moves in, in l1, l2 and linf,
and its l0 count weighs that cost too. Then each difference carries its l0 weight beside it, on
a last axis of length 2 (``[..., 0]`` the priced difference, ``[..., 1]`` the l0 weight: the cost
where the feature changes, else 0); callers pass differences through as they get them and index
their leading axes only. Without costs, or with every cost 1, the unpriced code runs: the
numbers are those of a distance that never heard of costs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from plaf_grammar import FeatureCosts, Schema
from plaf_grammar.table import EncodedTable, as_table

__all__ = ["DistanceSpec", "feature_ranges"]


def feature_ranges(schema: Schema, data: EncodedTable | np.ndarray) -> np.ndarray:
    """max - min of each feature over the data (1 where that is 0, and 1 for categoricals)."""
    data = as_table(data)
    rng = np.ones(len(schema))
    for j, f in enumerate(schema.features):
        if f.kind == "categorical":
            continue
        if f.kind == "ordinal":
            span = float(len(f.categories) - 1)
        else:
            span = float(data.column(j).max() - data.column(j).min()) if len(data) else 0.0
        rng[j] = span if span > 0 else 1.0
    return rng


class DistanceSpec:
    """Everything needed to compute distances to one instance ``x``, vectorised over rows.

    ``costs``: what changing each feature costs (None, or every cost 1: the unpriced distance);
    ``priced`` says whether costs apply."""

    def __init__(
        self,
        x: np.ndarray,
        ranges: np.ndarray,
        categorical: np.ndarray,
        weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25),
        costs: FeatureCosts | None = None,
    ):
        if len(weights) != 4:
            raise ValueError(f"norm_weights must have 4 entries (l0, l1, l2, linf), got {weights!r}")
        w = np.asarray(weights, dtype=np.float64)
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError(f"norm_weights must be finite and non-negative, got {weights!r}")
        if not np.any(w > 0):
            raise ValueError(f"norm_weights must not all be 0 (every distance would be 0: nothing nearer), got {weights!r}")
        self.x = np.asarray(x, dtype=np.float64)
        self.ranges = ranges
        self.categorical = categorical
        self.weights = w
        self.n = len(self.x)
        # per feature, for cells: |v - x| / scale capped at cap (a categorical feature differs
        # by 0 or 1; its codes are integers, so |v - x| >= 1 wherever it differs)
        self._scale = np.where(categorical, 1.0, ranges).astype(np.float64)
        self._cap = np.where(categorical, 1.0, np.inf)
        self.costs = costs
        self.priced = costs is not None and not costs.is_uniform
        if self.priced:
            if len(costs.up) != self.n:
                raise ValueError(f"costs name {len(costs.up)} features, x has {self.n}")
            self._up = np.asarray(costs.up, dtype=np.float64)
            self._down = np.asarray(costs.down, dtype=np.float64)

    def search_scale(self) -> float:
        """What :meth:`for_search` divides this distance by: its largest cost where that exceeds
        1, else 1 (a distance the search computes times this is this distance)."""
        if not self.priced:
            return 1.0
        return max(1.0, max(self.costs.up), max(self.costs.down))

    def for_search(self) -> DistanceSpec:
        """This distance divided by its largest cost where that exceeds 1 (else itself), what
        the search minimises. The search scores a counterfactual by its distance and any other
        candidate by ``1 + distance + (1 - p)``: a counterfactual ranks first only while its
        distance stays within the unpriced one's bounds, which costs of at most 1 keep. Every
        norm is proportional to the costs, so the order of candidates is the priced one."""
        top = self.search_scale()
        if top == 1.0:
            return self
        c = self.costs
        scaled = FeatureCosts(c.names, tuple(u / top for u in c.up), tuple(d / top for d in c.down), c.rules)
        return DistanceSpec(self.x, self.ranges, self.categorical, self.weights, scaled)

    def cell_terms(self) -> tuple:
        """What a compiled pass needs to compute :meth:`cells` and :meth:`of_cells` itself: x,
        each feature's scale and cap, whether costs apply, the up and down costs (x's shape
        when unpriced, unused), the four weights and the number of features."""
        up = self._up if self.priced else self.x
        down = self._down if self.priced else self.x
        return self.x, self._scale, self._cap, self.priced, up, down, self.weights, self.n

    def priced_differences(self, cols: np.ndarray, values: np.ndarray, xv: np.ndarray, d: np.ndarray) -> np.ndarray:
        """Normalised differences ``d`` of ``values`` in columns ``cols`` (``xv``: x's values
        there; all three broadcast together) with their costs: ``d`` times the cost of the
        direction each value moves in, and beside it the l0 weight (see the module docstring)."""
        cost = np.where(values > xv, self._up[cols], self._down[cols])
        out = np.empty((*d.shape, 2))
        np.multiply(d, cost, out=out[..., 0])
        np.copyto(out[..., 1], np.where(d != 0, cost, 0.0))
        return out

    def per_feature(self, cols: Sequence[int] | np.ndarray, values: np.ndarray) -> np.ndarray:
        """Normalised per-feature differences, shape (rows, len(cols)) (with costs: (rows,
        len(cols), 2), priced; see the module docstring)."""
        cols = np.asarray(cols, dtype=np.intp)
        xv = self.x[cols]
        d = np.abs(values - xv)
        d /= self.ranges[cols]
        cat = self.categorical[cols]
        if cat.any():  # in place: no gather and scatter of the categorical columns
            np.copyto(d, values != xv, where=cat)
        if self.priced:
            return self.priced_differences(cols, values, xv, d)
        return d

    def cells(self, rows: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The cells of ``rows`` (full rows) where ``mask`` holds: their row and column
        (row-major order), value and normalised difference from ``x`` (0 where the value is
        ``x``'s own: a group changes as a whole, so some of its features may keep theirs); with
        costs the differences are priced (shape (cells, 2), see the module docstring)."""
        d = mask.shape[1]
        flat = np.flatnonzero(mask)
        r, c = np.divmod(flat, d)
        v = rows.reshape(-1)[flat] if rows.flags.c_contiguous else rows[r, c]
        xc = self.x[c]
        diff = np.abs(v - xc)
        diff /= self._scale[c]
        np.minimum(diff, self._cap[c], out=diff)
        if self.priced:
            return r, c, v, self.priced_differences(c, v, xc, diff)
        return r, c, v, diff

    def of_cells(self, row: np.ndarray, diff: np.ndarray, n_rows: int) -> np.ndarray:
        """Distance of each of ``n_rows`` rows from its nonzero differences: ``diff[i]`` belongs
        to row ``row[i]`` (zeros allowed); ``row`` is sorted, and within a row the cells are in
        column order. ``diff`` as :meth:`cells` gives it (priced with costs)."""
        w0, w1, w2, w3 = self.weights
        n = self.n
        out = np.zeros(n_rows)
        if len(row) == 0:
            return out
        if self.priced:
            diff, l0 = diff[:, 0], diff[:, 1]
            if w0:
                out += w0 * np.bincount(row, l0, n_rows) / n
        elif w0:
            out += w0 * np.bincount(row[diff != 0], minlength=n_rows) / n
        if w1:
            out += w1 * np.bincount(row, diff, n_rows) / n
        if w2:
            out += w2 * np.sqrt(np.bincount(row, diff * diff, n_rows) / n)
        if w3:
            first = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
            out[row[first]] += w3 * np.maximum.reduceat(diff, first)
        return out

    def __call__(self, cols: Sequence[int] | np.ndarray, values: np.ndarray) -> np.ndarray:
        """Distance of each row (``x`` with ``cols`` set to ``values``) to ``x``; ``cols`` ascending."""
        if values.shape[0] == 0:
            return np.empty(0)
        if values.shape[1] == 0:
            return np.zeros(values.shape[0])
        return self.combine(self.per_feature(cols, values))

    def combine(self, d: np.ndarray) -> np.ndarray:
        """Distance of each row from its :meth:`per_feature` differences ``d`` (rows, k): callers
        that need the distances of many column subsets of the same rows compute the
        differences once and combine slices of them. Sums run left to right (``accumulate``),
        so they equal :meth:`of_cells`'s over the same row's nonzero cells (priced with costs)."""
        w0, w1, w2, w3 = self.weights
        n = self.n
        out = np.zeros(d.shape[0])
        if d.shape[1] == 0:
            return out
        if self.priced:
            d, l0 = d[..., 0], d[..., 1]
            if w0:
                out += w0 * np.add.accumulate(l0, axis=1)[:, -1] / n
        elif w0:
            out += w0 * np.count_nonzero(d, axis=1) / n
        if w1:
            out += w1 * np.add.accumulate(d, axis=1)[:, -1] / n
        if w2:
            out += w2 * np.sqrt(np.add.accumulate(d * d, axis=1)[:, -1] / n)
        if w3:
            out += w3 * d.max(axis=1)
        return out
