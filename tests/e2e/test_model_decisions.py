"""For an engine that is not bit-exact (MLP), what a result reports - each row's probability (a
regressor's prediction) and whether it is a counterfactual - is the model's own ``predict_proba``
(``predict``), never the engine's score.

The straddling network: one identity hidden unit ``h = big + small - 1e16`` with ``big = 1e16``.
sklearn sums ``big + small`` first (``1e16 + 3`` rounds to ``1e16 + 4``, ``1e16 + 1`` to
``1e16``); the compiled engines fold ``x``'s ``big`` into the bias first (``-1e16 + 1e16 = 0``) and
then add ``small`` exactly. So for ``small = 3`` the model says ``h = 4`` and the engines ``h = 3``,
for ``small = 1`` the model ``h = 0`` and the engines ``h = 1``; an output bias between the two
puts the row on opposite sides of the threshold.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier

from geco import Explainer


def straddling(small: float, out_bias: float) -> tuple[MLPClassifier, pd.DataFrame]:
    X = pd.DataFrame({"big": [1e16] * 6, "small": [0.0, small] * 3})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = MLPClassifier((1,), activation="identity", max_iter=5, random_state=0).fit(X, [0, 1] * 3)
    m.coefs_ = [np.array([[1.0], [1.0]]), np.array([[1.0]])]
    m.intercepts_ = [np.array([-1e16]), np.array([out_bias])]
    return m, X


def model_p(model, rows: pd.DataFrame) -> np.ndarray:
    return model.predict_proba(rows[["big", "small"]])[:, 1]


@pytest.mark.parametrize("engine", ["numpy", "jit", "auto"])
def test_model_says_counterfactual_engine_says_not(engine):
    model, X = straddling(small=3.0, out_bias=-3.5)
    e = Explainer(model, X, engine=engine)
    engine_p = e.scorer.bind(e.data[0]).score_block((1,), np.array([[3.0]]))[0]
    row = pd.DataFrame({"big": [1e16], "small": [3.0]})
    assert engine_p < 0.5 < model_p(model, row)[0]  # the construction straddles the threshold
    r = e.explain(X.iloc[[0]], random_state=0)
    cf = r.counterfactuals
    assert r.success and len(cf) == 1 and bool(cf["counterfactual"].iloc[0])
    assert cf["small"].iloc[0] == 3.0
    np.testing.assert_array_equal(cf["probability"].to_numpy(), model_p(model, cf))


@pytest.mark.parametrize("engine", ["numpy", "jit", "auto"])
def test_engine_says_counterfactual_model_says_not(engine):
    model, X = straddling(small=1.0, out_bias=-0.5)
    e = Explainer(model, X, engine=engine)
    engine_p = e.scorer.bind(e.data[0]).score_block((1,), np.array([[1.0]]))[0]
    row = pd.DataFrame({"big": [1e16], "small": [1.0]})
    assert model_p(model, row)[0] < 0.5 < engine_p
    r = e.explain(X.iloc[[0]], random_state=0)
    cf = r.counterfactuals
    assert not r.success and not cf["counterfactual"].any()
    assert len(cf) == 1  # shown as the best candidate, with the model's probability
    np.testing.assert_array_equal(cf["probability"].to_numpy(), model_p(model, cf))
    best = float(model_p(model, cf)[0])
    assert f"p = {best:.3f}" in r.reason  # the model's number, not the engine's


@pytest.mark.parametrize("engine", ["numpy", "jit"])
def test_reported_probabilities_are_predict_proba(engine):
    """An ordinary MLP: every reported probability equals predict_proba on the row, bit for bit,
    and the counterfactual flag is exactly ``probability > threshold``."""
    rng = np.random.default_rng(3)
    n = 300
    X = pd.DataFrame({
        "income": rng.normal(5e4, 2e4, n).round(),
        "age": rng.integers(18, 80, n).astype(np.int64),
        "debt": rng.uniform(0, 1e5, n).round(2),
    })  # fmt: skip
    y = (X["income"] / 1e5 - X["debt"] / 2e5 + X["age"] / 200 > 0.3).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = MLPClassifier((16, 8), max_iter=100, random_state=0).fit(X, y)
    e = Explainer(model, X, engine=engine, max_generations=10)
    p = model.predict_proba(X)[:, 1]
    rows = np.flatnonzero(p < 0.5)[:4]
    assert len(rows) == 4
    checked = 0
    for i in rows:
        r = e.explain(X.iloc[[i]], random_state=int(i))
        cf = r.counterfactuals
        assert r.x_probability == p[i]
        if len(cf):
            want = model.predict_proba(cf[list(X.columns)])[:, 1]
            np.testing.assert_array_equal(cf["probability"].to_numpy(), want)
            np.testing.assert_array_equal(cf["counterfactual"].to_numpy(), want > 0.5)
            checked += len(cf)
    assert checked > 0


def test_only_rows_the_error_bound_cannot_place_are_asked_of_the_model():
    """On an ordinary network nothing lies within the engine's rounding-error bound of the
    threshold: the final population's decisions need no ``predict_proba`` call, only the picked
    counterfactuals are confirmed (a few rows, not the population)."""
    from geco.datasets import load_credit
    from geco.models import one_hot_pipeline

    ds = load_credit()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = one_hot_pipeline(ds.X, MLPClassifier((8,), max_iter=40, random_state=0)).fit(ds.X, ds.y)
    e = Explainer(model, ds.X, ds.constraints, ds.desired_class, engine="jit")
    asked = []
    real = e.blackbox.predict
    e.blackbox.predict = lambda rows: asked.append(len(rows)) or real(rows)
    x = ds.X.iloc[[int(np.flatnonzero(model.predict(ds.X.iloc[:300]) != ds.desired_class)[0])]]
    r = e.explain(x, random_state=0)
    assert r.success and r.stats["candidates_scored"] > 500
    assert sum(asked) <= 3 * len(r.counterfactuals) + 2, asked  # x, the picks; no population call
    np.testing.assert_array_equal(r.counterfactuals["probability"].to_numpy(), model.predict_proba(
        r.counterfactuals[list(ds.X.columns)])[:, list(model.classes_).index(ds.desired_class)])


def straddling_regressor(small: float):
    """The straddling network as an MLPRegressor: the prediction is ``h`` itself (model 4 where
    the engines say 3 for ``small = 3``; model 0 where they say 1 for ``small = 1``)."""
    from sklearn.neural_network import MLPRegressor

    X = pd.DataFrame({"big": [1e16] * 6, "small": [0.0, small] * 3})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = MLPRegressor(hidden_layer_sizes=(1,), activation="identity", max_iter=5, random_state=0)
        m.fit(X, [0.0, 1.0] * 3)
    m.coefs_ = [np.array([[1.0], [1.0]]), np.array([[1.0]])]
    m.intercepts_ = [np.array([-1e16]), np.array([0.0])]
    return m, X


@pytest.mark.parametrize("engine", ["numpy", "jit", "auto"])
def test_regressor_in_range_by_predict_though_not_by_the_engine(engine):
    model, X = straddling_regressor(small=3.0)
    e = Explainer(model, X, engine=engine, desired_range=(3.5, 10.0))
    assert e.scorer.compiled and not e.scorer.exact, e.engine_reason
    engine_y = e.scorer.bind(e.data[0]).score_block((1,), np.array([[3.0]]))[0]
    assert engine_y == 3.0 and model.predict(pd.DataFrame({"big": [1e16], "small": [3.0]}))[0] == 4.0
    r = e.explain(X.iloc[[0]], random_state=0)
    cf = r.counterfactuals
    assert r.success and len(cf) == 1 and bool(cf["counterfactual"].iloc[0])
    np.testing.assert_array_equal(cf["probability"].to_numpy(), model.predict(cf[["big", "small"]]))


@pytest.mark.parametrize("engine", ["numpy", "jit", "auto"])
def test_regressor_in_range_by_the_engine_but_not_by_predict(engine):
    model, X = straddling_regressor(small=1.0)
    e = Explainer(model, X, engine=engine, desired_range=(0.5, 10.0))
    assert e.scorer.bind(e.data[0]).score_block((1,), np.array([[1.0]]))[0] == 1.0
    r = e.explain(X.iloc[[0]], random_state=0)
    cf = r.counterfactuals
    assert not r.success and not cf["counterfactual"].any()
    np.testing.assert_array_equal(cf["probability"].to_numpy(), model.predict(cf[["big", "small"]]))
