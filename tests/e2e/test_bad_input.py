"""Hostile input through the Explainer: every bad value is a SchemaError naming the column and, in
the data, the row - in X at construction, in the instance at explain time - whether the schema
refuses it (NaN, inf, a value the dtype cannot hold, duplicate names) or the model would (sklearn
trees on values beyond float32, a scaler overflowing, an encoder meeting an unknown category)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from geco import Explainer
from plaf_grammar import Schema, SchemaError

ROW = 17  # the row label every bad value of X is put at


def frame(n: int = 120) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(0)
    X = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(np.int64),
            "score": rng.normal(size=n),
            "color": pd.Categorical(rng.choice(["red", "green"], n), categories=["red", "green", "blue"]),
        }
    )
    y = ((X["age"] / 90 + X["score"] + (X["color"] == "red")) > 1.2).astype(int).to_numpy()
    return X, y


def numeric(X: pd.DataFrame) -> pd.DataFrame:
    return X.drop(columns="color")


def put(X: pd.DataFrame, column: str, value, row: int = ROW) -> pd.DataFrame:
    """X with ``value`` at (row, column); an int column becomes float to hold it."""
    out = X.copy()
    if isinstance(value, float) and out[column].dtype.kind in "iu":
        out[column] = out[column].astype(np.float64)
    out.loc[row, column] = value
    return out


@pytest.fixture(scope="module")
def data():
    return frame()


@pytest.fixture(scope="module")
def forest(data):
    X, y = data
    Xn = numeric(X)
    return RandomForestClassifier(n_estimators=5, max_depth=4, random_state=0).fit(Xn, y), Xn


@pytest.fixture(scope="module")
def mlp(data):
    X, y = data
    Xn = numeric(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return MLPClassifier((6,), max_iter=50, random_state=0).fit(Xn, y), Xn


def refused(match: str, fn) -> str:
    with pytest.raises(SchemaError, match=match) as info:
        fn()
    return str(info.value)


def instance_of(X: pd.DataFrame, **values) -> pd.DataFrame:
    x = X.iloc[[0]].copy()
    for k, v in values.items():
        x = put(x, k, v, row=x.index[0])
    return x


# ------------------------------------------------------------------ what the schema refuses, in X


def test_data_int_column_cannot_hold_1e308(forest):
    model, X = forest
    schema = Schema.from_dataframe(X)  # age: int64
    msg = refused("cannot hold", lambda: Explainer(model, put(X, "age", 1e308), schema=schema))
    assert "'age'" in msg and "int64" in msg and f"row {ROW}" in msg


@pytest.mark.parametrize("column", ["age", "score"])
@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_data_infinity(forest, column, value):
    model, X = forest
    schema = Schema.from_dataframe(X)
    msg = refused("non-finite", lambda: Explainer(model, put(X, column, value), schema=schema))
    assert f"'{column}'" in msg and f"row {ROW}" in msg and str(value) in msg


@pytest.mark.parametrize("column", ["age", "score"])
def test_data_nan(forest, column):
    model, X = forest
    schema = Schema.from_dataframe(X)
    msg = refused("missing value", lambda: Explainer(model, put(X, column, np.nan), schema=schema))
    assert f"'{column}'" in msg and f"row {ROW}" in msg
    assert f"(1 of {len(X)} rows hold a missing value;" in msg and "X.dropna()" in msg  # what to do


def test_data_minus_inf_with_mlp(mlp):
    model, X = mlp
    msg = refused("non-finite", lambda: Explainer(model, put(X, "score", -np.inf)))
    assert "'score'" in msg and f"row {ROW}" in msg and "-inf" in msg


def test_data_duplicate_column_names(forest):
    model, X = forest
    dup = pd.concat([X, X[["score"]]], axis=1)
    msg = refused("duplicate column", lambda: Explainer(model, dup))
    assert "'score'" in msg


# ------------------------------------------------------------------ the same in the instance


@pytest.fixture(scope="module")
def forest_explainer(forest):
    model, X = forest
    return Explainer(model, X, max_generations=3)


@pytest.fixture(scope="module")
def mlp_explainer(mlp):
    model, X = mlp
    return Explainer(model, X, max_generations=3)


def test_instance_int_column_cannot_hold_1e308(forest_explainer, forest):
    msg = refused("cannot hold", lambda: forest_explainer.explain(instance_of(forest[1], age=1e308)))
    assert msg.startswith("instance:") and "'age'" in msg and "int64" in msg


@pytest.mark.parametrize("form", ["frame", "dict"])
def test_instance_fraction_in_an_integer_column(forest_explainer, forest, form):
    """40.5 as an int64 age would be scored as 40.5 and shown as 40: refused, naming it."""
    x = instance_of(forest[1], age=40.5)
    x = x.iloc[0].to_dict() if form == "dict" else x
    msg = refused("cannot hold", lambda: forest_explainer.explain(x))
    assert msg.startswith("instance:") and "'age' (dtype int64) cannot hold the value 40.5" in msg
    assert forest_explainer.explain(instance_of(forest[1], age=40.0)).x["age"].iloc[0] == 40  # a whole float is an int


@pytest.mark.parametrize("column", ["age", "score"])
@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_instance_infinity(forest_explainer, forest, column, value):
    x = instance_of(forest[1], **{column: value})
    msg = refused("non-finite", lambda: forest_explainer.explain(x))
    assert msg.startswith("instance:") and f"'{column}'" in msg and str(value) in msg


@pytest.mark.parametrize("column", ["age", "score"])
def test_instance_nan(forest_explainer, forest, column):
    x = instance_of(forest[1], **{column: np.nan})
    msg = refused("missing value", lambda: forest_explainer.explain(x))
    assert msg.startswith("instance:") and f"'{column}'" in msg


@pytest.mark.parametrize("form", ["frame", "dict", "series"])
def test_instance_minus_inf_with_mlp(mlp_explainer, mlp, form):
    x = instance_of(mlp[1], score=-np.inf)
    given = {"frame": x, "dict": x.iloc[0].to_dict(), "series": x.iloc[0]}[form]
    msg = refused("non-finite", lambda: mlp_explainer.explain(given))
    assert "'score'" in msg and "-inf" in msg


def test_instance_duplicate_column_names(forest_explainer, forest):
    x = forest[1].iloc[[0]]
    dup = pd.concat([x, x[["age"]]], axis=1)
    msg = refused("duplicate column", lambda: forest_explainer.explain(dup))
    assert "'age'" in msg


def test_ir_checks_the_instance_too(forest_explainer, forest):
    x = instance_of(forest[1], score=np.inf)
    refused("non-finite", lambda: forest_explainer.ir(x, ["score"]))


# ------------------------------------------------------------------ what the model refuses


def test_data_beyond_float32_refused_by_the_trees(forest):
    model, X = forest
    bad = put(X, "score", 1e39)
    with pytest.raises(ValueError, match="float32"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # sklearn warns of the overflow, then raises
        model.predict_proba(bad.loc[[ROW]])  # what sklearn itself does with that row
    msg = refused("the model refuses", lambda: Explainer(model, bad))
    assert "'score'" in msg and "1e+39" in msg and f"row {ROW}" in msg and "float32" in msg


@pytest.mark.parametrize("engine", ["auto", "numpy", "jit", "blackbox"])
def test_instance_beyond_float32_refused_by_the_trees(forest, engine):
    model, X = forest
    e = Explainer(model, X, engine=engine, max_generations=3)
    msg = refused("the model refuses", lambda: e.explain(instance_of(X, score=-1e39)))
    assert msg.startswith("instance:") and "'score'" in msg and "-1e+39" in msg
    # a huge value float32 still holds is the model's to judge, and it does
    assert e.explain(instance_of(X, score=1e30), random_state=0).x_probability >= 0


def test_data_scaler_overflow_refused(data):
    """1e308 is a float, but StandardScaler turns it into inf, which the forest refuses."""
    X, y = data
    Xn = numeric(X)
    model = make_pipeline(StandardScaler(), RandomForestClassifier(n_estimators=3, random_state=0)).fit(Xn, y)
    msg = refused("the model refuses", lambda: Explainer(model, put(Xn, "score", 1e308)))
    assert "'score'" in msg and f"row {ROW}" in msg


def test_unknown_category_refused_by_the_encoder(data):
    """An encoder fitted without 'green' raises on it: X holding it is refused at construction
    (column and row), an instance holding a category X lacks ('blue') at explain time."""
    X, y = data
    ct = ColumnTransformer([("oh", OneHotEncoder(handle_unknown="error"), ["color"])], remainder="passthrough")
    model = Pipeline([("ct", ct), ("m", RandomForestClassifier(n_estimators=3, random_state=0))])
    model.fit(X[X["color"] == "red"], y[X["color"] == "red"])
    green = int(np.flatnonzero(X["color"] == "green")[0])
    msg = refused("the model refuses", lambda: Explainer(model, X))
    assert "'color'" in msg and "'green'" in msg and f"row {green}" in msg

    red = X[X["color"] == "red"]
    e = Explainer(model, red, max_generations=3)
    x = red.iloc[[0]].copy()
    x["color"] = pd.Categorical(["blue"], categories=X["color"].cat.categories)
    msg = refused("the model refuses", lambda: e.explain(x))
    assert msg.startswith("instance:") and "'color'" in msg and "'blue'" in msg


# ------------------------------------------------------------------ what the distance cannot measure


def test_data_span_beyond_any_float():
    X = pd.DataFrame({"v": np.linspace(-1, 1, 40)})
    y = (X["v"] > 0).astype(int)
    model = HistGradientBoostingClassifier(max_iter=3).fit(X, y)  # takes any float64
    bad = X.copy()
    bad.loc[3, "v"], bad.loc[ROW, "v"] = -1e308, 1e308
    msg = refused("a range no float holds", lambda: Explainer(model, bad))
    assert "'v'" in msg and "row 3" in msg and f"row {ROW}" in msg


def test_instance_too_far_from_the_data(forest_explainer, forest):
    msg = refused("overflow", lambda: forest_explainer.explain(instance_of(forest[1], score=1e200)))
    assert msg.startswith("instance:") and "'score'" in msg


def test_a_valid_instance_still_explains(forest_explainer, forest, mlp_explainer, mlp):
    """The checks cost nothing visible on good input: both explain as before."""
    for e, X in ((forest_explainer, forest[1]), (mlp_explainer, mlp[1])):
        r = e.explain(X.iloc[[3]], random_state=0)
        assert re.match(r"^\d", str(len(r)))
        assert r.x_probability == pytest.approx(float(e.model.predict_proba(X.iloc[[3]])[0, 1]), abs=0)
