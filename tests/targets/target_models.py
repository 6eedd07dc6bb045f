"""The pipeline the target tests fit their models in (imported by name: conftest puts this
directory on the path, as the other test folders do)."""

from __future__ import annotations

import warnings

from sklearn.compose import ColumnTransformer
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from geco.models import categorical_columns

TRAIN_ROWS = 3000


def fitted(X, y, estimator):
    """``estimator`` behind a dense one-hot encoder of the categorical columns, fitted on the
    first rows."""
    cats = categorical_columns(X)
    steps = []
    if cats:
        encode = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
        steps.append(("encode", ColumnTransformer([("onehot", encode, cats)], remainder="passthrough",
                                                  verbose_feature_names_out=False)))  # fmt: skip
    steps.append(("model", estimator))
    return Pipeline(steps).fit(X.iloc[:TRAIN_ROWS], y.iloc[:TRAIN_ROWS])


def scaled(X, y, estimator):
    """``estimator`` (an MLP) behind one-hot categoricals and standardised numbers, fitted on
    the first rows."""
    cats = categorical_columns(X)
    nums = [c for c in X.columns if c not in cats]
    encode = ColumnTransformer([("onehot", OneHotEncoder(handle_unknown="ignore", sparse_output=False), cats),
                                ("scale", StandardScaler(), nums)], verbose_feature_names_out=False)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return Pipeline([("encode", encode), ("model", estimator)]).fit(X.iloc[:TRAIN_ROWS], y.iloc[:TRAIN_ROWS])
