"""The pipeline the target tests fit their models in (imported by name: conftest puts this
directory on the path, as the other test folders do)."""

from __future__ import annotations

from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

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
