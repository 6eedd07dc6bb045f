"""The compiled leaf ranges of a box (codegen.trees.native_bound) against the numpy reference
(codegen.trees.bound.leaf_ranges), number for number: the certificates rest on them."""

from __future__ import annotations

import numpy as np
import pytest

from codegen.registry import scorer_for
from codegen.trees.bound import box_of, leaf_ranges
from codegen.trees.kernel import kernel_arrays_forest
from codegen.trees.native_bound import NativeLeafRanges, subtree_extents


def random_box(rng, X, x, nan: bool):
    """Per feature: x's value (None), or a few of the data's values, a NaN among them now and
    then, or a code past every category."""
    allowed = []
    for j in range(X.shape[1]):
        if rng.random() < 0.3:
            allowed.append(None)
            continue
        values = np.unique(X[:, j][~np.isnan(X[:, j])])
        pick = rng.choice(values, size=min(len(values), int(rng.integers(1, 6))), replace=False)
        if nan and rng.random() < 0.3:
            pick = np.append(pick, np.nan)
        if rng.random() < 0.1:
            pick = np.append(pick, values.max() + 100)
        allowed.append(pick)
    return allowed


def test_compiled_leaf_ranges_equal_the_reference(fitted, forests):
    rng = np.random.default_rng(11)
    boxes = 0
    for name, _model, _schema, X, _desired in fitted:
        forest = forests[name]
        native = NativeLeafRanges(forest, kernel_arrays_forest(forest))
        for _ in range(40):
            x = X[rng.integers(len(X))]
            box = box_of(forest, x, random_box(rng, X, x, nan=bool(np.isnan(X).any()) or rng.random() < 0.5))
            top, low = native(forest, box)
            want_top, want_low = leaf_ranges(forest, box)
            np.testing.assert_array_equal(top, want_top, err_msg=name)
            np.testing.assert_array_equal(low, want_low, err_msg=name)
            top_alone, none = native(forest, box, need_low=False)  # the walk pruned on the top alone
            np.testing.assert_array_equal(top_alone, want_top, err_msg=name)
            assert none is None
            boxes += 1
        everything = [np.unique(X[:, j][~np.isnan(X[:, j])]) for j in range(X.shape[1])]
        want = leaf_ranges(forest, box_of(forest, X[0], everything))[0]
        for need_low in (True, False):
            top, _ = native(forest, box_of(forest, X[0], everything), need_low)
            np.testing.assert_array_equal(top, want, err_msg=name)
    assert boxes >= 400


def test_deep_trees_walked_several_at_once_equal_the_reference():
    """Unbounded trees on noisy data (deep and lopsided: each lane's stack is sized by the
    forest's depth), forests of 1, 5 and 7 trees (fewer and more than the walks run at once),
    boxes allowing a missing value now and then: the reference's ranges, top alone or both."""
    import pandas as pd
    from sklearn.ensemble import RandomForestClassifier

    from codegen.trees.fold import read_forest
    from codegen.trees.native_bound import BOX_LANES, tree_depth
    from plaf_grammar import Schema

    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"a": rng.normal(size=600).round(2), "b": rng.integers(0, 40, 600).astype(float),
                          "c": rng.normal(size=600)})  # fmt: skip
    y = ((frame["a"] + 0.05 * frame["b"] + rng.normal(size=600)) > 0.8).astype(int)
    schema = Schema.from_dataframe(frame)
    X = schema.encode(frame)
    deepest = 0
    for trees in (1, 5, 7):
        model = RandomForestClassifier(n_estimators=trees, random_state=trees).fit(frame, y)
        forest = read_forest(model, schema, 1)
        full = kernel_arrays_forest(forest)
        native = NativeLeafRanges(forest, full)
        deepest = max(deepest, tree_depth(full.nodes, full.troot))
        assert native.room == tree_depth(full.nodes, full.troot) + 2
        for _ in range(15):
            x = X[rng.integers(len(X))]
            box = box_of(forest, x, random_box(rng, X, x, nan=True))
            want_top, want_low = leaf_ranges(forest, box)
            top, low = native(forest, box)
            np.testing.assert_array_equal(top, want_top, err_msg=f"{trees} trees")
            np.testing.assert_array_equal(low, want_low, err_msg=f"{trees} trees")
            np.testing.assert_array_equal(native(forest, box, need_low=False)[0], want_top, err_msg=f"{trees} trees")
    assert deepest >= 15 and BOX_LANES > 1


def _leaves_below(nodes, node):
    stack, out = [node], []
    while stack:
        n = stack.pop()
        if nodes["col"][n] < 0:
            out.append(nodes["v"][n])
        else:
            stack += [nodes["left"][n], nodes["right"][n]]
    return np.array(out)


def test_subtree_extents_are_the_leaves_below_each_node(fitted, forests):
    rng = np.random.default_rng(3)
    for name, *_ in fitted:
        full = kernel_arrays_forest(forests[name])
        extent = subtree_extents(full.nodes, full.troot)
        for node in rng.choice(len(full.nodes), size=min(60, len(full.nodes)), replace=False):
            below = _leaves_below(full.nodes, node)
            np.testing.assert_array_equal(extent[node], [below.max(), below.min()], err_msg=name)


def test_a_nan_leaf_is_found_though_its_tree_is_pruned_elsewhere(fitted, forests):
    """The walk skips subtrees within the range found so far; a NaN leaf is never within it, so
    its tree's range is NaN as the reference says, wherever the leaf sits."""
    from dataclasses import replace

    from codegen.trees.bound import reachable_leaves

    rng = np.random.default_rng(4)
    name, _model, _schema, X, _desired = fitted[0]
    forest = forests[name]
    everything = [np.unique(X[:, j][~np.isnan(X[:, j])]) for j in range(X.shape[1])]
    leaves = reachable_leaves(forest, X[0], everything)[0]
    for leaf in rng.choice(leaves, size=8, replace=False):
        value = forest.value.copy()
        value[leaf] = np.nan
        broken = replace(forest, value=value)
        native = NativeLeafRanges(broken, kernel_arrays_forest(broken))
        box = box_of(broken, X[0], everything)
        top, low = native(broken, box)
        want_top, want_low = leaf_ranges(broken, box)
        np.testing.assert_array_equal(top, want_top)
        np.testing.assert_array_equal(low, want_low)
        assert np.isnan(top).sum() == 1
        np.testing.assert_array_equal(native(broken, box, need_low=False)[0], want_top)


def test_the_compiled_engine_bounds_as_the_numpy_one(fitted):
    rng = np.random.default_rng(12)
    for name, model, schema, X, desired in fitted:
        compiled = scorer_for(model, schema, desired, engine="auto")
        reference = scorer_for(model, schema, desired, engine="numpy")
        for _ in range(10):
            x = X[rng.integers(len(X))]
            allowed = random_box(rng, X, x, nan=False)
            assert compiled.upper_bound(x, allowed) == reference.upper_bound(x, allowed), name


def test_a_forest_the_ranges_were_not_built_for_is_refused(fitted, forests):
    first, X = forests[fitted[0][0]], fitted[0][3]
    other = next(forests[f[0]] for f in fitted if len(forests[f[0]].feature) != len(first.feature))
    native = NativeLeafRanges(first, kernel_arrays_forest(first))
    with pytest.raises(ValueError, match="another forest"):
        native(other, box_of(other, X[0], [None] * X.shape[1]))
    with pytest.raises(ValueError, match="not this forest's"):
        NativeLeafRanges(first, kernel_arrays_forest(other))


def _box_feature_by_feature(forest, values):
    """The box read one feature at a time: each feature's non-missing values' least and largest,
    whether one is missing, which codes of the sets (or codes outside them) it holds."""
    d, width = len(values), forest.cat_left.shape[1]
    lo, hi = np.full(d + 1, np.nan), np.full(d + 1, np.nan)
    missing, outside = np.zeros(d + 1, dtype=bool), np.zeros(d + 1, dtype=bool)
    codes = np.zeros((d + 1, width), dtype=bool)
    for j, v in enumerate(values):
        missing[j] = bool(np.isnan(v).any())
        v = v[~np.isnan(v)]
        if len(v):
            lo[j], hi[j] = v.min(), v.max()
            inside = (v >= 0) & (v < width)
            outside[j] = not inside.all()
            codes[j, v[inside].astype(np.int64)] = True
    return lo, hi, missing, codes, outside


def test_box_reads_every_feature_as_one_at_a_time(fitted, forests):
    """Box.of (every feature in one pass) equals the feature-by-feature reading, NaN-only
    features, codes past every set and -0.0 included."""
    from codegen.trees.bound import Box

    rng = np.random.default_rng(5)
    for name, _model, _schema, X, _desired in fitted:
        forest = forests[name]
        for _ in range(30):
            values = [np.asarray(v if v is not None else X[:1, j], dtype=np.float64)
                      for j, v in enumerate(random_box(rng, X, X[0], nan=True))]  # fmt: skip
            values[0] = np.array([np.nan]) if rng.random() < 0.3 else values[0]
            values[-1] = np.append(values[-1], -0.0)
            box = Box.of(forest, values)
            for got, want in zip((box.lo, box.hi, box.missing, box.codes, box.outside), _box_feature_by_feature(forest, values)):
                np.testing.assert_array_equal(got, want, err_msg=name)
