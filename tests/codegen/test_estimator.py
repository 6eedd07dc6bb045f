"""codegen.estimator: which of the user's columns a fitted model reads (LightGBM's stored names
included) and which column of predict_proba is the desired class."""

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from codegen import UnknownClass, UnsupportedModel, class_index, input_columns, stored_name
from plaf_grammar import SchemaError

lgb = pytest.importorskip("lightgbm")
xgb = pytest.importorskip("xgboost")


def frame(names, n=120, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({name: rng.normal(size=n) for name in names})


def labels(X):
    return (X.iloc[:, 0] + X.iloc[:, 1] > 0).astype(int)


def lightgbm(X):
    return lgb.LGBMClassifier(n_estimators=3, verbose=-1, n_jobs=1).fit(X, labels(X))


def test_stored_name_is_lightgbms_with_spaces_as_underscores():
    X = frame(["credit amount", "  x  ", "a(b)"])
    model = lightgbm(X)
    assert [stored_name(model, c) for c in X.columns] == [str(n) for n in model.feature_names_in_]
    assert stored_name(model, "credit amount") == "credit_amount"
    tree = DecisionTreeClassifier().fit(X, labels(X))
    assert stored_name(tree, "credit amount") == "credit amount"
    booster = xgb.XGBClassifier(n_estimators=2).fit(X, labels(X))
    assert stored_name(booster, "credit amount") == "credit amount" == booster.feature_names_in_[0]


def test_input_columns_reads_lightgbms_names_in_the_models_order():
    X = frame(["credit amount", "age (years)", "plain"])
    model = lightgbm(X)
    shuffled = ["id", "plain", "credit amount", "age (years)"]
    assert input_columns(model, shuffled) == (["credit amount", "age (years)", "plain"], ["id"])
    # the name as LightGBM stores it matches too
    assert input_columns(model, ["credit_amount", "age (years)", "plain"]) == (
        ["credit_amount", "age (years)", "plain"], [],
    )  # fmt: skip
    # inside a one-step pipeline the names are the LightGBM step's
    from sklearn.pipeline import Pipeline

    assert input_columns(Pipeline([("m", model)]), shuffled)[0] == ["credit amount", "age (years)", "plain"]


def test_input_columns_refuses_two_columns_lightgbm_stores_alike():
    X = frame(["a b", "other"])
    model = lightgbm(X)
    with pytest.raises(SchemaError, match=r"model's column 'a_b' is: LGBMClassifier stores each of \['a_b', 'a b'\] as 'a_b'"):
        input_columns(model, ["a_b", "a b", "other"])


def test_input_columns_names_what_is_missing():
    X = frame(["credit amount", "plain"])
    with pytest.raises(SchemaError, match=r"lacks column\(s\) \['credit_amount'\] .* as '_'\)"):
        input_columns(lightgbm(X), ["plain"])
    tree = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, labels(X))
    with pytest.raises(SchemaError, match=r"lacks column\(s\) \['credit amount'\] that the model was fitted on \(feature_names_in_\)$"):
        input_columns(tree, ["plain", "credit_amount"])
    assert input_columns(tree, ["id", "plain", "credit amount"]) == (["credit amount", "plain"], ["id"])


def test_a_model_without_names_reads_every_column():
    X = frame(["a", "b"])
    on_array = DecisionTreeClassifier().fit(X.to_numpy(), labels(X))
    assert input_columns(on_array, ["a", "b", "id"]) == (["a", "b", "id"], [])
    assert input_columns(lambda df: df, ["a"]) == (["a"], [])


def test_a_class_the_model_does_not_have_is_a_bad_value():
    X = frame(["a", "b"])
    tree = DecisionTreeClassifier().fit(X, np.where(labels(X) == 1, "yes", "no"))
    assert class_index(tree, "yes") == 1
    with pytest.raises(UnknownClass, match=r"desired_class 1 is not one of the model's classes \['no', 'yes'\]") as err:
        class_index(tree, 1)
    assert isinstance(err.value, ValueError) and not isinstance(err.value, (UnsupportedModel, TypeError))
    with pytest.raises(UnknownClass, match="model has no classes_; desired_class must be a column index, got 'yes'"):
        class_index(lambda df: df, "yes")


@pytest.mark.parametrize("labels_as, asked, hint", [
    (int, "1", "did you mean 1 (int)?"),
    (str, 1, "did you mean '1' (str)?"),
    (bool, "True", "did you mean True (bool)?"),
])  # fmt: skip
def test_a_class_spelled_as_another_type_is_named_with_its_type(labels_as, asked, hint):
    """A label read from a command line or a JSON body as text, or typed as a number: the class it
    spells is named."""
    X = frame(["a", "b"])
    y = (labels(X) == 1).astype(labels_as) if labels_as is not str else np.where(labels(X) == 1, "1", "0")
    tree = DecisionTreeClassifier().fit(X, y)
    with pytest.raises(UnknownClass, match=re.escape(hint)):
        class_index(tree, asked)
