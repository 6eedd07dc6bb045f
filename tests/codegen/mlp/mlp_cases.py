"""Data, models and the reference check shared by the MLP tests (engines within 1e-12 of
``predict_proba``)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

from codegen.mlp.inputs import first_layer
from codegen.mlp.partial import FirstLayer
from codegen.pipeline import read_model_input
from plaf_grammar import Schema

TOL = 1e-12
ACTS = ("relu", "tanh", "logistic", "identity")
NUMERIC = ["age", "score", "hours"]
CATEGORICAL = ["color", "size"]


def frame(n: int = 120, seed: int = 0) -> pd.DataFrame:
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


def fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y)


def mlp(hidden, act, seed=0) -> MLPClassifier:
    return MLPClassifier(hidden, activation=act, max_iter=15, random_state=seed)


def pipeline(hidden, act, scaler, seed=0) -> Pipeline:
    ct = ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore"), CATEGORICAL), ("sc", scaler, NUMERIC)])
    return Pipeline([("ct", ct), ("mlp", mlp(hidden, act, seed))])


def labels(n, n_classes, seed=0) -> np.ndarray:
    return np.random.default_rng(seed + 1).integers(0, n_classes, n)


def layer_of(model, schema: Schema, desired) -> FirstLayer:
    return first_layer(read_model_input(model, schema), desired)


def rows_around(x, delta, source, rng, n) -> np.ndarray:
    rows = np.tile(x, (n, 1))
    if delta:
        rows[:, list(delta)] = source[rng.integers(0, len(source), n)][:, list(delta)]
    return rows


def check_engine(model, schema, enc, desired, scorer, rng, deltas, n=13) -> None:
    """The bound scorer within TOL of predict_proba, two instances x every Δ."""
    col = list(model.classes_).index(desired)
    worst, checked = 0.0, 0
    for i in rng.choice(len(enc), 2, replace=False):
        x = enc[i]
        bound = scorer.bind(x)
        for delta in deltas:
            rows = rows_around(x, delta, enc, rng, n)
            ref = model.predict_proba(schema.decode(rows))[:, col]
            got = bound.score_block(delta, np.ascontiguousarray(rows[:, list(delta)]))
            assert got.shape == ref.shape
            worst = max(worst, float(np.abs(got - ref).max()))
            checked += 1
    assert checked == 2 * len(deltas) > 0
    assert worst <= TOL, worst
