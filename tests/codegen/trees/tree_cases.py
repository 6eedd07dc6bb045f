"""Data and models shared by the tree tests: every supported tree family, bare and in a pipeline,
with categoricals, ordinals, scaled numbers and learned NaN routing."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, OrdinalEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier

from codegen import BlackBoxScorer
from plaf_grammar import Schema

#: models fitted where feature 'a' has NaN (NaN routing learned during fit)
WITH_NAN = ("dt-bare", "rf-bare", "hgb-bare")


def frame(n: int = 400, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = np.round(rng.normal(size=n), 1)
    b = rng.integers(0, 20, n).astype(float)
    c = pd.Categorical(rng.choice(list("pqrst"), n), categories=list("pqrst"))
    e = pd.Categorical(rng.choice(["lo", "mid", "hi", "top"], n), categories=["lo", "mid", "hi", "top"], ordered=True)
    g = np.round(rng.uniform(-3, 3, n), 2)
    y = ((a + 0.1 * b + (np.asarray(c.codes) % 2) - np.asarray(e.codes) * 0.3 + g > 1.0).astype(int)
         + (g > 2).astype(int))  # fmt: skip
    X = pd.DataFrame({"a": a, "b": b, "c": c, "e": e, "g": g})
    return X, y


def numeric(X: pd.DataFrame) -> pd.DataFrame:
    return X.assign(c=X["c"].cat.codes.astype(float), e=X["e"].cat.codes.astype(float))


def pipe(model) -> Pipeline:
    ct = ColumnTransformer(
        [
            ("oh", OneHotEncoder(sparse_output=False, handle_unknown="ignore"), ["c"]),
            ("od", OrdinalEncoder(), ["e"]),
            ("sc", StandardScaler(), ["a", "g"]),
            ("mm", MinMaxScaler(), ["b"]),
        ]
    )
    return Pipeline([("ct", ct), ("m", model)])


def models() -> dict:
    return {
        "dt": DecisionTreeClassifier(max_depth=4, random_state=0),
        "rf": RandomForestClassifier(n_estimators=4, max_depth=4, random_state=0),
        "et": ExtraTreesClassifier(n_estimators=4, max_depth=4, random_state=0),
        "gb2": GradientBoostingClassifier(n_estimators=4, max_depth=3, random_state=0),
        "gb3": GradientBoostingClassifier(n_estimators=3, max_depth=3, random_state=0),
        "hgb": HistGradientBoostingClassifier(max_iter=4, max_depth=4, random_state=0),
    }


def encode(schema: Schema, X: pd.DataFrame) -> np.ndarray:
    enc = np.empty((len(X), len(schema)))
    for j, f in enumerate(schema.features):
        col = X[f.name]
        enc[:, j] = col.cat.codes if f.categories is not None else col.to_numpy(dtype=float)
    return enc


def fitted_models() -> list[tuple]:
    X, y = frame()
    y2 = (y > 0).astype(int)
    Xn = numeric(X)
    rng = np.random.default_rng(1)
    Xnan = Xn.copy()
    Xnan.loc[rng.random(len(Xn)) < 0.15, "a"] = np.nan
    out = []
    for name, m in models().items():
        yy = y if name == "gb3" else y2
        desired = 2 if name == "gb3" else 1
        bare_X = Xnan if f"{name}-bare" in WITH_NAN else Xn
        bare = type(m)(**m.get_params()).fit(bare_X, yy)
        out.append((f"{name}-bare", bare, Schema.from_dataframe(bare_X), bare_X, desired))
        piped = pipe(type(m)(**m.get_params())).fit(X, yy)
        out.append((f"{name}-pipe", piped, Schema.from_dataframe(X), X, desired))
    hgbc = HistGradientBoostingClassifier(max_iter=4, categorical_features="from_dtype", random_state=0)
    hgbc.fit(X, y2)
    out.append(("hgb-native-cat", hgbc, Schema.from_dataframe(X), X, 1))
    return [(n, m, s, encode(s, Xf), d) for n, m, s, Xf, d in out]


def case(fitted: list[tuple], name: str) -> tuple:
    return next(f for f in fitted if f[0] == name)


def blackbox(model, schema, desired, x, delta, cols) -> np.ndarray:
    """The model's own predict_proba on x with ``delta`` set to ``cols``."""
    return BlackBoxScorer(model, schema, desired).bind(x).score_block(delta, cols)


def interesting_values(forest, feature: int, data: np.ndarray) -> np.ndarray:
    """Data values, user-space thresholds and their float64/float32 neighbours."""
    f = forest.schema.features[feature]
    if f.categories is not None:
        return np.arange(len(f.categories), dtype=float)
    t = forest.threshold[(forest.feature == feature) & (forest.cat < 0)]
    t = t[np.isfinite(t)]
    near = [t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf)]
    t32 = t.astype(np.float32)
    near += [t32.astype(float), np.nextafter(t32, np.float32(np.inf)).astype(float)]
    return np.unique(np.concatenate([data[~np.isnan(data)], *near]))


def delta_block(forest, X: np.ndarray, delta: tuple[int, ...], rng, n: int, nan_in: int | None = None) -> np.ndarray:
    """``n`` rows of values for ``delta``: data values and values at the split thresholds."""
    cols = np.empty((n, len(delta)))
    for k, j in enumerate(delta):
        vals = interesting_values(forest, j, X[:, j])
        cols[:, k] = vals[rng.integers(0, len(vals), n)]
        if j == nan_in:
            cols[::4, k] = np.nan
    return cols
