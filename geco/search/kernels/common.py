"""What the compiled kernels share: the numba decorator they are compiled with, a stable sort,
binary searches, the indices of a mask, and the cell hash and distance arithmetic of the pools' rows."""

from __future__ import annotations

import numba as nb
import numpy as np

from geco.search.compiled import clear_stale_kernels

__all__ = ["GOLDEN", "add_cell", "combine", "copy_row", "jit", "mix", "reset_group", "search_left", "search_right", "set_group", "stable_order",
           "true_indices"]

#: compiled once per process shape and cached on disk (beside the package, or in numba's user
#: cache directory when the package directory is read-only); a cache of other sources is dropped
#: first, as numba would load a kernel with the old code of a callee in another file
clear_stale_kernels()
jit = nb.njit(cache=True, nogil=True, error_model="numpy")
#: the same, inlined into its callers by numba (a small loop LLVM would leave a call: a call per row)
inlined = nb.njit(cache=True, nogil=True, error_model="numpy", inline="always")

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


# numba's own sorts cost seconds each to compile on first use; these plain loops cost little


@jit
def stable_order(keys):
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


@jit
def copy_row(dst, i, src, j):
    """``dst[i] = src[j]`` for 2-D arrays, element by element: a row assignment compiles numba's
    broadcasting and its shape error messages, seconds of a fresh install's first use."""
    for c in range(src.shape[1]):
        dst[i, c] = src[j, c]


@jit
def search_right(a, v):
    """``np.searchsorted(a, v, side="right")`` for one value."""
    lo, hi = 0, len(a)
    while lo < hi:
        mid = (lo + hi) >> 1
        if v < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


@jit
def search_left(a, v):
    """``np.searchsorted(a, v, side="left")`` for one value."""
    lo, hi = 0, len(a)
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@jit
def set_group(out, t, g, index, n_features, feature_start, features, value_start, values):
    """Row ``t`` of ``out`` takes value ``index`` of group ``g`` (all its features)."""
    at = value_start[g] + index * n_features[g]
    for f in range(n_features[g]):
        out[t, features[feature_start[g] + f]] = values[at + f]


@jit
def reset_group(out, t, g, x, n_features, feature_start, features):
    """Row ``t`` of ``out`` takes ``x``'s values on group ``g`` (all its features)."""
    for f in range(n_features[g]):
        j = features[feature_start[g] + f]
        out[t, j] = x[j]


@jit
def true_indices(mask):
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


@jit
def mix(z):
    """splitmix64's finaliser (as geco.problem.hashing's)."""
    z ^= z >> np.uint64(30)
    z *= _M1
    z ^= z >> np.uint64(27)
    z *= _M2
    z ^= z >> np.uint64(31)
    return z


@jit
def add_cell(v, xc, scale, cap, priced, up, down, l0, s1, s2, mx):
    """A row's distance sums (l0, sum, sum of squares, largest) with the cell of value ``v``
    (x's ``xc``; its feature's scale, cap and, priced, up and down costs) added, in
    ``DistanceSpec.cells``' arithmetic."""
    diff = min(abs(v - xc) / scale, cap)
    if priced:
        cost = up if v > xc else down
        l0 += cost if diff != 0 else 0.0
        diff = diff * cost
    else:
        l0 += 1.0 if diff != 0 else 0.0
    return l0, s1 + diff, s2 + diff * diff, max(mx, diff)


@jit
def combine(l0, s1, s2, mx, w0, w1, w2, w3, n_features):
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
