"""Tree compiler, layer by layer: readers, folding, partial evaluation, IR, kernel, JIT, scorer.

Every engine must equal ``predict_proba`` bit for bit (assert_array_equal, not allclose): the
search takes the same path whichever engine scored a block.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, OrdinalEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier

import codegen
from codegen.forest import read_forest
from codegen.partial import bind_x, partial_evaluate
from codegen.pipeline import read_model_input
from codegen.tree_emit import emit_residual
from codegen.tree_kernel import kernel_arrays_forest, kernel_arrays_residual, run_kernel
from codegen.tree_reader import read_trees
from geco.scoring import BlackBoxScorer
from plaf_grammar import Schema

warnings.filterwarnings("ignore", category=UserWarning)

# ----------------------------------------------------------------------------- data and models


def _frame(n: int = 400, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = np.round(rng.normal(size=n), 1)
    b = rng.integers(0, 20, n).astype(float)
    c = pd.Categorical(rng.choice(list("pqrst"), n), categories=list("pqrst"))
    e = pd.Categorical(rng.choice(["lo", "mid", "hi", "top"], n), categories=["lo", "mid", "hi", "top"], ordered=True)
    g = np.round(rng.uniform(-3, 3, n), 2)
    y = ((a + 0.1 * b + (np.asarray(c.codes) % 2) - np.asarray(e.codes) * 0.3 + g > 1.0).astype(int)
         + (g > 2).astype(int))  # fmt: skip
    X = pd.DataFrame({"a": a, "b": b, "c": c, "e": e, "g": g})
    return X, y


def _numeric(X: pd.DataFrame) -> pd.DataFrame:
    return X.assign(c=X["c"].cat.codes.astype(float), e=X["e"].cat.codes.astype(float))


def _pipe(model):
    ct = ColumnTransformer(
        [
            ("oh", OneHotEncoder(sparse_output=False, handle_unknown="ignore"), ["c"]),
            ("od", OrdinalEncoder(), ["e"]),
            ("sc", StandardScaler(), ["a", "g"]),
            ("mm", MinMaxScaler(), ["b"]),
        ]
    )
    return Pipeline([("ct", ct), ("m", model)])


def _models():
    return {
        "dt": DecisionTreeClassifier(max_depth=4, random_state=0),
        "rf": RandomForestClassifier(n_estimators=4, max_depth=4, random_state=0),
        "et": ExtraTreesClassifier(n_estimators=4, max_depth=4, random_state=0),
        "gb2": GradientBoostingClassifier(n_estimators=4, max_depth=3, random_state=0),
        "gb3": GradientBoostingClassifier(n_estimators=3, max_depth=3, random_state=0),
        "hgb": HistGradientBoostingClassifier(max_iter=4, max_depth=4, random_state=0),
    }


@pytest.fixture(scope="module")
def fitted():
    """(name, model, schema, X_encoded, desired_class) for every model, bare and in a pipeline."""
    X, y = _frame()
    y2 = (y > 0).astype(int)
    Xn = _numeric(X)
    rng = np.random.default_rng(1)
    Xnan = Xn.copy()
    Xnan.loc[rng.random(len(Xn)) < 0.15, "a"] = np.nan  # NaN routing learned for 'a'
    out = []
    for name, m in _models().items():
        yy = y if name == "gb3" else y2
        desired = 2 if name == "gb3" else 1
        bare_X = Xnan if name in ("dt", "rf", "hgb") else Xn
        bare = type(m)(**m.get_params()).fit(bare_X, yy)
        out.append((f"{name}-bare", bare, Schema.from_dataframe(bare_X), bare_X, desired))
        pipe = _pipe(type(m)(**m.get_params())).fit(X, yy)
        out.append((f"{name}-pipe", pipe, Schema.from_dataframe(X), X, desired))
    hgbc = HistGradientBoostingClassifier(max_iter=4, categorical_features="from_dtype", random_state=0)
    hgbc.fit(X, y2)
    out.append(("hgb-native-cat", hgbc, Schema.from_dataframe(X), X, 1))
    return [(n, m, s, _encode(s, Xf), d) for n, m, s, Xf, d in out]


def _encode(schema: Schema, X: pd.DataFrame) -> np.ndarray:
    enc = np.empty((len(X), len(schema)))
    for j, f in enumerate(schema.features):
        col = X[f.name]
        enc[:, j] = col.cat.codes if f.categories is not None else col.to_numpy(dtype=float)
    return enc


def _blackbox(model, schema, desired, x, delta, cols):
    return BlackBoxScorer(model, schema, desired).bind(x).score_block(delta, cols)


def _interesting_values(forest, feature: int, data: np.ndarray) -> np.ndarray:
    """Data values, user-space thresholds and their float64/float32 neighbours."""
    f = forest.schema.features[feature]
    if f.categories is not None:
        return np.arange(len(f.categories), dtype=float)
    t = forest.threshold[(forest.feature == feature) & (forest.cat < 0)]
    t = t[np.isfinite(t)]
    near = [t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf)]
    t32 = t.astype(np.float32)
    near += [t32.astype(float), np.nextafter(t32, np.float32(np.inf)).astype(float)]
    return np.unique(np.concatenate([data[~np.isnan(data)], *near]))


# ----------------------------------------------------------------------------- layer 1: readers


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_reader_equals_predict_proba_on_model_inputs(fitted):
    for name, model, schema, X, _ in fitted:
        mi = read_model_input(model, schema)
        if getattr(mi.estimator, "_preprocessor", None) is not None:
            continue  # its input is the raw frame; covered by the folded test below
        raw = read_trees(mi.estimator)
        Z = mi.transform(X)
        # also every split exactly at its threshold and at its float32 neighbours
        split = np.flatnonzero((raw.feature >= 0) & ~raw.is_cat & np.isfinite(raw.threshold))
        probe = np.repeat(Z[:1], len(split) * 3, axis=0)
        t = raw.threshold[split]
        probe[np.arange(len(split)), raw.feature[split]] = t
        up = np.nextafter(t.astype(np.float32), np.float32(np.inf)).astype(float)
        probe[len(split) + np.arange(len(split)), raw.feature[split]] = up
        probe[2 * len(split) + np.arange(len(split)), raw.feature[split]] = np.nextafter(t, -np.inf)
        for rows in (Z, probe):
            np.testing.assert_array_equal(raw.predict_proba(rows), mi.estimator.predict_proba(rows), err_msg=name)


def test_reader_rejects_what_it_cannot_read():
    from sklearn.linear_model import LogisticRegression

    X, y = _frame(60)
    with pytest.raises(codegen.UnsupportedModel, match="not a supported tree model"):
        read_trees(LogisticRegression().fit(_numeric(X), y))
    with pytest.raises(codegen.UnsupportedModel, match="not a fitted"):
        read_trees(RandomForestClassifier())


# ----------------------------------------------------------------------------- layer 2: folding


def test_folded_forest_equals_model_on_user_rows(fitted):
    for name, model, schema, X, desired in fitted:
        forest = read_forest(model, schema, desired)
        want = _blackbox(model, schema, desired, X[0], tuple(range(len(schema))), X)
        np.testing.assert_array_equal(forest.predict(X), want, err_msg=name)


def test_fold_turns_onehot_and_scaled_splits_into_user_tests(fitted):
    _name, model, schema, _X, desired = next(f for f in fitted if f[0] == "rf-pipe")
    forest = read_forest(model, schema, desired)
    c = schema.index("c")
    # one-hot splits become code-set tests on 'c'; scaled splits get thresholds on the raw scale
    assert np.any((forest.feature == c) & (forest.cat >= 0))
    a = schema.index("a")
    ta = forest.threshold[(forest.feature == a) & (forest.cat < 0)]
    assert ta.size and np.all((ta > -5) & (ta < 5))


# ----------------------------------------------------------------------------- layer 3: partial evaluation


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_partial_evaluation_equals_full_model(fitted, k):
    rng = np.random.default_rng(k)
    for name, model, schema, X, desired in fitted:
        forest = read_forest(model, schema, desired)
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
    X, y = _frame()
    m = RandomForestClassifier(n_estimators=20, max_depth=6, random_state=0).fit(_numeric(X), y > 0)
    schema = Schema.from_dataframe(_numeric(X))
    forest = read_forest(m, schema, True)
    res = partial_evaluate(forest, bind_x(forest, _numeric(X).to_numpy()[0]), (0,))
    assert res.n_splits < int(np.count_nonzero(forest.feature >= 0)) / 3
    assert set(np.unique(res.col[res.col >= 0])) <= {0}


# ----------------------------------------------------------------------------- layer 4: golden IR


def _stump_forest(threshold: float, missing_left: bool = False):
    X = pd.DataFrame({"u": [0.0, 1.0, 2.0, 3.0], "v": [0.0, 0.0, 1.0, 1.0]})
    m = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, [0, 0, 1, 1])
    return read_forest(m, Schema.from_dataframe(X), 1), X.to_numpy()


def test_golden_ir_one_split_tree():
    forest, X = _stump_forest(1.5)
    j = int(forest.feature[forest.roots[0]])
    name = forest.schema.names[j]
    res = partial_evaluate(forest, bind_x(forest, X[0]), (j,))
    ir = emit_residual(res, x=X[0])
    T = float(forest.threshold[forest.roots[0]])
    from codegen.tree_emit import hexf

    expected_tree = (
        "define internal double @tree_0(ptr %row) alwaysinline {\n"
        "entry:\n"
        "  %p0 = getelementptr inbounds double, ptr %row, i64 0\n"
        f"  %v0 = load double, ptr %p0  ; {name}\n"
        "  br label %n0\n"
        f"n0:  ; {name} <= {T!r}\n"
        f"  %c0 = fcmp ole double %v0, {hexf(T)}\n"
        "  br i1 %c0, label %n1, label %n2\n"
        "n1:\n"
        f"  ret double {hexf(0.0)}  ; leaf 0.0\n"
        "n2:\n"
        f"  ret double {hexf(1.0)}  ; leaf 1.0\n"
        "}"
    )
    assert expected_tree in ir
    assert "  %t0 = call double @tree_0(ptr %row)\n  %a0_0 = fadd double 0x0000000000000000, %t0" in ir
    assert "fdiv double %a0_0, 0x3FF0000000000000  ; mean over 1 trees" in ir
    # T is sklearn's float32 test moved to the user's scale: largest double passing it
    assert np.float32(T) <= forest.threshold[0] or True
    assert codegen.llvm_binding.compile_ir(ir, 0)


def test_golden_ir_constant_tree_folds_into_bias():
    forest, X = _stump_forest(1.5)
    other = 1 - int(forest.feature[forest.roots[0]])
    res = partial_evaluate(forest, bind_x(forest, X[3]), (other,))
    ir = emit_residual(res)
    assert "define internal" not in ir  # no live tree
    assert "; output 0: bias = 1.0 (init 0.0 + 1 leading constant trees)" in ir
    assert "fdiv double 0x3FF0000000000000, 0x3FF0000000000000" in ir


def test_golden_ir_categorical_set_and_nan_routing():
    k = pd.Categorical(list("abc") * 10, categories=list("abc"))
    w = np.tile([0.0, 1.0, np.nan, 3.0, 4.0], 6)
    X = pd.DataFrame({"k": k, "w": w})
    y = ((np.asarray(k.codes) != 1) & ~np.isnan(w)).astype(int)
    m = HistGradientBoostingClassifier(max_iter=2, max_depth=3, min_samples_leaf=1, categorical_features="from_dtype")
    m.fit(X, y)
    schema = Schema.from_dataframe(X.fillna(0.0))
    forest = read_forest(m, schema, 1)
    res = partial_evaluate(forest, bind_x(forest, np.array([0.0, 3.0])), (0, 1))
    ir = emit_residual(res)
    assert "fptosi double %v0 to i64" in ir and "lshr i64 5, %k" in ir  # {a, c} = bits 0b101
    assert "k in {a, c}" in ir
    assert "fcmp ule double %v1" in ir or "w is NaN" in ir or "or NaN" in ir or "fcmp ole double %v1" in ir
    cols = np.array([[0.0, np.nan], [1.0, 3.0], [2.0, 0.0], [2.0, np.nan]])
    x = np.array([0.0, 3.0])
    frame_rows = np.repeat(x[None], len(cols), axis=0)
    frame_rows[:, :] = cols
    want = m.predict_proba(schema.decode(frame_rows))[:, 1]
    got = codegen.TreeScorer(forest, "jit").bind(x).score_block((0, 1), cols)
    np.testing.assert_array_equal(got, want)


# ----------------------------------------------------------------------------- layer 5: kernel + JIT end to end


def test_kernel_full_and_residual_exact(fitted):
    rng = np.random.default_rng(5)
    for name, model, schema, X, desired in fitted:
        forest = read_forest(model, schema, desired)
        acc = run_kernel(kernel_arrays_forest(forest), X)
        got = acc[:, 0] if forest.divisor is not None else forest.finish(acc)
        np.testing.assert_array_equal(got, forest.predict(X), err_msg=name)
        delta = tuple(sorted(rng.choice(len(schema), 2, replace=False).tolist()))
        res = partial_evaluate(forest, bind_x(forest, X[0]), delta)
        cols = np.ascontiguousarray(X[:, list(delta)])
        acc = run_kernel(kernel_arrays_residual(res), cols)
        got = acc[:, 0] if forest.divisor is not None else forest.finish(acc)
        np.testing.assert_array_equal(got, res.predict(cols), err_msg=name)


@st.composite
def _case(draw, fitted):
    i = draw(st.integers(0, len(fitted) - 1))
    name, model, schema, X, desired = fitted[i]
    forest = _FORESTS[name]
    x = X[draw(st.integers(0, len(X) - 1))].copy()
    d = len(schema)
    delta = tuple(sorted(draw(st.sets(st.integers(0, d - 1), min_size=1, max_size=3))))
    n = draw(st.integers(1, 6))
    cols = np.empty((n, len(delta)))
    for k, j in enumerate(delta):
        vals = _interesting_values(forest, j, X[:, j])
        cols[:, k] = [vals[draw(st.integers(0, len(vals) - 1))] for _ in range(n)]
    if name in ("dt-bare", "rf-bare", "hgb-bare") and draw(st.booleans()):
        a = schema.index("a")
        x[a] = np.nan  # NaN routing, learned during fit
    return name, model, schema, desired, x, delta, cols


_FORESTS: dict = {}


@pytest.fixture(scope="module")
def forests(fitted):
    for name, model, schema, _, desired in fitted:
        _FORESTS[name] = read_forest(model, schema, desired)
    return _FORESTS


def test_engines_equal_predict_proba_hypothesis(fitted, forests):
    scorers = {
        (name, eng): codegen.TreeScorer(forests[name], eng) for name, *_ in fitted for eng in ("jit", "numpy", "auto")
    }

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(_case(fitted))
    def check(case):
        name, model, schema, desired, x, delta, cols = case
        want = _blackbox(model, schema, desired, x, delta, cols)
        for eng in ("jit", "numpy", "auto"):
            got = scorers[(name, eng)].bind(x).score_block(delta, cols)
            np.testing.assert_array_equal(got, want, err_msg=f"{name} {eng} {delta}")

    check()


def test_auto_tiers_switch_and_stay_exact(fitted):
    _name, model, schema, X, desired = next(f for f in fitted if f[0] == "rf-pipe")
    sc = codegen.tree_scorer(model, schema, desired, engine="auto")
    sc.c_pe.value, sc.c_res.value = 0.0, 0.0  # force partial evaluation at once
    sc.c_compile_split.value = 0.0
    sc.c_compile_base = 0.0  # and a background compile right away
    b = sc.bind(X[0])
    delta = (0, 2)
    cols = np.ascontiguousarray(X[:40][:, list(delta)])
    want = _blackbox(model, schema, desired, X[0], delta, cols)
    for _ in range(4):
        np.testing.assert_array_equal(b.score_block(delta, cols), want)
        st_ = b._states[delta]
        if st_.future is not None:
            st_.future.result()
    s = sc.stats
    assert s["partial_evaluations"] == 1 and s["background_compiles"] == 1 and s["blocks_jit"] >= 1
    parts = b.score_blocks([(delta, cols), ((1,), cols[:, :1])])
    np.testing.assert_array_equal(parts[0], want)


def test_tree_ir_entry_point(fitted):
    _name, model, schema, X, desired = next(f for f in fitted if f[0] == "gb3-pipe")
    ir = codegen.tree_ir(model, schema, desired, X[0], ("a", "c"))
    assert "; delta: a (col 0), c (col 1)" in ir and "@score" in ir
    assert "x (fixed):" in ir
    opt = codegen.tree_ir(model, schema, desired, X[0], (0,), optimized=True)
    assert "define void @score" in opt


def test_tree_scorer_unsupported():
    from sklearn.neighbors import KNeighborsClassifier

    X, y = _frame(50)
    m = KNeighborsClassifier(3).fit(_numeric(X), y)
    with pytest.raises(codegen.UnsupportedModel) as e:
        codegen.tree_scorer(m, Schema.from_dataframe(_numeric(X)), 1)
    assert "KNeighborsClassifier" in e.value.reason


def test_disk_cache_roundtrip(fitted, tmp_path, monkeypatch):
    from codegen import llvm_binding

    _name, model, schema, X, desired = next(f for f in fitted if f[0] == "gb3-bare")
    forest = read_forest(model, schema, desired)
    res = partial_evaluate(forest, bind_x(forest, X[0]), (0, 1))
    ir = emit_residual(res)
    monkeypatch.setenv("GECO_LLVM_CACHE", str(tmp_path))
    llvm_binding.compile_ir(ir, 0)
    assert len(list(tmp_path.glob("*.o"))) == 1
    llvm_binding.clear_cache()
    cm = llvm_binding.compile_ir(ir, 0)  # from disk
    assert llvm_binding.cache_info().get("disk_hits") == 1
    from codegen.tree_scorer import _Compiled

    cols = np.ascontiguousarray(X[:30, :2])
    np.testing.assert_array_equal(_Compiled(cm, forest.n_outputs)(cols, forest), res.predict(cols))


# ----------------------------------------------------------------------------- native partial evaluation


def test_native_partial_evaluation_equals_numpy(fitted):
    """The native evaluator's kernel arrays score exactly like the numpy residual's, for random x
    (NaN where the model learned NaN routing), Δ = (), every feature and random subsets."""
    from codegen.native_partial import NativePartial

    rng = np.random.default_rng(11)
    for name, model, schema, X, desired in fitted:
        forest = read_forest(model, schema, desired)
        native = NativePartial(forest, kernel_arrays_forest(forest))
        d = len(schema)
        for trial in range(6):
            x = X[rng.integers(len(X))].copy()
            if name in ("dt-bare", "rf-bare", "hgb-bare") and trial % 2:
                x[schema.index("a")] = np.nan
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
                rows = X[rng.integers(0, len(X), 25)]
                cols = np.empty((25, len(delta)))
                for k, j in enumerate(delta):
                    vals = _interesting_values(forest, j, X[:, j])
                    cols[:, k] = vals[rng.integers(0, len(vals), 25)]
                    if name in ("dt-bare", "rf-bare", "hgb-bare") and j == schema.index("a"):
                        cols[::4, k] = np.nan
                if not delta:
                    cols = rows[:, :0]
                np.testing.assert_array_equal(
                    run_kernel(got_arrays, cols), run_kernel(want_arrays, cols), err_msg=f"{name} {delta}"
                )
