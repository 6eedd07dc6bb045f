"""The emitted IR of residual forests: golden text for a one-split tree and a small categorical
boosting model, and the pieces that carry sklearn's semantics (folded constants, code sets, NaN
routing)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.tree import DecisionTreeClassifier
from tree_cases import case

from codegen.llvm import binding
from codegen.llvm.ir_text import hex_double
from codegen.registry import scorer_for
from codegen.trees.emit import emit_residual
from codegen.trees.fold import read_forest
from codegen.trees.partial import bind_x, partial_evaluate
from codegen.trees.scorer import TreeScorer
from plaf_grammar import Schema


def _stump():
    """A one-split tree on u (u <= 1.5 -> class 0), over the features u and v."""
    X = pd.DataFrame({"u": [0.0, 1.0, 2.0, 3.0], "v": [0.0, 1.0, 0.0, 1.0]})
    m = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, [0, 0, 1, 1])
    return m, read_forest(m, Schema.from_dataframe(X), 1), X.to_numpy()


def test_golden_ir_one_split_tree(golden):
    _model, forest, X = _stump()
    assert forest.schema.names[int(forest.feature[forest.roots[0]])] == "u"
    res = partial_evaluate(forest, bind_x(forest, X[0]), (0,))
    ir = emit_residual(res, x=X[0])
    golden("tree_one_split", ir)
    assert binding.compile_ir(ir, 0).address("score")


def test_fold_moves_the_float32_test_to_the_largest_double_passing_it():
    model, forest, _X = _stump()
    T = float(forest.threshold[forest.roots[0]])
    sk = float(model.tree_.threshold[0])  # sklearn tests float32(u) <= sk
    assert float(np.float32(T)) <= sk
    assert float(np.float32(np.nextafter(T, np.inf))) > sk


def test_golden_ir_constant_tree_folds_into_bias():
    _model, forest, X = _stump()
    res = partial_evaluate(forest, bind_x(forest, X[3]), (1,))  # the tree splits on u only
    ir = emit_residual(res)
    assert "define internal" not in ir  # no live tree
    assert "; output 0: bias = 1.0 (init 0.0 + 1 leading constant trees)" in ir
    assert "fdiv double 0x3FF0000000000000, 0x3FF0000000000000" in ir


def _categorical_hgb():
    """Two boosting rounds over a categorical k (native code sets) and a w with learned NaN routing."""
    k = pd.Categorical(list("abc") * 10, categories=list("abc"))
    w = np.tile([0.0, 1.0, np.nan, 3.0, 4.0], 6)
    X = pd.DataFrame({"k": k, "w": w})
    y = ((np.asarray(k.codes) != 1) & ~np.isnan(w)).astype(int)
    m = HistGradientBoostingClassifier(max_iter=2, max_depth=3, min_samples_leaf=1, categorical_features="from_dtype")
    m.fit(X, y)
    schema = Schema.from_dataframe(X.fillna(0.0))
    return m, schema, read_forest(m, schema, 1)


def test_golden_ir_categorical_sets_and_nan_routing(golden):
    """Boosting raw scores (no division), a 64-bit code-set test and the split that sends NaN
    right (`w <= inf`), as text."""
    _m, _schema, forest = _categorical_hgb()
    x = np.array([0.0, 3.0])
    ir = emit_residual(res := partial_evaluate(forest, bind_x(forest, x), (0, 1)), x=x)
    assert res.n_live == forest.n_trees
    golden("tree_hgb_categorical_nan", ir)
    assert binding.compile_ir(ir, 0).address("score")


def test_ir_categorical_set_and_nan_routing():
    m, schema, forest = _categorical_hgb()
    res = partial_evaluate(forest, bind_x(forest, np.array([0.0, 3.0])), (0, 1))
    ir = emit_residual(res)
    assert "lshr i64 5, %k" in ir  # {a, c} = bits 0b101
    # the code is range-checked before it is converted: 0 <= v < 3 categories
    assert "fcmp oge double %v0, 0.0" in ir and f"fcmp olt double %v0, {hex_double(3.0)}" in ir
    assert "k in {a, c}" in ir
    # every split on w: `ule` (NaN goes left) or `ole`, exactly as the node learned it
    w_splits = [r for r in range(len(res.col)) if res.col[r] == 1]
    assert w_splits
    for r in w_splits:
        node = int(res.node[r])
        op = "ule" if forest.missing_left[node] else "ole"
        assert f"%c{r} = fcmp {op} double %v1, {hex_double(forest.threshold[node])}" in ir
    cols = np.array([[0.0, np.nan], [1.0, 3.0], [2.0, 0.0], [2.0, np.nan]])
    want = m.predict_proba(schema.decode(cols))[:, 1]
    got = TreeScorer(forest, "jit").bind(np.array([0.0, 3.0])).score_block((0, 1), cols)
    np.testing.assert_array_equal(got, want)


def test_scorer_ir_names_delta_and_x(fitted):
    _name, model, schema, X, desired = case(fitted, "gb3-pipe")
    scorer = scorer_for(model, schema, desired, "numpy")
    delta = (schema.index("a"), schema.index("c"))
    ir = scorer.ir(X[0], delta)
    assert "; delta: a (col 0), c (col 1)" in ir and "define void @score" in ir
    assert "x (fixed):" in ir
    opt = scorer.ir(X[0], (0,), optimized=True)
    assert "define void @score" in opt and opt != scorer.ir(X[0], (0,))
