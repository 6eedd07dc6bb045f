"""Default models for the bundled data sets (used by the CLI, examples and benchmarks)."""

from __future__ import annotations

import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

__all__ = ["categorical_columns", "default_model", "one_hot_pipeline"]


def categorical_columns(X: pd.DataFrame) -> list[str]:
    """Columns a model cannot take as numbers (category, object, bool, string dtypes)."""
    return [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c].dtype) or pd.api.types.is_bool_dtype(X[c].dtype)]


def one_hot_pipeline(X: pd.DataFrame, estimator) -> Pipeline:
    """``estimator`` behind a ColumnTransformer that one-hot encodes the categorical columns and
    passes the numeric ones through, so it accepts the user's DataFrame as is."""
    cats = categorical_columns(X)
    if not cats:
        return Pipeline([("model", estimator)])
    pre = ColumnTransformer(
        [("onehot", OneHotEncoder(handle_unknown="ignore"), cats)],
        remainder="passthrough",
        verbose_feature_names_out=False,
    )
    return Pipeline([("encode", pre), ("model", estimator)])


def default_model(X: pd.DataFrame, y: pd.Series, random_state: int = 0) -> Pipeline:
    """The model ``geco explain`` fits when none is given: a 100-tree, depth-10 random forest
    (the paper's setting) behind a one-hot encoder."""
    rf = RandomForestClassifier(n_estimators=100, max_depth=10, random_state=random_state, n_jobs=1)
    return one_hot_pipeline(X, rf).fit(X, y)
