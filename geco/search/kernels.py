"""The search's per-generation bookkeeping compiled with numba: one pass per phase instead of a
few dozen numpy calls on small per-Δ arrays, which is where the loop's time went.

Each kernel computes exactly what the numpy code it stands for computes (same sums in the same
order, same tie rules); the random draws are the numpy reference's: made by the callers and passed in, or made
inside a kernel from the caller's ``numpy.random.Generator`` itself (numba draws from its bit
generator in numpy's own order), call for call and shape for shape as the reference makes them,
so the random stream and therefore the explanations are the same. The numpy code stays the
reference (``SearchConfig.native=False``); tests/search/test_kernels.py runs both side by side.

This module imports numba: import it lazily, where a search starts (``import geco`` must not pay
for numba). Kernels are compiled on first use and cached on disk (``cache=True``: beside this
file, or in numba's user cache directory when the package directory is read-only).
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = [
    "block_best",
    "by_keys",
    "crossover",
    "distinct_children",
    "distinct_options",
    "group_distances",
    "mutation",
    "new_rows",
    "row_tables",
    "selection",
    "selective_mutation",
    "smallest",
    "tight_sums",
    "walk_back",
]

_jit = nb.njit(cache=True, nogil=True, error_model="numpy")

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


# numba's own sorts cost seconds each to compile on first use; these plain loops cost little


@_jit
def _stable_order(keys):
    """Indices sorting ``keys`` ascending, equal keys in index order (as a stable argsort):
    bottom-up merge sort."""
    n = len(keys)
    a = np.arange(n)
    b = np.empty(n, dtype=np.intp)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, t = lo, mid, lo
            while i < mid and j < hi:
                if keys[a[j]] < keys[a[i]]:
                    b[t] = a[j]
                    j += 1
                else:
                    b[t] = a[i]
                    i += 1
                t += 1
            while i < mid:
                b[t] = a[i]
                i += 1
                t += 1
            while j < hi:
                b[t] = a[j]
                j += 1
                t += 1
        a, b = b, a
        width *= 2
    return a


@_jit
def _insertion_order(keys, order, k):
    """``order[:k]`` sorted by ``keys`` (stable), in place: for the few entries of one row."""
    for t in range(1, k):
        v = order[t]
        p = t
        while p > 0 and keys[v] < keys[order[p - 1]]:
            order[p] = order[p - 1]
            p -= 1
        order[p] = v


@_jit
def _true_indices(mask):
    count = 0
    for v in mask:
        count += v
    out = np.empty(count, dtype=np.intp)
    t = 0
    for i in range(len(mask)):
        if mask[i]:
            out[t] = i
            t += 1
    return out


@_jit
def _mix(z):
    """splitmix64's finaliser (as geco.problem.hashing's)."""
    z ^= z >> np.uint64(30)
    z *= _M1
    z ^= z >> np.uint64(27)
    z *= _M2
    z ^= z >> np.uint64(31)
    return z


@_jit
def _combine(l0, s1, s2, mx, w0, w1, w2, w3, n_features):
    """A distance from its sums, in ``DistanceSpec.of_cells``'s order of operations (a row
    without cells has ``mx`` 0, which adds nothing)."""
    out = 0.0
    if w0:
        out += w0 * l0 / n_features
    if w1:
        out += w1 * s1 / n_features
    if w2:
        out += w2 * np.sqrt(s2 / n_features)
    if w3:
        out += w3 * mx
    return out


@_jit
def _cells_pass(bits, rows, changed, gof, x, scale, cap, priced, up, down, w, n_features):
    """Per row, over the cells of its changed groups (column order): the cell hash (wrapping sum
    of mixed cells, as ``cell_hashes``) and the distance (as ``DistanceSpec.of_cells`` over
    ``DistanceSpec.cells``: sequential sums, the max of the differences). Each row first lists
    its changed groups' columns in column order (without a branch), then prices and hashes those
    cells alone: a wide table's row changes a few of its hundred columns."""
    n, d = rows.shape
    w0, w1, w2, w3 = w[0], w[1], w[2], w[3]
    salt = np.empty(d, dtype=np.uint64)
    for j in range(d):
        salt[j] = _mix(np.uint64(j) + _GOLDEN)
    hashes = np.zeros(n, dtype=np.uint64)
    dist = np.zeros(n)
    cols = np.empty(d + 1, dtype=np.intp)
    for i in range(n):
        h = np.uint64(0)
        l0 = 0.0
        s1 = 0.0
        s2 = 0.0
        mx = 0.0
        k = 0
        for j in range(d):
            cols[k] = j
            k += changed[i, gof[j]]
        for t in range(k):
            j = cols[t]
            v = rows[i, j]
            xc = x[j]
            diff = min(abs(v - xc) / scale[j], cap[j])
            if priced:
                cost = up[j] if v > xc else down[j]
                l0 += cost if diff != 0 else 0.0
                diff = diff * cost
            else:
                l0 += 1.0 if diff != 0 else 0.0
            s1 += diff
            s2 += diff * diff
            mx = max(mx, diff)
            h += _mix(bits[i, j] ^ salt[j])
        hashes[i] = h
        dist[i] = _combine(l0, s1, s2, mx, w0, w1, w2, w3, n_features)
    return hashes, dist


@_jit
def _fresh(old_hashes, hashes):
    """Indices (ascending) of the rows whose hash is neither an old one nor an earlier row's:
    the first occurrences ``np.unique(concat(old, new), return_index=True)`` keeps of new rows.
    An open-addressing set of the hashes seen, so no sort."""
    size = 16
    while size < 2 * (len(old_hashes) + len(hashes)):
        size *= 2
    mask = np.uint64(size - 1)
    table = np.zeros(size, dtype=np.uint64)
    used = np.zeros(size, dtype=np.bool_)
    for hv in old_hashes:
        slot = _mix(hv) & mask
        while used[slot] and table[slot] != hv:
            slot = (slot + np.uint64(1)) & mask
        used[slot] = True
        table[slot] = hv
    keep = np.empty(len(hashes), dtype=np.intp)
    kept = 0
    for i in range(len(hashes)):
        hv = hashes[i]
        slot = _mix(hv) & mask
        while used[slot] and table[slot] != hv:
            slot = (slot + np.uint64(1)) & mask
        if used[slot]:
            continue
        used[slot] = True
        table[slot] = hv
        keep[kept] = i
        kept += 1
    return keep[:kept]


@_jit
def _key_words(changed, n_words):
    n, g = changed.shape
    out = np.zeros((n, n_words), dtype=np.uint64)
    for i in range(n):
        for j in range(g):
            if changed[i, j]:
                out[i, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
    return out


@_jit
def _new_rows(
    bits, rows, changed, gof, x, scale, cap, priced, up, down, w, n_features, old_hashes, n_words
):
    hashes, dist = _cells_pass(
        bits, rows, changed, gof, x, scale, cap, priced, up, down, w, n_features
    )
    return hashes, dist, _fresh(old_hashes, hashes), _key_words(changed, n_words)


def new_rows(rows: np.ndarray, changed: np.ndarray, gof: np.ndarray, spec: tuple, old_hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """For new candidates (Δ-representation rows): their cell hashes, distances, the indices of
    those not equal to an ``old_hashes`` row or an earlier new one (ascending), and their key
    words. ``spec``: :meth:`geco.problem.distance.DistanceSpec.cell_terms`."""
    x, scale, cap, priced, up, down, w, n_features = spec
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    bits = (rows + 0.0).view(np.uint64)
    n_words = max(1, -(-changed.shape[1] // 64))
    return _new_rows(bits, rows, np.ascontiguousarray(changed), gof, x, scale, cap, priced, up, down, w,
                     float(n_features), old_hashes, n_words)  # fmt: skip


@_jit
def _niche(order, owner, n_blocks, q, count, qualifies, use_qualifies, keep):
    """Mark in ``keep`` what ``geco.search.loop.niche`` returns."""
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


@_jit
def _selection(words, scores, dist, estab, order, q, k):
    n, n_words = words.shape
    owner = np.zeros(n, dtype=np.intp)
    b = 0
    for i in range(1, n):
        for c in range(n_words):
            if words[i, c] != words[i - 1, c]:
                b += 1
                break
        owner[i] = b
    n_blocks = b + 1 if n else 0
    is_cf = np.empty(n, dtype=np.bool_)
    for i in range(n):
        is_cf[i] = scores[i] == dist[i]
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
    return _true_indices(keep), converged


def selection(words: np.ndarray, scores: np.ndarray, dist: np.ndarray, estab: np.ndarray, q: int,
              k: int) -> tuple[np.ndarray, bool]:  # fmt: skip
    """What :meth:`geco.search.loop.GeneticSearch.select` decides on the merged rows (in key
    order): the positions it keeps (ascending) and whether the run converged."""
    order = np.argsort(scores, kind="stable")  # numpy's sort: 3x the merge sort's speed at 5k rows
    keep, converged = _selection(np.ascontiguousarray(words), scores, dist, estab, order, int(q), int(k))
    return keep, bool(converged)


@_jit
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
        for t in range(1, m):  # the picks in column order
            v = out[i, t]
            p = t
            while p > 0 and v < out[i, p - 1]:
                out[i, p] = out[i, p - 1]
                p -= 1
            out[i, p] = v
    return out


def by_keys(
    exp: np.ndarray, weights: np.ndarray, start: np.ndarray, lim: np.ndarray, m: int
) -> np.ndarray:
    """The ``m`` smallest keys ``exp / w`` of each row's first ``lim`` columns (``lim > m``), as
    sorted column indices (what :meth:`geco.search.stacked.StackedSpaces.by_keys` computes with
    numpy's argpartition; exact ties, of probability 0, may pick differently)."""
    return _by_keys(exp, weights, start, lim, int(m))


@_jit
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


@_jit
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
                out[i, g] = _combine(l0[g], s1[g], s2[g], mx[g], w[0], w[1], w[2], w[3], n_features)
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


@_jit
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


def crossover(rows: np.ndarray, changed: np.ndarray, x: np.ndarray, gof: np.ndarray, u: np.ndarray):
    """One child per pair (i < j, ``np.triu_indices`` order) of parents, as
    :func:`geco.search.operators.crossover` builds it from its draws ``u`` (pairs, G)."""
    return _crossover(np.ascontiguousarray(rows), np.ascontiguousarray(changed), x, gof, u)


@_jit
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


def walk_back(rows: np.ndarray, changed: np.ndarray, count: np.ndarray, x: np.ndarray, gof: np.ndarray,
              u: np.ndarray):  # fmt: skip
    """The children of :func:`geco.search.operators.walk_back` for parents changing
    ``count >= 2`` groups, from its draws ``u`` (rounds, parents, G), in its order."""
    return _walk_back(np.ascontiguousarray(rows), np.ascontiguousarray(changed), count, x, gof, u)


@_jit
def _block_best(starts, n, score, top):
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
        order = _stable_order(score[lo:end])
        for k in range(min(top, end - lo)):
            out[t] = lo + order[k]
            t += 1
    return out


def block_best(starts: np.ndarray, n: int, score: np.ndarray, top: int = 1) -> np.ndarray:
    """The ``top`` lowest-scored rows of each block (rows ``starts[b]`` up to the next start,
    of ``n`` rows), blocks in order, each block's by score (ties: row order): what
    ``np.lexsort((score, owner))`` keeps of each block's first ``top``."""
    return _block_best(np.asarray(starts, dtype=np.intp), int(n), score, int(top))


#: repeated-draw rounds and the table-to-sample ratio of the reference (geco.search.stacked,
#: geco.search.sampling); the kernel below must draw exactly as it does
_ROUNDS = 4
_SPARSE_RATIO = 32


@_jit
def _search_right(a, v):
    """``np.searchsorted(a, v, side="right")`` for one value."""
    lo, hi = 0, len(a)
    while lo < hi:
        mid = (lo + hi) >> 1
        if v < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@_jit
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
    n_long = 0
    for i in range(n):
        if lim[i] <= m:
            for c in range(width):
                index[i, c] = c
                valid[i, c] = c < lim[i]
        elif lim[i] >= _SPARSE_RATIO * m:
            n_long += 1
    pending = np.empty(n_long, dtype=np.intp)
    t = 0
    for i in range(n):
        if lim[i] > m and lim[i] >= _SPARSE_RATIO * m:
            pending[t] = i
            t += 1
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
                v = _search_right(cumulative, lo + u[p, c] * (hi - lo)) - start[g]
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
    short = 0
    for i in range(n):
        if lim[i] > m and lim[i] < _SPARSE_RATIO * m:
            short += 1
    rows = np.empty(short, dtype=np.intp)
    t = 0
    for i in range(n):
        if lim[i] > m and lim[i] < _SPARSE_RATIO * m:
            rows[t] = i
            t += 1
    _keyed_rows(rng, rows, group, lim, m, start, weights, index, valid)
    left = pending[:n_pending].copy()
    if n_pending:
        by_group = _stable_order(group[left].astype(np.float64))
        a = 0
        while a < n_pending:
            b = a + 1
            g = group[left[by_group[a]]]
            while b < n_pending and group[left[by_group[b]]] == g:
                b += 1
            mine = np.sort(left[by_group[a:b]])
            _keyed_rows(rng, mine, group, lim, m, start, weights, index, valid)
            a = b
    return index, valid


@_jit
def _insertion_sorted(a, k):
    """``a[:k]`` sorted ascending, in place."""
    for t in range(1, k):
        v = a[t]
        p = t
        while p > 0 and v < a[p - 1]:
            a[p] = a[p - 1]
            p -= 1
        a[p] = v


@_jit
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


@_jit
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
            out[t] = rows[s]
            out_changed[t] = changed[s]
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


@_jit
def _search_left(a, v):
    """``np.searchsorted(a, v, side="left")`` for one value."""
    lo, hi = 0, len(a)
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@_jit
def _set_group(out, t, g, index, n_features, feature_start, features, value_start, values):
    """Row ``t`` of ``out`` takes value ``index`` of group ``g`` (all its features)."""
    at = value_start[g] + index * n_features[g]
    for f in range(n_features[g]):
        out[t, features[feature_start[g] + f]] = values[at + f]


@_jit
def _selective_mutation(rng, rows, changed, is_cf, has_space, breadth, m, gof, x, scale, cap, priced, up, down, w,
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
        key = g * n_ranks + _search_left(ranks, own[i, g])
        limit[p] = _search_left(rank_key, key) - start[g]
    ok = _true_indices(limit > 0)
    pick = np.empty(len(ok), dtype=np.intp)
    if len(ok):
        u = rng.random(len(ok))
        for k in range(len(ok)):
            g, L = group[ok[k]], limit[ok[k]]
            lo = base[g]
            hi = cumulative[start[g] + L - 1]
            v = _search_right(cumulative, lo + u[k] * (hi - lo)) - start[g]
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
            out[t] = rows[i]
            out_changed[t] = changed[i]
            for f in range(n_features[g]):
                c = features[feature_start[g] + f]
                out[t, c] = x[c]
            out_changed[t, g] = False
            t += 1
    for k in range(n_near):  # steps of 1, 2, 4, ... positions towards x
        for s in range(steps[k]):
            out[t] = rows[wn[k]]
            out_changed[t] = changed[wn[k]]
            _set_group(out, t, gn[k], ln[k] - (1 << s), n_features, feature_start, features, value_start, values)
            out_changed[t, gn[k]] = True
            t += 1
    for r in range(len(distinct_rows)):
        out[t] = distinct_rows[r]
        out_changed[t] = distinct_changed[r]
        t += 1
    first = t
    for i in range(P):  # every changed group resampled at once
        if moved[i]:
            out[t] = rows[i]
            out_changed[t] = changed[i]
            t += 1
    slot = np.full(P, -1, dtype=np.intp)
    t = first
    for i in range(P):
        if moved[i]:
            slot[i] = t
            t += 1
    for k in range(len(ok)):
        p = ok[k]
        _set_group(out, slot[src[p]], group[p], pick[k], n_features, feature_start, features, value_start, values)
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
    return _selective_mutation(
        rng, np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(changed),
        np.ascontiguousarray(is_cf, dtype=np.bool_), np.ascontiguousarray(has_space, dtype=np.bool_),
        -1 if breadth is None else int(breadth), int(m), gof, x, scale, cap, priced, up, down, w, float(n_feat),
        st.start, st.base, st.cumulative, st.weights, st.n_features, st.feature_start, st.features, st.value_start,
        st.values, st.ranks, st.rank_key,
    )  # fmt: skip


@_jit
def _mutation(rng, rows, changed, has_space, breadth, m, start, size, base, cumulative, weights, n_features,
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
    return _mutation(
        rng, np.ascontiguousarray(rows, dtype=np.float64), np.ascontiguousarray(changed),
        np.ascontiguousarray(has_space, dtype=np.bool_), -1 if breadth is None else int(breadth), int(m), st.start,
        st.size, st.base, st.cumulative, st.weights, st.n_features, st.feature_start, st.features, st.value_start,
        st.values,
    )  # fmt: skip


@_jit
def _row_tables(codes, status, additive, linf):
    G, N = codes.shape
    out_status = np.zeros(N, dtype=np.uint8)
    total = np.zeros(N)
    top = np.zeros(N)
    for g in range(G):  # group by group: each row's sum in the reference's order
        for i in range(N):
            c = codes[g, i]
            out_status[i] |= status[c]
            total[i] += additive[c]
            v = linf[c]
            if v > top[i] or v != v:  # np.maximum: NaN wins
                top[i] = v
    return out_status, total, top


def row_tables(codes: np.ndarray, status: np.ndarray, additive: np.ndarray,
               linf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """Per desired row (``codes``: (G, N) flat tuple codes), in one pass: the OR of its groups'
    ``status`` bits, the sum of their ``additive`` terms (group order) and the largest ``linf``
    (what :meth:`geco.problem.seed_index.Projection.row_status` and ``additive_sums`` compute
    group by group)."""
    return _row_tables(np.ascontiguousarray(codes), status, additive, linf)


@_jit
def _tight_sums(codes, idx, skip, linear_terms, square_terms, top_terms):
    G = codes.shape[0]
    m = len(idx)
    linear = np.zeros(m)
    squares = np.zeros(m)
    top = np.zeros(m)
    for g in range(G):  # group by group: each row's sums in the reference's order
        if skip[g]:
            continue
        for k in range(m):
            c = codes[g, idx[k]]
            linear[k] += linear_terms[c]
            squares[k] += square_terms[c]
            v = top_terms[c]
            if v > top[k] or v != v:  # np.maximum: NaN wins
                top[k] = v
    return linear, squares, top


def tight_sums(codes: np.ndarray, idx: np.ndarray, skip: np.ndarray, terms: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """For desired rows ``idx``: the sums of their groups' first two ``terms`` and the largest of
    the third, leaving out the groups ``skip`` marks (what
    :meth:`geco.problem.seed_index.Projection.tight_bounds` sums group by group)."""
    return _tight_sums(np.ascontiguousarray(codes), np.asarray(idx, dtype=np.intp), skip, *terms)


@_jit
def _distinct_options(order, words, count):
    picks = np.empty(count, dtype=np.intp)
    n_picks = 0
    n_words = words.shape[1]
    for i in order:
        if n_picks == count:
            break
        covered = False
        for t in range(n_picks):
            p = picks[t]
            inside = True
            for c in range(n_words):
                if words[i, c] & words[p, c] != words[p, c]:
                    inside = False
                    break
            if inside:
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
