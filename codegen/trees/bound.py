"""A sound upper bound on a tree model's P(desired) over a box of allowed values.

The box gives, per schema feature, the finite set of values a row may take (``None``: the
instance's own value). Every tree can only end in a leaf some path of allowed values reaches: a
split is followed left if one allowed value of its feature goes left, right if one goes right.
That relaxation (each feature chosen anew at every split, each tree on its own) can only add
leaves, so the largest reachable leaf per tree, summed, bounds every row of the box.

The sum then goes through the model's last step as sklearn (or the boosting library) does it:

* forests: ``Σ_t leaf_t / n_trees``, the mean of the trees' probabilities;
* boosting, one margin: the link is monotone (P(class 1) rises with the margin, P(class 0) falls),
  so its largest value over ``[lo, hi]`` is at an end: both are evaluated, or, where P(desired)
  rises with the margin, ``hi`` alone (then the leaf walk, like a forest's, prunes on the largest
  leaves, and the rounding margin reads every leaf's magnitude instead of the smallest leaves);
* boosting, several margins (softmax, one-vs-all): P(desired) rises with the desired class's margin
  and falls with every other, so the link at (its largest margin, every other's smallest) bounds it;
  that corner is the largest of the K corners "one margin largest, the others smallest".

Floating point: the model adds its leaves in its own order, each addition rounded (in float32 for
XGBoost); the bound adds a margin of ``γ(n+2)`` times the sum of magnitudes (the classical bound on
any order of summation) and a margin for the link's own rounding. No llvmlite import: the
per-tree leaf ranges are found here in numpy (:func:`leaf_ranges`, the reference) or by any
function of the same contract (:mod:`codegen.trees.native_bound`, compiled).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from codegen.outputs import output_of
from codegen.trees.fold import Forest

__all__ = ["Allowed", "Box", "LeafRanges", "box_of", "leaf_ranges", "reachable_leaves", "upper_bound"]

#: per schema feature: the values a row may take (an array), or None for the instance's own value
Allowed = Sequence[np.ndarray | None]

_U64 = 2.0**-53
_U32 = 2.0**-24
#: the links' rounding and any last-ulp non-monotonicity of the library's exp, with room to spare
_LINK_MARGIN_F64 = 1e-12
_LINK_MARGIN_F32 = 1e-6


def _gamma(n: int, u: float) -> float:
    return n * u / (1 - n * u)


def _feature_values(forest: Forest, x: np.ndarray, allowed: Allowed) -> list[np.ndarray]:
    """Each feature's allowed values as the trees read them (values read as missing become NaN)."""
    d = len(forest.schema)
    if len(allowed) != d:
        raise ValueError(f"allowed: expected {d} entries (one per feature), got {len(allowed)}")
    out = []
    for j in range(d):
        v = (
            np.array([x[j]], dtype=np.float64)
            if allowed[j] is None
            else np.asarray(allowed[j], dtype=np.float64)
        )
        if v.size == 0:
            raise ValueError(f"allowed[{j}] is empty: a box needs at least one value per feature")
        out.append(forest.read_missing(v[:, None], (j,))[:, 0])
    return out


@dataclass(frozen=True)
class Box:
    """Per feature (index ``d``: none, for leaves): the smallest and largest allowed value that
    is not missing (NaN: none is), whether a missing value is allowed, and which category codes
    (``codes``, one column per code of the forest's code sets) or codes outside them
    (``outside``) are."""

    lo: np.ndarray
    hi: np.ndarray
    missing: np.ndarray
    codes: np.ndarray
    outside: np.ndarray

    @classmethod
    def of(cls, forest: Forest, values: list[np.ndarray]) -> Box:
        """The box of ``values`` (per feature, its allowed values as the trees read them), every
        feature in one pass over their concatenation (a wide table has a hundred features)."""
        d, width = len(values), forest.cat_left.shape[1]
        lo, hi = np.full(d + 1, np.nan), np.full(d + 1, np.nan)
        missing, outside = np.zeros(d + 1, dtype=bool), np.zeros(d + 1, dtype=bool)
        codes = np.zeros((d + 1, width), dtype=bool)
        sizes = np.fromiter((len(v) for v in values), dtype=np.intp, count=d)
        flat = np.concatenate([np.empty(0), *values]).astype(np.float64, copy=False)
        owner = np.repeat(np.arange(d), sizes)
        nan = np.isnan(flat)
        missing[:d] = np.bincount(owner[nan], minlength=d) > 0
        v, owner = flat[~nan], owner[~nan]
        counts = np.bincount(owner, minlength=d)
        some = np.flatnonzero(counts)
        if len(some):
            starts = (np.cumsum(counts) - counts)[some]
            lo[some], hi[some] = np.minimum.reduceat(v, starts), np.maximum.reduceat(v, starts)
        inside = (v >= 0) & (v < width)
        outside[:d] = np.bincount(owner[~inside], minlength=d) > 0
        codes[owner[inside], v[inside].astype(np.int64)] = True
        return cls(lo, hi, missing, codes, outside)

    def sides(self, forest: Forest, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Split ``nodes``: whether some allowed value goes left, and whether some goes right
        (the test of :func:`codegen.trees.fold.goes_left`)."""
        f = forest.feature[nodes]
        lo, hi, thr = self.lo[f], self.hi[f], forest.threshold[nodes]
        numbers = ~np.isnan(lo)  # the feature has a non-missing allowed value
        with np.errstate(invalid="ignore"):
            left = numbers & (lo <= thr)
            right = numbers & ~(hi <= thr)  # NaN threshold: nothing goes left
        cat = forest.cat[nodes]
        sets = cat >= 0
        if sets.any():
            rows = forest.cat_left[cat[sets]]  # (k, width): the codes going left
            allowed = self.codes[f[sets]]
            left[sets] = (rows & allowed).any(axis=1)
            right[sets] = (~rows & allowed).any(axis=1) | self.outside[f[sets]]  # no set: right
        miss = self.missing[f]
        ml = forest.missing_left[nodes]
        return left | (miss & ml), right | (miss & ~ml)


#: per tree, the largest and smallest leaf value some path of the box's values reaches
#: (-inf / +inf for a tree none reaches); with ``need_low`` False the smallest may be None
LeafRanges = Callable[[Forest, Box, bool], tuple[np.ndarray, np.ndarray | None]]


def box_of(forest: Forest, x: np.ndarray, allowed: Allowed) -> Box:
    """The box of ``allowed`` (``None``: ``x``'s own value) as the trees read its values."""
    return Box.of(forest, _feature_values(forest, np.asarray(x, dtype=np.float64), allowed))


def reachable_leaves(
    forest: Forest, x: np.ndarray, allowed: Allowed
) -> tuple[np.ndarray, np.ndarray]:
    """(leaf nodes, their tree) of every leaf some path of allowed values reaches; only the
    nodes on such paths are visited."""
    return _reachable(forest, box_of(forest, x, allowed))


def _reachable(forest: Forest, box: Box) -> tuple[np.ndarray, np.ndarray]:
    nodes = forest.roots.copy()
    owner = np.arange(forest.n_trees)
    leaves, trees = [], []
    while len(nodes):
        leaf = forest.feature[nodes] < 0
        leaves.append(nodes[leaf])
        trees.append(owner[leaf])
        nodes, owner = nodes[~leaf], owner[~leaf]
        gl, gr = box.sides(forest, nodes)
        nodes = np.concatenate([forest.left[nodes[gl]], forest.right[nodes[gr]]])
        owner = np.concatenate([owner[gl], owner[gr]])
    return np.concatenate(leaves), np.concatenate(trees)


def leaf_ranges(forest: Forest, box: Box, need_low: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Per tree, the largest and smallest value of the leaves :func:`reachable_leaves` finds
    (-inf / +inf for a tree none reaches; NaN where a reached leaf is NaN): the reference
    (both always; ``need_low`` is the compiled twin's)."""
    leaves, trees = _reachable(forest, box)
    T = forest.n_trees
    value = forest.value[leaves]
    top = np.full(T, -np.inf)
    low = np.full(T, np.inf)
    with np.errstate(invalid="ignore"):  # a NaN leaf makes its tree's range NaN, as documented
        np.maximum.at(top, trees, value)
        np.minimum.at(low, trees, value)
    return top, low


def upper_bound(forest: Forest, x: np.ndarray, allowed: Allowed, ranges: LeafRanges = leaf_ranges) -> float:
    """A sound upper bound on P(desired), as the model computes it, over every row whose feature
    ``j`` takes one of ``allowed[j]`` (``None``: ``x[j]``); see the module docstring. For a
    margin or a regressor's prediction the bound is of that number, not capped at 1.
    ``ranges``: how the trees' leaf ranges are found (:func:`leaf_ranges` or a compiled twin)."""
    cap = 1.0 if output_of(forest.desired_class).kind == "proba" else np.inf
    averaged = forest.divisor is not None  # the bound reads the largest leaves alone
    rising = forest.rises_with_margin  # so does one margin P(desired) rises with
    top, low = ranges(forest, box_of(forest, x, allowed), not (averaged or rising))
    T = forest.n_trees
    # a tree without a reachable leaf (never for a well-formed forest) or with a NaN leaf: no
    # bound (its low is +inf or NaN exactly where its top is -inf or NaN)
    if not np.all(np.isfinite(top)) or (low is not None and not np.all(np.isfinite(low))):
        return cap
    u = _U32 if forest.float32_sums else _U64
    if forest.divisor is not None:
        total = float(np.sum(top))
        margin = 2 * _gamma(T + 2, _U64) * float(np.sum(np.abs(top)))
        bound = (total + margin) / forest.divisor
        return min(cap, bound * (1 + 4 * _U64) if bound >= 0 else bound * (1 - 4 * _U64))
    K = forest.n_outputs
    hi = np.array(forest.init, dtype=np.float64)
    lo = None if rising else hi.copy()  # rising: the largest margin alone
    mag = np.abs(hi)
    for k in range(K):
        mine = forest.output == k
        hi[k] += np.sum(top[mine])
        if rising:  # every leaf's magnitude bounds the rounding in any order, and |lo|
            mag[k] += np.sum(forest.leaf_magnitudes[mine])
        else:
            lo[k] += np.sum(low[mine])
            mag[k] += np.sum(np.maximum(np.abs(top[mine]), np.abs(low[mine])))
    margin = 2 * _gamma(T + K + 2, u) * mag + 4 * u * np.maximum(np.abs(hi), mag if lo is None else np.abs(lo))
    hi = hi + margin
    if forest.float32_sums:  # the link reads float32 margins: round outwards to float32
        hi = np.nextafter(hi.astype(np.float32), np.float32(np.inf)).astype(np.float64)
    if lo is None:
        corners = hi[None, :]
    else:
        lo = lo - margin
        if forest.float32_sums:
            lo = np.nextafter(lo.astype(np.float32), np.float32(-np.inf)).astype(np.float64)
        # the box's corners (one margin at its largest, every other at its smallest): P(desired)
        # is largest at the desired class's corner, and every corner lies in the box, so the
        # largest of them is that corner's value - no need to know which margin is the desired's
        corners = np.where(np.eye(K, dtype=bool), hi, lo) if K > 1 else np.array([lo, hi])
    p = float(np.max(forest.finish(corners)))
    if not np.isfinite(p):
        return cap
    link_margin = _LINK_MARGIN_F32 if forest.float32_sums else _LINK_MARGIN_F64
    return min(cap, p + (link_margin if cap == 1.0 else link_margin * max(1.0, abs(p))))
