"""What the compiled engines (trees, GBM, MLP) share beyond binding: full rows, error bound,
upper bound (none unless the engine has one), warm-up and the block-merge policy, written once on
top of ``bind``."""

from __future__ import annotations

import numpy as np

from codegen.protocol import MERGE_BELOW, MERGE_MIN_BLOCKS, Allowed, InstanceScorer

__all__ = ["CompiledScorer"]

#: warm-up scores blocks of at most this many of the rows it is given
WARM_UP_ROWS = 256


class CompiledScorer:
    """The part of :class:`codegen.ModelScorer` that every compiled engine derives from its
    ``bind`` (a subclass provides ``bind``, ``exact``, ``name`` and ``ir``)."""

    compiled = True
    exact: bool
    merge_below = MERGE_BELOW
    merge_min_blocks = MERGE_MIN_BLOCKS

    def bind(self, x: np.ndarray) -> InstanceScorer:  # pragma: no cover - every subclass binds
        raise NotImplementedError

    def score_rows(self, rows: np.ndarray) -> np.ndarray:
        """P(desired) for full encoded rows ``(n, d)``: one block with every feature free, bound
        to the first row (for an exact engine the numbers do not depend on that instance)."""
        rows = np.asarray(rows, dtype=np.float64)
        if len(rows) == 0:
            return np.empty(0)
        bound = self.bind(rows[0])
        return np.asarray(bound.score_block(tuple(range(rows.shape[1])), rows), dtype=np.float64)

    def error_bound(self, rows: np.ndarray) -> np.ndarray:
        """Zeros for an exact engine (its scores are ``predict_proba``'s), else ``inf``: no
        bound known (an engine that has one overrides this)."""
        return np.full(len(rows), 0.0 if self.exact else np.inf)

    def upper_bound(self, x: np.ndarray, allowed: Allowed) -> float | None:
        """None: no bound known (an engine that can bound its model overrides this)."""
        return None

    def warm_up(self, rows: np.ndarray) -> None:
        """Score a block with no feature free and one with the first feature free, twice (the
        second round finds the Δ warm, so the per-Δ partial evaluator runs too): every
        once-per-process kernel is built before the first explanation."""
        head = np.asarray(rows, dtype=np.float64)[:WARM_UP_ROWS]
        if len(head) == 0:
            return
        bound = self.bind(head[0])
        cols = np.ascontiguousarray(head[:, :1])
        for _ in range(2):
            for delta, block in (((), np.empty((1, 0))), ((0,), cols)):
                bound.score_block(delta, block)
