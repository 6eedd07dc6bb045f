"""Partial evaluation (numpy and native) against the full folded model."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from tree_cases import WITH_NAN, delta_block, frame, numeric

from codegen.trees.fold import read_forest
from codegen.trees.kernel import kernel_arrays_forest, kernel_arrays_residual, run_kernel
from codegen.trees.native_partial import NativePartial
from codegen.trees.partial import bind_x, partial_evaluate
from plaf_grammar import Schema


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_partial_evaluation_equals_full_model(fitted, forests, k):
    rng = np.random.default_rng(k)
    for name, _model, schema, X, _desired in fitted:
        forest = forests[name]
        x = X[rng.integers(len(X))]
        delta = tuple(sorted(rng.choice(len(schema), k, replace=False).tolist()))
        res = partial_evaluate(forest, bind_x(forest, x), delta)
        rows = np.repeat(x[None], 50, axis=0)
        src = X[rng.integers(0, len(X), 50)]
        rows[:, list(delta)] = src[:, list(delta)]
        got = res.predict(np.ascontiguousarray(rows[:, list(delta)]))
        np.testing.assert_array_equal(got, forest.predict(rows), err_msg=f"{name} {delta}")
        if k == 0:
            assert res.n_live == 0


def test_partial_evaluation_prunes():
    X, y = frame()
    m = RandomForestClassifier(n_estimators=20, max_depth=6, random_state=0).fit(numeric(X), y > 0)
    schema = Schema.from_dataframe(numeric(X))
    forest = read_forest(m, schema, True)
    res = partial_evaluate(forest, bind_x(forest, numeric(X).to_numpy()[0]), (0,))
    assert 0 < res.n_splits < int(np.count_nonzero(forest.feature >= 0)) / 3
    assert set(np.unique(res.col[res.col >= 0])) == {0}


def test_native_partial_evaluation_equals_numpy(fitted, forests):
    """The native evaluator's kernel arrays score exactly like the numpy residual's, for random x
    (NaN where the model learned NaN routing), Δ = (), every feature and random subsets."""
    rng = np.random.default_rng(11)
    compared = 0
    for name, _model, schema, X, _desired in fitted:
        forest = forests[name]
        native = NativePartial(forest, kernel_arrays_forest(forest))
        d = len(schema)
        a = schema.index("a")
        for trial in range(6):
            x = X[rng.integers(len(X))].copy()
            if name in WITH_NAN and trial % 2:
                x[a] = np.nan
            xchild = bind_x(forest, x)
            bx = native.bind(x)
            np.testing.assert_array_equal(bx.xchild, xchild, err_msg=name)
            deltas = [(), tuple(range(d))] + [
                tuple(sorted(rng.choice(d, k, replace=False).tolist())) for k in (1, 2, 3)
            ]
            for delta in deltas:
                res = partial_evaluate(forest, xchild, delta)
                want_arrays = kernel_arrays_residual(res)
                got_arrays = native(bx, delta)
                const = want_arrays.troot < 0
                np.testing.assert_array_equal(got_arrays.troot < 0, const, err_msg=f"{name} {delta}")
                np.testing.assert_array_equal(got_arrays.tconst[const], want_arrays.tconst[const])
                assert len(got_arrays.nodes) == len(res.node) - const.sum()
                cols = delta_block(forest, X, delta, rng, 25, nan_in=a if name in WITH_NAN else None)
                np.testing.assert_array_equal(
                    run_kernel(got_arrays, cols), run_kernel(want_arrays, cols), err_msg=f"{name} {delta}"
                )
                compared += 1
    assert compared == len(fitted) * 6 * 5
