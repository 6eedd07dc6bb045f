"""codegen.pipeline: per-model-column maps reproduce the fitted preprocessing exactly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.feature_selection import (
    RFE,
    SelectFromModel,
    SelectKBest,
    VarianceThreshold,
    f_classif,
)
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    MaxAbsScaler,
    MinMaxScaler,
    OneHotEncoder,
    OrdinalEncoder,
    RobustScaler,
    StandardScaler,
)
from sklearn.tree import DecisionTreeClassifier

from codegen import UnsupportedModel, read_model_input
from codegen.pipeline import apply_ops
from plaf_grammar import Schema


@pytest.fixture(scope="module")
def adult():
    from geco.datasets import load_adult

    d = load_adult()
    X, y = d.X.iloc[:2000].reset_index(drop=True), d.y.iloc[:2000].reset_index(drop=True)
    return X, y, Schema.from_dataframe(X)


CAT = make_column_selector(dtype_include="category")
NUM = make_column_selector(dtype_exclude="category")


def _dense(a):
    return a.toarray() if hasattr(a, "toarray") else np.asarray(a, dtype=np.float64)


@pytest.mark.parametrize(
    "ct",
    [
        ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore"), CAT), ("sc", StandardScaler(), NUM)]),
        ColumnTransformer(
            [("od", OrdinalEncoder(), CAT), ("mm", MinMaxScaler(clip=True), NUM)], remainder="drop"
        ),
        ColumnTransformer(
            [("oh", OneHotEncoder(sparse_output=False, drop="first", min_frequency=30), CAT)],
            remainder="passthrough",
        ),
        ColumnTransformer(
            [
                ("oh", Pipeline([("o", OneHotEncoder(sparse_output=False)), ("s", MaxAbsScaler())]), CAT),
                ("rb", RobustScaler(), ["age", "hours_per_week"]),
                ("id", FunctionTransformer(), ["capital_gain"]),
                ("drop", "drop", ["capital_loss"]),
            ],
            remainder="passthrough",
        ),
        ColumnTransformer(
            [
                ("num", Pipeline([("i", SimpleImputer(strategy="median")), ("s", StandardScaler())]), NUM),
                ("cat", Pipeline([("i", SimpleImputer(strategy="most_frequent")), ("o", OneHotEncoder())]), CAT),
            ]
        ),
        # feature selectors: after the whole ColumnTransformer, and inside one of its parts
        Pipeline([
            ("ct", ColumnTransformer([("oh", OneHotEncoder(handle_unknown="ignore"), CAT), ("sc", StandardScaler(), NUM)])),
            ("k", SelectKBest(f_classif, k=12)),
            ("v", VarianceThreshold(0.01)),
        ]),
        ColumnTransformer([
            ("oh", Pipeline([("o", OneHotEncoder(sparse_output=False)), ("v", VarianceThreshold(0.02))]), CAT),
            ("m", Pipeline([("s", MinMaxScaler()), ("f", SelectFromModel(DecisionTreeClassifier(max_depth=4, random_state=0)))]), NUM),
        ]),
        Pipeline([
            ("ct", ColumnTransformer([("od", OrdinalEncoder(), CAT)], remainder="passthrough")),
            ("rfe", RFE(DecisionTreeClassifier(max_depth=3, random_state=0), n_features_to_select=5)),
        ]),
    ],
)
def test_transform_matches_sklearn(adult, ct):
    X, y, schema = adult
    pipe = Pipeline([("ct", ct), ("rf", RandomForestClassifier(3, max_depth=3, random_state=0))]).fit(X, y)
    mi = read_model_input(pipe, schema)
    assert mi.estimator is pipe[-1]
    got = mi.transform(schema.encode(X))
    want = _dense(pipe[:-1].transform(X))
    np.testing.assert_array_equal(got, want)
    assert len(mi.columns) == want.shape[1] > 0
    for c in mi.columns:
        assert c.kind in ("identity", "affine", "onehot", "codemap")
        assert c.describe(schema).startswith(f"{c.name} = ")


def test_scaled_columns_are_affine_in_sklearn_order(adult):
    X, y, schema = adult
    pipe = Pipeline([("sc", ColumnTransformer([("s", StandardScaler(), NUM)])), ("m", RandomForestClassifier(2))])
    pipe.fit(X, y)
    mi = read_model_input(pipe, schema)
    assert len(mi.columns) == len(NUM(X)) > 0
    for c, mean, scale in zip(mi.columns, pipe[0].transformers_[0][1].mean_, pipe[0].transformers_[0][1].scale_):
        assert c.kind == "affine" and c.ops == (("sub", float(mean)), ("div", float(scale)))


def test_onehot_hot_codes(adult):
    X, y, schema = adult
    pipe = Pipeline([("ct", ColumnTransformer([("oh", OneHotEncoder(), ["sex"])])), ("m", RandomForestClassifier(2))])
    pipe.fit(X, y)
    mi = read_model_input(pipe, schema)
    cats = schema["sex"].categories
    assert [c.kind for c in mi.columns] == ["onehot", "onehot"]
    assert [cats[c.hot_codes[0]] for c in mi.columns] == sorted(cats)


def test_hgb_internal_preprocessor(adult):
    X, y, schema = adult
    h = HistGradientBoostingClassifier(max_iter=3, categorical_features="from_dtype").fit(X, y)
    mi = read_model_input(h, schema)
    got = mi.transform(schema.encode(X))
    np.testing.assert_array_equal(got, h._preprocessor.transform(X))


def test_bare_numeric_model_is_identity():
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0], "b": [1, 0, 1, 0]})
    schema = Schema.from_dataframe(X)
    m = RandomForestClassifier(2, random_state=0).fit(X, [0, 1, 0, 1])
    mi = read_model_input(m, schema)
    assert [c.kind for c in mi.columns] == ["identity", "identity"]


def test_unsupported_reasons(adult):
    X, y, schema = adult
    from sklearn.decomposition import PCA

    pipe = Pipeline([("ct", ColumnTransformer([("s", StandardScaler(), NUM)])), ("p", PCA(2)), ("m", RandomForestClassifier(2))])
    pipe.fit(X, y)
    with pytest.raises(UnsupportedModel, match="PCA"):
        read_model_input(pipe, schema)
    pipe = Pipeline([("ct", ColumnTransformer([("o", OneHotEncoder(), ["age"])])), ("m", RandomForestClassifier(2))])
    pipe.fit(X, y)
    with pytest.raises(UnsupportedModel, match="numeric column 'age'"):
        read_model_input(pipe, schema)
    other = Schema.from_dataframe(X.drop(columns=["age"]))
    with pytest.raises(UnsupportedModel, match="different columns"):
        read_model_input(pipe, other)


@pytest.mark.filterwarnings("ignore:Skipping features without any observed values")
def test_a_simple_imputer_passes_its_columns_through(adult):
    """Rows reaching the model hold no missing value, so a SimpleImputer is the identity; one
    that would change present values or the columns is refused with its reason."""
    X, y, _ = adult
    pipe = Pipeline([("i", SimpleImputer()), ("m", RandomForestClassifier(2, random_state=0))])
    numeric = X[NUM(X)]
    pipe.fit(numeric, y)
    sub = Schema.from_dataframe(numeric)
    mi = read_model_input(pipe, sub)
    assert [c.kind for c in mi.columns] == ["identity"] * len(numeric.columns)
    np.testing.assert_array_equal(mi.transform(sub.encode(numeric)), pipe[:-1].transform(numeric))
    from sklearn.experimental import enable_iterative_imputer  # noqa: F401
    from sklearn.impute import IterativeImputer, KNNImputer

    some_missing = numeric.assign(age=numeric.age.where(numeric.age > 20))
    for other in (KNNImputer(n_neighbors=3), IterativeImputer(max_iter=2, random_state=0)):
        fitted = Pipeline([("i", other), ("m", RandomForestClassifier(2, random_state=0))]).fit(some_missing, y)
        mi = read_model_input(fitted, sub)
        assert [c.kind for c in mi.columns] == ["identity"] * len(numeric.columns), type(other).__name__
        np.testing.assert_array_equal(mi.transform(sub.encode(numeric)), fitted[:-1].transform(numeric))
    no_age = numeric.astype(float).assign(age=np.nan)  # a column without any value, at fit
    for imputer, fit_on, reason in (
        (SimpleImputer(missing_values=0), numeric, "missing_values=0"),
        (SimpleImputer(add_indicator=True), some_missing, "add_indicator"),
        (SimpleImputer(), no_age, "drops the columns"),
    ):
        fitted = Pipeline([("i", imputer), ("m", RandomForestClassifier(2, random_state=0))]).fit(fit_on, y)
        with pytest.raises(UnsupportedModel, match=reason):
            read_model_input(fitted, sub)


def test_apply_ops_is_sklearn_order():
    v = np.array([1.0, 2.5, -3.0])
    s = StandardScaler().fit(np.array([[0.1], [0.7], [3.3]]))
    np.testing.assert_array_equal(
        apply_ops([("sub", float(s.mean_[0])), ("div", float(s.scale_[0]))], v), s.transform(v[:, None])[:, 0]
    )


def test_a_feature_selector_keeps_the_columns_of_its_support(adult):
    """A selector keeps some columns as they are; the features it drops reach the model
    through no column, and one fitted on other columns is refused."""
    X, y, schema = adult
    ct = ColumnTransformer([("oh", OneHotEncoder(sparse_output=False), CAT)], remainder="passthrough")
    pipe = Pipeline([("ct", ct), ("k", SelectKBest(f_classif, k=4)), ("m", RandomForestClassifier(3, random_state=0))]).fit(X, y)
    mi = read_model_input(pipe, schema)
    support = pipe.named_steps["k"].get_support()
    kept = [name.split("__", 1)[-1] for name in np.asarray(pipe[0].get_feature_names_out())[support]]
    assert [c.name for c in mi.columns] == kept
    np.testing.assert_array_equal(mi.transform(schema.encode(X)), pipe[:-1].transform(X))
    other = SelectKBest(f_classif, k=2).fit(np.zeros((4, 3)) + np.arange(12).reshape(4, 3) ** 2, [0, 1, 0, 1])
    pipe.steps[1] = ("k", other)
    with pytest.raises(UnsupportedModel, match="SelectKBest selects among 3 columns"):
        read_model_input(pipe, schema)


def test_a_selector_without_a_support_mask_is_refused_with_the_reason(adult):
    """A selector whose support cannot be read leaves the model to the black box, saying why (no
    guess at which columns it keeps)."""
    X, y, _ = adult
    numeric = X[NUM(X)]
    pipe = Pipeline([("k", VarianceThreshold()), ("m", RandomForestClassifier(2, random_state=0))]).fit(numeric, y)

    def lost(*args, **kwargs):
        raise RuntimeError("no mask kept")

    pipe[0].get_support = lost
    with pytest.raises(UnsupportedModel, match="VarianceThreshold gives no support mask: no mask kept"):
        read_model_input(pipe, Schema.from_dataframe(numeric))
