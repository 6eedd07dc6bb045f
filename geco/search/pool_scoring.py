"""Scoring a pool of candidates in one ``score_blocks`` call, one block per Δ.

A compiled scorer specialises each block to its Δ's columns. Tiny blocks may instead travel
together as one block of full rows: when that pays off is the engine's knowledge (its
``merge_below`` / ``merge_min_blocks``); the search only passes the numbers it is given. A scorer
with ``score_delta_rows(rows, starts, deltas)`` (the tree engines) takes the pool's full rows and
their Δ as they are, and cuts out the columns only for the Δ that need them; one with
``score_rows_near_x(rows, columns, sizes)`` takes the merged rows with each small Δ's columns,
which tell it where each row may differ from ``x``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from codegen.protocol import DeltaMasks
from geco.search.population import Pool

if TYPE_CHECKING:
    from codegen.protocol import InstanceScorer

__all__ = ["score_pool"]


def score_pool(
    scorer: InstanceScorer, pool: Pool, starts: np.ndarray, group_of_feature: np.ndarray, merge_below: int = 0,
    min_blocks: int = 0,
) -> np.ndarray:
    """P(desired) of every row of ``pool`` (Δ starting at ``starts``), in one ``score_blocks``
    call, one block per Δ on its own columns; the Δ smaller than ``merge_below`` rows travel as
    one block of full rows (all features as Δ), when there are at least ``min_blocks``. With an
    exact scorer the numbers do not depend on the Δ a row is scored under; with an inexact one
    (MLP) they may differ by rounding, within the engine's error bound."""
    sizes = np.diff(np.append(starts, len(pool)))
    small = sizes < merge_below
    merge = int(small.sum()) >= max(2, min_blocks)
    alone = np.flatnonzero(~small) if merge else np.arange(len(starts))
    by_rows = getattr(scorer, "score_delta_rows", None)
    if by_rows is not None and not merge:
        deltas = DeltaMasks(pool.changed[np.asarray(starts, dtype=np.intp)][:, group_of_feature])
        return np.asarray(by_rows(pool.rows, starts, deltas), dtype=np.float64)
    blocks = []
    for i in alone.tolist():
        lo, hi = int(starts[i]), int(starts[i]) + int(sizes[i])
        cols = np.flatnonzero(pool.changed[lo, group_of_feature])
        blocks.append((tuple(cols.tolist()), pool.rows[lo:hi, cols]))
    merged = None
    if merge:  # the rows hold x outside their Δ: a small Δ's full rows are the pool's own
        in_small = np.repeat(small, sizes)
        rows = pool.rows if len(alone) == 0 else pool.rows[in_small]
        near = getattr(scorer, "score_rows_near_x", None)
        if near is not None:  # each small Δ's rows compared with x on its own columns only
            heads = pool.changed[np.asarray(starts, dtype=np.intp)[small]][:, group_of_feature]
            merged = np.asarray(near(rows, heads, sizes[small]), dtype=np.float64)
        else:
            blocks.append((tuple(range(pool.rows.shape[1])), rows))
    parts = scorer.score_blocks(blocks) if blocks else []
    if not merge:
        return np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])
    if merged is None:
        merged, parts = np.asarray(parts[-1], dtype=np.float64), parts[:-1]
    prob = np.empty(len(pool))
    if len(alone):
        prob[~in_small] = np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])
    prob[in_small] = merged
    return prob
