"""One generation's breeding in one compiled call: what :meth:`geco.search.loop.GeneticSearch.breed`
composes from the operators (each Δ's best row as a parent, crossover of the best Δ, selective
mutation, walk-back, the mutation parents within reach, mutation), with the same draws in the
same order and the children in the same order, so that a generation calls no Python between
its operators.

For a population without NaN scores, after no restart's growth and with the default mutation
parents (the search composes the operators otherwise)."""

from __future__ import annotations

import numpy as np

from geco.search.kernels.bookkeeping import block_best_rows, lower_distances, within_reach
from geco.search.kernels.common import copy_row, jit, stable_order, true_indices
from geco.search.kernels.operators import (
    crossover_rows,
    mutation_rows,
    selective_mutation_rows,
    walk_back_rows,
)

__all__ = ["breed"]


@jit
def _take(a, idx):
    """``a[idx]`` for a 2-D array."""
    out = np.empty((len(idx), a.shape[1]), dtype=a.dtype)
    for t in range(len(idx)):
        copy_row(out, t, a, idx[t])
    return out


@jit
def _stack(parts_rows, parts_changed, d, G):
    """The children of each operator, end to end."""
    n = 0
    for p in parts_rows:
        n += p.shape[0]
    rows = np.empty((n, d))
    changed = np.empty((n, G), dtype=np.bool_)
    t = 0
    for k in range(len(parts_rows)):
        r, c = parts_rows[k], parts_changed[k]
        for i in range(r.shape[0]):
            for j in range(d):
                rows[t, j] = r[i, j]
            for g in range(G):
                changed[t, g] = c[i, g]
            t += 1
    return rows, changed


@jit
def _breed(rng, rows, changed, words, score, dist, starts, x, gof, has_space, m, breadth, crossover_parents, scale,
           cap, priced, up, down, w, n_feat, st_start, st_size, st_base, st_cumulative, st_weights, st_n_features,
           st_feature_start, st_features, st_value_start, st_values, st_ranks, st_rank_key, bounded, kth,
           kth_finite, options, option_words, bounds, gap, ranges, categorical, walk_back_rounds, free):  # fmt: skip
    n, d = rows.shape
    G = changed.shape[1]
    idx = block_best_rows(starts, n, score, 1)
    P = len(idx)
    prow, pch, pwords = _take(rows, idx), _take(changed, idx), _take(words, idx)
    is_cf = np.empty(P, dtype=np.bool_)
    best = np.empty(P)
    for b in range(P):
        is_cf[b] = score[idx[b]] == dist[idx[b]]
        best[b] = score[idx[b]]  # a block's lowest score (no NaN: the caller checks)
    # crossover of the best Δ (in Δ order)
    pick = np.zeros(P, dtype=np.bool_)
    for b in stable_order(best)[:crossover_parents]:
        pick[b] = True
    chosen = true_indices(pick)  # in Δ order
    children = crossover_rows(rng, _take(prow, chosen), _take(pch, chosen), x, gof)
    moved = selective_mutation_rows(rng, prow, pch, is_cf, has_space, breadth, m, gof, x, scale, cap, priced, up,
                                    down, w, n_feat, st_start, st_base, st_cumulative, st_weights, st_n_features,
                                    st_feature_start, st_features, st_value_start, st_values, st_ranks,
                                    st_rank_key)  # fmt: skip
    cf_at = true_indices(is_cf)
    back = walk_back_rows(rng, _take(prow, cf_at), _take(pch, cf_at), x, gof, walk_back_rounds)
    # the mutation parents: rows short of the target, each Δ's best counterfactual, within reach
    short = np.empty(n, dtype=np.bool_)
    for i in range(n):
        short[i] = score[i] != dist[i]
    near = is_cf.copy()
    if bounded:
        all_rows = np.arange(n)
        ok = within_reach(dist, rows, all_rows, words, kth, kth_finite, options, option_words, bounds, x, gap, ranges,
                          categorical)  # fmt: skip
        for i in range(n):
            short[i] = short[i] and ok[i]
        ok = within_reach(best, prow, np.arange(P), pwords, kth, kth_finite, options, option_words, bounds, x, gap,
                          ranges, categorical)  # fmt: skip
        for b in range(P):
            near[b] = near[b] and ok[b]
    s_at, n_at = true_indices(short), true_indices(near)
    kept_rows, kept_changed = _stack((_take(rows, s_at), _take(prow, n_at)), (_take(changed, s_at), _take(pch, n_at)),
                                     d, G)  # fmt: skip
    mutants = mutation_rows(rng, kept_rows, kept_changed, has_space, breadth, m, st_start, st_size, st_base,
                            st_cumulative, st_weights, st_n_features, st_feature_start, st_features, st_value_start,
                            st_values)  # fmt: skip
    if bounded and kth_finite:  # out of reach whatever the cascade repairs: left out here
        m_rows, m_changed = mutants
        lower = lower_distances(m_rows, m_changed, gof, free, x, scale, cap, priced, up, down, w, n_feat)
        kept = 0  # the mutants are this call's own: the near ones moved up in place, in order
        for i in range(len(lower)):
            if lower[i] < kth:
                if kept != i:
                    copy_row(m_rows, kept, m_rows, i)
                    copy_row(m_changed, kept, m_changed, i)
                kept += 1
        mutants = (m_rows[:kept], m_changed[:kept])
    return _stack((children[0], moved[0], back[0], mutants[0]), (children[1], moved[1], back[1], mutants[1]), d, G)


def breed(rng: np.random.Generator, rows: np.ndarray, changed: np.ndarray, words: np.ndarray, score: np.ndarray,
          dist: np.ndarray, starts: np.ndarray, x: np.ndarray, gof: np.ndarray, has_space: np.ndarray, m: int,
          breadth: int | None, crossover_parents: int, walk_back_rounds: int, spec: tuple, stacked,
          reach, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """One generation's children (full rows, changed groups) of a population (its rows,
    changed groups, key words, scores, distances, block ``starts``) as the search's breed
    composes them, drawing from ``rng`` as it does. ``spec``: ``DistanceSpec.cell_terms()``;
    ``stacked``: the :class:`~geco.search.stacked.StackedSpaces`; ``reach``: the
    :class:`~geco.search.reach.Reach` the mutation parents must be within, and the mutants
    too, by their distance over the cells ``free`` marks (the features the action cascade
    never changes); the other numbers are the search's (mutation's samples and breadth,
    crossover's parents, walk-back's rounds)."""
    _, scale, cap, priced, up, down, w, n_feat = spec
    st = stacked
    return _breed(
        rng, np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(changed),
        np.ascontiguousarray(words, dtype=np.uint64), np.ascontiguousarray(score, dtype=np.float64),
        np.ascontiguousarray(dist, dtype=np.float64), np.asarray(starts, dtype=np.intp), x, gof,
        np.ascontiguousarray(has_space, dtype=np.bool_), int(m), -1 if breadth is None else int(breadth),
        int(crossover_parents), scale, cap, priced, up, down, w, float(n_feat), st.start, st.size, st.base,
        st.cumulative, st.weights, st.n_features, st.feature_start, st.features, st.value_start, st.values, st.ranks,
        st.rank_key, bool(reach.bounded), float(reach.kth), bool(np.isfinite(reach.kth)),
        np.ascontiguousarray(reach.options, dtype=np.float64), np.ascontiguousarray(reach.words, dtype=np.uint64),
        np.ascontiguousarray(reach.bounds, dtype=np.float64), float(reach.gap),
        np.ascontiguousarray(reach.ranges, dtype=np.float64), np.ascontiguousarray(reach.categorical, dtype=np.bool_),
        int(walk_back_rounds), np.ascontiguousarray(free, dtype=np.bool_),
    )  # fmt: skip
