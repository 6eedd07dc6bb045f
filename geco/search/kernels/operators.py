"""The genetic operators compiled: random picks of groups, per-group distances, crossover and
walk-back children from their draws, and mutation, selective mutation and their distinct draws
each in one pass that draws from the search's own ``numpy.random.Generator`` call for call as
the numpy operators (:mod:`geco.search.operators`, :mod:`geco.search.stacked`) do."""

from __future__ import annotations

import numpy as np

from geco.search.kernels.common import (
    combine,
    copy_row,
    jit,
    search_left,
    search_right,
    set_group,
    stable_order,
    true_indices,
)

__all__ = ["by_keys", "crossover_rows", "distinct_children", "group_distances", "mutation", "mutation_rows",
           "selective_mutation", "selective_mutation_rows", "smallest", "walk_back_rows"]



@jit
def _insertion_order(keys, order, k):
    """``order[:k]`` sorted by ``keys`` (stable), in place: for the few entries of one row."""
    for t in range(1, k):
        v = order[t]
        p = t
        while p > 0 and keys[v] < keys[order[p - 1]]:
            order[p] = order[p - 1]
            p -= 1
        order[p] = v


@jit
def _smallest(keys, allowed, count):
    n, g = keys.shape
    out = np.zeros((n, g), dtype=np.bool_)
    order = np.empty(g, dtype=np.intp)
    for i in range(n):
        k = 0
        for j in range(g):
            if allowed[i, j]:
                order[k] = j
                k += 1
        if k <= count:
            for t in range(k):
                out[i, order[t]] = True
            continue
        _insertion_order(keys[i], order, k)
        for t in range(count):
            out[i, order[t]] = True
    return out


def smallest(keys: np.ndarray, allowed: np.ndarray, count: int) -> np.ndarray:
    """Per row, the ``count`` ``allowed`` columns of smallest ``keys`` (all when fewer; ties:
    the earlier column), as ``geco.search.operators``' random pick with numpy ranks does."""
    return _smallest(np.ascontiguousarray(keys), np.ascontiguousarray(allowed), int(count))


@jit
def _insertion_sorted(a, k):
    """``a[:k]`` sorted ascending, in place."""
    for t in range(1, k):
        v = a[t]
        p = t
        while p > 0 and v < a[p - 1]:
            a[p] = a[p - 1]
            p -= 1
        a[p] = v


@jit
def _by_keys(exp, weights, start, lim, m):
    n = exp.shape[0]
    out = np.empty((n, m), dtype=np.intp)
    best = np.empty(m)
    at = np.empty(m, dtype=np.intp)
    for i in range(n):
        filled = 0
        for c in range(lim[i]):
            key = exp[i, c] / weights[start[i] + c]
            if filled == m and not key < best[m - 1]:
                continue
            # insert into the sorted m smallest so far (equal keys: the earlier column first)
            p = filled if filled < m else m - 1
            while p > 0 and key < best[p - 1]:
                best[p] = best[p - 1]
                at[p] = at[p - 1]
                p -= 1
            best[p] = key
            at[p] = c
            if filled < m:
                filled += 1
        for t in range(m):
            out[i, t] = at[t]
        _insertion_sorted(out[i], m)  # the picks in column order
    return out


def by_keys(
    exp: np.ndarray, weights: np.ndarray, start: np.ndarray, lim: np.ndarray, m: int
) -> np.ndarray:
    """The ``m`` smallest keys ``exp / w`` of each row's first ``lim`` columns (``lim > m``), as
    sorted column indices (what :meth:`geco.search.stacked.StackedSpaces.by_keys` computes with
    numpy's argpartition; exact ties, of probability 0, may pick differently)."""
    return _by_keys(exp, weights, start, lim, int(m))


@jit
def _group_distances(rows, changed, gof, x, scale, cap, priced, up, down, w, n_features, n_groups):
    n, d = rows.shape
    out = np.zeros((n, n_groups))
    l0 = np.zeros(n_groups)
    s1 = np.zeros(n_groups)
    s2 = np.zeros(n_groups)
    mx = np.zeros(n_groups)
    has = np.zeros(n_groups, dtype=np.bool_)
    for i in range(n):
        l0[:] = 0.0
        s1[:] = 0.0
        s2[:] = 0.0
        has[:] = False
        for j in range(d):
            g = gof[j]
            if not changed[i, g]:
                continue
            v = rows[i, j]
            xc = x[j]
            diff = min(abs(v - xc) / scale[j], cap[j])
            if priced:
                cost = up[j] if v > xc else down[j]
                l0[g] += cost if diff != 0 else 0.0
                diff = diff * cost
            else:
                l0[g] += 1.0 if diff != 0 else 0.0
            s1[g] += diff
            s2[g] += diff * diff
            if not has[g] or diff > mx[g]:
                mx[g] = diff
            has[g] = True
        for g in range(n_groups):
            if has[g]:
                out[i, g] = combine(l0[g], s1[g], s2[g], mx[g], w[0], w[1], w[2], w[3], n_features)
    return out


def group_distances(
    rows: np.ndarray, changed: np.ndarray, gof: np.ndarray, spec: tuple
) -> np.ndarray:
    """(rows, G): the distance of x with only group g changed as in the row, for the groups each
    row changes (0 elsewhere), as :func:`geco.search.operators.group_distances`."""
    x, scale, cap, priced, up, down, w, n_features = spec
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    changed = np.ascontiguousarray(changed)
    return _group_distances(rows, changed, gof, x, scale, cap, priced, up, down, w, float(n_features),
                            changed.shape[1])  # fmt: skip


@jit
def _crossover(rows, changed, x, gof, u):
    p, d = rows.shape
    g = changed.shape[1]
    n = p * (p - 1) // 2
    out = np.empty((n, d))
    out_changed = np.empty((n, g), dtype=np.bool_)
    pick = np.empty(g, dtype=np.bool_)
    t = 0
    for i in range(p - 1):
        for j in range(i + 1, p):
            for c in range(g):
                mi, mj = changed[i, c], changed[j, c]
                pick[c] = mi and (not mj or u[t, c] < 0.5)
                out_changed[t, c] = mi or mj
            for c in range(d):
                if pick[gof[c]]:
                    out[t, c] = rows[i, c]
                elif changed[j, gof[c]]:
                    out[t, c] = rows[j, c]
                else:
                    out[t, c] = x[c]
            t += 1
    return out, out_changed


@jit
def crossover_rows(rng, rows, changed, x, gof):
    """One child per pair (i < j, ``np.triu_indices`` order) of parents, as
    :func:`geco.search.operators.crossover` builds it, drawing as its numpy reference does
    (pairs, G; nothing for fewer than two parents)."""
    p = rows.shape[0]
    if p < 2:
        return np.empty((0, rows.shape[1])), np.empty((0, changed.shape[1]), dtype=np.bool_)
    return _crossover(rows, changed, x, gof, rng.random((p * (p - 1) // 2, changed.shape[1])))


@jit
def _walk_back(rows, changed, count, x, gof, u):
    n, d = rows.shape
    g = changed.shape[1]
    rounds = u.shape[0]
    top = 0
    for i in range(n):
        top = max(top, count[i])
    levels = 0
    while (top >> (levels + 1)) >= 1:
        levels += 1
    per_round = 0
    for s in range(levels):
        for i in range(n):
            if (count[i] >> (s + 1)) >= 1:
                per_round += 1
    out = np.empty((rounds * per_round, d))
    out_changed = np.empty((rounds * per_round, g), dtype=np.bool_)
    rank = np.empty((n, g), dtype=np.intp)
    keys = np.empty(g)
    order = np.empty(g, dtype=np.intp)
    t = 0
    for r in range(rounds):
        for i in range(n):
            for c in range(g):
                keys[c] = u[r, i, c] if changed[i, c] else np.inf
            for k in range(g):
                order[k] = k
            _insertion_order(keys, order, g)
            for k in range(g):
                rank[i, order[k]] = k
        for s in range(levels):
            for i in range(n):
                size = count[i] >> (s + 1)
                if size < 1:
                    continue
                for c in range(g):
                    out_changed[t, c] = changed[i, c] and not rank[i, c] < size
                for c in range(d):
                    gc = gof[c]
                    revert = changed[i, gc] and rank[i, gc] < size
                    out[t, c] = x[c] if revert else rows[i, c]
                t += 1
    return out, out_changed


@jit
def walk_back_rows(rng, rows, changed, x, gof, rounds):
    """What :func:`geco.search.operators.walk_back` makes of its parents, drawing as its numpy
    reference does: the parents changing two groups or more, one draw of (rounds, them, G)."""
    n, G = changed.shape
    count = np.zeros(n, dtype=np.intp)
    two = np.empty(n, dtype=np.bool_)
    for i in range(n):
        for g in range(G):
            count[i] += changed[i, g]
        two[i] = count[i] >= 2
    who = true_indices(two)
    if len(who) == 0:
        return np.empty((0, rows.shape[1])), np.empty((0, G), dtype=np.bool_)
    sub_rows = np.empty((len(who), rows.shape[1]))
    sub_changed = np.empty((len(who), G), dtype=np.bool_)
    sub_count = np.empty(len(who), dtype=np.intp)
    for t in range(len(who)):
        copy_row(sub_rows, t, rows, who[t])
        copy_row(sub_changed, t, changed, who[t])
        sub_count[t] = count[who[t]]
    return _walk_back(sub_rows, sub_changed, sub_count, x, gof, rng.random((rounds, len(who), G)))


#: repeated-draw rounds and the table-to-sample ratio of the reference (geco.search.stacked,
#: geco.search.sampling); the kernel below must draw exactly as it does
_ROUNDS = 4
_SPARSE_RATIO = 4


@jit
def _distinct_draws(rng, group, lim, m, start, base, cumulative, weights):
    """:meth:`geco.search.stacked.StackedSpaces.draw_distinct` (index, valid), drawing from
    ``rng`` call for call as it does: the repeated-draw rounds of the long prefixes, then the
    exponential keys of the short ones, then of the long rows still short, group by group."""
    n = len(group)
    width = 0
    for i in range(n):
        width = max(width, min(m, lim[i]))
    index = np.zeros((n, width), dtype=np.intp)
    valid = np.zeros((n, width), dtype=np.bool_)
    if n == 0 or width == 0:
        return index, valid
    for i in range(n):
        if lim[i] <= m:
            for c in range(width):
                index[i, c] = c
                valid[i, c] = c < lim[i]
    pending = true_indices((lim > m) & (lim >= _SPARSE_RATIO * m))
    n_long = len(pending)
    found = np.zeros((n_long, m), dtype=np.intp)  # each pending row's distinct draws so far
    count = np.zeros(n_long, dtype=np.intp)
    slot = np.arange(n_long)  # pending position -> row of found/count
    n_pending = n_long
    for _ in range(_ROUNDS):
        if n_pending == 0:
            break
        u = rng.random((n_pending, 2 * m))
        still = 0
        for p in range(n_pending):
            i, s = pending[p], slot[p]
            g, L = group[i], lim[i]
            lo = base[g]
            hi = cumulative[start[g] + L - 1]
            for c in range(2 * m):
                if count[s] == m:
                    break
                v = search_right(cumulative, lo + u[p, c] * (hi - lo)) - start[g]
                v = min(max(v, 0), L - 1)
                seen = False
                for k in range(count[s]):
                    if found[s, k] == v:
                        seen = True
                        break
                if not seen:
                    found[s, count[s]] = v
                    count[s] += 1
            if count[s] == m:
                _insertion_sorted(found[s], m)
                for k in range(m):
                    index[i, k] = found[s, k]
                    valid[i, k] = True
            else:
                pending[still], slot[still] = i, s
                still += 1
        n_pending = still
    # exponential keys: the short rows together, then the long rows still short by group
    _keyed_rows(rng, true_indices((lim > m) & (lim < _SPARSE_RATIO * m)), group, lim, m, start, weights, index, valid)
    left = pending[:n_pending].copy()
    if n_pending:
        by_group = stable_order(group[left].astype(np.float64))
        a = 0
        while a < n_pending:
            b = a + 1
            g = group[left[by_group[a]]]
            while b < n_pending and group[left[by_group[b]]] == g:
                b += 1
            mine = np.empty(b - a, dtype=np.intp)  # ascending, as the reference takes them: ``left``
            for t in range(b - a):  # is, and the sort by group is stable
                mine[t] = left[by_group[a + t]]
            _keyed_rows(rng, mine, group, lim, m, start, weights, index, valid)
            a = b
    return index, valid


@jit
def _keyed_rows(rng, rows, group, lim, m, start, weights, index, valid):
    """Rows ``rows`` of ``index``/``valid`` by exponential keys, one draw of
    (len(rows), their longest prefix) as ``StackedSpaces._by_keys`` makes it."""
    k = len(rows)
    if k == 0:
        return
    width = 0
    for r in rows:
        width = max(width, lim[r])
    exp = rng.standard_exponential((k, width))
    first = np.empty(k, dtype=np.intp)
    lims = np.empty(k, dtype=np.intp)
    for t in range(k):
        first[t] = start[group[rows[t]]]
        lims[t] = lim[rows[t]]
    picks = _by_keys(exp, weights, first, lims, m)
    for t in range(k):
        for c in range(m):
            index[rows[t], c] = picks[t, c]
            valid[rows[t], c] = True


@jit
def _distinct_children(rng, rows, changed, src, group, m, lim, start, base, cumulative, weights,
                       n_features, feature_start, features, value_start, values):  # fmt: skip
    index, valid = _distinct_draws(rng, group, lim, m, start, base, cumulative, weights)
    n, width = index.shape
    total = 0
    for i in range(n):
        for c in range(width):
            total += valid[i, c]
    d, G = rows.shape[1], changed.shape[1]
    out = np.empty((total, d))
    out_changed = np.empty((total, G), dtype=np.bool_)
    t = 0
    for i in range(n):
        s, g = src[i], group[i]
        nf = n_features[g]
        for c in range(width):
            if not valid[i, c]:
                continue
            copy_row(out, t, rows, s)
            copy_row(out_changed, t, changed, s)
            at = value_start[g] + index[i, c] * nf
            for f in range(nf):
                out[t, features[feature_start[g] + f]] = values[at + f]
            out_changed[t, g] = True
            t += 1
    return out, out_changed


def distinct_children(rng: np.random.Generator, rows: np.ndarray, changed: np.ndarray, src: np.ndarray,
                      group: np.ndarray, m: int, lim: np.ndarray, stacked) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """What :func:`geco.search.operators._distinct_children` makes: for each pair (parent
    ``src[i]``, ``group[i]``), children with ``min(m, lim[i])`` distinct weighted samples of the
    group among its first ``lim[i]`` values, drawn from ``rng`` as the reference draws them
    (:meth:`geco.search.stacked.StackedSpaces.draw_distinct`), in its order; ``stacked``: the
    :class:`~geco.search.stacked.StackedSpaces`."""
    st = stacked
    return _distinct_children(
        rng, np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(changed),
        np.asarray(src, dtype=np.intp), np.asarray(group, dtype=np.intp), int(m), np.asarray(lim, dtype=np.intp),
        st.start, st.base, st.cumulative, st.weights, st.n_features, st.feature_start, st.features,
        st.value_start, st.values,
    )  # fmt: skip


@jit
def selective_mutation_rows(rng, rows, changed, is_cf, has_space, breadth, m, gof, x, scale, cap, priced, up, down, w,
                        n_feat, start, base, cumulative, weights, n_features, feature_start, features, value_start,
                        values, ranks, rank_key):  # fmt: skip
    P, d = rows.shape
    G = changed.shape[1]
    focus = changed
    if breadth > 0:
        most = 0
        for i in range(P):
            c = 0
            for g in range(G):
                c += changed[i, g]
            most = max(most, c)
        if most > breadth:
            focus = _smallest(rng.random((P, G)), changed, breadth)
    own = _group_distances(rows, changed, gof, x, scale, cap, priced, up, down, w, n_feat, G)
    n_pairs = 0
    for i in range(P):
        for g in range(G):
            n_pairs += changed[i, g] and has_space[g]
    src = np.empty(n_pairs, dtype=np.intp)
    group = np.empty(n_pairs, dtype=np.intp)
    t = 0
    for i in range(P):
        for g in range(G):
            if changed[i, g] and has_space[g]:
                src[t], group[t] = i, g
                t += 1
    n_changed = np.zeros(P, dtype=np.intp)
    for i in range(P):
        for g in range(G):
            n_changed[i] += changed[i, g]
    n_ranks = len(ranks)
    limit = np.empty(n_pairs, dtype=np.intp)
    n_back = 0
    for p in range(n_pairs):
        i, g = src[p], group[p]
        n_back += focus[i, g] and n_changed[i] > 1
        key = g * n_ranks + search_left(ranks, own[i, g])
        limit[p] = search_left(rank_key, key) - start[g]
    ok = true_indices(limit > 0)
    pick = np.empty(len(ok), dtype=np.intp)
    if len(ok):
        u = rng.random(len(ok))
        for k in range(len(ok)):
            g, L = group[ok[k]], limit[ok[k]]
            lo = base[g]
            hi = cumulative[start[g] + L - 1]
            v = search_right(cumulative, lo + u[k] * (hi - lo)) - start[g]
            pick[k] = min(max(v, 0), L - 1)
    n_near, n_steps_all = 0, 0
    for k in range(len(ok)):
        p = ok[k]
        if focus[src[p], group[p]]:
            n_near += 1
    wn = np.empty(n_near, dtype=np.intp)
    gn = np.empty(n_near, dtype=np.intp)
    ln = np.empty(n_near, dtype=np.intp)
    steps = np.empty(n_near, dtype=np.intp)
    t = 0
    for k in range(len(ok)):
        p = ok[k]
        if focus[src[p], group[p]]:
            wn[t], gn[t], ln[t] = src[p], group[p], limit[p]
            steps[t] = 1
            if is_cf[src[p]]:  # floor(log2(L)) + 1: L's bit length
                b, L = 0, max(limit[p], 1)
                while L:
                    b += 1
                    L >>= 1
                steps[t] = b
            n_steps_all += steps[t]
            t += 1
    moved = np.zeros(P, dtype=np.bool_)
    for k in range(len(ok)):
        moved[src[ok[k]]] = True
    n_moved = 0
    for i in range(P):
        n_moved += moved[i]
    # the random children come last in the reference's order but draw before the rows are laid out
    distinct_rows, distinct_changed = _distinct_children(
        rng, rows, changed, wn, gn, m, ln, start, base, cumulative, weights, n_features, feature_start, features,
        value_start, values,
    )  # fmt: skip
    total = n_back + n_steps_all + len(distinct_rows) + n_moved
    out = np.empty((total, d))
    out_changed = np.empty((total, G), dtype=np.bool_)
    t = 0
    for p in range(n_pairs):  # each changed group reverted to x
        i, g = src[p], group[p]
        if focus[i, g] and n_changed[i] > 1:
            copy_row(out, t, rows, i)
            copy_row(out_changed, t, changed, i)
            for f in range(n_features[g]):
                c = features[feature_start[g] + f]
                out[t, c] = x[c]
            out_changed[t, g] = False
            t += 1
    for k in range(n_near):  # steps of 1, 2, 4, ... positions towards x
        for s in range(steps[k]):
            copy_row(out, t, rows, wn[k])
            copy_row(out_changed, t, changed, wn[k])
            set_group(out, t, gn[k], ln[k] - (1 << s), n_features, feature_start, features, value_start, values)
            out_changed[t, gn[k]] = True
            t += 1
    for r in range(len(distinct_rows)):
        copy_row(out, t, distinct_rows, r)
        copy_row(out_changed, t, distinct_changed, r)
        t += 1
    first = t
    for i in range(P):  # every changed group resampled at once
        if moved[i]:
            copy_row(out, t, rows, i)
            copy_row(out_changed, t, changed, i)
            t += 1
    slot = np.full(P, -1, dtype=np.intp)
    t = first
    for i in range(P):
        if moved[i]:
            slot[i] = t
            t += 1
    for k in range(len(ok)):
        p = ok[k]
        set_group(out, slot[src[p]], group[p], pick[k], n_features, feature_start, features, value_start, values)
    return out, out_changed


def selective_mutation(rng: np.random.Generator, rows: np.ndarray, changed: np.ndarray, is_cf: np.ndarray,
                       has_space: np.ndarray, breadth: int | None, m: int, gof: np.ndarray, spec: tuple,
                       stacked) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """What :func:`geco.search.operators.selective_mutation` makes of its parents (full rows,
    changed groups, whether each is a counterfactual), in its order and drawing from ``rng``
    as it does; ``spec``: ``DistanceSpec.cell_terms()``, ``stacked``: the
    :class:`~geco.search.stacked.StackedSpaces`."""
    x, scale, cap, priced, up, down, w, n_feat = spec
    st = stacked
    return selective_mutation_rows(
        rng, np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(changed),
        np.ascontiguousarray(is_cf, dtype=np.bool_), np.ascontiguousarray(has_space, dtype=np.bool_),
        -1 if breadth is None else int(breadth), int(m), gof, x, scale, cap, priced, up, down, w, float(n_feat),
        st.start, st.base, st.cumulative, st.weights, st.n_features, st.feature_start, st.features, st.value_start,
        st.values, st.ranks, st.rank_key,
    )  # fmt: skip


@jit
def mutation_rows(rng, rows, changed, has_space, breadth, m, start, size, base, cumulative, weights, n_features,
              feature_start, features, value_start, values):  # fmt: skip
    P, G = changed.shape
    open_ = np.empty((P, G), dtype=np.bool_)
    most = 0
    for i in range(P):
        c = 0
        for g in range(G):
            open_[i, g] = not changed[i, g] and has_space[g]
            c += open_[i, g]
        most = max(most, c)
    if breadth > 0 and P and most > breadth:
        open_ = _smallest(rng.random((P, G)), open_, breadth)
    n = 0
    for i in range(P):
        for g in range(G):
            n += open_[i, g]
    src = np.empty(n, dtype=np.intp)
    group = np.empty(n, dtype=np.intp)
    t = 0
    for g in range(G):  # group by group, each group's parents in order
        for i in range(P):
            if open_[i, g]:
                src[t], group[t] = i, g
                t += 1
    lim = np.empty(n, dtype=np.intp)
    for t in range(n):
        lim[t] = size[group[t]]
    return _distinct_children(rng, rows, changed, src, group, m, lim, start, base, cumulative, weights, n_features,
                              feature_start, features, value_start, values)  # fmt: skip


def mutation(rng: np.random.Generator, rows: np.ndarray, changed: np.ndarray, has_space: np.ndarray,
             m: int, breadth: int | None, stacked) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """What :func:`geco.search.operators.mutation` makes of its parents (full rows, changed
    groups), in its order and drawing from ``rng`` as it does."""
    st = stacked
    return mutation_rows(
        rng, np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(changed),
        np.ascontiguousarray(has_space, dtype=np.bool_), -1 if breadth is None else int(breadth), int(m), st.start,
        st.size, st.base, st.cumulative, st.weights, st.n_features, st.feature_start, st.features, st.value_start,
        st.values,
    )  # fmt: skip
