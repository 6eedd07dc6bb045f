"""scikit-learn's linear models compiled as networks without a hidden layer: the reader equals
``predict_proba`` / ``predict`` bit for bit, both engines are within 1e-12 of them on every Δ
(through a one-hot and scaling pipeline too), and an Explainer over one explains with the
compiled engine, its answers scored as the model scores them and within the rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from mlp_cases import CATEGORICAL, NUMERIC, TOL, check_engine, fit, frame, labels
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import (
    ARDRegression,
    BayesianRidge,
    ElasticNet,
    ElasticNetCV,
    HuberRegressor,
    Lars,
    Lasso,
    LassoCV,
    LassoLars,
    LinearRegression,
    LogisticRegression,
    LogisticRegressionCV,
    QuantileRegressor,
    Ridge,
    RidgeCV,
    SGDClassifier,
    SGDRegressor,
    TheilSenRegressor,
)
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import geco
import plaf_grammar
from codegen import UnsupportedModel
from codegen.mlp.reader import read_linear, read_network
from codegen.registry import scorer_for
from plaf_grammar import Schema

# LogisticRegressionCV's notices of its coming defaults (scikit-learn 1.9), not about what is read here
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning:sklearn.linear_model._logistic")

REGRESSORS = [LinearRegression(), Ridge(), RidgeCV(), Lasso(alpha=0.1), LassoCV(cv=3), ElasticNet(alpha=0.1),
              ElasticNetCV(cv=3), SGDRegressor(random_state=0), HuberRegressor(), BayesianRidge(), ARDRegression(),
              Lars(), LassoLars(alpha=0.01), QuantileRegressor(alpha=0.0), TheilSenRegressor(random_state=0)]  # fmt: skip


def _target(X: np.ndarray) -> np.ndarray:
    return X @ np.array([0.5, 2.0, -0.25]) + 40.0 + np.random.default_rng(0).normal(size=len(X))


@pytest.mark.parametrize("model", [LogisticRegression(max_iter=500), LogisticRegressionCV(cv=3, max_iter=500)])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_logistic_regression_reads_as_its_predict_proba(model, n_classes):
    X = frame()[NUMERIC].to_numpy(dtype=float)
    m = fit(model, X, labels(len(X), n_classes))
    for c in range(n_classes):
        net = read_linear(m, c)
        assert net.layer_sizes == (3, 1 if n_classes == 2 else n_classes)
        np.testing.assert_array_equal(net.forward(X), m.predict_proba(X)[:, c])
    both = read_network(m, (0, n_classes - 1))
    np.testing.assert_array_equal(both.forward(X), m.predict_proba(X)[:, [0, n_classes - 1]].sum(axis=1))


@pytest.mark.parametrize("multi_class", ["multinomial", "ovr"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_formula_this_scikit_learn_does_not_use_is_refused_not_misread(multi_class, n_classes):
    """``multi_class`` (read by scikit-learn before 1.8; set here by hand where it is gone): the
    reader follows it, and where the model's own predict_proba computes otherwise (a newer
    scikit-learn ignores it) the model is refused: it is never read as computing what it does not."""
    X = frame()[NUMERIC].to_numpy(dtype=float)
    m = fit(LogisticRegression(max_iter=500), X, labels(len(X), n_classes))
    m.multi_class = multi_class
    try:
        net = read_linear(m, 1)
    except UnsupportedModel as e:
        assert "does not compute its output as read" in e.reason or "one-vs-rest" in e.reason, e.reason
    else:
        np.testing.assert_array_equal(net.forward(X), m.predict_proba(X)[:, 1])


@pytest.mark.parametrize("model", REGRESSORS, ids=lambda m: type(m).__name__)
def test_linear_regressors_read_as_their_predict(model):
    X = frame()[NUMERIC].to_numpy(dtype=float)
    m = fit(model, X, _target(X))
    net = read_linear(m)
    assert net.output == "identity" and net.layer_sizes == (3, 1)
    np.testing.assert_array_equal(net.forward(X), m.predict(X))


def test_sgd_classifier_reads_its_logistic_loss_of_two_classes():
    X = frame()[NUMERIC].to_numpy(dtype=float)
    m = fit(SGDClassifier(loss="log_loss", random_state=0), X, labels(len(X), 2))
    for c in (0, 1):
        np.testing.assert_array_equal(read_linear(m, c).forward(X), m.predict_proba(X)[:, c])
    three = fit(SGDClassifier(loss="log_loss", random_state=0), X, labels(len(X), 3))
    with pytest.raises(UnsupportedModel, match="one-vs-rest over 3 classes"):
        read_linear(three, 1)
    huber = fit(SGDClassifier(loss="modified_huber", random_state=0), X, labels(len(X), 2))
    with pytest.raises(UnsupportedModel, match="loss='modified_huber': only loss='log_loss' probabilities are read"):
        read_linear(huber, 1)


def test_what_is_not_read_is_refused_with_a_reason():
    X = frame()[NUMERIC].to_numpy(dtype=float)
    with pytest.raises(UnsupportedModel, match="LogisticRegression is not fitted"):
        read_linear(LogisticRegression())
    two = fit(LogisticRegression(), X, labels(len(X), 2))
    with pytest.raises(UnsupportedModel, match=r"desired column\(s\) \[2\] outside the model's 2 outputs"):
        read_linear(two, 2)
    with pytest.raises(UnsupportedModel, match="repeat a column"):
        read_linear(two, (1, 1))
    two = fit(Ridge(), X, np.c_[_target(X), _target(X) * 2])
    with pytest.raises(UnsupportedModel, match="Ridge has 2 targets; a prediction range needs a single-target regressor"):
        read_linear(two)
    from sklearn.linear_model import PoissonRegressor  # a log link: exp of the linear score

    with pytest.raises(UnsupportedModel, match="PoissonRegressor is not one of the linear models read"):
        read_linear(fit(PoissonRegressor(), X, _target(X)))


@pytest.mark.parametrize("engine", ["jit", "numpy"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_engines_equal_predict_proba_through_a_pipeline(engine, n_classes):
    df = frame(150, seed=3)
    schema = Schema.from_dataframe(df)
    enc = schema.encode(df)
    ct = ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore"), CATEGORICAL), ("sc", StandardScaler(), NUMERIC)])
    model = fit(Pipeline([("ct", ct), ("lr", LogisticRegression(max_iter=1000))]), df, labels(len(df), n_classes))
    scorer = scorer_for(model, schema, 1, engine)
    assert scorer.name == f"mlp-{engine}"
    deltas = [(), (0,), (2,), (1, 3), (0, 2, 4), tuple(range(5))]
    check_engine(model, schema, enc, 1, scorer, np.random.default_rng(1), deltas)


@pytest.mark.parametrize("engine", ["jit", "numpy"])
def test_a_regressor_engine_equals_predict(engine):
    df = frame(150, seed=4)
    schema = Schema.from_dataframe(df[NUMERIC])
    enc = schema.encode(df[NUMERIC])
    model = fit(Pipeline([("sc", StandardScaler()), ("r", Ridge())]), df[NUMERIC], _target(enc))
    from codegen import ModelOutput

    bound = scorer_for(model, schema, ModelOutput("prediction"), engine).bind(enc[0])
    rows = enc[5:25]
    for delta in [(0,), (1, 2), (0, 1, 2)]:
        x_rows = np.tile(enc[0], (len(rows), 1))
        x_rows[:, list(delta)] = rows[:, list(delta)]
        got = bound.score_block(delta, np.ascontiguousarray(rows[:, list(delta)]))
        np.testing.assert_allclose(got, model.predict(schema.decode(x_rows)), rtol=0, atol=1e-9)


def test_an_explainer_over_a_logistic_regression_explains_compiled():
    """Adult with a one-hot logistic regression (a scorecard): the compiled engine, answers the
    model scores as shown (1e-12), within the bundled rules, the same as the black box's."""
    ds = geco.datasets.load_adult()
    X, y = ds.X.iloc[:4000], ds.y.iloc[:4000]
    from geco.models import one_hot_pipeline

    model = fit(one_hot_pipeline(X, LogisticRegression(max_iter=3000)), X, y)
    compiled = geco.Explainer(model, X, ds.constraints, desired_class=1)
    blackbox = geco.Explainer(model, X, ds.constraints, desired_class=1, engine="blackbox")
    assert compiled.engine.startswith("mlp-"), compiled.engine_reason
    rows = np.flatnonzero(model.predict_proba(X)[:, 1] < 0.5)[:4]
    for r in rows:
        x = X.iloc[[int(r)]]
        got = compiled.explain(x, k=3, random_state=int(r))
        assert got.success
        cf = got.counterfactuals
        values = cf[list(X.columns)].astype(X.dtypes.to_dict())
        np.testing.assert_allclose(model.predict_proba(values)[:, 1], cf["probability"], rtol=0, atol=TOL)
        for _, row in values.iterrows():
            assert plaf_grammar.holds(compiled.program, x.iloc[0].to_dict(), row.to_dict())
        ref = blackbox.explain(x, k=3, random_state=int(r)).counterfactuals
        pd.testing.assert_frame_equal(cf[list(X.columns)], ref[list(X.columns)])


def test_an_explainer_over_a_ridge_regression_reaches_the_range_compiled():
    """A prediction range over a Ridge pipeline: the compiled engine, every answer's prediction is
    the model's ``predict`` and lies in the range."""
    df = frame(400, seed=5)
    y = _target(df[NUMERIC].to_numpy(dtype=float)) + df["color"].cat.codes.to_numpy() * 3.0
    ct = ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore"), CATEGORICAL), ("sc", StandardScaler(), NUMERIC)])
    model = fit(Pipeline([("ct", ct), ("r", Ridge())]), df, y)
    pred = model.predict(df)
    lo, hi = np.quantile(pred, [0.8, 0.95])
    explainer = geco.Explainer(model, df, desired_range=(lo, hi))
    assert explainer.engine.startswith("mlp-"), explainer.engine_reason
    for r in np.flatnonzero(pred < np.quantile(pred, 0.3))[:3]:
        res = explainer.explain(df.iloc[[int(r)]], k=2, random_state=int(r))
        assert res.success
        cf = res.counterfactuals
        got = model.predict(cf[list(df.columns)].astype(df.dtypes.to_dict()))
        np.testing.assert_array_equal(got, cf["probability"].to_numpy())
        assert ((got >= lo) & (got <= hi)).all()
