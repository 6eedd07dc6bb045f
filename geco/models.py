"""Default models for the bundled data sets (used by the CLI, examples and benchmarks).

The CLI's default model takes seconds to fit, so :func:`default_model` can keep it on disk under
the user's cache directory (``$GECO_CACHE_DIR``, else ``$XDG_CACHE_HOME/geco``, else
``~/.cache/geco``), keyed by the data's content hash and the scikit-learn version; a file that
cannot be read is refitted and replaced (written atomically, so concurrent runs are safe).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

__all__ = ["cache_dir", "cached_fit", "categorical_columns", "default_model", "one_hot_pipeline"]


def cache_dir() -> Path:
    """Where geco keeps files between runs (fitted default models)."""
    if os.environ.get("GECO_CACHE_DIR"):
        return Path(os.environ["GECO_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "geco"


def categorical_columns(X: pd.DataFrame) -> list[str]:
    """Columns a model cannot take as numbers (category, object, bool, string dtypes);
    ValueError for a frame with a column name twice (each name must say one column)."""
    if not X.columns.is_unique:
        raise ValueError(f"X has duplicate column name(s) {sorted(set(X.columns[X.columns.duplicated()]), key=str)}")
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


def _fit_default(X: pd.DataFrame, y: pd.Series, random_state: int) -> Pipeline:
    rf = RandomForestClassifier(n_estimators=100, max_depth=10, random_state=random_state, n_jobs=1)
    return one_hot_pipeline(X, rf).fit(X, y)


def _data_key(X: pd.DataFrame, y: pd.Series) -> str:
    h = hashlib.sha256()
    h.update(pd.util.hash_pandas_object(X, index=False).to_numpy().tobytes())
    h.update(pd.util.hash_pandas_object(y, index=False).to_numpy().tobytes())
    h.update(",".join(map(str, X.columns)).encode())
    return h.hexdigest()[:20]


def default_model(
    X: pd.DataFrame, y: pd.Series, random_state: int = 0, *, cache: bool = False
) -> Pipeline:
    """The model ``geco explain`` fits when none is given: a 100-tree, depth-10 random forest
    (the paper's setting) behind a one-hot encoder. With ``cache=True`` a model fitted earlier on
    the same data is loaded from :func:`cache_dir` instead of refitted."""
    if not cache:
        return _fit_default(X, y, random_state)
    path = cache_dir() / "models" / f"rf100-d10-{_data_key(X, y)}-rs{random_state}-sklearn{sklearn.__version__}.joblib"
    return cached_fit(path, lambda: _fit_default(X, y, random_state))


def cached_fit(path: Path, fit: Callable[[], Any]) -> Any:
    """The model pickled at ``path``, or ``fit()`` stored there (written atomically, so
    concurrent processes never read half a file). An unreadable file is refitted; a read-only
    cache directory only costs the refit next time."""
    import joblib  # ships with scikit-learn

    try:
        return joblib.load(path)
    except Exception:  # absent, truncated or from another version: refit below
        pass
    model = fit()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            joblib.dump(model, f)
        os.replace(tmp, path)
    except OSError:
        pass
    return model
