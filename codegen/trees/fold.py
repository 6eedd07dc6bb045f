"""Fold a pipeline into its trees: every split becomes a test on one of the *user's* columns.

Why: the search hands the scorer the user's encoded values (numbers, category codes), and the
partial evaluator prunes by user feature. So each estimator split on model column ``j`` (computed
from schema feature ``s`` by a :class:`codegen.pipeline.ColumnMap`) is rewritten as a split on
``s`` with the *same outcome for every input*:

* numeric ``s`` (identity or affine map, both monotone non-decreasing): sklearn's test
  ``float32(map(v)) <= thr`` (or ``map(v) <= thr`` for HistGradientBoosting) is true exactly for
  ``v <= T`` where ``T`` is the largest double passing it. ``T`` is found by bisection over the
  64-bit ordering of doubles, evaluating the map and the cast exactly as sklearn does, so the
  rewritten split is a single exact double compare (no float32 cast left at run time). NaN keeps
  the node's ``missing_left``. ``T = NaN`` encodes "no value goes left".
* categorical ``s`` (one-hot, ordinal, HGB bitset, numeric labels): the node's outcome is computed
  for every category code through the real map; a prefix ``{0..k}`` becomes ``v <= k``, a constant
  outcome removes the node, anything else becomes a code-set split (``cat_left[set, code]``).

:class:`Forest` also says how leaves combine (accumulator per output, initial values, divisor for
forests, the final link), and :meth:`Forest.predict` is the user-space numpy reference that equals
``model.predict_proba(schema.decode(X))[:, desired]`` bit for bit. No llvmlite import.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from codegen.errors import UnknownClass, UnsupportedModel
from codegen.outputs import ModelOutput, output_of
from codegen.pipeline import ModelInput, read_model_input
from codegen.trees.gbm.split_tests import gbm_reads_as_zero
from codegen.trees.reader import RawEnsemble, raw_goes_left, read_trees
from plaf_grammar import Schema

__all__ = ["Forest", "fold", "output_columns", "read_forest"]


@dataclass(eq=False)
class Forest:
    """Trees over schema features. Node ``i``: leaf iff ``feature[i] < 0``; a split goes left iff
    ``isnan(v) ? missing_left[i] : (cat[i] < 0 ? v <= threshold[i] : cat_left[cat[i], int(v)])``
    (a code outside ``cat_left``'s width is in no set: it goes right).
    ``float32_sums``: boosting adds in float32 (XGBoost), every addition rounded to float32
    (``init`` and ``value`` then hold float32 values); else in float64. ``missing_values``:
    ``(feature, below, upto)`` - user values ``below < v <= upto`` of that feature are read as
    missing (NaN) before any split (see :meth:`read_missing`)."""

    name: str
    schema: Schema
    desired_class: Any
    feature: np.ndarray  # int64, schema feature index, -1 for a leaf
    threshold: np.ndarray  # float64
    cat: np.ndarray  # int64, -1 or row of cat_left
    cat_left: np.ndarray  # bool (n_sets, max categories)
    missing_left: np.ndarray  # bool
    left: np.ndarray  # int64
    right: np.ndarray  # int64
    value: np.ndarray  # float64 leaf contribution to the tree's accumulator
    roots: np.ndarray  # int64 (n_trees,)
    output: np.ndarray  # int64 (n_trees,)
    init: np.ndarray  # float64 (n_outputs,)
    divisor: float | None  # forests: the tree count (p = acc / divisor)
    link: Callable[[np.ndarray], np.ndarray] | None  # boosting: raw (n, K) -> P(desired)
    float32_sums: bool = False  # accumulate in float32 (XGBoost's margins)
    missing_values: tuple[tuple[int, float, float], ...] = ()  # (feature, below, upto), see above
    #: the most a score may differ from the model's own number: 0 (bit-exact) but for a set of
    #: classes of a forest, whose per-leaf sums add in another order than predict_proba's columns
    tolerance: float = 0.0

    @property
    def n_trees(self) -> int:
        return len(self.roots)

    @property
    def n_outputs(self) -> int:
        return len(self.init)

    @cached_property
    def leaf_magnitudes(self) -> np.ndarray:
        """Per tree, the largest magnitude of its leaves but NaN ones: the most any leaf of it
        can add, in size (a bound's rounding margin reads it; a NaN leaf it reaches gives no
        bound anyway)."""
        out = np.full(self.n_trees, -np.inf)
        nodes, owner = self.roots.copy(), np.arange(self.n_trees)
        while len(nodes):
            leaf = self.feature[nodes] < 0
            np.fmax.at(out, owner[leaf], np.abs(self.value[nodes[leaf]]))
            nodes, owner = nodes[~leaf], owner[~leaf]
            nodes, owner = np.concatenate([self.left[nodes], self.right[nodes]]), np.concatenate([owner, owner])
        return out

    @cached_property
    def rises_with_margin(self) -> bool:
        """Boosting with one margin whose link makes P(desired) rise with it (class 1 of a
        logistic link, a regressor's own number): the largest margin alone bounds it."""
        if self.divisor is not None or self.n_outputs != 1 or self.link is None:
            return False
        p = np.asarray(self.finish(np.array([[-1.0], [1.0]])), dtype=np.float64)
        return bool(p[1] > p[0])

    def finish(self, acc: np.ndarray) -> np.ndarray:
        """Accumulators ``(n, n_outputs)`` -> P(desired) ``(n,)`` (sklearn's last step)."""
        if self.divisor is not None:
            return acc[:, 0] / self.divisor
        assert self.link is not None
        return self.link(acc)

    def goes_left(self, nodes: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Routing at split ``nodes`` for user values ``v``."""
        return goes_left(self.threshold, self.cat, self.cat_left, self.missing_left, nodes, v)

    def read_missing(self, X: np.ndarray, features: tuple[int, ...] | None = None) -> np.ndarray:
        """``X`` (rows over ``features``, default every schema feature) with the values the model
        reads as missing replaced by NaN; ``X`` itself when no such value can occur."""
        X = np.asarray(X, dtype=np.float64)
        if not self.missing_values:
            return X
        pos = {int(f): k for k, f in enumerate(features)} if features is not None else None
        out = X
        for s, below, upto in self.missing_values:
            k = s if pos is None else pos.get(s)
            if k is None:
                continue
            v = X[..., k]
            with np.errstate(invalid="ignore"):
                hit = ~(v <= below) & (v <= upto)  # below NaN: no lower bound
            if hit.any():
                out = out.copy() if out is X else out
                out[..., k] = np.where(hit, np.nan, v)
        return out

    def leaves(self, X: np.ndarray) -> np.ndarray:
        X = self.read_missing(X)
        n = len(X)
        idx = np.broadcast_to(self.roots, (n, self.n_trees)).copy()
        rows = np.broadcast_to(np.arange(n)[:, None], idx.shape)
        while True:
            f = self.feature[idx]
            live = f >= 0
            if not live.any():
                return idx
            v = X[rows, np.where(live, f, 0)]
            go = self.goes_left(idx, v)
            idx = np.where(live, np.where(go, self.left[idx], self.right[idx]), idx)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """P(desired) for schema-encoded rows; equals the model's ``predict_proba`` column."""
        leaves = self.leaves(X)
        contrib = self.value[leaves].T  # (n_trees, n)
        return self.finish(accumulate(contrib, self.output, self.init, self.float32_sums))


def goes_left(threshold, cat, cat_left, missing_left, nodes, v) -> np.ndarray:
    """Vectorised split test shared by :class:`Forest` and the residual evaluator."""
    c = cat[nodes]
    nan = np.isnan(v)
    with np.errstate(invalid="ignore"):
        go = v <= threshold[nodes]
    is_set = c >= 0
    if is_set.any():
        # a code outside [0, width) is in no set (goes right), as in the kernels; no wrap-around
        with np.errstate(invalid="ignore"):
            inside = is_set & (v >= 0) & (v < cat_left.shape[1])
        code = np.where(inside, v, 0).astype(np.int64)
        go = np.where(is_set, inside & cat_left[np.where(is_set, c, 0), code], go)
    return np.where(nan, missing_left[nodes], go)


def accumulate(contrib: np.ndarray, output: np.ndarray, init: np.ndarray, float32: bool = False) -> np.ndarray:
    """Sum tree contributions ``(n_trees, n)`` into ``(n, n_outputs)`` in tree order, starting from
    ``init`` - the same sequence of IEEE additions as sklearn (``np.cumsum`` is sequential;
    ``np.sum`` would be pairwise and differ in the last bit). ``float32``: every addition in
    float32 (XGBoost); the result is float64 either way."""
    K = len(init)
    n = contrib.shape[1]
    dt = np.float32 if float32 else np.float64
    out = np.empty((n, K))
    for k in range(K):
        rows = contrib[output == k] if K > 1 else contrib
        stack = np.empty((len(rows) + 1, n), dtype=dt)
        stack[0] = init[k]
        stack[1:] = rows
        out[:, k] = np.cumsum(stack, axis=0, dtype=dt)[-1]
    return out


# ------------------------------------------------------------------------------------ folding

_SIGN = np.int64(-0x8000000000000000)


def _key(v: np.ndarray) -> np.ndarray:
    """Order-preserving map double -> int64 (-0.0 and +0.0 both map to 0)."""
    b = np.asarray(v, dtype=np.float64).view(np.int64)
    return np.where(b < 0, -(b & np.int64(0x7FFFFFFFFFFFFFFF)), b)


def _unkey(k: np.ndarray) -> np.ndarray:
    b = np.where(k < 0, (-k) | _SIGN, k)
    return b.astype(np.int64).view(np.float64)


def _numeric_thresholds(test: Callable[[np.ndarray], np.ndarray], n: int) -> np.ndarray:
    """Largest double ``v`` with ``test(v)`` true, per node; ``test`` is monotone (true, then false).
    +inf if every value passes, NaN if none does."""
    lo = np.full(n, _key(np.array(-np.inf)), dtype=np.int64)
    hi = np.full(n, _key(np.array(np.inf)), dtype=np.int64)
    all_true = test(np.full(n, np.inf))
    none_true = ~test(np.full(n, -np.inf))
    for _ in range(64):  # the key range is < 2**64, so 64 halvings close every interval
        mid = (lo >> 1) + (hi >> 1) + (lo & hi & 1)
        ok = test(_unkey(mid))
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid)
    out = _unkey(lo)
    out[all_true] = np.inf
    out[none_true] = np.nan
    return out


def fold(raw: RawEnsemble, mi: ModelInput, desired_class: Any) -> Forest:
    """Rewrite ``raw`` (over estimator columns) as a :class:`Forest` over schema features."""
    schema = mi.schema
    if len(mi.columns) != raw.n_features:
        raise UnsupportedModel(f"{raw.name} expects {raw.n_features} columns, the pipeline gives {len(mi.columns)}")
    output = output_of(desired_class)
    cols = output_columns(raw, output)
    col = cols[0]
    n = raw.n_nodes
    split = raw.feature >= 0
    feature = np.full(n, -1, dtype=np.int64)
    threshold = np.zeros(n)
    cat = np.full(n, -1, dtype=np.int64)
    missing_left = np.zeros(n, dtype=bool)
    forward = np.arange(n)  # nodes whose outcome is constant forward to the child taken
    sets: list[np.ndarray] = []
    missing_values: list[tuple[int, float, float]] = []  # user values read as missing (see below)
    compare = raw if raw.zero_missing is None else dataclasses.replace(raw, zero_missing=None)
    max_codes = max([len(f.categories) for f in schema.features if f.categories] + [1])

    for j, cm in enumerate(mi.columns):
        nodes = np.flatnonzero(split & (raw.feature == j))
        if len(nodes) == 0:
            continue
        s = cm.source
        feats = schema.features[s]
        feature[nodes] = s
        if feats.categories is not None:
            codes = np.arange(len(feats.categories), dtype=np.float64)
            vals = cm.apply(codes)  # model value per code
            nn, cc = np.meshgrid(nodes, np.arange(len(codes)), indexing="ij")
            mask = raw_goes_left(raw, nn.ravel(), vals[cc.ravel()]).reshape(nn.shape)
            for r, node in enumerate(nodes):
                m = mask[r]
                if m.all():
                    forward[node] = raw.left[node]
                elif not m.any():
                    forward[node] = raw.right[node]
                elif not m[np.argmin(m):].any():  # prefix {0..k}: an ordered compare on the code
                    threshold[node] = float(np.argmin(m) - 1)
                else:
                    row = np.zeros(max_codes, dtype=bool)
                    row[: len(m)] = m
                    cat[node] = len(sets)
                    sets.append(row)
            continue
        if cm.kind not in ("identity", "affine"):
            raise UnsupportedModel(f"column {cm.name!r}: a {cm.kind} map of a numeric feature")
        if raw.is_cat[nodes].any():
            raise UnsupportedModel(f"categorical split on numeric feature {feats.name!r}")

        def test(v: np.ndarray, nodes: np.ndarray = nodes, cm=cm) -> np.ndarray:
            return raw_goes_left(compare, nodes, cm.apply(v))

        threshold[nodes] = _numeric_thresholds(test, len(nodes))
        missing_left[nodes] = raw.missing_left[nodes]
        if raw.zero_missing is not None and raw.zero_missing[nodes].any():
            region = _zero_region(raw, mi, j, nodes)
            if region is not None:
                missing_values.append((s, *region))

    # resolve forwarding chains (a constant node may lead to another constant node)
    fwd = forward.copy()
    while True:
        nxt = fwd[fwd]
        if np.array_equal(nxt, fwd):
            break
        fwd = nxt
    left = np.where(split, fwd[np.maximum(raw.left, 0)], -1)
    right = np.where(split, fwd[np.maximum(raw.right, 0)], -1)
    tolerance = 0.0
    if raw.mean and len(cols) > 1:  # P of a set: each leaf's class fractions summed first
        value = raw.value[:, cols].sum(axis=1)
        tolerance = 2.0 * (raw.n_trees + len(cols) + 1) * float(np.finfo(np.float64).eps)
    else:
        value = raw.value[:, col] if raw.mean else raw.value[:, 0]
    if raw.mean:
        divisor: float | None = float(raw.n_trees)
        link = None
    else:
        divisor = None
        if output.kind == "margin":
            link = _RawLink()
        elif len(cols) > 1:
            link = _ClassSetLink(raw.finish, cols)
        else:
            link = _ColumnLink(raw.finish, col)

    return Forest(
        name=raw.name,
        schema=schema,
        desired_class=desired_class,
        feature=feature,
        threshold=threshold,
        cat=cat,
        cat_left=np.array(sets, dtype=bool).reshape(len(sets), max_codes),
        missing_left=missing_left,
        left=left,
        right=right,
        value=np.ascontiguousarray(value, dtype=np.float64),
        roots=fwd[raw.roots],
        output=raw.output.copy(),
        init=raw.init.astype(np.float64) if not raw.mean else np.zeros(1),
        divisor=divisor,
        link=link,
        float32_sums=raw.init.dtype == np.float32,
        missing_values=tuple(missing_values),
        tolerance=tolerance,
    )


def output_columns(raw: RawEnsemble, output: ModelOutput) -> list[int]:
    """The columns of ``raw``'s accumulated output that make ``output``: the desired classes'
    (several for a set), or ``[0]`` for a margin or a regressor's prediction. Raises
    :class:`UnknownClass` for a class the model lacks and :class:`UnsupportedModel` for an
    output the model does not have."""
    if output.kind == "prediction" or raw.regression:
        if not raw.regression:
            raise UnsupportedModel(f"{raw.name} is a classifier: give desired_class (and threshold), not a prediction range")
        if output.kind != "prediction":
            raise UnsupportedModel(f"{raw.name} is a regressor: give desired_range=(lo, hi), not a class")
        return [0]
    if output.kind == "margin":
        if raw.mean:
            raise UnsupportedModel(
                f"{raw.name} has no raw margin: its probability is the average of its trees' votes, "
                "there is no score before a link; give threshold instead"
            )
        if raw.n_outputs != 1:
            raise UnsupportedModel(f"{raw.name} has {raw.n_outputs} raw scores; a margin range needs a binary model")
        if getattr(raw.finish, "divisor", None) is not None:
            raise UnsupportedModel(f"{raw.name} averages its rounds (random forest mode): no raw margin is compiled")
        return [0]
    missing = [c for c in output.classes if c not in raw.classes]
    if missing:
        what = f"desired_class {missing[0]!r} is" if len(output.classes) == 1 else f"desired classes {missing!r} are"
        raise UnknownClass(f"{what} not one of the model's classes {list(raw.classes)}")
    return [raw.classes.index(c) for c in output.classes]


# ------------------------------------------------------------- zero read as missing (GBM only)
# XGBoost reading a scipy sparse matrix treats the entries it leaves out (0.0) as missing, and
# LightGBM's zero_as_missing reads |x| <= 1e-35 as missing: at some nodes 0.0 goes the missing
# way, against the compare. The user values whose model value reads as 0.0 form one interval
# (below, upto] (the maps are monotone); where every node of the feature sends such a value the
# way it sends NaN, reading them as NaN before the walk is exact, and no split changes.


def _zero_region(raw: RawEnsemble, mi: ModelInput, j: int, nodes: np.ndarray) -> tuple[float, float] | None:
    """(below, upto): the user values of column ``j``'s source feature read as missing (None if
    no double is); raises :class:`UnsupportedModel` where NaN would be read otherwise."""
    cm = mi.columns[j]

    def under(v: np.ndarray) -> np.ndarray:
        m = cm.apply(v)
        return (m < 0) & ~gbm_reads_as_zero(raw, m)

    def not_over(v: np.ndarray) -> np.ndarray:
        m = cm.apply(v)
        return (m <= 0) | gbm_reads_as_zero(raw, m)

    below = float(_numeric_thresholds(under, 1)[0])  # NaN: nothing is under the region
    upto = float(_numeric_thresholds(not_over, 1)[0])  # NaN: nothing reaches the region
    if np.isnan(upto) or (not np.isnan(below) and _key(np.array(below)) >= _key(np.array(upto))):
        return None
    name = mi.schema.names[cm.source]
    if sum(c.source == cm.source for c in mi.columns) > 1:
        raise UnsupportedModel(f"numeric feature {name!r} feeds several model columns, one reading 0 as missing")
    zero = cm.apply(np.full(len(nodes), upto))
    if not np.array_equal(raw_goes_left(raw, nodes, zero), raw.missing_left[nodes]):
        raise UnsupportedModel(f"numeric feature {name!r}: the model sends 0 and missing values different ways")
    return below, upto


class _ColumnLink:
    """``finish(acc)[:, column]``: a class, not a closure, so a Forest pickles."""

    def __init__(self, finish: Callable[[np.ndarray], np.ndarray], column: int):
        self.finish = finish
        self.column = column

    def __call__(self, acc: np.ndarray) -> np.ndarray:
        return np.asarray(self.finish(acc)[:, self.column], dtype=np.float64)


class _ClassSetLink:
    """``finish(acc)[:, columns].sum(axis=1)``: P of a set of classes as the model's own
    probabilities give it."""

    def __init__(self, finish: Callable[[np.ndarray], np.ndarray], columns: list[int]):
        self.finish = finish
        self.columns = list(columns)

    def __call__(self, acc: np.ndarray) -> np.ndarray:
        return np.asarray(self.finish(acc), dtype=np.float64)[:, self.columns].sum(axis=1)


class _RawLink:
    """The raw score itself (a binary boosting model's margin, before its link)."""

    def __call__(self, acc: np.ndarray) -> np.ndarray:
        return np.asarray(acc[:, 0], dtype=np.float64)


def read_forest(model: Any, schema: Schema, desired_class: Any) -> Forest:
    """Pipeline or bare tree model -> :class:`Forest` (raises :class:`UnsupportedModel`)."""
    mi = read_model_input(model, schema)
    raw = read_trees(mi.estimator)
    return fold(raw, mi, desired_class)
