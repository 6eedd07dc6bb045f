"""MLP codegen: reader, partial evaluation, IR inspection, JIT vs ``predict_proba`` (<= 1e-12)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, StandardScaler

from codegen.errors import UnsupportedModel
from codegen.llvm_binding import emit_assembly
from codegen.mlp_inputs import model_inputs
from codegen.mlp_partial import FirstLayer
from codegen.mlp_reader import read_mlp
from codegen.mlp_scorer import MLPScorer, jit_candidate, mlp_ir, mlp_scorer
from plaf_grammar.schema import Schema

TOL = 1e-12
ACTS = ("relu", "tanh", "logistic", "identity")


def _frame(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(np.int64),
            "score": rng.normal(3.0, 2.0, n),
            "color": pd.Categorical(rng.choice(["red", "green", "blue"], n), categories=["red", "green", "blue"]),
            "size": pd.Categorical(rng.choice(["S", "M", "L", "XL"], n), categories=["S", "M", "L", "XL"], ordered=True),
            "hours": rng.integers(1, 60, n).astype(np.int64),
        }
    )


NUMERIC = ["age", "score", "hours"]
CATEGORICAL = ["color", "size"]


def _fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y)


def _mlp(hidden, act, seed=0):
    return MLPClassifier(hidden, activation=act, max_iter=15, random_state=seed)


def _pipeline(hidden, act, scaler, seed=0):
    ct = ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore"), CATEGORICAL), ("sc", scaler, NUMERIC)])
    return Pipeline([("ct", ct), ("mlp", _mlp(hidden, act, seed))])


def _labels(n, n_classes, seed=0):
    return np.random.default_rng(seed + 1).integers(0, n_classes, n)


def _rows(x, delta, source, rng, n):
    rows = np.tile(x, (n, 1))
    if delta:
        rows[:, list(delta)] = source[rng.integers(0, len(source), n)][:, list(delta)]
    return rows


def _check(model, schema, enc, desired, scorer, rng, deltas, n=13):
    col = list(model.classes_).index(desired)
    worst = 0.0
    for i in rng.choice(len(enc), 2, replace=False):
        x = enc[i]
        bound = scorer.bind(x)
        for delta in deltas:
            rows = _rows(x, delta, enc, rng, n)
            ref = model.predict_proba(schema.decode(rows))[:, col]
            got = bound.score_block(delta, np.ascontiguousarray(rows[:, list(delta)]))
            worst = max(worst, float(np.abs(got - ref).max()))
    assert worst <= TOL, worst


# ------------------------------------------------------------------------------------ reader
@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_reader_forward_equals_predict_proba(act, n_classes):
    X = _frame()[NUMERIC].to_numpy(dtype=float)
    y = _labels(len(X), n_classes)
    m = _fit(_mlp((6, 4), act), X, y)
    for c in range(n_classes):
        mlp = read_mlp(m, c)
        assert mlp.layer_sizes == (3, 6, 4, 1 if n_classes == 2 else n_classes)
        np.testing.assert_array_equal(mlp.forward(X), m.predict_proba(X)[:, c])


def test_unsupported_models_give_a_reason():
    df = _frame()
    schema = Schema.from_dataframe(df[NUMERIC])
    X = df[NUMERIC]
    with pytest.raises(UnsupportedModel, match="not an MLPClassifier"):
        mlp_scorer(_fit(MLPRegressor(hidden_layer_sizes=(3,), max_iter=5), X, X["score"]), schema, 1)
    with pytest.raises(UnsupportedModel):
        mlp_scorer(_fit(_mlp((3,), "relu"), X, _labels(len(X), 2)), schema, 7)  # not a class
    full = Schema.from_dataframe(df)
    bare = _fit(_mlp((3,), "relu"), X, _labels(len(X), 2))
    with pytest.raises(UnsupportedModel):  # string categories cannot reach a bare MLP
        mlp_scorer(bare, full, 1)


# ------------------------------------------------------------------------------------ partial evaluation
@pytest.mark.parametrize("scaler", [StandardScaler(), MinMaxScaler(), MinMaxScaler(clip=True)])
def test_partial_evaluation_equals_pipeline(scaler):
    df = _frame()
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    model = _fit(_pipeline((7,), "tanh", scaler), df, _labels(len(df), 3))
    mlp, inputs = model_inputs(model, schema, 2)
    layer = FirstLayer(mlp, inputs)
    assert layer.tables[2].shape == (3, 7) and layer.tables[3].shape == (4, 7)  # color, size
    rng = np.random.default_rng(0)
    for delta in [(), (0,), (2,), (1, 3), (0, 1, 2, 3, 4)]:
        x = enc[rng.integers(len(enc))]
        rows = _rows(x, delta, enc, rng, 9)
        got = layer.plan(x, delta).score(rows[:, list(delta)])
        np.testing.assert_allclose(got, model.predict_proba(schema.decode(rows))[:, 2], rtol=0, atol=TOL)


def test_outside_delta_is_folded_into_the_bias():
    df = _frame()
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    model = _fit(_pipeline((5,), "relu", StandardScaler()), df, _labels(len(df), 2))
    mlp, inputs = model_inputs(model, schema, 1)
    layer = FirstLayer(mlp, inputs)
    x = enc[0]
    plan = layer.plan(x, (1,))
    pre = model[:-1].transform(schema.decode(x[None, :]))
    # z1 of x itself equals the folded bias plus x's own Δ term
    np.testing.assert_allclose(plan.z1(x[None, [1]])[0], (pre @ mlp.weights[0] + mlp.biases[0])[0], atol=1e-12)


# ------------------------------------------------------------------------------------ IR inspection
def test_ir_names_features_and_folded_bias():
    df = _frame()
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    model = _fit(_pipeline((9, 5), "relu", StandardScaler()), df, _labels(len(df), 2))
    delta = (schema.index("age"), schema.index("color"))
    text = mlp_ir(model, schema, 1, enc[0], delta)
    assert "define void @mlp_score(" in text
    assert "; Delta = (age, color)" in text and "folded into the layer-1 bias" in text
    assert "color: category code -> row of a 3 x 9 table" in text
    assert "age: u = (v - " in text and "fmuladd.v8f64" in text
    spec = mlp_ir(model, schema, 1, enc[0], delta, kernel="specialised")
    for name in ("@mlp_score_delta(", "@bias_folded", "@w1_0_age", "@table_1_color", "@W2", "@b2", "@W3"):
        assert name in spec
    opt = mlp_ir(model, schema, 1, enc[0], delta, optimized=True)
    assert "<8 x double>" in opt and "@mlp_score" in opt
    asm = emit_assembly(text, 2)  # the header lines are IR comments
    assert "vfmadd" in asm  # vector FMAs (zmm registers on an AVX-512 host)


# ------------------------------------------------------------------------------------ JIT vs sklearn
@pytest.mark.parametrize("act", ACTS)
def test_jit_bare_o2(act):
    df = _frame()[NUMERIC]
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    model = _fit(_mlp((11, 6), act), df, _labels(len(df), 2))
    scorer = MLPScorer(model, schema, 1, engine="jit", opt_level=2)
    rng = np.random.default_rng(1)
    _check(model, schema, enc, 1, scorer, rng, [(), (0,), (1, 2), (0, 1, 2)], n=21)


def test_auto_engine_decides():
    df = _frame()[NUMERIC]
    schema = Schema.from_dataframe(df)
    small = _fit(_mlp((8,), "relu"), df, _labels(len(df), 2))
    s = MLPScorer(small, schema, 1, engine="auto", background=False)
    assert s.name in ("mlp-jit", "mlp-numpy") and s.compiled is not None and s.timings
    big = _fit(MLPClassifier((300, 300), max_iter=1), df, _labels(len(df), 2))
    ok, why = jit_candidate(read_mlp(big, 1))
    assert not ok and "KiB" in why
    b = MLPScorer(big, schema, 1, engine="auto")
    assert b.name == "mlp-numpy" and b.compiled is None
    s2 = MLPScorer(small, schema, 1, engine="auto").wait()
    assert s2.compiled is not None
    np.testing.assert_allclose(
        s2.bind(schema.encode(df)[0]).score_block((0,), np.array([[30.0], [40.0]])),
        small.predict_proba(df.iloc[[0, 0]].assign(age=[30, 40]))[:, 1],
        atol=TOL,
    )


_DF = _frame(150, seed=3)
_SCHEMA = Schema.from_dataframe(_DF)
_ENC = _SCHEMA.encode(_DF)
_NUM_SCHEMA = Schema.from_dataframe(_DF[NUMERIC])
_NUM_ENC = _NUM_SCHEMA.encode(_DF[NUMERIC])

networks = st.tuples(
    st.lists(st.integers(1, 12), min_size=1, max_size=3).map(tuple),
    st.sampled_from(ACTS),
    st.integers(2, 4),  # classes
    st.integers(0, 10_000),  # seed
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(net=networks, data=st.data())
def test_hypothesis_bare(net, data):
    hidden, act, n_classes, seed = net
    model = _fit(_mlp(hidden, act, seed), _DF[NUMERIC], _labels(len(_DF), n_classes, seed))
    desired = data.draw(st.sampled_from(list(model.classes_)))
    scorer = MLPScorer(model, _NUM_SCHEMA, desired, engine="jit", opt_level=0)
    deltas = data.draw(st.lists(st.lists(st.integers(0, 2), unique=True).map(lambda d: tuple(sorted(d))), min_size=1, max_size=3))
    n = data.draw(st.integers(1, 19))
    _check(model, _NUM_SCHEMA, _NUM_ENC, desired, scorer, np.random.default_rng(seed), deltas, n)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(net=networks, scaler=st.sampled_from(["standard", "minmax", "minmax-clip"]), data=st.data())
def test_hypothesis_pipeline(net, scaler, data):
    hidden, act, n_classes, seed = net
    sc = {"standard": StandardScaler(), "minmax": MinMaxScaler(), "minmax-clip": MinMaxScaler(clip=True)}[scaler]
    model = _fit(_pipeline(hidden, act, sc, seed), _DF, _labels(len(_DF), n_classes, seed))
    desired = data.draw(st.sampled_from(list(model.classes_)))
    engine = data.draw(st.sampled_from(["jit", "numpy"]))
    scorer = MLPScorer(model, _SCHEMA, desired, engine=engine, opt_level=0)
    deltas = data.draw(st.lists(st.lists(st.integers(0, 4), unique=True).map(lambda d: tuple(sorted(d))), min_size=1, max_size=3))
    n = data.draw(st.integers(1, 19))
    _check(model, _SCHEMA, _ENC, desired, scorer, np.random.default_rng(seed), deltas, n)


def test_specialised_kernel_equals_pipeline():
    import ctypes

    from codegen.llvm_binding import compile_ir
    from codegen.mlp_emit import KernelShape, emit_specialised
    from codegen.mlp_scorer import specialised_terms

    df = _frame()
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    model = _fit(_pipeline((9, 4), "logistic", MinMaxScaler(clip=True)), df, _labels(len(df), 3))
    mlp, inputs = model_inputs(model, schema, 1)
    layer = FirstLayer(mlp, inputs)
    rng = np.random.default_rng(5)
    for delta in [(0, 2), (1, 3, 4)]:
        x = enc[3]
        plan = layer.plan(x, delta)
        ir = emit_specialised(KernelShape.of(mlp), mlp, plan.bias, specialised_terms(layer, delta), len(delta))
        fn = compile_ir(ir, 0).function("mlp_score_delta", None, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p)
        rows = _rows(x, delta, enc, rng, 11)
        cols = np.ascontiguousarray(rows[:, list(delta)])
        out = np.empty(len(rows))
        fn(len(rows), cols.ctypes.data, out.ctypes.data)
        np.testing.assert_allclose(out, model.predict_proba(schema.decode(rows))[:, 1], rtol=0, atol=TOL)
