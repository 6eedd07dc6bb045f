"""The generation's bookkeeping compiled: a pool's new rows (hashes, distances, first
occurrences) in one pass, which of them are within reach of the options, the selection with its
niches, each Δ's best rows, and the archive's distinct options."""

from __future__ import annotations

from typing import Any

import numpy as np

from geco.search.kernels.common import (
    GOLDEN,
    add_cell,
    combine,
    copy_row,
    inlined,
    jit,
    mix,
    stable_order,
    true_indices,
)

#: the bits of -0.0, which the cell hashes read as 0.0's (as ``value + 0.0`` makes them)
NEGATIVE_ZERO = np.uint64(1) << np.uint64(63)

__all__ = ["absent", "archive_slots", "block_best", "block_best_rows", "distinct_options", "gather", "greedy_options", "index_words", "merge_order",
           "new_rows", "offer_blocks", "reach_within", "read_cells", "row_distances", "row_statuses", "scored_find", "scored_insert", "select_pools", "selection", "stored_values", "within_reach"]


@jit
def _group_columns(gof, n_groups):
    """Each group's columns, ascending, end to end (``columns[start[g]:start[g + 1]]``)."""
    start = np.zeros(n_groups + 1, dtype=np.intp)
    for j in range(len(gof)):
        start[gof[j] + 1] += 1
    for g in range(n_groups):
        start[g + 1] += start[g]
    columns = np.empty(len(gof), dtype=np.intp)
    fill = start[:-1].copy()
    for j in range(len(gof)):
        columns[fill[gof[j]]] = j
        fill[gof[j]] += 1
    return start, columns


@jit
def _changed_columns(changed, i, start, columns, keep, cols, words, with_words):
    """Row ``i``'s columns of its changed groups that ``keep`` marks, ascending, into ``cols``
    (from the groups' column lists, :func:`_group_columns`; an insertion sort where the groups'
    columns interleave); how many. ``with_words``: its key words too, into ``words[i]``, in the
    same pass over the groups."""
    k = 0
    ordered = True
    for g in range(changed.shape[1]):
        if changed[i, g]:
            if with_words:
                words[i, g >> 6] |= np.uint64(1) << np.uint64(g & 63)
            for t in range(start[g], start[g + 1]):
                j = columns[t]
                if not keep[j]:
                    continue
                if k and j < cols[k - 1]:
                    ordered = False
                cols[k] = j
                k += 1
    if not ordered:
        for a in range(1, k):
            j = cols[a]
            b = a - 1
            while b >= 0 and cols[b] > j:
                cols[b + 1] = cols[b]
                b -= 1
            cols[b + 1] = j
    return k


@inlined
def _listed_cells(rows, bits, i, cols, k, x, scale, cap, priced, up, down, w, n_features, salt, with_hash):
    """Row ``i``'s distance over its cells ``cols[:k]`` (in that order: the sums' order) and,
    ``with_hash``, their cell hash from the rows' ``bits`` (-0.0 hashes as 0.0; else 0), in one
    pass (two passes cost new rows a third more on the wide table)."""
    l0 = 0.0
    s1 = 0.0
    s2 = 0.0
    mx = 0.0
    h = np.uint64(0)
    for t in range(k):
        j = cols[t]
        l0, s1, s2, mx = add_cell(rows[i, j], x[j], scale[j], cap[j], priced, up[j], down[j], l0, s1, s2, mx)
        if with_hash:
            b = bits[i, j]
            h += mix((b if b != NEGATIVE_ZERO else np.uint64(0)) ^ salt[j])
    return combine(l0, s1, s2, mx, w[0], w[1], w[2], w[3], n_features), h


@jit
def _cells_pass(bits, rows, changed, gof, x, scale, cap, priced, up, down, w, n_features, n_words):
    """Per row, over the cells of its changed groups (column order): the cell hash (wrapping sum
    of mixed cells, as ``cell_hashes``) and the distance (as ``DistanceSpec.of_cells`` over
    ``DistanceSpec.cells``: sequential sums, the max of the differences); and its key words
    (``key_words``). Each row lists its changed groups' columns in column order
    (:func:`_changed_columns`: a wide table's row changes a few of a hundred groups), then
    prices and hashes those cells alone."""
    n, d = rows.shape
    G = changed.shape[1]
    salt = np.empty(d, dtype=np.uint64)
    for j in range(d):
        salt[j] = mix(np.uint64(j) + GOLDEN)
    start, columns = _group_columns(gof, G)
    hashes = np.zeros(n, dtype=np.uint64)
    dist = np.zeros(n)
    words = np.zeros((n, n_words), dtype=np.uint64)
    cols = np.empty(d + 1, dtype=np.intp)
    every = np.ones(d, dtype=np.bool_)
    for i in range(n):
        k = _changed_columns(changed, i, start, columns, every, cols, words, True)
        dist[i], hashes[i] = _listed_cells(rows, bits, i, cols, k, x, scale, cap, priced, up, down, w, n_features,
                                           salt, True)  # fmt: skip
    return hashes, dist, words


@jit
def lower_distances(rows, changed, gof, free, x, scale, cap, priced, up, down, w, n_features):
    """Per row, its distance over the cells of its changed groups that ``free`` marks: the
    other cells read as x's (which add zeros) and the rows priced as :func:`row_distances`
    prices them - at most the distance over all of them, as every norm only grows with more
    cells and rounding keeps that order (a sum of non-negative terms rounded step by step never
    falls when a term joins it). Only those cells are read, in column order (the cells left
    out would add exact zeros): a wide table's row changes a few of a hundred groups."""
    n, d = rows.shape
    start, columns = _group_columns(gof, changed.shape[1])
    cols = np.empty(d + 1, dtype=np.intp)
    no_words = np.zeros((1, 1), dtype=np.uint64)
    no_bits = np.zeros((1, 1), dtype=np.uint64)
    out = np.empty(n)
    for i in range(n):
        k = _changed_columns(changed, i, start, columns, free, cols, no_words, False)
        out[i] = _listed_cells(rows, no_bits, i, cols, k, x, scale, cap, priced, up, down, w, n_features, no_words[0],
                               False)[0]  # fmt: skip
    return out


@jit
def _row_distances(rows, x, scale, cap, priced, up, down, w0, w1, w2, w3, n_features):
    n, d = rows.shape
    out = np.empty(n)
    for i in range(n):
        l0 = 0.0
        s1 = 0.0
        s2 = 0.0
        mx = 0.0
        for j in range(d):  # column order, as DistanceSpec.combine sums; a cell at x adds zeros
            l0, s1, s2, mx = add_cell(rows[i, j], x[j], scale[j], cap[j], priced, up[j], down[j], l0, s1, s2, mx)
        out[i] = combine(l0, s1, s2, mx, w0, w1, w2, w3, n_features)
    return out


def row_distances(rows: np.ndarray, spec: tuple) -> np.ndarray:
    """GeCo's distance of each full row to x: what ``DistanceSpec(np.arange(d), rows)`` gives
    (the same sums in the same order), in one pass. ``spec``:
    :meth:`geco.problem.distance.DistanceSpec.cell_terms`."""
    x, scale, cap, priced, up, down, w, n_features = spec
    w0, w1, w2, w3 = (float(v) for v in w)
    return _row_distances(np.ascontiguousarray(rows, dtype=np.float64), x, scale, cap, bool(priced), up, down, w0, w1,
                          w2, w3, float(n_features))  # fmt: skip


@jit
def _slot(keys, used, h):
    """Where ``h`` sits in the open-addressing table (``keys``, ``used``; a power of two long,
    never full), or the empty slot where it would go: linear probing from its mixed bits."""
    mask = np.uint64(len(keys) - 1)
    i = (h * GOLDEN) >> np.uint64(32)
    while True:
        at = np.intp(i & mask)
        if not used[at] or keys[at] == h:
            return at
        i += np.uint64(1)


@jit
def _empty_table(n):
    """The arrays of an empty open-addressing table for ``n`` keys (:func:`_slot`): keys and
    whether each slot is used, a power of two at least twice ``n`` long."""
    size = 16
    while size < 2 * n:
        size *= 2
    return np.zeros(size, dtype=np.uint64), np.zeros(size, dtype=np.bool_)


@jit
def _fresh(old_hashes, hashes, alive):
    """Indices (ascending) of the ``alive`` rows whose hash is neither an old one nor an earlier
    such row's: the first occurrences ``np.unique(concat(old, new), return_index=True)`` keeps
    of the new rows alive. An open-addressing set of the hashes seen, so no sort."""
    table, used = _empty_table(len(old_hashes) + len(hashes))
    for hv in old_hashes:
        slot = _slot(table, used, hv)
        used[slot] = True
        table[slot] = hv
    keep = np.empty(len(hashes), dtype=np.intp)
    kept = 0
    for i in range(len(hashes)):
        if not alive[i]:
            continue
        hv = hashes[i]
        slot = _slot(table, used, hv)
        if used[slot]:
            continue
        used[slot] = True
        table[slot] = hv
        keep[kept] = i
        kept += 1
    return keep[:kept]


@jit
def _new_rows(
    bits, rows, changed, gof, x, scale, cap, priced, up, down, w, n_features, old_hashes, n_words, alive
):
    hashes, dist, words = _cells_pass(
        bits, rows, changed, gof, x, scale, cap, priced, up, down, w, n_features, n_words
    )
    return hashes, dist, _fresh(old_hashes, hashes, alive), words


def new_rows(rows: np.ndarray, changed: np.ndarray, gof: np.ndarray, spec: tuple, old_hashes: np.ndarray,
             alive: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """For new candidates (Δ-representation rows): their cell hashes, distances, the indices of
    those ``alive`` (all when None) not equal to an ``old_hashes`` row or an earlier such row
    (ascending), and their key words. ``spec``: :meth:`geco.problem.distance.DistanceSpec.cell_terms`."""
    x, scale, cap, priced, up, down, w, n_features = spec
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    bits = rows.view(np.uint64)  # read in place: the kernel maps -0.0 to 0.0 on the cells it hashes
    n_words = max(1, -(-changed.shape[1] // 64))
    alive = np.ones(len(rows), dtype=np.bool_) if alive is None else alive
    return _new_rows(bits, rows, np.ascontiguousarray(changed), gof, x, scale, cap, priced, up, down, w,
                     float(n_features), old_hashes, n_words, alive)  # fmt: skip


@jit
def _owners(words):
    """Each row's block (rows sorted by key words: a block is a run of equal words)."""
    n = len(words)
    owner = np.zeros(n, dtype=np.intp)
    b = 0
    for i in range(1, n):
        if not _same_words(words, i, words, i - 1):
            b += 1
        owner[i] = b
    return owner, (b + 1 if n else 0)


@jit
def _equal(a, b):
    """``a == b`` element by element (a loop: numba's array expressions cost seconds to compile)."""
    out = np.empty(len(a), dtype=np.bool_)
    for i in range(len(a)):
        out[i] = a[i] == b[i]
    return out


@jit
def _niche(order, owner, n_blocks, q, count, qualifies, use_qualifies, keep):
    """Mark in ``keep`` what ``geco.search.loop.niche`` returns (rows in score ``order``)."""
    if len(order) <= q:
        return
    seen = np.zeros(n_blocks, dtype=np.bool_)
    for t in range(q):
        seen[owner[order[t]]] = True
    met = np.zeros(n_blocks, dtype=np.bool_)
    taken = 0
    for t in range(q, len(order)):
        if taken >= count:
            break
        i = order[t]
        if use_qualifies and not qualifies[i]:
            continue
        b = owner[i]
        if met[b]:
            continue
        met[b] = True
        if not seen[b]:
            keep[i] = True
            taken += 1


@jit
def _selection(words, scores, dist, estab, order, q, k):
    owner, n_blocks = _owners(words)
    n = len(scores)
    is_cf = _equal(scores, dist)
    top = min(q, n)
    head = min(k, top)
    converged = head > 0
    for t in range(head):
        if not (estab[order[t]] and is_cf[order[t]]):
            converged = False
    keep = np.zeros(n, dtype=np.bool_)
    for t in range(top):
        keep[order[t]] = True
    _niche(order, owner, n_blocks, q, 2 * k, is_cf, True, keep)
    _niche(order, owner, n_blocks, q, q // 4, is_cf, False, keep)
    return true_indices(keep), converged


@jit
def _lowest(scores, cut, count, mark):
    """Mark the ``count`` rows lowest by (score, index), ``cut`` being the count-th lowest
    score: every row below it, then rows equal to it in index order."""
    less = 0
    for i in range(len(scores)):
        if scores[i] < cut:
            mark[i] = True
            less += 1
    need = count - less
    for i in range(len(scores)):
        if need <= 0:
            break
        if scores[i] == cut:
            mark[i] = True
            need -= 1


@jit
def _niche_by_blocks(scores, owner, n_blocks, seen, count, qualifies, use_qualifies, keep):
    """What :func:`_niche` marks, without the full order: each unseen block's best row (that
    ``qualifies``; ties: the first), the ``count`` best of those by (score, index)."""
    best = np.full(n_blocks, -1, dtype=np.intp)
    for i in range(len(scores)):
        b = owner[i]
        if seen[b] or (use_qualifies and not qualifies[i]):
            continue
        if best[b] < 0 or scores[i] < scores[best[b]]:
            best[b] = i
    m = 0
    for b in range(n_blocks):
        if best[b] >= 0:
            best[m] = best[b]
            m += 1
    keys = np.empty(m)  # the rows ascending (blocks are runs of rows in order), by score
    for t in range(m):
        keys[t] = scores[best[t]]
    by_score = stable_order(keys)
    for t in range(min(count, m)):
        keep[best[by_score[t]]] = True


@jit
def _selection_by_cuts(words, scores, dist, estab, cut_top, cut_head, q, k):
    owner, n_blocks = _owners(words)
    n = len(scores)
    is_cf = _equal(scores, dist)
    top = min(q, n)
    head = min(k, top)
    keep = np.zeros(n, dtype=np.bool_)
    _lowest(scores, cut_top, top, keep)
    first = np.zeros(n, dtype=np.bool_)
    _lowest(scores, cut_head, head, first)
    converged = head > 0
    for i in range(n):
        if first[i] and not (estab[i] and is_cf[i]):
            converged = False
    if n > q:
        seen = np.zeros(n_blocks, dtype=np.bool_)
        for i in range(n):
            if keep[i]:
                seen[owner[i]] = True
        niches = np.zeros(n, dtype=np.bool_)
        _niche_by_blocks(scores, owner, n_blocks, seen, 2 * k, is_cf, True, niches)
        _niche_by_blocks(scores, owner, n_blocks, seen, q // 4, is_cf, False, niches)
        for i in range(n):
            keep[i] = keep[i] or niches[i]
    return true_indices(keep), converged


def selection(words: np.ndarray, scores: np.ndarray, dist: np.ndarray, estab: np.ndarray, q: int,
              k: int) -> tuple[np.ndarray, bool]:  # fmt: skip
    """What :meth:`geco.search.loop.GeneticSearch.select` decides on the merged rows (in key
    order): the positions it keeps (ascending) and whether the run converged. The top ``q`` and
    ``k`` are cut at their last score (``np.partition``) and the niches read each block's best
    row: the same rows as the stable order of every score gives, for a third of its cost;
    scores with NaN take that order."""
    n = len(scores)
    if n == 0:
        return np.zeros(0, dtype=np.intp), False
    words = np.ascontiguousarray(words)
    top, head = min(int(q), n), min(int(k), n)
    if np.isnan(scores).any():
        order = np.argsort(scores, kind="stable")
        keep, converged = _selection(words, scores, dist, estab, order, int(q), int(k))
    else:
        cuts = np.partition(scores, [head - 1, top - 1])
        keep, converged = _selection_by_cuts(words, scores, dist, estab, cuts[top - 1], cuts[head - 1], int(q), int(k))
    return keep, bool(converged)


@jit
def _kth_smallest(values, kth):
    """The ``kth`` smallest of ``values`` (0-based; no NaN), what ``np.partition`` puts at
    ``kth``: a quickselect on a copy in plain loops (numba's own partition takes seconds to
    compile on first use)."""
    a = values.copy()
    lo, hi = 0, len(a) - 1
    while lo < hi:
        pivot = a[(lo + hi) >> 1]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while pivot < a[j]:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if kth <= j:
            hi = j
        elif kth >= i:
            lo = i
        else:
            break
    return a[kth]


@jit
def _select_pools(q, k, a_rows, b_rows, a_changed, b_changed, a_words, b_words, a_hashes, b_hashes, a_prob, b_prob,
                  a_dist, b_dist, a_score, b_score, a_estab, b_estab):  # fmt: skip
    n_a = len(a_score)
    n = n_a + len(b_score)
    merged = _merge_order(a_words, b_words)
    words = np.empty((n, a_words.shape[1]), dtype=np.uint64)
    scores, dist, estab = np.empty(n), np.empty(n), np.empty(n, dtype=np.bool_)
    nan = False
    for t in range(n):
        i = merged[t]
        if i < n_a:
            copy_row(words, t, a_words, i)
            scores[t], dist[t], estab[t] = a_score[i], a_dist[i], a_estab[i]
        else:
            copy_row(words, t, b_words, i - n_a)
            scores[t], dist[t], estab[t] = b_score[i - n_a], b_dist[i - n_a], b_estab[i - n_a]
        nan = nan or scores[t] != scores[t]
    converged = False
    if nan:  # the caller takes the stable order of every score
        kept = merged[:0]
    else:
        top, head = min(q, n), min(k, n)
        keep, converged = _selection_by_cuts(words, scores, dist, estab, _kth_smallest(scores, top - 1),
                                             _kth_smallest(scores, head - 1), q, k)  # fmt: skip
        kept = merged[keep]
    out = _gather(kept, n_a, a_rows, b_rows, a_changed, b_changed, a_words, b_words, a_hashes, b_hashes, a_prob,
                  b_prob, a_dist, b_dist, a_score, b_score, a_estab, b_estab)  # fmt: skip
    out[7][:] = True
    return out, converged, nan


def select_pools(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...], q: int,
                 k: int) -> tuple[tuple[np.ndarray, ...], bool] | None:  # fmt: skip
    """:meth:`geco.search.loop.GeneticSearch.select` of two pools' fields (as
    :meth:`geco.search.population.Pool.fields` lists them; at least one row) in one call: the
    pools merged in key order, :func:`selection` on the merged rows and :func:`gather` of those
    kept (their ``established`` set); with whether the run converged. None where a score is
    NaN (:func:`selection` then takes the stable order of every score)."""
    out, converged, nan = _select_pools(int(q), int(k), *(np.ascontiguousarray(f) for pair in zip(a, b) for f in pair))
    return None if nan else (out, bool(converged))


@jit
def block_best_rows(starts, n, score, top):
    """What :func:`block_best` gives, for compiled callers."""
    n_blocks = len(starts)
    total = 0
    for b in range(n_blocks):
        end = starts[b + 1] if b + 1 < n_blocks else n
        total += min(top, end - starts[b])
    out = np.empty(total, dtype=np.intp)
    t = 0
    for b in range(n_blocks):
        lo = starts[b]
        end = starts[b + 1] if b + 1 < n_blocks else n
        if top == 1:
            best = lo
            for i in range(lo + 1, end):
                if score[i] < score[best]:
                    best = i
            out[t] = best
            t += 1
            continue
        order = stable_order(score[lo:end])
        for k in range(min(top, end - lo)):
            out[t] = lo + order[k]
            t += 1
    return out


def block_best(starts: np.ndarray, n: int, score: np.ndarray, top: int = 1) -> np.ndarray:
    """The ``top`` lowest-scored rows of each block (rows ``starts[b]`` up to the next start,
    of ``n`` rows), blocks in order, each block's by score (ties: row order): what
    ``np.lexsort((score, owner))`` keeps of each block's first ``top``."""
    return block_best_rows(np.asarray(starts, dtype=np.intp), int(n), score, int(top))


@jit
def scored_find(keys, values, used, hashes):
    """Per hash: whether the table holds it, and its value there (NaN where it does not)."""
    n = len(hashes)
    known = np.zeros(n, dtype=np.bool_)
    out = np.full(n, np.nan)
    for r in range(n):
        at = _slot(keys, used, hashes[r])
        if used[at]:
            known[r] = True
            out[r] = values[at]
    return known, out


@jit
def scored_insert(keys, values, used, hashes, probs):
    """Put each hash with its value into the table (a hash already there takes the new value);
    the number of hashes new to it. The caller keeps the table at most half full."""
    added = 0
    for r in range(len(hashes)):
        at = _slot(keys, used, hashes[r])
        if not used[at]:
            used[at] = True
            keys[at] = hashes[r]
            added += 1
        values[at] = probs[r]
    return added


@jit
def _stored_values(changed, starts, n, row_cols):
    total = 0
    for b in range(len(starts)):
        end = starts[b + 1] if b + 1 < len(starts) else n
        width = 0
        for g in range(changed.shape[1]):
            if changed[starts[b], g]:
                width += row_cols[g]
        total += (end - starts[b]) * width
    return total


def stored_values(changed: np.ndarray, starts: np.ndarray, row_cols: np.ndarray) -> int:
    """The values a pool holds in the Δ-representation: each block's rows (``starts``, as
    :func:`block_best` reads them) times the columns of its changed groups (``row_cols``: per
    group)."""
    return int(_stored_values(np.ascontiguousarray(changed), np.asarray(starts, dtype=np.intp), len(changed), row_cols))


@jit
def _includes(words, i, p):
    """Whether row ``i``'s key words include row ``p``'s (its changed groups are a superset)."""
    inside = True
    for c in range(words.shape[1]):
        if words[i, c] & words[p, c] != words[p, c]:
            inside = False
            break
    return inside


@jit
def _distinct_options(order, words, count):
    picks = np.empty(count, dtype=np.intp)
    n_picks = 0
    for i in order:
        if n_picks == count:
            break
        covered = False
        for t in range(n_picks):
            if _includes(words, i, picks[t]):
                covered = True
                break
        if not covered:
            picks[n_picks] = i
            n_picks += 1
    return picks[:n_picks]


def distinct_options(order: np.ndarray, words: np.ndarray, count: int) -> np.ndarray:
    """The first ``count`` rows in ``order`` whose key ``words`` include no earlier pick's (a
    greedy pick of distinct kinds of change, as :meth:`geco.search.archive.Archive.options`
    makes it chunk by chunk)."""
    return _distinct_options(np.asarray(order, dtype=np.intp), np.ascontiguousarray(words), int(count))


@jit
def _gather(idx, n_a, a_rows, b_rows, a_changed, b_changed, a_words, b_words, a_hashes, b_hashes,
            a_prob, b_prob, a_dist, b_dist, a_score, b_score, a_estab, b_estab):  # fmt: skip
    m = len(idx)
    rows = np.empty((m, a_rows.shape[1]), dtype=a_rows.dtype)
    changed = np.empty((m, a_changed.shape[1]), dtype=np.bool_)
    words = np.empty((m, a_words.shape[1]), dtype=np.uint64)
    hashes = np.empty(m, dtype=np.uint64)
    prob = np.empty(m)
    dist = np.empty(m)
    score = np.empty(m)
    estab = np.empty(m, dtype=np.bool_)
    for t in range(m):
        i = idx[t]
        if i < n_a:
            copy_row(rows, t, a_rows, i)
            copy_row(changed, t, a_changed, i)
            copy_row(words, t, a_words, i)
            hashes[t], prob[t], dist[t], score[t], estab[t] = a_hashes[i], a_prob[i], a_dist[i], a_score[i], a_estab[i]
        else:
            j = i - n_a
            copy_row(rows, t, b_rows, j)
            copy_row(changed, t, b_changed, j)
            copy_row(words, t, b_words, j)
            hashes[t], prob[t], dist[t], score[t], estab[t] = b_hashes[j], b_prob[j], b_dist[j], b_score[j], b_estab[j]
    return rows, changed, words, hashes, prob, dist, score, estab


def gather(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...], idx: np.ndarray) -> tuple[np.ndarray, ...]:
    """Rows ``idx`` of two pools' fields (rows, changed, words, hashes, prob, dist, score,
    established, as :meth:`geco.search.population.Pool.fields` lists them), ``a``'s rows
    followed by ``b``'s, in ``idx``'s order (:meth:`~geco.search.population.Pool.gather`): one
    pass instead of four fancy-index copies per field."""
    return _gather(np.asarray(idx, dtype=np.intp), len(a[0]),
                   *(np.ascontiguousarray(f) for pair in zip(a, b) for f in pair))  # fmt: skip


@jit
def _row_statuses(asked, asked_hashes, a_rows, a_hashes, a_met, a_dist, b_rows, b_hashes, b_met, b_dist):
    n_a, n_b = len(a_hashes), len(b_hashes)
    table, used = _empty_table(n_a + n_b)
    owner = np.empty(len(table), dtype=np.intp)  # the first row (a's, then b's) of each hash
    for j in range(n_a + n_b):
        hv = a_hashes[j] if j < n_a else b_hashes[j - n_a]
        slot = _slot(table, used, hv)
        if not used[slot]:
            used[slot] = True
            owner[slot] = j
            table[slot] = hv
    m, d = asked.shape
    met = np.full(m, -1, dtype=np.int8)
    dist = np.full(m, np.inf)
    for i in range(m):
        slot = _slot(table, used, asked_hashes[i])
        if not used[slot]:
            continue
        j = owner[slot]
        same = True
        for c in range(d):
            v = a_rows[j, c] if j < n_a else b_rows[j - n_a, c]
            if v != asked[i, c]:
                same = False
                break
        if same:
            if j < n_a:
                met[i], dist[i] = a_met[j], a_dist[j]
            else:
                met[i], dist[i] = b_met[j - n_a], b_dist[j - n_a]
    return met, dist


def row_statuses(asked: np.ndarray, asked_hashes: np.ndarray, a: tuple[np.ndarray, ...],
                 b: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """What :func:`geco.search.loop.row_statuses` gives for rows ``asked`` (hashes
    ``asked_hashes``) against two pools ``a``, ``b``, each as (rows, hashes, met, dist): the
    pools' hashes in an open-addressing set (the first row of each hash, ``a``'s first), each
    asked row looked up and then compared value by value in place (``==``: -0.0 equals 0.0,
    NaN nothing); 1 / 0 met or not and the distance, -1 and inf where no row is equal."""
    def f64(v):
        return np.ascontiguousarray(v, dtype=np.float64)

    return _row_statuses(f64(asked), np.asarray(asked_hashes, dtype=np.uint64),
                         f64(a[0]), np.asarray(a[1], dtype=np.uint64), np.asarray(a[2], dtype=np.int8), f64(a[3]),
                         f64(b[0]), np.asarray(b[1], dtype=np.uint64), np.asarray(b[2], dtype=np.int8), f64(b[3]))  # fmt: skip


@jit
def _words_hash(words, i):
    h = np.uint64(0)
    for c in range(words.shape[1]):
        h = mix(h ^ words[i, c])
    return h


@jit
def _same_words(a, i, b, j):
    same = True
    for c in range(a.shape[1]):
        if a[i, c] != b[j, c]:
            same = False
            break
    return same


@jit
def _index_words(owner, words, n):
    mask = np.uint64(len(owner) - 1)
    owner[:] = -1
    for j in range(n):
        slot = _words_hash(words, j) & mask
        while owner[slot] >= 0:
            slot = (slot + np.uint64(1)) & mask
        owner[slot] = j


def index_words(size: int, words: np.ndarray, n: int) -> np.ndarray:
    """An open-addressing index of the first ``n`` rows of ``words`` (distinct keys): ``size``
    (a power of two, at least twice ``n``) slots holding a row number each, -1 where empty."""
    owner = np.empty(size, dtype=np.intp)
    _index_words(owner, words, int(n))
    return owner


@jit
def _probe(owner, archive_words, words, i):
    """The index position of row ``i``'s key: where the archive row with equal words sits, or
    the empty position it would take (open addressing, linear probing)."""
    mask = np.uint64(len(owner) - 1)
    slot = _words_hash(words, i) & mask
    while owner[slot] >= 0 and not _same_words(archive_words, owner[slot], words, i):
        slot = (slot + np.uint64(1)) & mask
    return slot


@jit
def _archive_slots(owner, archive_words, n, words):
    slots = np.empty(len(words), dtype=np.intp)
    for i in range(len(words)):
        slot = _probe(owner, archive_words, words, i)
        if owner[slot] < 0:
            owner[slot] = n
            copy_row(archive_words, n, words, i)
            n += 1
        slots[i] = owner[slot]
    return slots, n


def archive_slots(owner: np.ndarray, archive_words: np.ndarray, n: int, words: np.ndarray) -> tuple[np.ndarray, int]:
    """Each key of ``words`` (key words, one row per Δ) looked up in the archive's index
    ``owner`` (:func:`index_words` over ``archive_words``' first ``n`` rows): its slot, or, for
    a key not there, the next free slot (in order of first appearance), its words written to
    ``archive_words`` and indexed. The slots and the archive's new size. ``owner`` must have room
    for twice the new size, ``archive_words`` for the new size."""
    slots, n = _archive_slots(owner, archive_words, int(n), np.ascontiguousarray(words, dtype=np.uint64))
    return slots, int(n)


@jit
def _offer_blocks(owner, a_words, a_hashes, a_prob, a_dist, a_score, values, offsets, top, group_of_feature, every,
                  n, b0, starts, rows, changed, words, hashes, prob, dist, score, ok):  # fmt: skip
    n_rows = len(score)
    d = rows.shape[1]
    for b in range(b0, len(starts)):
        end = starts[b + 1] if b + 1 < len(starts) else n_rows
        best = -1
        for i in range(starts[b], end):  # the block's lowest finite counterfactual score, ties: the first
            if ok[i] and score[i] < np.inf and (best < 0 or score[i] < score[best]):
                best = i
        if best < 0:
            continue
        slot = _probe(owner, a_words, words, best)
        fresh = owner[slot] < 0
        if fresh and top + d > len(values):  # maybe short (a whole row fits without counting its cells)
            count = d
            if not every:
                count = 0
                for c in range(d):
                    count += changed[best, group_of_feature[c]]
            if top + count > len(values):  # out of room: the caller grows the cells and goes on from here
                return n, top, b
        if fresh:
            owner[slot] = n
            at = n
            n += 1
            offsets[at] = top
            pos = top
        else:
            at = owner[slot]
            if not score[best] < a_score[at]:
                continue
            pos = offsets[at]
        for c in range(d):  # the row's cells: its changed groups' columns (every column), ascending
            if every or changed[best, group_of_feature[c]]:
                values[pos] = rows[best, c]
                pos += 1
        if fresh:
            top = pos
        copy_row(a_words, at, words, best)
        a_hashes[at] = hashes[best]
        a_prob[at] = prob[best]
        a_dist[at] = dist[best]
        a_score[at] = score[best]
    return n, top, len(starts)


def offer_blocks(owner: np.ndarray, archive: tuple[np.ndarray, ...], cells: Any, n: int, starts: np.ndarray,
                 pool: tuple[np.ndarray, ...], ok: np.ndarray) -> int:  # fmt: skip
    """The archive's offer of each block's best counterfactual in one pass: per block of
    ``pool`` (rows, changed, words, hashes, prob, dist, score; blocks from ``starts``), its
    lowest finite score among the ``ok`` rows (ties: the first), looked up in the index ``owner``
    (see :func:`archive_slots`) and written to the ``archive`` arrays (words, hashes, prob,
    dist, score) and its row to ``cells`` (a :class:`geco.search.row_cells.RowCells`: a new
    Δ's cells after those in use, a better row's over its Δ's) when its Δ is new (next slot) or
    it beats the Δ's best. The archive's new size; ``owner`` and the arrays must have room for
    one new Δ per block (twice that in ``owner``); the cells are grown here when short."""
    starts = np.asarray(starts, dtype=np.intp)
    b = 0
    while True:
        n, cells.top, b = _offer_blocks(owner, *archive, cells.values, cells.offsets, int(cells.top),
                                        cells.group_of_feature, bool(cells.every), int(n), b, starts, *pool, ok)  # fmt: skip
        if b == len(starts):
            return int(n)
        cells.room(0, cells.d)  # room for the row that did not fit (and, doubled, for many more)


@jit
def _read_cells(values, offsets, words, group_of_feature, every, x, slots):
    out = np.empty((len(slots), len(x)))
    for t in range(len(slots)):
        s = slots[t]
        pos = offsets[s]
        for c in range(len(x)):
            g = group_of_feature[c]
            if every or (words[s, g >> 6] >> np.uint64(g & 63)) & np.uint64(1):
                out[t, c] = values[pos]
                pos += 1
            else:
                out[t, c] = x[c]
    return out


def read_cells(cells: Any, words: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """The full rows of archive ``slots`` from ``cells`` (a :class:`geco.search.row_cells.RowCells`)
    and the slots' key ``words`` (the archive's, by slot): each changed group's columns from the
    cells, the rest from x, as :meth:`geco.search.row_cells.RowCells.read`."""
    x = cells.x if cells.x is not None else np.zeros(cells.d)
    return _read_cells(cells.values, cells.offsets, words, cells.group_of_feature, bool(cells.every), x,
                       np.asarray(slots, dtype=np.intp))  # fmt: skip


@jit
def _key_before(a, i, b, j):
    """Whether row ``i`` of ``a`` sorts before row ``j`` of ``b`` by key (the last word is the
    most significant)."""
    for c in range(a.shape[1] - 1, -1, -1):
        if a[i, c] != b[j, c]:
            return a[i, c] < b[j, c]
    return False


@jit
def _absent(words, starts, archive_words, slots):
    out = np.zeros(len(slots), dtype=np.bool_)
    for t in range(len(slots)):
        lo, hi = 0, len(starts)  # the first block whose key is not before the slot's
        while lo < hi:
            mid = (lo + hi) // 2
            if _key_before(words, starts[mid], archive_words, slots[t]):
                lo = mid + 1
            else:
                hi = mid
        out[t] = lo == len(starts) or not _same_words(words, starts[lo], archive_words, slots[t])
    return out


def absent(words: np.ndarray, starts: np.ndarray, archive_words: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """Per archive slot, whether its Δ (its key words) has no block in a pool (key ``words`` in
    key order, blocks from ``starts``): binary search over the blocks' keys."""
    return _absent(np.ascontiguousarray(words), np.asarray(starts, dtype=np.intp), archive_words,
                   np.asarray(slots, dtype=np.intp))  # fmt: skip


@jit
def _greedy_options(scores, words, count):
    n = len(words)
    alive = np.ones(n, dtype=np.bool_)
    picks = np.empty(count, dtype=np.intp)
    k = 0
    while k < count:
        best = -1
        for i in range(n):  # the lowest score left, ties: the lowest row (a stable order's next)
            if alive[i] and (best < 0 or scores[i] < scores[best]):
                best = i
        if best < 0:
            break
        picks[k] = best
        k += 1
        for i in range(n):  # the pick and every row whose key words include its own are out
            if alive[i] and _includes(words, i, best):
                alive[i] = False
    return picks[:k]


def greedy_options(scores: np.ndarray, words: np.ndarray, count: int) -> np.ndarray:
    """What :func:`distinct_options` picks over every row in stable score order, without the
    sort: ``count`` rounds of the lowest score among the rows left, each dropping the rows whose
    key words include the pick's (``count`` passes over the rows instead of a sort of them)."""
    return _greedy_options(np.ascontiguousarray(scores, dtype=np.float64), np.ascontiguousarray(words), int(count))


@jit
def _merge_order(a, b):
    na, nb = len(a), len(b)
    out = np.empty(na + nb, dtype=np.intp)
    i = j = t = 0
    while i < na and j < nb:
        if _key_before(b, j, a, i):  # equal keys: a's row first
            out[t] = na + j
            j += 1
        else:
            out[t] = i
            i += 1
        t += 1
    while i < na:
        out[t] = i
        i += 1
        t += 1
    while j < nb:
        out[t] = na + j
        j += 1
        t += 1
    return out


def merge_order(a_words: np.ndarray, b_words: np.ndarray) -> np.ndarray:
    """:meth:`geco.search.population.Pool.merge_order` for two pools already in key order (as
    pools are): one merge of the two runs, ``a``'s rows first among equal keys, instead of a
    sort of both (the same order: a stable sort of the concatenation)."""
    return _merge_order(np.ascontiguousarray(a_words, dtype=np.uint64), np.ascontiguousarray(b_words, dtype=np.uint64))


@jit
def _repeats_one(row, option, x, gap, ranges, categorical):
    """Whether ``row`` repeats ``option`` (as :func:`geco.search.diversity.repeats`)."""
    for c in range(len(x)):
        mine = option[c] - x[c]
        if mine == 0:
            continue
        toward = row[c] - x[c]
        if toward == 0:
            return False
        if categorical[c]:
            diff = 1.0 if row[c] != option[c] else 0.0
            farther = False
        else:
            diff = abs(row[c] - option[c]) / ranges[c]
            farther = np.sign(toward) == np.sign(mine) and abs(toward) >= abs(mine)
        if not (diff < gap or farther):
            return False
    return True


@jit
def within_reach(dist, rows, at, words, kth, bounded_kth, options, option_words, bounds, x, gap, ranges, categorical):
    """What :func:`reach_within` gives, for compiled callers (the candidates' rows ``rows[at]``)."""
    n, n_words = words.shape
    ok = np.empty(n, dtype=np.bool_)
    for i in range(n):
        keep = dist[i] < kth if bounded_kth else True
        j = 0
        while keep and j < len(bounds):
            if dist[i] >= bounds[j]:
                covers = True
                for w in range(n_words):
                    if words[i, w] & option_words[j, w] != option_words[j, w]:
                        covers = False
                        break
                if covers and _repeats_one(rows[at[i]], options[j], x, gap, ranges, categorical):
                    keep = False
            j += 1
        ok[i] = keep
    return ok


def reach_within(dist: np.ndarray, rows: np.ndarray, words: np.ndarray, kth: float, options: np.ndarray,
                 option_words: np.ndarray, bounds: np.ndarray, x: np.ndarray, gap: float, ranges: np.ndarray,
                 categorical: np.ndarray, at: np.ndarray | None = None) -> np.ndarray:  # fmt: skip
    """What :meth:`geco.search.reach.Reach.within` gives, in one pass: per candidate, whether
    it is nearer than ``kth`` and repeats no option it is at least that option's bound from.
    ``at``: the candidates' rows are ``rows[at]`` (read in place, not gathered first)."""
    at = np.arange(len(dist)) if at is None else np.asarray(at, dtype=np.intp)
    return within_reach(
        np.ascontiguousarray(dist, dtype=np.float64), np.ascontiguousarray(rows, dtype=np.float64), at,
        np.ascontiguousarray(words, dtype=np.uint64), float(kth), bool(np.isfinite(kth)),
        np.ascontiguousarray(options, dtype=np.float64), np.ascontiguousarray(option_words, dtype=np.uint64),
        np.ascontiguousarray(bounds, dtype=np.float64), np.ascontiguousarray(x, dtype=np.float64), float(gap),
        np.ascontiguousarray(ranges, dtype=np.float64), np.ascontiguousarray(categorical, dtype=np.bool_),
    )  # fmt: skip
