"""Outputs beyond one class's probability: an MLPRegressor's prediction and a set of classes
(``predict_proba(X)[:, cols].sum(1)``), in both engines, bare and behind encoders/scalers - within
1e-12 of sklearn and within the engines' error bound, on full rows and on Δ blocks."""

from __future__ import annotations

import numpy as np
import pytest
from mlp_cases import ACTS, CATEGORICAL, NUMERIC, TOL, fit, frame, labels, layer_of, mlp, pipeline
from sklearn.compose import ColumnTransformer
from sklearn.neural_network import MLPRegressor
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, StandardScaler

from codegen import ModelOutput
from codegen.mlp.bound import error_bound
from codegen.mlp.scorer import MLPScorer
from plaf_grammar import Schema

PREDICTION = ModelOutput("prediction")


def regressor(hidden, act, seed=0) -> MLPRegressor:
    return MLPRegressor(hidden_layer_sizes=hidden, activation=act, max_iter=40, random_state=seed)


def regressor_pipeline(hidden, act, scaler, seed=0) -> Pipeline:
    ct = ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore"), CATEGORICAL), ("sc", scaler, NUMERIC)])
    return Pipeline([("ct", ct), ("mlp", regressor(hidden, act, seed))])


def target(df) -> np.ndarray:
    """A number to predict, of size ~40 (an hours-per-week scale)."""
    return 40 + 0.3 * (df["age"] - 50) + 2 * df["score"] + 3 * (df["color"] == "red")


def check_output(reference, schema, enc, output, scorer, rng, deltas, n=13) -> float:
    """``scorer`` (full rows and Δ blocks of two instances) within TOL of ``reference(frame)``
    and within its error bound; returns the largest difference."""
    got = scorer.score_rows(enc)
    ref = reference(schema.decode(enc))
    assert got.shape == ref.shape
    worst = float(np.abs(got - ref).max())
    assert np.all(np.abs(got - ref) <= scorer.error_bound(enc))
    for i in rng.choice(len(enc), 2, replace=False):
        x = enc[i]
        bound = scorer.bind(x)
        for delta in deltas:
            rows = np.tile(x, (n, 1))
            if delta:
                rows[:, list(delta)] = enc[rng.integers(0, len(enc), n)][:, list(delta)]
            ref = reference(schema.decode(rows))
            got = bound.score_block(delta, np.ascontiguousarray(rows[:, list(delta)]))
            assert got.shape == ref.shape
            assert np.all(np.abs(got - ref) <= scorer.error_bound(rows))
            worst = max(worst, float(np.abs(got - ref).max()))
        blocks = [(d, np.ascontiguousarray(np.tile(x, (3, 1))[:, list(d)])) for d in deltas]
        together = np.concatenate(bound.score_blocks(blocks))
        assert np.allclose(together, np.concatenate([bound.score_block(d, c) for d, c in blocks]), rtol=0, atol=TOL)
    assert worst <= TOL, worst
    return worst


@pytest.mark.parametrize("engine", ["numpy", "jit"])
@pytest.mark.parametrize("act", ACTS)
def test_regressor_bare_equals_predict(act, engine):
    df = frame()[NUMERIC]
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    model = fit(regressor((11, 6), act), df, target(frame()))
    scorer = MLPScorer(layer_of(model, schema, PREDICTION), schema, engine, opt_level=0)
    assert scorer.name == f"mlp-{engine}" and not scorer.exact
    deltas = [(), (0,), (1, 2), (0, 1, 2)]
    check_output(model.predict, schema, enc, PREDICTION, scorer, np.random.default_rng(1), deltas, n=21)


@pytest.mark.parametrize("engine", ["numpy", "jit"])
@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("scaler", ["standard", "minmax"])
def test_regressor_pipeline_equals_predict(act, engine, scaler):
    df = frame(150, seed=2)
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    sc = StandardScaler() if scaler == "standard" else MinMaxScaler()
    model = fit(regressor_pipeline((9, 5), act, sc), df, target(df))
    scorer = MLPScorer(layer_of(model, schema, PREDICTION), schema, engine, opt_level=0)
    deltas = [(), (schema.index("color"),), (schema.index("age"), schema.index("size")), tuple(range(5))]
    check_output(model.predict, schema, enc, PREDICTION, scorer, np.random.default_rng(2), deltas)


@pytest.mark.parametrize("engine", ["numpy", "jit"])
@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize(("n_classes", "wanted"), [(3, (1, 2)), (3, (2, 0)), (4, (0, 1, 3)), (2, (0, 1)), (3, (0, 1, 2))])
def test_set_of_classes_equals_the_column_sum(act, engine, n_classes, wanted):
    df = frame(150, seed=4)
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    model = fit(pipeline((8, 4), act, StandardScaler()), df, labels(len(df), n_classes, seed=4))
    output = ModelOutput("proba", wanted)
    cols = [list(model.classes_).index(c) for c in wanted]
    scorer = MLPScorer(layer_of(model, schema, output), schema, engine, opt_level=0)
    assert scorer.mlp.columns == tuple(cols)

    def reference(frame):
        return model.predict_proba(frame)[:, cols].sum(axis=1)

    deltas = [(), (schema.index("color"),), (schema.index("score"), schema.index("size")), tuple(range(5))]
    check_output(reference, schema, enc, output, scorer, np.random.default_rng(3), deltas)
    if n_classes == 2:  # both classes of a binary model: (1 - p) + p
        assert np.all(np.abs(scorer.score_rows(enc) - 1.0) <= 2 * np.finfo(float).eps)


def test_multilabel_set_equals_the_column_sum():
    """A multi-label MLPClassifier (one logistic unit per label): a set sums its units."""
    df = frame()[NUMERIC]
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    y = np.c_[labels(len(df), 2), labels(len(df), 2, seed=5), labels(len(df), 2, seed=9)]
    model = fit(mlp((7,), "tanh"), df, y)
    output = ModelOutput("proba", (0, 2))  # no classes_ per column: column indices
    for engine in ("numpy", "jit"):
        scorer = MLPScorer(layer_of(model, schema, output), schema, engine, opt_level=0)
        check_output(lambda f: model.predict_proba(f)[:, [0, 2]].sum(axis=1), schema, enc, output, scorer,
                     np.random.default_rng(4), [(0,), (1, 2)])  # fmt: skip


def test_regressor_at_input_scale_1e6_stays_within_the_bound():
    """Raw inputs near 1e6 whose first-layer terms cancel: the engines are further than 1e-12
    from predict, and still inside the error bound."""
    rng = np.random.default_rng(0)
    import pandas as pd

    X = pd.DataFrame({f"f{i}": 1e6 + rng.normal(0, 1, 300) for i in range(5)})
    model = fit(regressor((12, 6), "identity"), X - 1e6, (X - 1e6).sum(axis=1) * 10)
    model.coefs_[0] = model.coefs_[0] * 3.0
    model.intercepts_[0] = model.intercepts_[0] - np.full(5, 1e6) @ model.coefs_[0]
    schema = Schema.from_dataframe(X)
    enc = schema.encode(X)
    for engine in ("numpy", "jit"):
        scorer = MLPScorer(layer_of(model, schema, PREDICTION), schema, engine, opt_level=0)
        for i in range(3):
            rows = np.tile(enc[i], (len(enc), 1))
            rows[:, [1, 3]] = enc[:, [1, 3]]
            got = scorer.bind(enc[i]).score_block((1, 3), np.ascontiguousarray(rows[:, [1, 3]]))
            err = np.abs(got - model.predict(schema.decode(rows)))
            bound = error_bound(scorer.layer, rows)
            assert np.all(err <= bound) and bound.max() < 1e-6, float(np.max(err / bound))


def test_auto_races_a_regressor_whose_predictions_exceed_one():
    """The race's agreement check is relative once the outputs exceed 1 (predictions ~1e4
    here): the kernel is built, agrees, and the chosen engine scores predict."""
    df = frame()[NUMERIC]
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    model = fit(regressor((8,), "relu"), df, target(frame()) * 300)
    scorer = MLPScorer(layer_of(model, schema, PREDICTION), schema, "auto", background=False)
    assert scorer.built_kernel is not None, scorer.decision
    assert "differs" not in scorer.decision
    assert np.all(np.abs(scorer.score_rows(enc) - model.predict(df)) <= scorer.error_bound(enc))
